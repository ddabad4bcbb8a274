"""A person is followed across `person rename`: log, diff, restore and --as-of."""

from __future__ import annotations

import sys

from conftest import Runner, git, subjects


def _edit(example_cli: Runner, tmp_path, file: str, old: str, new: str) -> None:
    script = tmp_path / f"ed-{abs(hash((old, new)))}.py"
    script.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[-1])\n"
                      f"p.write_text(p.read_text().replace({old!r}, {new!r}))\n")
    example_cli("edit", "alice" if (example_cli.ws.people_dir / "alice").exists() else "Alice Lin", file,
                env={"EDITOR": f"{sys.executable} {script}"})


def _renamed(example_cli: Runner, tmp_path) -> str:
    """Edit Alice's memory, remember that commit, rename her twice."""
    _edit(example_cli, tmp_path, "memory", "Kyoto", "Osaka")
    before = git(example_cli.ws, "rev-parse", "HEAD").strip()
    example_cli("person", "rename", "alice", "Alice Lin")
    example_cli("person", "rename", "alice-lin", "林爱丽")
    assert subjects(example_cli.ws)[:2] == ["rename(林爱丽): from alice-lin", "rename(alice-lin): from alice"]
    return before


def test_log_follows_the_person_across_renames(example_cli: Runner, tmp_path):
    _renamed(example_cli, tmp_path)
    out = example_cli("log", "林爱丽").output
    for subject in ("rename(林爱丽): from alice-lin", "rename(alice-lin): from alice", "edit(alice): MEMORY.md by hand",
                    "add(alice): example person"):
        assert subject in out, out
    # someone later given the old folder name is not mixed in
    example_cli("person", "add", "Alice", "--yes", "--force")
    assert "add(alice): new person" not in example_cli("log", "林爱丽").output
    assert "add(alice): example person" not in example_cli("log", "alice").output


def test_restore_and_as_of_find_the_file_under_its_old_folder(example_cli: Runner, tmp_path):
    before = _renamed(example_cli, tmp_path)
    out = example_cli("context", "林爱丽", "--as-of", before).output
    assert "Osaka" in out and "did not exist" not in out
    memory = example_cli.ws.people_dir / "林爱丽" / "MEMORY.md"
    memory.write_text(memory.read_text().replace("Osaka", "Nara"))
    git(example_cli.ws, "commit", "-qam", "hand edit")
    example_cli("restore", "林爱丽", "memory", "--at", before)
    assert "Osaka" in memory.read_text() and "Nara" not in memory.read_text()


def test_diff_against_a_commit_before_the_rename(example_cli: Runner, tmp_path):
    before = _renamed(example_cli, tmp_path)
    out = example_cli("diff", "林爱丽", before).output
    assert "a/people/alice/PROFILE.md" in out and "+name: 林爱丽" in out and "-name: Alice Chen" in out


def test_an_undone_rename_keeps_the_whole_history(example_cli: Runner, tmp_path):
    _edit(example_cli, tmp_path, "memory", "Kyoto", "Osaka")
    example_cli("person", "rename", "alice", "Alice Lin")
    example_cli("undo")
    out = example_cli("log", "alice").output
    assert "edit(alice): MEMORY.md by hand" in out and "add(alice): example person" in out
