"""Writes of ours that were not committed: the gardener and `tell` (and a
`review` Yes, in tell's journal) save the texts they are about to write in a
journal before writing them (.heartcompass/garden/<slug>.json, see
memory/garden_journal.py, and .heartcompass/tell/<slug>.json). A file that holds exactly such a text is
that unfinished work, never a hand edit of the user's: no command commits it
as one. The next garden finishes a garden's journal (its consolidation state
moves with the files); the next command that writes (audit.writing, and the
gardener) finishes a tell's, as the tell's own commit (`finish_told`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from heartcompass import paths
from heartcompass.atomic import checksum, file_checksum, write_atomic
from heartcompass.errors import UnsafePathError
from heartcompass.store.workspace import Workspace

GARDEN_JOURNALS = "garden"  # the folder of the gardener's journals in .heartcompass/
TELL_JOURNALS = "tell"  # and of tell's (no consolidation state to move)
FINISHED = "(finished after an interruption)"


def garden_journal_path(ws: Workspace, slug: str) -> Path:
    return ws.state_dir / GARDEN_JOURNALS / f"{slug}.json"


def tell_journal_path(ws: Workspace, slug: str) -> Path:
    return ws.state_dir / TELL_JOURNALS / f"{slug}.json"


def save(ws: Workspace, path: Path, files: dict[Path, tuple[str | None, str]], subject: str, body: str,
         days: dict[str, list] | None = None, keep: list[Path] | None = None) -> None:
    """The journal: for each file, the checksum it has now (None: absent) and the text about to be written;
    `keep`: files committed with them as they are then (a tell's note in its log)."""
    data = {"subject": subject, "body": body, "days": days or {}, "keep": [ws.rel(p) for p in keep or ()],
            "files": {ws.rel(p): {"old": old, "new": new} for p, (old, new) in files.items()}}
    write_atomic(path, json.dumps(data, ensure_ascii=False))


def _journals(ws: Workspace, *folders: str) -> list[Path]:
    return [p for name in folders if (ws.state_dir / name).is_dir() for p in sorted((ws.state_dir / name).glob("*.json"))]


def journaled_writes(ws: Workspace) -> set[str]:
    """Workspace paths whose file holds the text a journal (garden's or tell's) wrote there."""
    ours = set()
    for journal in _journals(ws, GARDEN_JOURNALS, TELL_JOURNALS):
        try:
            files = json.loads(paths.read_local(journal))["files"]
            for rel, texts in files.items():
                if file_checksum(ws.root / rel) == checksum(texts["new"]):
                    ours.add(rel)
        except (OSError, UnsafePathError, ValueError, KeyError, TypeError, AttributeError):
            continue  # a broken journal claims nothing: the garden's own recovery clears it
    return ours


def finish(ws: Workspace, path: Path, written: dict[Path, str] | None = None,
           before_commit: Callable[[dict], None] | None = None) -> str | None:
    """Finish the work a journal describes: write what is missing, then
    (before_commit(journal) first) commit exactly the journal's texts.
    `written`: checksums of what this process wrote (it knows a later hand
    edit from a write that never happened). A file changed by hand since is
    left alone, and so is the rest (the journal goes)."""
    try:
        data = json.loads(paths.read_local(path))
    except (FileNotFoundError, UnsafePathError):  # none, or a FIFO or device where it was: nothing to finish
        return None
    except ValueError:
        path.unlink()
        return None
    files = {ws.root / rel: v for rel, v in data["files"].items()}
    now = {p: file_checksum(p) for p in files}
    ours = {p for p, v in files.items()
            if now[p] == checksum(v["new"]) or (written or {}).get(p) == checksum(v["new"])}
    if any(now[p] != v["old"] for p, v in files.items() if p not in ours):
        path.unlink()
        return None
    for file, v in files.items():
        if file not in ours:
            write_atomic(file, v["new"], expected_checksum=v["old"])
    if before_commit is not None:
        before_commit(data)
    body = f"{data['body']}\n\n{FINISHED}".strip()
    contents: dict[Path | str, str] = {p: v["new"] for p, v in files.items()}
    contents.update(_kept(ws, data.get("keep", [])))
    sha = ws.git.commit_contents(contents, data["subject"], body)
    path.unlink()
    return sha


def _kept(ws: Workspace, rels: list[str]) -> dict[Path | str, str]:
    """The journal's `keep` files as they are now (a log only grows). One that is
    not a plain UTF-8 file in people/ stays for the next commit of it."""
    import os

    kept: dict[Path | str, str] = {}
    for rel in rels:
        if not isinstance(rel, str) or not rel.startswith("people/") or ".." in Path(rel).parts:
            continue
        try:
            fd = paths.open_regular(paths.check(ws.root / rel), os.O_RDONLY)
            with os.fdopen(fd, "rb") as fh:
                kept[ws.root / rel] = fh.read().decode("utf-8")
        except (OSError, UnsafePathError, UnicodeDecodeError):
            continue
    return kept


def told_unfinished(ws: Workspace) -> bool:
    """Whether a `tell` was killed between writing its files and its commit."""
    return bool(_journals(ws, TELL_JOURNALS))


def finish_told(ws: Workspace) -> list[str]:
    """Finish every `tell` killed between writing its files and its commit:
    its commit, as `tell` would have made it (never the user's hand edit)."""
    return [sha for journal in _journals(ws, TELL_JOURNALS) if (sha := finish(ws, journal))]
