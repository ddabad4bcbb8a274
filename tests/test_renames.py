"""A person is followed across `person rename`: log, diff, restore and --as-of."""

from __future__ import annotations

import sys

import pytest

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


@pytest.mark.parametrize("then", ["chat", "sync"])
def test_a_folder_moved_by_hand_is_one_hand_rename(cli, fake_llm, tmp_path, then):
    cli("person", "add", "Brien", "--yes")
    fake_llm.enqueue("hi")
    cli("chat", "brien", "-m", "hello")
    ws = cli.ws
    _remote(cli, tmp_path)
    (ws.people_dir / "brien").rename(ws.people_dir / "obrien")  # mv by hand
    if then == "chat":
        fake_llm.enqueue("still me")
        cli("chat", "obrien", "-m", "new folder")  # commits what is pending for obrien first
    cli("sync")
    hand = [c for c in git(ws, "log", "--format=%h %s").splitlines() if c.endswith(" edit(obrien): by hand")]
    assert len(hand) == 1
    stat = git(ws, "show", "-M", "--format=", "--name-status", hand[0].split()[0])
    assert "R100\tpeople/brien/PROFILE.md\tpeople/obrien/PROFILE.md" in stat
    assert "people/brien/logs/" in stat and "people/obrien/logs/" in stat
    assert git(ws, "status", "--porcelain") == ""
    history = cli("log", "obrien").output  # followed back across the move
    assert "add(brien): new person" in history and "chat(brien)" in history


def _remote(cli, tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(tmp_path / "remote.git")], check=True)
    git(cli.ws, "remote", "add", "origin", str(tmp_path / "remote.git"))


def test_a_folder_deleted_by_hand_is_one_error_with_a_quoted_fix(cli, tmp_path):
    cli("person", "add", "Brien", "--yes")  # a folder from before slugs dropped the apostrophe: needs quoting
    git(cli.ws, "mv", "people/brien", "people/o'brien")
    git(cli.ws, "commit", "-qm", "edit(o'brien): by hand")
    import shutil

    _remote(cli, tmp_path)
    shutil.rmtree(cli.ws.people_dir / "o'brien")
    result = cli("sync", ok=False)
    assert "people/o'brien: was deleted or moved by hand" in result.output
    assert "git checkout -- 'people/o'\"'\"'brien'" in result.output


def test_every_fix_command_we_print_is_shell_quoted():
    from heartcompass.store.audit import _restore_command

    assert _restore_command("people/o'brien/PROFILE.md", "abc123") == \
        "heartcompass restore 'o'\"'\"'brien' profile --at abc123~1"
    assert _restore_command("notes/my file.md", "abc123") == "git checkout abc123~1 -- 'notes/my file.md'"
