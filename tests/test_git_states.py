"""Git states a writing command must not commit into: a rebase (the user's or
a stopped sync), a merge, a cherry-pick, a revert, a detached HEAD, a stale
index.lock; hooks; failed commits; paths that are not ASCII."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import Runner, git, log_entries, subjects, tree_snapshot
from waits import wait_until

PROFILE = "people/alice/PROFILE.md"


def _conflict_setup(ws, drink_main="matcha", drink_other="hojicha"):
    """A branch `other` and main that change the same line of alice's profile."""
    path = ws.root / PROFILE
    text = path.read_text()
    git(ws, "checkout", "-q", "-b", "other")
    path.write_text(text.replace("oolong tea", drink_other))
    git(ws, "commit", "-qam", "other drink")
    git(ws, "checkout", "-q", "main")
    path.write_text(text.replace("oolong tea", drink_main))
    git(ws, "commit", "-qam", "main drink")


def git_try(ws, *args: str) -> int:
    """git as the user runs it, when it is expected to stop (on a conflict)."""
    who = ["-c", "user.name=The User", "-c", "user.email=user@example.com"]
    return subprocess.run(["git", *who, *args], cwd=ws.root, capture_output=True).returncode


def _fails(runner: Runner, *args, input=None):
    result = runner(*args, ok=False, input=input)
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture
def mid_rebase(example_cli: Runner):
    ws = example_cli.ws
    _conflict_setup(ws)
    assert git_try(ws, "rebase", "other") != 0
    assert (ws.root / ".git" / "rebase-merge").is_dir() or (ws.root / ".git" / "rebase-apply").is_dir()
    return example_cli


def test_writing_commands_refuse_mid_rebase_and_touch_nothing(mid_rebase: Runner):
    ws = mid_rebase.ws
    before = tree_snapshot(ws.root)
    head = git(ws, "rev-parse", "HEAD")
    for args in (("person", "add", "Bob", "-r", "friend", "-y"),
                 ("config", "set", "user.name", "Sam"),
                 ("person", "rename", "alice", "Alicia"),
                 ("person", "archive", "alice"),
                 ("undo",),
                 ("restore", "alice", "profile", "--at", "HEAD~1")):
        output = _fails(mid_rebase, *args)
        assert "middle of a rebase" in output and "git rebase --continue" in output and "--abort" in output, args
    assert tree_snapshot(ws.root) == before
    assert git(ws, "rev-parse", "HEAD") == head


def test_chat_mid_rebase_logs_the_message_then_refuses_and_a_later_command_commits_it(mid_rebase: Runner,
                                                                                      fake_llm):
    ws = mid_rebase.ws
    output = _fails(mid_rebase, "chat", "alice", "-m", "hi")  # her profile holds the conflict's marks
    assert "has unresolved conflict marks" in output and fake_llm.purposes == []
    assert "logged in people/alice/logs/" in output and log_entries(ws, "alice")[-1].text == "hi"  # not lost
    fake_llm.enqueue("hello you")
    output = _fails(mid_rebase, "chat", "me", "-m", "typed during a rebase")
    assert "middle of a rebase" in output and "saved in people/me/logs/" in output
    assert [e.text for e in log_entries(ws, "me")][-2:] == ["typed during a rebase", "hello you"]
    assert not any(s.startswith("chat(me)") for s in subjects(ws))
    git(ws, "rebase", "--abort")
    fake_llm.enqueue("welcome back")
    mid_rebase("chat", "me", "-m", "and now?")
    assert subjects(ws)[1].startswith("log(me): chat log") and subjects(ws)[0].startswith("chat(me)")
    assert "typed during a rebase" in git(ws, "show", "HEAD~1")
    fake_llm.enqueue("there you are")
    mid_rebase("chat", "alice", "-m", "still there?")  # her profile is whole again: she answers
    assert "hi" in git(ws, "log", "-p", "-3", "--", "people/alice/logs/")
    assert git(ws, "status", "--porcelain") == ""


def test_garden_refuses_mid_cherry_pick(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    _conflict_setup(ws)
    assert git_try(ws, "cherry-pick", "other") != 0
    assert (ws.root / ".git" / "CHERRY_PICK_HEAD").exists()
    from garden_helpers import say

    say(ws, "alice", "note", "She moved to Hangzhou")  # an idle garden writes nothing, so it checks nothing
    output = _fails(example_cli, "garden")
    assert "cherry-pick" in output and "git cherry-pick --continue" in output
    assert fake_llm.purposes == []


def test_a_merge_in_progress_is_refused_and_nothing_is_staged_into_it(example_cli: Runner):
    ws = example_cli.ws
    _conflict_setup(ws)
    assert git_try(ws, "merge", "other") != 0
    assert (ws.root / ".git" / "MERGE_HEAD").exists()
    staged = git(ws, "diff", "--cached", "--name-only")
    output = _fails(example_cli, "person", "add", "Bob", "-r", "friend", "-y")
    assert "middle of a merge" in output and "git merge --abort" in output
    assert not (ws.people_dir / "bob").exists()
    assert git(ws, "diff", "--cached", "--name-only") == staged


def test_a_revert_in_progress_is_refused(example_cli: Runner):
    ws = example_cli.ws
    _conflict_setup(ws)  # main: oolong -> matcha
    path = ws.root / PROFILE
    path.write_text(path.read_text().replace("matcha", "jasmine tea"))
    git(ws, "commit", "-qam", "jasmine")
    assert git_try(ws, "revert", "--no-edit", "HEAD~1") != 0  # matcha -> oolong clashes with jasmine
    assert (ws.root / ".git" / "REVERT_HEAD").exists()
    assert "middle of a revert" in _fails(example_cli, "config", "set", "user.name", "Sam")


def test_a_detached_head_is_refused_with_the_way_back(example_cli: Runner):
    ws = example_cli.ws
    git(ws, "checkout", "-q", "--detach")
    toml = ws.config_path.read_text()
    output = _fails(example_cli, "config", "set", "user.name", "Sam")
    assert "detached HEAD" in output and "git checkout main" in output
    assert ws.config_path.read_text() == toml
    git(ws, "checkout", "-q", "main")
    example_cli("config", "set", "user.name", "Sam")


def test_doctor_reports_the_git_state_with_the_fix(mid_rebase: Runner):
    output = mid_rebase("doctor", ok=False).output
    assert "✗ git" in output and "middle of a rebase" in output and "git rebase --abort" in output


# -- index.lock ---------------------------------------------------------------------------
def test_a_stale_index_lock_is_named_with_its_fix(example_cli: Runner):
    ws = example_cli.ws
    lock = ws.root / ".git" / "index.lock"
    lock.write_text("")
    output = _fails(example_cli, "person", "add", "Bob", "-r", "friend", "-y")
    assert "stale" in output and "index.lock" in output and "rm " in output
    assert not (ws.people_dir / "bob").exists()
    doctor = example_cli("doctor", ok=False).output
    assert "✗ git" in doctor and "stale" in doctor and "✓ git" not in doctor
    lock.unlink()
    example_cli("person", "add", "Bob", "-r", "friend", "-y")


def test_an_index_lock_of_a_running_git_is_not_called_stale(example_cli: Runner):
    ws = example_cli.ws
    lock = ws.root / ".git" / "index.lock"
    lock.write_text("")
    # the user's git, in another terminal (not a child of this process)
    running = subprocess.Popen(["sh", "-c", "git hash-object --stdin; true"], cwd=ws.root, stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL)
    try:
        from heartcompass.store.gitstate import git_processes

        wait_until(lambda: git_processes(ws.root), what="the user's git to start")  # started, not "after a while"
        output = _fails(example_cli, "person", "add", "Bob", "-r", "friend", "-y")
        assert "git is busy" in output and "git process " in output and "stale" not in output
    finally:
        running.communicate(b"x")
        lock.unlink()


# -- hooks and failed commits ---------------------------------------------------------------
def _hook(ws, body: str) -> None:
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n" + body + "\n")
    hook.chmod(0o755)


def test_the_users_hooks_run_on_our_commits(example_cli: Runner):
    ws = example_cli.ws
    _hook(ws, f"echo ran >> '{ws.root / '.git' / 'hook-ran'}'")
    example_cli("person", "add", "Bob", "-r", "friend", "-y")
    assert (ws.root / ".git" / "hook-ran").read_text() == "ran\n"


def test_a_rejecting_hook_rolls_back_person_add_and_says_so(example_cli: Runner):
    ws = example_cli.ws
    _hook(ws, "echo 'secret scanner: found a key' >&2; exit 1")
    before = tree_snapshot(ws.root)
    output = _fails(example_cli, "person", "add", "Bob", "-r", "friend", "-y")
    assert "secret scanner: found a key" in output and "people/bob/ (nothing was added) was rolled back" in output
    assert not (ws.people_dir / "bob").exists()
    assert tree_snapshot(ws.root) == before and git(ws, "status", "--porcelain") == ""


def test_a_rejecting_hook_leaves_heartcompass_toml_as_it_was(example_cli: Runner):
    ws = example_cli.ws
    _hook(ws, "exit 1")
    toml = ws.config_path.read_text()
    output = _fails(example_cli, "config", "set", "user.name", "Sam")
    assert "heartcompass.toml was rolled back" in output
    assert ws.config_path.read_text() == toml and git(ws, "status", "--porcelain") == ""


def test_a_rejecting_hook_leaves_chat_messages_pending_not_lost(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    _hook(ws, "exit 1")
    fake_llm.enqueue("hi!")
    output = _fails(example_cli, "chat", "alice", "-m", "are you there?")
    assert "saved in people/alice/logs/" in output
    assert "are you there?" in [e.text for e in log_entries(ws, "alice")]
    (ws.root / ".git" / "hooks" / "pre-commit").unlink()
    example_cli("person", "rename", "alice", "Alicia")  # any command that commits pending edits
    assert git(ws, "status", "--porcelain") == ""
    assert any(s.startswith("log(alice)") for s in subjects(ws))


def test_git_hooks_false_skips_them(example_cli: Runner):
    ws = example_cli.ws
    ws.config_path.write_text(ws.config_path.read_text() + "\n[git]\nhooks = false\n")
    git(ws, "commit", "-qam", "hooks off")
    _hook(ws, "exit 1")
    example_cli("person", "add", "Bob", "-r", "friend", "-y")
    assert subjects(ws)[0] == "add(bob): new person"


# -- paths that are not ASCII ---------------------------------------------------------------
def test_undo_and_diff_of_a_chinese_name(cli: Runner):
    ws = cli.ws
    cli("person", "add", "小明", "-r", "friend", "-y")
    slug = next(p.name for p in ws.people_dir.iterdir() if p.name not in ("me", ".archive"))
    path = ws.people_dir / slug / "PROFILE.md"
    path.write_text(path.read_text() + "\nLikes dumplings.\n")
    diff = cli("diff", slug).output
    assert f"people/{slug}/PROFILE.md" in diff and "\\345" not in diff
    cli("person", "rename", slug, "小明明")
    new_slug = next(p.name for p in ws.people_dir.iterdir() if p.name not in ("me", ".archive"))
    assert "小明" in cli("log", new_slug).output
    result = cli("undo")
    assert "Undid" in result.output
    assert (ws.people_dir / slug / "PROFILE.md").exists() and not (ws.people_dir / new_slug).exists()
    assert git(ws, "status", "--porcelain") == ""
    from heartcompass.store import audit

    commits = audit.history(ws, None, 3)
    assert any(f"people/{slug}/PROFILE.md" in c.files for c in commits)


def test_non_ascii_paths_are_never_quoted(ws):
    from heartcompass.store.gitrepo import BASE_OPTIONS

    assert "core.quotepath=false" in BASE_OPTIONS
    (ws.root / "people" / "小明").mkdir()
    (ws.root / "people" / "小明" / "x.md").write_text("x\n")
    sha = ws.git.commit([ws.root / "people" / "小明"], "add(小明): test")
    assert ws.git.get(sha).files == ["people/小明/x.md"]
    assert ws.git.files_at("HEAD", ws.root / "people" / "小明") == ["people/小明/x.md"]
    assert os.path.basename(ws.git.log([ws.root / "people" / "小明"])[0].files[0]) == "x.md"


def test_an_index_lock_appearing_mid_command_still_rolls_back_and_says_so(example_cli: Runner, monkeypatch):
    """A git process killed between our check and our commit: the commit
    fails on index.lock, and the new person folder is not left behind."""
    from heartcompass.store import lifecycle

    ws = example_cli.ws
    real_create = lifecycle.create

    def create_then_a_git_dies(*args, **kwargs):
        person = real_create(*args, **kwargs)
        (ws.root / ".git" / "index.lock").write_text("")
        return person

    monkeypatch.setattr(lifecycle, "create", create_then_a_git_dies)
    output = _fails(example_cli, "person", "add", "Bob", "-r", "friend", "-y")
    assert "stale" in output and "rm " in output and "was rolled back" in output
    assert not (ws.people_dir / "bob").exists()


@pytest.mark.parametrize("args, said", [(("person", "rename", "alice", "Alicia"), "the rename (people/alice is"),
                                        (("person", "archive", "alice"), "the move (people/alice is")])
def test_a_failed_move_is_rolled_back_whole_logs_and_all(example_cli: Runner, fake_llm, args, said):
    ws = example_cli.ws
    fake_llm.enqueue("hi")
    example_cli("chat", "alice", "-m", "a message in her log")
    before = tree_snapshot(ws.root)
    assert any("/logs/" in path for path in before)
    _hook(ws, "exit 1")
    output = _fails(example_cli, *args)
    assert said in output and "was rolled back" in output
    assert tree_snapshot(ws.root) == before and git(ws, "status", "--porcelain") == ""


def test_tell_refuses_before_asking_the_model(mid_rebase: Runner, fake_llm):
    output = _fails(mid_rebase, "tell", "alice", "She moved to Berlin", "--yes")
    assert "middle of a rebase" in output and fake_llm.purposes == []


def test_coach_save_mid_rebase_keeps_the_exchange_in_the_log(mid_rebase: Runner, fake_llm):
    from test_coach_graph import ADVICE

    ws = mid_rebase.ws
    output = _fails(mid_rebase, "coach", "alice", "so tired today", "--save")
    assert "has unresolved conflict marks" in output and fake_llm.purposes == []  # not sent to the model
    (ws.root / PROFILE).write_text(git(ws, "show", f"other:{PROFILE}"))  # the user chose a side; not yet added
    fake_llm.enqueue(ADVICE)
    output = _fails(mid_rebase, "coach", "alice", "so tired today", "--save")
    assert "middle of a rebase" in output and "saved in people/alice/logs/" in output
    assert "Alice Chen wrote to me: so tired today" in [e.text for e in log_entries(mid_rebase.ws, "alice")]


def test_config_set_git_hooks_false_is_itself_committed_without_them(example_cli: Runner):
    ws = example_cli.ws
    _hook(ws, "exit 1")
    example_cli("config", "set", "git.hooks", "false")
    assert subjects(ws)[0] == "config: git.hooks = False"
    example_cli("person", "add", "Bob", "-r", "friend", "-y")
    # turning them back on is committed with them on: this hook refuses, so it is rolled back
    assert "rolled back" in _fails(example_cli, "config", "set", "git.hooks", "true")
    assert "hooks = false" in ws.config_path.read_text() and git(ws, "status", "--porcelain") == ""
