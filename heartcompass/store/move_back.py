"""A person's folder put back where it was, after git refused the commit of a
move (rename, archive, unarchive: audit.commit_or_roll_back).

A chat open on that person in another terminal goes on appending to the log
by the old path while the folder is away, and so makes that log anew there.
Those entries join the log that goes back, after the ones it holds: nothing
typed meanwhile is lost, or left in a stray folder that the next command
would take for a new person."""

from __future__ import annotations

import datetime as dt
import errno
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog

TRIES = 5  # a chat may append again between the gathering and the move


def move_back(moved_to: Path, home: Path) -> None:
    """moved_to goes back to home, with any log entries appended at home meanwhile."""
    for _ in range(TRIES):
        if home.exists():
            _gather(home, moved_to)
        try:
            moved_to.rename(home)  # onto an empty folder: replaced; onto anything else: refused
            return
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
    # Something other than a log was made there: both stay, for the user (the error names the move).


def _gather(home: Path, moved_to: Path) -> None:
    logs = home / "logs"
    for stray in sorted(logs.glob("*.md")) if logs.is_dir() else []:
        try:
            day = dt.date.fromisoformat(stray.stem)
        except ValueError:
            continue
        into = moved_to / "logs" / stray.name
        with dailylog.held(stray):  # the lock appends take: none lands between the read and the removal
            try:
                entries = dailylog.load(stray)
                before = len(dailylog.load(into)) if into.exists() else 0
            except FormatError:
                continue  # not a log we can read: left where it is
            if entries:  # their markers point past the entries already there
                dailylog.append_many(into, dailylog.renumbered(entries, 0, before), day)
            stray.unlink()
    for folder in (logs, home):
        try:
            folder.rmdir()
        except OSError:
            pass
