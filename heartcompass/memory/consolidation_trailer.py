"""The `Consolidated:` trailer every garden commit ends with (day=count:checksum
for each log it read), which lets the consolidation state be rebuilt from
git, and the map old versions kept in MEMORY.md instead. No git here:
consolidation.py rebuilds one person from them, consolidation_history.py
everyone at once.

A log read to its end adds `/` and the git blob id of the bytes read
(day=count:checksum/blob): a log whose bytes are still that blob is known to
be all read without reading it (a second device's first garden reads no log
git already vouches for). Older readers' pattern stops before the `/`."""

from __future__ import annotations

import re
from pathlib import Path

from heartcompass.errors import FormatError

TRAILER = "Consolidated:"
_ITEM = re.compile(r"(\d{4}-\d{2}-\d{2})=(\d+)(?::([0-9a-f]+)(?:/([0-9a-f]{40}))?)?")

Days = dict[str, list]  # day -> [count, checksum or None (not yet verified)]


def trailer(days: Days, read_whole: dict[str, str] | None = None) -> str:
    """The commit trailer that lets the state be rebuilt from git.
    read_whole: day -> blob id of the log's bytes, for the logs whose every
    entry these counts cover (no other may be named)."""
    whole = read_whole or {}
    items = " ".join((f"{day}={n}:{c}" + (f"/{whole[day]}" if day in whole else "")) if c else f"{day}={n}"
                     for day, (n, c) in sorted(days.items()))
    return f"{TRAILER} {items}" if items else ""


def parse_trailer(message: str) -> Days:
    out: Days = {}
    for line in message.splitlines():
        if line.startswith(TRAILER):
            for m in _ITEM.finditer(line):
                out[m[1]] = [int(m[2]), m[3]]
    return out


def parse_read_whole(message: str) -> dict[str, str]:
    """day -> blob id of the logs the trailer says were read to their end."""
    out: dict[str, str] = {}
    for line in message.splitlines():
        if line.startswith(TRAILER):
            for m in _ITEM.finditer(line):
                if m[4]:
                    out[m[1]] = m[4]
                else:
                    out.pop(m[1], None)
    return out


def legacy_map(memory_path: Path) -> dict[str, int]:
    """The `consolidated` map old versions kept in MEMORY.md's frontmatter."""
    from heartcompass.formats import memory as memory_fmt

    try:
        return memory_fmt.load(memory_path).legacy_consolidated
    except (FileNotFoundError, FormatError, UnicodeDecodeError, IsADirectoryError):
        return {}
