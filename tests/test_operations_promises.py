"""What a kept statement (or a Yes) does to a person's files
(memory/proposal/operations.py, issue 29): each change is made where it
belongs and listed in wb.changes for the commit; a line the user wrote stays
theirs (a change to it becomes an open thread quoting both, a removal of
what they wrote or told one that asks); the same line or event is never
added twice. Each test works on files in memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal import asking, operations as ops
from heartcompass.memory.proposal.workbench import LogItem, Workbench, events_index

TODAY = dt.date(2026, 12, 1)
FACTS, THREADS = memory_fmt.FACTS, memory_fmt.THREADS
DAY = dt.date(2026, 11, 28)
PROFILE = """---
name: Alice
relation: friend
gender: female  # she said so
---

# Alice

## Likes

- Green tea (log 2026-11-02)
- Hiking (hand)

## Dislikes

## Background
- Grew up in Lyon (log 2026-11-02)
"""


def bench(facts=(), events=(), threads=(), hand=frozenset(), profile: str = PROFILE) -> Workbench:
    memory = (f"---\nbudget_tokens: 6000\n---\n\n# Memory — Alice\n\n## {FACTS}\n\n" + "".join(f"{x}\n" for x in facts)
              + f"\n## {memory_fmt.CHATS}\n\n## {THREADS}\n\n" + "".join(f"{x}\n" for x in threads))
    evs = "# Events — Alice\n\n" + "".join(f"{x}\n" for x in events)
    return Workbench("alice", profile_fmt.parse(profile, Path("PROFILE.md")), events_fmt.parse(evs, Path("EVENTS.md")),
                     memory_fmt.parse(memory, Path("MEMORY.md")), set(hand), {"alice"}, TODAY)


def rendered(wb: Workbench) -> list[str]:
    return [e.render() for e in wb.events.events]


def threads(wb: Workbench) -> list[str]:
    return wb.memory.items(THREADS)


# -- events -----------------------------------------------------------------------------
def test_a_new_event_is_added_once_and_counted():
    wb = bench()
    ops.add_event(wb, DAY, "Hiked Mount Takao", 0.5, "log 2026-11-28")
    ops.add_event(wb, dt.date(2026, 11, 1), "Moved to Lyon", 0.75, "told", month_only=True, approx=True)
    ops.add_event(wb, dt.date(2019, 1, 1), "Finished school", 0.25, "told", year_only=True)
    assert rendered(wb) == ["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)",
                            "- ~2026-11 · w0.75 · Moved to Lyon (told)", "- 2019 · w0.25 · Finished school (told)"]
    assert wb.changes == ["+ event 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)",
                          "+ event ~2026-11 · w0.75 · Moved to Lyon (told)", "+ event 2019 · w0.25 · Finished school (told)"]
    assert wb.counts == {"events_added": 3, "events_changed": 0}


def test_the_same_event_again_is_weighted_up_never_down_with_or_without_the_index():
    for indexed in (False, True):
        wb = bench(events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)"])
        if indexed:
            events_index(wb, 30.0)
        ops.add_event(wb, DAY, "hiked mount  TAKAO", 0.25, "log 2026-11-29")
        assert rendered(wb) == ["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)"] and wb.changes == []
        ops.add_event(wb, DAY, "Hiked Mount Takao", 0.5, "log 2026-11-29")  # as much: nothing to raise
        assert wb.changes == [], indexed
        ops.add_event(wb, DAY, "Hiked Mount Takao", 0.75, "log 2026-11-29")
        assert rendered(wb) == ["- 2026-11-28 · w0.75 · Hiked Mount Takao (log 2026-11-28)"], indexed
        assert wb.counts == {"events_added": 0, "events_changed": 1}, indexed
        ops.add_event(wb, dt.date(2026, 11, 29), "Hiked Mount Takao", 0.5, "log 2026-11-29")  # another day
        assert len(wb.events.events) == 2 and wb.counts["events_added"] == 1, indexed
        if indexed:
            assert wb.event_index is not None and wb.event_index.holds(wb.events.events[1])


def test_a_changed_event_takes_its_new_text_date_and_source():
    wb = bench(events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)"])
    event = wb.events.events[0]
    ops.change_event(wb, event, None, "Hiked Mount Fuji", "log 2026-11-30")
    assert rendered(wb) == ["- 2026-11-28 · w0.5 · Hiked Mount Fuji (log 2026-11-30)"]
    ops.change_event(wb, event, None, None, "log 2026-12-01", events_fmt.When(dt.date(2026, 11, 1), True, True, False))
    assert rendered(wb) == ["- ~2026-11 · w0.5 · Hiked Mount Fuji (log 2026-12-01)"]
    ops.change_event(wb, event, None, "Hiked Fuji", None)  # no source given: the event's stays
    ops.change_event(wb, event, None, None, None, events_fmt.When(DAY, False, False, False))
    assert rendered(wb) == ["- 2026-11-28 · w0.5 · Hiked Fuji (log 2026-12-01)"]
    assert wb.changes[0] == ("~ event 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28) -> "
                             "2026-11-28 · w0.5 · Hiked Mount Fuji (log 2026-11-30)")
    assert wb.counts["events_changed"] == 4
    ops.change_event(wb, event, 0.5, None, None)  # the same weight: no change listed
    assert wb.counts["events_changed"] == 4 and len(wb.changes) == 4


def test_a_changed_event_can_be_put_back_when_the_proposal_is_rejected():
    wb = bench(events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)"])
    wb.event_undo = []
    event = wb.events.events[0]
    ops.change_event(wb, event, 0.9, "Hiked Fuji", "log 2026-11-30")
    assert [(e is event, before.text, before.weight) for e, before in wb.event_undo] == [
        (True, "Hiked Mount Takao", 0.5)]


def test_a_changed_event_keeps_the_index_right_or_drops_it():
    wb = bench(events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)"])
    idx = events_index(wb, 30.0)
    event = wb.events.events[0]
    ops.change_event(wb, event, 0.9, "Hiked Fuji", "log 2026-11-30")
    assert wb.event_index is idx and idx.first_same(DAY, "hiked fuji") is event and idx.first_same(DAY, "Hiked Mount Takao") is None
    stranger = events_fmt.Event(DAY, "Not in the list", 0.5, "log")
    ops.change_event(wb, stranger, 0.9, None, None)
    assert wb.event_index is None and stranger.weight == 0.9


def test_the_users_event_stays_and_a_new_text_or_date_for_it_becomes_a_thread():
    hand = "- 2026-11-28 · w0.3 · Hiked Mount Takao (hand)"
    wb = bench(events=[hand])
    ops.change_event(wb, wb.events.events[0], None, None, None, events_fmt.When(dt.date(2026, 11, 27), False, False,
                                                                                 False))
    assert rendered(wb) == [hand]
    assert threads(wb) == ['- You wrote "2026-11-28 · w0.3 · Hiked Mount Takao", but the chats suggest '
                           '"2026-11-27 · Hiked Mount Takao" (log)']


def test_removing_an_event_drops_it_from_the_file_and_the_index():
    lines = ["- 2026-11-28 · w0.5 · Hiked Mount Takao (log 2026-11-28)", "- 2026-11-29 · w0.5 · Dinner (log 2026-11-29)"]
    wb = bench(events=lines)
    idx = events_index(wb, 30.0)
    ops.remove_event(wb, wb.events.events[0])
    assert rendered(wb) == lines[1:] and wb.changes == [f"- event {lines[0][2:]}"]
    assert wb.counts["events_changed"] == 1 and wb.event_index is idx and idx.valid(wb)
    assert idx.first_same(DAY, "Hiked Mount Takao") is None
    stranger = events_fmt.Event(DAY, "Not in the list", 0.5, "log")
    ops.remove_event(wb, stranger)
    assert rendered(wb) == lines[1:] and wb.event_index is None


def test_removing_the_users_event_keeps_it_and_asks_in_a_thread():
    wb = bench(events=["- 2026-11-28 · w0.5 · Hiked Mount Takao (hand)", "- 2026-11-29 · w0.5 · Dinner (told)"])
    ops.remove_event(wb, wb.events.events[0], "log 2026-11-30")
    ops.remove_event(wb, wb.events.events[1], "log 2026-11-30")
    assert len(wb.events.events) == 2 and wb.counts["events_changed"] == 0
    assert threads(wb) == ['- You wrote "Hiked Mount Takao"; does it still hold? (log 2026-11-30)',
                           '- You told me "Dinner"; does it still hold? (log 2026-11-30)']


# -- MEMORY.md lines --------------------------------------------------------------------
def test_a_line_is_added_once_whatever_its_spacing_or_case():
    wb = bench(facts=["- Likes tea (log 2026-11-02)"])
    ops.add_line(wb, FACTS, "- likes  TEA (log 2026-11-02)")
    ops.add_line(wb, FACTS, "- Moved to Lyon (log 2026-11-30)")
    assert wb.memory.items(FACTS) == ["- Likes tea (log 2026-11-02)", "- Moved to Lyon (log 2026-11-30)"]
    assert wb.changes == [f"+ {FACTS}: Moved to Lyon (log 2026-11-30)"]


def test_a_thread_lands_in_open_threads_even_when_the_file_has_none():
    wb = bench()
    del wb.memory.sections[THREADS]  # a file read with one section less
    ops.add_line(wb, THREADS, "- Ask about Lyon (log 2026-11-30)")
    assert threads(wb) == ["- Ask about Lyon (log 2026-11-30)"]


def test_a_rewritten_line_replaces_the_old_in_place():
    wb = bench(facts=["- Likes tea (log 2026-11-02)", "- Moved to Lyon (log 2026-11-02)"])
    ops.rewrite_line(wb, FACTS, "- Likes tea (log 2026-11-02)", "- Likes green tea (log 2026-11-30)", "log 2026-11-30")
    assert wb.memory.items(FACTS) == ["- Likes green tea (log 2026-11-30)", "- Moved to Lyon (log 2026-11-02)"]
    assert wb.changes == [f"~ {FACTS}: Likes tea (log 2026-11-02) -> Likes green tea (log 2026-11-30)"]
    ops.rewrite_line(wb, FACTS, "- Gone already (log 2026-11-02)", "- New (log 2026-11-30)", "log 2026-11-30")
    assert len(wb.memory.items(FACTS)) == 2 and len(wb.changes) == 1  # a line no longer there: nothing


def test_a_rewrite_of_a_hand_line_becomes_a_thread_quoting_both():
    wb = bench(facts=["- Likes tea (hand)"])
    ops.rewrite_line(wb, FACTS, "- Likes tea (hand)", "- Likes coffee (log 2026-11-30)", "log 2026-11-30")
    assert wb.memory.items(FACTS) == ["- Likes tea (hand)"]
    assert threads(wb) == ['- You wrote "Likes tea", but the chats suggest "Likes coffee" (log 2026-11-30)']
    ops.rewrite_line(wb, FACTS, "- Likes tea (hand)", "- Likes cocoa (told)", "told")
    assert threads(wb)[1] == '- You wrote "Likes tea", but the chats suggest "Likes cocoa" (log)'


def test_a_removed_line_goes_and_a_closed_thread_is_listed_as_closed():
    wb = bench(facts=["- Likes tea (log 2026-11-02)"], threads=["- Ask about Lyon (log 2026-11-02)"])
    ops.remove_line(wb, FACTS, "- Likes tea (log 2026-11-02)")
    ops.remove_line(wb, THREADS, "- Ask about Lyon (log 2026-11-02)")
    ops.remove_line(wb, FACTS, "- Not there (log 2026-11-02)")
    assert wb.memory.items(FACTS) == [] and threads(wb) == []
    assert wb.changes == [f"- {FACTS}: Likes tea (log 2026-11-02)", f"✓ closed {THREADS}: Ask about Lyon (log 2026-11-02)"]


def test_a_hand_line_is_never_removed_and_a_thread_of_the_users_is_kept_silently():
    wb = bench(facts=["- Likes tea (hand)"], threads=["- Ask about Lyon (hand)"])
    ops.remove_line(wb, FACTS, "- Likes tea (hand)", "log 2026-11-30")
    ops.remove_line(wb, THREADS, "- Ask about Lyon (hand)", "log 2026-11-30")
    assert wb.memory.items(FACTS) == ["- Likes tea (hand)"]
    assert threads(wb) == ["- Ask about Lyon (hand)", '- You wrote "Likes tea"; does it still hold? (log 2026-11-30)']
    told = bench(threads=["- Ask about Lyon (told)"])
    ops.remove_line(told, THREADS, "- Ask about Lyon (told)")  # a told thread closes like any other
    assert threads(told) == []


# -- PROFILE.md -------------------------------------------------------------------------
def test_a_field_is_set_and_an_alias_or_tag_added_once():
    wb = bench()
    ops.set_field(wb, "mbti", "ENFP")
    ops.set_field(wb, "mbti", "ENFP")
    ops.set_field(wb, "alias", "Ali")
    ops.set_field(wb, "alias", " ali ")
    ops.set_field(wb, "tag", "climber")
    meta = wb.profile.doc.meta
    assert (meta["mbti"], meta["aliases"], meta["tags"]) == ("ENFP", ["Ali"], ["climber"])
    assert wb.changes == ["~ profile mbti: None -> ENFP", "+ profile aliases: Ali", "+ profile tags: climber"]


def test_a_field_the_user_wrote_by_hand_stays_and_the_change_becomes_a_thread():
    line = "gender: female  # she said so"
    wb = bench(hand={line})
    ops.set_field(wb, "gender", "male")
    assert wb.profile.doc.meta["gender"] == "female" and wb.changes == [f"+ {THREADS}: " + threads(wb)[0][2:]]
    assert threads(wb) == [f'- You wrote "{line}", but the chats suggest "gender: male" (log)']
    ops.set_field(wb, "relation", "dating")  # not written by hand
    assert wb.profile.doc.meta["relation"] == "dating"


def test_a_profile_note_is_appended_to_its_section_and_every_other_byte_stays():
    wb = bench()
    ops.add_profile_note(wb, "Likes", "- Pottery (log 2026-11-30)")
    ops.add_profile_note(wb, "Dislikes", "- Crowds (log 2026-11-30)")
    ops.add_profile_note(wb, "Background", "- Studied in Paris (log 2026-11-30)")
    ops.add_profile_note(wb, "Boundaries", "- No calls after ten (log 2026-11-30)")
    ops.add_profile_note(wb, "Likes", "- pottery (log 2026-11-30)")  # already there
    assert wb.profile.doc.body == PROFILE.split("---\n", 2)[2].replace(
        "- Hiking (hand)\n", "- Hiking (hand)\n- Pottery (log 2026-11-30)\n").replace(
        "## Dislikes\n", "## Dislikes\n\n- Crowds (log 2026-11-30)\n").replace(
        "- Grew up in Lyon (log 2026-11-02)\n", "- Grew up in Lyon (log 2026-11-02)\n"
        "- Studied in Paris (log 2026-11-30)\n\n## Boundaries\n\n- No calls after ten (log 2026-11-30)\n")
    assert wb.changes == ["+ profile Likes: Pottery (log 2026-11-30)", "+ profile Dislikes: Crowds (log 2026-11-30)",
                          "+ profile Background: Studied in Paris (log 2026-11-30)",
                          "+ profile Boundaries: No calls after ten (log 2026-11-30)"]


def test_a_profile_note_rewritten_or_removed_in_place():
    wb = bench()
    ops.rewrite_profile_note(wb, "Likes", "- Green tea (log 2026-11-02)", "- Jasmine tea (log 2026-11-30)",
                             "log 2026-11-30")
    ops.rewrite_profile_note(wb, "Background", "- Grew up in Lyon (log 2026-11-02)", None, None)
    body = PROFILE.split("---\n", 2)[2]
    assert wb.profile.doc.body == body.replace("Green tea (log 2026-11-02)", "Jasmine tea (log 2026-11-30)").replace(
        "- Grew up in Lyon (log 2026-11-02)\n", "")
    assert wb.changes == ["~ profile Likes: Green tea (log 2026-11-02) -> Jasmine tea (log 2026-11-30)",
                          "- profile Background: Grew up in Lyon (log 2026-11-02)"]


def test_a_profile_note_not_found_in_its_section_changes_nothing():
    wb = bench()
    ops.rewrite_profile_note(wb, "Dislikes", "- Green tea (log 2026-11-02)", None, None)  # another section's
    ops.rewrite_profile_note(wb, "Hobbies", "- Green tea (log 2026-11-02)", None, None)  # no such section
    assert wb.profile.doc.body == PROFILE.split("---\n", 2)[2] and wb.changes == []


def test_the_users_profile_note_stays_and_a_rewrite_of_it_becomes_a_thread():
    wb = bench()
    ops.rewrite_profile_note(wb, "Likes", "- Hiking (hand)", "- Climbing (log 2026-11-30)", "log 2026-11-30")
    ops.rewrite_profile_note(wb, "Likes", "- Hiking (hand)", None, None)
    assert wb.profile.doc.body == PROFILE.split("---\n", 2)[2]
    assert threads(wb) == ['- You wrote "Hiking", but the chats suggest "Climbing" (log 2026-11-30)']


def test_a_link_to_another_person_is_added_once():
    wb = bench()
    ops.add_link(wb, "bob", "her brother")
    ops.add_link(wb, "bob", "her big brother")
    ops.add_link(wb, "carol", "her friend")
    assert wb.profile.doc.meta["related"] == [{"person": "bob", "as": "her brother"},
                                              {"person": "carol", "as": "her friend"}]
    assert wb.changes == ["+ profile related: bob (her brother)", "+ profile related: carol (her friend)"]


def test_a_profile_note_of_a_later_section_is_not_taken_for_one_of_this_section():
    wb = bench()
    ops.rewrite_profile_note(wb, "Likes", "- Grew up in Lyon (log 2026-11-02)", None, None)
    assert wb.profile.doc.body == PROFILE.split("---\n", 2)[2] and wb.changes == []
    ops.rewrite_profile_note(wb, "Background", "- Grew up in Lyon (log 2026-11-02)", None, None)
    assert "Grew up in Lyon" not in wb.profile.doc.body  # in its own section it is found


def test_a_rewrite_of_the_users_profile_note_quotes_it_whole_and_says_log_without_a_source():
    wb = bench(profile=PROFILE.replace("- Hiking (hand)", "- Xi'an street food (hand)"))
    ops.rewrite_profile_note(wb, "Likes", "- Xi'an street food (hand)", "- Xi'an noodles (told)", None)
    assert threads(wb) == ['- You wrote "Xi\'an street food", but the chats suggest "Xi\'an noodles" (log)']


# -- what becomes a question ------------------------------------------------------------
def test_a_link_question_is_about_this_person_quotes_its_entries_and_says_why():
    found = [LogItem("L1", "2026-11-30", dailylog.Entry("20:01:00", "me", "Bob is her brother"))]
    q = asking.link_question(bench(), "bob", "her brother", found)
    assert (q.person, q.kind, q.reason) == ("alice", "link", "a link says who two people are to each other")
    assert q.evidence == [{"day": "2026-11-30", "time": "20:01:00", "speaker": "me", "text": "Bob is her brother"}]


def test_removing_a_told_line_is_not_asked_when_a_statement_holds_exactly_half_its_words():
    told = "- Berlin flat deposit Miso (told)"
    assert asking.holds("Berlin flat", told)  # two of four words: half holds it
    assert not asking.holds("Miso", told)
    wb = bench(facts=[told])
    assert asking.removal_asked(wb, FACTS, told, ["Berlin flat"]) == ""


def test_a_question_on_a_line_shows_it_without_its_dash_source_or_doubled_spaces():
    wb = bench()
    q = asking.removal_question(wb, "EVENTS.md", "Likes", "- Xi'an  street food (hand)", "you wrote this line by hand")
    assert (q.person, q.what) == ("alice", "EVENTS.md Likes: remove Xi'an street food")
    q = asking.rewrite_question(wb, "MEMORY.md", FACTS, "- Xi'an  food (told)", "- Xining  noodles (log 2026-11-30)",
                                [], "you told this")
    assert (q.person, q.what) == ("alice", f"MEMORY.md {FACTS}: Xi'an food → Xining noodles")


def test_a_note_in_a_new_section_follows_the_body_after_one_blank_line():
    profile = PROFILE.replace("- Grew up in Lyon (log 2026-11-02)\n", "- Grew up near Malcolm X  \n\n\n")
    wb = bench(profile=profile)
    ops.add_profile_note(wb, "Boundaries", "- No calls after ten (log 2026-11-30)")
    assert wb.profile.doc.body.endswith("## Background\n- Grew up near Malcolm X  \n\n## Boundaries\n\n"
                                        "- No calls after ten (log 2026-11-30)\n")


def test_a_note_goes_right_after_its_sections_last_line_and_keeps_what_follows():
    profile = PROFILE.replace("- Hiking (hand)\n", "- Hiking with X  \n").replace(
        "- Grew up in Lyon (log 2026-11-02)\n", "- Grew up in Lyon (log 2026-11-02)")  # no newline at the end
    wb = bench(profile=profile)
    ops.add_profile_note(wb, "Likes", "- Pottery (log 2026-11-30)")
    ops.add_profile_note(wb, "Background", "- Studied in Paris (log 2026-11-30)")
    body = wb.profile.doc.body
    assert "- Hiking with X  \n- Pottery (log 2026-11-30)\n\n## Dislikes" in body
    assert body.endswith("- Grew up in Lyon (log 2026-11-02)\n- Studied in Paris (log 2026-11-30)\n")


def test_an_alias_question_is_about_this_person_and_quotes_its_entries():
    found = [LogItem("L1", "2026-11-30", dailylog.Entry("20:01:00", "me", "we call her Ali"))]
    q = asking.field_question(bench(), "alias", "Ali", found)
    assert (q.person, q.evidence[0]["text"]) == ("alice", "we call her Ali")
    assert q.reason == "an alias routes the messages of imports and chats to this person"


def test_a_changed_field_lists_its_old_value_and_a_removed_hand_line_asks_from_the_log():
    wb = bench(facts=["- Likes tea (hand)"])
    ops.set_field(wb, "relation", "dating")
    ops.remove_line(wb, FACTS, "- Likes tea (hand)")
    assert wb.changes[0] == "~ profile relation: friend -> dating"
    assert threads(wb) == ['- You wrote "Likes tea"; does it still hold? (log)']


def test_a_thread_for_the_users_line_cites_a_days_log_or_else_just_log():
    wb = bench(facts=["- Likes tea (hand)"])
    ops.thread_for_hand_line(wb, "- Likes tea (hand)", "Likes coffee", "log 2026-11-30")
    ops.thread_for_hand_line(wb, "- Likes tea (hand)", "Likes cocoa", "told")
    ops.thread_for_hand_line(wb, "- Likes tea (hand)", "Likes water", None)
    assert threads(wb) == ['- You wrote "Likes tea", but the chats suggest "Likes coffee" (log 2026-11-30)',
                           '- You wrote "Likes tea", but the chats suggest "Likes cocoa" (log)',
                           '- You wrote "Likes tea", but the chats suggest "Likes water" (log)']
