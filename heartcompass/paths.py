"""The workspace is a boundary: no command reads or writes through a link.

Policy: HeartCompass follows no symbolic link below the workspace folder,
whether it points outside (a MEMORY.md linked to ~/.ssh/id_rsa would be sent
to the model; a linked logs/ folder would make `chat` append elsewhere) or
inside (a MEMORY.md linked to ../../.env would leak the API key, two people
sharing one file would mix their memories, and links do not sync to every
system). Such a file is refused with its name and the reason; `doctor` lists
every link in the workspace; commits refuse to add one. The workspace folder
itself may be reached through a link (it is resolved once, when found).

The check walks up from the path to the nearest folder holding
heartcompass.toml: every component on the way must be a real file or folder.
A path in no workspace is not checked (a file the user names, e.g. an import)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from heartcompass.errors import UnsafePathError

MARKER = "heartcompass.toml"
FIX = "Replace the link with a real file or folder (copy what it points to), or remove it."


_ROOTS: set[str] = set()  # workspace folders seen: `person list` checks hundreds of files


def _workspace_link(path: Path) -> tuple[Path, Path] | None:
    """(first symbolic link on the way from path up to its workspace, the
    workspace root), or None when there is none or no workspace. Plain
    strings, not Path objects: this runs for every file read or written."""
    current = os.path.abspath(path)
    link = None
    while True:
        if link is None and os.path.islink(current):
            link = current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
        if current in _ROOTS or os.path.lexists(os.path.join(current, MARKER)):  # the marker may be a link
            _ROOTS.add(current)
            return (Path(link), Path(current)) if link is not None else None


def describe_link(link: Path, root: Path) -> tuple[str, bool]:
    """(what the link points to, for a message; whether that is outside root)."""
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    resolved = Path(os.path.realpath(link))
    real_root = Path(os.path.realpath(root))
    outside = resolved != real_root and real_root not in resolved.parents
    return target, outside


def check(path: Path | str) -> Path:
    """path, or UnsafePathError when it or a folder above it (inside the
    workspace) is a symbolic link. Call before every read or write."""
    found = _workspace_link(Path(path))
    if found is None:
        return Path(path)
    link, root = found
    target, outside = describe_link(link, root)
    where = "outside the workspace" if outside else "inside the workspace"
    what = "is" if link == Path(os.path.abspath(path)) else f"is in {_rel(link, root)}, which is"
    raise UnsafePathError(
        path, f"{what} a symbolic link to {target} ({where}); HeartCompass reads and writes no file "
              "through a link, so nothing leaves the workspace", hint=FIX)


def find_links(root: Path) -> list[tuple[str, str, bool]]:
    """Every symbolic link in the workspace (not inside .git): (relative
    path, target, points outside). Links to folders are listed, not entered."""
    root = Path(root)
    found = []
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root and ".git" in dirs:
            dirs.remove(".git")
        for name in sorted([*dirs, *files]):
            full = Path(folder) / name
            if os.path.islink(full):
                target, outside = describe_link(full, root)
                found.append((_rel(full, root), target, outside))
    return sorted(found)


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


SPECIAL_FIX = "Move it out of the way (e.g. rm or mv it): HeartCompass keeps a regular file here."


def special_kind(mode: int) -> str | None:
    """None for a regular file; else what it is, for a message."""
    if stat.S_ISREG(mode):
        return None
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file")


def open_regular(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """os.open for a file of ours, which must be a regular file: a FIFO, a
    device or a socket put in its place is refused with what it is (opening
    a FIFO would wait forever for a writer), and no link is followed. The
    descriptor is blocking again once it is known to be a regular file."""
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), mode)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader
            raise UnsafePathError(path, "is a named pipe (FIFO), not a regular file", hint=SPECIAL_FIX) from None
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(path, "is a symbolic link; HeartCompass follows no link", hint=FIX) from None
        raise
    kind = special_kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise UnsafePathError(path, f"is {kind}, not a regular file", hint=SPECIAL_FIX)
    if hasattr(os, "O_NONBLOCK"):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def ensure_folder(path: Path) -> Path:
    """mkdir -p for a folder of ours; something else in its place (a file, a
    device) is named, not a traceback."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        kind = special_kind(os.stat(path, follow_symlinks=False).st_mode) or "a file"
        raise UnsafePathError(path, f"is {kind}, where HeartCompass keeps a folder",
                              hint="Move it out of the way (e.g. mv it); HeartCompass makes the folder again.") \
            from None
    return path


def read_exact(path: Path) -> str:
    """A file of ours, exactly as it is: strict UTF-8 (UnicodeDecodeError
    otherwise), no link followed on the way (UnsafePathError)."""
    check(path)
    fd = open_regular(path, os.O_RDONLY)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read().decode("utf-8")
    finally:
        os.close(fd)


def read_local(path: Path) -> str:
    """A file of our local state (.heartcompass/), UTF-8. Missing:
    FileNotFoundError; a FIFO or device in its place: UnsafePathError (the
    callers rebuild such state, and their atomic write replaces the thing)."""
    fd = open_regular(path, os.O_RDONLY)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read().decode("utf-8", "replace")
    finally:
        os.close(fd)
