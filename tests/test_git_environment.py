"""git as real machines configure it: variables that point git elsewhere
(a command run from a hook or an editor's terminal), a workspace that is a
`git worktree`, a global ignore rule that matches our files."""

from __future__ import annotations

import subprocess

import pytest

from conftest import Runner, git, log_entries, subjects
from garden_helpers import memory, say


def _clean(ws) -> bool:
    return git(ws, "status", "--porcelain") == ""


@pytest.mark.parametrize("variable", ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY"])
def test_git_variables_pointing_elsewhere_are_ignored(example_cli: Runner, fake_llm, tmp_path, variable):
    elsewhere = tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    target = {"GIT_INDEX_FILE": "/nonexistent/index", "GIT_DIR": str(elsewhere / ".git"),
              "GIT_WORK_TREE": str(elsewhere), "GIT_OBJECT_DIRECTORY": str(tmp_path / "objects")}[variable]
    env = {variable: target}
    before = git(example_cli.ws, "ls-tree", "-r", "--name-only", "HEAD")
    say(example_cli.ws, "alice", "note", "Alice keeps a tortoise called Shelly")
    fake_llm.enqueue({"summary": "a tortoise", "new_facts": [{"text": "Keeps a tortoise called Shelly",
                                                               "evidence": ["L1"]}]})
    example_cli("garden", env=env)
    assert subjects(example_cli.ws)[0].startswith("garden(alice)")
    assert any("Shelly" in f for f in memory(example_cli.ws).items("Facts"))
    example_cli("undo", env=env)
    assert subjects(example_cli.ws)[0].startswith("undo")
    after = git(example_cli.ws, "ls-tree", "-r", "--name-only", "HEAD")
    assert after == before or set(before.split()) <= set(after.split())  # nothing of the tree deleted
    assert _clean(example_cli.ws), git(example_cli.ws, "status", "--porcelain")
    assert git(example_cli.ws, "status", "--porcelain") == "" and not (elsewhere / "people").exists()
    out = subprocess.run(["git", "-C", str(elsewhere), "log", "--oneline"], capture_output=True, text=True)
    assert out.stdout == ""  # no commit went to the other repository


def test_chat_from_a_hook_commits_to_the_workspace(example_cli: Runner, fake_llm, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "hello", env={"GIT_DIR": str(elsewhere / ".git"),
                                                      "GIT_INDEX_FILE": str(elsewhere / ".git" / "index")})
    assert subjects(example_cli.ws)[0].startswith("chat(alice)") and _clean(example_cli.ws)
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "me"] == ["hello"]


def test_a_workspace_that_is_a_git_worktree_works(example_cli: Runner, fake_llm, tmp_path):
    other = tmp_path / "second"
    git(example_cli.ws, "worktree", "add", "-q", "-b", "second", str(other))
    runner = Runner(type(example_cli.ws)(other))
    say(runner.ws, "alice", "note", "Alice keeps a tortoise called Shelly")
    fake_llm.enqueue({"summary": "a tortoise", "new_facts": [{"text": "Keeps a tortoise called Shelly",
                                                               "evidence": ["L1"]}]})
    runner("garden")
    fake_llm.enqueue("hi!")
    runner("chat", "alice", "-m", "hello")
    log = git(runner.ws, "log", "--format=%s", "second")
    assert log.splitlines()[0].startswith("chat(alice)") and "garden(alice)" in log
    assert "by hand" not in log  # the gardener's lines were never committed as the user's
    assert git(runner.ws, "status", "--porcelain") == ""
    assert any("Shelly" in f for f in memory(runner.ws).items("Facts"))


@pytest.fixture
def global_ignore_md(isolated_home):
    rules = isolated_home / "global-ignore"
    rules.write_text("*.md\n")
    (isolated_home / ".gitconfig").write_text(f"[core]\n\texcludesFile = {rules}\n")
    return rules


def test_a_global_ignore_rule_for_markdown_does_not_leave_our_files_uncommitted(tmp_path, global_ignore_md,
                                                                               fake_llm):
    from heartcompass.store.creation import create_workspace

    ws, _ = create_workspace(tmp_path / "brain", example=True)
    cli = Runner(ws)
    cli("person", "add", "Carol", "--relation", "friend", "--yes")
    fake_llm.enqueue("hi!")
    cli("chat", "carol", "-m", "hello")
    tracked = git(ws, "ls-files").split()
    assert {"people/carol/PROFILE.md", "people/alice/PROFILE.md"} <= set(tracked)
    assert any(p.startswith("people/carol/logs/") for p in tracked)
    assert git(ws, "status", "--porcelain", "--ignored", "people") == ""
    (ws.people_dir / "carol" / "notes.md").write_text("mine\n")  # a file git will never see
    result = cli("doctor", ok=False)
    assert result.exit_code == 1 and "git ignores 1 file of yours, e.g. people/carol/notes.md" in result.output
    assert "git check-ignore -v people/carol/notes.md" in result.output


def test_doctor_says_when_signing_would_refuse_every_commit(example_cli: Runner):
    git(example_cli.ws, "config", "commit.gpgsign", "true")
    git(example_cli.ws, "config", "gpg.program", "/nonexistent/gpg")
    result = example_cli("doctor", ok=False)
    assert result.exit_code == 1 and "commit.gpgsign is on and signing fails" in result.output


def test_doctor_names_the_commit_hooks_without_running_them(example_cli: Runner):
    hooks = example_cli.ws.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    ran = example_cli.ws.root.parent / "hook-ran"
    hook = hooks / "commit-msg"
    hook.write_text(f"#!/bin/sh\ntouch '{ran}'\necho 'no ticket number' >&2\nexit 1\n")
    hook.chmod(0o755)
    output = example_cli("doctor", ok=False).output
    assert "your git hook commit-msg run on every commit HeartCompass makes" in output
    assert "git.hooks false" in output and "commits:" not in output
    assert not ran.exists()  # doctor only reads: only commits run the user's hooks
    example_cli("config", "set", "git.hooks", "false")
    output = example_cli("doctor", ok=False).output
    assert "✓ git: repository with" in output and "hooks:" not in output


def test_doctor_is_quiet_about_commits_when_they_can_be_made(example_cli: Runner):
    result = example_cli("doctor", ok=False)  # ok=False: the example's model has no key
    output = result.output
    assert result.exit_code == 1 and "Traceback" not in output
    assert "✓ git: repository with" in output and "✓ files:" in output  # doctor ran its checks, git's among them
    assert "commits:" not in output and "ignored:" not in output and "hooks:" not in output


def test_settings_that_would_crash_are_named(example_cli: Runner):
    config = example_cli.ws.config_path
    good = config.read_text()
    config.write_text(good + "deep = " + "[" * 50_000 + "]" * 50_000 + "\n")
    for args in (["person", "list"], ["config", "set", "llm.model", "x"]):
        result = example_cli(*args, ok=False)
        assert result.exit_code == 1 and "nested too deeply" in result.output and "Traceback" not in result.output
    config.write_text(good)
    result = example_cli("config", "set", "llm.base_url", "http://[::1/v1", ok=False)
    assert result.exit_code == 1 and "valid host and port" in result.output
    example_cli("config", "set", "llm.base_url", "http://[::1]:8080/v1")
    result = example_cli("config", "set", "--", "sync.remote", "--upload-pack=touch /tmp/x", ok=False)
    assert result.exit_code == 1 and "not starting with '-'" in result.output


def test_a_cron_line_is_refused_for_a_path_with_a_line_break(tmp_path):
    from heartcompass.store.creation import create_workspace

    ws, _ = create_workspace(tmp_path / "two\nlines", example=True)
    result = Runner(ws)("garden", "--cron-line", ok=False)
    assert result.exit_code == 1 and "line break" in result.output and "0 2 * * *" not in result.output


def test_an_undo_killed_before_its_commit_is_taken_back_by_the_next_command(example_cli: Runner, fake_llm):
    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "hello")
    head = git(example_cli.ws, "rev-parse", "HEAD").strip()
    # where a killed `heartcompass undo` stops: its mark, then git's revert, no commit
    (example_cli.ws.root / ".git" / "heartcompass-undo").write_text(head + "\n")
    git(example_cli.ws, "revert", "--no-commit", head)
    doctor = example_cli("doctor", ok=False).output
    assert "'heartcompass undo' was interrupted" in doctor and "git revert" not in doctor
    fake_llm.enqueue("hi again!")
    example_cli("chat", "alice", "-m", "still there?")
    assert not (example_cli.ws.root / ".git" / "REVERT_HEAD").exists()
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "me"] == ["hello", "still there?"]
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_a_revert_the_user_started_is_left_to_them(example_cli: Runner, fake_llm):
    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "hello")
    git(example_cli.ws, "revert", "--no-commit", "HEAD")
    result = example_cli("chat", "alice", "-m", "/note x", ok=False)
    assert result.exit_code == 1 and "git revert --continue" in result.output
    assert (example_cli.ws.root / ".git" / "REVERT_HEAD").exists()


def test_a_hook_that_prefixes_subjects_does_not_hide_whose_change_it_was(example_cli: Runner, fake_llm):
    hooks = example_cli.ws.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "commit-msg").write_text('#!/bin/sh\nsed -i "1s/^/[ABC-1] /" "$1"\n')
    (hooks / "commit-msg").chmod(0o755)
    example_cli("person", "add", "Bob", "--yes")
    example_cli("chat", "bob", "-m", "/note likes jazz")
    assert subjects(example_cli.ws)[0] == "[ABC-1] chat(bob): 1 message on " + log_day(example_cli.ws, "bob")
    example_cli("undo")
    assert subjects(example_cli.ws)[0].startswith("[ABC-1] undo(bob): ")
    assert "edit(" not in " ".join(subjects(example_cli.ws))  # none of ours was taken for a hand edit


def log_day(ws, slug):
    from heartcompass.formats import dailylog

    return dailylog.log_dates(ws.people_dir / slug)[-1]


@pytest.mark.parametrize("year", [9999, 1970])
def test_a_clock_far_off_is_named_not_a_traceback(example_cli: Runner, monkeypatch, year):
    import datetime as dt

    class Far(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(year, 12, 31, 23, 59, tzinfo=tz or dt.timezone.utc)

    monkeypatch.setattr("heartcompass.store.clock.dt.datetime", Far)
    before = subjects(example_cli.ws)
    for args in (["chat", "alice", "-m", "/note hi"], ["context", "alice"], ["garden"]):
        result = example_cli(*args, ok=False)
        assert result.exit_code == 1 and f"clock says {year}-12-31" in result.output, result.output
    assert subjects(example_cli.ws) == before


def test_a_folder_moved_with_git_mv_is_one_commit_and_the_old_folder_leaves_head(example_cli: Runner):
    """The user's own `git mv` (or a `person rename` killed after its move):
    the next command commits the move whole, never both folders."""
    git(example_cli.ws, "mv", "people/alice", "people/alicia")
    example_cli("chat", "alicia", "-m", "/note she keeps a tortoise")
    tree = git(example_cli.ws, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert not any(p.startswith("people/alice/") for p in tree)
    assert "people/alicia/PROFILE.md" in tree
    assert git(example_cli.ws, "status", "--porcelain") == ""
    body = git(example_cli.ws, "log", "-1", "--format=%b", "HEAD~1")
    assert subjects(example_cli.ws)[1] == "edit(alicia): by hand" and "Moved by hand from people/alice/" in body


def test_a_garden_whose_commit_failed_is_never_committed_as_the_users_hand_edit(example_cli: Runner, fake_llm):
    example_cli("chat", "alice", "-m", "/note Alice keeps a tortoise called Shelly")  # the log is committed
    hooks = example_cli.ws.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\necho 'refused by policy' >&2\nexit 1\n")
    (hooks / "pre-commit").chmod(0o755)
    fake_llm.enqueue({"summary": "a tortoise", "new_facts": [{"text": "Keeps a tortoise called Shelly",
                                                               "evidence": ["L1"]}]})
    assert example_cli("garden", ok=False).exit_code == 1
    (hooks / "pre-commit").unlink()
    assert git(example_cli.ws, "status", "--porcelain") == " M people/alice/MEMORY.md\n"  # the model's lines
    example_cli("chat", "alice", "-m", "/note and a cat")  # commits its log, and hand edits first
    assert not any(s.startswith("edit(alice)") for s in subjects(example_cli.ws))
    fake_llm.enqueue({"summary": "nothing new", "nothing_worth_keeping": True})
    example_cli("garden")
    committed = git(example_cli.ws, "show", "HEAD:people/alice/MEMORY.md") + \
        git(example_cli.ws, "show", "HEAD~1:people/alice/MEMORY.md")
    assert "Shelly" in committed and any(s.startswith("garden(alice)") for s in subjects(example_cli.ws))
    assert not any(s.startswith("edit(alice)") for s in subjects(example_cli.ws))


def test_a_chat_commit_when_signing_fails_is_refused_and_the_message_kept(example_cli: Runner):
    """The chat's fast commit (objects, no `git commit`) must not make an
    unsigned commit where the user signs every one: signing that fails is an
    error, and the message stays in the log for the next commit."""
    git(example_cli.ws, "config", "commit.gpgsign", "true")
    git(example_cli.ws, "config", "gpg.program", "/nonexistent/gpg")
    before = git(example_cli.ws, "rev-parse", "HEAD")
    result = example_cli("chat", "alice", "-m", "/note typed while signing fails", ok=False)
    assert result.exit_code == 1
    assert git(example_cli.ws, "rev-parse", "HEAD") == before
    logs = (example_cli.ws.people_dir / "alice" / "logs").glob("*.md")
    assert any("typed while signing fails" in p.read_text(encoding="utf-8") for p in logs)
