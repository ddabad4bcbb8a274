"""`heartcompass sync`: commit pending hand edits, pull with rebase, push to
the user's own remote. A conflict is left in place for the user (nothing is
discarded) and finished with `sync --continue` or undone with `--abort`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from heartcompass import formats
from heartcompass.store.audit import commit_pending
from heartcompass.store.config_edit import commit_hand_edit
from heartcompass.errors import HeartCompassError
from heartcompass.store.workspace import Workspace


@dataclass
class SyncResult:
    remote: str
    branch: str
    committed: int
    conflicts: list[str]
    pushed: bool


def sync(ws: Workspace, action: str | None = None) -> SyncResult:
    """Commit pending valid hand edits, pull with rebase, push. A conflict is
    left in place for the user: nothing is discarded. action "continue"
    finishes a sync stopped on a conflict (once the files are fixed), "abort"
    goes back to before it."""
    remote = str(ws.config.get("sync.remote"))
    if remote not in ws.git.remotes():
        raise HeartCompassError(f"This workspace has no git remote {remote!r}.",
                                f"Add one: git -C {ws.root} remote add {remote} <url>  (or set sync.remote).")
    from heartcompass.store.lock import WorkspaceLock

    # Fails fast rather than waiting: a sync is never run mid-garden (its writes are not hand edits).
    with WorkspaceLock(ws.state_dir / "lock", "sync"):
        if action is None:
            ws.git.check_writable()
            return _sync(ws, remote)
        if not ws.git.rebase_in_progress():
            ws.git.clear_sync_mark()
            raise HeartCompassError(f"There is no stopped sync to {action}.", "Run 'heartcompass sync'.")
        branch = ws.git.rebased_branch()
        if action == "abort":
            ws.git.rebase_abort()
            return SyncResult(remote, branch, 0, [], False)
        conflicts = _continue_rebase(ws)
        if conflicts:
            return SyncResult(remote, branch, 0, conflicts, False)
        ws.git.clear_sync_mark()
        ws.git.push(remote, branch)
        return SyncResult(remote, branch, 0, [], True)


_MARKERS = re.compile(r"(?m)^(<{7}|>{7})( |$)")


def _continue_rebase(ws: Workspace) -> list[str]:
    """Stage the files the user fixed (no conflict marks left, and they
    parse) and let the rebase go on; returns files still in conflict."""
    fixed = ws.git.conflicted()
    for rel in fixed:
        path = ws.root / rel
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if _MARKERS.search(text):
                raise HeartCompassError(f"{rel} still has conflict marks (<<<<<<< ... >>>>>>>).",
                                        "Keep the lines you want, delete the marks, then run "
                                        "'heartcompass sync --continue' again.")
            if rel.startswith("people/") and rel.endswith(".md"):
                formats.validate(path)
            from heartcompass.store.config import check_committable
            check_committable(ws.root, rel)  # heartcompass.toml: parses, and no credential goes out
    if fixed:
        ws.git.stage(fixed)
    return ws.git.rebase_continue()


def _sync(ws: Workspace, remote: str) -> SyncResult:
    committed = len(commit_pending(ws)) + commit_hand_edit(ws)  # never pushes a credential put in by hand
    branch = ws.git.branch()
    conflicts = ws.git.pull_rebase(remote, branch)
    if conflicts:
        return SyncResult(remote, branch, committed, conflicts, False)
    ws.git.push(remote, branch)
    return SyncResult(remote, branch, committed, [], True)
