"""`heartcompass sync`: commit pending hand edits, pull with rebase, push to
the user's own remote. A conflict is left in place for the user (nothing is
discarded) and finished with `sync --continue` or undone with `--abort`.

While a sync is stopped, chats go on and their entries are appended to the
logs (they cannot be committed). git's --abort would throw those bytes away
and --continue refuses a dirty log, so first the appended entries (a suffix:
logs are append-only) are kept in .heartcompass/typed-during-sync.json,
durably, then the logs are put back as git expects them; after git, the
entries are appended again and committed. A crash in between loses nothing:
the next sync appends what is kept (once)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from heartcompass import formats
from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError, GitError, HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.store.audit import commit_logs, commit_pending
from heartcompass.store.config_edit import commit_hand_edit
from heartcompass.store.workspace import Workspace
from heartcompass.wording import counted


@dataclass
class SyncResult:
    remote: str
    branch: str
    committed: int
    conflicts: list[str]
    pushed: bool
    kept: str = ""  # what became of entries typed while the sync was stopped, in one line


def sync(ws: Workspace, action: str | None = None) -> SyncResult:
    """Commit pending valid hand edits, pull with rebase, push. A conflict is
    left in place for the user: nothing is discarded. action "continue"
    finishes a sync stopped on a conflict (once the files are fixed), "abort"
    goes back to before it."""
    # --abort reads no setting: heartcompass.toml may be the very file in conflict
    remote = "" if action == "abort" else _remote(ws)
    from heartcompass.store.lock import FileLock

    # Fails fast rather than waiting: a sync is never run mid-garden (its writes are not hand edits).
    with FileLock(ws.state_dir / "lock", "sync"):
        recovered = put_back(ws)  # entries a crashed sync kept aside
        if action is None:
            ws.git.check_writable()
            result = _sync(ws, remote)
            result.kept = recovered
            return result
        if not ws.git.rebase_in_progress():
            ws.git.clear_sync_mark()
            raise HeartCompassError(f"There is no stopped sync to {action}.", "Run 'heartcompass sync'.")
        branch = ws.git.rebased_branch()
        result = SyncResult(remote, branch, 0, [], False)
        try:
            with _logs_set_aside(ws, action):
                if action == "abort":
                    ws.git.rebase_abort()
                else:
                    result.conflicts = _continue_rebase(ws)
        finally:
            result.kept = put_back(ws) or recovered
        if action == "continue" and not result.conflicts:
            ws.git.clear_sync_mark()
            ws.git.push(remote, branch)
            result.pushed = True
        return result


def _remote(ws: Workspace) -> str:
    remote = str(ws.config.get("sync.remote"))
    if remote not in ws.git.remotes():
        raise HeartCompassError(f"This workspace has no git remote {remote!r}.",
                                f"Add one: git -C {shlex.quote(str(ws.root))} remote add {shlex.quote(remote)} <url>  "
                                "(or set sync.remote).")
    return remote


def _continue_rebase(ws: Workspace) -> list[str]:
    """Stage the files the user fixed (no conflict marks left, and they
    parse) and let the rebase go on; returns files still in conflict."""
    fixed = ws.git.conflicted()
    for rel in fixed:
        path = ws.root / rel
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if formats.conflict_line(text, leftovers=True):
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


# -- what was typed while the sync was stopped ------------------------------------------
KEPT = "typed-during-sync.json"
_LOG = re.compile(r"people/[^/.][^/]*/logs/\d{4}-\d{2}-\d{2}\.md")


@contextmanager
def _logs_set_aside(ws: Workspace, action: str) -> Iterator[None]:
    """Around git's --abort/--continue: entries appended to the logs since the
    sync stopped are kept in .heartcompass/ (written and flushed first), and
    the logs are cut back to what git expects (a new day's log removed). The
    logs stay locked against appends until git is done."""
    conflicted = set(ws.git.conflicted())
    changed, new = ws.git.changed_in_worktree()
    refused = [rel for rel in changed if rel not in conflicted and not _LOG.fullmatch(rel)]
    kept: list[dict] = []
    cuts: list[tuple[int, int | None, Path]] = []  # (fd, length to keep or None to remove, path)
    with ExitStack() as held:
        for rel in [r for r in changed if r not in conflicted and _LOG.fullmatch(r)] + \
                   [r for r in new if _LOG.fullmatch(r)]:
            path = ws.root / rel
            expected = ws.git.file_at("", rel) if rel in changed else ""
            if expected is None or not path.is_file():
                refused.append(rel)
                continue
            fd = held.enter_context(dailylog.held(path))
            data, prefix = _read_all(fd), expected.encode("utf-8")
            try:
                if not data.startswith(prefix):
                    raise ValueError
                entries = dailylog.parse(data[len(prefix):].decode("utf-8"), path)
            except (ValueError, FormatError):  # not appended to: changed by hand
                refused.append(rel)
                continue
            if entries:
                base = len(dailylog.parse(expected, path)) if expected else 0
                kept.append({"log": rel, "base": base, "text": "".join(e.render() for e in entries)})
                cuts.append((fd, len(prefix) if rel in changed else None, path))
        if refused:
            rel = sorted(refused)[0]
            lost = ("--abort would throw that change away" if action == "abort"
                    else "git would put it into a commit replayed from elsewhere")
            copy = _copy_aside(ws, rel)  # so the printed fix (a checkout) cannot lose anything typed
            raise HeartCompassError(
                f"{rel} was changed while the sync was stopped; {lost}. Nothing was done"
                + (f"; a copy of it as it is now is in {ws.rel(copy)}." if copy else "."),
                f"Undo the change (git -C {shlex.quote(str(ws.root))} checkout -- {shlex.quote(rel)}), run "
                f"'heartcompass sync --{action}', then make it again from the copy.")
        if kept:
            path = ws.state_dir / KEPT
            before = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
            write_atomic(path, json.dumps(before + kept, ensure_ascii=False, indent=1))
        for fd, length, path in cuts:
            if length is None:
                path.unlink()
            else:
                os.ftruncate(fd, length)
                os.fsync(fd)
        yield


def _copy_aside(ws: Workspace, rel: str) -> Path | None:
    from heartcompass.store.workspace import keep_rejected

    path = ws.root / rel
    try:
        data = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return keep_rejected(ws, rel.split("/")[1], rel.replace("/", "-"), data)


def put_back(ws: Workspace) -> str:
    """Append the entries kept aside back to their logs (once: entries already
    there are not appended again), and commit them unless a sync is still
    stopped. Returns what happened, in one line ("" when nothing was kept)."""
    path = ws.state_dir / KEPT
    if not path.exists():
        return ""
    items = _read_kept(path)
    # A log git still holds in conflict cannot take them yet: they wait for the sync to go on.
    conflicted = set(ws.git.conflicted()) if ws.git.rebase_in_progress() else set()
    waiting = [item for item in items if item["log"] in conflicted]
    typed = entries_total = 0
    logs: list[Path] = []
    for item in (item for item in items if item["log"] not in conflicted):
        log = ws.root / item["log"]
        entries = dailylog.parse(item["text"], path)
        now = dailylog.load(log) if log.exists() else []
        if not _holds(now, entries):
            dailylog.append_many(log, dailylog.renumbered(entries, item["base"], len(now) - item["base"]),
                                 dt.date.fromisoformat(log.stem))
        logs.append(log)
        typed += sum(1 for e in entries if e.speaker in dailylog.TYPED_SPEAKERS)
        entries_total += len(entries)
    if waiting:
        write_atomic(path, json.dumps(waiting, ensure_ascii=False, indent=1))
        if not logs:
            return (f"{counted(len(waiting), 'log')} with messages typed during the sync still in conflict: "
                    "the messages are kept aside and go back once the sync goes on")
    else:
        path.unlink()
    count = typed or entries_total
    said = f"kept {counted(count, 'message')} typed during the sync"
    if ws.git.rebase_in_progress():
        return f"{said}; back in the logs, committed once the sync is done"
    try:
        commit_logs(ws, logs)
    except GitError as exc:
        return f"{said}; back in the logs, not committed ({exc.message}): the next command will commit them"
    return f"{said}; committed"


def _read_kept(path: Path) -> list[dict]:
    """The kept entries, checked: each names a day's log inside a person's
    folder (a hand edit of this file must not send a write anywhere else)."""
    fix = (f"It holds messages a stopped sync set aside. Repair it by hand, or move it away "
           f"(mv {shlex.quote(str(path))} ~/) to drop them; then run the command again.")
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise FormatError(path, f"cannot be read ({exc})", None, fix) from None
    if not isinstance(items, list):
        raise FormatError(path, "is not a list of kept entries", None, fix)
    for n, item in enumerate(items, 1):
        if not (isinstance(item, dict) and isinstance(item.get("log"), str) and _LOG.fullmatch(item["log"])
                and ".." not in item["log"].split("/") and isinstance(item.get("base"), int)
                and item["base"] >= 0 and isinstance(item.get("text"), str)):
            raise FormatError(path, f"entry {n} is not a person's day log (people/<slug>/logs/YYYY-MM-DD.md) "
                                    "with a base and the text kept", None, fix)
        try:
            dt.date.fromisoformat(item["log"][-13:-3])
        except ValueError:
            raise FormatError(path, f"entry {n}: {item['log']} is not a real day", None, fix) from None
    return items


def _holds(entries: list[dailylog.Entry], kept: list[dailylog.Entry]) -> bool:
    """Are the kept entries in the log already, in a row (put back before a crash)?"""
    key = [(e.time, e.speaker, e.text) for e in kept]
    now = [(e.time, e.speaker, e.text) for e in entries]
    return any(now[i:i + len(key)] == key for i in range(len(now) - len(key) + 1))


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
