"""A file of ours as text: read safely (no link, FIFO or device; UTF-8 or
a FormatError naming the line), git's conflict marks found, and the four
kinds of person file by name. What every format module needs, apart from
the package's face (which dispatches to them: `validate`)."""

from __future__ import annotations

import errno
import os
import re
import shlex
from pathlib import Path

from heartcompass.errors import FormatError, UnsafePathError

FILE_KINDS = {"profile": "PROFILE.md", "events": "EVENTS.md", "memory": "MEMORY.md", "voice": "VOICE.md"}



CONFLICT_HINT = ("Keep the lines you want, delete the marks, then finish with 'heartcompass sync --continue' "
                 "(or go back with 'heartcompass sync --abort').")
_OPENER = re.compile(r"<{7}(?: |$)")
_CLOSER = re.compile(r">{7}(?: |$)")


def conflict_line(text: str, leftovers: bool = False) -> int | None:
    """The 1-based line where git's conflict marks start, or None: a
    `<<<<<<< ` line, later a `=======` line, later a `>>>>>>> ` line, each at
    a line's start, as git writes them. A lone `=======` (a Markdown heading's
    underline) is not one. leftovers: any `<<<<<<< ` or `>>>>>>> ` line counts
    (marks half deleted from a file known to have been in conflict)."""
    if "<<<<<<<" not in text and not (leftovers and ">>>>>>>" in text):
        return None
    opened, divided = None, False
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if _OPENER.match(line):
            if leftovers:
                return number
            opened, divided = number, False
        elif line == "=======" and opened:
            divided = True
        elif _CLOSER.match(line):
            if leftovers or (opened and divided):
                return number if leftovers else opened
    return None


def check_conflict_marks(text: str, path: Path | str) -> None:
    """A FormatError when a sync's conflict was left in the file: its marks
    and both sides' lines must never reach a model or a commit."""
    line = conflict_line(text)
    if line:
        raise FormatError(path, "has unresolved conflict marks (<<<<<<< ... ======= ... >>>>>>>)", line,
                          CONFLICT_HINT)


def file_for(kind: str) -> str:
    """'profile' / 'PROFILE.md' / 'profile.md' -> 'PROFILE.md'."""
    key = kind.strip().lower().removesuffix(".md")
    if key in FILE_KINDS:
        return FILE_KINDS[key]
    from heartcompass.errors import HeartCompassError

    raise HeartCompassError(f"Unknown file {kind!r}.", "Use profile, events, memory or voice.")


REPAIR_HINT = ("Save it again as UTF-8 text (e.g. 'iconv -f latin1 -t utf-8'), or bring back the last good "
               "version with 'heartcompass restore' or 'git checkout'.")


def read_text(path: Path | str) -> str:
    """The UTF-8 text of a workspace file, or a FormatError saying what is
    wrong with it and how to fix it (a link, a folder, unreadable, binary,
    not UTF-8). The file is never changed. A missing file raises
    FileNotFoundError: callers decide what absent means."""
    return decode(read_bytes(path), path)


def read_bytes(path: Path | str) -> bytes:
    """read_text's bytes, not decoded yet (decode them, or know them by
    their checksum: a cache of what they decoded to)."""
    from heartcompass import paths

    path = paths.check(Path(path))
    try:
        # O_NOFOLLOW: a link swapped in after the check is still refused;
        # O_NONBLOCK: a FIFO put in a file's place cannot hang the command.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except PermissionError:
        raise FormatError(path, "cannot be read (permission denied)",
                          hint=f"Give yourself read access, e.g.: chmod u+r {shlex.quote(str(path))}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(path, "is a symbolic link; HeartCompass reads no file through a link",
                                  hint=paths.FIX) from None
        if isinstance(exc, FileNotFoundError):
            raise
        raise FormatError(path, f"cannot be read ({exc.strerror})") from None
    try:
        kind = paths.special_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise FormatError(path, f"is {kind}, not a regular file", hint=paths.SPECIAL_FIX)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read()
    except OSError as exc:
        raise FormatError(path, f"cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    return data


def decode(data: bytes, path: Path | str) -> str:
    """bytes -> str, or a FormatError naming the line of the first bad byte."""
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise FormatError(path, "is a binary file, not text (a NUL byte)", line, REPAIR_HINT)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x})", line, REPAIR_HINT) from None
