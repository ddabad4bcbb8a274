"""The promises of formats/ tested on their pure functions (issue 29:
mutants that survived the suite): a thread `(until 2023-08)` is open to the
end of August; a file that does not parse says which line and why; an
unchanged file renders byte for byte; sections we add land where they
belong. No workspace, no git: texts in, values out."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from heartcompass.errors import FormatError
from heartcompass.formats import memory as memory_fmt

d = dt.date
MEMORY = Path("MEMORY.md")


def memory_text(threads: str = "", extra: str = "", meta: str = "budget_tokens: 6000\n") -> str:
    return (f"---\n{meta}---\n\n# Memory — Alice\n\n## Facts\n\n- Likes tea (hand)\n\n## From our chats\n\n"
            f"## Open threads\n\n{threads}\n## About me\n\n{extra}")


# -- until ------------------------------------------------------------------------------
@pytest.mark.parametrize("written, last_day", [
    ("(until 2023-08)", d(2023, 8, 31)), ("(until 2023-12)", d(2023, 12, 31)), ("(until 2024-02)", d(2024, 2, 29)),
    ("(until 2023-02)", d(2023, 2, 28)), ("(until 2023-01)", d(2023, 1, 31)), ("(until 2023-04)", d(2023, 4, 30)),
    ("(until 2023-8)", d(2023, 8, 31)), ("(until 2023-08-10)", d(2023, 8, 10)), ("（until: 2023-08）", d(2023, 8, 31)),
    ("(Until 2023-08-01)", d(2023, 8, 1)),
])
def test_a_thread_is_open_until_the_last_day_it_names(written, last_day):
    """A month means its last day, not its first: `(until 2023-08)` is open
    through 31 August."""
    assert memory_fmt.until(f"- Plan a trip {written} (log 2023-05-01)") == last_day


def test_a_thread_of_a_month_has_passed_only_after_that_month_ends():
    line = "- Plan a trip for the summer (until 2023-08) (log 2023-05-01)"
    assert not memory_fmt.is_past(line, d(2023, 8, 1))
    assert not memory_fmt.is_past(line, d(2023, 8, 31))
    assert memory_fmt.is_past(line, d(2023, 9, 1))
    assert not memory_fmt.is_past("- Ask about her sister (log 2023-05-01)", d(2099, 1, 1))  # no end: open


@pytest.mark.parametrize("line", ["- Trip (until 2023-13) (log 2023-05-01)", "- Trip (until 2023-02-30) (told)",
                                  "- Trip (until 2023-00) (told)", "- Trip until 2023-08 (told)", "- Trip (told)"])
def test_a_thread_without_a_real_end_has_none(line):
    assert memory_fmt.until(line) is None
    assert not memory_fmt.is_past(line, d(2099, 1, 1))


def test_setting_a_threads_end_replaces_the_old_one_and_none_drops_it():
    assert memory_fmt.with_until("Plan a trip (until 2023-08)", "2023-09") == "Plan a trip (until 2023-09)"
    assert memory_fmt.with_until("Plan a trip （until: 2023-08）  ", None) == "Plan a trip"
    assert memory_fmt.with_until("Plan a trip", "2024-01-15") == "Plan a trip (until 2024-01-15)"


def test_a_thread_with_an_impossible_end_is_a_format_error_on_its_line():
    text = memory_text("- Ask about the trip (log 2023-05-01)\n- Plan a trip (until 2023-13) (log 2023-05-01)\n")
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(text, MEMORY)
    assert err.value.line == text.splitlines().index("- Plan a trip (until 2023-13) (log 2023-05-01)") + 1
    assert "'until 2023-13' is not a real date" in str(err.value)
    ok = memory_fmt.parse(memory_text("- Plan a trip (until 2023-12) (log 2023-05-01)\n"), MEMORY)
    assert ok.items(memory_fmt.THREADS) == ["- Plan a trip (until 2023-12) (log 2023-05-01)"]


# -- a day's log merged from two devices (logmerge) -------------------------------------
from heartcompass.formats import dailylog, logmerge, mentions as mentions_fmt  # noqa: E402

HEAD = "---\ndate: 2026-12-02\n---\n\n"


def log(*lines: str) -> str:
    return HEAD + "".join(f"{x}\n" for x in lines)


def test_two_devices_appends_merge_as_a_union_interleaved_by_time():
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:05:00 · me · from the laptop", "- 09:20:00 · me · later laptop")
    theirs = log("- 09:00:00 · me · hi", "- 09:10:00 · me · from the phone")
    assert logmerge.union(base, ours, theirs, "log.md") == log(
        "- 09:00:00 · me · hi", "- 09:05:00 · me · from the laptop", "- 09:10:00 · me · from the phone",
        "- 09:20:00 · me · later laptop")


def test_an_entry_both_devices_appended_is_kept_once_and_a_tie_in_time_puts_ours_first():
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:05:00 · me · same", "- 09:06:00 · me · ours")
    theirs = log("- 09:00:00 · me · hi", "- 09:05:00 · me · same", "- 09:06:00 · me · theirs")
    assert logmerge.union(base, ours, theirs, "log.md") == log(
        "- 09:00:00 · me · hi", "- 09:05:00 · me · same", "- 09:06:00 · me · ours", "- 09:06:00 · me · theirs")


def test_a_changed_or_removed_common_entry_is_a_real_edit_and_not_merged():
    base = log("- 09:00:00 · me · hi", "- 09:01:00 · me · there")
    edited = log("- 09:00:00 · me · hello", "- 09:01:00 · me · there", "- 09:02:00 · me · new")
    grown = log("- 09:00:00 · me · hi", "- 09:01:00 · me · there", "- 09:03:00 · me · more")
    assert logmerge.union(base, edited, grown, "log.md") is None
    assert logmerge.union(base, grown, edited, "log.md") is None
    assert logmerge.union(base, grown, log("- 09:00:00 · me · hi"), "log.md") is None  # one removed
    assert logmerge.union(base, "- not a log entry\n", grown, "log.md") is None  # does not parse


def test_without_a_common_version_both_sides_are_new_and_the_front_is_kept():
    merged = logmerge.union(None, log("- 09:05:00 · me · a"), log("- 09:01:00 · me · b"), "log.md")
    assert merged == log("- 09:01:00 · me · b", "- 09:05:00 · me · a")
    assert logmerge.union(None, "", log("- 09:01:00 · me · b"), "log.md") == log("- 09:01:00 · me · b")


def test_a_marker_still_names_what_it_marked_after_the_merge():
    """Positions are the merged file's: their 'supersedes 3' is the reply
    now at position 4, a range moves as a whole."""
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:02:00 · me · laptop")
    theirs = log("- 09:00:00 · me · hi", "- 09:03:00 · persona · first", "- 09:03:30 · persona · second",
                 "- 09:04:00 · mark [supersedes 2-3] · replaced by /retry", "- 09:04:10 · persona · better",
                 "- 09:05:00 · mark [discards 1] · not for the gardener")
    merged = logmerge.union(base, ours, theirs, "log.md")
    assert merged == log("- 09:00:00 · me · hi", "- 09:02:00 · me · laptop", "- 09:03:00 · persona · first",
                         "- 09:03:30 · persona · second", "- 09:04:00 · mark [supersedes 3-4] · replaced by /retry",
                         "- 09:04:10 · persona · better", "- 09:05:00 · mark [discards 1] · not for the gardener")
    entries = dailylog.parse(merged, "log.md")
    assert [entries[i].text for i in sorted(dailylog.marked(entries))] == ["hi", "first", "second"]


def test_a_marker_naming_an_entry_both_sides_appended_follows_ours():
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:02:00 · note · twice")
    theirs = log("- 09:00:00 · me · hi", "- 09:01:00 · me · phone", "- 09:02:00 · note · twice",
                 "- 09:03:00 · mark [applied 3] · told")
    merged = logmerge.union(base, ours, theirs, "log.md")
    assert merged == log("- 09:00:00 · me · hi", "- 09:01:00 · me · phone", "- 09:02:00 · note · twice",
                         "- 09:03:00 · mark [applied 3] · told")
    ours = log("- 09:00:00 · me · hi", "- 09:00:30 · me · laptop", "- 09:02:00 · note · twice")
    merged = logmerge.union(base, ours, theirs, "log.md")
    assert merged.endswith("- 09:02:00 · note · twice\n- 09:03:00 · mark [applied 4] · told\n")
    assert merged.count("twice") == 1


def test_an_unknown_verb_or_a_position_out_of_range_is_left_as_written():
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:01:00 · me · a")
    theirs = log("- 09:00:00 · me · hi", "- 09:02:00 · mark [pins 1] · ?", "- 09:03:00 · mark [discards 9 x] · ?")
    merged = logmerge.union(base, ours, theirs, "log.md")
    assert "- 09:02:00 · mark [pins 1] · ?\n- 09:03:00 · mark [discards 9 x] · ?\n" in merged


def test_markers_moved_down_a_file_keep_naming_their_entries():
    entries = [dailylog.Entry("09:00:00", "me", "a"),
               dailylog.Entry("09:01:00", dailylog.MARK, "why", ["supersedes 1 3-4 x", "other 3"])]
    moved = dailylog.renumbered(entries, since=2, by=5)
    assert moved[0] is entries[0]
    assert moved[1].tags == ["supersedes 1 8-9 x", "other 3"]
    assert dailylog.renumbered(entries, since=0, by=0)[1].tags == entries[1].tags
    assert dailylog.renumbered(entries, since=3, by=2)[1].tags == ["supersedes 1 3-6 x", "other 3"]


def test_a_marker_names_runs_of_positions_one_based():
    assert dailylog.marker("09:00:00", "discards", [3, 0, 1, 2, 5], "why").tags == ["discards 1-4 6"]
    assert dailylog.marker("09:00:00", "applied", [4], "why").render() == "- 09:00:00 · mark [applied 5] · why\n"
    with pytest.raises(ValueError):
        dailylog.marker("09:00:00", "pins", [1], "why")


# -- People in their life (mentions) ----------------------------------------------------
def test_a_mention_line_reads_into_its_parts():
    m = mentions_fmt.parse_line("- [m3] Sara (daughter; aka my daughter, 小女儿; → sara): Plays the violin; "
                                "8 years old (log 2026-03-02)")
    assert (m.id, m.name, m.role, m.aliases, m.person, m.notes, m.source) == (
        "m3", "Sara", "daughter", ["my daughter", "小女儿"], "sara", ["Plays the violin", "8 years old"],
        "log 2026-03-02")
    assert m.names() == ["Sara", "my daughter", "小女儿"]


def test_a_hand_written_mention_is_read_tolerantly():
    m = mentions_fmt.parse_line("- Rob：From the yoga class (told)")
    assert (m.id, m.name, m.role, m.notes, m.source) == ("", "Rob", "", ["From the yoga class"], "told")
    m = mentions_fmt.parse_line("- Mia (friend; neighbour; 又名 米娅、Mimi; -> mia)")
    assert (m.role, m.notes, m.aliases, m.person) == ("friend", ["neighbour"], ["米娅", "Mimi"], "mia")
    assert mentions_fmt.parse_line("- Tom") == mentions_fmt.Mention("Tom", raw="- Tom")
    assert mentions_fmt.parse_line("Tom (friend)") is None and mentions_fmt.parse_line("") is None


def test_an_unchanged_mention_renders_as_read_and_a_changed_one_cleanly():
    line = "- [m3]  Sara ( daughter ): violin (log 2026-03-02)"
    m = mentions_fmt.parse_line(line)
    assert mentions_fmt.render_line(m) == line
    changed = m.changed(notes=["violin; piano", "8 (years)"], aliases=["Sa"], person="sara")
    assert mentions_fmt.render_line(changed) == \
        "- [m3] Sara (daughter; aka Sa; → sara): violin, piano; 8 years (log 2026-03-02)"
    assert mentions_fmt.render_line(mentions_fmt.Mention("Bo (the dog)")) == "- Bo the dog"


def test_hand_written_mentions_get_the_next_free_ids():
    ms = [mentions_fmt.parse_line(x) for x in ("- [m2] A", "- B", "- [m7] C", "- D")]
    assert [m.id for m in mentions_fmt.with_ids(ms)] == ["m2", "m8", "m7", "m9"]
    assert mentions_fmt.with_ids(ms)[0] is ms[0]
    assert mentions_fmt.next_id(ms) == "m8" and mentions_fmt.next_id([]) == "m1"


def test_writing_mentions_replaces_the_lines_in_place_and_keeps_the_rest():
    body = "# Alice\n\n## People in their life\n\n<!-- mine -->\n- [m1] Sara\n- Rob\n\n## Likes\n\n- tea\n"
    ms = mentions_fmt.read(body)
    assert [m.name for m in ms] == ["Sara", "Rob"]
    assert mentions_fmt.write(body, ms) == body  # unchanged: byte for byte
    more = [ms[0].changed(notes=["violin"]), ms[1], mentions_fmt.Mention("Mia", id="m2")]
    assert mentions_fmt.write(body, more) == ("# Alice\n\n## People in their life\n\n<!-- mine -->\n"
                                              "- [m1] Sara: violin\n- Rob\n- [m2] Mia\n\n## Likes\n\n- tea\n")
    assert mentions_fmt.write(body, [ms[1]]) == ("# Alice\n\n## People in their life\n\n<!-- mine -->\n- Rob\n"
                                                 "\n## Likes\n\n- tea\n")


def test_a_body_without_the_section_gets_it_at_its_end_only_when_there_is_someone():
    assert mentions_fmt.write("# Alice\n", []) == "# Alice\n"
    assert mentions_fmt.write("# Alice", [mentions_fmt.Mention("Mia")]) == \
        "# Alice\n\n## People in their life\n\n- Mia\n"
    assert mentions_fmt.read("# Alice\n") == []
    empty = "## People in their life\n## Likes\n"
    assert mentions_fmt.write(empty, [mentions_fmt.Mention("Mia")]) == "## People in their life\n\n- Mia\n## Likes\n"
