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
from heartcompass.lock import LockBusy, WorkspaceLock
from test_garden import events, memory, proposal, say


@pytest.fixture
def alice(example_cli: Runner):
    return example_cli


def _good(n=1):
    return proposal(new_events=[{"date": "2026-12-01", "text": f"Booked movers for Kyoto ({'first' if n == 1 else 'second'} try)", "weight": 0.6,
                                 "evidence": ["L1"]}],
                    new_facts=[{"text": "Booked movers for the Kyoto move", "evidence": ["L1"]}])


def test_a_second_gardener_exits_at_once(alice: Runner, fake_llm):
    lock = WorkspaceLock(alice.ws.state_dir / "lock")
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
    first = WorkspaceLock(tmp_path / "lock")
    first.acquire()
    with pytest.raises(LockBusy):
        WorkspaceLock(tmp_path / "lock").acquire()
    first.release()
    with WorkspaceLock(tmp_path / "lock"):
        pass


def test_a_hand_edit_during_the_run_is_not_overwritten(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    path = ws.people_dir / "alice" / "MEMORY.md"
    edited = path.read_text().replace("## Facts\n\n", "## Facts\n\n- Typed while the gardener ran\n")

    def edit_meanwhile(messages):
        path.write_text(edited)  # the user saves in the editor while the model thinks
        return _good()

    from langchain_core.runnables import RunnableLambda

    with monkeypatch.context() as m:
        m.setattr(type(fake_llm), "with_structured_output", lambda self, schema, **kw: RunnableLambda(edit_meanwhile))
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


@pytest.mark.parametrize("kill_at", [0, 1, 2, 3])  # journal, EVENTS.md, MEMORY.md, log-count cache
def test_killed_at_any_write_the_next_run_finishes_without_duplicates(alice: Runner, fake_llm, monkeypatch,
                                                                     kill_at):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    real_write = atomic.write_atomic
    calls = {"n": 0}

    def dying_write(path, text, expected_checksum="any"):
        if calls["n"] == kill_at:
            raise Killed()
        calls["n"] += 1
        return real_write(path, text, expected_checksum)

    from typer.testing import CliRunner

    from heartcompass.cli.app import app

    fake_llm.enqueue(_good())
    with monkeypatch.context() as m, pytest.raises(Killed):
        m.setattr("heartcompass.gardener.write_atomic", dying_write)
        CliRunner().invoke(app, ["--workspace", str(ws.root), "garden"], catch_exceptions=False)
    # whatever was on disk parses
    for path in (ws.people_dir / "alice").glob("*.md"):
        formats.validate(path)
    (ws.state_dir / "lock").unlink(missing_ok=True)  # a killed process leaves its lock (stale: taken over)
    fake_llm.enqueue(_good(2))
    alice("garden")
    booked = [e for e in events(ws) if e.text.startswith("Booked movers")]
    assert len(booked) == 1
    assert sum("Booked movers" in f for f in memory(ws).items(memory_fmt.FACTS)) == 1
    assert memory(ws).consolidated == {"2026-12-01": 1}
    assert git(ws, "status", "--porcelain") == ""
    # and a third run has nothing to do
    calls_before = len(fake_llm.calls)
    alice("garden")
    assert len(fake_llm.calls) == calls_before


def test_killed_by_a_real_signal_mid_run_then_finished_over_http(alice: Runner):
    """kill -9 of a real gardener process while it waits for the model; the
    next run, with the real langchain-openai client, finishes the job."""
    import time

    from stub_server import start

    ws = alice.ws
    server, state = start()
    try:
        alice("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
        say(ws, "alice", "me", "I booked the movers for you")
        state.delay = 30
        proc = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(ws.root), "garden"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not state.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        assert state.requests, "the gardener never called the model"
        for path in (ws.people_dir / "alice").glob("*.md"):
            formats.validate(path)
        assert memory(ws).consolidated == {}
        state.delay = 0
        state.replies = [json.dumps(_good())]
        alice("garden")  # the dead process's lock is stale and taken over
        assert memory(ws).consolidated == {"2026-12-01": 1}
        request = state.requests[-1]
        assert request["response_format"]["type"] == "json_schema"
        assert len([e for e in events(ws) if e.text.startswith("Booked movers")]) == 1
    finally:
        state.delay = 0
        server.shutdown()


def test_review_asks_before_writing(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    say(ws, "alice", "me", "I booked the movers for you")
    fake_llm.enqueue(_good())
    # no TTY: review declines rather than writing unasked
    result = alice("garden", "--review")
    assert "declined" in result.output and "+- Booked movers" in result.output
    assert memory(ws).consolidated == {}
    import heartcompass.cli.garden_cmd as garden_cmd

    monkeypatch.setattr(garden_cmd, "_ask", lambda r: True)
    fake_llm.enqueue(_good())
    alice("garden", "--review")
    assert subjects(ws)[0].startswith("garden(alice)")
