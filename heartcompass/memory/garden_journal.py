"""The gardener's journal: the texts a gardening is about to write, saved in
.heartcompass/garden/<slug>.json before the first write, so a run killed at
any moment is finished by the next one (the files written, the
consolidation state moved with them, exactly the journal's texts committed),
and a file edited by hand since is left alone. `tell` keeps the same kind
of journal for its writes; store/unfinished.py finishes both."""

from __future__ import annotations

from pathlib import Path

from heartcompass import paths
from heartcompass.atomic import write_atomic
from heartcompass.errors import UnsafePathError
from heartcompass.memory.consolidation import State as ConsolidationState
from heartcompass.store.people import Person
from heartcompass.store.unfinished import finish, garden_journal_path, save
from heartcompass.store.workspace import Workspace


class GardenJournal:
    """The texts a gardening is about to write, saved before the first write."""

    def __init__(self, ws: Workspace, person: Person):
        self.ws, self.person = ws, person
        self.path = garden_journal_path(ws, person.slug)

    def save(self, files: dict[Path, tuple[str | None, str]], days: dict[str, list], subject: str,
             body: str) -> None:
        save(self.ws, self.path, files, subject, body, days)

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
        """Finish an interrupted gardening (store/unfinished.py): write what is
        missing, move the consolidation state, commit exactly the journal's
        texts. `written`: checksums of what this process wrote. After a kill,
        a file changed by hand since is left alone (and so is the rest)."""
        return finish(self.ws, self.path, written, self._move_state)

    def _move_state(self, data: dict) -> None:
        state = ConsolidationState(self.ws, self.person)
        state.days.update(data.get("days", {}))
        state.dirty = True
        state.save()

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def with_note(body: str, note: str) -> str:
    """A commit body with a line added after a blank line."""
    return f"{body}\n\n{note}".strip() if note else body
