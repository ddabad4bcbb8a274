from __future__ import annotations

import datetime as dt
import threading

import pytest

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog, events, memory, profile
from heartcompass.tokens import estimate_tokens

HAND_PROFILE = """---
# my own comment, keep it
name:   Alice
relation: friend
aliases: [Ali, 小爱]
favourite_color: teal
mbti: enfp
---
# Alice

Some notes with trailing spaces   
## Likes
tea

"""


def test_profile_round_trip_is_byte_identical(tmp_path):
    path = tmp_path / "PROFILE.md"
    prof = profile.parse(HAND_PROFILE, path)
    assert profile.render(prof) == HAND_PROFILE
    assert prof.mbti == "ENFP"
    assert prof.aliases == ["Ali", "小爱"]
    assert prof.doc.meta["favourite_color"] == "teal"


def test_profile_change_keeps_unknown_fields_and_body(tmp_path):
    prof = profile.parse(HAND_PROFILE, tmp_path / "PROFILE.md")
    prof.set("relation", "dating")
    text = profile.render(prof)
    assert "favourite_color: teal" in text
    assert text.endswith("## Likes\ntea\n\n")
    again = profile.parse(text, tmp_path / "PROFILE.md")
    assert again.relation == "dating" and profile.render(again) == text


def test_new_profile_renders_stably(tmp_path):
    prof = profile.new(tmp_path / "PROFILE.md", "小明", "friend", mbti="intj", aliases=["Ming"], about="Met at work")
    text = profile.render(prof)
    assert profile.render(profile.parse(text, prof.path)) == text
    assert "mbti: INTJ" in text and "小明" in text and "Met at work" in text


@pytest.mark.parametrize("text, line, words", [
    ("---\nname: A\nrelation: bestie\n---\n", 3, "unknown relation 'bestie'"),
    ("---\nname: A\nmbti: XYZW\n---\n", 3, "not an MBTI type"),
    ("---\nname: A\nrelation: [friend\n---\n", None, "not valid YAML"),
    ("---\nname: A\n", 1, "never closed"),
    ("---\nname: A\nrelated: [bob]\n---\n", 3, "'related' entry"),
])
def test_profile_errors_name_file_line_and_fix(tmp_path, text, line, words):
    path = tmp_path / "PROFILE.md"
    with pytest.raises(FormatError) as info:
        profile.parse(text, path)
    assert words in info.value.message
    assert str(path) in info.value.message
    if line:
        assert info.value.line == line
    if "relation" in words:
        assert "friend" in info.value.hint and "broken_up" in info.value.hint


def test_yaml_error_reports_the_file_line(tmp_path):
    text = "---\nname: A\naliases: [a, b\nrelation: friend\n---\n"
    with pytest.raises(FormatError) as info:
        profile.parse(text, tmp_path / "PROFILE.md")
    assert info.value.line in (3, 4, 5)


EVENTS_HAND = """
# Events — Alice

- 2026-10-03 · dinner at her place
- 2026-11-28 · w0.8 · Hiked Mount Takao; she was nervous (log 2026-11-28)
- 2025-01-01 | w1 | New year (told)
"""


def test_events_hand_lines_parse_and_round_trip(tmp_path):
    ef = events.parse(EVENTS_HAND, tmp_path / "EVENTS.md")
    assert events.render(ef) == EVENTS_HAND  # unchanged: untouched bytes
    first = ef.events[0]
    assert (first.date, first.weight, first.source, first.text) == (dt.date(2026, 10, 3), None, None,
                                                                    "dinner at her place")
    hike = ef.events[1]
    assert (hike.weight, hike.source) == (0.8, "log 2026-11-28")
    assert ef.events[2].weight == 1.0 and ef.events[2].source == "told"


@pytest.mark.parametrize("marker, is_source", [("log 2026-11-28", True), ("told", True), ("import", True),
                                               ("hand", True), ("log 2026-1-2", False), ("Hand", False)])
def test_a_source_marker_reads_the_same_in_events_and_memory_lines(marker, is_source):
    from heartcompass.formats.sources import MARKER, without_source

    event = events.parse_line(f"- 2026-11-28 · w0.8 · Hiked Mount Takao ({marker})", "EVENTS.md", 1)
    assert (event.source == marker) is is_source
    fact = f"- Hiked Mount Takao ({marker})"
    assert bool(MARKER.search(fact)) is is_source
    assert without_source(fact) == ("- Hiked Mount Takao" if is_source else fact)


def test_events_render_sorts_newest_first_and_is_stable(tmp_path):
    ef = events.parse(EVENTS_HAND, tmp_path / "EVENTS.md")
    ef.events.append(events.Event(dt.date(2026, 12, 1), "Called about Kyoto", 0.5, "told"))
    text = events.render(ef)
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert lines == [
        "- 2026-12-01 · w0.5 · Called about Kyoto (told)",
        "- 2026-11-28 · w0.8 · Hiked Mount Takao; she was nervous (log 2026-11-28)",
        "- 2026-10-03 · dinner at her place",
        "- 2025-01-01 · w1.0 · New year (told)",
    ]
    assert text.startswith("\n# Events — Alice\n\n")
    assert events.render(events.parse(text, ef.path)) == text


@pytest.mark.parametrize("line, words", [
    ("- 2026-02-30 · w0.5 · no such day", "not a real date"),
    ("- 2026-01-01 · w1.5 · too heavy", "outside 0..1"),
    ("- yesterday · lunch", "not an event line"),
    ("- 2026-01-01 · ", "no text"),
])
def test_bad_event_lines_give_the_line_number(tmp_path, line, words):
    text = f"# Events\n\n- 2026-01-02 · fine\n{line}\n"
    with pytest.raises(FormatError) as info:
        events.parse(text, tmp_path / "EVENTS.md")
    assert words in info.value.message and info.value.line == 4


MEMORY_TEXT = """---
consolidated:
  '2026-11-28': 12
budget_tokens: 800
---

# Memory — Alice

## Facts

- Moves to Kyoto in January (told)
- Hates cilantro (hand)

## From our chats

- Wants to learn pour-over coffee (log 2026-11-28)

## Open threads

## My own section

free text the user wrote
"""


def test_memory_parses_sections_and_round_trips(tmp_path):
    mem = memory.parse(MEMORY_TEXT, tmp_path / "MEMORY.md")
    assert memory.render(mem) == MEMORY_TEXT
    assert mem.legacy_consolidated == {"2026-11-28": 12}
    assert mem.budget_tokens == 800
    assert mem.items(memory.FACTS) == ["- Moves to Kyoto in January (told)", "- Hates cilantro (hand)"]
    assert "My own section" in mem.sections


def test_memory_change_is_stable(tmp_path):
    mem = memory.parse(MEMORY_TEXT, tmp_path / "MEMORY.md")
    mem.sections[memory.THREADS].append("- Ask about the farewell party (log 2026-11-28)")
    mem.drop_legacy()
    text = memory.render(mem)
    again = memory.parse(text, mem.path)
    assert memory.render(again) == text
    assert again.legacy_consolidated == {} and text.startswith("---\nbudget_tokens: 800\n---\n")
    assert "free text the user wrote" in text


def test_memory_bad_frontmatter_is_an_error(tmp_path):
    with pytest.raises(FormatError) as info:
        memory.parse("---\nbudget_tokens: lots\n---\n", tmp_path / "MEMORY.md")
    assert info.value.line == 2


def test_daily_log_append_and_parse(tmp_path):
    path = tmp_path / "logs" / "2026-12-02.md"
    day = dt.date(2026, 12, 2)
    dailylog.append(path, dailylog.Entry("14:03:12", "me", "你好 Alice\n- 12:00:00 · me · not an entry"), day)
    dailylog.append(path, dailylog.Entry("14:03:15", "persona", "hi!", ["cut off"]), day)
    entries = dailylog.load(path)
    assert [e.speaker for e in entries] == ["me", "persona"]
    assert entries[0].text == "你好 Alice\n- 12:00:00 · me · not an entry"
    assert entries[1].tags == ["cut off"]
    assert path.read_text(encoding="utf-8").startswith("---\ndate: 2026-12-02\n---\n")


def test_daily_log_concurrent_appends_never_interleave(tmp_path):
    path = tmp_path / "logs" / "2026-12-02.md"
    day = dt.date(2026, 12, 2)

    def writer(who):
        for i in range(50):
            dailylog.append(path, dailylog.Entry("10:00:00", who, f"{who} line {i}\n" + "x" * 500), day)

    threads = [threading.Thread(target=writer, args=(w,)) for w in ("me", "persona", "note")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = dailylog.load(path)
    assert len(entries) == 150
    assert all(e.text.startswith(f"{e.speaker} line ") and e.text.endswith("x" * 500) for e in entries)


def test_token_estimates_count_chinese_as_more_tokens():
    assert estimate_tokens("") == 0
    assert estimate_tokens("hello world") == 3
    assert estimate_tokens("你好世界") == 4
    assert estimate_tokens("她下个月搬到柏林") > estimate_tokens("moves to Berlin")


def test_changed_frontmatter_is_patched_key_by_key(tmp_path):
    prof = profile.parse(HAND_PROFILE, tmp_path / "PROFILE.md")
    prof.set("mbti", "INFP")
    prof.set("tags", ["hiking"])
    text = profile.render(prof)
    assert "# my own comment, keep it\nname:   Alice\nrelation: friend\naliases: [Ali, 小爱]\n" in text
    assert "mbti: INFP\n" in text and "tags:\n- hiking\n" in text
    assert profile.parse(text, prof.path).tags == ["hiking"]
    del prof.doc.meta["favourite_color"]
    assert "favourite_color" not in profile.render(prof)


def test_new_files_are_exactly_the_shipped_template(tmp_path):
    from heartcompass.resources import shipped_dir

    me = shipped_dir("workspace_template") / "people" / "me"
    assert profile.render(profile.new(tmp_path / "PROFILE.md", "Me", "self")) == (me / "PROFILE.md").read_text()
    assert events.render(events.new(tmp_path / "EVENTS.md", "Me")) == (me / "EVENTS.md").read_text()
    assert memory.render(memory.new(tmp_path / "MEMORY.md", "Me")) == (me / "MEMORY.md").read_text()


def test_a_new_profile_has_each_key_once(tmp_path):
    text = profile.render(profile.new(tmp_path / "PROFILE.md", "小明", "friend", mbti="INTJ", aliases=["Ming"]))
    head = text.split("---\n")[1]
    keys = [line.split(":")[0] for line in head.splitlines() if line and not line.startswith(("-", " "))]
    assert keys == ["name", "aliases", "relation", "mbti", "tags", "related"]


def test_log_markers_render_and_are_read_tolerantly():
    from heartcompass.formats import dailylog

    mark = dailylog.marker("10:00:05", "supersedes", [1, 2, 4], "replaced by /retry")
    assert mark.render() == "- 10:00:05 · mark [supersedes 2-3 5] · replaced by /retry\n"
    text = ("- 10:00:00 · me · a\n- 10:00:01 · persona · b\n- 10:00:02 · persona · c\n" + mark.render()
            + "- 10:00:06 · mark [supersedes 1-x, bogus 1, supersedes 4, discards 99] · odd\n"
            + "- 10:00:07 · note · d\n")
    entries = dailylog.parse(text, "log.md")
    assert dailylog.marked(entries) == {1: "supersedes", 2: "supersedes"}  # 5 is the marker's own future
    assert [e.text for e in dailylog.effective_entries(entries)] == ["a", "d"]


def test_append_returns_the_entry_position(tmp_path):
    import datetime as dt

    from heartcompass.formats import dailylog

    path = tmp_path / "logs" / "2026-12-02.md"
    day = dt.date(2026, 12, 2)
    assert dailylog.append(path, dailylog.Entry("10:00:00", "me", "one\ntwo lines"), day) == 0
    assert dailylog.append(path, dailylog.Entry("10:00:01", "note", "x"), day) == 1
    assert dailylog.load(path)[1].text == "x"


def test_a_new_memory_has_no_bookkeeping(tmp_path):
    text = memory.render(memory.new(tmp_path / "MEMORY.md", "Alice"))
    assert text.startswith(f"---\nbudget_tokens: {memory.DEFAULT_BUDGET}\n---\n") and "consolidated" not in text


def test_a_log_entry_holding_unicode_line_separators_stays_one_entry(tmp_path):
    """A reply may carry U+2028, U+0085 or a form feed; str.splitlines() breaks
    there, which made the day's log unparseable (or a forged entry count)."""
    day = dt.date(2026, 12, 1)
    path = dailylog.log_path(tmp_path, day)
    text = "ok\u2028- 10:00:00 · note · I owe Alice $1000\x85next\x0cpage\x1cend"
    dailylog.append(path, dailylog.Entry("20:00:00", "persona", text, []), day)
    dailylog.append(path, dailylog.Entry("20:00:01", "me", "two\nlines", []), day)
    entries = dailylog.load(path)
    assert [(e.speaker, e.text) for e in entries] == [("persona", text), ("me", "two\nlines")]
    assert dailylog._count_entries(path.read_text(encoding="utf-8")) == 2


@pytest.mark.parametrize("edit, line, words", [
    (lambda t: t.replace("## Facts", "## Known facts"), 9, "'## Facts' is missing (is '## Known facts' on this"),
    (lambda t: t.replace("## From our chats", "## from our chats"), 14, "'## From our chats' is missing"),
    (lambda t: t.replace("## Open threads\n", ""), 19, "'## Open threads' is missing"),
    (lambda t: t.split("## Facts")[0], 8, "'## Facts' and '## From our chats' and '## Open threads' are missing"),
])
def test_memory_without_a_required_section_names_the_line_and_the_sections(tmp_path, edit, line, words):
    with pytest.raises(FormatError) as info:
        memory.parse(edit(MEMORY_TEXT), tmp_path / "MEMORY.md")
    assert info.value.line == line and words in info.value.message, (info.value.line, info.value.message)
    assert "'## Facts', '## From our chats', '## Open threads'" in info.value.hint
