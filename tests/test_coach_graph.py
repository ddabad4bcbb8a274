"""The reply coach and the relationship map."""

from __future__ import annotations

import json
import re

import pytest

from conftest import Runner, log_entries, subjects
from heartcompass.memory.proposal import trust

ADVICE = {
    "reading": "She is nervous about the move and wants reassurance, not solutions.",
    "candidates": [
        {"reply": "You'll do great in Kyoto, and Mochi will love the balcony", "tone": "warm",
         "why": "She gets quiet when worried; she likes her cat being included"},
        {"reply": "Want me to help you pack on Saturday?", "tone": "practical",
         "why": "Offers help without pushing, respects that she needs time"},
    ],
    "risks": ["Joking about the move might read as not taking her seriously"],
    "suggestions": ["Ask about the farewell party; it is an open thread"],
}


def test_coach_renders_candidates_risks_and_suggestions(example_cli: Runner, fake_llm):
    fake_llm.enqueue(ADVICE)
    out = example_cli("coach", "alice", "I'm so stressed about Kyoto 😩").output
    for needle in ("What Alice Chen probably means", "nervous about the move", "1.", "You'll do great",
                   "warm", "2.", "help you pack", "Risks", "Joking about", "Suggestions", "farewell party"):
        assert needle in out, needle
    system = fake_llm.request("coach").system
    assert "relationship coach" in system and "Known facts about Alice Chen" in system
    assert "Moves to Kyoto in January" in system and "Who Alice Chen is (from PROFILE.md)" in system
    assert "I'm so stressed about Kyoto" in fake_llm.request("coach").prompt


def test_coach_json_and_pasted_thread_from_stdin(example_cli: Runner, fake_llm):
    fake_llm.enqueue(ADVICE)
    result = example_cli("coach", "alice", "--json", input="Alice: are you free tonight?\nAlice: need to talk\n")
    data = json.loads(result.output)
    assert data["candidates"][1]["tone"] == "practical" and len(data["risks"]) == 1
    assert "need to talk" in fake_llm.request("coach").prompt


def test_bad_advice_gets_one_retry_then_a_clear_error(example_cli: Runner, fake_llm):
    one_candidate = {**ADVICE, "candidates": ADVICE["candidates"][:1]}
    fake_llm.enqueue(one_candidate, ADVICE)
    assert "help you pack" in example_cli("coach", "alice", "hi").output
    assert fake_llm.purposes == ["coach", "coach.retry"]
    assert "2 to 4 candidates" in fake_llm.request("coach.retry").prompt
    fake_llm.enqueue("not json at all", one_candidate)
    result = example_cli("coach", "alice", "hi", ok=False)
    assert result.exit_code == 1 and "unusable twice" in result.output and "Traceback" not in result.output


def test_follow_mode_carries_the_conversation_and_saves_it(example_cli: Runner, fake_llm):
    fake_llm.enqueue(ADVICE, ADVICE, ADVICE)
    stdin = "Want me to help you pack?\nyes please!! saturday?\n\nok see you then\n\n"
    example_cli("coach", "alice", "I'm so stressed", "--follow", "--save", input=stdin)
    assert fake_llm.purposes == ["coach"] * 3
    second = fake_llm.request("coach", 1).turns
    assert "I'm so stressed" in second[0] and "nervous about the move" in second[1]
    assert "I replied: Want me to help you pack?" in second[2] and "saturday?" in second[2]
    third = fake_llm.request("coach", 2).prompt
    assert third.startswith("Alice Chen wrote:") and "ok see you then" in third  # skipped reply
    notes = [e.text for e in log_entries(example_cli.ws, "alice")]
    assert notes == ["Alice Chen wrote to me: I'm so stressed", "I replied to Alice Chen: Want me to help you pack?",
                     "Alice Chen wrote to me: yes please!! saturday?", "Alice Chen wrote to me: ok see you then"]
    # a real conversation's messages, trusted for facts, but relayed: not the user's own words
    assert {trust.source_of(e) for e in log_entries(example_cli.ws, "alice")} == {trust.Source.COACH_NOTE}
    assert subjects(example_cli.ws)[0] == "coach(alice): 4 messages of a real conversation"


def test_a_candidates_number_saves_that_candidates_text(example_cli: Runner, fake_llm):
    fake_llm.enqueue(ADVICE, ADVICE, ADVICE)
    example_cli("coach", "alice", "在吗", "--follow", "--save", input="2\nsure, 周六见\n5\nok\n\n")
    assert "I replied: Want me to help you pack on Saturday?" in fake_llm.request("coach", 1).prompt
    notes = [e.text for e in log_entries(example_cli.ws, "alice")]
    assert notes == ["Alice Chen wrote to me: 在吗", "I replied to Alice Chen: Want me to help you pack on Saturday?",
                     "Alice Chen wrote to me: sure, 周六见", "I replied to Alice Chen: 5",  # no candidate 5: as typed
                     "Alice Chen wrote to me: ok"]


def test_coach_without_a_message_is_a_clear_error(example_cli: Runner, fake_llm):
    result = example_cli("coach", "alice", input="", ok=False)
    assert result.exit_code == 1 and "No message" in result.output


@pytest.fixture
def family(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--related", "alice:her brother", "--yes")
    cli("person", "add", "Carol", "--yes")
    path = cli.ws.people_dir / "alice" / "PROFILE.md"  # Bob's --related linked back, with no words: she adds some
    path.write_text(path.read_text().replace("- person: bob\n", "- person: bob\n  as: his sister\n"))
    carol = cli.ws.people_dir / "carol" / "PROFILE.md"  # hand-written links: one way, and to someone not added
    carol.write_text(carol.read_text().replace("related: []", "related:\n- person: bob\n  as: his wife\n"
                                                              "- person: ghost\n  as: an old friend"))
    return cli


def test_graph_tree_and_depth(family: Runner):
    out = family("graph", "alice").output
    assert "Alice" in out and "↔ Bob his sister / her brother" in out and "← Carol his wife" in out
    assert out.count("Bob") == 1
    shallow = family("graph", "alice", "--depth", "1").output
    assert "Bob" in shallow and "Carol" not in shallow
    everyone = family("graph").output
    assert "ghost" in everyone and "not in the workspace" in everyone


def test_graph_dot_export_parses(family: Runner):
    import pydot

    text = family("graph", "--format", "dot").output
    (dot,) = pydot.graph_from_dot_data(text)
    edges = {(e.get_source().strip('"'), e.get_destination().strip('"')) for e in dot.get_edges()}
    assert ("bob", "alice") in edges and ("carol", "bob") in edges and ("alice", "bob") in edges
    labels = {n.get_name().strip('"'): n.get_label() for n in dot.get_nodes() if n.get_label()}
    assert labels["alice"].strip('"') == "Alice"


MERMAID_LINE = re.compile(r'^  (p\d+\["[^"]*"\]|p\d+ (-->|-\.->)(\|"[^"]*"\|)? p\d+|linkStyle \d+ stroke-width:[\d.]+px)$')


def test_graph_mermaid_export_is_well_formed(family: Runner):
    text = family("graph", "--format", "mermaid").output
    lines = text.splitlines()
    assert lines[0] == "graph LR"
    assert all(MERMAID_LINE.match(line) for line in lines[1:]), lines
    ids = {m.group(1) for m in re.finditer(r'^  (p\d+)\[', text, re.M)}
    used = set(re.findall(r"(p\d+) -\.?->", text)) | set(re.findall(r"[|>] (p\d+)$", text, re.M))
    assert len(used) > 1
    assert used <= ids
    only_alice = family("graph", "alice", "--depth", "1", "--format", "mermaid").output
    assert "Carol" not in only_alice and "Bob" in only_alice


def test_doctor_reports_missing_and_one_sided_links(family: Runner):
    out = family("doctor", ok=False).output
    assert "✗ links: people/carol/PROFILE.md links to 'ghost'" in out
    assert "! links: carol names bob in 'related', but bob does not name carol" in out


def test_chat_context_has_one_line_per_neighbour_both_ways(family: Runner):
    from heartcompass.memory import context
    import datetime as dt

    from heartcompass.store.people import resolve

    ws = family.ws
    system = context.build(ws, resolve(ws, "bob"), dt.datetime(2026, 12, 2, tzinfo=dt.timezone.utc)).system
    assert "- Alice: her brother" in system
    assert "- Carol (to them, you are: his wife)" in system


def test_one_saved_message_is_one_message(example_cli: Runner, fake_llm):
    """It read "Saved 1 messages" and "coach(alice): 1 messages ..."."""
    fake_llm.enqueue(ADVICE)
    result = example_cli("coach", "alice", "hi", "--save")
    assert "Saved 1 message to" in result.output
    assert subjects(example_cli.ws)[0] == "coach(alice): 1 message of a real conversation"


def test_coach_reads_the_files_before_making_the_model(example_cli: Runner, monkeypatch):
    from heartcompass.llm import providers

    made = []
    monkeypatch.setattr(providers, "make_chat_model", lambda ws, settings: made.append(1))
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text().replace("relation: friend", "relation: [broken"))
    result = example_cli("coach", "alice", "在吗", ok=False)
    assert result.exit_code == 1 and "PROFILE.md" in result.output and made == []
