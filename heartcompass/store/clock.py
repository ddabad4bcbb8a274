"""The user's clock. Every date we write or compare (a log's day, an
event's date, the gardener's "today", an import's "not in the future") is
read here, in user.timezone, or this machine's zone when that is empty: a
message typed at 23:30 and the gardener run at 00:10 agree on what day it
was, wherever the machine's clock is set."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heartcompass.store.workspace import Workspace


def now(ws: Workspace) -> dt.datetime:
    """The time now, aware, in the user's zone."""
    zone = str(ws.config.get("user.timezone") or "")
    if zone:
        from zoneinfo import ZoneInfo

        return dt.datetime.now(ZoneInfo(zone))
    return dt.datetime.now().astimezone()


def today(ws: Workspace) -> dt.date:
    """The user's date today."""
    return now(ws).date()
