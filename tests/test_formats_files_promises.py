"""The promises of formats/ that meet the disk (issue 29: mutants no test
reached): each person file is checked by its own format, a file of ours is
read only when it is a real text file (never through a link, never a FIFO
that would hang), a day's log is listed, read from where a reader stopped
and appended whole. Temporary folders, no git, no subprocess."""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
from pathlib import Path

import pytest

from heartcompass import formats, paths
from heartcompass.errors import FormatError, UnsafePathError, WriteError
from heartcompass.formats import dailylog, events as events_fmt, frontmatter_doc as fm, memory as memory_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.formats import sources, text as text_fmt, voice as voice_fmt
from heartcompass.tokens import estimate_tokens

DAY = dt.date(2026, 12, 2)
MEMORY_OK = "---\nbudget_tokens: 100\n---\n# Memory\n\n## Facts\n\n- tea (hand)\n\n## From our chats\n\n## Open threads\n\n"


# -- validate: each file by its own format -----------------------------------------------
@pytest.mark.parametrize("name, bad, problem", [
    ("PROFILE.md", "---\nrelation: enemy\n---\n", "unknown relation 'enemy'"),
    ("EVENTS.md", "# Events\n\n- yesterday · x\n", "not an event line"),
    ("MEMORY.md", "# Memory\n", "'## Facts' and '## From our chats' and '## Open threads' are missing"),
    ("VOICE.md", "## Their words\n\n- not quoted\n", "not a quoted line"),
    ("logs/2026-12-02.md", "stray words\n", "not a log entry"),
])
def test_each_person_file_is_checked_by_its_own_format(tmp_path, name, bad, problem):
    """An edit or a sync that breaks a person's file is caught before it is
    committed, with the problem its own format names."""
    path = tmp_path / "alice" / name
    with pytest.raises(FormatError) as err:
        formats.validate(path, bad)
    assert problem in err.value.problem and err.value.path == path
    good = {"PROFILE.md": "---\nrelation: friend\n---\n", "EVENTS.md": "# Events\n\n- 2023-06-02 · x\n",
            "MEMORY.md": MEMORY_OK, "VOICE.md": '## Their words\n\n- "hi"\n',
            "logs/2026-12-02.md": "- 10:00:00 · me · hi\n"}[name]
    assert formats.validate(str(path), good) is None  # a path given as text is checked the same


def test_validate_reads_the_file_itself_when_given_no_text(tmp_path):
    path = tmp_path / "alice" / "logs" / "2026-12-02.md"
    path.parent.mkdir(parents=True)
    path.write_text("- 10:00:00 · me · hi\n", "utf-8")
    formats.validate(path)
    path.write_text("- 10:00:00 · me · hi\nnot an entry\n", "utf-8")
    with pytest.raises(FormatError) as err:
        formats.validate(path)
    assert err.value.line == 2 and "not a log entry: 'not an entry'" in err.value.problem


def test_files_that_are_not_ours_are_not_checked(tmp_path):
    """A card's avatar.png or the user's own notes.md in a person's folder is
    not a format error, whatever it holds; a log needs its logs/ folder."""
    for name in ("avatar.png", "notes.md", "logs.md", "other/2026-12-02.md", "logs/2026-12-02.txt"):
        assert formats.validate(tmp_path / name, "stray words\n- yesterday · x\n## Their words\n- x\n") is None
    with pytest.raises(FormatError):  # the same words in a log are refused: the check ran
        formats.validate(tmp_path / "logs" / "2026-12-02.md", "stray words\n")


def test_a_markdown_file_of_any_case_must_be_text(tmp_path):
    """A .MD file is Markdown too: one that is not UTF-8 is named, not skipped."""
    path = tmp_path / "NOTES.MD"
    path.write_bytes(b"ok\n\xff\n")
    with pytest.raises(FormatError) as err:
        formats.validate(path)
    assert err.value.line == 2 and "not UTF-8" in err.value.problem
    (tmp_path / "avatar.PNG").write_bytes(b"\x89PNG\0\xff")
    assert formats.validate(tmp_path / "avatar.PNG") is None


# -- load: each format from its file -----------------------------------------------------
def test_each_format_loads_its_file_and_remembers_where_it_came_from(tmp_path):
    files = {"PROFILE.md": "---\nname: Alice\nrelation: friend\n---\n# Alice\n",
             "EVENTS.md": "# Events\n\n- 2023-06-02 · w0.8 · Hiked (told)\n",
             "MEMORY.md": MEMORY_OK, "VOICE.md": '## Their words\n\n- "hi" (hand)\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    prof = profile_fmt.load(tmp_path / "PROFILE.md")
    assert (prof.path, prof.name, profile_fmt.render(prof)) == (tmp_path / "PROFILE.md", "Alice", files["PROFILE.md"])
    ef = events_fmt.load(tmp_path / "EVENTS.md")
    assert ef.path == tmp_path / "EVENTS.md" and [e.text for e in ef.events] == ["Hiked"]
    assert events_fmt.render(ef) == files["EVENTS.md"]  # loaded to be written back, not read-only
    mem = memory_fmt.load(tmp_path / "MEMORY.md")
    assert mem.path == tmp_path / "MEMORY.md" and mem.items(memory_fmt.FACTS) == ["- tea (hand)"]
    voice = voice_fmt.load(tmp_path / "VOICE.md")
    assert voice.path == tmp_path / "VOICE.md" and voice.lines(voice_fmt.THEIRS) == [voice_fmt.Line("hi", "hand")]


@pytest.mark.parametrize("name, load", [
    ("PROFILE.md", profile_fmt.load), ("EVENTS.md", events_fmt.load), ("MEMORY.md", memory_fmt.load),
    ("VOICE.md", voice_fmt.load), ("2026-12-02.md", dailylog.load),
])
def test_a_broken_file_names_itself_and_its_line_when_loaded(tmp_path, name, load):
    path = tmp_path / name
    path.write_text("---\nname: [never closed\n---\nstray words\n", "utf-8")
    with pytest.raises(FormatError) as err:
        load(path)
    assert err.value.path == path and str(err.value).startswith(f"{path}:")


def test_a_memory_counts_the_tokens_of_its_body_as_it_would_be_written():
    mem = memory_fmt.parse(MEMORY_OK, Path("MEMORY.md"))
    mem.sections[memory_fmt.FACTS].append("- 她下个月搬到柏林 (told)")
    assert mem.body_tokens() == estimate_tokens(memory_fmt.render_body(mem)) > estimate_tokens(MEMORY_OK) // 2


# -- a profile's body --------------------------------------------------------------------
PROFILE_BODY = ("---\nname: Alice\n---\n# Alice\nintro line\n\n## Likes\n\n- tea  \n  <!-- my note -->\n  indented\n"
                "## People in their life\n\n- [m1] Sara (daughter)\n## Background\nGrew up in Lyon.\n\n")


def test_a_profiles_notes_are_its_section_lines_without_comments_or_mentions():
    """The gardener names these lines P1, P2...: a comment, a blank line, the
    title above the sections or a mentioned person is not one of them."""
    prof = profile_fmt.parse(PROFILE_BODY, Path("PROFILE.md"))
    assert prof.notes() == [("Likes", "- tea"), ("Likes", "  indented"), ("Background", "Grew up in Lyon.")]
    assert prof.sections() == {"Likes": "- tea  \n  <!-- my note -->\n  indented",
                               "People in their life": "- [m1] Sara (daughter)", "Background": "Grew up in Lyon."}
    assert profile_fmt.parse("---\nname: Bo\n---\nno sections\n", Path("P.md")).notes() == []


# -- source markers ----------------------------------------------------------------------
@pytest.mark.parametrize("written, clean", [
    ("Moved to Berlin (hand)", "Moved to Berlin"), ("Moved (told) to Berlin", "Moved to Berlin"),
    ("Moved （ Import ）", "Moved"), ("Moved (log 2026-03-02)", "Moved"), ("Moved (LOG)", "Moved"),
    ("Moved (h\u0430nd)", "Moved"), ("X ((hand)hand)", "X"), ("Moved (handy) and (told you)", "Moved (handy) and (told you)"),
    ("她搬家了（told）", "她搬家了"),
])
def test_a_model_cannot_forge_a_source_marker(written, clean):
    """A model's "(hand)" would forge the user's protection of a line and its
    "(told)" a provenance it does not have: every look-alike goes, until
    none is left; words that only resemble one stay."""
    assert sources.unforged(written) == clean


def test_a_lines_own_closing_marker_is_taken_off_and_only_that():
    assert sources.without_source("- Moved to Berlin (log 2026-03-02)") == "- Moved to Berlin"
    assert sources.without_source("- Moved (told) to Berlin") == "- Moved (told) to Berlin"
    assert sources.without_source("- Moved (hand)") == "- Moved"


# -- reading a file of ours --------------------------------------------------------------
def test_a_file_is_read_as_its_bytes_and_a_missing_one_is_the_callers_to_judge(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes("好呀\r\n".encode())
    assert text_fmt.read_text(path) == "好呀\r\n" and text_fmt.read_bytes(str(path)) == "好呀\r\n".encode()
    with pytest.raises(FileNotFoundError):
        text_fmt.read_text(tmp_path / "GONE.md")


def test_a_file_swapped_for_a_link_is_never_read_through(tmp_path):
    """O_NOFOLLOW: even a link the workspace check did not see (no workspace
    around it, or swapped in after the check) is refused, not followed."""
    secret = tmp_path / "id_rsa"
    secret.write_text("SECRET", "utf-8")
    (tmp_path / "MEMORY.md").symlink_to(secret)
    with pytest.raises(UnsafePathError) as err:
        text_fmt.read_text(tmp_path / "MEMORY.md")
    assert "is a symbolic link; HeartCompass reads no file through a link" in err.value.problem
    assert "SECRET" not in str(err.value) and secret.read_text("utf-8") == "SECRET"


def test_a_fifo_or_a_folder_in_a_files_place_is_named_and_never_waited_on(tmp_path):
    """O_NONBLOCK: a FIFO where MEMORY.md should be would hang the command
    forever waiting for a writer; it is named instead."""
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    with pytest.raises(FormatError) as err:
        text_fmt.read_text(fifo)
    assert err.value.problem == "is a named pipe (FIFO), not a regular file" and err.value.hint == paths.SPECIAL_FIX
    (tmp_path / "EVENTS.md").mkdir()
    with pytest.raises(FormatError) as err:
        text_fmt.read_text(tmp_path / "EVENTS.md")
    assert err.value.problem == "is a folder, not a regular file"


def test_an_unreadable_file_says_how_to_give_access(tmp_path, monkeypatch):
    path = tmp_path / "my notes" / "MEMORY.md"

    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(text_fmt.os, "open", refused)
    with pytest.raises(FormatError) as err:
        text_fmt.read_text(path)
    assert err.value.problem == "cannot be read (permission denied)"
    assert err.value.hint == f"Give yourself read access, e.g.: chmod u+r '{path}'"


def test_a_file_the_system_cannot_open_or_read_says_why(tmp_path, monkeypatch):
    path = tmp_path / "MEMORY.md"
    path.write_text("x", "utf-8")
    real_open, real_fstat = os.open, os.fstat

    def failing_open(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(text_fmt.os, "open", failing_open)
    with pytest.raises(FormatError) as err:
        text_fmt.read_text(path)
    assert err.value.problem == "cannot be read (Input/output error)"
    monkeypatch.setattr(text_fmt.os, "open", real_open)
    opened: list[int] = []

    def failing_fstat(fd):
        opened.append(fd)
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(text_fmt.os, "fstat", failing_fstat)
    with pytest.raises(FormatError) as err:
        text_fmt.read_text(path)
    monkeypatch.setattr(text_fmt.os, "fstat", real_fstat)
    assert err.value.problem == "cannot be read (Input/output error)" and not isinstance(err.value, UnsafePathError)
    with pytest.raises(OSError):  # the descriptor was closed, not leaked
        os.fstat(opened[0])


# -- a day's log on disk -----------------------------------------------------------------
def test_a_persons_log_dates_are_listed_oldest_first_and_only_real_log_names(tmp_path):
    logs = tmp_path / "alice" / "logs"
    logs.mkdir(parents=True)
    for name in ("2026-12-02.md", "2025-01-31.md", "notes.md", "2026-1-1.md", "2026-12-03.md.bak", "x2026-12-04.md"):
        (logs / name).write_text("", "utf-8")
    assert dailylog.log_dates(tmp_path / "alice") == ["2025-01-31", "2026-12-02"]
    assert dailylog.log_dates(tmp_path / "bob") == []  # no logs yet: none, not an error
    assert dailylog.log_path(tmp_path / "alice", DAY) == logs / "2026-12-02.md"


def test_a_logs_file_in_place_of_the_folder_is_named_with_the_fix(tmp_path):
    (tmp_path / "logs").write_text("", "utf-8")
    with pytest.raises(FormatError) as err:
        dailylog.log_dates(tmp_path)
    assert (err.value.path, err.value.problem) == (tmp_path / "logs", "is a file, not a folder")
    assert err.value.hint == "Move it out of the way: HeartCompass keeps the daily logs in this folder."


def test_an_unreadable_logs_folder_says_how_to_give_access(tmp_path, monkeypatch):
    person = tmp_path / "my people" / "alice"

    def refused(path):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(dailylog.os, "listdir", refused)
    with pytest.raises(FormatError) as err:
        dailylog.log_dates(person)
    assert (err.value.path, err.value.problem) == (person / "logs", "cannot be read (permission denied)")
    assert err.value.hint == f"Give yourself access, e.g.: chmod u+rwx '{person / 'logs'}'"


def test_a_reader_gets_exactly_the_entries_appended_after_where_it_stopped(tmp_path):
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "first"), DAY)
    size = path.stat().st_size
    assert dailylog.entries_after(path, size) == []
    dailylog.append_many(path, [dailylog.Entry("10:00:01", "persona", "two\nlines", ["cut off"]),
                                dailylog.Entry("10:00:02", "mark", "retry", ["supersedes 2"])], DAY)
    after = dailylog.entries_after(path, size)
    assert after == [dailylog.Entry("10:00:01", "persona", "two\nlines", ["cut off"]),
                     dailylog.Entry("10:00:02", "mark", "retry", ["supersedes 2"])]
    assert dailylog.entries_after(path, 0)[0].text == "first"


def test_a_log_replaced_or_gone_since_is_read_as_nothing_appended(tmp_path):
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "first entry"), DAY)
    whole = path.stat().st_size
    assert dailylog.entries_after(path, whole + 1) == []  # shorter than where the reader stopped
    assert dailylog.entries_after(path, whole - 5) == []  # the middle of an entry: not whole entries
    assert dailylog.entries_after(tmp_path / "logs" / "2020-01-01.md", 0) == []
    (tmp_path / "logs" / "link.md").symlink_to(path)
    assert dailylog.entries_after(tmp_path / "logs" / "link.md", 0) == []
    assert dailylog.entries_after(path, 0)[0].text == "first entry"  # the reads above were refusals, not failures


def test_bytes_that_are_not_utf8_in_an_appended_entry_do_not_lose_the_entry(tmp_path):
    path = dailylog.log_path(tmp_path, DAY)
    path.parent.mkdir(parents=True)
    path.write_bytes(dailylog.header(DAY).encode() + b"- 10:00:00 \xc2\xb7 me \xc2\xb7 caf\xe9\n")
    assert dailylog.entries_after(path, 0) == [dailylog.Entry("10:00:00", "me", "caf\ufffd")]


def test_text_is_logged_with_every_line_break_as_a_newline():
    assert dailylog.as_logged("a\r\nb\rc\nd") == "a\nb\nc\nd"
    entry = dailylog.Entry("10:00:00", "me", "a\r\nb\rc")
    assert dailylog.parse(entry.render(), "log.md")[0].text == dailylog.as_logged(entry.text) == "a\nb\nc"


def test_a_held_log_takes_the_appenders_lock_and_can_be_read_and_cut(tmp_path):
    """No entry can be appended between what a holder reads and what it cuts."""
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "keep"), DAY)
    keep = path.stat().st_size
    dailylog.append(path, dailylog.Entry("10:00:01", "me", "cut"), DAY)
    with dailylog.held(path) as fd:
        other = os.open(path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
        assert b"cut" in os.pread(fd, 4096, 0)
        os.ftruncate(fd, keep)
    with pytest.raises(OSError):
        os.fstat(fd)  # closed when the holder is done
    assert [e.text for e in dailylog.load(path)] == ["keep"]
    other = os.open(path, os.O_RDONLY)
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # and the lock is free again
    os.close(other)


def test_a_held_log_is_never_opened_through_a_link(tmp_path):
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "x"), DAY)
    link = tmp_path / "linked.md"
    link.symlink_to(path)
    with pytest.raises(OSError) as err:
        with dailylog.held(link):
            pass
    assert err.value.errno == errno.ELOOP


# -- PROFILE.md fields -------------------------------------------------------------------
def test_a_profiles_fields_read_as_the_user_wrote_them_with_defaults_for_the_rest(tmp_path):
    path = tmp_path / "people" / "alice" / "PROFILE.md"
    prof = profile_fmt.parse("---\naliases: Ali\nmbti: ' enfp-a '\ngender: ''\nbirthday: 1990-05-01\ntags: [1, x]\n"
                             "handles: [' wxid_1 ', 12345678]\nrelated: [{person: bob}, {person: cy, as: sister}"
                             "]\n---\nbody\n", path)
    assert (prof.name, prof.relation, prof.aliases, prof.names()) == ("alice", "stranger", ["Ali"], ["alice", "Ali"])
    assert (prof.mbti, prof.gender, prof.birthday, prof.tags) == ("ENFP-A", None, "1990-05-01", ["1", "x"])
    assert prof.handles == ["wxid_1", "12345678"] and prof.body == "body\n"
    prof.doc.meta["related"].append({"as": "nobody"})  # only an entry naming a person is a relation
    assert prof.related == [{"person": "bob", "as": ""}, {"person": "cy", "as": "sister"}]
    prof.set("gender", "female")
    prof.set("birthday", "05-01")
    prof.set("handles", ["a", "  "])
    assert (prof.gender, prof.birthday, prof.handles) == ("female", "05-01", ["a"])
    bare = profile_fmt.parse("---\nname: Bo\nrelation: friend\n---\n", path)
    assert (bare.name, bare.relation, bare.aliases, bare.mbti, bare.gender, bare.birthday, bare.tags, bare.handles,
            bare.related) == ("Bo", "friend", [], None, None, None, [], [], [])


@pytest.mark.parametrize("meta, line, problem, hint", [
    ("relation: enemy\n", 3, "unknown relation 'enemy'", "Allowed relations: self, family, friend, dating, "
     "ambiguous, tension, broken_up, failed, stranger."),
    ("mbti: ABCD\n", 3, "'ABCD' is not an MBTI type", "Use four letters: E/I, N/S, T/F, J/P, e.g. ENFP (optionally "
     "-A or -T), or leave it empty."),
    ("aliases: {a: 1}\n", 3, "'aliases' must be a list", "Write it as 'aliases: [a, b]' or one '- item' per line."),
    ("tags: 3\n", 3, "'tags' must be a list", "Write it as 'tags: [a, b]' or one '- item' per line."),
    ("handles: 3\n", 3, "'handles' must be a list", "Write it as 'handles: [a, b]' or one '- item' per line."),
    ("related: 3\n", 3, "'related' must be a list", "Write it as 'related: [a, b]' or one '- item' per line."),
    ("related: [{as: sister}]\n", 3, "each 'related' entry needs a 'person' slug",
     "Write entries as '- {person: bob, as: her brother}'."),
    ("related: bob\n", 3, "each 'related' entry needs a 'person' slug", None),
    ("handles: [{a: 1}]\n", 3, "handle {'a': 1} is not an id", None),
    ("handles: [[1]]\n", 3, "handle [1] is not an id", None),
    ("handles: ['  ']\n", 3, "handle '  ' is not an id",
     "Write handles as '- wxid_abc123', '- '12345678'' (a QQ number) or '- @alice'."),
    ("name: ''\n", 3, "'name' is empty", "Give the person a name, e.g. 'name: Alice'."),
    ("name: null\n", 3, "'name' is empty", None),
])
def test_a_profile_with_a_bad_field_names_it_its_line_and_the_fix(meta, line, problem, hint):
    with pytest.raises(FormatError) as err:
        profile_fmt.parse(f"---\nfirst: 1\n{meta}---\n", Path("PROFILE.md"))
    assert (err.value.problem, err.value.line) == (problem, line)
    if hint:
        assert err.value.hint == hint


def test_a_profile_may_leave_its_optional_fields_empty():
    prof = profile_fmt.parse("---\nname: Bo\nrelation: ''\nmbti: ''\naliases: ''\ntags:\nhandles: wxid_9\n"
                             "related: []\n---\n", Path("PROFILE.md"))
    assert (prof.relation, prof.mbti, prof.aliases, prof.tags, prof.handles) == ("stranger", None, [], [], ["wxid_9"])
    prof = profile_fmt.parse("---\nrelation:\n---\n", Path("people/bo/PROFILE.md"))
    assert (prof.name, prof.relation) == ("bo", "stranger")


def test_a_relation_and_an_mbti_are_read_in_their_plain_form():
    assert profile_fmt.check_relation(" friend ") == "friend"
    assert profile_fmt.normalize_mbti(" intj-t ") == "INTJ-T"
    assert profile_fmt.normalize_mbti("") is None and profile_fmt.normalize_mbti(None) is None
    with pytest.raises(FormatError) as err:
        profile_fmt.normalize_mbti("ENFPX", "P.md", 4)
    assert (err.value.path, err.value.line) == (Path("P.md"), 4)
    with pytest.raises(FormatError) as err:
        profile_fmt.check_relation("pal", "P.md", 5)
    assert (err.value.path, err.value.line, err.value.problem) == (Path("P.md"), 5, "unknown relation 'pal'")
    with pytest.raises(FormatError) as err:
        profile_fmt.new(Path("P.md"), "Bo", "pal")
    assert err.value.path == Path("relation")


def test_a_new_profile_without_optional_fields_writes_none_of_them():
    prof = profile_fmt.new(Path("P.md"), "Bo", "family", about="  Met in Lyon.  ")
    assert prof.doc.meta == {"name": "Bo", "aliases": [], "relation": "family", "tags": [], "related": []}
    assert "\n## Background\n\nMet in Lyon.\n" in profile_fmt.render(prof)
    assert profile_fmt.render(prof).endswith("\n## Boundaries\n\n## Background\n\nMet in Lyon.\n")
    assert "\n## Personality\n\n## How they talk\n" in profile_fmt.render(prof)


# -- frontmatter: parsed tolerantly, rendered exactly ------------------------------------
def test_a_file_without_frontmatter_is_all_body_and_renders_as_it_was():
    doc = fm.parse("# Alice\n\nno fields\n", "P.md")
    assert (doc.meta, doc.body, doc.raw_meta, doc.has_frontmatter, doc.has_original_text) == (
        {}, "# Alice\n\nno fields\n", "", False, True)
    doc.body += "more\n"
    assert fm.render(doc) == "# Alice\n\nno fields\nmore\n"  # still no frontmatter added
    doc.meta["name"] = "Alice"
    assert fm.render(doc) == "---\nname: Alice\n---\n# Alice\n\nno fields\nmore\n"


def test_a_windows_file_with_a_bom_keeps_its_bytes():
    text = "\ufeff---  \r\nname: A\r\n---\t\r\nbody\r\n"
    doc = fm.parse(text, "P.md")
    assert (doc.meta, doc.body, doc.raw_meta) == ({"name": "A"}, "body\r\n", "name: A\r\n")
    assert fm.render(doc) == text
    doc.body = "new\r\n"
    assert fm.render(doc) == "---\nname: A\r\n---\nnew\r\n"  # the fields' own bytes kept when only the body changed


@pytest.mark.parametrize("text, meta, body", [
    ("---\n---\nbody\n", {}, "body\n"), ("---\n  \n---\n", {}, ""), ("---\n# just a comment\n---\nx", {}, "x"),
    ("---\nname: A\n---", {"name": "A"}, ""),
])
def test_empty_or_comment_only_frontmatter_is_no_fields(text, meta, body):
    doc = fm.parse(text, "P.md")
    assert (doc.meta, doc.body) == (meta, body) and fm.render(doc) == text


@pytest.mark.parametrize("text, line, problem, hint", [
    ("---\nname: A\n", 1, "the frontmatter opened with '---' on line 1 is never closed",
     "Add a line with just '---' after the frontmatter fields."),
    ("---\nname: A\naliases: [a, b\nrelation: friend\n---\n", 4,
     "the frontmatter is not valid YAML (did not find expected ',' or ']')",
     "Fix the frontmatter between the '---' lines, e.g. 'name: Alice'."),
    ("---\na: b: c\n---\n", 2, "the frontmatter is not valid YAML (mapping values are not allowed in this context)",
     None),
    ("---\nname: \x07x\n---\n", None,
     "the frontmatter is not valid YAML (unacceptable character #x0007: control characters are not allowed)", None),
    ("---\nfirst: 1\n---\n---\n- a\n- b\n", None, None, None),
    ("---\n- a\n- b\n---\n", 2, "the frontmatter must be 'key: value' lines", None),
    ("---\njust words\n---\n", 2, "the frontmatter must be 'key: value' lines", None),
])
def test_frontmatter_that_does_not_load_says_which_line_and_why(text, line, problem, hint):
    if problem is None:  # a second '---' block is body, not frontmatter
        assert fm.parse(text, "P.md").body == "---\n- a\n- b\n"
        return
    with pytest.raises(FormatError) as err:
        fm.parse(text, "P.md")
    assert (err.value.problem, err.value.line, err.value.path) == (problem, line, Path("P.md"))
    if hint:
        assert err.value.hint == hint


def test_frontmatter_left_in_conflict_is_refused_on_the_marks_line():
    text = "---\n<<<<<<< HEAD\nname: A\n=======\nname: B\n>>>>>>> theirs\n---\n"
    with pytest.raises(FormatError) as err:
        fm.parse(text, "P.md")
    assert err.value.line == 2 and "conflict marks" in err.value.problem


def test_fields_are_written_in_their_order_unicode_as_is_and_bookkeeping_maps_on_one_line():
    meta = {"b": 1, "name": "小明", "rhythm": {"x": 1, "y": "long " * 30}, "private": ["a"], "note": "word " * 30}
    assert fm.dump_meta(meta, ("rhythm", "private")) == (
        "b: 1\nname: 小明\nrhythm: {x: 1, y: '" + "long " * 30 + "'}\nprivate:\n- a\nnote: '" + "word " * 30 + "'\n")
    assert fm.dump_meta({"rhythm": {"x": 1}}) == "rhythm:\n  x: 1\n"


def test_a_changed_field_is_patched_in_place_and_the_rest_keeps_its_layout():
    text = "---\n# mine\nname:   Alice\ntags:\n- a\n- b\n# about tags\nmbti: enfp\n1: one\n\n\n---\nbody\n"
    doc = fm.parse(text, "P.md")
    doc.meta["tags"] = ["c"]
    doc.meta[1] = "uno"
    del doc.meta["mbti"]
    doc.meta["new"] = "x"
    assert fm.render(doc) == "---\n# mine\nname:   Alice\ntags:\n- c\n# about tags\n1: uno\n\n\nnew: x\n---\nbody\n"


def test_a_nested_change_counts_as_a_change():
    doc = fm.parse("---\n# mine\ntags: [a]\nrhythm: {n: 1}\n---\n", "P.md")
    doc.meta["tags"].append("b")
    doc.meta["rhythm"]["n"] = 2
    assert fm.render(doc) == "---\n# mine\ntags:\n- a\n- b\nrhythm:\n  n: 2\n---\n"


def test_a_layout_that_cannot_be_patched_safely_is_written_whole():
    doc = fm.parse('---\n# mine\n"name": A\nx: 1\n---\n', "P.md")  # a quoted key: not found by line
    doc.meta["name"] = "B"
    assert fm.render(doc) == "---\nname: B\nx: 1\n---\n"
    doc = fm.parse("---\n# mine\na: &v 1\nb: *v\n---\n", "P.md")  # patching a would break b's alias
    doc.meta["a"] = 2
    assert fm.render(doc) == "---\na: 2\nb: 1\n---\n"
    doc = fm.parse("---\n# mine\nx: 1\n---\n", "P.md")
    doc.meta = {"x": 1, "y": {"deep": [1]}}
    doc.flow_keys = ("y",)
    assert fm.render(doc) == "---\n# mine\nx: 1\ny: {deep: [1]}\n---\n"


def test_a_new_document_and_one_read_without_fields_dump_them_whole():
    doc = fm.new({"name": "Bo", "rhythm": {"n": 1}}, "body\n")
    doc.flow_keys = ("rhythm",)
    assert fm.render(doc) == "---\nname: Bo\nrhythm: {n: 1}\n---\nbody\n" and not doc.has_original_text
    empty = fm.parse("---\n---\nbody\n", "P.md")
    empty.meta["name"] = "Bo"
    assert fm.render(empty) == "---\nname: Bo\n---\nbody\n"


def test_an_error_about_a_field_points_at_its_line():
    raw = "# mine\nname: A\naxb: 1\na.b : 2\n"
    assert (fm.line_of_key(raw, "name"), fm.line_of_key(raw, "a.b"), fm.line_of_key(raw, "mbti")) == (3, 5, None)


# -- appending to a day's log ------------------------------------------------------------
def test_appending_nothing_writes_nothing(tmp_path):
    path = dailylog.log_path(tmp_path, DAY)
    assert dailylog.append_many(path, [], DAY) == -1 and not path.parent.exists()


def test_entries_appended_together_land_in_one_write_after_the_header(tmp_path, monkeypatch):
    path = dailylog.log_path(tmp_path / "new person", DAY)
    writes: list[bytes] = []
    real_write = os.write

    def counted(fd, data):
        writes.append(data)
        return real_write(fd, data)

    monkeypatch.setattr(dailylog.os, "write", counted)
    first = [dailylog.Entry("10:00:00", "me", "a"), dailylog.Entry("10:00:01", "persona", "b\nc", ["cut off"])]
    assert dailylog.append_many(path, first, DAY) == 0
    assert dailylog.append_many(path, [dailylog.Entry("10:00:02", "note", "d")], DAY) == 2
    assert len(writes) == 2  # one write per call: a crash keeps all of a call's entries or none
    assert path.read_text("utf-8") == ("---\ndate: 2026-12-02\n---\n\n- 10:00:00 · me · a\n"
                                       "- 10:00:01 · persona [cut off] · b\n  c\n- 10:00:02 · note · d\n")


def test_an_import_hands_its_rendered_text_and_flushes_once_itself(tmp_path, monkeypatch):
    """An import of a year of chats must not pay one fsync per message; a
    chat's append is flushed before it returns (a crash loses nothing)."""
    synced: list[int] = []
    monkeypatch.setattr(dailylog.os, "fsync", synced.append)
    path = dailylog.log_path(tmp_path, DAY)
    entries = [dailylog.Entry("09:00:00", "import:Alice", "hi")]
    assert dailylog.append_many(path, entries, DAY, durable=False, rendered="- 09:00:00 · import:Alice · hi\n") == 0
    assert synced == [] and dailylog.load(path) == entries
    dailylog.append(path, dailylog.Entry("09:00:01", "me", "yo"), DAY)
    assert len(synced) == 1 and [e.text for e in dailylog.load(path)] == ["hi", "yo"]


def test_a_full_disk_mid_append_leaves_the_log_as_it_was(tmp_path, monkeypatch):
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "kept"), DAY)
    before = path.read_bytes()
    real_write = os.write

    def half(fd, data):
        return real_write(fd, data[:len(data) // 2])

    monkeypatch.setattr(dailylog.os, "write", half)
    with pytest.raises(WriteError) as err:
        dailylog.append(path, dailylog.Entry("10:00:01", "me", "a long entry that will not fit"), DAY)
    assert "the disk is full" in str(err.value)
    assert path.read_bytes() == before  # no half entry
    other = dailylog.log_path(tmp_path, dt.date(2026, 12, 3))
    with pytest.raises(WriteError):
        dailylog.append(other, dailylog.Entry("10:00:01", "me", "x"), dt.date(2026, 12, 3))
    assert not other.exists()  # no empty day log left behind
    monkeypatch.setattr(dailylog.os, "write", real_write)
    assert dailylog.append(path, dailylog.Entry("10:00:02", "me", "later"), DAY) == 1


def test_a_refused_write_is_named_and_the_log_is_as_it_was(tmp_path, monkeypatch):
    path = dailylog.log_path(tmp_path, DAY)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "kept"), DAY)
    before = path.read_bytes()

    def read_only(fd, data):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(dailylog.os, "write", read_only)
    with pytest.raises(WriteError) as err:
        dailylog.append(path, dailylog.Entry("10:00:01", "me", "x"), DAY)
    assert "the disk is read-only" in str(err.value) and path.read_bytes() == before


def test_a_log_linked_out_of_the_workspace_is_never_appended_to(tmp_path):
    (tmp_path / "heartcompass.toml").write_text("", "utf-8")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    person = tmp_path / "people" / "alice"
    person.mkdir(parents=True)
    (person / "logs").symlink_to(elsewhere)
    with pytest.raises(UnsafePathError):
        dailylog.append(dailylog.log_path(person, DAY), dailylog.Entry("10:00:00", "me", "x"), DAY)
    assert list(elsewhere.iterdir()) == []


def test_an_appender_knows_whether_the_file_it_opened_is_still_the_log(tmp_path):
    path = tmp_path / "log.md"
    path.write_text("x", "utf-8")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert dailylog._still_there(fd, path)
        path.unlink()
        assert not dailylog._still_there(fd, path)  # set aside while we waited for the lock
        path.write_text("x", "utf-8")
        assert not dailylog._still_there(fd, path)  # another file in its place now
    finally:
        os.close(fd)


def test_an_entry_is_counted_only_below_the_header():
    text = "---\ndate: 2026-12-02\n- 10:00:00 · me · not one\n---\n\n- 10:00:01 · me · one\nnot an entry\n"
    assert dailylog._count_entries(text) == 1
    assert dailylog._count_entries("- 10:00:00 · me · a\n- 10:00:01 · me · b\n") == 2
    assert dailylog._count_entries("---\n- 10:00:00 · me · a\n") == 1  # a header never closed: all of it


# -- reading a day's log -----------------------------------------------------------------
def test_a_log_is_read_with_its_header_continuations_and_tags():
    text = ("---\ndate: 2026-12-02\n- 09:00:00 · me · in the header\n---\n\n- 10:00:00 · me · hi\n  two\n\n"
            "- 10:00:01 · persona [ cut off , , as-of 2026-01 ] · ok\n- 10:00:02 · note [] · bare\n")
    entries = dailylog.parse(text, "log.md")
    assert entries == [dailylog.Entry("10:00:00", "me", "hi\ntwo"),
                       dailylog.Entry("10:00:01", "persona", "ok", ["cut off", "as-of 2026-01"]),
                       dailylog.Entry("10:00:02", "note", "bare")]
    with pytest.raises(FormatError) as err:
        dailylog.parse("- 10:00:00 · me · hi\n---\n", "log.md")  # no header: '---' is a stray line
    assert err.value.line == 2


def test_a_line_that_is_not_an_entry_names_its_line_and_how_to_restore_it():
    long = "x" * 80
    with pytest.raises(FormatError) as err:
        dailylog.parse(f"---\ndate: 2026-12-02\n---\n\n  orphan\n{long}\n", "log.md")
    assert err.value.line == 5 and err.value.problem == "not a log entry: 'orphan'"
    with pytest.raises(FormatError) as err:
        dailylog.parse(f"- 10:00:00 · me · hi\n  {long}\n {long}\n", "log.md")
    assert err.value.line == 3 and err.value.problem == f"not a log entry: {'x' * 60!r}"
    assert err.value.hint == ("Logs are written by HeartCompass and append-only; restore the line with "
                              "'heartcompass restore' or 'git checkout' rather than editing it.")


def test_an_entry_renders_every_line_break_as_one_indented_continuation():
    assert dailylog.Entry("10:00:00", "me", "a\r\nb\rc", ["x", "y"]).render() == \
        "- 10:00:00 · me [x, y] · a\n  b\n  c\n"
    assert dailylog.Entry("10:00:00", "me", "").render() == "- 10:00:00 · me · \n"


def test_entries_a_marker_takes_back_are_flagged_dropped_when_read():
    text = "- 10:00:00 · persona · a\n- 10:00:01 · mark [supersedes 1] · retry\n- 10:00:02 · persona · b\n"
    entries = dailylog.parse(text, "log.md")
    assert [e.dropped for e in entries] == [True, True, False]


def test_the_first_marker_to_name_an_entry_says_what_happened_to_it():
    entries = dailylog.parse("- 10:00:00 · note · a\n- 10:00:01 · mark [discards 1] · no\n"
                             "- 10:00:02 · mark [applied 1] · yes\n- 10:00:03 · mark [applied 0 1-1] · ?\n",
                             "log.md")
    assert dailylog.marked(entries) == {0: "discards"}


# -- VOICE.md ----------------------------------------------------------------------------
def test_a_new_voice_is_exactly_its_header_note_and_two_empty_sections():
    v = voice_fmt.new("people/alice/VOICE.md", "Alice")
    assert v.path == Path("people/alice/VOICE.md") and v.lines(voice_fmt.THEIRS) == [] and v.other == {}
    assert v.lines("Inside jokes") == []  # a section the file does not have: no lines
    assert voice_fmt.render(v) == (
        "---\nbudget_tokens: 300\nprivate: []\n---\n\n# Voice — Alice\n\nTheir own words, verbatim: the persona sees "
        "them as examples of how they write, never as facts.\nLines marked (import ...) are picked from imported "
        "chats and may be replaced by newer ones; every other line is yours and stays.\n\n## Their words\n\n"
        "## My words to them\n\n")


def test_a_hand_written_voice_renders_as_written_until_it_changes():
    text = '## Their words\n- "hi"\n## Mine\nraw\n'
    v = voice_fmt.parse(text, "VOICE.md")
    assert voice_fmt.render(v) == text and (v.budget_tokens, v.private, v.rhythm) == (300, [], {})
    v.sections[voice_fmt.THEIRS].append(voice_fmt.Line("yo", "card"))
    assert voice_fmt.render(v) == '## Their words\n\n- "hi"\n- "yo" (card)\n\n## Mine\nraw\n'


def test_a_voice_keeps_its_sections_in_order_and_a_learned_rhythm_on_one_line():
    v = voice_fmt.parse('---\nbudget_tokens: 50\n---\n## My words to them\n\n- "a" (quote 2026-01-02)\n', "VOICE.md")
    v.sections["Extra"] = [voice_fmt.Line("x")]
    v.doc.meta["rhythm"] = {"messages": 9, "median_words": 4}
    v.doc.meta["private"] = ["salary", 3]
    assert (v.budget_tokens, v.private) == (50, ["salary", "3"])
    assert voice_fmt.render(v) == ('---\nbudget_tokens: 50\nrhythm: {median_words: 4, messages: 9}\n'
                                   'private:\n- salary\n- 3\n---\n## My words to them\n\n- "a" (quote 2026-01-02)\n\n'
                                   '## Extra\n\n- "x"\n\n')


@pytest.mark.parametrize("line, text, source", [
    ('- "hi" (import)', "hi", "import"), ('- "hi" (card 2026-01-02)', "hi", "card 2026-01-02"),
    ('- "say "hi"" (hand)', 'say "hi"', "hand"), ('  - "hi"   ', "hi", "hand"), ('- "" (quote)', "", "quote"),
])
def test_a_voice_line_reads_its_words_and_where_they_came_from(line, text, source):
    v = voice_fmt.parse(f"## Their words\n\n{line}\n", "VOICE.md")
    assert v.lines(voice_fmt.THEIRS) == [voice_fmt.Line(text, source)]


@pytest.mark.parametrize("line", ['- "hi" (told)', '- hi', '- "hi" (import 2026-1-2)', '- "hi" x'])
def test_a_voice_line_with_a_source_of_its_own_is_refused(line):
    with pytest.raises(FormatError) as err:
        voice_fmt.parse(f"## Their words\n\n{line}\n", "VOICE.md")
    assert err.value.line == 3 and err.value.hint == 'Write each line as - "what they wrote" (optionally followed by (hand)).'


# -- conflict marks ----------------------------------------------------------------------
def test_conflict_marks_are_found_in_a_windows_file_and_only_in_order():
    assert text_fmt.conflict_line("a\r\n<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\n") == 2
    assert text_fmt.conflict_line("=======\n<<<<<<< a\nx\n>>>>>>> b\n") is None  # divider before the opener
    assert text_fmt.conflict_line("<<<<<<< a\n=======\n<<<<<<< b\n>>>>>>> c\n") is None  # a new opener, no divider
    assert text_fmt.conflict_line("<<<<<<<< a\n=======\n>>>>>>> b\n") is None  # eight marks: not git's
    assert text_fmt.conflict_line("<<<<<<< a\n=======\n>>>>>>>> b\n") is None
    assert text_fmt.conflict_line("x\n<<<<<<<\n=======\n>>>>>>>\n") == 2  # bare marks, as git writes some
    assert text_fmt.conflict_line("<<<<<<< a\n======= \n>>>>>>> b\n") is None
    assert text_fmt.conflict_line("<<<<<<< a\n>>>>>>> b\n<<<<<<< c\n=======\n>>>>>>> d\n") == 3
    assert text_fmt.conflict_line("a\n>>>>>>> x\n<<<<<<< y\n", leftovers=True) == 2  # the first one left
