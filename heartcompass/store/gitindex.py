"""The real index, held as git itself holds it while a commit of ours moves
HEAD (commit_contents builds its commit apart from the index).

git takes .git/index.lock (created exclusively), writes the new index into
it and renames it over the index. We take it the same way *before* HEAD
moves: an index.lock that stays (a git of the user's busy, or one killed and
left stale) refuses the commit before anything is committed, never after
(HEAD moved but the index left behind would make a plain `git commit` take
the change back). A part of gitrepo.py; imports no git."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Callable

from heartcompass.errors import GitError

SETTLE = 2.0  # seconds a git command of the user's may take to let go of index.lock


class HeldIndex:
    """`with HeldIndex(git_dir, busy) as held:` index.lock is ours inside;
    `held.copy` is the index to update (GIT_INDEX_FILE); on a clean exit it
    replaces the index, else the index stays as it was. `busy()` is the
    error raised when index.lock is someone else's."""

    def __init__(self, git_dir: Path, busy: Callable[[], GitError], settle: float = SETTLE):
        self.index = Path(git_dir) / "index"
        self.lock = Path(git_dir) / "index.lock"
        self.copy = Path(git_dir) / f"heartcompass-index-follows.{os.getpid()}"
        self.busy, self.settle = busy, settle

    def __enter__(self) -> HeldIndex:
        deadline = time.monotonic() + self.settle
        while True:
            try:
                os.close(os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
                break
            except FileExistsError:
                if time.monotonic() >= deadline:
                    raise self.busy() from None
                time.sleep(0.05)
        try:
            self.copy.unlink(missing_ok=True)
            if self.index.exists():
                shutil.copyfile(self.index, self.copy)
        except BaseException:
            self.lock.unlink(missing_ok=True)
            raise
        return self

    def __exit__(self, kind, value, tb) -> None:
        try:
            if kind is None and self.copy.exists():
                os.replace(self.copy, self.lock)   # as git does: the new index in the lock file,
                os.replace(self.lock, self.index)  # then renamed over the index
        finally:
            self.copy.unlink(missing_ok=True)
            self.lock.unlink(missing_ok=True)
