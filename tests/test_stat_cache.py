"""The two caches keyed by a file's stat (the people index, the gardener's
entry counts) share one rule (heartcompass/stat_cache.py): a file rewritten
within one timestamp tick, to the same size, is read again, never taken
for what was cached. The file system here is made coarse on purpose: the
stat of a rewritten file stays what it was, as it does on a real one when
both writes land in the same tick."""

from __future__ import annotations

import os

import pytest

from heartcompass import stat_cache
from heartcompass.memory.new_entries import EntryCounts
from heartcompass.store.people import Person
from heartcompass.store.people_index import PeopleIndex

LATER_NS = 3_000_000_000  # past the racy window


@pytest.fixture
def coarse_clock(monkeypatch):
    """Each file's stat as it was when first looked at: a rewrite of the same
    size within the same timestamp tick cannot be told apart by stat."""
    first: dict[str, os.stat_result] = {}
    real = os.stat

    def stat(path):
        return first.setdefault(str(path), real(path))

    monkeypatch.setattr(stat_cache, "_stat", stat)


def _later(monkeypatch):
    real = stat_cache._now_ns
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: real() + LATER_NS)


def _rewrite_same_size(path, old: str, new: str) -> None:
    assert len(old.encode()) == len(new.encode())
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_log_rewritten_within_its_timestamp_is_counted_again(example_ws, coarse_clock):
    log = example_ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    log.parent.mkdir(exist_ok=True)
    log.write_text("# 2026-12-01\n\n- 20:00:00 · me · 今天好累\n", encoding="utf-8")
    counts = EntryCounts(example_ws)
    assert counts.known(log) is None
    counts.remember(log, 1)
    counts.save()
    _rewrite_same_size(log, "今天好累", "明天见吧")  # the same tick, the same size: stat cannot tell
    assert EntryCounts(example_ws).known(log) is None  # read again, not the count cached a moment ago


def test_a_settled_log_is_counted_from_the_cache_and_a_change_is_seen(example_ws, monkeypatch):
    log = example_ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    log.parent.mkdir(exist_ok=True)
    log.write_text("# 2026-12-01\n\n- 20:00:00 · me · hello\n", encoding="utf-8")
    _later(monkeypatch)
    counts = EntryCounts(example_ws)
    assert counts.known(log) is None
    counts.remember(log, 1)
    counts.save()
    assert EntryCounts(example_ws).known(log) == 1  # the cache is used once a file has settled
    with log.open("a", encoding="utf-8") as f:
        f.write("- 20:01:00 · me · again\n")
    assert EntryCounts(example_ws).known(log) is None


def test_a_profile_rewritten_within_its_timestamp_is_read_again(example_ws, coarse_clock):
    alice = Person("alice", example_ws.people_dir / "alice")
    index = PeopleIndex(example_ws)
    assert index.profile(alice).name == "Alice Chen"
    index.save()
    _rewrite_same_size(alice.profile_path, "name: Alice Chen", "name: Alice Chan")
    assert PeopleIndex.load(example_ws).profile(alice).name == "Alice Chan"


def test_a_settled_profile_is_read_from_the_index(example_ws, monkeypatch):
    alice = Person("alice", example_ws.people_dir / "alice")
    _later(monkeypatch)
    index = PeopleIndex(example_ws)
    assert index.profile(alice).name == "Alice Chen"
    index.save()
    monkeypatch.setattr(Person, "load_profile", lambda self: pytest.fail("parsed again"))
    assert PeopleIndex.load(example_ws).profile(alice).name == "Alice Chen"
