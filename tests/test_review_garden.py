"""The gardener asks (issue 27's verdicts), the user answers: a garden with
the scripted model leaves a question instead of changing a told fact or a
relation, and `review yes` / `review no` settle it. Active once the
gardener asks (memory/proposal/asking.py)."""

from __future__ import annotations

import json

import pytest
from conftest import Runner, subjects
from garden_helpers import memory, proposal, say

from heartcompass.formats import memory as memory_fmt

pytest.importorskip("heartcompass.memory.proposal.asking")

KYOTO = "- Moves to Kyoto in January for the design studio job (told)"


def test_a_told_fact_the_gardener_asks_about_is_rewritten_on_yes(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "note", "The Kyoto move is postponed to March")
    fake_llm.enqueue(proposal(rewritten_facts=[{"id": "F1", "text": "Moves to Kyoto in March, postponed from "
                                                "January", "evidence": ["L1"]}]))
    alice("garden")
    assert memory(ws).items(memory_fmt.FACTS)[0] == KYOTO  # not changed before the Yes
    [asked] = json.loads(alice("review", "--json").output)
    assert asked["old"] == KYOTO and asked["evidence"][0]["text"] == "The Kyoto move is postponed to March"
    alice("review", "yes", asked["id"])
    facts = memory(ws).items(memory_fmt.FACTS)
    assert facts[0] == "- Moves to Kyoto in March, postponed from January (told)" and KYOTO not in facts
    assert subjects(ws)[0].startswith("review(alice): Facts: ")


def test_a_relation_the_gardener_asks_about_waits_and_a_no_is_not_asked_again(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "me", "我们在一起了! we are dating now")
    change = proposal(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}])
    fake_llm.enqueue(change)
    alice("garden")
    assert "relation: friend" in (ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")
    [asked] = json.loads(alice("review", "--json").output)
    assert (asked["kind"], asked["old"], asked["new"]) == ("field", "friend", "dating")
    alice("review", "no", asked["id"])
    say(ws, "alice", "me", "我们在一起了! we are dating now", time="21:00:00")  # new entries, same words
    fake_llm.enqueue(proposal(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}]))
    alice("garden")
    assert json.loads(alice("review", "--json").output) == []  # the same change on the same evidence
