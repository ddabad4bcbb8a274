"""The one rule for caches keyed by a file's stat (the people index, the
gardener's entry counts): an entry is keyed by the file's identity and
times (inode, size, mtime, ctime), so any change to the file, by us or by
hand, makes it stale; and a file changed in the last two seconds is not
cached at all. Timestamps have a granularity (a kernel tick, a second on
some file systems): a second write within it, of the same size, would
keep the same key and be taken for the first (the "racy" window git knows
from its index)."""

from __future__ import annotations

import os
import time
from pathlib import Path

RACY_NS = 2_000_000_000
_stat = os.stat  # tests stand in a coarse-clocked file system here
_now_ns = time.time_ns


def stat_key(path: Path | str) -> list[int] | None:
    """The file's identity and times; None when it is not there."""
    try:
        st = _stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def stat_of(path: Path | str) -> os.stat_result:
    """os.stat as these caches see a file (raises as it does)."""
    return _stat(path)


def settled(keys: list[list[int] | None]) -> bool:
    """Old enough to cache: no write since could share these timestamps."""
    now = _now_ns()
    return all(not isinstance(k, list) or now - max(k[2], k[3]) >= RACY_NS for k in keys)
