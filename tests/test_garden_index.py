"""The events index behind shown_events and _add_event (issue 11): the same
picks and the same duplicates as walking every event, kept up to date by
the operations, and rebuilt when the list is replaced or changed around it."""
from __future__ import annotations

import datetime as dt
import random
from types import SimpleNamespace

from heartcompass.formats import events as events_fmt
from heartcompass.formats import dailylog
from heartcompass.memory.proposal.operations import add_event as _add_event, change_event as _change_event, remove_event as _remove_event
from heartcompass.memory.proposal.presentation import _shown_by_walk, shown_events
from heartcompass.memory.proposal.workbench import LogItem, Workbench, restore, snapshot

TODAY = dt.date(2026, 12, 1)
WORDS = ("work", "the move", "her cat", "hiking", "a café", "夜市", "a long talk about nothing in particular at all")


def bench(events) -> Workbench:
    evs = events_fmt.EventsFile(doc=None, path=None, preamble="", events=list(events))
    profile = SimpleNamespace(doc=SimpleNamespace(meta={}, body=""))  # what snapshot copies of them
    return Workbench("alice", profile, evs, SimpleNamespace(sections={}), set(), {"alice"}, TODAY)


def items(*days: str) -> list[LogItem]:
    return [LogItem(f"L{n + 1}", day, dailylog.Entry("20:00:00", "me", "x")) for n, day in enumerate(days)]


def some_date(rng) -> dt.date:
    return TODAY - dt.timedelta(days=rng.randrange(0, 60))


def check(wb, rng, half_life=30.0):
    for _ in range(3):
        days = [some_date(rng).isoformat() for _ in range(rng.randrange(0, 3))]
        budget = rng.choice((0, 5, 40, 120, 800))
        assert shown_events(wb, items(*days), budget, half_life) == _shown_by_walk(wb, items(*days), budget, half_life)
        got = shown_events(wb, items(*days), budget, half_life)
        want = _shown_by_walk(wb, items(*days), budget, half_life)
        assert [id(e) for e in got] == [id(e) for e in want]


def test_the_index_picks_what_the_walk_picks_through_adds_changes_and_removals():
    rng = random.Random(11)
    wb = bench(events_fmt.Event(some_date(rng), rng.choice(WORDS), rng.choice((None, 0.5, 1.0, 0.25)))
               for _ in range(40))
    for step in range(400):
        op = rng.random()
        if op < 0.5:
            _add_event(wb, some_date(rng), rng.choice(WORDS) + rng.choice(("", "", " ")),
                       rng.choice((0.25, 0.5, 0.75, 1.0)), "log")
        elif op < 0.8 and wb.events.events:
            event = rng.choice(wb.events.events)
            _change_event(wb, event, rng.choice((None, 0.1, 0.9)), rng.choice((None, rng.choice(WORDS))), "log")
        elif wb.events.events:
            _remove_event(wb, rng.choice(wb.events.events))
        check(wb, rng)
    assert wb.event_index is not None  # kept, not rebuilt each time


def test_a_duplicate_is_found_through_the_index_and_weighted_up():
    wb = bench([events_fmt.Event(TODAY, "Hiking", 0.5), events_fmt.Event(TODAY, "hiking", 0.2)])
    shown_events(wb, items(), 800, 30.0)  # builds the index
    _add_event(wb, TODAY, "HIKING ", 0.9, "log")
    assert [e.weight for e in wb.events.events] == [0.9, 0.2]  # the first of the same, as the walk finds it
    _add_event(wb, TODAY, "hiking", 0.1, "log")
    assert len(wb.events.events) == 2
    _change_event(wb, wb.events.events[0], None, "the sea", "log")
    _add_event(wb, TODAY, "hiking", 0.95, "log")  # now the second one is the first "hiking"
    assert [e.weight for e in wb.events.events] == [0.9, 0.95]


def test_the_index_is_rebuilt_when_the_list_is_restored_replaced_or_grown_around_it():
    rng = random.Random(3)
    wb = bench(events_fmt.Event(some_date(rng), rng.choice(WORDS), 0.5) for _ in range(20))
    shown_events(wb, items(), 800, 30.0)
    first = wb.event_index
    snap = snapshot(wb)  # a rejected proposal's changes are put back
    _add_event(wb, TODAY, "added then put back", 1.0, "log")
    _change_event(wb, wb.events.events[0], 1.0, None, None)
    restore(wb, snap)
    got = shown_events(wb, items(TODAY.isoformat()), 800, 30.0)
    assert wb.event_index is not first
    assert all(any(e is x for x in wb.events.events) for e in got)  # the restored list's own events
    assert [id(e) for e in got] == [id(e) for e in _shown_by_walk(wb, items(TODAY.isoformat()), 800, 30.0)]
    assert "added then put back" not in [e.text for e in got]

    wb.events.events.append(events_fmt.Event(TODAY, "appended by other code", 5.0))
    assert shown_events(wb, items(), 800, 30.0)[0].text == "appended by other code"
    wb.events.events = [e for e in wb.events.events if e.text != "appended by other code"]
    assert "appended by other code" not in [e.text for e in shown_events(wb, items(), 800, 30.0)]

    wb.today = TODAY + dt.timedelta(days=400)  # another day or half-life: other scores
    check(wb, rng, half_life=30.0)
    check(wb, rng, half_life=7.0)


def test_a_restored_snapshot_puts_changed_events_back_in_place():
    first, second = events_fmt.Event(TODAY, "hiking", 0.5, "log"), events_fmt.Event(TODAY, "the sea", None)
    wb = bench([first, second])
    snap = snapshot(wb)
    _change_event(wb, first, 0.9, "hiking in the rain", "chat")
    _change_event(wb, first, 0.1, None, None)
    _remove_event(wb, second)
    _add_event(wb, TODAY, "new", 1.0, "log")
    assert len(wb.changes) == 4
    restore(wb, snap)
    assert wb.events.events == [events_fmt.Event(TODAY, "hiking", 0.5, "log"), events_fmt.Event(TODAY, "the sea", None)]
    assert wb.events.events[0] is first and wb.events.events[1] is second  # the ones shown to the model
    assert wb.changes == [] and wb.counts == {"events_added": 0, "events_changed": 0}
    assert shown_events(wb, items(), 800, 30.0) == _shown_by_walk(wb, items(), 800, 30.0)
