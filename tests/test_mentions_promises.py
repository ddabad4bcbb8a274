"""The people someone mentions (memory/proposal/mentions.py, issue 29): one
line each in PROFILE.md's `## People in their life`, written only from
trusted entries that name them; someone already listed (by a name, an alias,
'my daughter') gets their line updated rather than a second one; a line the
user wrote or told is theirs to change; a name two lines could be is
refused with both ids. Each test judges a proposal on files in memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, mentions as mentions_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.memory.proposal import mentions
from heartcompass.memory.proposal.apply import apply
from heartcompass.memory.proposal.model import Proposal
from heartcompass.memory.proposal.workbench import LogItem, Workbench

TODAY = dt.date(2026, 12, 1)
SECTION = mentions_fmt.SECTION
SARA = "- [m1] Sara (daughter): Plays the violin (log 2026-11-02)"


def bench(*lines: str, hand: set[str] = frozenset(), known=("alice", "rob")) -> Workbench:
    body = "".join(f"{x}\n" for x in lines)
    profile = f"---\nname: Alice\nrelation: friend\n---\n\n# Alice\n\n## {SECTION}\n\n{body}"
    return Workbench("alice", profile_fmt.parse(profile, Path("PROFILE.md")),
                     events_fmt.parse("# Events — Alice\n", Path("EVENTS.md")),
                     memory_fmt.new(Path("MEMORY.md"), "Alice"), set(hand), set(known), TODAY)


def said(*texts: str, speaker: str = "me") -> list[LogItem]:
    return [LogItem(f"L{n}", "2026-11-30", dailylog.Entry(f"20:0{n}:00", speaker, text), n - 1)
            for n, text in enumerate(texts, 1)]


def judged(wb: Workbench, items: list[LogItem], asking: bool = True, **statements):
    return apply(wb, Proposal.model_validate({"summary": "people", **statements}), items, [], asking=asking)


def lines(wb: Workbench) -> list[str]:
    return [mentions_fmt.render_line(m) for m in mentions.current(wb)]


def reasons(verdicts) -> list[str]:
    return [r for refused in verdicts.refused for r in refused.reasons]


def threads(wb: Workbench) -> list[str]:
    return wb.memory.items(memory_fmt.THREADS)


# -- what the model is shown ------------------------------------------------------------
def test_each_listed_person_is_shown_with_an_m_id_and_the_users_own_lines_marked():
    hand = "- Rob (colleague): From the yoga class"
    wb = bench(SARA, hand, hand={hand})
    assert mentions.present(wb) == [f"M1 {SARA}", f"M2 {hand}   [hand-written]"]
    assert mentions.ids(wb) == ["M1", "M2"]
    assert mentions.present(bench()) == ["(none)"] and mentions.ids(bench()) == []


# -- a new mention ----------------------------------------------------------------------
def test_a_new_mention_named_in_a_trusted_entry_gets_its_own_line():
    wb = bench(SARA)
    verdicts = judged(wb, said("Lunch with Kevin, my colleague from the bank; Kevin loves chess"), new_mentions=[
        {"name": "Kevin", "role": "colleague", "aliases": ["kevin", "Kev", "Kev"], "notes": ["loves chess"],
         "evidence": ["L1"]}])
    assert verdicts.kept == 1 and verdicts.refused == []
    assert lines(wb) == [SARA, "- [m2] Kevin (colleague; aka Kev): loves chess (log 2026-11-30)"]
    assert wb.changes == [f"+ profile {SECTION}: Kevin (colleague; aka Kev): loves chess (log 2026-11-30)"]


def test_a_mention_that_is_a_person_of_the_workspace_is_linked_to_them():
    wb = bench()
    judged(wb, said("Rob from yoga came along"), new_mentions=[
        {"name": "Rob", "role": "friend", "notes": ["from yoga"], "evidence": ["L1"]}])
    assert lines(wb) == ["- [m1] Rob (friend; → rob): from yoga (log 2026-11-30)"]
    two = bench(known=("alice", "rob", "r-ob"))  # two folders the name could be: linked to neither
    judged(two, said("Rob from yoga came along"), new_mentions=[
        {"name": "Rob", "role": "friend", "notes": ["from yoga"], "evidence": ["L1"]}])
    assert lines(two) == ["- [m1] Rob (friend): from yoga (log 2026-11-30)"]
    own = bench(known=("alice",))
    judged(own, said("Alice from yoga came along"), new_mentions=[
        {"name": "Alice", "role": "friend", "notes": ["from yoga"], "evidence": ["L1"]}])
    assert lines(own) == ["- [m1] Alice (friend): from yoga (log 2026-11-30)"]  # never linked to themselves


def test_a_mention_not_named_in_its_entries_is_refused():
    """'my colleague' is not Kevin: a line needs the name said."""
    wb = bench()
    verdicts = judged(wb, said("I went hiking with my colleague today"), new_mentions=[
        {"name": "Kevin", "role": "colleague", "notes": ["went hiking"], "evidence": ["L1"]}])
    assert reasons(verdicts) == ["new mention 1: 'Kevin' is not named in the entries it cites (L1)"]
    assert lines(wb) == [] and wb.changes == [] and verdicts.kept == 0


def test_a_mention_named_only_by_an_alias_is_kept():
    wb = bench()
    verdicts = judged(wb, said("Went hiking with Kev, my colleague"), new_mentions=[
        {"name": "Kevin", "role": "colleague", "aliases": ["Kev"], "evidence": ["L1"]}])
    assert verdicts.kept == 1 and lines(wb) == ["- [m1] Kevin (colleague; aka Kev) (log 2026-11-30)"]


def test_a_mention_with_too_many_aliases_or_notes_is_refused():
    wb = bench()
    many = [f"Kev{n}" for n in range(7)]
    verdicts = judged(wb, said("Kevin " + " ".join(many)), new_mentions=[
        {"name": "Kevin", "role": "colleague", "aliases": many, "evidence": ["L1"]}])
    assert "new mention 1: at most 6 aliases and 6 notes" in reasons(verdicts) and lines(wb) == []
    notes = [f"likes thing{n}" for n in range(7)]
    verdicts = judged(wb, said("Kevin likes " + " ".join(f"thing{n}" for n in range(7))), new_mentions=[
        {"name": "Kevin", "role": "colleague", "notes": notes, "evidence": ["L1"]}])
    assert "new mention 1: at most 6 aliases and 6 notes" in reasons(verdicts) and lines(wb) == []
    six = judged(wb, said("Kevin " + " ".join(many[:6])), new_mentions=[
        {"name": "Kevin", "role": "colleague", "aliases": many[:6], "evidence": ["L1"]}])
    assert six.kept == 1 and len(mentions.current(wb)[0].aliases) == 6


def test_a_mention_resting_on_what_the_persona_said_is_refused():
    wb = bench()
    verdicts = judged(wb, said("Kevin is my colleague", speaker="persona"), new_mentions=[
        {"name": "Kevin", "role": "colleague", "evidence": ["L1"]}])
    assert verdicts.refused and lines(wb) == [] and verdicts.kept == 0
    assert not any("not named" in r for r in reasons(verdicts))  # refused for its source, named or not


def test_a_mention_two_lines_could_be_is_refused_with_both_ids():
    wb = bench(SARA, "- [m2] Mia (daughter): Plays football (log 2026-11-02)")
    verdicts = judged(wb, said("my daughter won her first violin contest"), new_mentions=[
        {"name": "my daughter", "role": "daughter", "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert reasons(verdicts) == ["new mention 1: 'my daughter' could be M1 or M2; change the one it is by id "
                                 "(changed_mentions)"]
    assert wb.changes == []


# -- someone already listed --------------------------------------------------------------
def test_news_of_someone_listed_updates_their_line_by_any_of_their_names():
    wb = bench(SARA)
    verdicts = judged(wb, said("my daughter 小女儿 won her first violin contest"), new_mentions=[
        {"name": "my daughter", "role": "daughter", "aliases": ["小女儿"], "notes": ["won a violin contest"],
         "evidence": ["L1"]}])
    assert verdicts.kept == 1
    assert lines(wb) == ["- [m1] Sara (daughter; aka my daughter, 小女儿): Plays the violin; won a violin contest "
                         "(log 2026-11-30)"]
    assert wb.changes == [f"~ profile {SECTION}: [m1] Sara (daughter; aka my daughter, 小女儿): Plays the violin; "
                          "won a violin contest (log 2026-11-30)"]


def test_a_line_keeps_its_six_newest_notes_and_its_role():
    full = "- [m1] Sara (daughter): n1; n2; n3; n4; n5; n6 (log 2026-11-02)"
    wb = bench(full)
    judged(wb, said("Sara, my daughter, won the contest"), changed_mentions=[
        {"id": "M1", "role": "pupil", "notes": ["won the contest"], "evidence": ["L1"]}])
    assert lines(wb) == ["- [m1] Sara (daughter): n2; n3; n4; n5; n6; won the contest (log 2026-11-30)"]


def test_a_line_without_a_role_takes_the_one_proposed():
    wb = bench("- [m1] Sara: Plays the violin (log 2026-11-02)")
    judged(wb, said("Sara is my daughter"), changed_mentions=[{"id": "M1", "role": "daughter", "evidence": ["L1"]}])
    assert lines(wb) == ["- [m1] Sara (daughter): Plays the violin (log 2026-11-30)"]


def test_nothing_new_for_a_listed_line_changes_nothing():
    wb = bench(SARA)
    verdicts = judged(wb, said("Sara plays the violin"), new_mentions=[
        {"name": "Sara", "role": "daughter", "notes": ["Plays the violin"], "evidence": ["L1"]}])
    assert verdicts.kept == 1 and lines(wb) == [SARA] and wb.changes == []
    assert wb.profile.doc.body.endswith(f"{SARA}\n")


def test_news_of_a_line_the_user_wrote_is_asked_and_without_asking_becomes_a_thread():
    hand = "- Sara (daughter): Plays the violin"
    wb = bench(hand, hand={hand})
    verdicts = judged(wb, said("Sara won her first violin contest"), changed_mentions=[
        {"id": "M1", "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert verdicts.kept == 0 and [q.kind for q in verdicts.asked] == ["rewrite"]
    q = verdicts.asked[0]
    assert q.change == {"file": "PROFILE.md", "section": SECTION, "old": hand,
                        "new": "- Sara (daughter): Plays the violin; won a violin contest (log 2026-11-30)"}
    assert q.reason == "you wrote this line by hand" and q.evidence[0]["text"] == "Sara won her first violin contest"
    assert lines(wb) == [hand] and wb.changes == []
    told = bench(hand, hand={hand})
    verdicts = judged(told, said("Sara won her first violin contest"), asking=False, changed_mentions=[
        {"id": "M1", "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert verdicts.kept == 1 and lines(told) == [hand]
    assert threads(told) == ['- You wrote "Sara (daughter): Plays the violin", but the chats suggest '
                             '"won a violin contest" (log 2026-11-30)']


def test_news_of_a_told_line_is_asked_and_nothing_new_for_it_is_kept_as_it_is():
    told = "- [m1] Sara (daughter): Plays the violin (told)"
    wb = bench(told)
    verdicts = judged(wb, said("Sara, 小女儿, won her first violin contest"), new_mentions=[
        {"name": "Sara", "role": "daughter", "aliases": ["小女儿"], "evidence": ["L1"]}])
    assert [q.reason for q in verdicts.asked] == ["you told this"]
    assert verdicts.asked[0].change["new"] == "- [m1] Sara (daughter; aka 小女儿): Plays the violin (log 2026-11-30)"
    assert verdicts.asked[0].what == f"PROFILE.md {SECTION}: [m1] Sara (daughter): Plays the violin → [m1] Sara " \
                                     "(daughter; aka 小女儿): Plays the violin"
    assert lines(wb) == [told]
    same = judged(wb, said("Sara plays the violin"), new_mentions=[
        {"name": "Sara", "role": "daughter", "evidence": ["L1"]}])
    assert same.kept == 1 and same.asked == [] and lines(wb) == [told] and wb.changes == []


def test_without_asking_news_of_a_told_line_updates_it():
    told = "- [m1] Sara (daughter): Plays the violin (told)"
    wb = bench(told)
    judged(wb, said("Sara won her first violin contest"), asking=False, changed_mentions=[
        {"id": "M1", "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert lines(wb) == ["- [m1] Sara (daughter): Plays the violin; won a violin contest (log 2026-11-30)"]


def test_a_change_of_an_unknown_line_or_with_too_many_notes_is_refused():
    wb = bench(SARA)
    verdicts = judged(wb, said("Sara won a violin contest"), changed_mentions=[
        {"id": "M9", "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert reasons(verdicts) == ["mention M9: no such id"] and lines(wb) == [SARA]
    many = [f"won prize{n}" for n in range(7)]
    verdicts = judged(wb, said("Sara " + " ".join(many)), changed_mentions=[
        {"id": "M1", "notes": many, "evidence": ["L1"]}])
    assert reasons(verdicts) == ["mention M1: at most 6 aliases and 6 notes"] and lines(wb) == [SARA]
    verdicts = judged(wb, said("Sara won"), changed_mentions=[{"id": "M1", "notes": ["won"], "evidence": ["L9"]}])
    assert verdicts.refused and verdicts.kept == 0 and lines(wb) == [SARA]


def test_a_change_with_new_aliases_adds_them_once():
    wb = bench(SARA)
    verdicts = judged(wb, said("Sara, we call her Sari or sara"), changed_mentions=[
        {"id": " M1 ", "aliases": ["Sari", "sara", "Sari"], "evidence": ["L1"]}])
    assert verdicts.kept == 1
    assert lines(wb) == ["- [m1] Sara (daughter; aka Sari): Plays the violin (log 2026-11-30)"]


# -- a removal --------------------------------------------------------------------------
def test_removing_a_listed_person_is_asked_and_without_asking_goes():
    wb = bench(SARA)
    verdicts = judged(wb, said("Sara moved out"), removed_mentions=["M1"])
    assert [(q.kind, q.reason, q.change["old"]) for q in verdicts.asked] == [
        ("removal", "a profile line removed", SARA)]
    assert lines(wb) == [SARA]
    verdicts = judged(wb, said("Sara moved out"), asking=False, removed_mentions=[" M1 "])
    assert verdicts.kept == 1 and lines(wb) == []
    assert wb.changes == [f"- profile {SECTION}: [m1] Sara (daughter): Plays the violin (log 2026-11-02)"]


def test_removing_a_line_the_user_wrote_asks_why_and_without_asking_asks_in_a_thread():
    hand = "- Sara (daughter): Plays the violin"
    wb = bench(hand, hand={hand})
    verdicts = judged(wb, said("bye"), removed_mentions=["M1"])
    assert [q.reason for q in verdicts.asked] == ["you wrote this line by hand"]
    judged(wb, said("bye"), asking=False, removed_mentions=["M1"])
    judged(wb, said("bye"), asking=False, removed_mentions=["M1"])  # asked once, not twice
    assert lines(wb) == [hand]
    assert threads(wb) == ['- You wrote "Sara (daughter): Plays the violin"; does it still hold? (log)']


def test_removing_an_unknown_line_is_refused():
    wb = bench(SARA)
    verdicts = judged(wb, said("bye"), removed_mentions=["M7"])
    assert reasons(verdicts) == ["mention 'M7': no such id"] and verdicts.asked == [] and lines(wb) == [SARA]


def test_a_new_line_and_a_removal_in_one_proposal_both_apply_and_ids_stay_right():
    wb = bench(SARA, "- [m2] Mia (daughter): Plays football (log 2026-11-02)")
    verdicts = judged(wb, said("Kevin, my colleague, likes chess"), asking=False, removed_mentions=["M1"],
                      new_mentions=[{"name": "Kevin", "role": "colleague", "notes": ["likes chess"],
                                     "evidence": ["L1"]}])
    assert verdicts.kept == 2
    assert lines(wb) == ["- [m2] Mia (daughter): Plays football (log 2026-11-02)",
                         "- [m3] Kevin (colleague): likes chess (log 2026-11-30)"]


def test_a_thread_raised_for_the_users_line_is_listed_in_the_changes():
    hand = "- Sara (daughter): Plays the violin"
    wb = bench(hand, hand={hand})
    judged(wb, said("bye"), asking=False, removed_mentions=["M1"])
    assert wb.changes == [f'+ {memory_fmt.THREADS}: You wrote "Sara (daughter): Plays the violin"; does it still '
                          'hold? (log)']


def test_nothing_new_for_a_told_line_without_a_role_asks_nothing():
    told = "- [m1] Sara: Plays the violin (told)"
    wb = bench(told)
    verdicts = judged(wb, said("Sara plays the violin"), changed_mentions=[
        {"id": "M1", "notes": ["Plays the violin"], "evidence": ["L1"]}])
    assert verdicts.kept == 1 and verdicts.asked == [] and lines(wb) == [told]


def test_news_of_a_hand_line_without_asking_lists_every_name_and_note_in_its_thread():
    hand = "- Sara (daughter): Plays the violin"
    wb = bench(hand, hand={hand})
    judged(wb, said("Sara, we call her Sari, won a violin contest"), asking=False, changed_mentions=[
        {"id": "M1", "aliases": ["Sari"], "notes": ["won a violin contest"], "evidence": ["L1"]}])
    assert threads(wb) == ['- You wrote "Sara (daughter): Plays the violin", but the chats suggest "Sari; won a '
                           'violin contest" (log 2026-11-30)']


def test_a_name_ending_one_entry_names_them_apart_from_the_next():
    wb = bench()
    verdicts = judged(wb, said("Lunch with my colleague Kevin", "he loves chess"), new_mentions=[
        {"name": "Kevin", "role": "colleague", "notes": ["loves chess"], "evidence": ["L1", "L2"]}])
    assert verdicts.refused == [] and lines(wb) == ["- [m1] Kevin (colleague): loves chess (log 2026-11-30)"]
