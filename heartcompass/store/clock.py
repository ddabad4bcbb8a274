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


# Dates are computed a year either side of today (decay, "not in the future",
# the next birthday): a clock outside these years would overflow, not date.
SANE_YEARS = range(1971, 9000)


def now(ws: Workspace) -> dt.datetime:
    """The time now, aware, in the user's zone."""
    zone = str(ws.config.get("user.timezone") or "")
    if zone:
        from zoneinfo import ZoneInfo

        moment = dt.datetime.now(ZoneInfo(zone))
    else:
        moment = dt.datetime.now().astimezone()
    if moment.year not in SANE_YEARS:
        from heartcompass.errors import HeartCompassError

        raise HeartCompassError(f"This machine's clock says {moment:%Y-%m-%d %H:%M}, and every message and event "
                                "is dated by it.", "Set the clock right (e.g. 'timedatectl' or 'date -s'), "
                                "then run the command again.")
    return moment


def today(ws: Workspace) -> dt.date:
    """The user's date today."""
    return now(ws).date()
