"""The promises of memory/proposal's pure parts, each tested on its own
(issue 29: mutants that survived the suite): a compression says what the
lines it cites say and keeps what the user told; a removal of a told line
is asked unless a statement carries it; the user's hand-written event is
never re-weighted by a duplicate; amounts are read by value (五百五 is 550).
Each test builds the files in memory (no model, no git, no workspace)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.formats import events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal.asking import holds, removal_asked
from heartcompass.memory.proposal.compression import check_compression
from heartcompass.memory.proposal.model import Compressed, Kept
from heartcompass.memory.proposal.numbers import read_numbers
from heartcompass.memory.proposal.operations import add_event, change_event, remove_line
from heartcompass.memory.proposal.workbench import Workbench

TODAY = dt.date(2026, 12, 1)
FACTS = memory_fmt.FACTS
PROFILE = "---\nname: Alice\nrelation: friend\n---\n\n# Alice\n"


def bench(facts: list[str] = (), events: list[str] = (), threads: list[str] = (),
          hand: set[str] = frozenset()) -> Workbench:
    """Alice's files in memory, as read from disk; `hand`: lines git blames on the user."""
    memory = (f"---\nbudget_tokens: 6000\n---\n\n# Memory — Alice\n\n## {FACTS}\n\n" + "".join(f"{x}\n" for x in facts)
              + f"\n## {memory_fmt.CHATS}\n\n## {memory_fmt.THREADS}\n\n" + "".join(f"{x}\n" for x in threads))
    evs = "# Events — Alice\n\n" + "".join(f"{x}\n" for x in events)
    return Workbench("alice", profile_fmt.parse(PROFILE, Path("PROFILE.md")),
                     events_fmt.parse(evs, Path("EVENTS.md")), memory_fmt.parse(memory, Path("MEMORY.md")),
                     set(hand), {"alice"}, TODAY)


def compress(wb: Workbench, *facts: tuple[str, list[str]], threads=()) -> tuple[list[str], dict[str, list[str]]]:
    result = Compressed(facts=[Kept(text=t, lines=ids) for t, ids in facts], chat_notes=[],
                        threads=[Kept(text=t, lines=ids) for t, ids in threads])
    return check_compression(wb, result, max_items=50)


# -- compression ------------------------------------------------------------------------
def test_a_compressed_line_must_share_half_its_words_with_the_lines_it_cites():
    """One shared word is not enough: a line mostly of new words says what
    its lines do not say, and is refused."""
    wb = bench(facts=["- Alice adopted a grey cat named Miso (log 2026-11-02)"])
    problems, _ = compress(wb, ("Alice adopted Miso, then quit banking, bought sailboat, moved Lisbon", ["F1"]))
    assert any("says what no (log 2026-11-02) line of Facts it cites (F1) says" in p for p in problems), problems
    problems, cleaned = compress(wb, ("Alice adopted a grey cat, Miso", ["F1"]))
    assert problems == []
    assert cleaned[FACTS] == ["- Alice adopted a grey cat, Miso (log 2026-11-02)"]


def test_a_compressed_line_with_exactly_half_its_words_from_its_lines_is_kept():
    """Half is enough (the boundary): four words, two of them the line's."""
    wb = bench(facts=["- Miso sleeps all day (log 2026-11-02)"])
    problems, cleaned = compress(wb, ("Miso sleeps, purrs, climbs", ["F1"]))
    assert problems == [] and cleaned[FACTS] == ["- Miso sleeps, purrs, climbs (log 2026-11-02)"]


def test_a_told_line_cited_by_a_line_that_drops_its_substance_is_not_merged():
    """Citing a told line is not carrying it: the line that cites it must
    hold half its words (and all its numbers), or the compression dropped it."""
    told_move = "- Alice moved to Berlin in spring for her new job (told)"
    told_cat = "- Alice adopted a grey cat named Miso (told)"
    wb = bench(facts=[told_move, told_cat])
    problems, _ = compress(wb, ("Alice adopted a grey cat named Miso", ["F1", "F2"]))
    assert problems == [f"compression dropped a line the user told (F1): {told_move[:60]!r}"]
    problems, cleaned = compress(wb, ("Alice moved to Berlin in spring for a new job; adopted grey cat Miso",
                                      ["F1", "F2"]))
    assert problems == []
    assert cleaned[FACTS] == ["- Alice moved to Berlin in spring for a new job; adopted grey cat Miso (told)"]


def test_a_told_line_keeps_its_numbers_through_a_compression():
    wb = bench(facts=["- Alice lent me 550 dollars in March (told)", "- Alice paid back 200 dollars (told)"])
    problems, _ = compress(wb, ("Alice lent me 550 dollars in March, paid back dollars", ["F1", "F2"]))
    assert any("drops 200" in p for p in problems), problems
    assert any("compression dropped a line the user told (F2)" in p for p in problems), problems


def test_a_merged_thread_is_open_until_the_latest_of_its_lines():
    wb = bench(threads=["- Ask about the Osaka trip (until 2026-12) (log 2026-11-02)",
                        "- Ask about the Osaka hotel (until 2027-01-15) (log 2026-11-02)"])
    problems, cleaned = compress(wb, threads=[("Ask about the Osaka trip and hotel", ["T1", "T2"])])
    assert problems == []
    assert cleaned[memory_fmt.THREADS] == ["- Ask about the Osaka trip and hotel (until 2027-01-15) (log 2026-11-02)"]


# -- removing what the user told --------------------------------------------------------
def test_removing_a_told_line_is_asked_unless_a_statement_carries_its_substance():
    told = "- Alice moved to Berlin in spring for her new job (told)"
    wb = bench(facts=[told])
    assert removal_asked(wb, FACTS, told, ["Alice adopted a grey cat named Miso"]) == "you told this"
    assert removal_asked(wb, FACTS, told, []) == "you told this"
    assert removal_asked(wb, FACTS, told, ["Alice moved to Berlin in spring for a new job at a bank"]) == ""
    assert removal_asked(wb, FACTS, "- Alice likes tea (log 2026-11-02)", []) == ""


def test_a_told_line_goes_only_when_merged_and_an_unrelated_citation_raises_a_thread():
    told = "- Alice moved to Berlin in spring for her new job (told)"
    wb = bench(facts=[told])
    remove_line(wb, FACTS, told, merged=["Alice adopted a grey cat named Miso"])
    assert wb.memory.items(FACTS) == [told]
    assert any("Alice moved to Berlin" in t for t in wb.memory.items(memory_fmt.THREADS))
    remove_line(wb, FACTS, told, merged=["Alice moved to Berlin in spring, new job"])
    assert wb.memory.items(FACTS) == []


def test_holding_a_line_needs_all_its_numbers_and_half_its_words():
    old = "- Alice lent me 550 dollars for the Berlin deposit (told)"
    assert holds("Alice lent 550 dollars, Berlin deposit", old)
    assert not holds("Alice lent dollars for the Berlin deposit", old)  # the number is gone
    assert not holds("Alice 550 dollars", old)  # two of five words
    assert holds("anything at all", "- (told)")  # a line with no words is held by any statement


# -- events -----------------------------------------------------------------------------
def test_a_hand_written_event_is_never_re_weighted_by_a_duplicate():
    hand = "- 2026-11-28 · w0.3 · Hiked Mount Takao (hand)"
    wb = bench(events=[hand])
    add_event(wb, dt.date(2026, 11, 28), "Hiked Mount Takao", 0.9, "log 2026-11-28")
    assert [e.render() for e in wb.events.events] == [hand]
    assert wb.changes == []
    ours = bench(events=["- 2026-11-28 · w0.3 · Hiked Mount Takao (log 2026-11-28)"])
    add_event(ours, dt.date(2026, 11, 28), "hiked  mount takao", 0.9, "log 2026-11-28")
    assert [e.render() for e in ours.events.events] == ["- 2026-11-28 · w0.9 · Hiked Mount Takao (log 2026-11-28)"]


def test_a_hand_written_event_is_never_re_weighted_and_a_new_text_for_it_becomes_a_thread():
    """Whatever asks (a duplicate, a statement re-weighting it): the user's
    line stays as written; a different text for it is an open thread."""
    hand = "- 2026-11-28 · w0.3 · Hiked Mount Takao (hand)"
    wb = bench(events=[hand])
    change_event(wb, wb.events.events[0], 0.9, None, None)
    assert [e.render() for e in wb.events.events] == [hand] and wb.changes == []
    change_event(wb, wb.events.events[0], None, "Hiked Mount Fuji", "log 2026-11-29")
    assert [e.render() for e in wb.events.events] == [hand]
    assert wb.memory.items(memory_fmt.THREADS) == [
        '- You wrote "2026-11-28 · w0.3 · Hiked Mount Takao", but the chats suggest '
        '"2026-11-28 · Hiked Mount Fuji" (log 2026-11-29)']
    ours = bench(events=["- 2026-11-28 · w0.3 · Hiked Mount Takao (log 2026-11-28)"])
    change_event(ours, ours.events.events[0], 0.9, None, None)
    assert ours.changes == ["~ event 2026-11-28 · w0.3 · Hiked Mount Takao (log 2026-11-28) -> "
                            "2026-11-28 · w0.9 · Hiked Mount Takao (log 2026-11-28)"]
    assert ours.counts["events_changed"] == 1


def test_a_line_blamed_on_the_user_is_theirs_whatever_its_source_says():
    line = "- 2026-11-28 · w0.3 · Hiked Mount Takao (log 2026-11-28)"
    wb = bench(events=[line], hand={line})
    add_event(wb, dt.date(2026, 11, 28), "Hiked Mount Takao", 0.9, "log 2026-11-29")
    assert [e.render() for e in wb.events.events] == [line]
    add_event(wb, dt.date(2026, 11, 29), "Dinner at her place", 0.5, "log 2026-11-29")
    assert len(wb.events.events) == 2 and wb.counts["events_added"] == 1


# -- amounts ----------------------------------------------------------------------------
def test_wu_bai_wu_is_five_hundred_fifty_and_wu_bai_ling_wu_five_hundred_five():
    assert read_numbers("她借了我五百五块")[1] == {"550"}
    assert read_numbers("她借了我五百零五块")[1] == {"505"}
    assert read_numbers("三四个人")[1] == {"3", "4"}  # three or four


# -- what a compression may not do ------------------------------------------------------
def test_a_compressed_line_must_cite_lines_that_exist():
    wb = bench(facts=["- Alice likes tea (log 2026-11-02)"])
    problems, _ = compress(wb, ("Alice likes tea", ["F1", "F9"]))
    assert problems == ["compressed fact 1: cites F9; name the Facts lines it keeps or merges"]
    problems, _ = compress(wb, ("Alice likes tea", []))
    assert problems == ["compressed fact 1: cites no line; name the Facts lines it keeps or merges"]


def test_a_compression_never_merges_a_hand_written_line_and_never_drops_one():
    hand = "- Alice is allergic to nuts (hand)"
    wb = bench(facts=[hand, "- Alice likes tea (log 2026-11-02)"])
    problems, _ = compress(wb, ("Alice, allergic to nuts, likes tea", ["F1", "F2"]))
    assert problems == ["compressed fact 1: merges a hand-written line (F1), which stays word for word on its own; "
                        "cite only lines of one source"]
    problems, cleaned = compress(wb, ("Alice likes tea", ["F2"]), ("Alice allergic to nuts", ["F1"]))
    assert problems == [] and cleaned[FACTS] == [hand, "- Alice likes tea (log 2026-11-02)"]  # restated: kept as is
    blamed = "- Alice likes green tea (log 2026-11-02)"
    wb = bench(facts=[blamed], hand={blamed})  # git blames it on the user
    problems, cleaned = compress(wb)
    assert problems == [] and cleaned[FACTS] == [blamed]


def test_a_compressed_line_merges_only_lines_of_one_source_and_takes_that_source():
    wb = bench(facts=["- Alice likes tea (log 2026-11-02)", "- Alice likes green tea (told)",
                      "- Alice drinks tea daily"])
    problems, _ = compress(wb, ("Alice likes green tea", ["F1", "F2"]))
    assert problems == ["compressed fact 1: merges lines of different sources ((log 2026-11-02), (told)); "
                        "merge only lines of one source",
                        "compression dropped a line the user told (F2): '- Alice likes green tea (told)'"]
    problems, _ = compress(wb, ("Alice likes tea daily", ["F1", "F3"]), ("Alice likes green tea", ["F2"]))
    assert problems == ["compressed fact 1: cites a line without a source (F1, F3)"]
    problems, cleaned = compress(wb, ("Alice likes green tea (hand)", ["F2"]))
    assert problems == [] and "- Alice likes green tea (told)" in cleaned[FACTS]  # a forged marker goes


def test_a_compressed_line_has_no_number_its_lines_do_not_have():
    wb = bench(facts=["- Alice lent me 500 dollars (log 2026-11-02)"])
    problems, _ = compress(wb, ("Alice lent me 5,000 dollars", ["F1"]))
    assert any("compressed line has 5000, which no (log 2026-11-02) line of Facts it cites (F1) has" in p
               for p in problems), problems
    assert any("compressed line drops 500 of the line it merges (F1)" in p for p in problems), problems
    problems, _ = compress(wb, ("Alice lent me five hundred dollars", ["F1"]))
    assert problems == []


def test_a_compression_over_its_limits_is_refused_before_anything_else():
    wb = bench(facts=["- Alice likes tea (log 2026-11-02)"])
    result = Compressed(facts=[Kept(text="Alice likes tea", lines=["F1"])] * 3, chat_notes=[], threads=[])
    problems, cleaned = check_compression(wb, result, max_items=2)
    assert problems == ["compressed facts: 3 lines (2 at most)"] and cleaned == {}


def test_a_compression_that_leaves_about_me_out_keeps_it_and_a_thread_without_an_end_stays_open():
    wb = bench(threads=["- Ask about the Osaka trip (until 2026-12) (log 2026-11-02)",
                        "- Ask about the Osaka hotel (log 2026-11-02)"])
    problems, cleaned = compress(wb, threads=[("Ask about the Osaka trip and hotel", ["T1", "T2"])])
    assert problems == []
    assert cleaned[memory_fmt.THREADS] == ["- Ask about the Osaka trip and hotel (log 2026-11-02)"]
    assert memory_fmt.ABOUT_ME not in cleaned


# -- what becomes a question ------------------------------------------------------------
from heartcompass.formats import dailylog  # noqa: E402
from heartcompass.memory.proposal import asking  # noqa: E402
from heartcompass.memory.proposal.workbench import LogItem  # noqa: E402


def said(text: str, speaker: str = "me") -> list[LogItem]:
    return [LogItem("L1", "2026-11-30", dailylog.Entry("20:01:00", speaker, text))]


def test_a_question_quotes_the_entries_it_rests_on():
    assert asking.quoted(said("she is my sister now")) == [
        {"day": "2026-11-30", "time": "20:01:00", "speaker": "me", "text": "she is my sister now"}]


def test_what_changes_who_someone_is_is_asked_and_only_when_it_would_change():
    wb = bench()
    wb.profile.doc.meta.update({"gender": "female", "aliases": ["Ali"]})
    assert asking.field_asked(wb, "relation", "dating")
    assert not asking.field_asked(wb, "relation", "friend")  # what it already is
    assert asking.field_asked(wb, "birthday", "1990-05-01")  # none yet
    assert not asking.field_asked(wb, "gender", "female")
    assert not asking.field_asked(wb, "mbti", "ENFP")  # not one that changes who someone is
    assert asking.field_asked(wb, "alias", "Lissy") and not asking.field_asked(wb, "alias", " ali ")


def test_a_field_question_says_old_and_new_and_an_alias_question_why_it_matters():
    wb = bench()
    q = asking.field_question(wb, "relation", "dating", said("we are dating"))
    assert (q.person, q.kind, q.change, q.what, q.reason) == (
        "alice", "field", {"field": "relation", "value": "dating", "old": "friend"}, "relation: friend → dating",
        "a relation changes who someone is")
    assert q.evidence[0]["text"] == "we are dating"
    q = asking.field_question(wb, "birthday", "1990-05-01", [])
    assert q.change["old"] is None and q.what == "birthday: — → 1990-05-01"
    q = asking.field_question(wb, "alias", "Lissy", [])
    assert (q.kind, q.change, q.what) == ("alias", {"value": "Lissy"}, "alias: + Lissy")
    assert "routes the messages" in q.reason
    q = asking.link_question(wb, "bob", "her brother", [])
    assert (q.kind, q.change, q.what) == ("link", {"person": "bob", "words": "her brother"},
                                          "related: + bob (her brother)")


def test_whose_line_it_is_decides_who_may_change_it():
    wb = bench(hand={"- Likes tea (log 2026-11-02)"})
    assert asking.whose(wb, "- Likes tea (hand)") == "you wrote this line by hand"
    assert asking.whose(wb, "- Likes tea (log 2026-11-02)") == "you wrote this line by hand"  # blamed on the user
    assert asking.whose(wb, "- Likes tea (told)") == "you told this"
    assert asking.whose(wb, "- No calls after ten (log 2026-11-02)", "Boundaries") == "a boundary is the person's own"
    assert asking.whose(wb, "- Likes coffee (log 2026-11-02)", "Likes") == ""


def test_a_rewrite_or_removal_question_shows_the_lines_without_their_sources():
    wb = bench()
    q = asking.rewrite_question(wb, "MEMORY.md", "Facts", "- Likes tea (told)", "- Likes green tea (log 2026-11-30)",
                                said("green tea now"), "you told this")
    assert q.what == "MEMORY.md Facts: Likes tea → Likes green tea" and q.kind == "rewrite"
    assert q.change == {"file": "MEMORY.md", "section": "Facts", "old": "- Likes tea (told)",
                        "new": "- Likes green tea (log 2026-11-30)"}
    q = asking.removal_question(wb, "PROFILE.md", "Likes", "- Likes tea (hand)", "you wrote this line by hand")
    assert q.what == "PROFILE.md Likes: remove Likes tea" and q.evidence == [] and q.kind == "removal"
    assert q.change == {"file": "PROFILE.md", "section": "Likes", "old": "- Likes tea (hand)"}


def test_removing_a_hand_line_is_asked_and_an_open_thread_goes_freely():
    wb = bench()
    assert removal_asked(wb, FACTS, "- Likes tea (hand)", ["Likes tea"]) == "you wrote this line by hand"
    assert removal_asked(wb, memory_fmt.THREADS, "- Ask about the trip (told)", []) == ""


def test_english_number_words_add_up_by_place():
    """Twenty-one is 21 (units added to tens); a hundred before thousand
    multiplies it (100,000), it is not a scale of its own."""
    assert read_numbers("twenty-one days")[1] == {"21"}
    assert read_numbers("a hundred thousand dollars")[1] == {"100000"}
    assert read_numbers("three hundred forty two thousand")[1] == {"342000"}
    assert read_numbers("an hundred and one")[1] == {"101"}
