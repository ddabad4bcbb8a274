"""A `tell` killed between writing its files and its commit (issue 23): its
journal (the gardener's, by: tell) makes the next command that writes finish
it as the tell's own commit; the model's lines are never committed as the
user's hand edit, and never left half-written."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import Runner, git, log_entries, subjects
from heartcompass import formats
from heartcompass.cli.app import app
from test_tell import NO_ONE_NEW, berlin, facts


class Killed(BaseException):
    """Stands for kill -9: nothing after it runs (not even except Exception)."""


def _killed_tell(ws, monkeypatch, kill_at: str, narrative: str) -> None:
    from heartcompass.intake import tell as tell_mod
    from heartcompass.store import audit

    real_write = tell_mod.write_atomic
    writes = []

    def dying_write(path, text, expected_checksum="any"):
        if kill_at == "second write" and len(writes) == 1:
            raise Killed()
        writes.append(path)
        return real_write(path, text, expected_checksum)

    def dying_commit(*args, **kwargs):
        raise Killed()

    with monkeypatch.context() as m, pytest.raises(Killed):
        m.setattr(tell_mod, "write_atomic", dying_write)
        if kill_at == "commit":
            m.setattr(audit, "commit_or_roll_back", dying_commit)
        CliRunner().invoke(app, ["--workspace", str(ws.root), "tell", "alice", narrative, "--yes"],
                           catch_exceptions=False)
    assert len(writes) == (1 if kill_at == "second write" else 2)


@pytest.mark.parametrize("kill_at", ["second write", "commit"])
@pytest.mark.parametrize("next_command", [("person", "add", "Bob", "-r", "friend", "-y"), ("garden",)],
                         ids=["person add", "garden"])
def test_a_tell_killed_before_its_commit_is_finished_by_the_next_command(example_cli: Runner, fake_llm,
                                                                          monkeypatch, kill_at, next_command):
    ws = example_cli.ws
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    _killed_tell(ws, monkeypatch, kill_at, "She got promoted and is moving to Berlin in March (她三月搬去柏林)")
    for path in (ws.people_dir / "alice").glob("*.md"):
        formats.validate(path)  # whatever is on disk parses
    assert list((ws.state_dir / "tell").glob("*.json"))  # the journal says what was being written
    calls = len(fake_llm.purposes)
    example_cli(*next_command)
    mine = subjects(ws)
    assert not any(s.startswith("edit(alice)") for s in mine), mine  # the model's lines are never the user's
    told = next(s for s in mine if s.startswith("tell(alice)"))
    assert told == "tell(alice): moving to Berlin"
    sha = git(ws, "log", "-1", "--format=%H", "--grep", "finished after an interruption").strip()
    assert "Moves to Berlin in March" in git(ws, "show", f"{sha}:people/alice/MEMORY.md")
    assert "Got promoted; moving to Berlin" in git(ws, "show", f"{sha}:people/alice/EVENTS.md")
    assert facts(ws)[0].startswith("- Moves to Berlin in March after a promotion")
    # nothing else pending but the log (note and mark), which `person add` leaves to the next chat or garden
    assert git(ws, "status", "--porcelain", "--untracked-files=all") in ("", f"?? {_log(ws)}\n")
    assert not list((ws.state_dir / "tell").glob("*.json"))
    assert len(fake_llm.purposes) == calls  # the note is marked applied: the gardener does not apply it again
    assert [(e.speaker, e.tags) for e in log_entries(ws, "alice")] == [("note", []), ("mark", ["applied 1"])]


def _log(ws) -> str:
    from heartcompass.formats import dailylog

    return f"people/alice/logs/{dailylog.log_dates(ws.people_dir / 'alice')[-1]}.md"


def test_a_tell_killed_then_a_hand_edit_of_an_untouched_file_is_the_users(example_cli: Runner, fake_llm, monkeypatch):
    """The journal claims only the texts the tell wrote: the user's own edit
    of another file, saved after the kill, is committed as theirs."""
    ws = example_cli.ws
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    _killed_tell(ws, monkeypatch, "commit", "She got promoted and is moving to Berlin in March")
    profile = ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text() + "\nLikes rain.\n")
    example_cli("garden")  # finishes the tell; an idle garden commits no one's hand edit
    mine = subjects(ws)
    assert "tell(alice): moving to Berlin" in mine and not any(s.startswith("edit(") for s in mine)
    told = git(ws, "log", "-1", "--format=%H", "--grep", "moving to Berlin").strip()
    assert "people/alice/PROFILE.md" not in git(ws, "show", "--name-only", "--format=", told).split()
    # the tell's note went with the tell's commit; the hand edit is still the user's, for their own commit
    assert git(ws, "status", "--porcelain").splitlines() == [" M people/alice/PROFILE.md"]


def test_a_hand_save_just_before_a_tell_write_puts_back_the_files_already_written(example_cli: Runner, fake_llm,
                                                                                 monkeypatch):
    """The second file is saved by hand in the instant before the tell writes
    it: the first file goes back, nothing of the model's stays behind."""
    from heartcompass.intake import tell as tell_mod

    ws = example_cli.ws
    before = {p.name: p.read_text() for p in (ws.people_dir / "alice").glob("*.md")}
    real_write = tell_mod.write_atomic
    saved = {}

    def user_saves_first(path, text, expected_checksum="any"):
        if saved.get("first") and "second" not in saved:  # (the put-back writes after it are left alone)
            path.write_text(path.read_text() + "\n<!-- saved by hand -->\n")
            saved["second"] = path.name
        saved["first"] = True
        return real_write(path, text, expected_checksum)

    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    with monkeypatch.context() as m:
        m.setattr(tell_mod, "write_atomic", user_saves_first)
        result = example_cli("tell", "alice", "She got promoted and is moving to Berlin in March", "--yes", ok=False)
    assert result.exit_code == 1 and "changed on disk" in result.output and "Traceback" not in result.output
    after = {p.name: p.read_text() for p in (ws.people_dir / "alice").glob("*.md")}
    assert after[saved["second"]] == before[saved["second"]] + "\n<!-- saved by hand -->\n"
    assert {k: v for k, v in after.items() if k != saved["second"]} == \
        {k: v for k, v in before.items() if k != saved["second"]}
    assert not list((ws.state_dir / "tell").glob("*.json"))
    assert [(e.speaker, e.tags) for e in log_entries(ws, "alice")] == [("note", []), ("mark", ["applied 1"]),
                                                                       ("note", [])]


def test_a_tell_waits_for_an_unfinished_garden_of_the_same_person(example_cli: Runner, fake_llm):
    """A garden's written but uncommitted files are the garden's: a tell on
    top would take them into its own commit. It says so, and writes nothing."""
    import json

    ws = example_cli.ws
    memory = ws.people_dir / "alice" / "MEMORY.md"
    from heartcompass.atomic import checksum

    gardened = memory.read_text().replace("## Facts\n\n", "## Facts\n\n- Gardened, not yet committed (log 2026-12-01)\n")
    journal = ws.state_dir / "garden" / "alice.json"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(json.dumps({"subject": "garden(alice): memory updated", "body": "", "days": {}, "files": {
        "people/alice/MEMORY.md": {"old": checksum(memory.read_text()), "new": gardened}}}))
    memory.write_text(gardened)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She got promoted and is moving to Berlin in March", "--yes", ok=False)
    assert result.exit_code == 1 and "heartcompass garden" in result.output and "Traceback" not in result.output
    assert memory.read_text() == gardened and journal.exists()
    fake_llm.enqueue(berlin())
    example_cli("garden")  # finishes the garden as the garden's, then learns from the note kept for it
    assert any(s.startswith("garden(alice): memory updated") for s in subjects(ws))
    assert not any(s.startswith("edit(alice)") for s in subjects(ws))
