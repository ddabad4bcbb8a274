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
Tags in brackets mark what the gardener must know: [cut off], [as-of ...]."""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats import read_text

_ENTRY = re.compile(
    r"^- (?P<time>\d{2}:\d{2}:\d{2}) · (?P<speaker>[^\s·\[\]]+)(?: \[(?P<tags>[^\]]*)\])? · ?(?P<text>.*)$"
)
TRUSTED_SPEAKERS = ("me", "note")


@dataclass
class Entry:
    time: str
    speaker: str
    text: str
    tags: list[str] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return self.speaker in TRUSTED_SPEAKERS or self.speaker.startswith("import:")

    def render(self) -> str:
        tags = f" [{', '.join(self.tags)}]" if self.tags else ""
        first, *rest = (self.text.replace("\r\n", "\n").replace("\r", "\n") or "").split("\n")
        lines = [f"- {self.time} · {self.speaker}{tags} · {first}"]
        lines += [f"  {line}" for line in rest]
        return "\n".join(lines) + "\n"


def log_path(person_dir: Path, day: dt.date) -> Path:
    return person_dir / "logs" / f"{day.isoformat()}.md"


def header(day: dt.date) -> str:
    return f"---\ndate: {day.isoformat()}\n---\n\n"


def parse(text: str, path: Path | str) -> list[Entry]:
    entries: list[Entry] = []
    in_front = text.startswith("---")
    for i, line in enumerate(text.splitlines(), start=1):
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
    return entries


def load(path: Path) -> list[Entry]:
    return parse(read_text(path), path)


def append(path: Path, entry: Entry, day: dt.date) -> None:
    """Append one entry as a single write, under an exclusive lock, flushed to
    disk: two chats at once never interleave, and a crash loses nothing."""
    append_many(path, [entry], day)


def append_many(path: Path, entries: list[Entry], day: dt.date, durable: bool = True) -> None:
    """Append entries in one write (an import of a year of chats must not
    pay one fsync per message). durable=False leaves the flush to the caller
    (an import writes every day file, then syncs once)."""
    if not entries:
        return
    from heartcompass import paths
    from heartcompass.atomic import writing

    paths.check(path)  # a linked log, logs/ or person folder would append outside the workspace
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = "".join(e.render() for e in entries)
        if os.fstat(fd).st_size == 0:
            data = header(day) + data
        os.write(fd, data.encode("utf-8"))
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def log_dates(person_dir: Path) -> list[str]:
    """Dates (YYYY-MM-DD) of this person's daily logs, oldest first."""
    try:
        names = os.listdir(person_dir / "logs")
    except FileNotFoundError:
        return []
    return sorted(n[:-3] for n in names if re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", n))
