"""Waiting in tests: on an event or on output, up to a generous deadline.

A test never sleeps for a guessed time: on a busy two-core machine a child
process or a worker thread may take many seconds to get where a quiet one is
in milliseconds. A condition that already holds returns at once, so the
deadline costs nothing when things go well; it only says how long to keep
hoping before the test fails (pytest-timeout, in pyproject.toml, guards
against a hang beyond it)."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

DEADLINE = 120.0  # seconds: far beyond what anything takes, even on a loaded machine
POLL = 0.02       # between two looks: short, since the check is cheap and returning early is free


class Timeout(AssertionError):
    """The condition did not hold before the deadline."""


def wait_until(predicate: Callable[[], T], deadline: float = DEADLINE, what: str = "") -> T:
    """predicate's first true value, looked for until the deadline; raises
    Timeout (an AssertionError, so the test fails saying what it waited
    for) when it never came."""
    end = time.monotonic() + deadline
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= end:
            raise Timeout(f"waited {deadline:.0f} s for {what or getattr(predicate, '__name__', 'a condition')}")
        time.sleep(POLL)


def holds_until(predicate: Callable[[], object], deadline: float = DEADLINE) -> bool:
    """Whether the condition came true before the deadline (for a test that
    then says more than "it did not"): wait_until without the failure."""
    try:
        wait_until(predicate, deadline)
        return True
    except Timeout:
        return False
