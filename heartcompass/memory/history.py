"""The chat's short-term history and its sense of time: the recent turns of
the logs sent after the system prompt, and when the two last talked.

A persona that sees yesterday's turns as if they were a minute ago answers
"see you tonight!" the morning after. So each turn that opens an earlier
sitting (one after a pause of SITTING_GAP or more) carries its date and
time, and the prompt says when they last talked. The turns of the sitting
going on now carry none: the prompt's "Now" already says when that is."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from heartcompass.formats import dailylog
from heartcompass.store.people import Person

SEPARATOR = "|||"
TIME_TRAVEL_TAG = "as-of"
FEW_TURNS = 6
SITTING_GAP = dt.timedelta(minutes=30)  # a pause this long starts a new sitting
LOOK_BACK_LOGS = 30  # log files searched for the last conversation before this one
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass
class Turn:
    role: str   # "user" or "assistant"
    text: str
    when: dt.datetime


def tag_of(entry: dailylog.Entry) -> str | None:
    for tag in entry.tags:
        if tag.startswith(TIME_TRAVEL_TAG):
            return tag
    return None


def _when(day: str, entry: dailylog.Entry) -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day}T{entry.time}")


STAMPED = re.compile(r"^\[\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}\] ")


def unstamped(text: str) -> str:
    """A turn's text without the stamp that opens an earlier sitting."""
    return STAMPED.sub("", text)


def stamp(when: dt.datetime) -> str:
    """How a turn of an earlier sitting starts: "[Mon 2026-11-30 21:40] "."""
    return f"[{WEEKDAYS[when.weekday()][:3]} {when:%Y-%m-%d %H:%M}] "


def recent_history(person: Person, now: dt.datetime | dt.date, budget: int, tag: str | None = None,
                   fresh_after: int | None = None, pending: str | None = None) -> list[tuple[str, str]]:
    """Recent turns of today's log (and the previous chat day when today has
    few), newest kept first, within budget. Only turns of the same kind of
    chat count: a time-travel chat never leaks into a normal one. After
    /new, only the entries of today's log past index fresh_after. A user
    turn that opens an earlier sitting starts with its stamp(). pending: a
    message not logged yet (context --for), as the user's newest. Linear in
    the entries, and never over budget: a turn too long for it (a day of
    messages in a row, one pasted book) keeps only its newest part."""
    if not isinstance(now, dt.datetime):  # a day: every turn of it is "now"
        now = dt.datetime.combine(now, dt.time(23, 59, 59))
    now = now.replace(tzinfo=None)  # log times are the user's wall clock, as `now` is
    today_s = now.date().isoformat()
    dates = [d for d in dailylog.log_dates(person.dir) if d <= today_s]

    def turns_of(day: str, skip: int = 0) -> list[tuple[str, dailylog.Entry]]:
        entries = dailylog.load(person.logs_dir / f"{day}.md")
        gone = dailylog.dropped(entries)  # replies replaced by /retry
        return [(day, e) for i, e in enumerate(entries) if i >= skip and i not in gone
                and e.speaker in ("me", "persona") and "cut off" not in e.tags and tag_of(e) == tag]

    picked: list[tuple[str, dailylog.Entry]] = []
    earlier = dates
    if dates and dates[-1] == today_s:
        picked, earlier = turns_of(today_s, fresh_after or 0), dates[:-1]
    if fresh_after is None and len(picked) < FEW_TURNS and earlier:
        picked = turns_of(earlier[-1]) + picked
    said = [("user" if e.speaker == "me" else "assistant", e.text, _when(day, e)) for day, e in picked]
    if pending and pending.strip():
        said.append(("user", pending.strip(), now))
    turns: list[Turn] = []
    parts: list[list[str]] = []  # each turn's messages, joined once at the end (+= would be quadratic)
    for role, text, when in said:
        if turns and turns[-1].role == role:  # one chat turn may be several messages
            parts[-1].append(text)
        else:
            turns.append(Turn(role, "", when))
            parts.append([text])
    for turn, texts in zip(turns, parts):
        turn.text = (f"\n{SEPARATOR}\n" if turn.role == "assistant" else "\n").join(texts)
    _stamp_sittings(turns, now)
    kept: list[tuple[str, str]] = []
    used = 0
    from heartcompass.tokens import estimate_tokens

    for turn in reversed(turns):
        cost = estimate_tokens(turn.text) + 4
        if used + cost > budget and kept:
            break
        if not kept and cost > budget:  # the newest turn always goes, cut to what fits
            turn.text = newest_part(turn.text, budget - 4)
            cost = estimate_tokens(turn.text) + 4
        kept.insert(0, (turn.role, turn.text))
        used += cost
    return kept


def newest_part(text: str, budget: int) -> str:
    """The end of text that fits in budget tokens, after "…" (found by
    halving: a few estimates, whatever its length)."""
    from heartcompass.tokens import estimate_tokens

    low, high = 0, len(text)  # the longest suffix that fits has a length in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens("…" + text[-mid:]) <= budget:
            low = mid
        else:
            high = mid - 1
    return "…" + text[len(text) - low:] if low else "…"


def _stamp_sittings(turns: list[Turn], now: dt.datetime) -> None:
    """Stamp the user turn that opens each sitting before the current one
    (only user turns: a stamped reply would teach the persona to write stamps)."""
    current = len(turns)  # where the sitting going on now starts
    while current > 0 and now - turns[current - 1].when < SITTING_GAP:
        now = turns[current - 1].when
        current -= 1
    previous: dt.datetime | None = None
    opening = True
    for turn in turns[:current]:
        if previous is not None and turn.when - previous >= SITTING_GAP:
            opening = True
        if opening and turn.role == "user":
            turn.text = stamp(turn.when) + turn.text
            opening = False
        previous = turn.when


def _talk(entry: dailylog.Entry, tag: str | None) -> bool:
    """A message of a conversation: the user's, the persona's, a real imported one."""
    return (entry.speaker in ("me", "persona") or entry.speaker.startswith("import:")) and tag_of(entry) == tag


def last_talked(person: Person, now: dt.datetime, tag: str | None = None) -> dt.datetime | None:
    """When the last conversation before the current sitting ended (chats
    and imported real messages alike), or None when there was none."""
    now = now.replace(tzinfo=None)
    today_s = now.date().isoformat()
    dates = [d for d in dailylog.log_dates(person.dir) if d <= today_s][-LOOK_BACK_LOGS:]
    sitting = True  # still walking back through the sitting going on now
    for day in reversed(dates):
        entries = dailylog.load(person.logs_dir / f"{day}.md")
        gone = dailylog.dropped(entries)
        # Newest first by time, not by place: an import of earlier messages of the day is
        # appended after the chats that came later (the log is append-only).
        for i in sorted(range(len(entries)), key=lambda i: (entries[i].time, i), reverse=True):
            e = entries[i]
            if i in gone or not _talk(e, tag):
                continue
            when = _when(day, e)
            if when > now:
                continue
            if sitting and now - when < SITTING_GAP:
                now = when
                continue
            sitting = False
            return when
    return None


def since(then: dt.datetime, now: dt.datetime) -> str:
    """'3 days ago', 'yesterday', '2 hours ago', in words a model reads right."""
    from heartcompass.wording import counted

    days = (now.date() - then.date()).days
    if days == 0:
        hours = int((now - then).total_seconds() // 3600)
        return f"{counted(hours, 'hour')} ago" if hours else "less than an hour ago"
    if days == 1:
        return "yesterday"
    if days < 60:
        return f"{counted(days, 'day')} ago"
    return f"{counted(round(days / 30.4), 'month')} ago" if days < 730 else f"{counted(days // 365, 'year')} ago"


def when_line(person: Person, now: dt.datetime, user: str, tag: str | None = None) -> str:
    """The prompt's line on when the persona and the user last talked."""
    then = last_talked(person, now, tag)
    now = now.replace(tzinfo=None)
    if then is None:
        return f"No earlier chat between you and {user} is logged."
    return (f"You and {user} last talked {since(then, now)} "
            f"({WEEKDAYS[then.weekday()]} {then:%Y-%m-%d %H:%M}). A message of {user}'s from an earlier "
            f"conversation starts with its time in brackets; never write such a time yourself.")
