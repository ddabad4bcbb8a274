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


def test_a_marker_naming_several_entries_follows_each_of_them():
    """'discards 1 3' names two entries: the one that did not move stays 1,
    the one that did is renumbered; a tag that is no marker's stays as it is."""
    base = log("- 09:00:00 · me · hi")
    ours = log("- 09:00:00 · me · hi", "- 09:01:00 · me · laptop")
    theirs = log("- 09:00:00 · me · hi", "- 09:02:00 · note · a", "- 09:03:00 · note · b",
                 "- 09:04:00 · mark [pins 1, discards 1 3] · no")
    merged = logmerge.union(base, ours, theirs, "log.md")
    assert merged.endswith("- 09:04:00 · mark [pins 1, discards 1 4] · no\n")
    assert [e.text for e in dailylog.effective_entries(dailylog.parse(merged, "log.md"))] == ["laptop", "a"]


def test_a_side_that_does_not_parse_is_no_union():
    ok = log("- 09:00:00 · me · hi")
    assert logmerge.union("- not a log entry\n", ok, ok, "log.md") is None
    assert logmerge.union(ok, ok, "- not a log entry\n", "log.md") is None
    assert logmerge.union(ok, ok, ok, "log.md") == ok  # the same file: itself


def test_a_merge_keeps_our_header_and_two_empty_logs_stay_empty():
    ours = "---\ndate: 2026-12-02\n---\n\n\n- 09:01:00 · me · a\n"
    theirs = log("- 09:02:00 · me · b")
    assert logmerge.union(None, ours, theirs, "log.md") == "---\ndate: 2026-12-02\n---\n\n\n" + \
        "- 09:01:00 · me · a\n- 09:02:00 · me · b\n"
    assert logmerge.union(None, HEAD, HEAD, "log.md") == HEAD


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
    with pytest.raises(ValueError, match="unknown marker verb 'pins'"):
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


def test_a_mention_reads_every_alias_and_extra_role_in_the_order_written():
    m = mentions_fmt.parse_line("- Mia (friend; neighbour; aka Mimi; old pal; 又名 米娅): likes tea; runs")
    assert (m.role, m.aliases, m.notes) == ("friend", ["Mimi", "米娅"], ["neighbour", "old pal", "likes tea", "runs"])
    odd = mentions_fmt.parse_line("- Sara (daughter) plays (told)")  # not name (who): notes
    assert (odd.name, odd.role, odd.notes, odd.source) == ("Sara (daughter) plays", "", [], "told")
    assert mentions_fmt.parse_line("- Bo ()").role == "" and mentions_fmt.parse_line("- Bo ()").notes == []
    assert m.changed(role="pal").raw == "" and mentions_fmt.render_line(m.changed(role="pal")).startswith("- Mia (pal;")


def test_a_changed_mention_keeps_each_part_whole_and_every_letter():
    """A separator inside a part becomes a comma, so the line reads back
    with the same role and notes; no letter of a name is lost."""
    m = mentions_fmt.Mention("Xavier XU", role="friend; DJ X", aliases=["Xu", "小徐"], person="xu",
                             notes=["owns an X;", "; plays XBOX"], source="told", id="m4")
    line = mentions_fmt.render_line(m)
    assert line == "- [m4] Xavier XU (friend, DJ X; aka Xu, 小徐; → xu): owns an X; plays XBOX (told)"
    again = mentions_fmt.parse_line(line)
    assert (again.name, again.role, again.aliases, again.person, again.notes) == (
        "Xavier XU", "friend, DJ X", ["Xu", "小徐"], "xu", ["owns an X", "plays XBOX"])


def test_an_empty_mention_section_is_left_as_it_is_when_no_one_is_written():
    assert mentions_fmt.write("## People in their life\n## Likes\n", []) == "## People in their life\n## Likes\n"
    assert mentions_fmt.write("## People in their life\n\n\n## Likes\n", [mentions_fmt.Mention("Mia")]) == \
        "## People in their life\n\n- Mia\n\n\n## Likes\n"


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
    assert mentions_fmt.write("# Alice\n", [mentions_fmt.Mention("Mia"), mentions_fmt.Mention("Rob")]) == \
        "# Alice\n\n## People in their life\n\n- Mia\n- Rob\n"


def test_a_mention_section_at_the_end_of_the_body_is_rewritten_once():
    body = "# Alice\n\n## People in their life\n\n- Sara\n"
    assert mentions_fmt.read(body) == [mentions_fmt.Mention("Sara", raw="- Sara")]
    assert mentions_fmt.section_bounds(body) == (3, 6)
    assert mentions_fmt.write(body, [mentions_fmt.Mention("Sara", notes=["violin"])]) == \
        "# Alice\n\n## People in their life\n\n- Sara: violin\n"
    empty = "## People in their life\n## Likes\n"
    assert mentions_fmt.write(empty, [mentions_fmt.Mention("Mia")]) == "## People in their life\n\n- Mia\n## Likes\n"


# -- VOICE.md ---------------------------------------------------------------------------
from heartcompass.formats import events as events_fmt, voice as voice_fmt  # noqa: E402

VOICE = ('---\nbudget_tokens: 120\nprivate: [salary, " ", 密码]\nrhythm: {messages: 8, median_words: 5, odd: 1}\n---\n'
         '# Voice — Alice\n\n## Their words\n\n- "haha no wayyy" (import 2026-11-02)\n- "好呀～明天见" (quote 2026-11-30)\n'
         '- "ok ok I\'m coming"\n- "see you" (card)\n\n## My words to them\n\n- "miss u" (hand)\n\n'
         '## Inside jokes\n\nthe goose\n')


def test_voice_lines_are_read_with_their_sources_and_only_imports_are_replaceable():
    v = voice_fmt.parse(VOICE, "VOICE.md")
    theirs = v.lines(voice_fmt.THEIRS)
    assert [(x.text, x.source, x.picked) for x in theirs] == [
        ("haha no wayyy", "import 2026-11-02", True), ("好呀～明天见", "quote 2026-11-30", False),
        ("ok ok I'm coming", "hand", False), ("see you", "card", False)]
    assert [x.render() for x in v.lines(voice_fmt.MINE)] == ['- "miss u"']
    assert v.other == {"Inside jokes": ["", "the goose"]}
    assert (v.budget_tokens, v.private, v.rhythm) == (120, ["salary", "密码"], {"messages": 8, "median_words": 5})
    assert v.preamble == "# Voice — Alice\n\n"
    assert voice_fmt.render(v) == VOICE  # unchanged: byte for byte


def test_a_changed_voice_renders_its_sections_in_order_and_keeps_the_users_own():
    v = voice_fmt.parse(VOICE, "VOICE.md")
    v.sections[voice_fmt.MINE].append(voice_fmt.Line("ttyl", "import 2026-12-01"))
    text = voice_fmt.render(v)
    assert '## My words to them\n\n- "miss u"\n- "ttyl" (import 2026-12-01)\n\n## Inside jokes\n\nthe goose\n' in text
    assert voice_fmt.parse(text, "VOICE.md").lines(voice_fmt.MINE)[1] == voice_fmt.Line("ttyl", "import 2026-12-01")


def test_a_voice_keeps_the_text_above_its_sections_and_a_budget_of_one_is_fine():
    for preamble, kept in [("# Voice X  \n\n", "# Voice X  \n\n"), ("", ""), ("# Voice\n\n\n", "# Voice\n\n")]:
        v = voice_fmt.parse(f"---\nbudget_tokens: 1\n---\n{preamble}## Their words\n", "VOICE.md")
        v.sections[voice_fmt.THEIRS].append(voice_fmt.Line("hi"))
        assert v.budget_tokens == 1
        assert voice_fmt.render(v) == f'---\nbudget_tokens: 1\n---\n{kept}## Their words\n\n- "hi"\n\n'
    with pytest.raises(FormatError) as err:
        voice_fmt.parse("## Their words\n\n- " + "q" * 80 + "\n", "VOICE.md")
    assert err.value.problem == f"not a quoted line: {'- ' + 'q' * 58!r}"


@pytest.mark.parametrize("meta, problem", [
    ("budget_tokens: 0\n", "'budget_tokens' must be a positive whole number, not 0"),
    ("budget_tokens: true\n", "'budget_tokens' must be a positive whole number, not True"),
    ("budget_tokens: 1.5\n", "'budget_tokens' must be a positive whole number, not 1.5"),
    ("private: salary\n", "'private' must be a list of words, e.g. [salary, 密码]"),
    ("rhythm: fast\n", "'rhythm' is written by HeartCompass; delete the line to have it learned again"),
])
def test_a_voice_with_bad_settings_says_which_line(meta, problem):
    with pytest.raises(FormatError) as err:
        voice_fmt.parse(f"---\nfirst: 1\n{meta}---\n## Their words\n", "VOICE.md")
    assert err.value.problem == problem and err.value.line == 3


def test_a_voice_line_that_is_not_quoted_is_a_format_error_on_its_line():
    text = '---\nbudget_tokens: 300\n---\n# Voice\n\n## Their words\n\n- "fine"\n- not quoted\n'
    with pytest.raises(FormatError) as err:
        voice_fmt.parse(text, "VOICE.md")
    assert err.value.line == 9 and "not a quoted line: '- not quoted'" in err.value.problem
    assert voice_fmt.parse(text.replace("- not quoted", '- "quoted" (import)'), "VOICE.md").lines(
        voice_fmt.THEIRS)[1].source == "import"


def test_a_new_voice_has_both_sections_and_defaults():
    v = voice_fmt.new("VOICE.md", "Alice")
    assert v.budget_tokens == voice_fmt.DEFAULT_BUDGET == 300 and v.private == [] and v.rhythm == {}
    again = voice_fmt.parse(voice_fmt.render(v), "VOICE.md")
    assert list(again.sections) == [voice_fmt.THEIRS, voice_fmt.MINE]
    assert "# Voice — Alice" in again.preamble


# -- EVENTS.md dates --------------------------------------------------------------------
@pytest.mark.parametrize("written, when", [
    ("2023-06-02", events_fmt.When(d(2023, 6, 2))), ("2023-06", events_fmt.When(d(2023, 6, 1), True)),
    ("2019", events_fmt.When(d(2019, 1, 1), year_only=True)),
    ("~2023-06-02", events_fmt.When(d(2023, 6, 2), approx=True)), (" 2023-06 ", events_fmt.When(d(2023, 6, 1), True)),
])
def test_an_event_date_says_how_precise_it_is_and_is_written_back_the_same(written, when):
    assert events_fmt.parse_when(written) == when
    assert when.text == written.strip()


def test_a_date_is_written_as_precisely_as_it_is_known():
    day = d(2023, 6, 2)
    assert events_fmt.format_when(day) == "2023-06-02" and events_fmt.format_when(day, True) == "2023-06"
    assert events_fmt.format_when(day, approx=True) == "~2023-06-02"
    assert events_fmt.format_when(day, year_only=True) == "2023"


@pytest.mark.parametrize("written, problem", [
    ("2023-02-30", "2023-02-30 is not a real date"), ("2023-13", "2023-13 is not a real month"),
    ("June 2023", "'June 2023' is not a date"), ("", "'' is not a date"),
    ("x" * 40, f"{'x' * 30!r} is not a date (YYYY-MM-DD, YYYY-MM, YYYY or ~YYYY-MM-DD)"),
])
def test_an_event_date_that_is_not_real_says_why(written, problem):
    with pytest.raises(ValueError) as err:
        events_fmt.parse_when(written)
    assert problem in str(err.value)


def test_events_sort_newest_first_a_day_before_its_month_before_its_year():
    lines = ["- 2023 · a year", "- 2023-06 · a month", "- 2023-06-01 · a day", "- ~2023-06-01 · about a day",
             "- 2024-01-01 · w0.25 · newer (hand)"]
    ef = events_fmt.parse("# Events\n\n" + "\n".join(lines) + "\n", Path("EVENTS.md"))
    assert [e.render() for e in ef.sorted_events()] == [
        "- 2024-01-01 · w0.25 · newer (hand)", "- 2023-06-01 · a day", "- ~2023-06-01 · about a day",
        "- 2023-06 · a month", "- 2023 · a year"]
    assert events_fmt.count_events("# Events\n" + "\n".join(lines) + "\n- not an event\n") == 5
    same_day = events_fmt.parse("# Events\n\n- 2023 · year\n- 2023-01 · month\n- 2023-01-01 · day\n", Path("EVENTS.md"))
    assert [e.text for e in same_day.sorted_events()] == ["day", "month", "year"]


def test_an_events_file_renders_unchanged_bytes_and_sorts_only_when_changed():
    text = "# Events\n\n- 2023-01-01 · w0.5 · older\n- 2024-01-01 · newer (told)\n"
    ef = events_fmt.parse(text, Path("EVENTS.md"))
    assert events_fmt.render(ef) == text
    ef.events[0].weight = 0.75
    assert events_fmt.render(ef) == "# Events\n\n- 2024-01-01 · newer (told)\n- 2023-01-01 · w0.75 · older\n"
    with pytest.raises(ValueError, match="EVENTS.md was parsed read-only; load it without readonly to write it"):
        events_fmt.render(events_fmt.parse(text, Path("EVENTS.md"), readonly=True))


@pytest.mark.parametrize("line, problem", [
    ("- 2023-02-30 · x", "2023-02-30 is not a real date"), ("- 2023-13 · x", "2023-13 is not a real month"),
    ("- 2023-06-02 · w1.5 · x", "weight w1.5 is outside 0..1"), ("- 2023-06-02 · (told)", "a date but no text"),
    ("- yesterday · x", "not an event line"),
])
def test_an_event_line_that_does_not_parse_says_which_line_and_why(line, problem):
    with pytest.raises(FormatError) as err:
        events_fmt.parse(f"# Events\n\n- 2023-01-01 · fine\n{line}\n", Path("EVENTS.md"))
    assert problem in err.value.problem and err.value.line == 4


def test_text_after_the_events_is_an_error_and_a_comment_is_not():
    with pytest.raises(FormatError) as err:
        events_fmt.parse("# Events\n\n- 2023-01-01 · fine\nstray words\n", Path("EVENTS.md"))
    assert err.value.line == 4 and "unexpected text after the events" in err.value.problem
    ef = events_fmt.parse("# Events\n\n- 2023-01-01 · fine\n<!-- a note -->\n", Path("EVENTS.md"))
    assert [e.text for e in ef.events] == ["fine"] and ef.preamble == "# Events\n\n"


def test_an_event_keeps_its_source_only_when_it_is_one():
    e = events_fmt.parse_line("- 2023-06-02 · w0.8 · Hiked (with Bo) (log 2023-06-02)", "EVENTS.md", 1)
    assert (e.text, e.source, e.weight) == ("Hiked (with Bo)", "log 2023-06-02", 0.8)
    e = events_fmt.parse_line("- 2023-06-02 · Hiked (with Bo)", "EVENTS.md", 1)
    assert (e.text, e.source, e.weight, e.effective_weight) == ("Hiked (with Bo)", None, None, events_fmt.DEFAULT_WEIGHT)
    assert events_fmt.score(e, d(2023, 6, 2), 30) == events_fmt.DEFAULT_WEIGHT
    assert events_fmt.score(e, d(2023, 7, 2), 30) == pytest.approx(events_fmt.DEFAULT_WEIGHT / 2)
    assert events_fmt.score(e, d(2023, 1, 1), 30) == events_fmt.DEFAULT_WEIGHT  # a future date is not weighted up


# -- handles, file names, conflict marks, bytes -----------------------------------------
from heartcompass.errors import HeartCompassError  # noqa: E402
from heartcompass.formats import profile as profile_fmt, text as text_fmt  # noqa: E402


@pytest.mark.parametrize("handle, key", [
    ("+1 (555) 867-5309", "+15558675309"), ("555.867.5309", "5558675309"), ("@Alice_Chen", "alice_chen"),
    (" Alice Chen ", "alicechen"), ("@@bob", "bob"), ("12345", "12345"), ("+49-30-1234", "+49301234"),
    ("Ａlice", "ａlice"),
])
def test_a_handle_is_compared_by_its_case_free_spaceless_form_and_a_phone_by_its_digits(handle, key):
    assert profile_fmt.handle_key(handle) == key


@pytest.mark.parametrize("kind", ["profile", "PROFILE.md", "profile.md", " Profile "])
def test_a_file_is_named_by_its_kind_in_any_spelling(kind):
    assert text_fmt.file_for(kind) == "PROFILE.md"


def test_an_unknown_file_kind_says_which_ones_there_are():
    with pytest.raises(HeartCompassError) as err:
        text_fmt.file_for("notes")
    assert "Unknown file 'notes'" in str(err.value) and err.value.hint == "Use profile, events, memory or voice."
    assert text_fmt.file_for("voice") == "VOICE.md" and text_fmt.file_for("memory.MD") == "MEMORY.md"


def test_conflict_marks_are_found_only_as_git_writes_them():
    text = "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> origin/main\nb\n"
    assert text_fmt.conflict_line(text) == 2
    assert text_fmt.conflict_line("Title\n=======\n") is None  # a heading's underline
    assert text_fmt.conflict_line("<<<<<<< HEAD\nours\n>>>>>>> x\n") is None  # no divider: not git's
    assert text_fmt.conflict_line("x <<<<<<< HEAD\n=======\n>>>>>>> x\n") is None  # not at a line's start
    assert text_fmt.conflict_line("a\n>>>>>>> x\n", leftovers=True) == 2
    assert text_fmt.conflict_line("a\n<<<<<<<\n", leftovers=True) == 2
    assert text_fmt.conflict_line("a\n>>>>>>> x\n") is None
    with pytest.raises(FormatError) as err:
        text_fmt.check_conflict_marks(text, "MEMORY.md")
    assert err.value.line == 2
    text_fmt.check_conflict_marks("no marks\n", "MEMORY.md")


def test_bytes_that_are_not_text_name_the_line_of_the_first_bad_byte():
    with pytest.raises(FormatError) as err:
        text_fmt.decode(b"ok\nok\n\xff bad\n", "MEMORY.md")
    assert err.value.line == 3 and "byte 0xff" in err.value.problem
    with pytest.raises(FormatError) as err:
        text_fmt.decode(b"ok\n\0", "MEMORY.md")
    assert err.value.line == 2 and "binary" in err.value.problem
    assert text_fmt.decode("好呀\n".encode(), "MEMORY.md") == "好呀\n"


# -- MEMORY.md sections -----------------------------------------------------------------
def test_a_missing_section_of_ours_is_added_after_the_last_of_ours_before_it():
    mem = memory_fmt.parse(memory_text(), MEMORY)
    del mem.sections[memory_fmt.THREADS]
    mem.sections["My own"] = ["- mine"]
    assert memory_fmt.ensure_section(mem, memory_fmt.THREADS) == []
    ours = [memory_fmt.FACTS, memory_fmt.CHATS, memory_fmt.THREADS, memory_fmt.ABOUT_ME]
    assert list(mem.sections) == [*ours, "My own"]
    assert memory_fmt.ensure_section(mem, memory_fmt.FACTS) is mem.sections[memory_fmt.FACTS]
    assert memory_fmt.ensure_section(mem, "Extra") == []  # not ours: after ours, before the user's own
    assert list(mem.sections) == [*ours, "Extra", "My own"]
    bare = memory_fmt.parse(memory_text(), MEMORY)
    bare.sections = {"My own": []}
    memory_fmt.ensure_section(bare, memory_fmt.CHATS)
    assert list(bare.sections) == ["My own", memory_fmt.CHATS]  # none of ours before it: at the end


def test_a_hand_spelled_about_me_is_kept_as_written_and_a_renamed_section_is_named():
    mem = memory_fmt.parse(memory_text().replace("## About me", "## 关于我") + "- 我喜欢茶\n", MEMORY)
    assert mem.items(memory_fmt.ABOUT_ME) == ["- 我喜欢茶"] and mem.spelled == {memory_fmt.ABOUT_ME: "关于我"}
    mem.sections[memory_fmt.ABOUT_ME].append("- 我住在上海")
    assert "## 关于我\n\n- 我喜欢茶\n- 我住在上海\n" in memory_fmt.render(mem)
    text = memory_text().replace("## Facts", "## Fakts")
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(text, MEMORY)
    assert "'## Facts' is missing (is '## Fakts' on this line a renamed one?)" in err.value.problem
    assert err.value.line == text.splitlines().index("## Fakts") + 1


@pytest.mark.parametrize("meta, problem", [
    ("budget_tokens: 0\n", "'budget_tokens' must be a positive whole number"),
    ("budget_tokens: yes\n", "'budget_tokens' must be a positive whole number"),
    ("consolidated: 3\n", "'consolidated' must map log dates to entry counts"),
    ("consolidated: {2026-12-02: -1}\n", "'consolidated' entry 2026-12-02: -1 is not 'date: count'"),
    ("consolidated: {someday: 3}\n", "'consolidated' entry someday: 3 is not 'date: count'"),
])
def test_a_memory_with_bad_settings_says_which_line(meta, problem):
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(memory_text(meta="first: 1\n" + meta), MEMORY)
    assert problem in err.value.problem and err.value.line == 3


def test_the_old_consolidated_map_is_read_and_dropped_and_the_budget_defaults():
    mem = memory_fmt.parse(memory_text(meta="consolidated: {2026-12-02: 14}\n"), MEMORY)
    assert mem.legacy_consolidated == {"2026-12-02": 14} and mem.budget_tokens == memory_fmt.DEFAULT_BUDGET
    mem.drop_legacy()
    assert mem.legacy_consolidated == {} and "consolidated" not in memory_fmt.render(mem)
    new = memory_fmt.new(MEMORY, "Alice", budget_tokens=900)
    assert new.path == MEMORY and new.budget_tokens == 900 and list(new.sections) == list(memory_fmt.KNOWN)
    assert memory_fmt.parse(memory_fmt.render(new), MEMORY).items(memory_fmt.FACTS) == []


def test_mentions_without_ids_are_numbered_from_one():
    ms = [mentions_fmt.Mention("A"), mentions_fmt.Mention("B")]
    assert [m.id for m in mentions_fmt.with_ids(ms)] == ["m1", "m2"]
    assert [mentions_fmt.render_line(m) for m in mentions_fmt.with_ids(ms)] == ["- [m1] A", "- [m2] B"]


def test_a_renumbered_marker_keeps_its_time_text_and_speaker():
    marker = dailylog.Entry("09:01:00", dailylog.MARK, "replaced by /retry", ["supersedes 2"])
    moved = dailylog.renumbered([marker], since=1, by=1)[0]
    assert moved.render() == "- 09:01:00 · mark [supersedes 3] · replaced by /retry\n"


def test_a_section_the_memory_lacks_has_no_items_and_dropping_nothing_is_fine():
    mem = memory_fmt.parse(memory_text(), MEMORY)
    assert mem.items("Nope") == [] and mem.items(memory_fmt.FACTS) == ["- Likes tea (hand)"]
    mem.items(memory_fmt.FACTS).append("- changed a copy")
    assert mem.items(memory_fmt.FACTS) == ["- Likes tea (hand)"]  # a copy: the file's lines change only on purpose
    mem.drop_legacy()  # no old map: nothing to drop, no error
    assert memory_fmt.render(mem) == memory_text()


def test_an_impossible_thread_end_is_named_on_its_line_in_a_file_without_frontmatter():
    text = "\n# Memory\n\n## Facts\n\n## From our chats\n\n## Open threads\n\n- Trip (until 2023-13) (told)\n"
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(text, MEMORY)
    assert err.value.line == 10 == text.splitlines().index("- Trip (until 2023-13) (told)") + 1


def test_a_missing_section_is_named_on_the_right_line_without_frontmatter_and_says_how_to_fix_it():
    text = "\n# Memory\n\n## Facts\n\n## From our chats\n"
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(text, MEMORY)
    assert err.value.line == 6 and err.value.hint == (
        "MEMORY.md needs the sections '## Facts', '## From our chats', '## Open threads', spelled exactly (your own "
        "sections may follow them): rename the heading back or add the missing one.")


def test_an_impossible_thread_end_says_how_to_write_one():
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(memory_text("- Plan a trip (until 2023-13) (told)\n"), MEMORY)
    assert err.value.hint == memory_fmt.UNTIL_HINT


# -- new files --------------------------------------------------------------------------
from heartcompass.formats import frontmatter_doc as fm  # noqa: E402


def test_a_new_events_file_is_where_it_was_made_and_has_no_fields_until_given_some():
    ef = events_fmt.new(Path("people/alice/EVENTS.md"), "Alice")
    assert ef.path == Path("people/alice/EVENTS.md") and ef.doc.meta == {}
    assert events_fmt.render(ef) == "\n# Events — Alice\n\n"
    ef.doc.meta["title"] = "Alice"
    assert events_fmt.render(ef) == "---\ntitle: Alice\n---\n\n# Events — Alice\n\n"


def test_a_new_document_renders_its_frontmatter_and_body():
    doc = fm.new({"name": "Alice", "tags": []}, "\n# Alice\n")
    assert fm.render(doc) == "---\nname: Alice\ntags: []\n---\n\n# Alice\n"
    assert not doc.has_original_text


def test_a_new_profile_holds_what_it_was_given_and_parses_back():
    prof = profile_fmt.new(Path("people/alice/PROFILE.md"), "Alice", "friend", mbti="enfp", aliases=["Ali"],
                           gender="female", about="Met at the climbing gym.", tags=["climbing"],
                           related=[{"person": "bob", "as": "her brother"}],
                           sections={"Background": "Grew up in Lyon.", "Likes": "Tea"}, extra={"birthday": "1990-05-01"})
    assert prof.path == Path("people/alice/PROFILE.md")
    again = profile_fmt.parse(profile_fmt.render(prof), prof.path)
    assert (again.name, again.relation, again.mbti, again.aliases, again.gender, again.tags, again.birthday) == (
        "Alice", "friend", "ENFP", ["Ali"], "female", ["climbing"], "1990-05-01")
    assert again.related == [{"person": "bob", "as": "her brother"}]
    assert again.sections()["Background"] == "Met at the climbing gym.\n\nGrew up in Lyon."
    assert again.sections()["Likes"] == "Tea"
    bare = profile_fmt.parse(profile_fmt.render(profile_fmt.new(Path("P.md"), "Bo", "family")), Path("P.md"))
    assert (bare.mbti, bare.gender, bare.aliases, bare.sections()["Background"]) == (None, None, [], "")


def test_memory_renders_each_section_with_its_lines_one_per_line():
    mem = memory_fmt.parse(memory_text(), MEMORY)
    mem.sections[memory_fmt.FACTS] = ["- a (hand)", "- b (hand)"]
    assert "## Facts\n\n- a (hand)\n- b (hand)\n\n## From our chats\n\n## Open threads\n\n## About me\n\n" in \
        memory_fmt.render(mem)


# -- EVENTS.md lines ---------------------------------------------------------------------
@pytest.mark.parametrize("line, problem, hint", [
    ("- yesterday · x", "not an event line: '- yesterday · x'", events_fmt.FORMAT_HINT),
    ("- 2023-06-02 · ", "the event has a date but no text", events_fmt.FORMAT_HINT),
    ("- 2023-02-30 · x", "2023-02-30 is not a real date", events_fmt.FORMAT_HINT),
    ("- 0000 · x", "0000 is not a real year", events_fmt.FORMAT_HINT),
    ("- 2023-00 · x", "2023-00 is not a real month", events_fmt.FORMAT_HINT),
    ("- 2023-06-02 · w2 · x", "weight w2 is outside 0..1", "Weights go from w0 (trivial) to w1 (life-changing)."),
    ("- " + "y" * 80, f"not an event line: {'- ' + 'y' * 58!r}", events_fmt.FORMAT_HINT),
    ("stray words", "unexpected text after the events: 'stray words'", events_fmt.FORMAT_HINT),
    ("z" * 80, f"unexpected text after the events: {'z' * 60!r}", events_fmt.FORMAT_HINT),
])
def test_an_event_line_that_does_not_parse_says_what_and_how_to_write_one(line, problem, hint):
    text = f"---\nfirst: 1\n---\n# Events\n\n- 2023-01-01 · fine\n{line}\n"
    with pytest.raises(FormatError) as err:
        events_fmt.parse(text, Path("EVENTS.md"))
    assert (err.value.problem, err.value.line, err.value.hint) == (problem, 7, hint)


def test_an_event_line_number_counts_from_the_files_first_line():
    with pytest.raises(FormatError) as err:
        events_fmt.parse("\n# Events\n\n- 2023-01-01 · fine\n- yesterday · x\n", Path("EVENTS.md"))
    assert err.value.line == 5


def test_an_event_reads_its_weight_source_and_text_whatever_its_precision():
    e = events_fmt.parse_line("- 2023-06 · w0 · Moved house   (told)  ", "EVENTS.md", 1)
    assert (e.text, e.weight, e.source, e.month_only, e.when) == ("Moved house", 0.0, "told", True, "2023-06")
    e = events_fmt.parse_line("- ~2023-06-02 · Camping (log 2023-06-09)", "EVENTS.md", 1)
    assert (e.text, e.source, e.approx, e.when) == ("Camping", "log 2023-06-09", True, "~2023-06-02")
    e = events_fmt.parse_line("- 2019 · w1 · Moved to Berlin (hand)", "EVENTS.md", 1)
    assert (e.text, e.weight, e.source, e.year_only, e.when) == ("Moved to Berlin", 1.0, "hand", True, "2019")


@pytest.mark.parametrize("preamble", ["# Events X  \n\n", "", "# Events\n<!-- mine -->\n\n\n"])
def test_the_text_above_the_events_is_kept_as_written_when_they_change(preamble):
    ef = events_fmt.parse(f"{preamble}- 2023-01-01 · a\n", Path("EVENTS.md"))
    ef.events.append(events_fmt.Event(d(2024, 1, 1), "b"))
    kept = preamble.rstrip("\n") + "\n\n" if preamble else ""
    assert events_fmt.render(ef) == f"{kept}- 2024-01-01 · b\n- 2023-01-01 · a\n"


def test_an_indented_comment_after_the_events_is_no_stray_text():
    ef = events_fmt.parse("# Events\n\n- 2023-01-01 · a\n  <!-- mine -->\n", Path("EVENTS.md"))
    assert [e.text for e in ef.events] == ["a"]
