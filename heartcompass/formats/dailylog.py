"""logs/YYYY-MM-DD.md: the append-only raw stream of one day.

    - 14:03:12 · me · how was the hike?
    - 14:03:15 · persona · it was great!
      the view from the top, wow
    - 14:05:40 · note · She starts the new job in January
    - 09:12:00 · import:Alice · a real message from an export
    - 14:06:02 · persona [cut off] · I was going to say

Continuation lines are indented two spaces, so no message text can look like
an entry. Speakers: me (the user), persona (simulated, untrusted), note (a
fact the user stated, trusted), import:<who> (a real message, trusted).
Tags in brackets mark what the gardener must know: [cut off], [as-of ...].

Logs are never rewritten, so taking an entry back is itself an entry, a
marker (speaker `mark`) that names earlier entries of the same file by
position (1-based, in file order; ranges allowed, separated by spaces):

    - 14:07:01 · mark [supersedes 2-3] · replaced by /retry
    - 14:09:30 · mark [discards 4] · tell declined; not for the gardener
    - 14:09:30 · mark [applied 4] · tell applied it to the files

supersedes: persona replies replaced by /retry (or cut off, then retried);
discards: a note the user chose to drop; applied: a note `tell` already
wrote into the files. The marked entries, and the markers themselves, are
left out of the chat history and of what the gardener reads
(Entry.dropped, effective_entries). Markers are read tolerantly: an unknown verb, a
malformed or out-of-range position, or one that points at the marker itself,
a later entry or another marker is ignored. A marker appended after the
gardener already consolidated an entry cannot take it back out of memory."""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import re
import shlex
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from heartcompass.errors import FormatError, HeartCompassError
from heartcompass.formats.text import check_conflict_marks, read_text

_ENTRY = re.compile(
    r"^- (?P<time>\d{2}:\d{2}:\d{2}) · (?P<speaker>[^\s·\[\]]+)(?: \[(?P<tags>[^\]]*)\])? · ?(?P<text>.*)$"
)
TYPED_SPEAKERS = ("me", "note")  # what the user typed (a chat message, a /note); who may support what: proposal/trust.py
MARK = "mark"
COACH_TAG = "coach"  # a note saved by `coach --save`: a message of a real conversation, as it was said
MARK_VERBS = ("supersedes", "discards", "applied")
_REF = re.compile(r"^(\d+)(?:-(\d+))?$")


@dataclass
class Entry:
    time: str
    speaker: str
    text: str
    tags: list[str] = field(default_factory=list)
    # Set by parse(): a marker, or an entry a later marker takes back (see above).
    dropped: bool = field(default=False, compare=False, repr=False)

    def render(self) -> str:
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        if "\n" not in self.text and "\r" not in self.text:  # one line (nearly every message): no split
            return f"- {self.time} · {self.speaker}{tags} · {self.text}\n"
        first, *rest = (self.text.replace("\r\n", "\n").replace("\r", "\n") or "").split("\n")
        lines = [f"- {self.time} · {self.speaker}{tags} · {first}"]
        lines += [f"  {line}" for line in rest]
        return "\n".join(lines) + "\n"


def log_path(person_dir: Path, day: dt.date) -> Path:
    return person_dir / "logs" / f"{day.isoformat()}.md"


def header(day: dt.date) -> str:
    return f"---\ndate: {day.isoformat()}\n---\n\n"


def _lines(text: str) -> list[str]:
    """The file's lines, split where render() puts a line break. Not
    str.splitlines(): it also breaks at U+0085, U+2028, \\v, \\f and \\x1c-\\x1e,
    which a reply or a note may carry inside one entry's text."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def parse(text: str, path: Path | str) -> list[Entry]:
    check_conflict_marks(text, path)
    entries: list[Entry] = []
    in_front = text.startswith("---")
    for i, line in enumerate(_lines(text), start=1):
        if in_front:
            if i > 1 and line.strip() == "---":
                in_front = False
            continue
        m = _ENTRY.match(line)
        if m:
            tags = [t.strip() for t in (m["tags"] or "").split(",") if t.strip()]
            entries.append(Entry(m["time"], m["speaker"], m["text"], tags))
        elif line.startswith("  ") and entries:
            entries[-1].text += "\n" + line[2:]
        elif line.strip():
            raise FormatError(path, f"not a log entry: {line.strip()[:60]!r}", i,
                              "Logs are written by HeartCompass and append-only; restore the line with "
                              "'heartcompass restore' or 'git checkout' rather than editing it.")
    for i in dropped(entries):
        entries[i].dropped = True
    return entries


def load(path: Path) -> list[Entry]:
    return parse(read_text(path), path)


def as_logged(text: str) -> str:
    """An entry's text as parse() reads it back (render() writes every line break as \\n)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def entries_after(path: Path, size: int) -> list[Entry]:
    """The entries appended after the file's first `size` bytes, read from
    there only. [] when the file is gone or shorter, or what follows is not
    whole entries (the file was replaced since): the caller treats it as
    nothing appended."""
    from heartcompass import paths

    try:
        fd = paths.open_regular(paths.check(path), os.O_RDONLY)
    except (OSError, HeartCompassError):
        return []
    with os.fdopen(fd, "rb") as f:
        if os.fstat(f.fileno()).st_size < size:
            return []
        f.seek(size)
        text = f.read().decode("utf-8", "replace")
    try:
        return parse(text, path)
    except HeartCompassError:
        return []


def append(path: Path, entry: Entry, day: dt.date) -> int:
    """Append one entry as a single write, under an exclusive lock, flushed to
    disk: two chats at once never interleave, and a crash loses nothing.
    Returns the entry's position in the file (0-based), for a later marker."""
    return append_many(path, [entry], day)


def append_many(path: Path, entries: list[Entry], day: dt.date, durable: bool = True, rendered: str | None = None
                ) -> int:
    """Append entries in one write (an import of a year of chats must not
    pay one fsync per message). durable=False leaves the flush to the caller
    (an import writes every day file, then flushes them all once: os.sync);
    `rendered`: the entries already rendered, by a caller that keeps the
    text. Returns the first entry's position in the file (0-based), for a
    later marker."""
    if not entries:
        return -1
    from heartcompass import paths
    from heartcompass.atomic import write_refusals_named

    paths.check(path)  # a linked log, logs/ or person folder would append outside the workspace
    while True:
        with write_refusals_named(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = paths.open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)  # never a FIFO: it would hang
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _still_there(fd, path):
            break
        os.close(fd)  # set aside and removed while we waited (sync --abort): append to the file now there
    try:
        data = "".join(e.render() for e in entries) if rendered is None else rendered
        size = os.fstat(fd).st_size
        position = _count_entries(_read_fd(path)) if size else 0
        if size == 0:
            data = header(day) + data
        try:
            with write_refusals_named(path):  # a full disk is named, not a traceback
                raw = data.encode("utf-8")
                written = os.write(fd, raw)
                if written < len(raw):  # the disk filled mid-write: no half entry is kept
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
                if durable:
                    os.fsync(fd)
        except HeartCompassError:
            os.ftruncate(fd, size)  # the file as it was: no empty day log, no half entry
            if size == 0:
                path.unlink(missing_ok=True)
            raise
    finally:
        os.close(fd)
    return position


def _still_there(fd: int, path: Path) -> bool:
    try:
        return os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


@contextmanager
def held(path: Path) -> Iterator[int]:
    """The log open for reading and cutting, under the same lock appends take:
    no entry can be appended between what the holder reads and what it cuts."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _read_fd(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        return f.read().decode("utf-8", "replace")


def _count_entries(text: str) -> int:
    """How many entries parse() would find, without raising on a bad line."""
    body = text.split("\n---\n", 1)[1] if text.startswith("---") and "\n---\n" in text else text
    return sum(1 for line in _lines(body) if _ENTRY.match(line))


# -- markers ----------------------------------------------------------------------------
def marker(time: str, verb: str, positions: list[int], why: str) -> Entry:
    """A marker entry for the entries at these 0-based positions."""
    return Entry(time, MARK, why, [marker_tag(verb, positions)])


def marker_tag(verb: str, positions: list[int]) -> str:
    """A marker's tag: its verb and the runs of these 0-based positions,
    1-based ('supersedes 2-3 5')."""
    if verb not in MARK_VERBS:
        raise ValueError(f"unknown marker verb {verb!r}")
    runs: list[list[int]] = []  # [first, last] of each run of consecutive numbers
    for n in sorted({p + 1 for p in positions}):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    refs = [str(first) if first == last else f"{first}-{last}" for first, last in runs]
    return f"{verb} {' '.join(refs)}"


def marked(entries: list[Entry]) -> dict[int, str]:
    """0-based position -> verb, for every entry a valid marker names."""
    out: dict[int, str] = {}
    for own, entry in enumerate(entries):
        if entry.speaker != MARK:
            continue
        for tag in entry.tags:
            verb, _, refs = tag.partition(" ")
            if verb not in MARK_VERBS:
                continue
            for ref in refs.split():
                m = _REF.match(ref)
                if not m:
                    continue
                first, last = int(m[1]), int(m[2] or m[1])
                for n in range(first, min(last, own) + 1):  # only earlier entries
                    if n >= 1 and entries[n - 1].speaker != MARK:
                        out.setdefault(n - 1, verb)
    return out


def renumbered(entries: list[Entry], since: int, by: int) -> list[Entry]:
    """These entries moved `by` places down their file (appended again after
    other entries): their markers' positions past `since` move with them."""
    def shift(ref: str) -> str:
        m = _REF.match(ref)
        if not m:
            return ref
        first, last = (int(n) + by if int(n) > since else int(n) for n in (m[1], m[2] or m[1]))
        return str(first) if m[2] is None else f"{first}-{last}"

    out = []
    for entry in entries:
        if entry.speaker == MARK and by:
            tags = []
            for tag in entry.tags:
                verb, _, refs = tag.partition(" ")
                tags.append(f"{verb} {' '.join(shift(r) for r in refs.split())}" if verb in MARK_VERBS else tag)
            entry = Entry(entry.time, entry.speaker, entry.text, tags)
        out.append(entry)
    return out


def dropped(entries: list[Entry]) -> set[int]:
    """0-based positions that chat history and the gardener leave out: the
    markers and the entries they mark."""
    return {i for i, e in enumerate(entries) if e.speaker == MARK} | set(marked(entries))


def effective_entries(entries: list[Entry]) -> list[Entry]:
    """The entries still in force: markers and what they mark left out."""
    gone = dropped(entries)
    return [e for i, e in enumerate(entries) if i not in gone]


def log_dates(person_dir: Path) -> list[str]:
    """Dates (YYYY-MM-DD) of this person's daily logs, oldest first."""
    try:
        names = os.listdir(person_dir / "logs")
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise FormatError(person_dir / "logs", "is a file, not a folder",
                          hint="Move it out of the way: HeartCompass keeps the daily logs in this folder.") from None
    except PermissionError:
        logs = shlex.quote(str(person_dir / "logs"))
        raise FormatError(person_dir / "logs", "cannot be read (permission denied)",
                          hint=f"Give yourself access, e.g.: chmod u+rwx {logs}") from None
    return sorted(n[:-3] for n in names if re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", n))
