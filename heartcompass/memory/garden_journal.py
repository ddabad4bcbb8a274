"""The gardener's journal: the texts a gardening is about to write, saved in
.heartcompass/garden/<slug>.json before the first write, so a run killed at
any moment is finished by the next one (the files written, the
consolidation state moved with them, exactly the journal's texts committed),
and a file edited by hand since is left alone."""

from __future__ import annotations

import json
from pathlib import Path

from heartcompass import paths
from heartcompass.atomic import checksum, file_checksum, write_atomic
from heartcompass.errors import UnsafePathError
from heartcompass.memory.consolidation import State as ConsolidationState
from heartcompass.store.people import Person
from heartcompass.store.unfinished import journal_path
from heartcompass.store.workspace import Workspace


class Journal:
    """The texts a gardening is about to write, saved before the first write."""

    def __init__(self, ws: Workspace, person: Person):
        self.ws, self.person = ws, person
        self.path = journal_path(ws, person.slug)

    def save(self, files: dict[Path, tuple[str | None, str]], days: dict[str, list], subject: str,
             body: str) -> None:
        data = {"subject": subject, "body": body, "days": days,
                "files": {self.ws.rel(p): {"old": old, "new": new} for p, (old, new) in files.items()}}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False))

    def raw(self) -> str | None:
        try:
            return paths.read_local(self.path)
        except (FileNotFoundError, UnsafePathError):
            return None

    def put_back(self, raw: str | None) -> None:
        """The journal as it was before a chunk that was put back."""
        if raw is None:
            self.clear()
        else:
            write_atomic(self.path, raw)

    def recover(self, written: dict[Path, str] | None = None) -> str | None:
        """Finish an interrupted gardening: write what is missing, move the
        consolidation state, commit exactly the journal's texts. `written`:
        checksums of what this process wrote (it knows a later hand edit
        from a write that never happened). After a kill, a file changed by
        hand since is left alone (and so is the rest)."""
        try:
            data = json.loads(paths.read_local(self.path))
        except FileNotFoundError:
            return None
        except UnsafePathError:  # a FIFO or device where the journal was: no journal to finish
            return None
        except ValueError:
            self.path.unlink()
            return None
        files = {self.ws.root / rel: v for rel, v in data["files"].items()}
        now = {p: file_checksum(p) for p in files}
        ours = {p for p, v in files.items()
                if now[p] == checksum(v["new"]) or (written or {}).get(p) == checksum(v["new"])}
        if any(now[p] != v["old"] for p, v in files.items() if p not in ours):
            self.path.unlink()
            return None
        for path, v in files.items():
            if path not in ours:
                write_atomic(path, v["new"], expected_checksum=v["old"])
        state = ConsolidationState(self.ws, self.person)
        state.days.update(data.get("days", {}))
        state.dirty = True
        state.save()
        sha = self.ws.git.commit_contents({p: v["new"] for p, v in files.items()}, data["subject"],
                                          with_note(data["body"], "(finished after an interruption)"))
        self.path.unlink()
        return sha

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def with_note(body: str, note: str) -> str:
    """A commit body with a line added after a blank line."""
    return f"{body}\n\n{note}".strip() if note else body
