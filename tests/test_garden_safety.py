"""The gardener's safety: lock, concurrent hand edits, crashes, reruns."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import Runner, git, subjects
from heartcompass import atomic, formats
from heartcompass.formats import memory as memory_fmt
from heartcompass.store.lock import LockBusy, FileLock
from garden_helpers import answer_with, consolidated, events, memory, proposal, say
from waits import wait_until


@pytest.fixture
def alice(example_cli: Runner):
    return example_cli


def _good(n=1):
    return proposal(new_events=[{"date": "2026-12-01", "text": f"Booked movers for Kyoto ({'first' if n == 1 else 'second'} try)", "weight": 0.6,
                                 "evidence": ["L1"]}],
                    new_facts=[{"text": "Booked movers for the Kyoto move", "evidence": ["L1"]}])


def test_a_second_gardener_exits_at_once(alice: Runner, fake_llm):
    lock = FileLock(alice.ws.state_dir / "lock")
    lock.acquire()
    try:
        result = alice("garden", ok=False)
        assert result.exit_code == 1 and "Another HeartCompass gardener is running" in result.output
        assert f"pid {os.getpid()}" in result.output
    finally:
        lock.release()
    assert alice("garden").exit_code == 0


def test_a_stale_lock_from_a_killed_process_is_taken_over(alice: Runner, fake_llm):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    proc.kill()
    proc.wait()
    import socket

    path = alice.ws.state_dir / "lock"
    path.write_text(json.dumps({"pid": proc.pid, "host": socket.gethostname(), "since": "yesterday"}))
    assert alice("garden").exit_code == 0
    assert not path.exists()


def test_lock_is_exclusive_in_process(tmp_path):
    first = FileLock(tmp_path / "lock")
    first.acquire()
    with pytest.raises(LockBusy):
        FileLock(tmp_path / "lock").acquire()
    first.release()
    with FileLock(tmp_path / "lock"):
        pass


def test_a_hand_edit_during_the_run_is_not_overwritten(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    path = ws.people_dir / "alice" / "MEMORY.md"
    edited = path.read_text().replace("## Facts\n\n", "## Facts\n\n- Typed while the gardener ran\n")

    def edit_meanwhile(messages):
        path.write_text(edited)  # the user saves in the editor while the model thinks
        return _good()

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, edit_meanwhile)
        result = alice("garden", ok=False)
    assert result.exit_code == 1 and "edited while the gardener ran" in result.output
    assert "retried next run" in result.output
    assert path.read_text() == edited
    assert not any("Booked movers" in e.text for e in events(ws))
    # the next run commits the hand edit first, then gardens
    fake_llm.enqueue(_good())
    alice("garden")
    assert subjects(ws)[:2] == ["garden(alice): 1 new event, memory updated from 2026-12-01 log",
                                "edit(alice): by hand"]
    assert "- Typed while the gardener ran" in memory(ws).items(memory_fmt.FACTS)


class Killed(BaseException):
    """Stands for kill -9: nothing after it runs (not even except Exception)."""


# Every step of a gardening that leaves something behind, in order: a kill before
# any of them must end, after the next run, byte-for-byte where an uninterrupted
# run ends (with the first proposal once the journal holds it, else the second).
STEPS = ["hand-lines", "journal", "EVENTS.md", "MEMORY.md", "state", "commit", "hand-lines", "log-counts"]


def _step(path) -> str:
    from pathlib import Path

    path = Path(path)
    return {"hand-lines": "hand-lines", "garden": "journal", "consolidated": "state"}.get(
        path.parent.name, "log-counts" if path.name == "log-counts.json" else path.name)


def _outcome(ws):
    files = {name: (ws.people_dir / "alice" / name).read_bytes() for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")}
    return files, consolidated(ws)


def _uninterrupted(alice: Runner, fake_llm, tmp_path, name, answer):
    import shutil

    from heartcompass.store.workspace import Workspace

    root = tmp_path / name
    shutil.copytree(alice.ws.root, root)
    copy = Runner(Workspace(root))
    fake_llm.enqueue(answer)
    copy("garden")
    return _outcome(copy.ws)


@pytest.mark.parametrize("kill_at", range(len(STEPS)))
def test_killed_at_any_step_the_next_run_finishes_byte_for_byte(alice: Runner, fake_llm, monkeypatch, kill_at,
                                                                tmp_path):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    first = _uninterrupted(alice, fake_llm, tmp_path, "first", _good(1))
    second = _uninterrupted(alice, fake_llm, tmp_path, "second", _good(2))
    assert first != second
    from heartcompass import stat_cache
    from heartcompass.memory import consolidation, garden_journal, gardener, hand_lines, new_entries
    from heartcompass.store import unfinished
    from heartcompass.store.gitrepo import WorkspaceGit

    monkeypatch.setattr(stat_cache, "RACY_NS", 0)  # the logs were written this instant: count them at once

    steps: list[str] = []
    real_write, real_commit = atomic.write_atomic, WorkspaceGit.commit_contents

    def step(name):
        if len(steps) == kill_at:
            raise Killed()
        steps.append(name)

    def dying_write(path, text, expected_checksum="any"):
        step(_step(path))
        return real_write(path, text, expected_checksum)

    real_cache = atomic.write_cache

    def dying_cache(path, text):
        step(_step(path))
        return real_cache(path, text)

    def dying_commit(self, contents, subject, body=""):
        step("commit")
        return real_commit(self, contents, subject, body)

    from typer.testing import CliRunner

    from heartcompass.cli.app import app

    fake_llm.enqueue(_good(1))
    with monkeypatch.context() as m, pytest.raises(Killed):
        for module in (gardener, garden_journal, consolidation, unfinished):  # (unfinished writes the journal)
            m.setattr(module, "write_atomic", dying_write)
        for module in (new_entries, hand_lines):
            m.setattr(module, "write_cache", dying_cache)
        m.setattr(WorkspaceGit, "commit_contents", dying_commit)
        CliRunner().invoke(app, ["--workspace", str(ws.root), "garden"], catch_exceptions=False)
    assert steps == STEPS[:kill_at]
    # whatever was on disk parses
    for path in (ws.people_dir / "alice").glob("*.md"):
        formats.validate(path)
    (ws.state_dir / "lock").unlink(missing_ok=True)  # a killed process leaves its lock (stale: taken over)
    fake_llm.script.clear()  # a kill before the model was asked leaves its answer unused
    fake_llm.enqueue(_good(2))
    alice("garden")
    got, want = _outcome(ws), (second if kill_at <= STEPS.index("journal") else first)
    for name in got[0]:
        assert got[0][name].decode() == want[0][name].decode(), name
    assert got[1] == want[1]
    assert git(ws, "status", "--porcelain") == ""
    mine = subjects(ws)
    assert not any(s.startswith("edit(alice)") for s in mine)  # the gardener's bytes are never a hand edit
    assert git(ws, "log", "-1", "--format=%s", "--", "people/alice/MEMORY.md").startswith("garden(alice):")
    # and a third run has nothing to do
    calls_before = len(fake_llm.purposes)
    alice("garden")
    assert len(fake_llm.purposes) == calls_before


def test_a_hand_edit_in_the_last_moment_before_a_write_is_never_overwritten(alice: Runner, fake_llm, monkeypatch):
    """The user saves between the gardener's last check and its write: the write's
    own checksum guard (atomic.write_atomic) must refuse."""
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    path = ws.people_dir / "alice" / "MEMORY.md"
    edited = path.read_text().replace("## Facts\n\n", "## Facts\n\n- Saved at the last moment\n")
    real_checksum = atomic.file_checksum

    def checksum_then_user_saves(p):
        value = real_checksum(p)
        if p == path and path.read_text() != edited:
            path.write_text(edited)  # right after the gardener looked
        return value

    fake_llm.enqueue(_good())
    with monkeypatch.context() as m:
        m.setattr("heartcompass.memory.gardener.file_checksum", checksum_then_user_saves)
        result = alice("garden", ok=False)
    assert result.exit_code == 1 and "changed on disk" in result.output
    assert path.read_text() == edited
    assert not any("Booked movers" in e.text for e in events(ws))
    assert consolidated(ws) == {}


def test_write_atomic_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("as read\n")
    seen = atomic.file_checksum(path)
    path.write_text("edited by hand\n")
    with pytest.raises(atomic.ConcurrentEditError):
        atomic.write_atomic(path, "the tool's text\n", expected_checksum=seen)
    assert path.read_text() == "edited by hand\n"
    with pytest.raises(atomic.ConcurrentEditError):
        atomic.write_atomic(tmp_path / "new.md", "x", expected_checksum=seen)  # it was read, and is gone
    assert not (tmp_path / "new.md").exists()
    with pytest.raises(atomic.ConcurrentEditError):
        atomic.write_atomic(path, "x", expected_checksum=None)  # None: must not exist, and it does
    assert path.read_text() == "edited by hand\n"


def test_killed_by_a_real_signal_mid_run_then_finished_over_http(alice: Runner):
    """kill -9 of a real gardener process while it waits for the model; the
    next run, with the real langchain-openai client, finishes the job."""

    from stub_server import start

    ws = alice.ws
    server, state = start()
    try:
        alice("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
        say(ws, "alice", "me", "I booked the movers for you")
        state.delay = 30
        proc = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(ws.root), "garden"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: state.requests, what="the gardener's call to the model")
        proc.kill()
        proc.wait()
        for path in (ws.people_dir / "alice").glob("*.md"):
            formats.validate(path)
        assert consolidated(ws) == {}
        state.delay = 0
        state.replies = [json.dumps(_good())]
        alice("garden")  # the dead process's lock is stale and taken over
        assert consolidated(ws) == {"2026-12-01": 1}
        request = state.request("garden", -1)
        assert request["response_format"]["type"] == "json_schema"
        assert len([e for e in events(ws) if e.text.startswith("Booked movers")]) == 1
    finally:
        state.delay = 0
        server.shutdown()


def test_review_asks_before_writing(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    # no terminal: review refuses before any model call, rather than writing unasked
    result = alice("garden", "--review", ok=False)
    assert result.exit_code == 1 and "needs a terminal" in result.output and "--dry-run" in result.output
    assert consolidated(ws) == {} and not fake_llm.purposes
    import heartcompass.cli.garden_cmd as garden_cmd

    monkeypatch.setattr(garden_cmd, "_terminal", lambda: True)
    monkeypatch.setattr(garden_cmd, "_ask", lambda r: False)
    fake_llm.enqueue(_good())
    result = alice("garden", "--review")
    assert "declined" in result.output and consolidated(ws) == {}
    monkeypatch.setattr(garden_cmd, "_ask", lambda r: True)
    fake_llm.enqueue(_good())
    alice("garden", "--review")
    assert subjects(ws)[0].startswith("garden(alice)")
