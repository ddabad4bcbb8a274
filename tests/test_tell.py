from __future__ import annotations

import base64
import datetime as dt

from conftest import Runner, git, log_entries, subjects
from fakes import FakeStatusError
from heartcompass.formats import memory as memory_fmt

NO_ONE_NEW = {"people": []}
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def berlin(who="L1"):
    return {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": [who]}],
        # dated the day it was told (the note's own day): an event's date stands on its entries
        "new_events": [{"date": dt.date.today().isoformat(), "text": "Got promoted; moving to Berlin in March",
                        "weight": 0.8, "evidence": [who]}]}


def log_day(ws, slug="alice"):
    from heartcompass.formats import dailylog

    return dailylog.log_dates(ws.people_dir / slug)[-1]


def facts(ws, slug="alice"):
    return memory_fmt.load(ws.people_dir / slug / "MEMORY.md").items(memory_fmt.FACTS)


def gardened_berlin(ws) -> bool:
    """The gardener learned the note: its event is kept, and the told fact it rewrites waits for the user's Yes."""
    from garden_helpers import questions

    from heartcompass.formats import events as events_fmt

    kept = any("Berlin" in e.text for e in events_fmt.load(ws.people_dir / "alice" / "EVENTS.md").events)
    return kept and any("Berlin" in q["change"].get("new", "") for q in questions(ws))


def test_tell_with_yes_writes_commits_and_logs_the_note(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She got promoted and is moving to Berlin in March", "--yes")
    assert "+- Moves to Berlin in March after a promotion" in result.output
    assert "-- Moves to Kyoto in January" in result.output
    assert facts(example_cli.ws)[0].startswith("- Moves to Berlin in March after a promotion (log ")
    assert subjects(example_cli.ws)[0] == "tell(alice): moving to Berlin"
    note, mark = log_entries(example_cli.ws, "alice")[-2:]
    assert (note.speaker, note.tags) == ("note", [])
    assert (mark.speaker, mark.tags) == ("mark", ["applied 1"])
    assert f"people/alice/logs/{log_day(example_cli.ws)}.md" in git(example_cli.ws, "show", "--name-only", "HEAD")
    assert not any(s.startswith("log(alice)") for s in subjects(example_cli.ws))  # the note is in the tell's commit
    told = fake_llm.request("tell").prompt
    assert "L1 [" in told and "note · trusted" in told
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_a_proposal_that_changes_nothing_leaves_the_note_for_the_gardener(example_cli: Runner, fake_llm):
    """A model that proposes nothing (without saying nothing is worth keeping)
    must not make the note look applied: the next garden reads it."""
    fake_llm.enqueue({"summary": "Promotion and move to Berlin"}, NO_ONE_NEW)
    result = example_cli("tell", "alice", "She got promoted and moves to Berlin in March", "--yes")
    assert "stays in the log as a note" in result.output
    assert [e.speaker for e in log_entries(example_cli.ws, "alice")] == ["note"]  # no "applied" mark
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, nothing to change"
    fake_llm.enqueue(berlin())
    example_cli("garden")
    assert gardened_berlin(example_cli.ws)


def test_the_gardener_does_not_apply_a_told_note_twice(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    example_cli("tell", "alice", "She is moving to Berlin", "--yes")
    calls = len(fake_llm.purposes)
    example_cli("garden")
    assert len(fake_llm.purposes) == calls


def test_declined_without_a_tty_keeps_only_the_note(example_cli: Runner, fake_llm):
    before = facts(example_cli.ws)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She is moving to Berlin", ok=False)
    assert result.exit_code == 1 and "Not applied" in result.output and "--yes" in result.output
    assert facts(example_cli.ws) == before
    note = log_entries(example_cli.ws, "alice")[-1]
    assert (note.text, note.tags) == ("She is moving to Berlin", [])
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, proposal declined"
    # the gardener can still learn from it later
    fake_llm.enqueue(berlin())
    example_cli("garden")
    assert gardened_berlin(example_cli.ws)


def test_dry_run_shows_and_writes_nothing(example_cli: Runner, fake_llm):
    head = git(example_cli.ws, "rev-parse", "HEAD")
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She is moving to Berlin", "--dry-run")
    assert "+- Moves to Berlin" in result.output and "Dry run" in result.output
    assert git(example_cli.ws, "rev-parse", "HEAD") == head and log_entries(example_cli.ws, "alice") == []


def test_other_known_people_in_the_narrative_are_touched_too(example_cli: Runner, fake_llm):
    example_cli("person", "add", "Bob Li", "--alias", "Bobby", "--yes")
    fake_llm.enqueue(berlin(), {"summary": "Bob helps", "new_facts": [
        {"text": "Is helping Alice move to Berlin", "evidence": ["L1"]}]}, NO_ONE_NEW)
    result = example_cli("tell", "alice", "She moves to Berlin; bobby is driving the van", "--yes")
    assert "people/bob-li/MEMORY.md" in result.output
    assert facts(example_cli.ws, "bob-li")[0].startswith("- Is helping Alice move to Berlin")
    assert subjects(example_cli.ws)[0] == "tell(alice): moving to Berlin (also bob-li)"
    files = git(example_cli.ws, "show", "--name-only", "--format=", "HEAD").split()
    assert "people/bob-li/MEMORY.md" in files and "people/alice/MEMORY.md" in files


def test_unknown_people_are_offered(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), {"people": [{"name": "Mei", "relation": "family", "about": "Alice's sister"}]})
    result = example_cli("tell", "alice", "Promoted, she moves to Berlin; her sister Mei is visiting", "--yes")
    assert "Not in your workspace: Mei" in result.output and "heartcompass person add Mei" in result.output


def test_a_pronoun_is_not_offered_as_a_new_person(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), {"people": [{"name": "She", "relation": "friend", "about": "Alice Chen"},
                                           {"name": "她", "relation": "friend", "about": "Alice"},
                                           {"name": "Mei", "relation": "family", "about": "her sister"}]})
    result = example_cli("tell", "alice", "She got promoted and moves to Berlin in March; her sister Mei visits", "--yes")
    assert "Not in your workspace: Mei" in result.output
    assert "Not in your workspace: She" not in result.output and "Not in your workspace: 她" not in result.output


def test_a_new_persons_name_is_shell_quoted_in_the_hint(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), {"people": [{"name": "Mei O'Neil", "relation": "family", "about": "her sister"}]})
    result = example_cli("tell", "alice", "Promoted, she moves to Berlin; Mei O'Neil is visiting", "--yes")
    assert "heartcompass person add 'Mei O'\"'\"'Neil'" in result.output


def test_ctrl_c_at_add_this_person_stops_asking(example_cli: Runner, fake_llm, monkeypatch):
    """Ctrl-C at "Add Mei?" ends the questions: Jun is not asked about next."""
    from heartcompass.cli import tell_cmd

    fake_llm.enqueue(berlin(), {"people": [{"name": "Mei", "relation": "family", "about": "her sister"},
                                           {"name": "Jun", "relation": "friend", "about": "her colleague"}]})
    monkeypatch.setattr(tell_cmd, "interactive", lambda: True)
    monkeypatch.setattr(tell_cmd, "_confirm", lambda question: True)  # write the changes
    asked = []
    monkeypatch.setattr(tell_cmd, "_confirm_or_stop", lambda question: asked.append(question))  # Ctrl-C: None
    result = example_cli("tell", "alice", "Promoted, she moves to Berlin; Mei and Jun came to say goodbye", ok=False)
    assert result.exit_code == 130  # as Ctrl-C exits everywhere else; the tell itself was written
    assert asked == ["Add Mei as a new person (family)?"] and "Stopped; no one else was added" in result.output
    assert not (example_cli.ws.people_dir / "mei").exists() and not (example_cli.ws.people_dir / "jun").exists()


def test_a_bad_proposal_writes_nothing(example_cli: Runner, fake_llm):
    bad = {"summary": "x", "new_facts": [{"text": "no evidence", "evidence": []}]}
    fake_llm.enqueue(bad, bad)
    before = facts(example_cli.ws)
    result = example_cli("tell", "alice", "She is moving", "--yes", ok=False)
    assert result.exit_code == 1 and "evidence" in result.output and "Refused, not written" in result.output
    assert facts(example_cli.ws) == before and "stays in the log as a note" in result.output
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, nothing to change"
    assert git(example_cli.ws, "show", "--name-only", "--format=", "HEAD").split() == [
        f"people/alice/logs/{log_day(example_cli.ws)}.md"]


def test_narrative_from_stdin(example_cli: Runner, fake_llm):
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    example_cli("tell", "alice", "--yes", input="She is moving to Berlin\n")
    assert log_entries(example_cli.ws, "alice")[-2].text == "She is moving to Berlin"


def test_screenshots_go_to_the_model_as_images(example_cli: Runner, fake_llm, tmp_path):
    shot = tmp_path / "chat.png"
    shot.write_bytes(PNG)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    example_cli("tell", "alice", "what she sent me", "--image", str(shot), "--yes")
    content = fake_llm.request("tell").messages[-1].content
    assert isinstance(content, list) and content[0]["type"] == "text"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_bad_images_are_refused_before_any_call(example_cli: Runner, fake_llm, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not an image")
    result = example_cli("tell", "alice", "x", "--image", str(text), ok=False)
    assert result.exit_code == 1 and "not a PNG, JPEG, GIF or WebP" in result.output
    result = example_cli("tell", "alice", "x", "--image", str(tmp_path / "missing.png"), ok=False)
    assert result.exit_code == 1 and "Cannot read the image" in result.output
    assert fake_llm.purposes == []


def test_a_model_without_vision_gets_a_clear_error(example_cli: Runner, fake_llm, tmp_path):
    shot = tmp_path / "chat.png"
    shot.write_bytes(PNG)

    class NoVision(FakeStatusError):
        def __init__(self):
            super().__init__(400)
            self.args = ("Error code: 400 - image input is not supported by this model",)

    fake_llm.enqueue(NoVision())
    result = example_cli("tell", "alice", "x", "--image", str(shot), "--yes", ok=False)
    assert result.exit_code == 1 and "does not accept images" in result.output


def test_narrative_from_the_editor_drops_comment_lines(example_ws, monkeypatch, tmp_path):
    import sys

    from heartcompass.cli.tell_cmd import _from_editor
    from heartcompass.store.people import resolve

    script = tmp_path / "ed.py"
    script.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[-1])\n"
                      "p.write_text(p.read_text() + 'She adopted a dog\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    assert _from_editor(example_ws, resolve(example_ws, "alice")) == "She adopted a dog"


def test_tell_from_a_missing_editor_is_a_clear_error(example_ws, monkeypatch):
    import pytest

    from heartcompass.cli.tell_cmd import _from_editor
    from heartcompass.errors import HeartCompassError
    from heartcompass.store.people import resolve

    monkeypatch.setenv("EDITOR", "nonexistent-editor --wait")
    with pytest.raises(HeartCompassError) as info:
        _from_editor(example_ws, resolve(example_ws, "alice"))
    assert "'nonexistent-editor'" in info.value.message and "$EDITOR" in info.value.message
    assert not (example_ws.state_dir / "tell.md").exists()


def test_the_narrative_is_logged_before_the_model_is_called(example_cli: Runner, fake_llm):
    fake_llm.enqueue(*[FakeStatusError(503)] * 4, berlin())
    result = example_cli("tell", "alice", "She is moving to Berlin", "--yes", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    note = log_entries(example_cli.ws, "alice")[-1]
    assert (note.speaker, note.text) == ("note", "She is moving to Berlin")
    assert git(example_cli.ws, "status", "--porcelain") == ""
    example_cli("garden")  # the gardener learns it later
    assert gardened_berlin(example_cli.ws)


def _decline_interactively(monkeypatch, keep: bool):
    from heartcompass.cli import tell_cmd

    monkeypatch.setattr(tell_cmd, "interactive", lambda: True)
    monkeypatch.setattr(tell_cmd, "_confirm", lambda question: False)  # No, or Ctrl-C (questionary: None)
    monkeypatch.setattr(tell_cmd, "_ask_keep", lambda: tell_cmd.KEEP if keep else "Discard it")


def test_declined_and_discarded_never_becomes_a_fact(example_cli: Runner, fake_llm, monkeypatch):
    before = facts(example_cli.ws)
    _decline_interactively(monkeypatch, keep=False)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She is moving to Berlin")
    assert "discarded" in result.output
    note, mark = log_entries(example_cli.ws, "alice")[-2:]
    assert note.text == "She is moving to Berlin" and (mark.speaker, mark.tags) == ("mark", ["discards 1"])
    assert subjects(example_cli.ws)[0] == "tell(alice): discarded"
    calls = len(fake_llm.purposes)
    example_cli("garden")  # nothing new for the gardener: no model call at all
    assert len(fake_llm.purposes) == calls and facts(example_cli.ws) == before


def test_declined_and_kept_is_learned_by_the_gardener(example_cli: Runner, fake_llm, monkeypatch):
    _decline_interactively(monkeypatch, keep=True)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She is moving to Berlin")
    assert "kept in the log as a note" in result.output
    assert [e.speaker for e in log_entries(example_cli.ws, "alice")] == ["note"]
    fake_llm.enqueue(berlin())
    example_cli("garden")
    assert gardened_berlin(example_cli.ws)


def test_ctrl_c_while_the_model_thinks_keeps_the_note(example_cli: Runner, fake_llm):
    fake_llm.enqueue(KeyboardInterrupt())
    result = example_cli("tell", "alice", "She is moving to Berlin", ok=False)
    assert result.exit_code == 130, result.output
    assert [e.text for e in log_entries(example_cli.ws, "alice")] == ["She is moving to Berlin"]
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, interrupted"


def test_a_refused_commit_leaves_the_note_live_for_the_gardener(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    before = facts(ws)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    result = example_cli("tell", "alice", "She is moving to Berlin", "--yes", ok=False)
    assert result.exit_code == 1 and "rolled back" in result.output and facts(ws) == before, result.output[-1500:]
    entries = log_entries(ws, "alice")
    assert [(e.speaker, e.tags) for e in entries] == [("note", []), ("mark", ["applied 1"]), ("note", [])]
    hook.unlink()
    fake_llm.enqueue(berlin())
    example_cli("garden")
    assert gardened_berlin(ws)


def test_a_broken_file_is_reported_before_the_model_is_made(example_cli: Runner, monkeypatch):
    from heartcompass.llm import providers

    made = []
    monkeypatch.setattr(providers, "make_chat_model", lambda ws, settings: made.append(1))
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace("relation: friend", "relation: [broken"),
                       encoding="utf-8")
    result = example_cli("tell", "alice", "She moves to Berlin", "--yes", ok=False)
    assert result.exit_code == 1 and "PROFILE.md" in result.output and made == []
