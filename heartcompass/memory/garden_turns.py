"""The gardener's turns at the workspace lock.

A garden over many people, or one long backlog, takes minutes; a short
command (a chat's commit, `person add`, a /note) waits at most its own wait
(30 s) for the lock. So the gardener holds the workspace lock only while it
reads or writes a person's files, never while the model thinks, and between
people it lets in a command that is waiting (a waiter marks the lock file:
store/lock.py). One gardener at a time is kept by a second lock,
garden.lock (GARDEN_LOCK), held for the whole run. Whatever another
command changed while the workspace lock was away, the gardener sees: a file changed since it was read is never
overwritten (the checksum guard in gardener.py), the consolidation state is
read again, and the repository is checked again before the next commit
(only then: an idle run over thousands of people never starts git)."""

from __future__ import annotations

import time

from heartcompass.errors import GitError
from heartcompass.store.lock import SHORT_WAIT, FileLock, holder
from heartcompass.store.workspace import Workspace

GARDEN_LOCK = "garden.lock"  # one gardener at a time (the workspace lock is "lock")
LET_IN = 0.5  # seconds a waiting command is given to take the lock we just gave up
STEP = 0.01


class NotWritable(GitError):
    """No commit may be made now (a rebase, a merge, a detached HEAD...): the run stops."""


class GardenTurns:
    """`with GardenTurns(ws) as turns:` then `turns.take()` before reading or
    writing a person's files and `turns.release()` before asking the model."""

    def __init__(self, ws: Workspace, check: bool = True):
        self.ws, self.check = ws, check
        self.garden_lock = FileLock(ws.state_dir / GARDEN_LOCK, "gardener")  # fails fast: one gardener
        self.workspace_lock = FileLock(ws.state_dir / "lock", "gardener")
        self.turns = 0  # times the workspace lock was taken: a new turn means others may have written
        self._released = 0.0
        self._owed = False  # someone was waiting when we gave it up: let them in before taking it again
        self._checked = 0  # the turn in which the repository was last found writable

    def __enter__(self) -> "GardenTurns":
        self.garden_lock.acquire()
        try:
            self.take()  # the first time fails fast too: a sync or an older gardener holds it
        except BaseException:
            self.garden_lock.release()
            raise
        self.workspace_lock.wait = SHORT_WAIT  # later turns wait out whoever got in meanwhile
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.workspace_lock.release()
        finally:
            self.garden_lock.release()

    def take(self) -> None:
        """Hold the workspace lock. Already held and someone is waiting: let
        them in first, then take it back."""
        if self.workspace_lock.held:
            if not self.workspace_lock.waited():
                return
            self.release()
        if self._owed:
            deadline = self._released + LET_IN
            while time.monotonic() < deadline and holder(self.workspace_lock.path) is None:
                time.sleep(STEP)
            self._owed = False
        self.workspace_lock.acquire()
        self.turns += 1

    def writable(self) -> None:
        """Before a commit: no rebase, merge or detached HEAD (a sync that got in
        meanwhile may have left one). Checked once a turn, and only when needed."""
        if self.check and self._checked != self.turns:
            try:
                self.ws.git.check_writable()
            except GitError as exc:
                raise NotWritable(exc.message, exc.hint) from None
            self._checked = self.turns

    def release(self) -> None:
        if self.workspace_lock.held:
            self._owed = self.workspace_lock.waited()
            self.workspace_lock.release()
            self._released = time.monotonic()
