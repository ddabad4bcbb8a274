"""Every terminal question goes through cli/ask.py: asked only when a person
is at the terminal, and Ctrl-C comes through (questionary's own .ask() would
print "Cancelled by user" and answer None). Each command then says what
Ctrl-C means for it: garden stops the run, tell asks what becomes of the
note, edit keeps the text aside, coach saves nothing. The same on a real
terminal: tests/test_terminal.py."""

from __future__ import annotations

import ast

import pytest

from conftest import Runner, log_entries, subjects
from fakes import CTRL_C, Questions
from garden_helpers import proposal, say
from test_homes import called, modules, tree
from test_tell import NO_ONE_NEW, berlin, facts


@pytest.fixture
def at_a_terminal(monkeypatch):
    """The CliRunner is no terminal: as if a person were at one."""
    from heartcompass.cli import ask, coach_cmd, tell_cmd

    for module in (ask, coach_cmd, tell_cmd):
        monkeypatch.setattr(module, "can_ask" if module is ask else "interactive", lambda: True)
    monkeypatch.setattr("heartcompass.cli.garden_cmd._terminal", lambda: True)


@pytest.mark.parametrize("path", [p for p in modules("cli") if p.name != "ask.py"], ids=lambda p: p.name)
def test_no_command_asks_questionary_itself(path):
    """.ask() swallows Ctrl-C; unsafe_ask() is cli/ask's to handle."""
    found = [f"{path.name}:{n.lineno}" for n in ast.walk(tree(path))
             if isinstance(n, ast.Call) and called(n) in ("ask", "unsafe_ask")]
    assert not found, f"a question asked around cli/ask.py: {found}"


def test_ctrl_c_at_a_garden_review_stops_the_run(alice: Runner, fake_llm, monkeypatch, at_a_terminal):
    ws = alice.ws
    alice("person", "add", "Bob", "--yes")
    say(ws, "alice", "me", "I booked the movers for you")
    say(ws, "bob", "note", "Bob runs marathons")
    questions = Questions(monkeypatch, True, CTRL_C)
    fake_llm.enqueue(proposal(new_facts=[{"text": "Booked movers", "evidence": ["L1"]}]),
                     proposal(new_facts=[{"text": "Runs marathons", "evidence": ["L1"]}]))
    result = alice("garden", "--review", ok=False)
    assert questions.asked == ["Write these changes for alice?", "Write these changes for bob?"]
    assert result.exit_code == 130 and "Stopped." in result.output and "Cancelled by user" not in result.output
    assert any(s.startswith("garden(alice)") for s in subjects(ws))
    assert not any(s.startswith("garden(bob)") for s in subjects(ws))


def test_ctrl_c_at_tells_confirmation_asks_what_becomes_of_the_note(example_cli: Runner, fake_llm, monkeypatch,
                                                                     at_a_terminal):
    before = facts(example_cli.ws)
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    questions = Questions(monkeypatch, CTRL_C, "Discard it")
    result = example_cli("tell", "alice", "She got promoted and is moving to Berlin in March")
    assert questions.asked == ["Write these changes?", "Not applied. What you told:"]
    assert result.exit_code == 0 and "Cancelled by user" not in result.output and "discarded" in result.output
    assert facts(example_cli.ws) == before and subjects(example_cli.ws)[0] == "tell(alice): discarded"


def test_ctrl_c_at_what_becomes_of_the_note_keeps_it(example_cli: Runner, fake_llm, monkeypatch, at_a_terminal):
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    Questions(monkeypatch, False, CTRL_C)
    result = example_cli("tell", "alice", "She is moving to Berlin", ok=False)
    assert result.exit_code == 130  # Ctrl-C exits 130 here as everywhere else; the note is kept all the same
    assert "kept in the log as a note" in result.output and "Cancelled by user" not in result.output
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, proposal declined"
    assert log_entries(example_cli.ws, "alice")[-1].text == "She is moving to Berlin"


def test_ctrl_c_at_edits_question_keeps_the_text_aside(example_cli: Runner, tmp_path, monkeypatch, at_a_terminal):
    from test_edit import scripted_editor

    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    before = profile.read_bytes()
    questions = Questions(monkeypatch, CTRL_C)
    editor = scripted_editor(tmp_path, ("relation: friend", "relation: bestie"))
    result = example_cli("edit", "alice", env={"EDITOR": editor}, ok=False)
    assert questions.asked == ["The file is not valid. What now?"]
    assert result.exit_code == 1 and "is unchanged" in result.output and "Cancelled by user" not in result.output
    assert profile.read_bytes() == before


def test_ctrl_c_at_coachs_question_saves_nothing(example_cli: Runner, fake_llm, monkeypatch, at_a_terminal):
    from stub_server import structured_reply

    fake_llm.enqueue(structured_reply("Advice", {"messages": [
        {"role": "system", "content": "reply to Alice. You know"}, {"role": "user", "content": "我好累"}]}))
    before = subjects(example_cli.ws)
    questions = Questions(monkeypatch, CTRL_C)
    result = example_cli("coach", "alice", "我好累", ok=False)
    assert questions.asked == ["Save this exchange to their log for the gardener?"]
    assert result.exit_code == 130 and "Cancelled by user" not in result.output and "Saved" not in result.output
    assert "nothing was saved" in result.output
    assert subjects(example_cli.ws) == before


def test_no_question_is_asked_when_no_one_is_at_the_terminal(monkeypatch):
    from heartcompass.cli import ask

    Questions(monkeypatch)  # any question asked fails the test
    monkeypatch.setattr(ask, "can_ask", lambda: False)
    assert ask.confirm("Write?", default=True, piped=False) is False
    assert ask.choose("Which?", ["a", "b"], piped="b") == "b"
