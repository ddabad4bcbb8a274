"""Writes of ours that were not committed: the gardener and `tell` save the
texts they are about to write in a journal (.heartcompass/garden/<slug>.json,
see memory/garden_journal.py) before writing them. A file that holds exactly
such a text is that unfinished work, never a hand edit of the user's: no
command commits it as one. The next garden finishes a garden's journal (its
consolidation state moves with the files); the next command that commits
anything finishes a tell's (`finish_told`, in audit.writing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from heartcompass import paths
from heartcompass.atomic import checksum, file_checksum, write_atomic
from heartcompass.errors import UnsafePathError
from heartcompass.store.workspace import Workspace

JOURNALS = "garden"  # the folder of the journals in .heartcompass/
TOLD = "tell"  # a journal's "by" when `tell` wrote it (no consolidation state to move)
FINISHED = "(finished after an interruption)"


def journal_path(ws: Workspace, slug: str) -> Path:
    return ws.state_dir / JOURNALS / f"{slug}.json"


def gardener_writes(ws: Workspace) -> set[str]:
    """Workspace paths whose file holds the text a journal wrote there."""
    folder = ws.state_dir / JOURNALS
    if not folder.is_dir():
        return set()
    ours = set()
    for journal in folder.glob("*.json"):
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
    sha = ws.git.commit_contents({p: v["new"] for p, v in files.items()}, data["subject"], body)
    path.unlink()
    return sha


def finish_told(ws: Workspace) -> list[str]:
    """Finish every `tell` killed between writing its files and its commit:
    its commit, as `tell` would have made it (never the user's hand edit)."""
    folder = ws.state_dir / JOURNALS
    shas = []
    for journal in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            told = json.loads(paths.read_local(journal)).get("by") == TOLD
        except (OSError, UnsafePathError, ValueError, AttributeError):
            continue
        if told and (sha := finish(ws, journal)):
            shas.append(sha)
    return shas
