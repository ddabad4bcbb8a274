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
from heartcompass.errors import FormatError, UnsafePathError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
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
PROFILE_BODY = ("---\nname: Alice\n---\n# Alice\nintro line\n\n## Likes\n\n- tea  \n<!-- my note -->\n  indented\n"
                "## People in their life\n\n- [m1] Sara (daughter)\n## Background\nGrew up in Lyon.\n\n")


def test_a_profiles_notes_are_its_section_lines_without_comments_or_mentions():
    """The gardener names these lines P1, P2...: a comment, a blank line, the
    title above the sections or a mentioned person is not one of them."""
    prof = profile_fmt.parse(PROFILE_BODY, Path("PROFILE.md"))
    assert prof.notes() == [("Likes", "- tea"), ("Likes", "  indented"), ("Background", "Grew up in Lyon.")]
    assert prof.sections() == {"Likes": "- tea  \n<!-- my note -->\n  indented",
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
