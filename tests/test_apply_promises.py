"""Applying a proposal (memory/proposal/apply.py and workbench.py, issue 29:
mutants that survived): each statement is judged on its own, the good ones
applied and the bad ones refused with their reasons; what changes who
someone is (a told or hand-written line, a relation, a link) is asked
rather than done; `tell` (asking=False) changes the user's lines only
through an open thread; a rejected proposal is put back as it was. Each
test builds the files in memory (no model, no git, no workspace)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal.apply import _carry, apply, close_past_threads
from heartcompass.memory.proposal.model import Proposal, ProposalError
from heartcompass.memory.proposal.workbench import (LogItem, Workbench, as_date, diff_text, events_index, norm,
                                                    restore, snapshot)

TODAY = dt.date(2026, 12, 1)
DAY = "2026-11-30"
FACTS, CHATS, THREADS, ABOUT = memory_fmt.FACTS, memory_fmt.CHATS, memory_fmt.THREADS, memory_fmt.ABOUT_ME


def bench(facts=(), chats=(), threads=(), about=(), events=(), notes: dict[str, list[str]] | None = None,
          relation: str = "friend", hand=frozenset()) -> Workbench:
    body = "".join(f"\n## {section}\n\n" + "".join(f"{x}\n" for x in lines) for section, lines in (notes or {}).items())
    profile = profile_fmt.parse(f"---\nname: Alice Chen\nrelation: {relation}\n---\n\n# Alice Chen\n{body}",
                                Path("PROFILE.md"))
    memory = (f"# Memory — Alice\n\n## {FACTS}\n\n" + "".join(f"{x}\n" for x in facts)
              + f"\n## {CHATS}\n\n" + "".join(f"{x}\n" for x in chats)
              + f"\n## {THREADS}\n\n" + "".join(f"{x}\n" for x in threads)
              + (f"\n## {ABOUT}\n\n" + "".join(f"{x}\n" for x in about) if about else ""))
    evs = events_fmt.parse("# Events — Alice\n\n" + "".join(f"{x}\n" for x in events), Path("EVENTS.md"))
    return Workbench("alice", profile, evs, memory_fmt.parse(memory, Path("MEMORY.md")), set(hand), {"alice", "bob"},
                     TODAY)


def said(*texts: str, speaker: str = "me", day: str = DAY) -> list[LogItem]:
    return [LogItem(f"L{n}", day, dailylog.Entry(f"20:0{n}:00", speaker, text), n - 1)
            for n, text in enumerate(texts, 1)]


def run(wb: Workbench, items: list[LogItem], asking: bool = True, shown=None, **statements):
    return apply(wb, Proposal.model_validate({"summary": "what changed", **statements}), items,
                 list(wb.events.events) if shown is None else shown, asking=asking)


def reasons(verdicts) -> list[str]:
    return [r for refused in verdicts.refused for r in refused.reasons]


# -- the whole ---------------------------------------------------------------------------
def test_a_proposal_over_the_limits_changes_nothing():
    wb = bench()
    with pytest.raises(ProposalError):
        run(wb, said("hiking"), new_facts=[{"text": "Hikes", "evidence": ["L1"]}] * 500)
    assert wb.memory.items(FACTS) == [] and wb.changes == []


def test_one_bad_statement_never_sinks_the_good_ones_and_a_clean_summary_is_kept():
    wb = bench()
    v = run(wb, said("she loves hiking in the Alps"),
            new_facts=[{"text": "Alice loves hiking in the Alps", "evidence": ["L1"]},
                       {"text": "Alice owns a yacht", "evidence": ["L1"]}])
    assert wb.memory.items(FACTS) == [f"- Alice loves hiking in the Alps (log {DAY})"]
    assert v.kept == 1 and [r.kind for r in v.refused] == ["new_facts"] and v.kinds == ["new_facts", "new_facts"]
    assert v.refused[0].statement == {"text": "Alice owns a yacht", "evidence": ["L1"]}
    assert v.summary == "what changed"
    assert wb.changes == [f"+ Facts: Alice loves hiking in the Alps (log {DAY})"]


def test_an_unfit_summary_is_left_out():
    wb = bench()
    v = apply(wb, Proposal.model_validate({"summary": "see https://x.example"}), said("hi"), [])
    assert v.summary == "" and v.refused == [] and v.kept == 0
    v = apply(wb, Proposal.model_validate({"summary": "Alice went hiking"}), said("hi"), [])
    assert v.summary == "Alice went hiking"


def test_every_refusal_names_its_list_and_the_statement_it_refuses():
    """The model's corrected try and garden.log read which statement was
    refused and why: each list's kind and each statement's name."""
    wb = bench(facts=["- Alice works at a bank (log 2026-10-01)"], chats=["- Said hi (log 2026-10-01)"],
               threads=["- Ask about Rome (log 2026-10-01)"], about=["- I like tea (log 2026-10-01)"],
               events=[EVENT], notes={"Likes": ["- Likes jazz (log 2026-10-01)"]})
    v = run(wb, said("hello there"),
            new_events=[{"date": "2026-11-30", "text": "", "weight": 0.5, "evidence": ["L1"]}],
            changed_events=[{"id": "E1", "text": "", "weight": 2.0, "evidence": ["L1"]}], removed_events=["E5"],
            new_facts=[{"text": "", "evidence": ["L1"]}], rewritten_facts=[{"id": "F1", "text": "", "evidence": ["L1"]}],
            removed_facts=["F5"], new_chat_notes=[{"text": "", "evidence": ["L1"]}],
            rewritten_chat_notes=[{"id": "C1", "text": "", "evidence": ["L1"]}], removed_chat_notes=["C5"],
            new_threads=[{"text": "", "evidence": ["L1"]}], rewritten_threads=[{"id": "T1", "text": "", "evidence": ["L1"]}],
            closed_threads=["T5"], new_about_user=[{"text": "", "evidence": ["L1"]}],
            rewritten_about_user=[{"id": "U1", "text": "", "evidence": ["L1"]}], removed_about_user=["U5"],
            profile_fields=[{"field": "mbti", "value": "", "evidence": ["L1"]}],
            profile_notes=[{"section": "Likes", "text": "", "evidence": ["L1"]}],
            rewritten_profile_notes=[{"id": "P1", "text": "", "evidence": ["L1"]}],
            removed_profile_notes=[{"id": "P5", "evidence": ["L1"]}],
            new_links=[{"person": "zed", "relation_words": "her brother", "evidence": ["L1"]}])
    assert v.kept == 0 and v.asked == [] and v.kinds == [r.kind for r in v.refused]
    persona = "chat notes record what the persona said; cite a persona entry"
    assert [(r.kind, r.reasons) for r in v.refused] == [
        ("new_events", ["new event 1: empty text"]),
        ("changed_events", ["event E1: weight 2.0 is outside 0..1",
                            "event E1: neither a new weight nor a corrected text or date"]),
        ("removed_events", ["event 'E5': no such id"]),
        ("new_facts", ["new fact 1: empty text"]),
        ("rewritten_facts", ["facts F1: empty text"]),
        ("removed_facts", ["facts 'F5': no such id"]),
        ("new_chat_notes", ["new chat note 1: empty text", f"new chat note 1: {persona}"]),
        ("rewritten_chat_notes", ["chat_notes C1: empty text", f"chat_notes C1: {persona}"]),
        ("removed_chat_notes", ["chat_notes 'C5': no such id"]),
        ("new_threads", ["new thread 1: empty text"]),
        ("rewritten_threads", ["threads T1: empty text"]),
        ("closed_threads", ["threads 'T5': no such id"]),
        ("new_about_user", ["new line about the user 1: empty text"]),
        ("rewritten_about_user", ["about_user U1: empty text"]),
        ("removed_about_user", ["about_user 'U5': no such id"]),
        ("profile_fields", ["profile field mbti: empty; an MBTI type is four letters, e.g. ENFP"]),
        ("profile_notes", ["profile note for Likes: empty text"]),
        ("rewritten_profile_notes", ["profile note P1: empty text"]),
        ("removed_profile_notes", ["profile note 'P5': no such id"]),
        ("new_links", ["link to zed: not a known person's slug",
                       "link to zed: shares no words with the entries it cites (L1); state only what they say, in "
                       "their words"]),
    ]
    assert v.refused[0].statement == {"date": "2026-11-30", "text": "", "weight": 0.5, "evidence": ["L1"]}
    assert v.refused[2].statement == "E5"


def test_a_statement_complete_in_every_check_but_incomplete_is_refused_as_incomplete():
    wb = bench(events=[EVENT])
    v = run(wb, said("x"), changed_events=[{"id": "E9"}])
    assert reasons(v) == ["event 'E9': no such id"]


# -- events ------------------------------------------------------------------------------
def test_a_new_event_is_added_with_its_date_weight_and_source():
    wb = bench()
    v = run(wb, said("we went hiking yesterday"),
            new_events=[{"date": "2026-11-29", "text": "Went hiking", "weight": 0.456, "evidence": ["L1"]},
                        {"date": "2026-11", "text": "Went hiking", "weight": 0.3, "evidence": ["L1"]}])
    assert [e.render() for e in wb.events.events] == [f"- 2026-11-29 · w0.46 · Went hiking (log {DAY})",
                                                      f"- 2026-11 · w0.3 · Went hiking (log {DAY})"]
    assert v.kept == 2 and v.refused == []


@pytest.mark.parametrize("event, why", [
    ({"date": "2020-01-01", "text": "Went hiking", "weight": 0.5, "evidence": ["L1"]}, "is not a date its entries say"),
    ({"date": "2026-11-29", "text": "Went hiking", "weight": 1.5, "evidence": ["L1"]}, "weight 1.5 is outside 0..1"),
    ({"date": "2026-11-29", "text": "Went hiking", "weight": 0.5, "evidence": []}, "needs evidence"),
    ({"date": "someday", "text": "Went hiking", "weight": 0.5, "evidence": ["L1"]}, "new event 1: "),
    ({"date": "2026-11-29", "text": "", "weight": 0.5, "evidence": ["L1"]}, "empty text"),
])
def test_a_new_event_with_a_bad_date_weight_text_or_evidence_is_refused(event, why):
    wb = bench()
    v = run(wb, said("we went hiking yesterday"), new_events=[event])
    assert wb.events.events == [] and v.kept == 0
    assert any(why in r for r in reasons(v)), reasons(v)
    assert all(r.startswith("new event 1: ") for r in reasons(v))


EVENT = "- 2026-11-02 · w0.4 · Dinner at Luigi's (log 2026-11-02)"


def test_an_event_is_re_weighted_corrected_or_re_dated_on_the_entries_that_say_so():
    wb = bench(events=[EVENT])
    v = run(wb, said("dinner at Luigi's again, on the 3rd actually"),
            changed_events=[{"id": "E1", "weight": 0.7, "evidence": ["L1"]}])
    assert v.kept == 1 and wb.events.events[0].weight == 0.7
    wb = bench(events=[EVENT])
    v = run(wb, said("it was dinner at Mario's, not Luigi's"),
            changed_events=[{"id": "E1", "text": "Dinner at Mario's", "evidence": ["L1"]}])
    assert v.kept == 1 and [e.render() for e in wb.events.events] == [
        f"- 2026-11-02 · w0.4 · Dinner at Mario's (log {DAY})"]
    wb = bench(events=[EVENT])
    v = run(wb, said("the Luigi's dinner was on 2026-11-03"),
            changed_events=[{"id": " E1 ", "date": "2026-11-03", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.events.events[0].date == dt.date(2026, 11, 3)


def test_a_re_weighting_alone_needs_no_entry_but_a_new_text_needs_entries_that_say_it():
    wb = bench(events=[EVENT])
    v = run(wb, said("x"), changed_events=[{"id": "E1", "weight": 0.9}])
    assert v.kept == 1 and wb.events.events[0].weight == 0.9
    wb = bench(events=[EVENT])
    v = run(wb, said("dinner was lovely"),
            changed_events=[{"id": "E1", "text": "Dinner at Mario's place", "evidence": ["L1"]}])
    assert v.kept == 0 and reasons(v) == ["event E1: the new entries it cites (L1) do not say the change (place); "
                                          "a line is rewritten only on entries that say so"]
    v = run(wb, said("dinner was at Mario's"), changed_events=[{"id": "E1", "text": "Dinner at Mario's"}])
    assert v.kept == 0 and reasons(v)[0] == "event E1: needs evidence from the new entries (unknown ids: none given)"


def test_a_new_date_for_a_told_event_is_asked():
    told = "- 2026-11-02 · w0.4 · Dinner at Luigi's (told)"
    wb = bench(events=[told])
    v = run(wb, said("the Luigi's dinner was on 2026-11-03"),
            changed_events=[{"id": "E1", "date": "2026-11-03", "evidence": ["L1"]}])
    assert [q.kind for q in v.asked] == ["rewrite"] and v.kept == 0
    assert v.asked[0].change["new"] == f"- 2026-11-03 · w0.4 · Dinner at Luigi's (log {DAY})"


def test_an_event_change_that_changes_nothing_or_names_no_event_is_refused():
    wb = bench(events=[EVENT])
    v = run(wb, said("dinner"), changed_events=[{"id": "E1"}, {"id": "E9", "weight": 0.5}])
    assert reasons(v) == ["event E1: neither a new weight nor a corrected text or date", "event 'E9': no such id"]
    assert [e.render() for e in wb.events.events] == [EVENT] and v.kept == 0


def test_an_event_date_correction_stands_on_its_entries():
    wb = bench(events=[EVENT])
    v = run(wb, said("dinner at Luigi's was great"),
            changed_events=[{"id": "E1", "date": "2025-01-01", "evidence": ["L1"]}])
    assert v.kept == 0 and any("2025-01-01 is not a date its entries say" in r for r in reasons(v))


def test_a_new_text_for_a_told_event_is_asked_and_tell_changes_it():
    told = "- 2026-11-02 · w0.4 · Dinner at Luigi's (told)"
    statement = [{"id": "E1", "text": "Dinner at Mario's", "weight": 0.6, "date": "2026-11-03", "evidence": ["L1"]}]
    wb = bench(events=[told])
    v = run(wb, said("dinner at Mario's on 2026-11-03, not Luigi's"), changed_events=statement)
    assert v.kept == 0 and len(v.asked) == 1 and [e.render() for e in wb.events.events] == [told]
    q = v.asked[0]
    assert q.kind == "rewrite" and q.reason == "you told this"
    assert q.change == {"file": "EVENTS.md", "section": "", "old": told,
                        "new": f"- 2026-11-03 · w0.6 · Dinner at Mario's (log {DAY})"}
    v = run(wb, said("dinner at Mario's on 2026-11-03, not Luigi's"), asking=False, changed_events=statement)
    assert v.kept == 1 and v.asked == [] and wb.events.events[0].text == "Dinner at Mario's"


def test_a_new_weight_alone_for_a_told_event_is_not_asked():
    told = "- 2026-11-02 · w0.4 · Dinner at Luigi's (told)"
    wb = bench(events=[told])
    v = run(wb, said("dinner at Luigi's again"), changed_events=[{"id": "E1", "weight": 0.8, "evidence": ["L1"]}])
    assert v.asked == [] and v.kept == 1


def test_a_told_events_question_keeps_what_the_change_does_not_say():
    told = "- ~2026-11 · w0.4 · Dinner at Luigi's (told)"
    wb = bench(events=[told])
    v = run(wb, said("it was Mario's not Luigi's"), changed_events=[{"id": "E1", "text": "Dinner at Mario's",
                                                                     "evidence": ["L1"]}])
    assert v.asked[0].change["new"] == f"- ~2026-11 · w0.4 · Dinner at Mario's (log {DAY})"


def test_an_event_is_removed_unless_it_is_the_users_then_removing_it_is_asked():
    wb = bench(events=[EVENT, "- 2026-11-03 · w0.2 · Tea (hand)"])
    v = run(wb, said("x"), removed_events=["E1", "E2", "E7"])
    assert [e.text for e in wb.events.events] == ["Tea"] and v.kept == 1
    assert [q.kind for q in v.asked] == ["removal"] and v.asked[0].reason == "you wrote this line by hand"
    assert reasons(v) == ["event 'E7': no such id"]
    assert wb.changes == [f"- event {EVENT[2:]}"]
    v = run(wb, said("x"), asking=False, removed_events=["E1"])  # `tell`: an open thread asks instead
    assert [e.text for e in wb.events.events] == ["Tea"] and v.asked == [] and v.kept == 1
    assert wb.memory.items(THREADS) == [f'- You wrote "Tea"; does it still hold? (log {DAY})']


def test_the_events_shown_are_the_ones_ids_name():
    wb = bench(events=[EVENT, "- 2026-11-03 · w0.2 · Tea (log 2026-11-03)"])
    v = run(wb, said("x"), shown=[wb.events.events[1]], removed_events=["E1"])
    assert [e.text for e in wb.events.events] == ["Dinner at Luigi's"] and v.kept == 1


# -- memory lines ------------------------------------------------------------------------
def test_each_kind_of_line_goes_to_its_own_section():
    wb = bench()
    v = run(wb, said("she loves hiking") + said("I love hiking too", speaker="persona")[:0],
            new_facts=[{"text": "Alice loves hiking", "evidence": ["L1"]}],
            new_threads=[{"text": "Ask about her hiking", "evidence": ["L1"], "until": "2026-12-24"}],
            new_about_user=[{"text": "I love hiking", "evidence": ["L1"]}])
    assert v.kept == 3, reasons(v)
    assert wb.memory.items(FACTS) == [f"- Alice loves hiking (log {DAY})"]
    assert wb.memory.items(THREADS) == [f"- Ask about her hiking (until 2026-12-24) (log {DAY})"]
    assert wb.memory.items(ABOUT) == [f"- I love hiking (log {DAY})"]


def test_a_chat_note_rests_on_the_persona_and_a_persona_thread_is_kept_as_a_chat_note():
    wb = bench()
    items = said("I adore hiking", speaker="persona")
    v = run(wb, items, new_chat_notes=[{"text": "Said she adores hiking", "evidence": ["L1"]}],
            new_threads=[{"text": "Ask about hiking", "evidence": ["L1"]}])
    assert v.kept == 2, reasons(v)
    assert wb.memory.items(CHATS) == [f"- Said she adores hiking (log {DAY})", f"- Ask about hiking (log {DAY})"]
    assert wb.memory.items(THREADS) == []


def test_a_line_about_the_user_is_refused_on_the_users_own_person():
    wb = bench(relation="self")
    v = run(wb, said("I love hiking"), new_about_user=[{"text": "I love hiking", "evidence": ["L1"]}])
    assert v.kept == 0 and reasons(v)[0].startswith("new_about_user: this is the user's own person")
    assert [r.kind for r in v.refused] == ["new_about_user"]


def test_a_new_lines_refusal_names_its_kind():
    wb = bench()
    v = run(wb, said("x"), new_facts=[{"text": "", "evidence": ["L1"]}], new_chat_notes=[{"text": "", "evidence": ["L1"]}],
            new_about_user=[{"text": "", "evidence": ["L1"]}])
    assert [r.reasons[0] for r in v.refused] == ["new fact 1: empty text", "new chat note 1: empty text",
                                                 "new line about the user 1: empty text"]


def test_a_fact_on_someone_elses_words_reads_as_what_they_said():
    wb = bench()
    v = run(wb, said("I got the job at the bank", speaker="import:Bob"),
            new_facts=[{"text": "Bob got the job at the bank", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.memory.items(FACTS) == [f"- Bob got the job at the bank, Bob said (log {DAY})"]


def test_a_thread_with_a_bad_end_is_refused():
    wb = bench()
    v = run(wb, said("trip to Rome"), new_threads=[{"text": "Ask about Rome", "evidence": ["L1"], "until": "~2027"}])
    assert v.kept == 0 and reasons(v) == ["new thread 1: 'until' is a date or a month, without '~'"]


def test_a_line_is_rewritten_on_entries_that_say_the_change():
    old = "- Alice works at a bank in Lyon (log 2026-10-01)"
    wb = bench(facts=[old])
    v = run(wb, said("she now works at a bakery"), asking=True,
            rewritten_facts=[{"id": "F1", "text": "Alice works at a bakery in Lyon", "evidence": ["L1", "F1"]}])
    assert v.kept == 1, reasons(v)
    assert wb.memory.items(FACTS) == [f"- Alice works at a bakery in Lyon (log {DAY})"]


def test_a_rewrite_of_a_line_in_another_section_or_an_unknown_one_is_refused():
    wb = bench(facts=["- Alice works at a bank (log 2026-10-01)"], chats=["- Said she likes tea (log 2026-10-01)"])
    v = run(wb, said("she likes green tea now"),
            rewritten_facts=[{"id": "C1", "text": "Alice likes green tea", "evidence": ["L1"]},
                             {"id": "F7", "text": "Alice likes green tea", "evidence": ["L1"]}])
    assert v.kept == 0
    assert "C1 is not in Facts" in reasons(v) and "facts 'F7': no such id" in reasons(v)


def test_a_rewrite_of_a_told_line_is_asked_and_tell_turns_it_into_a_thread():
    told = "- Alice works at a bank in Lyon (told)"
    statement = [{"id": "F1", "text": "Alice works at a bakery in Lyon", "evidence": ["L1", "F1"]}]
    wb = bench(facts=[told])
    v = run(wb, said("she now works at a bakery"), rewritten_facts=statement)
    assert v.kept == 0 and [q.kind for q in v.asked] == ["rewrite"]
    assert v.asked[0].change == {"file": "MEMORY.md", "section": FACTS, "old": told,
                                 "new": f"- Alice works at a bakery in Lyon (log {DAY})"}
    assert wb.memory.items(FACTS) == [told]
    v = run(wb, said("she now works at a bakery"), asking=False, rewritten_facts=statement)
    assert v.kept == 1 and v.asked == []


def test_a_rewritten_fact_on_someone_elses_words_reads_as_what_they_said():
    old = "- Bob works at a bank (log 2026-10-01)"
    wb = bench(facts=[old])
    v = run(wb, said("I work at the bakery now", speaker="import:Bob"),
            rewritten_facts=[{"id": "F1", "text": "Bob works at the bakery", "evidence": ["L1", "F1"]}])
    assert v.kept == 1, reasons(v)
    assert wb.memory.items(FACTS) == [f"- Bob works at the bakery, Bob said (log {DAY})"]


def test_a_rewritten_thread_keeps_its_end_unless_it_gives_one():
    old = "- Ask about the Rome trip (until 2026-12-20) (log 2026-11-01)"
    wb = bench(threads=[old])
    v = run(wb, said("the Rome trip moved to spring, the flight is booked"),
            rewritten_threads=[{"id": "T1", "text": "Ask about the Rome trip and flight", "evidence": ["L1", "T1"]}])
    assert v.kept == 1, reasons(v)
    assert wb.memory.items(THREADS) == [f"- Ask about the Rome trip and flight (until 2026-12-20) (log {DAY})"]
    wb = bench(threads=[old])
    v = run(wb, said("the Rome trip moved to January, the flight is booked"),
            rewritten_threads=[{"id": "T1", "text": "Ask about the Rome trip and flight", "evidence": ["L1", "T1"],
                                "until": "2027-01"}])
    assert v.kept == 1 and wb.memory.items(THREADS) == [
        f"- Ask about the Rome trip and flight (until 2027-01) (log {DAY})"]


def test_a_line_is_removed_a_thread_closed_and_a_users_line_asked():
    wb = bench(facts=["- Alice works at a bank (log 2026-10-01)", "- Alice likes tea (told)"],
               threads=["- Ask about Rome (log 2026-10-01)"])
    v = run(wb, said("x"), removed_facts=["F1", "F2", "T1"], closed_threads=["T1", "T5"])
    assert wb.memory.items(FACTS) == ["- Alice likes tea (told)"] and wb.memory.items(THREADS) == []
    assert [q.kind for q in v.asked] == ["removal"] and v.asked[0].reason == "you told this"
    assert "T1 is not in Facts" in reasons(v) and "threads 'T5': no such id" in reasons(v)
    assert [r.kind for r in v.refused] == ["removed_facts", "closed_threads"]
    assert wb.changes == ["- Facts: Alice works at a bank (log 2026-10-01)",
                          "✓ closed Open threads: Ask about Rome (log 2026-10-01)"]


def test_a_told_line_merged_into_a_rewrite_goes_without_a_question_when_tell_removes_it():
    told = "- Alice moved to Berlin in spring for her new job (told)"
    other = "- Alice works at a bank (log 2026-10-01)"
    wb = bench(facts=[other, told])
    v = run(wb, said("she works at a bank in Berlin, moved there in spring for the job"), asking=False,
            rewritten_facts=[{"id": "F1", "text": "Alice moved to Berlin in spring for her new job at a bank",
                              "evidence": ["L1", "F1", "F2"]}],
            removed_facts=["F2"])
    assert v.kept == 2, reasons(v)
    assert wb.memory.items(FACTS) == [f"- Alice moved to Berlin in spring for her new job at a bank (log {DAY})"]
    assert wb.memory.items(THREADS) == []


def test_a_told_line_merged_into_a_rewrite_is_removed_without_a_question():
    told = "- Alice moved to Berlin in spring for her new job (told)"
    wb = bench(facts=["- Alice works at a bank (log 2026-10-01)", told])
    v = run(wb, said("she works at a bank in Berlin, moved there in spring for the job"),
            rewritten_facts=[{"id": "F1", "text": "Alice moved to Berlin in spring for her new job at a bank",
                              "evidence": ["L1", "F1", "F2"]}],
            removed_facts=["F2"])
    assert v.kept == 2 and v.asked == [], (reasons(v), v.asked)
    wb = bench(facts=["- Alice works at a bank (log 2026-10-01)", told])
    v = run(wb, said("she works at a big bank"),
            rewritten_facts=[{"id": "F1", "text": "Alice works at a big bank", "evidence": ["L1", "F1"]}],
            removed_facts=["F2"])
    assert v.kept == 1 and [q.reason for q in v.asked] == ["you told this"]


def test_a_new_fact_may_rest_on_a_past_thread_and_a_thread_on_someone_elses_words_is_not_reported():
    wb = bench(threads=["- Trip to Rome with Bob (until 2026-11-10) (log 2026-11-01)"])
    v = run(wb, said("nothing"), new_facts=[{"text": "Alice went on a trip to Rome with Bob", "evidence": ["T1"]}])
    assert v.kept == 1, reasons(v)
    assert wb.memory.items(FACTS) == ["- Alice went on a trip to Rome with Bob (log 2026-11-01)"]
    wb = bench()
    v = run(wb, said("I start the new job on Monday", speaker="import:Bob"),
            new_threads=[{"text": "Ask Bob about the new job", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.memory.items(THREADS) == [f"- Ask Bob about the new job (log {DAY})"]


def test_a_removed_line_raises_its_thread_on_the_newest_entry_day():
    wb = bench(facts=["- Alice likes tea (told)"])
    items = said("x", day="2026-11-20") + [LogItem("L2", "2026-11-29", dailylog.Entry("20:00:00", "me", "y"), 1),
                                          LogItem("L3", "2026-11-25", dailylog.Entry("20:00:00", "me", "z"), 2)]
    run(wb, items, asking=False, removed_facts=["F1"])
    assert wb.memory.items(THREADS) and wb.memory.items(THREADS)[0].endswith("(log 2026-11-29)")


def test_a_boundary_or_a_told_profile_line_is_the_persons_own_to_change():
    wb = bench(notes={"Boundaries": ["- No calls after ten (log 2026-10-01)"], "Likes": ["- Likes tea (told)"]})
    v = run(wb, said("no calls after nine now, and she likes green tea"),
            rewritten_profile_notes=[{"id": "P1", "text": "No calls after nine", "evidence": ["L1", "P1"]}],
            removed_profile_notes=[{"id": "P2", "evidence": ["L1"]}])
    assert [q.reason for q in v.asked] == ["a boundary is the person's own", "you told this"], reasons(v)


def test_carry_records_which_lines_of_the_same_section_a_statement_cites():
    carried: dict[str, list[str]] = {}
    mem_ids = {"F1": (FACTS, "- a"), "F2": (FACTS, "- b"), "T1": (THREADS, "- c")}
    _carry(carried, mem_ids, FACTS, [" F1", "T1", "L1", "F2"], "merged")
    _carry(carried, mem_ids, FACTS, ["F1"], "again")
    assert carried == {"F1": ["merged", "again"], "F2": ["merged"]}


# -- the profile -------------------------------------------------------------------------
def test_a_profile_field_is_set_or_asked():
    wb = bench()
    v = run(wb, said("her MBTI is ENFP"), profile_fields=[{"field": "mbti", "value": "ENFP", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.profile.doc.meta["mbti"] == "ENFP"
    v = run(wb, said("we are dating now"), profile_fields=[{"field": "relation", "value": "dating",
                                                            "evidence": ["L1"]}])
    assert v.kept == 0 and [q.kind for q in v.asked] == ["field"] and wb.profile.relation == "friend"
    v = run(wb, said("we are dating now"), asking=False,
            profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.profile.relation == "dating"


def test_a_profile_field_without_evidence_or_value_is_refused():
    wb = bench()
    v = run(wb, said("her MBTI is ENFP"), profile_fields=[{"field": "mbti", "value": "ENFP", "evidence": []},
                                                         {"field": "mbti", "value": "", "evidence": ["L1"]}])
    assert v.kept == 0 and [r.kind for r in v.refused] == ["profile_fields", "profile_fields"]
    assert "mbti" not in wb.profile.doc.meta


def test_a_profile_note_goes_to_a_known_section():
    wb = bench()
    v = run(wb, said("she loves jazz"), profile_notes=[{"section": "Likes", "text": "Loves jazz", "evidence": ["L1"]},
                                                       {"section": "Hobbies", "text": "Loves jazz", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.profile.notes() == [("Likes", f"- Loves jazz (log {DAY})")]
    assert reasons(v) == ["profile note for Hobbies: unknown section (use "
                          f"{', '.join(profile_fmt.BODY_SECTIONS)})"]


def test_a_profile_note_in_the_persons_own_section_is_kept():
    wb = bench(notes={"Music": ["- Plays piano (log 2026-10-01)"]})
    v = run(wb, said("she loves jazz"), profile_notes=[{"section": "Music", "text": "Loves jazz", "evidence": ["L1"]}])
    assert v.kept == 1, reasons(v)


def test_a_profile_note_is_rewritten_or_its_rewrite_asked():
    wb = bench(notes={"Likes": ["- Likes jazz (log 2026-10-01)", "- Likes tea (told)"]})
    v = run(wb, said("she loves jazz and blues now, and green tea"),
            rewritten_profile_notes=[{"id": "P1", "text": "Likes jazz and blues", "evidence": ["L1", "P1"]},
                                     {"id": "P2", "text": "Likes green tea", "evidence": ["L1", "P2"]},
                                     {"id": "P9", "text": "Likes jazz", "evidence": ["L1"]}])
    assert v.kept == 1, reasons(v)
    assert [q.kind for q in v.asked] == ["rewrite"] and v.asked[0].change["old"] == "- Likes tea (told)"
    assert v.asked[0].change["new"] == f"- Likes green tea (log {DAY})"
    assert reasons(v) == ["profile note 'P9': no such id"]
    assert wb.profile.notes() == [("Likes", f"- Likes jazz and blues (log {DAY})"), ("Likes", "- Likes tea (told)")]
    v = run(wb, said("green tea now"), asking=False,
            rewritten_profile_notes=[{"id": "P2", "text": "Likes green tea", "evidence": ["L1", "P2"]}])
    assert v.kept == 1 and ("Likes", f"- Likes green tea (log {DAY})") in wb.profile.notes()


def test_removing_a_profile_note_is_always_asked_and_tell_removes_it():
    wb = bench(notes={"Likes": ["- Likes jazz (log 2026-10-01)"]})
    v = run(wb, said("she hates jazz now"), removed_profile_notes=[{"id": "P1", "evidence": ["L1"]}, "P4"])
    assert [q.reason for q in v.asked] == ["a profile line says who someone is"] and v.kept == 0
    assert reasons(v) == ["profile note 'P4': no such id"]
    v = run(wb, said("haha"), removed_profile_notes=[{"id": "P1", "evidence": ["L1"]}])
    assert v.asked == [] and v.kept == 0 and "shares no words" in reasons(v)[0]
    v = run(wb, said("she hates jazz now"), asking=False, removed_profile_notes=[{"id": "P1", "evidence": ["L1"]}])
    assert v.kept == 1 and wb.profile.notes() == []


def test_a_link_to_a_known_person_is_asked_and_tell_adds_it():
    wb = bench()
    link = {"person": "bob", "relation_words": "her brother", "evidence": ["L1"]}
    v = run(wb, said("Bob is her brother"), new_links=[link, {**link, "person": "zed"}, {**link, "person": "alice"}])
    assert [q.kind for q in v.asked] == ["link"] and v.kept == 0
    assert reasons(v).count("link to zed: not a known person's slug") == 1
    assert "link to alice: not a known person's slug" in reasons(v)
    v = run(wb, said("Bob is her brother"), asking=False, new_links=[link])
    assert v.kept == 1 and wb.changes[-1] == "+ profile related: bob (her brother)"


# -- past threads, snapshots, diffs --------------------------------------------------------
def test_past_threads_close_but_the_users_own_stay():
    past, hand, still = ("- Ask about Rome (until 2026-11-10) (log 2026-11-01)",
                         "- Ask about Oslo (until 2026-11-10) (hand)",
                         "- Ask about Paris (until 2026-12-20) (log 2026-11-01)")
    wb = bench(threads=[past, hand, still])
    close_past_threads(wb, dt.date(2026, 11, 11))
    assert wb.memory.items(THREADS) == [hand, still]
    assert wb.changes == ["✓ past Open threads: Ask about Rome (until 2026-11-10) (log 2026-11-01)"]
    close_past_threads(wb, dt.date(2026, 11, 10))  # the last day is still open
    assert wb.memory.items(THREADS) == [hand, still]


def test_a_rejected_proposal_is_put_back_as_it_was():
    wb = bench(facts=["- Alice likes tea (log 2026-10-01)"], events=[EVENT])
    wb.profile.doc.meta["tags"] = ["a"]
    snap = snapshot(wb)
    wb.memory.sections[FACTS].append("- extra")
    wb.profile.doc.meta["tags"].append("b")
    wb.profile.doc.body += "x"
    event = wb.events.events[0]
    wb.event_undo.append((event, events_fmt.Event(event.date, event.text, event.weight, event.source)))
    event.text, event.weight = "changed", 0.9
    wb.events.events.append(events_fmt.Event(TODAY, "new", 0.5, "log"))
    wb.changes.append("+ something")
    wb.counts["events_added"] += 1
    restore(wb, snap)
    assert wb.memory.items(FACTS) == ["- Alice likes tea (log 2026-10-01)"]
    assert wb.profile.doc.meta["tags"] == ["a"] and not wb.profile.doc.body.endswith("x")
    assert [e.render() for e in wb.events.events] == [EVENT]
    assert wb.changes == [] and wb.counts == {"events_added": 0, "events_changed": 0} and wb.event_undo == []


def test_a_diff_is_what_git_diff_shows():
    assert diff_text("a\nb\n", "a\nc\n", "MEMORY.md") == "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert diff_text("same\n", "same\n", "x") == ""


def test_sameness_ignores_spacing_and_case():
    assert norm("  Hiked   Mount\tTAKAO ") == "hiked mount takao"


def test_only_a_real_iso_day_is_a_date():
    assert as_date("2026-11-30") == dt.date(2026, 11, 30)
    assert as_date("2026-11-31") is None and as_date("20261130") is None and as_date(None) is None


def test_the_events_index_is_kept_and_rebuilt_when_the_list_changes():
    wb = bench(events=[EVENT])
    assert events_index(wb) is None
    idx = events_index(wb, 30.0)
    assert events_index(wb, 30.0) is idx and events_index(wb) is idx
    assert events_index(wb, 60.0) is not idx
    wb.events.events = list(wb.events.events)
    assert events_index(wb) is None and wb.event_index is None


# -- reading a person from a workspace ----------------------------------------------------
from heartcompass.errors import FormatError  # noqa: E402
from heartcompass.store.config import set_value  # noqa: E402
from heartcompass.store.lifecycle import add_person  # noqa: E402
from heartcompass.store.people import list_people  # noqa: E402
from heartcompass.memory.proposal.workbench import name_index, read_person, render_texts, workbench  # noqa: E402


def test_a_person_is_read_as_on_disk_and_a_missing_events_or_memory_file_starts_new(ws):
    alice = add_person(ws, "Alice Chen", "friend")
    originals, prof, evs, mem = read_person(alice)
    assert originals == {p: p.read_text("utf-8") for p in alice.files()}
    assert prof.name == "Alice Chen" and evs.path == alice.events_path and mem.path == alice.memory_path
    alice.events_path.unlink()
    alice.memory_path.unlink()
    originals, prof, evs, mem = read_person(alice)
    assert originals[alice.events_path] is None and originals[alice.memory_path] is None
    assert events_fmt.render(evs) == events_fmt.render(events_fmt.new(alice.events_path, "Alice Chen"))
    assert memory_fmt.render(mem) == memory_fmt.render(memory_fmt.new(alice.memory_path, "Alice Chen"))


def test_a_person_whose_profile_is_gone_is_an_error_that_says_how_to_bring_it_back(ws):
    alice = add_person(ws, "Alice Chen", "friend")
    alice.profile_path.unlink()
    with pytest.raises(FormatError) as caught:
        read_person(alice)
    assert caught.value.path == alice.profile_path
    assert "the file is missing: a person's folder needs its PROFILE.md" in caught.value.message
    assert "git checkout -- people/alice-chen/PROFILE.md" in str(caught.value)
    assert "heartcompass person archive alice-chen" in str(caught.value)


def test_the_known_people_are_the_ones_the_entries_and_files_mention_and_their_links(ws):
    dan = add_person(ws, "Dan Oak", "family")
    erin = add_person(ws, "Erin Ash", "friend")
    add_person(ws, "Carol Fir", "friend", related=[{"person": erin.slug, "as": "her sister"}])
    add_person(ws, "Bob Stone", "friend", aliases=["Bobby"])
    add_person(ws, "Q", "friend")  # a name of one letter matches nothing
    alice = add_person(ws, "Alice Chen", "friend", related=[{"person": dan.slug, "as": "her brother"}])
    people = list_people(ws)
    _, prof, evs, mem = read_person(alice)
    index = name_index(people, ws)
    assert index["bob-stone"] == (["bob-stone", "bob stone", "bobby"], [])
    assert index["carol-fir"][1] == [erin.slug] and "q" not in index["q"][0]
    base = workbench(ws, alice, prof, evs, mem, TODAY, people=people, mentions="nothing", names=lambda: index)
    assert dan.slug in base.known_slugs and not {"bob-stone", "carol-fir", erin.slug, "q"} & base.known_slugs
    wb = workbench(ws, alice, prof, evs, mem, TODAY, people=people, mentions="Saw BOBBY and carol fir today",
                   names=lambda: index)
    assert wb.known_slugs == base.known_slugs | {"bob-stone", "carol-fir", erin.slug}
    everyone = workbench(ws, alice, prof, evs, mem, TODAY)
    assert everyone.known_slugs == {p.slug for p in people}
    unnamed = workbench(ws, alice, prof, evs, mem, TODAY, people=people, mentions="Bobby", names=None)
    assert unnamed.known_slugs == {dan.slug}  # without the index, only the person's own links
    assert wb.slug == "alice-chen" and wb.today == TODAY and wb.protected == set()


def test_a_workbench_knows_each_persons_names_and_whose_an_alias_is(ws):
    set_value(ws.config_path, "user.name", "Sam")
    ws.reload_config()
    add_person(ws, "Bob Stone", "friend", aliases=["Bobby"])
    alice = add_person(ws, "Alice Chen", "friend")
    wb = workbench(ws, alice, *read_person(alice)[1:], TODAY)
    assert wb.user_names == ("Sam",)
    assert wb.names_of("bob-stone") == ["Bob Stone", "Bobby", "bob-stone"]
    assert wb.names_of("me") == ["Me", "me", "me", "my", "i", "i'm", "myself", "我", "Sam"]  # the user's own person
    assert wb.names_of("nobody") == ["nobody"]
    assert wb.alias_owner("Bobby") and wb.alias_owner("Sam")
    assert wb.alias_owner("Lissy") is None and wb.alias_owner("Alice Chen") is None  # her own name
    set_value(ws.config_path, "user.name", " ")
    ws.reload_config()
    assert workbench(ws, alice, *read_person(alice)[1:], TODAY).user_names == ()


def test_the_new_texts_must_parse_or_nothing_is_written(ws):
    alice = add_person(ws, "Alice Chen", "friend")
    wb = workbench(ws, alice, *read_person(alice)[1:], TODAY)
    wb.memory.sections[FACTS].append("- Alice likes tea (log 2026-11-30)")
    texts = render_texts(alice, wb)
    assert set(texts) == set(alice.files())
    assert "- Alice likes tea (log 2026-11-30)" in texts[alice.memory_path]
    assert texts[alice.profile_path] == alice.profile_path.read_text("utf-8")
    del wb.memory.sections[FACTS]
    with pytest.raises(ProposalError) as caught:
        render_texts(alice, wb)
    assert caught.value.problems[0].startswith("the result would not parse: ")


def test_the_users_lines_come_from_the_history_and_blob_ids_the_garden_already_read(ws, monkeypatch):
    """The garden reads the history once for everyone and each person's blob
    ids at HEAD (issue 32: at 1,000 people, no git per person): the workbench
    marks the user's lines from them without git, and the next time the
    person's files are unchanged their lines come from the cache, again
    without git."""
    from conftest import git
    from heartcompass.memory.hand_lines import hand_history

    from heartcompass.store.people import create

    alice = create(ws, "Alice Chen", "friend")
    mine = "- 周末喜欢去爬山,不吃香菜"
    alice.memory_path.write_text(alice.memory_path.read_text("utf-8") + mine + "\n", "utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "import my old notes")  # the user's own bulk commit: every line theirs, no blame
    history, heads = hand_history(ws)[alice.slug], ws.git.blob_ids(alice.files())
    asked: list[str] = []
    for name in ("log", "blame", "file_at"):
        monkeypatch.setattr(ws.git, name, lambda *a, name=name, **k: asked.append(name) or [])
    first = workbench(ws, alice, *read_person(alice)[1:], TODAY, heads=heads, history=history)
    again = workbench(ws, alice, *read_person(alice)[1:], TODAY, heads=heads)
    assert mine in first.protected and again.protected == first.protected
    assert asked == []


def test_a_workbench_knows_only_the_people_it_is_given(ws):
    """The people a caller already listed are the known ones (the garden lists
    them once for everyone): none it left out comes back."""
    add_person(ws, "Bob Stone", "friend")
    alice = add_person(ws, "Alice Chen", "friend")
    given = [p for p in list_people(ws) if p.slug != "bob-stone"]
    wb = workbench(ws, alice, *read_person(alice)[1:], TODAY, people=given)
    assert wb.known_slugs == {p.slug for p in given} and "alice-chen" in wb.known_slugs


def test_the_user_has_no_names_until_they_set_one(ws):
    """Without user.name the user is called by no name of theirs (no made-up one)."""
    alice = add_person(ws, "Alice Chen", "friend")
    assert ws.config.get("user.name") in (None, "")
    wb = workbench(ws, alice, *read_person(alice)[1:], TODAY)
    assert wb.user_names == () and wb.slug == "alice-chen"


def test_a_two_letter_name_is_indexed_and_a_broken_profile_leaves_out_only_itself(ws):
    """陆琳 (two characters, as many Chinese names are) is a name to match; a
    profile that does not parse leaves out that person alone, never the
    people listed after it."""
    broken = add_person(ws, "Aaron Broken", "friend")
    add_person(ws, "陆琳", "friend")
    add_person(ws, "Zoe Ash", "friend")
    broken.profile_path.write_text("---\nname: [unclosed\n---\n", "utf-8")
    people = list_people(ws)
    assert people[0].slug == broken.slug  # the broken one is listed first
    index = name_index(people, ws)
    assert broken.slug not in index and "zoe-ash" in index
    assert "陆琳" in next(names for names, _ in index.values() if "陆琳" in names)
