"""IM-like chat: the user may send several messages in a row; the persona
answers once the user has been quiet for a while, to the whole burst.

This is only the timing rule (no terminal here): each new message restarts
the wait; the burst is due when `quiet` seconds pass with nothing new."""

from __future__ import annotations

import time
from typing import Callable


class Burst:
    def __init__(self, quiet: float, clock: Callable[[], float] = time.monotonic):
        self.quiet, self.clock = quiet, clock
        self.pending: list[str] = []
        self.deadline = 0.0

    def add(self, text: str) -> None:
        self.pending.append(text)
        self.deadline = self.clock() + self.quiet

    def remaining(self) -> float | None:
        """Seconds until the burst is due; None when nothing is waiting."""
        return max(0.0, self.deadline - self.clock()) if self.pending else None

    def due(self) -> bool:
        return bool(self.pending) and self.clock() >= self.deadline

    def take(self) -> list[str]:
        taken, self.pending = self.pending, []
        return taken
