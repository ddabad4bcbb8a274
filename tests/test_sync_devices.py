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


def test_init_from_a_plain_bare_remote_sets_up_a_second_device(example_cli: Runner, tmp_path):
    """`git init --bare` makes HEAD point at master; sync pushes main."""
    from conftest import subjects

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "-c", "init.defaultBranch=master", "init", "-q", "--bare", str(bare)], check=True)
    git(example_cli.ws, "remote", "add", "origin", str(bare))
    _say(example_cli, "09:00:00", "note", "她喜欢乌龙茶")
    example_cli("sync")
    head = subprocess.run(["git", "--git-dir", str(bare), "symbolic-ref", "HEAD"], capture_output=True, text=True)
    assert head.stdout.strip() == "refs/heads/main"  # sync gave the remote its default branch
    plain = tmp_path / "plain-clone"
    subprocess.run(["git", "clone", "-q", str(bare), str(plain)], check=True)
    assert (plain / "heartcompass.toml").is_file()  # a plain git clone checks out the workspace too
    phone = tmp_path / "新设备"
    result = Runner(Workspace(example_cli.ws.root))("init", str(phone), "--from", str(bare))
    assert "Copied the workspace" in result.output and ".env" in result.output
    second = Runner(Workspace(phone))
    assert [e.text for e in log_entries(second.ws, "alice")] == ["她喜欢乌龙茶"]
    assert "alice" in second("person", "list").output
    _say(second, "10:00:00", "me", "from the new device")
    second("sync")
    example_cli("sync")
    assert [e.text for e in log_entries(example_cli.ws, "alice")] == ["她喜欢乌龙茶", "from the new device"]
    assert subjects(second.ws)[0] == subjects(example_cli.ws)[0]


def test_init_from_refuses_what_is_no_workspace_and_leaves_nothing(cli: Runner, tmp_path):
    empty = tmp_path / "empty.git"
    subprocess.run(["git", "init", "-q", "--bare", str(empty)], check=True)
    target = tmp_path / "device"
    for remote, words in ((str(empty), "no commits yet"), (str(tmp_path / "nowhere"), "failed")):
        result = cli("init", str(target), "--from", remote, ok=False)
        assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output
        assert not target.exists()
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", "-b", "main", str(other)], check=True)
    (other / "notes.txt").write_text("x")
    subprocess.run(["git", "-C", str(other), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=U", "-c", "user.email=u@x", "commit", "-qm", "x"],
                   check=True)
    result = cli("init", str(target), "--from", str(other), ok=False)
    assert result.exit_code == 1 and "not a HeartCompass workspace" in result.output and not target.exists()
