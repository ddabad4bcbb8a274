"""Writes of ours that were not committed: the gardener saves the texts it is
about to write in a journal (.heartcompass/garden/<slug>.json, see
memory/garden_journal.py) before writing them. A file that holds exactly such
a text is the gardener's unfinished work, never a hand edit of the user's: no
other command commits it as one (the next garden finishes it as its own)."""

from __future__ import annotations

import json
from pathlib import Path

from heartcompass import paths
from heartcompass.atomic import checksum, file_checksum
from heartcompass.errors import UnsafePathError
from heartcompass.store.workspace import Workspace

JOURNALS = "garden"  # the folder of the gardener's journals in .heartcompass/


def journal_path(ws: Workspace, slug: str) -> Path:
    return ws.state_dir / JOURNALS / f"{slug}.json"


def gardener_writes(ws: Workspace) -> set[str]:
    """Workspace paths whose file holds the text a gardener's journal wrote there."""
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
