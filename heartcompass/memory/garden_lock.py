"""The gardener's hold on the workspace lock.

A garden over many people, or one long backlog, takes minutes; a short
command (a chat's commit, `person add`, a /note) waits at most its own wait
(30 s) for the lock. So the gardener holds the workspace lock only while it
reads or writes a person's files, never while the model thinks, and between
people it lets in a command that is waiting (a waiter marks the lock file:
store/lock.py). One gardener at a time is kept by a second lock, garden.lock,
held for the whole run. Whatever another command changed while the lock was
away, the gardener sees: a file changed since it was read is never
overwritten (the checksum guard in gardener.py), the consolidation state is
read again, and the repository is checked again before the next commit
(only then: an idle run over thousands of people never starts git)."""

from __future__ import annotations

import time

from heartcompass.errors import GitError
from heartcompass.store.lock import SHORT_WAIT, WorkspaceLock, holder
from heartcompass.store.workspace import Workspace

RUN_LOCK = "garden.lock"
LET_IN = 0.5  # seconds a waiting command is given to take the lock we just gave up
STEP = 0.01


class NotWritable(GitError):
    """No commit may be made now (a rebase, a merge, a detached HEAD...): the run stops."""


class GardenLock:
    """`with GardenLock(ws) as lock:` then `lock.take()` before reading or
    writing a person's files and `lock.release()` before asking the model."""

    def __init__(self, ws: Workspace, check: bool = True):
        self.ws, self.check = ws, check
        self.run_lock = WorkspaceLock(ws.state_dir / RUN_LOCK, "gardener")  # fails fast: one gardener
        self.lock = WorkspaceLock(ws.state_dir / "lock", "gardener")
        self.turns = 0  # times the workspace lock was taken: a new turn means others may have written
        self._released = 0.0
        self._owed = False  # someone was waiting when we gave it up: let them in before taking it again
        self._checked = 0  # the turn in which the repository was last found writable

    def __enter__(self) -> "GardenLock":
        self.run_lock.acquire()
        try:
            self.take()  # the first time fails fast too: a sync or an older gardener holds it
        except BaseException:
            self.run_lock.release()
            raise
        self.lock.wait = SHORT_WAIT  # later turns wait out whoever got in meanwhile
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.lock.release()
        finally:
            self.run_lock.release()

    def take(self) -> None:
        """Hold the workspace lock. Already held and someone is waiting: let
        them in first, then take it back."""
        if self.lock.held:
            if not self.lock.waited():
                return
            self.release()
        if self._owed:
            deadline = self._released + LET_IN
            while time.monotonic() < deadline and holder(self.lock.path) is None:
                time.sleep(STEP)
            self._owed = False
        self.lock.acquire()
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
        if self.lock.held:
            self._owed = self.lock.waited()
            self.lock.release()
            self._released = time.monotonic()
