"""Reading a file the user points us at (an export, a card) with bounded
memory: only regular files (a FIFO, /dev/zero or a terminal would hang or
never end), and at most `limit` bytes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from heartcompass.errors import HeartCompassError


def read_limited(path: Path | str, limit: int, what: str) -> bytes:
    """The file's bytes, or a clear error naming the file, what is wrong and the fix."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise HeartCompassError(f"{path}: cannot read it ({exc.strerror or exc}).",
                                f"Check the path of the {what}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
            raise HeartCompassError(f"{path}: {kind}.", f"Give the path of the {what} file itself.")
        if info.st_size > limit:
            raise HeartCompassError(f"{path}: {_size(info.st_size)}, more than the {_size(limit)} a {what} "
                                    "may be; nothing was read.", f"Is this the right file? Split a very large {what}.")
        chunks, total = [], 0
        while total <= limit:  # the size can grow while we read
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise HeartCompassError(f"{path}: more than the {_size(limit)} a {what} may be; nothing was read.",
                                    f"Is this the right file? Split a very large {what}.")
        return b"".join(chunks)
    except OSError as exc:
        raise HeartCompassError(f"{path}: cannot read it ({exc.strerror or exc}).") from None
    finally:
        os.close(fd)


def _size(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n} bytes"


def check_regular(path: Path | str, limit: int, what: str) -> int:
    """The size of a regular file we may read, or the same clear errors as read_limited."""
    with open_regular(path, what) as f:
        size = os.fstat(f.fileno()).st_size
    if size > limit:
        raise HeartCompassError(f"{path}: {_size(size)}, more than the {_size(limit)} a {what} may be; "
                                "nothing was read.", f"Is this the right file? Split a very large {what}.")
    return size


def open_regular(path: Path | str, what: str):
    """A regular file opened for reading in binary (a FIFO, device or folder refused, never waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise HeartCompassError(f"{path}: cannot read it ({exc.strerror or exc}).",
                                f"Check the path of the {what}.") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
        raise HeartCompassError(f"{path}: {kind}.", f"Give the path of the {what} file itself.")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb", buffering=1 << 20)
