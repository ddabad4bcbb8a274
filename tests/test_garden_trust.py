"""Every change stands on its evidence (issue 18 §6, issue 23 "What the
model writes"): profile fields, links, removals and the compression step
are checked like a fact; Unicode line breaks and invisible characters
cannot smuggle structure; numbers in words and filler cannot launder a
claim; the schema's limits hold on our side."""

from __future__ import annotations

import time

import pytest

from conftest import Runner, git
from garden_helpers import consolidated, events, memory, proposal, questions, say, smaller_memory_budget
from heartcompass.formats import memory as memory_fmt, profile as profile_fmt


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def rejected(alice: Runner, fake_llm, bad: dict, *then) -> str:
    """The proposal (sent twice) is rejected and nothing is written; the reason."""
    fake_llm.enqueue(bad, bad, *then)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert files(alice.ws) == before and consolidated(alice.ws) == {}
    return " ".join(result.output.split())


def accepted(alice: Runner, fake_llm, good: dict, *then):
    fake_llm.enqueue(good, *then)
    alice("garden")
    return memory(alice.ws)


def profile(ws, slug="alice"):
    return profile_fmt.load(ws.people_dir / slug / "PROFILE.md")


def field(name, value, evidence=("L1",)):
    return proposal(profile_fields=[{"field": name, "value": value, "evidence": list(evidence)}])


def asked(ws) -> list[dict]:
    """The changes waiting for the user's Yes (what changes who someone is is asked, not applied)."""
    return [q["change"] for q in questions(ws)]


# -- profile fields stand on what the entries say ---------------------------------------
def test_a_relation_change_citing_filler_is_refused_and_one_the_entries_say_is_kept(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "haha ok")
    out = rejected(alice, fake_llm, field("relation", "dating"))
    assert "profile field relation: the entries it cites (L1) do not say 'dating'" in out
    say(alice.ws, "alice", "me", "我们在一起了，她现在是我女朋友", time="20:01:00")
    fake_llm.enqueue(field("relation", "dating", ["L2"]))
    alice("garden")
    assert asked(alice.ws) == [{"field": "relation", "value": "dating", "old": "friend"}]
    assert profile(alice.ws).relation == "friend"  # until the user says yes


@pytest.mark.parametrize("entry, value", [("she told me she is not into me", "failed"),
                                          ("we had a huge fight about the trip", "tension"),
                                          ("我们分手了", "broken_up")])
def test_relations_the_entries_say_are_kept(alice: Runner, fake_llm, entry, value):
    say(alice.ws, "alice", "me", entry if value != "failed" else "she turned me down")
    fake_llm.enqueue(field("relation", value))
    alice("garden")
    assert asked(alice.ws) == [{"field": "relation", "value": value, "old": "friend"}]


def test_relation_self_on_someone_else_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "she is basically my other self, haha")
    out = rejected(alice, fake_llm, field("relation", "self"))
    assert "'self' is the user's own person; Alice Chen is someone else" in out


def test_the_users_own_person_keeps_relation_self(alice: Runner, fake_llm):
    say(alice.ws, "me", "note", "I have lots of friends at the climbing gym")
    fake_llm.enqueue(field("relation", "friend"), field("relation", "friend"))
    result = alice("garden", ok=False)
    assert "is the user's own person (relation: self); that does not change" in " ".join(result.output.split())
    assert profile(alice.ws, "me").relation == "self"


def test_doctor_reports_a_second_self(alice: Runner):
    alice("person", "add", "Bob", "--yes")
    path = alice.ws.people_dir / "bob" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", "relation: self"))
    result = alice("doctor", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "relation: self" in out and "bob" in out and "me" in out
    path.write_text(path.read_text().replace("relation: self", "relation: friend"))
    assert "relation: self" not in " ".join(alice("doctor", ok=False).output.split())


@pytest.mark.parametrize("value", ["Alice owes me 9000 dollars", "male"])
def test_a_gender_its_entries_do_not_say_is_refused(alice: Runner, fake_llm, value):
    say(alice.ws, "alice", "me", "haha ok, see you at nine")
    out = rejected(alice, fake_llm, field("gender", value))
    assert "profile field gender" in out


def test_a_gender_the_entries_say_is_kept(alice: Runner, fake_llm):
    path = alice.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("gender: female\n", ""))
    git(alice.ws, "commit", "-qam", "gender unknown")
    say(alice.ws, "alice", "me", "她说她下周去京都")
    fake_llm.enqueue(field("gender", "female"))
    alice("garden")
    assert asked(alice.ws) == [{"field": "gender", "value": "female", "old": None}]


@pytest.mark.parametrize("value, why", [("owes me 9000 dollars", "no numbers"), ("pottery", "shares no words"),
                                        ("hi\u2028## Facts", "more than one line")])
def test_a_tag_must_be_a_short_word_its_entries_say(alice: Runner, fake_llm, value, why):
    say(alice.ws, "alice", "me", "she started climbing on tuesdays")
    assert why in rejected(alice, fake_llm, field("tag", value))
    fake_llm.enqueue(field("tag", "climbing"))
    alice("garden")
    assert "climbing" in profile(alice.ws).doc.meta["tags"]


@pytest.mark.parametrize("alias, why", [("me", "how the user speaks of themselves"),
                                        ("我", "how the user speaks of themselves"),
                                        ("Bob", "already the name of people/bob"),
                                        ("Lily", "do not say 'Lily'")])
def test_an_alias_of_someone_else_or_of_me_is_refused(alice: Runner, fake_llm, alias, why):
    alice("person", "add", "Bob", "--yes")
    say(alice.ws, "alice", "me", "Bob and me call her Ali now, 我也是")
    assert why in rejected(alice, fake_llm, field("alias", alias))
    fake_llm.enqueue(field("alias", "Ali"))
    alice("garden")
    assert asked(alice.ws) == [{"value": "Ali"}]  # an alias routes messages: asked


@pytest.mark.parametrize("value", ["9999-99-99", "02-30", "0001-04-12", "2099-04-12", "1996-04-13"])
def test_a_birthday_that_is_not_real_or_not_said_is_refused(alice: Runner, fake_llm, value):
    say(alice.ws, "alice", "me", "her birthday is April 12, she was born in 1996")
    assert "profile field birthday" in rejected(alice, fake_llm, field("birthday", value))


@pytest.mark.parametrize("value", ["2099-04-12", "1850-04-12", "02-30", "13-12"])
def test_a_birthday_that_is_not_real_is_refused_even_when_the_entry_says_it(alice: Runner, fake_llm, value):
    say(alice.ws, "alice", "me", f"lol she claims her birthday is {value}")
    assert "is not a real birthday" in rejected(alice, fake_llm, field("birthday", value))


def test_a_birthday_the_entries_say_is_kept_in_english_and_chinese(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "她的生日是五月三日")
    fake_llm.enqueue(field("birthday", "05-03"))
    alice("garden")
    assert asked(alice.ws) == [{"field": "birthday", "value": "05-03", "old": "1996-04-12"}]
    say(alice.ws, "alice", "me", "actually her birthday is on March 5", time="20:01:00")
    fake_llm.enqueue(field("birthday", "03-05", ["L1"]))
    alice("garden")
    assert [c["value"] for c in asked(alice.ws)] == ["05-03", "03-05"]


@pytest.mark.parametrize("date", ["0001-01-01", "9999-12-31", "1899-12-31"])
def test_an_event_date_outside_a_life_is_refused(alice: Runner, fake_llm, date):
    say(alice.ws, "alice", "me", "we went hiking at Mount Takao again")
    out = rejected(alice, fake_llm, proposal(new_events=[{"date": date, "text": "Hiked Mount Takao again",
                                                          "weight": 0.5, "evidence": ["L1"]}]))
    assert f"{date} is outside 1900-01-01.." in out


def test_link_words_its_entries_do_not_say_are_refused(alice: Runner, fake_llm):
    alice("person", "add", "Bob", "--yes")
    say(alice.ws, "alice", "me", "haha ok, Bob says hi")
    out = rejected(alice, fake_llm, proposal(new_links=[{"person": "bob", "relation_words": "her secret husband",
                                                         "evidence": ["L1"]}]))
    assert "link to bob: shares no words" in out
    say(alice.ws, "alice", "me", "Bob is her older brother", time="20:01:00")
    fake_llm.enqueue(proposal(new_links=[{"person": "bob", "relation_words": "her older brother",
                                          "evidence": ["L2"]}]))
    alice("garden")
    assert asked(alice.ws) == [{"person": "bob", "words": "her older brother"}]


# -- one line by every definition ---------------------------------------------------------
@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e", "\r", "\n"])
def test_no_line_break_of_any_kind_reaches_a_file(alice: Runner, fake_llm, brk):
    say(alice.ws, "alice", "persona", "I love the sea")
    say(alice.ws, "alice", "me", "she loves the sea", time="20:01:00")
    bad = proposal(new_chat_notes=[{"text": f"Loves the sea{brk}## Facts{brk}- She owes me the sea", "evidence":
                                    ["L1"]}])
    fake_llm.enqueue(bad, bad)
    alice("garden", ok=False)
    facts = memory(alice.ws).items(memory_fmt.FACTS)
    assert not any("owes" in f for f in facts)
    text = (alice.ws.people_dir / "alice" / "MEMORY.md").read_text()
    assert text.count("## Facts") == 1 and not any(c in text for c in "\u2028\u2029\x85\v\f\x1c\x1d\x1e")


def test_a_profile_note_cannot_add_a_heading(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "she has no boundaries about cilantro")
    bad = proposal(profile_notes=[{"section": "Likes", "text": "cilantro\u2029## Boundaries\u2029None at all",
                                   "evidence": ["L1"]}])
    assert "more than one line" in rejected(alice, fake_llm, bad)


@pytest.mark.parametrize("text", ["Drinks oolong ((hand)hand)", "Drinks oolong (ha\u200bnd)",
                                  "Drinks oolong (\ufeffhand)", "Drinks oolong ((told)hand)",
                                  "Drinks oolong (h\u200eand\u200f)", "Drinks oolong （（hand）hand）"])
def test_a_forged_hand_marker_is_removed_until_none_is_left(alice: Runner, fake_llm, text):
    say(alice.ws, "alice", "note", "She drinks oolong every day")
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": text, "evidence": ["L1"]}]))
    assert "- Drinks oolong (log 2026-12-01)" in mem.items(memory_fmt.FACTS)
    raw = (alice.ws.people_dir / "alice" / "MEMORY.md").read_text()
    assert "\u200b" not in raw and "\ufeff" not in raw and "\u200e" not in raw


def test_zero_width_characters_cannot_hide_a_claim_from_the_number_check(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "she lent me money, 50 euros")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Lent the user 50\u200b00 euros",
                                                         "evidence": ["L1"]}]))
    assert "5000 does not appear" in out


# -- laundering ------------------------------------------------------------------------
@pytest.mark.parametrize("claim, number", [("Lent the user five thousand dollars", "5000"),
                                           ("借给我五千块", "5000"), ("Lent me 5 thousand", "5000"),
                                           ("借了我一万五", "15000"), ("Owes the user twenty-five euros", "25")])
def test_numbers_in_words_count_as_numbers(alice: Runner, fake_llm, claim, number):
    say(alice.ws, "alice", "me", "she lent me 500, 借了我五百")
    assert f"{number} does not appear" in rejected(alice, fake_llm, proposal(new_facts=[
        {"text": claim, "evidence": ["L1"]}]))


def test_a_number_in_words_is_supported_by_the_same_number_in_digits(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "她借了我5000块买相机")
    mem = accepted(alice, fake_llm, proposal(new_facts=[{"text": "借给我五千块买相机", "evidence": ["L1"]}]))
    assert "- 借给我五千块买相机 (log 2026-12-01)" in mem.items(memory_fmt.FACTS)


@pytest.mark.parametrize("entry, claim", [("haha ok", "Said haha ok to lending me all her savings"),
                                          ("lol hahaha okay", "Okay with lending the user her savings lol"),
                                          ("哈哈哈嗯嗯好的", "哈哈同意把积蓄借给我"),
                                          ("hmm yeah ok lol", "Hmm, yeah, she is pregnant")])
def test_filler_is_no_support(alice: Runner, fake_llm, entry, claim):
    say(alice.ws, "alice", "me", entry)
    assert "shares no words" in rejected(alice, fake_llm, proposal(new_facts=[{"text": claim, "evidence": ["L1"]}]))


# -- removals of what the user told ----------------------------------------------------
def test_removing_a_told_event_or_fact_without_evidence_asks_instead(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "ok cool")
    fake_llm.enqueue(proposal(removed_events=["E1", "E2", "E3", "E4", "E5"], removed_facts=["F1", "F2"]))
    alice("garden")
    left = [e.text for e in events(alice.ws)]
    assert not any("Mount Takao" in t for t in left)  # the gardener's own event goes
    assert any("Got an offer from a design studio in Kyoto" in t for t in left)  # told: stays
    assert any("Mochi had surgery" in t for t in left) and any("night market" in t for t in left)  # hand: stays
    mem = memory(alice.ws)
    assert "- Moves to Kyoto in January for the design studio job (told)" in mem.items(memory_fmt.FACTS)
    assert "- Her cat Mochi is 6 and hates the carrier (told)" in mem.items(memory_fmt.FACTS)
    assert not any("does it still hold" in t for t in mem.items(memory_fmt.THREADS))  # asked, not a thread
    removals = {(q["change"]["file"], q["change"]["old"]) for q in questions(alice.ws) if q["kind"] == "removal"}
    assert ("MEMORY.md", "- Moves to Kyoto in January for the design studio job (told)") in removals
    assert ("MEMORY.md", "- Her cat Mochi is 6 and hates the carrier (told)") in removals
    olds = " ".join(old for file, old in removals if file == "EVENTS.md")
    assert all(what in olds for what in ("Got an offer from a design studio in Kyoto", "Mochi had surgery",
                                         "night market"))


def test_removing_a_line_the_gardener_wrote_still_works(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "The farewell party went well")
    assert memory(alice.ws).items(memory_fmt.THREADS) and memory(alice.ws).items(memory_fmt.CHATS)  # T1, C1
    fake_llm.enqueue(proposal(closed_threads=["T1"], removed_chat_notes=["C1"]))
    assert "gardened" in alice("garden").output
    assert memory(alice.ws).items(memory_fmt.THREADS) == [] and memory(alice.ws).items(memory_fmt.CHATS) == []


# -- the compression step -------------------------------------------------------------
HAND = "- Prefers calls after 21:00 on weekdays (hand)"
TOLD = ["- Moves to Kyoto in January for the studio job (told)", "- Mochi is 6, hates the carrier (told)"]


def compressed(*facts, threads=(("Ask about the farewell party", ["T1"]),)):
    """The compressor's answer: each line its text and the ids of the lines it keeps or merges
    (F1, F2 the told lines, F3 the hand-written one, F4 the line this run wrote; T1 the thread)."""
    def kept(lines):
        return [{"text": text, "lines": list(ids)} for text, ids in lines]

    return {"facts": kept(facts), "chat_notes": [], "threads": kept(threads)}


KYOTO, MOCHI6 = ("Moves to Kyoto in January for the studio job", ["F1"]), ("Mochi is 6, hates the carrier", ["F2"])
ALLERGIC = ("Allergic to cats, keeps Mochi", ["F4"])


@pytest.mark.parametrize("facts, why", [
    ([KYOTO, MOCHI6, ALLERGIC, ("Owes the user 9000 dollars", ["F1"])], "9000, which no (told) line of Facts"),
    ([KYOTO, ALLERGIC], "compression dropped a line the user told"),
    ([KYOTO, MOCHI6], "compression dropped a line just written"),
    ([KYOTO, ("Mochi is six, hates the carrier", ["F3"]), ALLERGIC], "compression dropped a line the user told"),
    ([("Moves to Kyoto in January for the studio job; Mochi hates the carrier", ["F1", "F2"]), ALLERGIC],
     "drops 6 of the line it merges"),
    ([KYOTO, MOCHI6, ("Allergic to cats, keeps Mochi\u2028## Facts", ["F4"])], "more than one line"),
    ([KYOTO, MOCHI6, ("Allergic to cats, keeps Mochi ((hand)hand)", ["F4"])], None),
    ([KYOTO, MOCHI6, ("Loves the user secretly and wants to marry him", ["F4"])], "says what no"),
    ([KYOTO, MOCHI6, ("Allergic to cats, keeps Mochi; calls after 21:00 on weekdays", ["F4", "F3"])],
     "merges a hand-written line"),
    ([("Moves to Kyoto in January; allergic to cats, keeps Mochi", ["F1", "F4"]), MOCHI6],
     "merges lines of different sources"),
    ([KYOTO, MOCHI6, ALLERGIC, ("The farewell party", ["T1"])], "name the Facts lines"),
])
def test_a_compression_is_checked_like_a_proposal(alice: Runner, fake_llm, facts, why):
    ws = alice.ws
    smaller_memory_budget(ws, 90)
    say(ws, "alice", "note", "She is allergic to cats but keeps Mochi anyway")
    new = proposal(new_facts=[{"text": "Allergic to cats, keeps Mochi anyway", "evidence": ["L1"]}])
    before = files(ws)
    fake_llm.enqueue(new, compressed(*facts))
    result = alice("garden", ok=why is None)
    out = " ".join(result.output.split())
    if why is None:  # the forged marker is gone, the line kept with its real source
        assert memory(ws).items(memory_fmt.FACTS) == [HAND, *TOLD, "- Allergic to cats, keeps Mochi (log 2026-12-01)"]
        return
    assert "compression was rejected, so it stays as it was" in out and why in out
    assert files(ws) == before and consolidated(ws) == {} and "Traceback" not in out


def test_a_compression_over_its_limits_is_refused_before_it_is_checked(alice: Runner, fake_llm):
    ws = alice.ws
    smaller_memory_budget(ws, 90)
    say(ws, "alice", "note", "She is allergic to cats but keeps Mochi anyway")
    new = proposal(new_facts=[{"text": "Allergic to cats, keeps Mochi anyway", "evidence": ["L1"]}])
    fake_llm.enqueue(new, compressed(*[(f"Mochi {n}", ["F2"]) for n in range(5000)]))
    out = " ".join(alice("garden", ok=False).output.split())
    assert "compressed facts: 5000 lines (11 at most)" in out


# -- the schema's limits ---------------------------------------------------------------
def test_twenty_thousand_facts_are_refused_fast(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "She drinks oolong every day")
    lines = [{"text": f"Drinks oolong number {n}", "evidence": ["L1"]} for n in range(20000)]
    bad = proposal(new_facts=lines, new_events=[{"date": "2026-12-01", "text": f"oolong {n}", "weight": 0.5,
                                                 "evidence": ["L1"]} for n in range(20000)])
    started = time.monotonic()
    out = rejected(alice, fake_llm, bad)
    assert time.monotonic() - started < 30  # was over ten minutes of CPU, holding the lock
    assert "new_facts: 20000 items; a proposal holds at most 20 per list" in out


def test_an_evidence_list_over_the_limit_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "She drinks oolong every day")
    out = rejected(alice, fake_llm, proposal(new_facts=[{"text": "Drinks oolong", "evidence": ["L1"] * 5000}]))
    assert "cites 5000 entries (20 at most)" in out


# -- tell: the same checks -------------------------------------------------------------
def test_tell_refuses_a_field_change_its_narrative_does_not_support(example_cli: Runner, fake_llm):
    bad = {"summary": "dating now", "profile_fields": [{"field": "relation", "value": "dating",
                                                         "evidence": ["L1"]}],
           "new_facts": [{"text": "Lent the user five thousand dollars", "evidence": ["L1"]}]}
    fake_llm.enqueue(bad, bad)
    before = files(example_cli.ws)
    result = example_cli("tell", "alice", "haha ok, she lent me 500 dollars", "--yes", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "do not say 'dating'" in out and "5000 does not appear" in out
    assert files(example_cli.ws) == before


def test_tell_never_adds_a_new_person_as_the_user(example_cli: Runner, fake_llm, monkeypatch):
    from heartcompass.cli import tell_cmd

    fake_llm.enqueue({"summary": "nothing worth keeping", "nothing_worth_keeping": True},
                     {"people": [{"name": "Mei", "relation": "self", "about": "her sister"}]})
    monkeypatch.setattr(tell_cmd, "interactive", lambda: True)
    monkeypatch.setattr(tell_cmd, "_confirm", lambda question: True)
    asked = []
    monkeypatch.setattr(tell_cmd, "_confirm_or_stop", lambda question: asked.append(question) or True)
    example_cli("tell", "alice", "Her sister Mei came to say goodbye")
    assert asked == ["Add Mei as a new person (friend)?"]
    assert profile(example_cli.ws, "mei").relation == "friend"


def test_a_new_persons_line_from_tell_is_one_line(example_cli: Runner, fake_llm, monkeypatch):
    from heartcompass.cli import tell_cmd

    fake_llm.enqueue({"summary": "nothing worth keeping", "nothing_worth_keeping": True},
                     {"people": [{"name": "Mei", "relation": "family",
                                  "about": "her sister\u2029## Boundaries\u2028none (hand)\x85\u200b"}]})
    monkeypatch.setattr(tell_cmd, "interactive", lambda: True)
    monkeypatch.setattr(tell_cmd, "_confirm", lambda question: True)
    monkeypatch.setattr(tell_cmd, "_confirm_or_stop", lambda question: True)
    example_cli("tell", "alice", "Her sister Mei came to say goodbye")
    text = (example_cli.ws.people_dir / "mei" / "PROFILE.md").read_text()
    assert [line for line in text.splitlines() if line.startswith("## Boundaries")] == ["## Boundaries"]
    assert "her sister ## Boundaries none" in text
    assert not any(c in text for c in "\u2028\u2029\x85\u200b") and "(hand)" not in text


def test_an_alias_equal_to_the_users_own_name_is_refused(alice: Runner, fake_llm):
    alice("config", "set", "user.name", "王磊")
    say(alice.ws, "alice", "me", "王磊是我，她叫我王磊")
    assert "how the user speaks of themselves" in rejected(alice, fake_llm, field("alias", "王磊"))


# -- on a real pseudo-terminal ----------------------------------------------------------
@pytest.fixture
def stub(alice: Runner):
    from stub_server import start

    server, state = start()
    alice("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    alice("config", "set", "llm.model", "stub")
    yield state
    server.shutdown()


def test_on_a_terminal_a_refused_field_and_a_refused_compression_say_why(alice: Runner, stub):
    import json

    from terminal import assert_clean_end, finish, screen_text, spawn

    say(alice.ws, "alice", "me", "haha ok")
    bad = json.dumps(field("relation", "dating"))
    stub.replies[:] = [bad, bad]
    before = files(alice.ws)
    code, raw = finish(spawn(alice.ws.root, "garden"))
    text = " ".join(screen_text(raw).split())
    assert code == 1 and "do not say 'dating'" in text and files(alice.ws) == before
    assert_clean_end(raw)
    smaller_memory_budget(alice.ws, 90)
    say(alice.ws, "alice", "note", "She is allergic to cats but keeps Mochi anyway", time="20:01:00")
    stub.replies[:] = [json.dumps(proposal(new_facts=[{"text": "Allergic to cats, keeps Mochi anyway",
                                                       "evidence": ["L2"]}])),
                       json.dumps(compressed(("Owes the user 9000 dollars", ["F1"])))]
    before = files(alice.ws)
    code, raw = finish(spawn(alice.ws.root, "garden"))
    text = " ".join(screen_text(raw).split())
    assert code == 1 and "compression was rejected, so it stays as it was" in text and "9000" in text
    assert files(alice.ws) == before
    assert_clean_end(raw)
