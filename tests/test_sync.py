from __future__ import annotations

import subprocess

import pytest

from conftest import Runner, git, subjects
from heartcompass.workspace import Workspace


@pytest.fixture
def two_devices(example_cli: Runner, tmp_path):
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(example_cli.ws, "remote", "add", "origin", str(bare))
    example_cli("sync")
    laptop = tmp_path / "laptop"
    subprocess.run(["git", "clone", "-q", str(bare), str(laptop)], check=True)
    return example_cli, Runner(Workspace(laptop))


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
    desktop, laptop = two_devices
    for runner, drink in ((desktop, "matcha"), (laptop, "hojicha")):
        prof = runner.ws.people_dir / "alice" / "PROFILE.md"
        prof.write_text(prof.read_text().replace("oolong tea", drink))
    desktop("sync")
    result = laptop("sync", ok=False)
    assert result.exit_code == 1 and "Conflict" in result.output and "people/alice/PROFILE.md" in result.output
    text = (laptop.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert "matcha" in text and "hojicha" in text and "<<<<<<<" in text
    again = laptop("sync", ok=False)
    assert "still being resolved" in again.output


def test_sync_without_a_remote_says_how_to_add_one(example_cli: Runner):
    result = example_cli("sync", ok=False)
    assert result.exit_code == 1 and "remote add origin" in result.output


def test_sync_does_not_run_while_the_gardener_does(two_devices):
    from heartcompass.lock import WorkspaceLock

    desktop, _ = two_devices
    with WorkspaceLock(desktop.ws.state_dir / "lock"):
        result = desktop("sync", ok=False)
    assert result.exit_code == 1 and "gardener is running" in result.output
