"""Every command that draws progress or asks a question, on a real
pseudo-terminal: garden's live bar and review, chat's line editor and typing
indicator, tell's confirmation, person add's questions, import's speaker
question, coach's follow-up and edit's question after a bad file."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import Runner, log_entries, subjects
from garden_helpers import memory, say
from stub_server import start
from terminal import CTRL_C, DOWN, ENTER, assert_clean_end, finish, screen_text, spawn

TODAY = dt.date.today()


@pytest.fixture
def stub(example_cli: Runner):
    server, state = start()
    example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    example_cli("config", "set", "llm.model", "stub")
    yield state
    server.shutdown()


@pytest.fixture
def two_to_garden(example_cli: Runner, stub) -> Runner:
    """Alice and Bob each with a noted fact the gardener (the stub) will keep."""
    example_cli("person", "add", "Bob", "--relation", "friend", "--yes")
    say(example_cli.ws, "alice", "note", "Alice keeps a tortoise called Shelly", day=TODAY)
    say(example_cli.ws, "bob", "note", "Bob runs the Tokyo marathon in March", day=TODAY)
    return example_cli


@pytest.mark.parametrize("flags", [[], ["--quiet"], ["--json"], ["-p", "alice", "-p", "bob"]])
def test_garden_on_a_terminal_draws_its_progress_and_commits(two_to_garden: Runner, flags):
    before = len(subjects(two_to_garden.ws))
    code, raw = finish(spawn(two_to_garden.ws.root, "garden", *flags))
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    made = subjects(two_to_garden.ws)[:len(subjects(two_to_garden.ws)) - before]
    assert sorted(s.split("(")[1].split(")")[0] for s in made if s.startswith("garden(")) == ["alice", "bob"]
    assert any("Shelly" in f for f in memory(two_to_garden.ws).items("Facts"))
    if "--json" in flags:
        body = screen_text(raw)
        assert {r["slug"] for r in json.loads(body[body.index("["):body.rindex("]") + 1])} >= {"alice", "bob"}


def test_garden_dry_run_on_a_terminal_shows_diffs_and_writes_nothing(two_to_garden: Runner):
    before = subjects(two_to_garden.ws)
    code, raw = finish(spawn(two_to_garden.ws.root, "garden", "--dry-run"))
    assert code == 0 and "Shelly" in screen_text(raw) and "marathon" in screen_text(raw)
    assert_clean_end(raw)
    assert [s for s in subjects(two_to_garden.ws) if s.startswith("garden(")] == \
        [s for s in before if s.startswith("garden(")]


def test_garden_review_asks_for_each_person_on_a_terminal(two_to_garden: Runner):
    child = spawn(two_to_garden.ws.root, "garden", "--review")
    child.expect("Write these changes for alice")
    child.send("y")
    child.expect("Write these changes for bob")
    child.send("n")
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert any(s.startswith("garden(alice)") for s in subjects(two_to_garden.ws))
    assert not any(s.startswith("garden(bob)") for s in subjects(two_to_garden.ws))


def test_ctrl_c_at_a_garden_review_stops_the_run_and_keeps_the_entries(two_to_garden: Runner):
    child = spawn(two_to_garden.ws.root, "garden", "--review")
    child.expect("Write these changes for alice")
    child.send(CTRL_C)
    code, raw = finish(child)
    assert code == 130 and "Stopped" in screen_text(raw)
    assert not any(s.startswith("garden(") for s in subjects(two_to_garden.ws))


def test_chat_on_a_terminal_answers_logs_and_commits(example_cli: Runner, stub):
    child = spawn(example_cli.ws.root, "chat", "alice", "--no-delay")
    child.expect("you ›")
    child.send("are you packing yet?" + ENTER)
    child.expect("you said: are you packing yet")
    child.expect("you ›")
    child.send("/exit" + ENTER)
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "me"] == ["are you packing yet?"]
    assert subjects(example_cli.ws)[0].startswith("chat(alice)")


def test_ctrl_c_at_the_first_reply_on_a_terminal_keeps_the_message(example_cli: Runner, stub):
    """The first message is sent while the provider may still be loading in
    the background: a Ctrl-C then (or while the model thinks) keeps it."""
    stub.answering.clear()  # the model thinks until the Ctrl-C has landed, however slow the machine
    child = spawn(example_cli.ws.root, "chat", "alice", "--no-delay")
    try:
        child.expect("you ›")
        child.send("did you water the plants?" + ENTER)
        child.expect("typing")
        child.send(CTRL_C)
        child.expect("reply interrupted")
    finally:
        stub.answering.set()
    child.expect("you ›")
    child.send("/exit" + ENTER)
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "me"] == ["did you water the plants?"]
    assert subjects(example_cli.ws)[0].startswith("chat(alice)")


def test_person_add_asks_its_questions_on_a_terminal(example_cli: Runner):
    child = spawn(example_cli.ws.root, "person", "add", "王小明")
    child.expect("Who is")
    child.send(DOWN + ENTER)  # the one after the default
    child.expect("MBTI")
    child.send("INTJ" + ENTER)
    child.expect("Other names")
    child.send("小明" + ENTER)
    child.expect("A few words")
    child.send("大学同学" + ENTER)
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    shown = example_cli("person", "show", "小明").output
    assert "王小明" in shown and "INTJ" in shown and "大学同学" in shown


def test_ctrl_c_at_a_person_add_question_changes_nothing(example_cli: Runner):
    before = subjects(example_cli.ws)
    child = spawn(example_cli.ws.root, "person", "add", "Carol")
    child.expect("Who is")
    child.send(CTRL_C)
    code, raw = finish(child)
    assert code == 130 and "Cancelled" in screen_text(raw)
    assert subjects(example_cli.ws) == before and not (example_cli.ws.people_dir / "carol").exists()


def test_tell_confirms_on_a_terminal(example_cli: Runner, stub):
    child = spawn(example_cli.ws.root, "tell", "alice", "她养了一只叫年糕的猫")
    child.expect("Write these changes")
    child.send("y")
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert any("年糕" in f for f in memory(example_cli.ws).items("Facts"))
    assert subjects(example_cli.ws)[0].startswith("tell(alice)")


def test_tell_declined_on_a_terminal_keeps_the_note_only(example_cli: Runner, stub):
    child = spawn(example_cli.ws.root, "tell", "alice", "She keeps a tortoise called Shelly")
    child.expect("Write these changes")
    child.send("n")
    child.expect("What you told")
    child.send(ENTER)  # keep it as a note for the gardener
    code, raw = finish(child)
    assert_clean_end(raw)
    assert not any("Shelly" in f for f in memory(example_cli.ws).items("Facts"))
    assert [e.text for e in log_entries(example_cli.ws, "alice")][-1] == "She keeps a tortoise called Shelly"
    assert code in (0, 1), screen_text(raw)[-2000:]


def test_import_asks_which_speaker_is_you_on_a_terminal(example_cli: Runner, tmp_path):
    export = tmp_path / "chat.txt"
    export.write_text("01/12/2026, 20:01 - Ally: packing tonight\n"
                      "01/12/2026, 20:02 - Sam: need a hand?\n", encoding="utf-8")  # neither name is hers
    child = spawn(example_cli.ws.root, "import", "alice", str(export))
    child.expect("Which speaker is you")
    child.send(DOWN + ENTER)  # Sam
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    said = {(e.speaker, e.text) for e in log_entries(example_cli.ws, "alice")}
    assert ("import:me", "need a hand?") in said and ("import:Ally", "packing tonight") in said


def test_coach_on_a_terminal_reads_advises_and_asks_to_save(example_cli: Runner, stub):
    child = spawn(example_cli.ws.root, "coach", "alice")
    child.expect("Their message")
    child.send("I'm so tired of this job" + ENTER)
    child.expect("Coffee on Saturday")
    child.expect("Save this exchange")
    child.send("y")
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert any("tired of this job" in e.text for e in log_entries(example_cli.ws, "alice"))


def test_edit_asks_what_now_after_a_broken_save_on_a_terminal(example_cli: Runner, tmp_path):
    editor = tmp_path / "break.sh"
    editor.write_text("#!/bin/sh\nprintf -- '---\\nname: [unclosed\\n---\\n' > \"$1\"\n")
    editor.chmod(0o755)
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    before = profile.read_bytes()
    child = spawn(example_cli.ws.root, "edit", "alice", env={"EDITOR": str(editor)})
    child.expect("What now")
    child.send(DOWN * 5 + ENTER)  # the last choice: leave the file as it was
    code, raw = finish(child)
    assert_clean_end(raw)
    assert profile.read_bytes() == before, screen_text(raw)[-2000:]
    assert code != 0 or "unchanged" in screen_text(raw).lower() or "discard" in screen_text(raw).lower()


def test_ctrl_c_at_what_becomes_of_a_declined_tell_exits_130_keeping_the_note(example_cli: Runner, stub):
    child = spawn(example_cli.ws.root, "tell", "alice", "She keeps a tortoise called Shelly")
    child.expect("Write these changes")
    child.send("n")
    child.expect("What you told")
    child.send(CTRL_C)
    code, raw = finish(child)
    assert code == 130 and "kept in the log as a note" in screen_text(raw), screen_text(raw)[-2000:]
    assert [e.text for e in log_entries(example_cli.ws, "alice")][-1] == "She keeps a tortoise called Shelly"
    assert subjects(example_cli.ws)[0] == "tell(alice): noted, proposal declined"


def test_person_add_with_a_detail_on_the_line_asks_nothing_more_on_a_terminal(example_cli: Runner):
    child = spawn(example_cli.ws.root, "person", "add", "Carol", "--relation", "family")
    code, raw = finish(child)  # a question asked here would wait until the deadline, and fail
    text = screen_text(raw)
    assert code == 0 and "MBTI" not in text and "Other names" not in text and "Added Carol" in text, text
    assert "relation: family" in (example_cli.ws.people_dir / "carol" / "PROFILE.md").read_text()
