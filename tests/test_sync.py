from __future__ import annotations

import subprocess

import pytest

from conftest import Runner, git, subjects
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
    from heartcompass.store.lock import WorkspaceLock

    desktop, _ = two_devices
    with WorkspaceLock(desktop.ws.state_dir / "lock"):
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
    import time

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
    started = time.monotonic()
    try:
        result = example_cli("sync", ok=False)
    finally:
        server.close()
        for conn in accepted:
            conn.close()
    assert time.monotonic() - started < 40
    assert accepted, "git never connected"
    assert result.exit_code == 1 and "did not answer within 5 s" in result.output
    assert holder(ws.state_dir / "lock") is None
    example_cli("person", "add", "Bob", "-y")  # the lock is free for the next command
