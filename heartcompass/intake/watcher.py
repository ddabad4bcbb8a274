"""Watching people/ for hand edits from any editor: each burst of saves is
validated and committed as one `edit(<slug>): by hand` commit.

watchdog has no debounce of its own: its observer thread puts paths on a
queue, and the loop here waits for a quiet moment before acting. Editor swap
and backup files, our own temp files and the logs are ignored. Each commit is made holding the workspace lock
(waited for, never peeked at), so nothing is committed while the gardener or
another command is writing; while git is mid-rebase/merge the edits wait."""

from __future__ import annotations

import queue
import re
import threading
from pathlib import Path
from typing import Callable

from heartcompass.store import audit
from heartcompass.errors import FormatError, GitError
from heartcompass.store.lock import LockBusy, holder
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

_IGNORED = re.compile(r"(^\.|^#.*#$|~$|\.sw[a-p]$|\.tmp$|^4913$|\.bak$|\.orig$)")


def relevant(ws: Workspace, path: str) -> str | None:
    """The person's slug when this path is a hand-editable file of theirs."""
    try:
        rel = Path(path).resolve().relative_to(ws.people_dir.resolve())
    except ValueError:
        return None
    parts = rel.parts
    if len(parts) != 2 or parts[0].startswith(".") or _IGNORED.search(parts[1]) or not parts[1].endswith(".md"):
        return None  # logs/, .archive/, editor and temp files
    return parts[0]


class EditWatcher:
    def __init__(self, ws: Workspace, *, debounce: float = 1.0,
                 on_commit: Callable[[str, str], None] = lambda slug, sha: None,
                 on_invalid: Callable[[FormatError], None] = lambda exc: None,
                 on_wait: Callable[[dict], None] = lambda owner: None,
                 on_blocked: Callable[[GitError], None] = lambda exc: None):
        self.ws, self.debounce = ws, debounce
        self.on_commit, self.on_invalid, self.on_wait = on_commit, on_invalid, on_wait
        self.on_blocked = on_blocked  # git cannot take a commit now (mid-rebase...): said once
        self.deferred: set[str] = set()  # people whose edits wait for git to be ready
        self.blocked_by: str | None = None
        self.events: queue.Queue[str] = queue.Queue()
        self.stop = threading.Event()
        self.ready = threading.Event()  # set once the observer sees saves (a save before it is missed)
        self.reported: dict[Path, str] = {}  # invalid files already reported, by content

    def run(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type in ("opened", "closed_no_write"):
                    return
                for path in (getattr(event, "src_path", ""), getattr(event, "dest_path", "")):
                    slug = path and relevant(watcher.ws, path)
                    if slug:
                        watcher.events.put(slug)

        observer = Observer()
        observer.schedule(Handler(), str(self.ws.people_dir), recursive=True)
        observer.start()
        self.ready.set()
        try:
            while not self.stop.is_set():
                try:
                    first = self.events.get(timeout=0.2)
                except queue.Empty:
                    continue
                batch = {first}
                while True:  # a burst of saves ends with a quiet moment
                    try:
                        batch.add(self.events.get(timeout=self.debounce))
                    except queue.Empty:
                        break
                self.process(batch)
        finally:
            observer.stop()
            observer.join()

    def process(self, slugs: set[str]) -> None:
        slugs = slugs | self.deferred
        lock = self.ws.state_dir / "lock"
        while not self.stop.is_set():
            try:
                with audit.write_transaction(self.ws, "watch", wait=0.5):
                    self._commit(slugs)
                self.deferred, self.blocked_by = set(), None
                return
            except LockBusy:
                # The gardener (or another command) is writing: its changes are its own commits.
                self.on_wait(holder(lock) or {})
            except GitError as exc:
                self.deferred = slugs
                if self.blocked_by != exc.message:
                    self.blocked_by = exc.message
                    self.on_blocked(exc)
                return

    def _commit(self, slugs: set[str]) -> None:
        for slug in sorted(slugs):
            person = Person(slug, self.ws.people_dir / slug)
            if not person.dir.is_dir():
                continue
            sha, invalid = audit.commit_valid_edits(self.ws, person)
            if sha:
                self.on_commit(slug, sha)
            for exc in invalid:
                key = exc.path.read_text(encoding="utf-8") if exc.path.exists() else ""
                if self.reported.get(exc.path) != key:
                    self.reported[exc.path] = key
                    self.on_invalid(exc)
