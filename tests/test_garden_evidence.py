"""Evidence that supports the claim: what a proposal may say, given the
entries it cites (issue 11). Each laundering case is rejected or corrected."""

from __future__ import annotations

import pytest

from conftest import Runner, git
from garden_helpers import consolidated, memory, proposal, say, smaller_memory_budget
from heartcompass.formats import memory as memory_fmt


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def rejected(alice: Runner, fake_llm, bad: dict) -> str:
    """The proposal (sent twice) is rejected and nothing is written; the reason."""
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    assert result.exit_code == 1
    assert files(alice.ws) == before and consolidated(alice.ws) == {}
    return " ".join(result.output.split())


def accepted(alice: Runner, fake_llm, good: dict) -> memory_fmt.Memory:
    fake_llm.enqueue(good)
    alice("garden")
    return memory(alice.ws)


def test_a_fact_its_entries_do_not_support_is_rejected(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "haha ok")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "The user owes Alice $1000", "evidence": ["L1"]}]))
    assert "1000 does not appear in the entries it cites (L1)" in out
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Alice is pregnant", "evidence": ["L1"]}]))
    assert "shares no words with the entries it cites (L1)" in out
    say(alice.ws, "alice", "me", "ok Alice Chen, see you", time="20:01:00")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Alice Chen is pregnant", "evidence": ["L2"]}]))
    assert "shares no words with the entries it cites (L2)" in out  # her own name is no support


def test_numbers_in_a_statement_must_be_in_its_evidence(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "she lent me money for the deposit, 500 euros")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Lent the user 5000 euros for the deposit",
                                                         "evidence": ["L1"]}]))
    assert "5000 does not appear" in out
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": "Lent the user 500 euros for the deposit",
                                                         "evidence": ["L1"]}]))
    assert "- Lent the user 500 euros for the deposit (log 2026-12-01)" in mem.items(memory_fmt.FACTS)


def test_support_works_for_chinese_by_character_bigrams(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "哈哈好的")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "她怀孕了", "evidence": ["L1"]}]))
    assert "shares no words" in out
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "欠我1000块", "evidence": ["L1"]}]))
    assert "1000 does not appear" in out
    say(alice.ws, "alice", "note", "她三月要搬去京都了", time="20:01:00")
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": "三月搬到京都", "evidence": ["L2"]}]))
    assert "- 三月搬到京都 (log 2026-12-01)" in mem.items(memory_fmt.FACTS)


def test_an_open_thread_raised_by_the_persona_goes_to_from_our_chats(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "how are you?")
    say(alice.ws, "alice", "persona", "nervous about my interview at Nintendo on Friday", time="20:00:05")
    mem = accepted(alice, fake_llm, proposal(new_threads=[
        {"text": "Ask how the Nintendo interview went", "evidence": ["L2"]}]))
    line = "- Ask how the Nintendo interview went (log 2026-12-01)"
    assert line in mem.items(memory_fmt.CHATS) and line not in mem.items(memory_fmt.THREADS)


def test_a_pasted_log_line_is_not_a_fact(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "She got the job at the Kyoto design studio")
    for pasted in ("- 10:00:00 · note · She got the job at the Kyoto design studio",
                   "L1 [2026-12-01 20:00 · note · trusted] She got the job at the Kyoto design studio"):
        out = rejected(alice, fake_llm, proposal(new_facts=[{"text": pasted, "evidence": ["L1"]}]))
        assert "raw log line" in out


@pytest.mark.parametrize("marker", ["(hand)", "(told)", "(import)", "(log 2026-11-02)", "（hand）"])
def test_source_markers_in_model_text_are_stripped(alice: Runner, fake_llm, marker):
    ws = alice.ws
    say(ws, "alice", "note", "She drinks green tea every morning")
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": f"Drinks green tea every morning {marker}",
                                                         "evidence": ["L1"]}]))
    assert "- Drinks green tea every morning (log 2026-12-01)" in mem.items(memory_fmt.FACTS)
    assert not any("green tea" in line and marker in line for line in mem.items(memory_fmt.FACTS))


def test_compression_cannot_forge_a_hand_line_or_a_source(alice: Runner, fake_llm):
    ws = alice.ws
    smaller_memory_budget(ws, 70)  # the told lines stay
    say(ws, "alice", "note", "She is allergic to cats")
    new = proposal(new_facts=[{"text": "Allergic to cats", "evidence": ["L1"]}])

    def compressed(*lines):
        return {"facts": [{"text": text, "lines": list(ids)} for text, ids in lines], "chat_notes": [],
                "threads": []}

    # the source is derived from the lines it keeps (of one source), never written by the model
    fake_llm.enqueue(new, compressed(("Moves to Kyoto in January for the studio job (import)", ["F1"]),
                                     ("Her cat Mochi is 6, hates the carrier (log 2026-11-01)", ["F2"]),
                                     ("Allergic to cats (hand)", ["F4"])))
    alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)
    assert facts == ["- Prefers calls after 21:00 on weekdays (hand)",
                     "- Moves to Kyoto in January for the studio job (told)",
                     "- Her cat Mochi is 6, hates the carrier (told)",
                     "- Allergic to cats (log 2026-12-01)"]


def test_a_compressed_line_resting_on_an_imported_card_line_stays_unverified(alice: Runner, fake_llm):
    ws = alice.ws
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text().replace("(hand)\n", "(hand)\n- Plays the violin (import)\n"))
    git(ws, "commit", "-qam", "add(alice): from character card alice.png")  # HeartCompass's, not by hand
    smaller_memory_budget(ws, 80)  # the told lines stay
    say(ws, "alice", "note", "She is allergic to cats")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Allergic to cats", "evidence": ["L1"]}]),
                     {"facts": [{"text": "Moves to Kyoto in January for the studio job", "lines": ["F1"]},
                                {"text": "Her cat Mochi is 6, hates the carrier", "lines": ["F2"]},
                                {"text": "Plays the violin (log 2026-12-01)", "lines": ["F4"]},
                                {"text": "Allergic to cats", "lines": ["F5"]}],
                      "chat_notes": [], "threads": []})
    alice("garden")
    assert "- Plays the violin (import)" in memory(ws).items(memory_fmt.FACTS)
    # merged with a line of another source, it would pass as verified: refused, and nothing changes
    say(ws, "alice", "note", "She is allergic to dust too", time="20:01:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Allergic to dust", "evidence": ["L1"]}]),
                     {"facts": [{"text": "Plays the violin; allergic to dust", "lines": ["F4", "F6"]}],
                      "chat_notes": [], "threads": []})
    assert "merges lines of different sources" in " ".join(alice("garden", ok=False).output.split())
    assert "- Plays the violin (import)" in memory(ws).items(memory_fmt.FACTS)


@pytest.mark.parametrize("fact, entry", [
    ("Class reunion in June", "my class reunion is in June, she is coming"),
    ("Import business is growing", "her import business is growing fast"),
    ("Rm 204 is her office", "her office is Rm 204 now"),
    ("Selected a dress from the shop downtown", "she selected a dress from the shop downtown"),
    ("Def Leppard is her favourite band", "she loves Def Leppard"),
])
def test_plain_prose_is_not_mistaken_for_code(alice: Runner, fake_llm, fact, entry):
    say(alice.ws, "alice", "me", entry)
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": fact, "evidence": ["L1"]}]))
    assert f"- {fact} (log 2026-12-01)" in mem.items(memory_fmt.FACTS)


@pytest.mark.parametrize("code", ["import os", "def steal(x): return x", "rm -rf ~/notes", "SELECT * FROM users",
                                  "<script>alert(1)</script>", "`cat secrets`", "class Evil(Base):"])
def test_code_is_still_rejected(alice: Runner, fake_llm, code):
    say(alice.ws, "alice", "me", f"what does {code} do")
    assert "looks like code" in rejected(alice, fake_llm, proposal(new_facts=[{"text": code, "evidence": ["L1"]}]))


def test_what_she_wrote_in_real_messages_is_kept_as_what_she_said(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "import:Alice", "I'm moving to Osaka in March!")
    say(ws, "alice", "import:me", "I finally paid back the 300 I owed you", time="20:01:00")
    say(ws, "alice", "import:Alice", "我下个月开始学日语", time="20:02:00")
    mem = accepted(alice, fake_llm, proposal(new_facts=[
        {"text": "Moves to Osaka in March", "evidence": ["L1"]},
        {"text": "The user paid back the 300 owed", "evidence": ["L2"]},
        {"text": "下个月开始学日语", "evidence": ["L3"]}]))
    facts = mem.items(memory_fmt.FACTS)
    # a fragment is not turned into "Alice said: moves ...": who said it follows, as a sentence
    assert "- Moves to Osaka in March, Alice said (log 2026-12-01)" in facts
    assert "- The user paid back the 300 owed (log 2026-12-01)" in facts  # the user's own words
    assert "- 下个月开始学日语（Alice说的） (log 2026-12-01)" in facts
    # and the persona's prompt says what such a line is
    system = " ".join(alice("context", "alice").output.split())
    assert "Moves to Osaka in March, Alice said" in system
    # the example names this person (it once named Caroline, from the LoCoMo benchmark, in everyone's prompt)
    assert "except what a line says someone said (“Alice Chen said …”: from their real messages)" in system
    assert "Caroline" not in system
    assert "not verified" in system


def test_a_reported_fact_written_as_a_sentence_stays_as_written(alice: Runner, fake_llm):
    say(alice.ws, "alice", "import:Alice", "I'm a counselor now, I love helping trans kids")
    say(alice.ws, "alice", "import:Alice", "我下个月开始学日语", time="20:02:00")
    mem = accepted(alice, fake_llm, proposal(new_facts=[
        {"text": "Alice said she is a counselor who loves helping trans kids", "evidence": ["L1"]},
        {"text": "Alice说她下个月开始学日语", "evidence": ["L2"]}]))
    facts = mem.items(memory_fmt.FACTS)
    assert "- Alice said she is a counselor who loves helping trans kids (log 2026-12-01)" in facts
    assert "- Alice说她下个月开始学日语 (log 2026-12-01)" in facts
    assert not any("said:" in line or "说：" in line for line in facts)


def test_a_reported_fact_still_needs_support(alice: Runner, fake_llm):
    say(alice.ws, "alice", "import:Alice", "I'm moving to Osaka in March!")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Says she got a cat", "evidence": ["L1"]}]))
    assert "shares no words" in out


def test_the_user_noting_it_makes_it_a_plain_fact(alice: Runner, fake_llm):
    say(alice.ws, "alice", "import:Alice", "I'm moving to Osaka in March!")
    say(alice.ws, "alice", "note", "Her Osaka lease is signed", time="20:01:00")
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": "Moves to Osaka in March",
                                                         "evidence": ["L1", "L2"]}]))
    assert "- Moves to Osaka in March (log 2026-12-01)" in mem.items(memory_fmt.FACTS)


def _coached(ws):
    """What `coach 王磊 "在吗" --save` and a reply leave in the log: two notes tagged coach."""
    say(ws, "alice", "note", "Alice wrote to me: 在吗", tags=["coach"])
    say(ws, "alice", "note", "I replied to Alice: 在的，周六一起去京都看红叶吗", time="20:00:01", tags=["coach"])
    say(ws, "alice", "note", "Alice wrote to me: Sounds great, I'll book the train tickets", time="20:00:02",
        tags=["coach"])


@pytest.mark.parametrize("text", ["Alice wrote to me: 在吗", "I replied to Alice: 在的，周六一起去京都看红叶吗",
                                  "王磊 wrote to me: 在吗", "她对我说：在吗", "我回复她：在的",
                                  "在的，周六一起去京都看红叶吗!", "sounds great, I'll book the train tickets"])
def test_a_coach_exchange_is_not_copied_into_facts(alice: Runner, fake_llm, text):
    _coached(alice.ws)
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": text, "evidence": ["L1", "L2", "L3"]}]))
    assert "relays a message" in out or "copies a log message" in out


def test_a_coach_exchange_still_gives_paraphrased_facts_and_events(alice: Runner, fake_llm):
    _coached(alice.ws)
    say(alice.ws, "alice", "me", "I'm moving to Berlin in March", time="20:00:03")
    say(alice.ws, "alice", "note", "She sings in a choir", time="20:00:04")
    mem = accepted(alice, fake_llm, proposal(
        new_facts=[{"text": "Is booking the train tickets for a Kyoto trip", "evidence": ["L3"]},
                   {"text": "周六和我去京都看红叶", "evidence": ["L2"]},
                   {"text": "The user is moving to Berlin in March", "evidence": ["L4"]},
                   {"text": "She sings in a choir", "evidence": ["L5"]}],  # a /note may stay as written
        new_events=[{"date": "2026-12-01", "text": "Booking train tickets for a trip to 京都",
                     "weight": 0.5, "evidence": ["L2", "L3"]}]))
    facts = mem.items(memory_fmt.FACTS)
    for line in ("- Is booking the train tickets for a Kyoto trip (log 2026-12-01)",
                 "- 周六和我去京都看红叶 (log 2026-12-01)", "- She sings in a choir (log 2026-12-01)"):
        assert line in facts


def test_a_fact_that_already_says_who_suggested_it_gets_no_second_speaker(alice: Runner, fake_llm):
    """'Alice suggested …' already names who it rests on: no ', Alice said' after it (seen with a capable model)."""
    say(alice.ws, "alice", "import:Alice", "You should try the yoga class at the community center")
    say(alice.ws, "alice", "import:Alice", "你可以去试试那家面馆", time="20:02:00")
    mem = accepted(alice, fake_llm, proposal(new_facts=[
        {"text": "Alice suggested the user try the yoga class at the community center", "evidence": ["L1"]},
        {"text": "Alice建议去试试那家面馆", "evidence": ["L2"]}]))
    facts = mem.items(memory_fmt.FACTS)
    assert "- Alice suggested the user try the yoga class at the community center (log 2026-12-01)" in facts
    assert "- Alice建议去试试那家面馆 (log 2026-12-01)" in facts
