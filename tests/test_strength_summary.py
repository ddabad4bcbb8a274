"""A warm `graph --json` folds each person's strength from a short summary
(memory/strength_summary.py), keyed by the logs folder's stat and every
log's stat: a log appended to, or edited by hand in place, after the
summary was saved is seen; a warm map reads no log; a summary that cannot
be saved costs time, never the map."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import Runner
from test_circle import real_messages, set_clock

from heartcompass import stat_cache
from heartcompass.formats import dailylog
from heartcompass.memory.strength_summary import SUMMARY

FIRST = dt.date(2026, 3, 1)
LATER_NS = 3_000_000_000  # past stat_cache's racy window: what was written is cached


@pytest.fixture
def settled(monkeypatch):
    real = stat_cache._now_ns
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: real() + LATER_NS)


def alice_link(cli: Runner) -> dict:
    data = json.loads(cli("graph", "--json").stdout)
    return next(k for k in data["links"] if k["to"] == "alice" and k.get("user"))


def summed_up(cli: Runner, monkeypatch) -> dict:
    """A week of Alice's messages, mapped once so her summary is saved."""
    real_messages(cli.ws, "alice", FIRST, 7, ["haha thank you!!"] * 3)
    set_clock(monkeypatch, FIRST + dt.timedelta(7))
    link = alice_link(cli)
    assert "alice" in json.loads((cli.ws.state_dir / SUMMARY).read_text(encoding="utf-8"))["people"]
    return link


def test_a_warm_map_is_folded_from_the_summary_without_reading_a_log(example_cli: Runner, monkeypatch, settled):
    before = summed_up(example_cli, monkeypatch)
    monkeypatch.setattr(dailylog, "load", lambda *a, **k: pytest.fail("a log was read on a warm map"))
    assert alice_link(example_cli) == before


def test_a_message_appended_to_the_newest_log_after_the_summary_is_seen(example_cli: Runner, monkeypatch,
                                                                       settled):
    before = summed_up(example_cli, monkeypatch)
    last = dailylog.log_path(example_cli.ws.people_dir / "alice", FIRST + dt.timedelta(6))
    dailylog.append_many(last, [dailylog.Entry("11:00:00", "import:Alice", "see you at the office 明天见")],
                         FIRST + dt.timedelta(6))
    after = alice_link(example_cli)
    assert after["last_evidence"] == {"day": "2026-03-07", "text": "see you at the office 明天见"}
    assert after["kinds"]["work"] == "2026-03-07" and "work" not in before["kinds"]


def test_a_new_days_log_after_the_summary_is_seen(example_cli: Runner, monkeypatch, settled):
    before = summed_up(example_cli, monkeypatch)
    real_messages(example_cli.ws, "alice", FIRST + dt.timedelta(7), 1, ["miss you, 想你"] * 3)
    after = alice_link(example_cli)
    assert after["last_evidence"] == {"day": "2026-03-08", "text": "miss you, 想你"}
    assert after["strength"] > before["strength"]


def test_an_old_log_edited_by_hand_in_place_after_the_summary_is_seen(example_cli: Runner, monkeypatch, settled):
    before = summed_up(example_cli, monkeypatch)
    first = dailylog.log_path(example_cli.ws.people_dir / "alice", FIRST)
    folder = first.parent.stat().st_mtime_ns
    text = first.read_text(encoding="utf-8")
    with open(first, "r+", encoding="utf-8") as fh:  # in place, as an editor that keeps the file does
        fh.write(text.replace("haha thank you!!", "吵架了, so angry!", 1))
    assert first.parent.stat().st_mtime_ns == folder  # the folder alone cannot tell
    after = alice_link(example_cli)
    assert after["kinds"].get("conflict") == "2026-03-01" and "conflict" not in before["kinds"]


def test_a_summary_that_cannot_be_saved_costs_time_not_the_map(example_cli: Runner, monkeypatch, settled):
    from heartcompass.cli import common

    monkeypatch.setattr(common, "_discarded", False)  # an earlier test's `| head` leaves it set for the process
    (example_cli.ws.state_dir / SUMMARY).mkdir(parents=True)  # in the way, as on a read-only disk
    real_messages(example_cli.ws, "alice", FIRST, 7, ["haha thank you!!"] * 3)
    set_clock(monkeypatch, FIRST + dt.timedelta(7))
    result = example_cli("graph", "--json")
    link = next(k for k in json.loads(result.stdout)["links"] if k["to"] == "alice" and k.get("user"))
    assert link["last_evidence"] == {"day": "2026-03-07", "text": "haha thank you!!"}
    assert f"could not save {example_cli.ws.state_dir / SUMMARY}" in " ".join(result.stderr.split())
    assert alice_link(example_cli) == link
