from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import Runner, finishes, git, log_entries, subjects
from heartcompass.store.workspace import Workspace


@pytest.fixture
def two_devices(example_cli: Runner, tmp_path):
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(example_cli.ws, "remote", "add", "origin", str(bare))
    example_cli("sync")
    laptop = tmp_path / "laptop"
    subprocess.run(["git", "clone", "-q", str(bare), str(laptop)], check=True)
    return example_cli, Runner(Workspace(laptop))


def _conflict(two_devices):
    """Both devices change the same line; the laptop's sync stops on the conflict."""
    desktop, laptop = two_devices
    for runner, drink in ((desktop, "matcha"), (laptop, "hojicha")):
        prof = runner.ws.people_dir / "alice" / "PROFILE.md"
        prof.write_text(prof.read_text().replace("oolong tea", drink))
    desktop("sync")
    result = laptop("sync", ok=False)
    assert result.exit_code == 1 and "Conflict" in result.output and "people/alice/PROFILE.md" in result.output
    return desktop, laptop


def test_sync_shares_changes_between_two_clones(two_devices):
    desktop, laptop = two_devices
    desktop("person", "add", "Bob", "--yes")
    prof = laptop.ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text().replace("oolong tea", "jasmine tea"))
    result = laptop("sync")
    assert "1 pending edits committed first" in result.output
    desktop("sync")
    laptop("sync")
    assert (laptop.ws.people_dir / "bob" / "PROFILE.md").is_file()
    assert "jasmine tea" in (desktop.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert subjects(desktop.ws)[:1] == subjects(laptop.ws)[:1]
    assert "edit(alice): by hand" in subjects(desktop.ws)


def test_a_conflict_is_reported_and_nothing_is_lost(two_devices):
    _, laptop = _conflict(two_devices)  # reported, with the file
    text = (laptop.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert "matcha" in text and "hojicha" in text and "<<<<<<<" in text
    again = laptop("sync", ok=False)
    assert "still being resolved" in again.output


def test_sync_without_a_remote_says_how_to_add_one(example_cli: Runner):
    result = example_cli("sync", ok=False)
    assert result.exit_code == 1 and "remote add origin" in result.output


def test_sync_does_not_run_while_the_gardener_does(two_devices):
    from heartcompass.store.lock import FileLock

    desktop, _ = two_devices
    with FileLock(desktop.ws.state_dir / "lock"):
        result = desktop("sync", ok=False)
    assert result.exit_code == 1 and "gardener is running" in result.output


def test_an_open_sync_conflict_blocks_writing_commands_with_the_sync_fix(two_devices, fake_llm):
    _, laptop = _conflict(two_devices)
    for args in (("person", "add", "Carol", "-y"), ("config", "set", "user.name", "Sam")):
        result = laptop(*args, ok=False)
        assert result.exit_code == 1 and "heartcompass sync --continue" in result.output, args
        assert "heartcompass sync --abort" in result.output
    fake_llm.enqueue("hi")
    result = laptop("chat", "alice", "-m", "still there?", ok=False)
    assert "heartcompass sync --continue" in result.output
    assert not (laptop.ws.people_dir / "carol").exists()
    assert "heartcompass sync --continue" in laptop("doctor", ok=False).output


def test_sync_continue_after_fixing_the_file_finishes_and_pushes(two_devices):
    desktop, laptop = _conflict(two_devices)
    prof = laptop.ws.people_dir / "alice" / "PROFILE.md"
    result = laptop("sync", "--continue", ok=False)
    assert "still has conflict marks" in result.output
    import re

    text = prof.read_text()
    fixed = re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n.*?>>>>>>> [^\n]*\n", r"\1", text, flags=re.S)
    fixed = fixed.replace("matcha", "matcha and hojicha")
    prof.write_text(fixed)
    assert "Synced with origin/main" in laptop("sync", "--continue").output
    assert not (laptop.ws.root / ".git" / "rebase-merge").exists()
    desktop("sync")
    assert "matcha and hojicha" in (desktop.ws.people_dir / "alice" / "PROFILE.md").read_text()
    laptop("person", "add", "Carol", "-y")  # writing works again


def test_sync_abort_goes_back_and_keeps_local_commits(two_devices):
    _, laptop = _conflict(two_devices)
    result = laptop("sync", "--abort")
    assert "abandoned" in result.output
    assert "hojicha" in (laptop.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert "edit(alice): by hand" in subjects(laptop.ws)
    assert "no stopped sync" in laptop("sync", "--abort", ok=False).output


def test_a_remote_that_never_answers_times_out_and_releases_the_lock(example_cli: Runner, monkeypatch):
    import socket
    import threading

    from heartcompass.store import gitremote
    from heartcompass.store.lock import holder

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted = []

    def accept_and_say_nothing():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    monkeypatch.setattr(gitremote, "NETWORK_TIMEOUT", 5.0)  # long enough for git to connect on a busy machine
    ws = example_cli.ws
    git(ws, "remote", "add", "origin", f"http://127.0.0.1:{server.getsockname()[1]}/brain.git")
    try:
        result = finishes(lambda: example_cli("sync", ok=False))  # a hang fails; no bound on a slow machine
    finally:
        server.close()
        for conn in accepted:
            conn.close()
    assert accepted, "git never connected"
    assert result.exit_code == 1 and "did not answer within 5 s" in result.output
    assert holder(ws.state_dir / "lock") is None
    example_cli("person", "add", "Bob", "-y")  # the lock is free for the next command


def test_conflict_marks_are_a_format_error_and_never_reach_the_model(two_devices, fake_llm):
    _, laptop = _conflict(two_devices)
    for args in (("context", "alice"), ("chat", "alice", "-m", "still there?")):
        result = laptop(*args, ok=False)
        assert result.exit_code == 1, args
        assert "people/alice/PROFILE.md:" in result.output and "has unresolved conflict marks" in result.output
        assert "heartcompass sync --continue" in result.output and "Known facts" not in result.output
    assert fake_llm.purposes == []


def test_conflict_marks_committed_by_hand_keep_that_person_from_the_gardener(example_cli, fake_llm):
    ws = example_cli.ws
    prof = ws.people_dir / "alice" / "PROFILE.md"
    line = "Mountains, bad puns, oolong tea, night markets, her cat Mochi.\n"
    prof.write_text(prof.read_text().replace(line, f"<<<<<<< HEAD\n{line}=======\n{line.replace('oolong', 'hojicha')}"
                                                   ">>>>>>> 489928c (edit(alice): by hand)\n"))
    git(ws, "commit", "-qam", "merged badly")
    from garden_helpers import say

    say(ws, "alice", "note", "She moved to Hangzhou")
    result = example_cli("garden", ok=False)
    assert "has unresolved conflict marks" in result.output and fake_llm.purposes == []
    assert "<<<<<<< HEAD" in prof.read_text()  # never rewritten


def test_a_setext_heading_underline_is_not_a_conflict():
    from heartcompass.formats import conflict_line

    assert conflict_line("# Notes\n\nTitle\n=======\n\n> quote\n") is None
    assert conflict_line("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> 489928c (edit)\n") == 2
    assert conflict_line("a\n<<<<<<< HEAD\nx\n=======\ny\n") is None  # no closing mark: not git's shape
    assert conflict_line("x\n>>>>>>> 489928c\n", leftovers=True) == 2


# -- what is typed while a sync is stopped ------------------------------------------------
@pytest.fixture
def bob_conflict(cli: Runner, tmp_path, fake_llm):
    """Bob and Carol, each with a committed chat, and Dan; a remote; and
    another device's clone of it."""
    for name in ("Bob", "Carol"):
        cli("person", "add", name, "--yes")
        fake_llm.enqueue("hey")
        cli("chat", name.lower(), "-m", "a")
    cli("person", "add", "Dan", "--yes")
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(cli.ws, "remote", "add", "origin", str(bare))
    cli("sync")
    other = Runner(Workspace(tmp_path / "other"))
    subprocess.run(["git", "clone", "-q", str(bare), str(other.ws.root)], check=True)
    return cli, other


def _stop_on_bob(cli: Runner, other: Runner, before_sync=lambda: None):
    """Both devices append a line to Bob's MEMORY.md: this one's sync stops on it."""
    for runner, line in ((other, "- from the other device\n"), (cli, "- from here\n")):
        with open(runner.ws.people_dir / "bob" / "MEMORY.md", "a") as f:
            f.write(line)
    other("sync")
    before_sync()
    assert "Conflict" in cli("sync", ok=False).output


def _typed(cli: Runner, fake_llm, slug="carol", text="typed during conflict"):
    fake_llm.enqueue("noted")
    result = cli("chat", slug, "-m", text, ok=False)
    assert "sync --continue" in result.output and f"saved in people/{slug}/logs/" in result.output


def _resolve_bob(cli: Runner):
    memory = cli.ws.people_dir / "bob" / "MEMORY.md"
    memory.write_text(re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2", memory.read_text(),
                             flags=re.S))


def _committed_log(cli: Runner, slug="carol") -> str:
    return git(cli.ws, "show", f"HEAD:{_log_path(cli, slug)}")


def test_sync_abort_keeps_what_was_typed_during_the_conflict(bob_conflict, fake_llm):
    cli, other = bob_conflict
    _stop_on_bob(cli, other)
    _typed(cli, fake_llm)
    result = cli("sync", "--abort")
    assert "kept 1 message typed during the sync; committed" in result.output.lower()
    assert [e.text for e in log_entries(cli.ws, "carol")] == ["a", "hey", "typed during conflict", "noted"]
    assert "typed during conflict" in _committed_log(cli) and subjects(cli.ws)[0].startswith("log(carol): chat log")
    assert git(cli.ws, "status", "--porcelain") == "" and not (cli.ws.state_dir / "typed-during-sync.json").exists()


def test_sync_continue_keeps_what_was_typed_and_pushes_it(bob_conflict, fake_llm):
    cli, other = bob_conflict
    _stop_on_bob(cli, other)
    _typed(cli, fake_llm)
    _resolve_bob(cli)
    result = cli("sync", "--continue")
    assert "Synced with origin/main" in result.output and "kept 1 message typed during the sync; committed" in \
        result.output.lower()
    assert [e.text for e in log_entries(cli.ws, "carol")] == ["a", "hey", "typed during conflict", "noted"]
    other("sync")
    assert "typed during conflict" in _committed_log(other)
    assert "- from the other device" in (other.ws.people_dir / "bob" / "MEMORY.md").read_text()


@pytest.mark.parametrize("action", ["--abort", "--continue"])
def test_a_first_log_of_the_day_not_yet_replayed_plus_a_chat_during_the_conflict(bob_conflict, fake_llm, action):
    """The day's first chat with Dan is a local commit the stopped rebase has
    not replayed yet; chatting with him meanwhile makes that log anew."""
    cli, other = bob_conflict

    def first_chat_with_dan():
        git(cli.ws, "commit", "-qam", "edit(bob): by hand")
        fake_llm.enqueue("hi, Dan here")
        cli("chat", "dan", "-m", "first today")

    _stop_on_bob(cli, other, first_chat_with_dan)
    assert not (cli.ws.people_dir / "dan" / "logs").exists()  # not replayed yet
    _typed(cli, fake_llm, "dan")
    if action == "--continue":
        _resolve_bob(cli)
    result = cli("sync", action)
    assert "kept 1 message typed during the sync; committed" in result.output.lower()
    texts = [e.text for e in log_entries(cli.ws, "dan")]
    assert texts == ["first today", "hi, Dan here", "typed during conflict", "noted"]
    assert "typed during conflict" in _committed_log(cli, "dan")
    assert git(cli.ws, "status", "--porcelain") == "" and not (cli.ws.root / ".git" / "rebase-merge").exists()


def test_what_was_typed_survives_a_crash_between_git_and_putting_it_back(bob_conflict, fake_llm, monkeypatch):
    from heartcompass.store import sync as sync_mod

    cli, other = bob_conflict
    _stop_on_bob(cli, other)
    _typed(cli, fake_llm)
    with monkeypatch.context() as crash:
        crash.setattr(sync_mod, "put_back", lambda ws: "")  # the process dies right after git's abort
        cli("sync", "--abort")
    assert "typed during conflict" not in [e.text for e in log_entries(cli.ws, "carol")]
    assert "typed during conflict" in (cli.ws.state_dir / "typed-during-sync.json").read_text()
    result = cli("sync", ok=False)  # the next sync puts it back first (then stops on Bob again)
    assert "kept 1 message typed during the sync; committed" in result.output.lower()
    log = git(cli.ws, "show", f"main:{_log_path(cli, 'carol')}")  # committed, then the rebase set out again
    assert log.count("typed during conflict") == 1 and log.count("noted") == 1


class Killed(BaseException):
    """Stands for kill -9: nothing after it runs."""


@pytest.mark.parametrize("action", ["--abort", "--continue"])
def test_a_crash_after_the_kept_messages_are_back_before_their_file_goes_appends_them_once(
        bob_conflict, fake_llm, monkeypatch, action):
    """The README's promise: the next sync appends what is kept *once*, even
    when the process died after putting it back and before removing the kept file."""
    from typer.testing import CliRunner

    from heartcompass.cli.app import app
    from heartcompass.store import sync as sync_mod

    cli, other = bob_conflict
    _stop_on_bob(cli, other)
    _typed(cli, fake_llm, text="typed during conflict 小林")
    if action == "--continue":
        _resolve_bob(cli)
    real = sync_mod.dailylog.append_many

    def append_then_die(*args, **kwargs):
        real(*args, **kwargs)
        raise Killed()

    with monkeypatch.context() as crash, pytest.raises(Killed):
        crash.setattr(sync_mod.dailylog, "append_many", append_then_die)
        CliRunner().invoke(app, ["--workspace", str(cli.ws.root), "sync", action], catch_exceptions=False)
    kept = cli.ws.state_dir / "typed-during-sync.json"
    assert kept.exists() and [e.text for e in log_entries(cli.ws, "carol")].count("typed during conflict 小林") == 1
    result = cli("sync", ok=action == "--continue")  # --abort: it stops on Bob again
    assert "kept 1 message typed during the sync; committed" in result.output.lower()
    assert not kept.exists()
    log = git(cli.ws, "show", f"main:{_log_path(cli, 'carol')}")  # --abort: committed, then the rebase set out
    assert log.count("typed during conflict 小林") == 1 and log.count("noted") == 1
    if action == "--continue":
        assert [e.text for e in log_entries(cli.ws, "carol")] == ["a", "hey", "typed during conflict 小林", "noted"]


def _log_path(cli: Runner, slug: str) -> str:
    from heartcompass.store import clock

    return f"people/{slug}/logs/{clock.today(cli.ws).isoformat()}.md"


def test_a_hand_edit_made_during_the_conflict_is_never_thrown_away_by_abort(bob_conflict, fake_llm):
    cli, other = bob_conflict
    _stop_on_bob(cli, other)
    profile = cli.ws.people_dir / "carol" / "PROFILE.md"
    profile.write_text(profile.read_text() + "\nLikes rain.\n")
    result = cli("sync", "--abort", ok=False)
    assert "people/carol/PROFILE.md was changed while the sync was stopped" in result.output
    assert "checkout -- people/carol/PROFILE.md" in result.output
    assert "Likes rain." in profile.read_text() and (cli.ws.root / ".git" / "rebase-merge").exists()
    # the printed fix is a checkout: a copy of the file as it was keeps the change whatever happens next
    copies = list((cli.ws.state_dir / "rejected").glob("carol-people-carol-PROFILE.md.*"))
    assert len(copies) == 1 and "Likes rain." in copies[0].read_text(encoding="utf-8")
    assert ".heartcompass/rejected/" in result.output


@pytest.mark.parametrize("kept", [
    [{"log": "/tmp/hc-outside/2026-12-04.md", "base": 0, "text": "- 09:55:06 · me · x\n"}],
    [{"log": "people/../../hc-outside/logs/2026-12-03.md", "base": 0, "text": "- 09:55:06 · me · x\n"}],
    [{"log": "people/bob/logs/2026-13-45.md", "base": 0, "text": "- 09:55:06 · me · x\n"}],
    [{"log": "people/bob/logs/2026-12-03.md", "base": "x", "text": ""}],
    {"not": "a list"},
    "{not json",
])
def test_a_hand_edited_kept_file_writes_nowhere_and_is_a_clear_error(cli: Runner, tmp_path, kept):
    """.heartcompass/typed-during-sync.json is ours, but a file on disk: a
    path in it never sends a write outside a person's logs."""
    import json

    cli("person", "add", "Bob", "--yes")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(cli.ws, "remote", "add", "origin", str(remote))
    path = cli.ws.state_dir / "typed-during-sync.json"
    path.write_text(kept if isinstance(kept, str) else json.dumps(kept), encoding="utf-8")
    result = cli("sync", ok=False)
    assert result.exit_code == 1 and "typed-during-sync.json" in result.output and "Traceback" not in result.output
    assert not (tmp_path.parent / "hc-outside").exists() and not Path("/tmp/hc-outside").exists()
    assert path.exists()  # nothing dropped: the user decides


def test_kept_messages_wait_while_their_log_is_still_in_conflict(cli: Runner, monkeypatch):
    """sync --abort starts by putting back what a crashed sync kept aside; a
    log git still holds in conflict cannot take it yet, and must not stop the abort."""
    import json

    from heartcompass.store import sync as sync_mod

    cli("person", "add", "Bob", "--yes")
    rel = "people/bob/logs/2026-12-03.md"
    log = cli.ws.root / rel
    log.parent.mkdir(parents=True, exist_ok=True)
    marks = "<<<<<<< HEAD\n- 09:00:00 · me · hi\n=======\n- 09:00:00 · me · hello\n>>>>>>> abc123\n"
    log.write_text(marks, encoding="utf-8")
    kept = [{"log": rel, "base": 1, "text": "- 09:55:06 · me · typed while stopped\n"}]
    path = cli.ws.state_dir / "typed-during-sync.json"
    path.write_text(json.dumps(kept), encoding="utf-8")
    monkeypatch.setattr(type(cli.ws.git), "rebase_in_progress", lambda self: True)
    monkeypatch.setattr(type(cli.ws.git), "conflicted", lambda self: [rel])
    said = sync_mod.put_back(cli.ws)
    assert "still in conflict" in said and "kept aside" in said
    assert json.loads(path.read_text(encoding="utf-8")) == kept and log.read_text(encoding="utf-8") == marks


def test_a_conflict_in_the_settings_file_can_be_aborted_and_continued(two_devices):
    desktop, laptop = two_devices
    for runner, model in ((desktop, "gpt-4o"), (laptop, "deepseek-chat")):
        runner("config", "set", "llm.model", model)
    desktop("sync")
    result = laptop("sync", ok=False)
    assert result.exit_code == 1 and "heartcompass.toml" in result.output
    assert "<<<<<<<" in laptop.ws.config_path.read_text()
    assert "Sync abandoned" in laptop("sync", "--abort").output
    assert "deepseek-chat" in laptop.ws.config_path.read_text() and "<<<<<<<" not in laptop.ws.config_path.read_text()
    laptop("sync", ok=False)
    result = laptop("sync", "--continue", ok=False)  # the marks are still there: named, not a crash
    assert result.exit_code == 1 and "heartcompass.toml" in result.output and "Traceback" not in result.output
    text = laptop.ws.config_path.read_text()
    laptop.ws.config_path.write_text(re.sub(r"<<<<<<< .*?\n(.*?)=======\n.*?>>>>>>> [^\n]*\n", r"\1", text,
                                            flags=re.S))
    assert "Synced" in laptop("sync", "--continue").output or laptop("sync").exit_code == 0
