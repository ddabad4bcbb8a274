"""Asking the model (memory/proposal/presentation.py, propose.py and
compression.py, issue 29): what it is shown (every line with its id, the
user's own lines and past threads marked, each entry marked trusted or
not); one correction round for the refused lines alone; one more try after
an answer that could not be read, then an error in words; a compression of
MEMORY.md applied only when every check passes and it fits. The model is
tests/fakes.py's FakeChat; the files are in memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from pydantic import Field

from fakes import FakeChat
from heartcompass.errors import LLMError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.llm.failures import TruncatedOutput
from heartcompass.memory.proposal import lazy
from heartcompass.memory.proposal.compression import apply_compression, check_compression
from heartcompass.memory.proposal.limits import over_limits
from heartcompass.memory.proposal.model import Compressed, Kept, Proposal, ProposalError
from heartcompass.memory.proposal.presentation import (PAST, _shown_by_walk, entries_now, present, present_memory,
                                                       shown_events)
from heartcompass.memory.proposal.propose import (ChunkTooLong, answer_bound, correction_request, fit_budget,
                                                  propose)
from heartcompass.memory.proposal.verdicts import Refused, Verdicts
from heartcompass.memory.proposal.workbench import LogItem, Workbench
from heartcompass.store.config import set_value

TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def ws(tmp_path):
    """A workspace's settings and prompts without its git (nothing here commits): fast for every mutant."""
    from heartcompass.store.creation import copy_template
    from heartcompass.store.workspace import Workspace

    root = tmp_path / "brain"
    root.mkdir()
    copy_template(root)
    return Workspace(root)
FACTS, THREADS = memory_fmt.FACTS, memory_fmt.THREADS
PROFILE = """---
name: Alice
relation: friend
mbti: ENFP
tags: []
---

# Alice

## Likes

- Green tea (log 2026-11-02)
- Hiking (hand)

## Dislikes

## People in their life

- [m1] Sara (daughter): Plays the violin (log 2026-11-02)
"""


def bench(facts=(), threads=(), about=(), events=(), hand=frozenset(), budget: int = 6000,
          known=("alice", "bob")) -> Workbench:
    memory = (f"---\nbudget_tokens: {budget}\n---\n\n# Memory — Alice\n\n## {FACTS}\n\n" + "".join(f"{x}\n" for x in facts)
              + f"\n## {memory_fmt.CHATS}\n\n## {THREADS}\n\n" + "".join(f"{x}\n" for x in threads)
              + (f"\n## {memory_fmt.ABOUT_ME}\n\n" + "".join(f"{x}\n" for x in about) if about else ""))
    evs = "# Events — Alice\n\n" + "".join(f"{x}\n" for x in events)
    return Workbench("alice", profile_fmt.parse(PROFILE, Path("PROFILE.md")), events_fmt.parse(evs, Path("EVENTS.md")),
                     memory_fmt.parse(memory, Path("MEMORY.md")), set(hand), set(known), TODAY)


def said(*entries: tuple[str, str, str]) -> list[LogItem]:
    """(day, speaker, text) each."""
    return [LogItem(f"L{n}", day, dailylog.Entry(f"20:0{n}:00", who, text), n - 1)
            for n, (day, who, text) in enumerate(entries, 1)]


# -- what the model is shown ------------------------------------------------------------
def test_the_model_sees_every_line_by_id_and_the_users_own_lines_marked():
    wb = bench(facts=["- Likes tea (log 2026-11-02)", "- Allergic to nuts (hand)"],
               threads=["- Ask about Lyon (until 2026-11-15) (log 2026-11-02)", "- Ask about the cat (log 2026-11-02)"],
               about=["- I moved to Paris (log 2026-11-02)"],
               events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (hand)", "- 2026-11-20 · w0.5 · Dinner (log 2026-11-20)"])
    items = said(("2026-11-30", "me", "she lent me 500 euros\nfor the deposit"), ("2026-11-30", "persona", "hi!"))
    text = present(wb, items, wb.events.events)
    assert text.splitlines()[:5] == ["Today: 2026-12-01", "", "## PROFILE.md of Alice (slug alice)", "relation: friend",
                                     "mbti: ENFP"]
    assert "tags:" not in text  # an empty value is not shown
    for line in ("### Likes", "P1 - Green tea (log 2026-11-02)", "P2 - Hiking (hand)   [hand-written]",
                 "### Dislikes", "(empty)", "M1 - [m1] Sara (daughter): Plays the violin (log 2026-11-02)",
                 "## EVENTS.md (most relevant; id, then the line)",
                 "E1 - 2026-11-28 · w0.5 · Hiked Mount Takao (hand)   [hand-written]",
                 "E2 - 2026-11-20 · w0.5 · Dinner (log 2026-11-20)", "F1 - Likes tea (log 2026-11-02)",
                 "F2 - Allergic to nuts (hand)   [hand-written]", f"### {memory_fmt.CHATS}",
                 f"T1 - Ask about Lyon (until 2026-11-15) (log 2026-11-02){PAST}",
                 "T2 - Ask about the cat (log 2026-11-02)", "U1 - I moved to Paris (log 2026-11-02)",
                 "## Known people (slugs): bob", "## New log entries to consolidate",
                 "L1 [2026-11-30 20:01 · me · trusted: the user] she lent me 500 euros / for the deposit",
                 "L2 [2026-11-30 20:02 · persona · UNTRUSTED: said by the simulated persona] hi!"):
        assert line in text.splitlines(), line
    assert text.index("### Likes") < text.index("P1 ") < text.index("### Dislikes") < text.index("M1 ")
    assert f"### {memory_fmt.CHATS}\n(none)" in text
    assert f"## MEMORY.md (budget 6000 tokens, now {wb.memory.body_tokens()})" in text


def test_a_person_with_nothing_yet_is_shown_as_empty_not_left_out():
    wb = bench(known=("alice",))
    text = present(wb, [], [])
    assert "## EVENTS.md (most relevant; id, then the line)\n(none)" in text
    assert f"### {FACTS}\n(none)" in text and "## Known people (slugs): (none)" in text
    assert text.endswith("## New log entries to consolidate")


def test_what_a_hand_edit_hides_never_reaches_the_model():
    wb = bench(facts=["- Likes tea\u202e (log 2026-11-02)"])
    text = present(wb, said(("2026-11-30", "me", "hi\u200b there")), [])
    assert "\u202e" not in text and "\u200b" not in text and "F1 - Likes tea" in text


def test_the_compressor_sees_every_line_by_id_and_is_told_the_users_lines_stay():
    wb = bench(facts=["- Likes tea (log 2026-11-02)", "- Allergic to nuts (hand)"], budget=50)
    text = present_memory(wb)
    assert text.splitlines()[:3] == ["Today: 2026-12-01", "", f"## MEMORY.md (budget 50 tokens, now "
                                                              f"{wb.memory.body_tokens()})"]
    assert "F1 - Likes tea (log 2026-11-02)\nF2 - Allergic to nuts (hand)   [hand-written: kept as it is; do not " \
           "list it]" in text
    assert f"### {memory_fmt.CHATS}\n(none)" in text and "\u202e" not in present_memory(
        bench(facts=["- Likes tea\u202e (log 2026-11-02)"]))


def test_a_conversation_is_gardened_as_of_its_newest_day_never_after_today():
    assert entries_now(said(("2026-10-01", "me", "a"), ("2026-10-03", "me", "b"), ("junk", "me", "c")), TODAY) == \
        dt.date(2026, 10, 3)
    assert entries_now(said(("2027-01-01", "me", "a")), TODAY) == TODAY
    assert entries_now([], TODAY) == TODAY and entries_now(said(("junk", "me", "c")), TODAY) == TODAY


def test_the_events_shown_are_the_best_within_the_budget_plus_those_of_the_days_talked_about():
    lines = [f"- 2026-11-{d:02d} · w{w} · Event on day {d} (log 2026-11-{d:02d})"
             for d, w in ((28, 0.9), (27, 0.8), (26, 0.7), (2, 0.1))]
    wb = bench(events=lines)
    items = said(("2026-11-02", "me", "remember that day?"))
    shown = shown_events(wb, items, 30, 90.0)
    assert [e.date.day for e in shown] == [28, 2]  # one fits the budget, the day talked about is added
    assert shown == _shown_by_walk(wb, items, 30, 90.0)
    assert [e.date.day for e in _shown_by_walk(wb, [], 1000, 90.0)] == [28, 27, 26, 2]
    assert _shown_by_walk(wb, [], 0, 90.0) == []


# -- room to answer ---------------------------------------------------------------------
def test_room_to_answer_grows_with_the_chunk_within_its_bounds():
    one = said(("2026-11-30", "me", "hi"))
    assert answer_bound(one) == 2048  # the least
    long = said(*[("2026-11-30", "me", "她借了我五百块钱付房子的押金" * 10)] * 9)
    assert 2048 < answer_bound(long) < 16384
    assert answer_bound(said(*[("2026-11-30", "me", "word " * 2000)] * 9)) == 16384  # the most


def test_the_correction_request_lists_only_the_refused_lines_with_their_reasons():
    verdicts = Verdicts(kept=1, refused=[Refused("new_facts", {"text": "Lent 5000"}, ["5000 is not in L1"]),
                                         Refused("removed_facts", "F9", ["no such id"])])
    text = correction_request(verdicts)
    assert text.startswith("Your proposal on these entries was applied except 2 line(s), rejected with these "
                           "reasons:\n- new_facts {\"text\": \"Lent 5000\"} -- 5000 is not in L1\n"
                           "- removed_facts \"F9\" -- no such id\n")
    assert "leave out any line the entries do not support" in text


# -- a proposal and its correction ------------------------------------------------------
DEPOSIT = ("2026-11-30", "me", "she lent me 500 euros for the flat deposit")
GOOD = {"text": "Lent the user 500 euros for the deposit", "evidence": ["L1"]}
BAD = {"text": "Lent the user 5000 euros", "evidence": ["L1"]}


def answer(**lists) -> dict:
    return {"summary": "consolidated", **lists}


def texts(model: FakeChat, purpose: str) -> list[str]:
    """Each message of the request for `purpose`, as text."""
    return [str(m.content) for m in model.request(purpose).messages]


def test_a_refused_line_goes_back_once_alone_and_its_correction_is_kept(ws):
    wb, model = bench(), FakeChat().enqueue(answer(new_facts=[GOOD, BAD]), answer(new_facts=[
        {"text": "Lent the user 500 euros", "evidence": ["L1"]}]))
    verdicts = propose(ws, model, wb, said(DEPOSIT))
    assert model.purposes == ["garden", "garden.correction"]
    assert verdicts.kept == 2 and verdicts.refused == [] and [r.statement for r in verdicts.answered] == [BAD]
    assert wb.memory.items(FACTS) == ["- Lent the user 500 euros for the deposit (log 2026-11-30)",
                                      "- Lent the user 500 euros (log 2026-11-30)"]
    correction = texts(model, "garden.correction")
    assert "Alice" in correction[0] and "F1 - Lent the user 500 euros for the deposit" in correction[1]
    assert correction[2] == correction_request(Verdicts(refused=[Refused("new_facts", BAD, [
        "new fact 2: 5000 does not appear in the entries it cites (L1); numbers, amounts and dates must come from "
        "them"])]))
    assert len(correction) == 3


def test_a_proposal_with_nothing_refused_asks_no_correction_and_closes_past_threads(ws):
    wb = bench(threads=["- Ask about Lyon (until 2026-11-15) (log 2026-11-02)", "- Ask about Rome (until 2026-11-15) "
                        "(hand)", "- Ask about the cat (log 2026-11-02)"])
    model = FakeChat().enqueue(answer(new_facts=[GOOD]))
    verdicts = propose(ws, model, wb, said(DEPOSIT))
    assert model.purposes == ["garden"] and verdicts.kept == 1
    assert wb.memory.items(THREADS) == ["- Ask about Rome (until 2026-11-15) (hand)", "- Ask about the cat (log 2026-11-02)"]
    assert f"✓ past {THREADS}: Ask about Lyon (until 2026-11-15) (log 2026-11-02)" in wb.changes


def test_a_correction_that_cannot_be_used_leaves_the_refused_lines_refused_with_why(ws):
    wb, model = bench(), FakeChat().enqueue(answer(new_facts=[GOOD, BAD]), "not json")
    verdicts = propose(ws, model, wb, said(DEPOSIT))
    assert verdicts.kept == 1 and [r.statement for r in verdicts.refused] == [BAD]
    assert verdicts.refused[0].reasons[-1] == "its correction was not usable (the model's answer was not the JSON " \
                                              "asked for)"
    wb, model = bench(), FakeChat().enqueue(answer(new_facts=[GOOD, BAD]), answer(new_facts=[GOOD] * 21))
    verdicts = propose(ws, model, wb, said(DEPOSIT))
    assert verdicts.refused[0].reasons[-1] == ("its correction was not usable (new_facts: 21 items; a proposal holds "
                                               "at most 20 per list)")
    assert wb.memory.items(FACTS) == ["- Lent the user 500 euros for the deposit (log 2026-11-30)"]


def test_an_unreadable_answer_is_asked_again_once_then_an_error_in_words(ws):
    wb, model = bench(), FakeChat().enqueue("not json", answer(new_facts=[GOOD]))
    assert propose(ws, model, wb, said(DEPOSIT)).kept == 1
    assert model.purposes == ["garden", "garden.retry"]
    assert texts(model, "garden.retry")[-1] == "That output could not be read (JSONDecodeError). Answer with the " \
                                               "JSON proposal only."
    model = FakeChat().enqueue("not json", "still not json")
    with pytest.raises(ProposalError) as caught:
        propose(ws, model, bench(), said(DEPOSIT))
    assert caught.value.problems == ["the model's answer was not the JSON asked for, twice. Try again; if it keeps "
                                     "happening, use a model that follows JSON instructions better (llm.model, or "
                                     "--model)."]


def test_a_rejected_proposal_is_asked_again_once_with_why_and_nothing_of_it_is_kept(ws):
    wb, model = bench(), FakeChat().enqueue(answer(new_facts=[GOOD] * 21), answer(new_facts=[GOOD]))
    assert propose(ws, model, wb, said(DEPOSIT)).kept == 1
    assert texts(model, "garden.retry")[-1] == ("That proposal was rejected: new_facts: 21 items; a proposal holds at "
                                                "most 20 per list. Send a corrected proposal.")
    wb, model = bench(), FakeChat().enqueue(answer(new_facts=[GOOD] * 21), answer(new_facts=[BAD] * 22))
    with pytest.raises(ProposalError) as caught:
        propose(ws, model, wb, said(DEPOSIT))
    assert caught.value.problems == ["the model's proposal was invalid twice (new_facts: 22 items; a proposal holds "
                                     "at most 20 per list)"]
    assert wb.memory.items(FACTS) == [] and wb.changes == []


def test_an_answer_cut_off_splits_a_chunk_and_for_one_entry_asks_for_less(ws):
    cut = TruncatedOutput("the answer hit its 2048-token limit before it was complete")
    two = said(DEPOSIT, ("2026-11-30", "me", "and she adopted a cat"))
    with pytest.raises(ChunkTooLong) as caught:
        propose(ws, FakeChat().enqueue(cut), bench(), two)
    assert caught.value.problems == [str(cut)]
    model = FakeChat().enqueue(cut, answer(new_facts=[GOOD]))
    assert propose(ws, model, bench(), said(DEPOSIT)).kept == 1
    assert texts(model, "garden.retry")[-1].startswith(f"That answer was cut off ({cut}). Send a shorter proposal")
    with pytest.raises(ProposalError) as caught:
        propose(ws, FakeChat().enqueue(cut, cut), bench(), said(DEPOSIT))
    assert caught.value.problems == [f"the model's proposal was invalid twice ({cut})"]


def test_a_provider_failure_is_not_asked_again(ws):
    failure = LLMError("the provider refused the key", "check llm.api_key")
    model = FakeChat().enqueue(failure)
    with pytest.raises(LLMError):
        propose(ws, model, bench(), said(DEPOSIT))
    assert model.purposes == ["garden"]
    model = FakeChat().enqueue(answer(new_facts=[GOOD, BAD]), failure)
    with pytest.raises(LLMError):
        propose(ws, model, bench(), said(DEPOSIT))


def test_screenshots_go_with_the_entries_and_their_words_need_not_be_in_the_text(ws):
    model = FakeChat().enqueue(answer(new_facts=[{"text": "Booked a flight to Osaka", "evidence": ["L1"]}]))
    wb = bench()
    verdicts = propose(ws, model, wb, said(("2026-11-30", "me", "[screenshot]")), images=["data:image/png;base64,AA"])
    assert verdicts.kept == 1 and wb.memory.items(FACTS) == ["- Booked a flight to Osaka (log 2026-11-30)"]
    content = model.request("garden").messages[1].content
    assert content[0]["type"] == "text" and "L1 [2026-11-30" in content[0]["text"]
    assert content[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}


def test_without_asking_a_relation_change_is_kept_not_asked(ws):
    items = said(("2026-11-30", "me", "we are dating now"))
    fields = answer(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}])
    wb = bench()
    asked = propose(ws, FakeChat().enqueue(fields), wb, items)
    assert [q.what for q in asked.asked] == ["relation: friend → dating"] and wb.profile.doc.meta["relation"] == "friend"
    told = bench()
    kept = propose(ws, FakeChat().enqueue(fields), told, items, asking=False)
    assert kept.kept == 1 and told.profile.doc.meta["relation"] == "dating"


# -- fitting MEMORY.md to its budget ----------------------------------------------------
MOUNTAINS = ("Takao", "Fuji", "Kita", "Aino", "Yari", "Hotaka", "Tate")
LONG_FACTS = [f"- Alice went hiking on Mount {name} with her old friends (log 2026-11-02)" for name in MOUNTAINS]
BUDGET = 56  # seven lines at most (compressed_max_items)


def test_memory_within_its_budget_is_not_compressed(ws):
    wb, model = bench(facts=LONG_FACTS[:1], budget=BUDGET), FakeChat()
    fit_budget(ws, model, wb)
    assert model.purposes == [] and wb.changes == []


def test_memory_over_its_budget_is_compressed_when_every_check_passes(ws):
    wb = bench(facts=LONG_FACTS, budget=BUDGET)
    merged = "Alice went hiking with old friends on " + ", ".join(MOUNTAINS)
    model = FakeChat().enqueue({"facts": [{"text": merged, "lines": [f"F{n}" for n in range(1, 8)]}],
                                "chat_notes": [], "threads": []})
    fit_budget(ws, model, wb)
    assert model.purposes == ["compress"] and "budget 56 tokens" in texts(model, "compress")[1]
    assert wb.memory.items(FACTS) == [f"- {merged} (log 2026-11-02)"] and wb.memory.body_tokens() <= BUDGET
    assert wb.changes == ["~ memory compressed to fit its budget"]


def test_a_compression_that_fails_a_check_or_still_does_not_fit_changes_nothing(ws):
    wb = bench(facts=LONG_FACTS, budget=BUDGET)
    before = list(wb.memory.items(FACTS))
    model = FakeChat().enqueue({"facts": [{"text": "Alice went hiking 99 times", "lines": ["F1"]}], "chat_notes": [],
                                "threads": []})
    with pytest.raises(ProposalError) as caught:
        fit_budget(ws, model, wb)
    assert caught.value.problems[0].startswith(f"MEMORY.md is over its budget ({wb.memory.body_tokens()} > 56 tokens) "
                                               "and the model's compression was rejected, so it stays as it was: ")
    assert "99" in caught.value.problems[0] and wb.memory.items(FACTS) == before and wb.changes == []
    same = {"facts": [{"text": line[2:-17], "lines": [f"F{n}"]} for n, line in enumerate(LONG_FACTS, 1)],  # restated
            "chat_notes": [], "threads": []}
    with pytest.raises(ProposalError) as caught:
        fit_budget(ws, FakeChat().enqueue(same), wb)
    assert caught.value.problems[0].endswith(f"it is still over budget ({wb.memory.body_tokens()} > 56 tokens)")
    assert wb.memory.items(FACTS) == before and wb.changes == []


def test_a_compression_the_model_fails_to_answer_is_an_error_that_says_so(ws):
    wb = bench(facts=LONG_FACTS, budget=BUDGET)
    with pytest.raises(ProposalError) as caught:
        fit_budget(ws, FakeChat().enqueue("not json"), wb)
    assert caught.value.problems[0].startswith(f"MEMORY.md is over its budget ({wb.memory.body_tokens()} > 56 tokens) "
                                               "and compressing it failed: ")


def test_a_compression_applies_every_section_at_once_and_says_so():
    wb = bench(facts=["- Likes tea (log 2026-11-02)", "- Likes green tea (log 2026-11-02)"],
               threads=["- Ask about Lyon (log 2026-11-02)"])
    result = Compressed(facts=[Kept(text="Likes tea, green tea most", lines=["F1", "F2"])], chat_notes=[],
                        threads=[Kept(text="Ask about Lyon", lines=["T1"])])
    assert apply_compression(wb, result, 10) == []
    assert wb.memory.items(FACTS) == ["- Likes tea, green tea most (log 2026-11-02)"]
    assert wb.memory.items(THREADS) == ["- Ask about Lyon (log 2026-11-02)"]
    assert wb.changes == ["~ memory compressed to fit its budget"]
    bad = Compressed(facts=[Kept(text="Likes tea", lines=["F9"])], chat_notes=[], threads=[])
    assert apply_compression(wb, bad, 10) == ["compressed fact 1: cites F9; name the Facts lines it keeps or merges"]
    assert wb.memory.items(FACTS) == ["- Likes tea, green tea most (log 2026-11-02)"] and len(wb.changes) == 1


def test_a_compression_never_drops_a_line_this_run_just_wrote():
    wb = bench(facts=["- Likes tea (log 2026-11-02)", "- Moved to Lyon in May (log 2026-11-30)",
                      "- Adopted a cat named Miso (log 2026-11-30)"])
    wb.changes += [f"+ {FACTS}: Moved to Lyon in May (log 2026-11-30)",
                   f"~ {FACTS}: Adopted a cat (log 2026-11-02) -> Adopted a cat named Miso (log 2026-11-30)"]
    result = Compressed(facts=[Kept(text="Likes tea", lines=["F1"])], chat_notes=[], threads=[])
    problems, _ = check_compression(wb, result, 10)
    assert problems == ["compression dropped a line just written (F2): '- Moved to Lyon in May (log 2026-11-30)'",
                        "compression dropped a line just written (F3): '- Adopted a cat named Miso (log 2026-11-30)'"]
    kept = Compressed(facts=[Kept(text="Moved to Lyon in May; adopted a cat named Miso", lines=["F2", "F3"])],
                      chat_notes=[], threads=[])
    assert check_compression(wb, kept, 10)[0] == []


def test_a_line_rewritten_to_hold_an_arrow_is_still_a_line_just_written():
    """A rewrite is recorded as "old -> new": a new line saying "Shanghai -> Lyon" (or an old one
    with an arrow) is still the whole new line, so compressing may not drop it."""
    moved = "- Moved Shanghai -> Lyon in May (log 2026-11-30)"
    wb = bench(facts=["- Likes tea (log 2026-11-02)", moved, "- Route A -> B, then C (log 2026-11-30)"])
    wb.changes += [f"~ {FACTS}: Moved to Lyon (log 2026-11-02) -> {moved[2:]}",
                   f"~ {FACTS}: Route A -> B (log 2026-11-02) -> Route A -> B, then C (log 2026-11-30)"]
    result = Compressed(facts=[Kept(text="Likes tea", lines=["F1"])], chat_notes=[], threads=[])
    assert check_compression(wb, result, 10)[0] == [
        f"compression dropped a line just written (F2): {moved[:60]!r}",
        "compression dropped a line just written (F3): '- Route A -> B, then C (log 2026-11-30)'"]
    kept = Compressed(facts=[Kept(text="Likes tea", lines=["F1"]),
                             Kept(text="Moved Shanghai -> Lyon in May; route A -> B, then C", lines=["F2", "F3"])],
                      chat_notes=[], threads=[])
    assert check_compression(wb, kept, 10)[0] == []


def test_the_about_me_section_is_compressed_only_when_the_answer_has_it():
    wb = bench(about=["- I moved to Paris (log 2026-11-02)", "- I work at a bank (log 2026-11-02)"])
    result = Compressed(facts=[], chat_notes=[], threads=[], about_user=[Kept(text="I moved to Paris", lines=["U1"])])
    problems, cleaned = check_compression(wb, result, 10)
    assert problems == [] and cleaned[memory_fmt.ABOUT_ME] == ["- I moved to Paris (log 2026-11-02)"]
    wrong = Compressed(facts=[], chat_notes=[], threads=[], about_user=[Kept(text="I moved", lines=["F1"])])
    assert check_compression(wb, wrong, 10)[0] == ["compressed line about the user 1: cites F1; name the About me "
                                                  "lines it keeps or merges"]


# -- imported on first use -------------------------------------------------------------
def test_the_proposal_modules_are_reached_through_lazy():
    from heartcompass.memory.proposal import model, propose as propose_module, workbench

    assert (lazy.model(), lazy.workbench(), lazy.propose()) == (model, workbench, propose_module)


def test_a_told_line_is_carried_by_a_compressed_line_holding_exactly_half_its_words():
    wb = bench(facts=["- Berlin flat deposit Miso (told)"])
    result = Compressed(facts=[Kept(text="Berlin flat", lines=["F1"])], chat_notes=[], threads=[])
    problems, cleaned = check_compression(wb, result, 10)
    assert problems == [] and cleaned[FACTS] == ["- Berlin flat (told)"]


def test_the_events_shown_fill_the_budget_exactly():
    """Each event costs its tokens and two; one that just fits is shown."""
    wb = bench(events=["- 2026-11-28 · w0.9 · Event on day 28 (log 2026-11-28)",
                       "- 2026-11-27 · w0.8 · Event on day 27 (log 2026-11-27)"])  # 16 tokens each, shown
    assert [e.date.day for e in _shown_by_walk(wb, [], 32, 90.0)] == [28, 27]
    assert [e.date.day for e in _shown_by_walk(wb, [], 31, 90.0)] == [28]
    assert [e.date.day for e in shown_events(wb, [], 32, 90.0)] == [28, 27]


def test_empty_fields_are_not_shown_and_wide_characters_stay_as_written():
    wb = bench()
    wb.profile.doc.meta.update({"gender": "", "birthday": None})
    text = present(wb, said(("2026-11-30", "me", "ＡＢＣ 五百")), [])
    assert "gender:" not in text and "birthday:" not in text and "mbti: ENFP" in text
    assert "ＡＢＣ 五百" in text
    wb = bench(facts=["- Likes ＡＢＣ tea (log 2026-11-02)"])
    assert "F1 - Likes ＡＢＣ tea (log 2026-11-02)" in present_memory(wb)


def test_room_to_answer_is_a_base_plus_twice_the_tokens_read_plus_a_little_per_entry():
    chunk = said(*[DEPOSIT] * 20)  # 11 tokens each: 1024 + 2 * 220 + 48 * 20
    assert answer_bound(chunk) == 2424


class BoundedChat(FakeChat):
    """Records the answer's bound each call was made with (structured.py copies the model with it)."""
    max_tokens: int | None = None
    bounds: list = Field(default_factory=list)

    def _next(self, messages, schema=None):
        self.bounds.append(self.max_tokens)
        return super()._next(messages, schema)


def test_each_call_is_bounded_proposals_by_their_chunk_compressions_by_the_budget(ws):
    model = BoundedChat().enqueue(answer(new_facts=[GOOD]))
    propose(ws, model, bench(), said(DEPOSIT))
    assert model.bounds == [answer_bound(said(DEPOSIT))]
    model = BoundedChat().enqueue({"facts": [{"text": "Alice went hiking with old friends on " + ", ".join(MOUNTAINS),
                                              "lines": [f"F{n}" for n in range(1, 8)]}], "chat_notes": [], "threads": []})
    fit_budget(ws, model, bench(facts=LONG_FACTS, budget=BUDGET))
    assert model.bounds == [2 * BUDGET + 512]
    assert "fits in 56 tokens" in texts(model, "compress")[0]


def test_the_gardener_writes_about_the_user_by_their_name_or_as_the_user(ws):
    model = FakeChat().enqueue(answer(new_facts=[GOOD]))
    propose(ws, model, bench(), said(DEPOSIT))
    assert "written about the user in the third person" in texts(model, "garden")[0]  # no name set
    set_value(ws.config_path, "user.name", "Sam")
    ws.reload_config()
    model = FakeChat().enqueue(answer(new_facts=[GOOD]))
    propose(ws, model, bench(), said(DEPOSIT))
    assert "written about Sam in the third person" in texts(model, "garden")[0]
    set_value(ws.config_path, "user.name", "   ")
    ws.reload_config()
    model = FakeChat().enqueue(answer(new_facts=[GOOD]))
    propose(ws, model, bench(), said(DEPOSIT))
    assert "written about the user in the third person" in texts(model, "garden")[0]


def test_a_refused_line_after_a_retry_is_not_sent_back_again(ws):
    model = FakeChat().enqueue("not json", answer(new_facts=[GOOD, BAD]))
    verdicts = propose(ws, model, bench(), said(DEPOSIT))
    assert model.purposes == ["garden", "garden.retry"]  # no third call: one retry or one correction, not both
    assert verdicts.kept == 1 and [r.statement for r in verdicts.refused] == [BAD]


def test_a_long_rejection_is_cut_to_three_hundred_characters(ws):
    lists = {name: [GOOD] * 21 for name in ("new_facts", "new_chat_notes", "new_about_user", "new_threads",
                                            "profile_notes")}
    lists["profile_notes"] = [{"section": "Likes", **GOOD}] * 21
    said_twice = "; ".join(over_limits(Proposal.model_validate(answer(**lists))))
    assert len(said_twice) > 300
    with pytest.raises(ProposalError) as caught:
        propose(ws, FakeChat().enqueue(answer(**lists), answer(**lists)), bench(), said(DEPOSIT))
    assert caught.value.problems == [f"the model's proposal was invalid twice ({said_twice[:300]})"]


def test_memory_exactly_at_its_budget_is_not_compressed(ws):
    tokens = bench(facts=LONG_FACTS).memory.body_tokens()
    wb, model = bench(facts=LONG_FACTS, budget=tokens), FakeChat()
    fit_budget(ws, model, wb)
    assert model.purposes == [] and wb.changes == [] and wb.memory.items(FACTS) == LONG_FACTS
