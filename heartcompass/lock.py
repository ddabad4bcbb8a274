"""The workspace lock: one gardener at a time.

A lock file in .heartcompass/ holds the owner's pid and host. A second
gardener sees a live owner and stops at once; a lock left by a killed
process (its pid is gone) is stale and taken over."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from heartcompass.errors import HeartCompassError


class LockBusy(HeartCompassError):
    pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder(path: Path) -> dict | None:
    """The live owner of the lock, or None (free or stale)."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    if info.get("host") == socket.gethostname() and not _alive(int(info.get("pid", -1))):
        return None
    return info


class WorkspaceLock:
    def __init__(self, path: Path, purpose: str = "gardener"):
        self.path = Path(path)
        self.purpose = purpose
        self.held = False

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%d %H:%M:%S"),
              "purpose": self.purpose}
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                owner = holder(self.path)
                if owner is not None:
                    raise LockBusy(
                        f"Another HeartCompass {owner.get('purpose', 'gardener')} is running "
                        f"(pid {owner.get('pid')} on {owner.get('host')}, since {owner.get('since')}).",
                        f"Wait for it to finish. If no such process exists, delete {self.path}.")
                self.path.unlink(missing_ok=True)  # stale: its owner was killed
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(me, fh)
            self.held = True
            return
        raise LockBusy(f"Could not take the workspace lock {self.path}.")

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False

    def __enter__(self) -> "WorkspaceLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
