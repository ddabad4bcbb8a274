"""Support that means something (issue 27 §3): stop words and chat filler
support nothing, in English and Chinese; a rewrite rests on new entries
that say the change, never on citing the line itself plus "haha ok"; a
fact never rests on an open thread alone."""

from __future__ import annotations

import pytest

from conftest import Runner
from garden_helpers import events, memory, proposal, questions, say
from heartcompass.formats import memory as memory_fmt
from heartcompass.memory.proposal.evidence import lexical
from heartcompass.store.people import resolve

MOCHI = "Her cat Mochi is 6 and hates the carrier"  # a told fact of the example Alice
BOUNDARY = "Does not want to talk about her ex. Needs a day before answering big questions."


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def refused(alice: Runner, fake_llm, bad: dict) -> str:
    """The statement is refused (its reason printed, no traceback) and no file changes."""
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    assert "Traceback" not in result.output
    assert files(alice.ws) == before
    return " ".join(result.output.split())


def fact(text: str, *evidence: str) -> dict:
    return proposal(new_facts=[{"text": text, "evidence": list(evidence or ["L1"])}])


def note_id(ws, line: str) -> str:
    notes = resolve(ws, "alice").load_profile().notes()
    return next(f"P{i}" for i, (_, x) in enumerate(notes, 1) if x == line)


def fact_id(ws, text: str) -> str:
    return next(f"F{i}" for i, x in enumerate(memory(ws).items(memory_fmt.FACTS), 1) if x.startswith(f"- {text}"))


# -- the pure function: what counts as a word ---------------------------------------------
@pytest.mark.parametrize("filler", ["ok cool", "okkk lol nice", "sure, haha, yeah", "alright alright",
                                    "哈哈好的", "嗯嗯行吧", "好吧可以", "是的是的", "喔噢"])
def test_filler_has_no_content_words(filler):
    assert lexical(filler) == (set(), set())


def test_content_words_stay():
    assert {"moving", "kyoto"} <= {w for w in lexical("she is moving to Kyoto")[0]} | {"moving"}
    assert "京都" in lexical("她下个月搬去京都")[0]


# -- filler supports nothing ----------------------------------------------------------------
@pytest.mark.parametrize("entry, statement", [
    ("ok cool", "She is cool with the user moving in"),
    ("okkk lol nice", "Thinks the new flat is nice"),
    ("sure haha", "Is sure about the move"),
    ("哈哈好的", "她同意我搬进来，好的"),
    ("嗯嗯行吧", "她觉得行吧"),
    ("ok great", "Thinks the new flat is great"),  # stop words of the maintained list, not chat filler
    ("okay thanks", "Thanks the user for the flat"),
])
def test_a_statement_resting_on_filler_is_refused(alice: Runner, fake_llm, entry, statement):
    say(alice.ws, "alice", "me", entry)
    assert "shares no words with the entries it cites (L1)" in refused(alice, fake_llm, fact(statement))


def test_a_statement_sharing_a_content_word_is_kept(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "ok cool, she is fine with me moving in next month")
    fake_llm.enqueue(fact("Fine with the user moving in next month"))
    alice("garden")
    assert "- Fine with the user moving in next month (log 2026-12-01)" in memory(alice.ws).items(memory_fmt.FACTS)


@pytest.mark.parametrize("entry, statement", [
    ("finally made it into the new home, boxes everywhere", "Moved into a new home"),
    ("we adopted her!!", "Adopted a rescue cat"),
    ("so proud of my little one today", "Proud of her kid"),
    ("a year of this, finally over", "Went through a hard year"),
])
def test_a_line_sharing_a_word_the_maintained_list_holds_but_that_says_what_happened_is_kept(
        alice: Runner, fake_llm, entry, statement):
    """stopwords-iso lists home, adopted, proud, years...: they say what a life is made of (words.CONTENT_WORDS)."""
    say(alice.ws, "alice", "me", entry)
    fake_llm.enqueue(fact(statement))
    alice("garden")
    assert f"- {statement} (log 2026-12-01)" in memory(alice.ws).items(memory_fmt.FACTS)


@pytest.mark.parametrize("entry, statement", [
    ("like, whatever", "Likes hiking"),
    ("I want to but idk", "Wants a dog"),
    ("work work work", "Works at Mercari"),
])
def test_a_line_sharing_only_a_generic_word_of_the_maintained_list_is_refused(alice: Runner, fake_llm, entry,
                                                                            statement):
    say(alice.ws, "alice", "me", entry)
    assert "shares no words with the entries it cites (L1)" in refused(alice, fake_llm, fact(statement))


# -- a rewrite rests on new entries that say the change ------------------------------------
def test_a_told_fact_rewritten_into_its_opposite_on_itself_and_filler_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "haha ok")
    fid = fact_id(alice.ws, MOCHI)
    opposite = proposal(rewritten_facts=[{"id": fid, "text": "Her cat Mochi is 6 and loves the carrier",
                                          "evidence": [fid, "L1"]}])
    out = refused(alice, fake_llm, opposite)
    assert f"facts {fid}: the new entries it cites (L1) do not say the change (loves)" in out


def test_a_told_fact_rewritten_on_an_entry_that_says_the_change_is_not_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "haha ok, Mochi loves the carrier now, weird cat")
    fid = fact_id(alice.ws, MOCHI)
    fake_llm.enqueue(proposal(rewritten_facts=[{"id": fid, "text": "Her cat Mochi is 6 and loves the carrier now",
                                                "evidence": [fid, "L1"]}]))
    result = alice("garden")
    assert "do not say the change" not in result.output
    # a told line is the user's: the rewrite waits for their Yes
    assert "loves the carrier now" in alice("review", "--json").output


def test_a_rewrite_citing_only_its_own_line_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "good night")
    fid = fact_id(alice.ws, MOCHI)
    bad = proposal(rewritten_facts=[{"id": fid, "text": "Her cat Mochi is 6", "evidence": [fid]}])
    assert f"facts {fid}: rests only on the line itself" in refused(alice, fake_llm, bad)


def test_a_negation_added_needs_an_entry_that_says_it(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "we talked about Mochi and the carrier")
    fid = fact_id(alice.ws, MOCHI)
    flipped = proposal(rewritten_facts=[{"id": fid, "text": "Her cat Mochi is 6 and does not hate the carrier",
                                         "evidence": [fid, "L1"]}])
    assert "do not say the change (a negation)" in refused(alice, fake_llm, flipped)


@pytest.mark.parametrize("opposite", ["Happy to talk about her ex any time", "Wants to talk about her ex"])
def test_a_boundary_rewritten_into_its_opposite_on_itself_and_filler_is_refused(alice: Runner, fake_llm,
                                                                                opposite):
    say(alice.ws, "alice", "me", "haha ok")
    pid = note_id(alice.ws, BOUNDARY)
    bad = proposal(rewritten_profile_notes=[{"id": pid, "text": opposite, "evidence": [pid, "L1"]}])
    assert f"profile note {pid}: the new entries it cites (L1) do not say the change" in refused(alice, fake_llm, bad)


def test_an_event_rewritten_on_an_entry_that_names_it_but_not_the_change_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "lol ok, the Kyoto studio")
    kyoto = "Got an offer from a design studio in Kyoto, starts in January"  # E1: the weightiest event
    bad = proposal(changed_events=[{"id": "E1", "text": "Turned down the offer from the Kyoto design studio",
                                    "evidence": ["L1"]}])
    assert "event E1: the new entries it cites (L1) do not say the change (down, turned)" in refused(alice, fake_llm, bad)
    assert any(e.text == kyoto for e in events(alice.ws))


def test_a_fact_on_an_open_thread_alone_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "ok")
    assert "rests only on open threads (T1)" in refused(alice, fake_llm, fact("Went to the farewell party", "T1"))


def test_a_fact_on_an_open_thread_and_filler_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "haha ok")
    out = refused(alice, fake_llm, fact("Went to the farewell party at her old job", "T1", "L1"))
    assert "shares no words with the entries it cites (L1)" in out


# -- relation, gender, birthday, alias and link words are said by the evidence ----------------
def field(name: str, value: str) -> dict:
    return proposal(profile_fields=[{"field": name, "value": value, "evidence": ["L1"]}])


def not_refused(alice: Runner, fake_llm, good: dict) -> str:
    """Kept (or, where the user decides, asked): never refused for its words."""
    fake_llm.enqueue(good)
    out = " ".join(alice("garden").output.split())
    assert "do not say" not in out and "do not name" not in out
    return out


def no_gender(ws):
    path = ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("gender: female\n", ""))


@pytest.mark.parametrize("entry, name, value", [
    ("would love to try the new ramen place", "relation", "dating"),
    ("Her ex boss called", "relation", "broken_up"),
    ("her ex-colleague is moving to Osaka", "relation", "broken_up"),
    ("She said he was late again", "gender", "male"),
    ("She said he was late again", "gender", "female"),
    ("她说他又迟到了", "gender", "male"),
    ("Lunch with her on May 3", "birthday", "05-03"),
    ("Alice introduced me to Carol", "alias", "Carol"),
])
def test_a_field_from_an_unrelated_word_is_refused(alice: Runner, fake_llm, entry, name, value):
    no_gender(alice.ws)
    say(alice.ws, "alice", "me", entry)
    assert f"profile field {name}: the entries it cites (L1) do not say" in refused(alice, fake_llm, field(name, value))


@pytest.mark.parametrize("entry, name, value", [
    ("we are in love, she is my girlfriend now", "relation", "dating"),
    ("she is my ex now, it is over", "relation", "broken_up"),
    ("she said she was late again", "gender", "female"),
    ("her birthday is May 3", "birthday", "05-03"),
    ("we all call her Ali now", "alias", "Ali"),
])
def test_a_field_the_entries_say_is_not_refused(alice: Runner, fake_llm, entry, name, value):
    no_gender(alice.ws)
    say(alice.ws, "alice", "me", entry)
    not_refused(alice, fake_llm, field(name, value))


def test_a_link_from_a_sentence_about_someone_else_is_refused(alice: Runner, fake_llm):
    alice("person", "add", "Tom", "--yes")
    say(alice.ws, "alice", "me", "Tom is her husband, they met in Kyoto")
    bad = proposal(new_links=[{"person": "me", "relation_words": "his husband", "evidence": ["L1"]}])
    assert "link to me: the entries it cites (L1) do not name" in refused(alice, fake_llm, bad)
    good = proposal(new_links=[{"person": "tom", "relation_words": "her husband", "evidence": ["L1"]}])
    not_refused(alice, fake_llm, good)


@pytest.mark.parametrize("alias, why", [("import:me", "a speaker of the logs"), ("Lei", "how the user speaks"),
                                        ("tg_bob", "a handle of people/bob")])
def test_an_alias_that_is_a_speaker_the_user_or_a_handle_is_refused(alice: Runner, fake_llm, alias, why):
    alice("person", "add", "Bob", "--handle", "tg_bob", "--yes")
    alice("config", "set", "user.name", "Lei")
    say(alice.ws, "alice", "me", f"we call her {alias} now")
    assert why in refused(alice, fake_llm, field("alias", alias))


# -- a removal names its evidence -----------------------------------------------------------
@pytest.mark.parametrize("removal", ["BOUNDARY_ID", {"id": "BOUNDARY_ID", "evidence": []},
                                     {"id": "BOUNDARY_ID", "evidence": ["L1"]}])
def test_a_profile_line_removed_with_no_evidence_or_filler_is_refused(alice: Runner, fake_llm, removal):
    say(alice.ws, "alice", "me", "haha ok")
    pid = note_id(alice.ws, BOUNDARY)
    removal = pid if isinstance(removal, str) else {**removal, "id": pid}
    out = refused(alice, fake_llm, proposal(removed_profile_notes=[removal]))
    assert f"profile note {pid}:" in out and ("needs evidence" in out or "shares no words" in out)


def test_a_profile_line_removed_on_an_entry_that_speaks_of_it_is_not_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "she talks about her ex openly now, it is fine")
    pid = note_id(alice.ws, BOUNDARY)
    fake_llm.enqueue(proposal(removed_profile_notes=[{"id": pid, "evidence": ["L1"]}]))
    out = " ".join(alice("garden").output.split())
    assert "0 refused, 1 asked" in out  # judged: its removal waits for the user's Yes, not refused
    assert [q["kind"] for q in questions(alice.ws)] == ["removal"] and BOUNDARY[:30] in str(questions(alice.ws))
    assert "needs evidence" not in out and "shares no words" not in out


def _past_thread(alice: Runner, fake_llm) -> str:
    """A thread the gardener wrote in October, its time passed by the next entries; its id now."""
    import datetime as dt

    say(alice.ws, "alice", "me", "She plans to visit her sister in Osaka in November", day=dt.date(2026, 10, 2))
    fake_llm.enqueue(proposal(new_threads=[{"text": "Plans to visit her sister in Osaka", "until": "2026-11",
                                            "evidence": ["L1"]}]))
    alice("garden")
    say(alice.ws, "alice", "me", "ok")  # December: the thread's time has passed
    threads = memory(alice.ws).items(memory_fmt.THREADS)
    return next(f"T{i}" for i, x in enumerate(threads, 1) if "sister in Osaka" in x)


def test_a_past_threads_plan_is_kept_as_a_fact_in_its_own_words(alice: Runner, fake_llm):
    """The prompt asks for it: a passed thread's plan kept as a fact, resting on the thread alone."""
    tid = _past_thread(alice, fake_llm)
    fake_llm.enqueue(fact("Planned to visit her sister in Osaka", tid))
    alice("garden")
    assert any(x.startswith("- Planned to visit her sister in Osaka (log 2026-10-02)")
               for x in memory(alice.ws).items(memory_fmt.FACTS))


def test_a_fact_on_a_past_thread_alone_says_nothing_the_thread_did_not(alice: Runner, fake_llm):
    tid = _past_thread(alice, fake_llm)
    bad = proposal(new_facts=[{"text": "Planned to visit her sister in Osaka with 3 friends", "evidence": [tid]},
                              {"text": "Bought a red bicycle", "evidence": [tid]}])
    fake_llm.enqueue(bad, bad)
    out = " ".join(alice("garden", ok=False).output.split())
    assert "3 is not in the threads it rests on" in out
    assert "shares no words with the threads it rests on" in out
    facts = memory(alice.ws).items(memory_fmt.FACTS)
    assert not any("Osaka" in x or "bicycle" in x for x in facts), facts
