"""A long garden never blocks a short command for longer than that command's
own wait: the gardener holds the workspace lock only while it reads or writes
a person's files (memory/garden_turns.py), never while the model thinks, and
lets a waiting command in between people. What another command changed
meanwhile is never overwritten (the checksum guard)."""

from __future__ import annotations

import threading
import time

from conftest import Runner, git, subjects
from garden_helpers import answer_with, events, proposal, say
from heartcompass.memory.gardener import Gardener
from heartcompass.store import audit
from heartcompass.store.people import resolve

PEOPLE = ("alice", "bob", "小明")
SLOW = 0.3  # seconds the model takes per call
WAIT = 2.0  # the short commands' own wait for the lock, in these tests


def _answer(messages):
    return proposal(new_events=[{"date": "2026-12-01", "text": "Booked movers for the Kyoto move", "weight": 0.6,
                                 "evidence": ["L1"]}],
                    new_facts=[{"text": "Booked movers for the Kyoto move", "evidence": ["L1"]}])


def _workspace(alice: Runner) -> None:
    alice("person", "add", "Bob", "--relation", "friend", "--yes")
    alice("person", "add", "小明", "--relation", "friend", "--yes")
    for slug in PEOPLE:
        say(alice.ws, slug, "me", "I booked the movers for the Kyoto move")
    git(alice.ws, "add", "-A")
    git(alice.ws, "commit", "-qm", "logs")


def test_short_commands_get_in_while_a_long_garden_runs(alice: Runner, fake_llm, monkeypatch):
    """person add and a chat's /note during a garden over several people with
    a slow model: each succeeds within its own (short) wait while the garden
    is still running; the garden commits everyone; nothing is lost."""
    ws = alice.ws
    _workspace(alice)
    monkeypatch.setattr(audit, "WAIT", WAIT)
    asking, done = threading.Event(), threading.Event()

    def slow(messages):
        asking.set()
        done.wait(60)  # the first person's model call lasts until the short commands are through
        time.sleep(SLOW)
        return _answer(messages)

    answer_with(monkeypatch, fake_llm, slow)
    results: list = []
    garden = threading.Thread(target=lambda: results.extend(Gardener(ws, lambda: fake_llm).run()))
    garden.start()
    try:
        assert asking.wait(30)
        added = alice("person", "add", "Dora", "--relation", "friend", "--yes", ok=False)
        assert added.exit_code == 0, added.output  # not "Another HeartCompass gardener is running"
        noted = alice("chat", "bob", "-m", "/note Bob moved to Osaka", ok=False)
        assert noted.exit_code == 0, noted.output
        assert garden.is_alive()
    finally:
        done.set()
        garden.join(60)
    statuses = {r.slug: r.status for r in results}
    assert {slug: statuses.get(slug) for slug in PEOPLE} == {slug: "gardened" for slug in PEOPLE}
    log = subjects(ws)
    assert "add(dora): new person" in log
    assert any(s.startswith(("chat(bob)", "log(bob)")) for s in log)
    for slug in PEOPLE:
        assert any(s.startswith(f"garden({slug}): ") for s in log), (slug, log)
        assert any("Booked movers for the Kyoto move" in e.text for e in events(ws, slug))
    committed = "".join(git(ws, "show", f"HEAD:{p}") for p in git(ws, "ls-files", "people/bob/logs").split())
    assert "Bob moved to Osaka" in committed
    assert git(ws, "status", "--porcelain") == ""


def test_a_command_that_changes_the_persons_files_meanwhile_is_never_overwritten(alice: Runner, fake_llm,
                                                                                  monkeypatch):
    """While the model thinks about Alice, `heartcompass edit` (which takes
    the lock) saves her MEMORY.md: the gardener, taking the lock back, finds
    the file changed since it read it and writes nothing of hers."""
    ws = alice.ws
    _workspace(alice)
    monkeypatch.setattr(audit, "WAIT", WAIT)
    person = resolve(ws, "alice")
    path = person.memory_path
    edited = path.read_text(encoding="utf-8").replace("## Facts\n\n", "## Facts\n\n- 她喜欢京都的秋天 (hand)\n")

    def edit_meanwhile(messages):
        if "Alice" in str(messages[-1].content) and not path.read_text(encoding="utf-8") == edited:
            from heartcompass.atomic import file_checksum

            audit.save_edit(ws, person, path, edited, file_checksum(path))  # waits for the lock: not held now
        return _answer(messages)

    answer_with(monkeypatch, fake_llm, edit_meanwhile)
    results = {r.slug: r for r in Gardener(ws, lambda: fake_llm).run()}
    assert results["alice"].status == "skipped" and "edited while the gardener ran" in results["alice"].message
    assert path.read_text(encoding="utf-8") == edited
    assert git(ws, "show", "HEAD:people/alice/MEMORY.md") == edited
    assert not any(s.startswith("garden(alice)") for s in subjects(ws))
    assert results["bob"].status == results["小明"].status == "gardened"


def test_between_people_a_waiting_command_is_let_in(ws):
    """An idle stretch (thousands of people with nothing new) holds the lock
    from person to person; a command that starts waiting meanwhile is let in
    at the next person, not after the whole run."""
    from heartcompass.memory.garden_turns import GardenTurns
    from heartcompass.store.lock import FileLock

    got: list[float] = []

    def short_command():
        started = time.monotonic()
        with FileLock(ws.state_dir / "lock", "chat", wait=WAIT):
            got.append(time.monotonic() - started)

    with GardenTurns(ws) as lock:
        waiter = threading.Thread(target=short_command)
        waiter.start()
        deadline = time.monotonic() + 3 * WAIT
        while time.monotonic() < deadline and waiter.is_alive():
            lock.take()  # the next person
            time.sleep(0.005)
        waiter.join()
        assert lock.workspace_lock.held
    assert got and got[0] < WAIT
