"""The `Consolidated:` trailer every garden commit ends with (day=count:checksum
for each log it read), which lets the consolidation state be rebuilt from
git, and the map old versions kept in MEMORY.md instead. No git here:
consolidation.py rebuilds one person from them, consolidation_history.py
everyone at once."""

from __future__ import annotations

import re
from pathlib import Path

from heartcompass.errors import FormatError

TRAILER = "Consolidated:"
_ITEM = re.compile(r"(\d{4}-\d{2}-\d{2})=(\d+)(?::([0-9a-f]+))?")

Days = dict[str, list]  # day -> [count, checksum or None (not yet verified)]


def trailer(days: Days) -> str:
    """The commit trailer that lets the state be rebuilt from git."""
    items = " ".join(f"{day}={n}:{c}" if c else f"{day}={n}" for day, (n, c) in sorted(days.items()))
    return f"{TRAILER} {items}" if items else ""


def parse_trailer(message: str) -> Days:
    out: Days = {}
    for line in message.splitlines():
        if line.startswith(TRAILER):
            for m in _ITEM.finditer(line):
                out[m[1]] = [int(m[2]), m[3]]
    return out


def legacy_map(memory_path: Path) -> dict[str, int]:
    """The `consolidated` map old versions kept in MEMORY.md's frontmatter."""
    from heartcompass.formats import memory as memory_fmt

    try:
        return memory_fmt.load(memory_path).legacy_consolidated
    except (FileNotFoundError, FormatError, UnicodeDecodeError, IsADirectoryError):
        return {}
