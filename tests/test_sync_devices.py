"""A second device: the same day's log from two devices merges as a union
of entries (only a real edit conflicts), `init --from` sets a device up,
and sync gives a bare remote the branch it pushes as its default."""

from __future__ import annotations

import subprocess

import pytest

from conftest import Runner, git, log_entries
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


def _say(runner: Runner, time: str, speaker: str, text: str, tags=None, slug="alice"):
    import datetime as dt

    from heartcompass.formats import dailylog

    day = dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(runner.ws.people_dir / slug, day), dailylog.Entry(time, speaker, text,
                                                                                         tags or []), day)


def test_the_same_days_log_from_two_devices_merges_as_a_union(two_devices):
    desktop, laptop = two_devices
    _say(desktop, "09:00:00", "me", "早上好 from the desktop")
    desktop("sync")
    laptop("sync")  # both have the morning entry now
    _say(desktop, "10:00:00", "me", "desktop at ten")
    _say(desktop, "12:00:00", "persona", "desktop reply at noon")
    _say(laptop, "11:00:00", "me", "laptop at eleven")
    _say(laptop, "11:00:05", "persona", "a reply then retried")
    _say(laptop, "11:00:09", "mark", "replaced by /retry", ["supersedes 3"])
    _say(laptop, "11:00:10", "persona", "the retried reply")
    _say(laptop, "13:00:00", "note", "她三月搬去京都")
    desktop("sync")
    result = laptop("sync")
    assert "Conflict" not in result.output
    entries = log_entries(laptop.ws, "alice")
    assert [e.text for e in entries] == ["早上好 from the desktop", "desktop at ten", "laptop at eleven",
                                         "a reply then retried", "replaced by /retry", "the retried reply",
                                         "desktop reply at noon", "她三月搬去京都"]
    assert [e.text for e in entries if e.dropped] == ["a reply then retried", "replaced by /retry"]
    assert git(laptop.ws, "status", "--porcelain") == ""
    desktop("sync")
    assert log_entries(desktop.ws, "alice") == entries


def test_a_new_days_log_on_both_devices_merges_without_duplicates(two_devices):
    desktop, laptop = two_devices
    _say(desktop, "09:00:00", "me", "same message")  # e.g. the same import on both devices
    _say(laptop, "09:00:00", "me", "same message")
    _say(laptop, "09:30:00", "me", "only on the laptop")
    desktop("sync")
    laptop("sync")
    assert [e.text for e in log_entries(laptop.ws, "alice")] == ["same message", "only on the laptop"]


def test_a_real_edit_of_a_log_still_conflicts(two_devices):
    desktop, laptop = two_devices
    _say(desktop, "09:00:00", "me", "typo here")
    desktop("sync")
    laptop("sync")
    path = desktop.ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    path.write_text(path.read_text(encoding="utf-8").replace("typo here", "fixed by hand"), encoding="utf-8")
    desktop("sync")
    _say(laptop, "10:00:00", "me", "later on the laptop")
    result = laptop("sync", ok=False)
    assert result.exit_code == 1 and "people/alice/logs/2026-12-01.md" in result.output
