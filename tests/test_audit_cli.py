from __future__ import annotations

from conftest import Runner, git, subjects


def _profile(cli: Runner, slug: str = "alice"):
    return cli.ws.people_dir / slug / "PROFILE.md"


def test_hand_edit_is_committed_on_its_own_before_a_write(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--yes")
    path = _profile(cli)
    path.write_text(path.read_text().replace("## Likes\n", "## Likes\n\nOolong tea\n"))
    assert "pending" in cli("log").output and "people/alice/PROFILE.md" in cli("log").output
    cli("person", "rename", "alice", "Alicia")
    assert subjects(cli.ws)[:2] == ["rename(alicia): from alice", "edit(alice): by hand"]
    edit_files = git(cli.ws, "show", "--name-only", "--format=", "HEAD~1").split()
    assert edit_files == ["people/alice/PROFILE.md"]
    assert "Oolong tea" in _profile(cli, "alicia").read_text()


def test_invalid_hand_edit_stops_the_command(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    events = cli.ws.people_dir / "alice" / "EVENTS.md"
    events.write_text(events.read_text() + "- 2026-13-01 · impossible month\n")
    before = subjects(cli.ws)
    result = cli("person", "archive", "alice", ok=False)
    assert result.exit_code == 1 and "EVENTS.md:" in result.output and "not a real date" in result.output
    assert subjects(cli.ws) == before
    assert (cli.ws.people_dir / "alice").exists()
    assert "impossible month" in events.read_text()


def test_log_for_one_person_and_all(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--yes")
    mine = cli("log", "alice").output
    assert "add(alice)" in mine and "add(bob)" not in mine
    everything = cli("log").output
    assert "add(bob)" in everything and "init: new HeartCompass workspace" in everything


def test_undo_reverts_with_a_new_commit(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    count = len(subjects(cli.ws))
    result = cli("undo")
    assert "add(alice)" in result.output
    assert not (cli.ws.people_dir / "alice").exists()
    assert len(subjects(cli.ws)) == count + 1
    assert subjects(cli.ws)[0] == "undo(alice): add(alice): new person"


def test_undo_a_specific_older_commit(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--yes")
    sha = git(cli.ws, "log", "--format=%h", "-1", "--", "people/alice").strip()
    cli("undo", sha)
    assert not (cli.ws.people_dir / "alice").exists() and (cli.ws.people_dir / "bob").exists()


def test_undo_commits_a_hand_edit_of_its_files_first_then_refuses_to_mix_with_it(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    path = _profile(cli)
    path.write_text(path.read_text() + "\nmy edit\n")
    result = cli("undo", ok=False)
    assert result.exit_code == 1 and "later changes touch the same lines" in result.output
    assert "people/alice/PROFILE.md" in result.output
    assert git(cli.ws, "log", "-2", "--format=%s").splitlines() == ["edit(alice): by hand", "add(alice): new person"]
    assert "my edit" in path.read_text() and git(cli.ws, "status", "--porcelain") == ""


def test_undo_refuses_the_first_commit_and_unknown_revs(cli: Runner):
    assert cli("undo", ok=False).exit_code == 1
    result = cli("undo", "deadbeef", ok=False)
    assert result.exit_code == 1 and "No commit" in result.output


def test_restore_brings_a_file_back_as_a_new_commit(cli: Runner):
    cli("person", "add", "Alice", "--relation", "friend", "--yes")
    original = git(cli.ws, "rev-parse", "--short", "HEAD").strip()
    path = _profile(cli)
    path.write_text(path.read_text().replace("relation: friend", "relation: dating"))
    git(cli.ws, "commit", "-qam", "my own edit")
    assert "relation: dating" in path.read_text()
    cli("restore", "alice", "profile", "--at", original)
    assert "relation: friend" in path.read_text()
    assert subjects(cli.ws)[0].startswith("restore(alice): PROFILE.md as of")
    again = cli("restore", "alice", "profile", "--at", original)
    assert "already" in again.output


def test_restore_refuses_a_file_that_did_not_exist(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    first = git(cli.ws, "rev-list", "--max-parents=0", "HEAD").strip()
    result = cli("restore", "alice", "memory", "--at", first, ok=False)
    assert result.exit_code == 1 and "did not exist" in result.output
    assert cli("restore", "alice", "diary", "--at", "HEAD", ok=False).exit_code == 1


def test_diff_shows_pending_then_last_change(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    assert "+name: Alice" in cli("diff", "alice").output
    path = _profile(cli)
    path.write_text(path.read_text() + "\nnew line\n")
    out = cli("diff", "alice").output
    assert "Uncommitted" in out and "+new line" in out
    assert "+new line" in cli("diff", "alice", "HEAD").output


def test_chat_logs_are_committed_apart_from_hand_edits(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    log = cli.ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    log.parent.mkdir()
    log.write_text("---\ndate: 2026-12-01\n---\n\n- 10:00:00 · me · hi\n")
    path = _profile(cli)
    path.write_text(path.read_text() + "\nhand\n")
    cli("person", "archive", "alice")
    assert subjects(cli.ws)[1:3] == ["log(alice): chat log 2026-12-01", "edit(alice): by hand"]


def test_log_says_when_older_changes_are_not_shown(example_cli):
    example_cli("config", "set", "user.name", "Lei")
    shown = example_cli("log", "-n", "2").output
    assert "older ones: heartcompass log -n 8" in shown
    assert "older ones" not in example_cli("log", "-n", "50").output


def test_as_of_before_the_history_says_where_it_starts(example_cli, fake_llm):
    result = example_cli("context", "alice", "--as-of", "2001-01-01", ok=False)
    assert result.exit_code == 1 and "no commit from 2001-01-01" in result.output
    assert "history starts on" in result.output
