"""A lock: an exclusive kernel flock on a file in .heartcompass/. There are
three, each named by its file: `lock`, the workspace lock (one writer at a
time: every write transaction holds it), `garden.lock` (one gardener at a
time: memory/garden_turns.py) and `serve.lock` (one serve per workspace).

The kernel releases a lock when its holder exits or is killed, so there is
no stale-lock guesswork; the file's content (pid, host, since, purpose) only
says who holds it. The file is removed on release, so a waiter that locked
a file already unlinked checks that the path still names the inode it
locked, and retries if not. A waiter touches the file (its mtime) at each
try, so a holder that releases and re-takes the lock (the gardener, between
people) can see that someone is waiting and let them in first."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

from heartcompass import paths
from heartcompass.errors import HeartCompassError

POLL = 0.05  # seconds between tries while waiting
SHORT_WAIT = 30.0  # even a fail-fast gardener waits this long for a short command's commit


class LockBusy(HeartCompassError):
    pass


def _mtime(fd: int) -> int:
    try:
        return os.fstat(fd).st_mtime_ns
    except OSError:
        return 0


def _read_info(fd: int) -> dict:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 4096).decode("utf-8") or "{}")
        return info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        return {}


def holder(path: Path) -> dict | None:
    """Who holds the lock ({"pid", "host", "since", "purpose"}), or None when
    it is free. Peeks with a shared, non-blocking lock taken for an instant."""
    try:
        fd = paths.open_regular(path, os.O_RDONLY)  # never blocks on a FIFO put in its place
    except (OSError, HeartCompassError):
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_info(fd) or {"pid": "?", "host": "?", "since": "?", "purpose": "command"}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def busy_error(path: Path, owner: dict | None) -> LockBusy:
    owner = owner or {}
    return LockBusy(
        f"Another HeartCompass {owner.get('purpose', 'command')} is running "
        f"(pid {owner.get('pid', '?')} on {owner.get('host', '?')}, since {owner.get('since', '?')}).",
        "Wait for it to finish and try again. The lock is released by the system when that process ends, "
        f"so there is no lock file ({path}) to delete.")


class FileLock:
    """`with FileLock(path, "chat", wait=30):` waits up to 30 s for the
    lock; wait=0 (the gardener) fails at once when another gardener holds
    it, and waits up to SHORT_WAIT for any other command (a chat's commit)."""

    def __init__(self, path: Path, purpose: str = "gardener", wait: float = 0.0):
        self.path = Path(path)
        self.purpose = purpose
        self.wait = wait
        self.held = False
        self._fd: int | None = None
        self._stamp = 0  # the file's mtime once taken: a waiter's try changes it

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(paths.open_regular(self.path, os.O_RDWR | os.O_CREAT))  # a FIFO here is named
        except OSError as exc:
            raise HeartCompassError(f"{self.path}: cannot be written ({exc.strerror}).",
                                    "HeartCompass needs to write in the workspace: check its permissions "
                                    "(and that the disk is not full or read-only).") from None
        # Even a fail-fast caller retries for a moment: holder() peeks take the lock for an instant.
        started = time.monotonic()
        deadline = started + max(self.wait, 0.3)
        while True:
            fd = paths.open_regular(self.path, os.O_RDWR | os.O_CREAT)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = _read_info(fd)
                try:
                    os.utime(fd)  # "someone is waiting": see waited()
                except OSError:
                    pass
                os.close(fd)
                short = owner.get("purpose") not in ("gardener", "sync")  # others hold it for a commit
                if time.monotonic() >= (max(deadline, started + SHORT_WAIT) if short else deadline):
                    raise busy_error(self.path, owner) from None
                time.sleep(POLL)
                continue
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the previous holder removed the file we locked: take the new one
                os.close(fd)
                continue
            break
        me = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%d %H:%M:%S"),
              "purpose": self.purpose}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(me).encode("utf-8"), 0)
        except OSError:
            pass  # a full disk: the flock is the lock; who holds it is only for messages
        self._fd = fd
        self._stamp = _mtime(fd)
        self.held = True

    def waited(self) -> bool:
        """Has another command tried to take the lock since we took it?"""
        return self.held and self._fd is not None and _mtime(self._fd) != self._stamp

    def release(self) -> None:
        if self.held and self._fd is not None:
            try:
                self.path.unlink(missing_ok=True)  # still ours: waiters re-check the inode
            finally:
                os.close(self._fd)  # closing drops the flock
            self._fd = None
            self.held = False

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
