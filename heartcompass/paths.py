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

import os
from pathlib import Path

from heartcompass.errors import UnsafePathError

MARKER = "heartcompass.toml"
FIX = "Replace the link with a real file or folder (copy what it points to), or remove it."


def _workspace_link(path: Path) -> tuple[Path, Path] | None:
    """(first symbolic link on the way from path up to its workspace, the
    workspace root), or None when there is none or no workspace."""
    path = Path(os.path.abspath(path))
    link = None
    for part in (path, *path.parents):
        if link is None and os.path.islink(part):
            link = part
        if part != path and os.path.lexists(part / MARKER):  # heartcompass.toml itself may be the link
            return (link, part) if link is not None else None
    return None


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
