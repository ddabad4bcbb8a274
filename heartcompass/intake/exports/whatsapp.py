"""WhatsApp .txt ("Export chat > Without media"): Android's `date, time -
Name: text` and iOS's `[date, time] Name: text`, 12- and 24-hour clocks in
any locale's spelling (PM, p. m., 下午, 오후, nachm.), continuation lines.

A line that looks like a message header but has no real date is reported by
number and skipped; so are lines before the first message. App notices (the
encryption notice under the contact's name, a member added) are left out."""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Iterator

from heartcompass.errors import FormatError

from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report, Reread
from heartcompass.intake.exports.common import clean, name
from heartcompass.intake.exports.reader import records
from heartcompass.messages import app_notice, placeholder_kind

_AM_PM = r"[AaPp]\.?[\s\u202f\u00a0]?[Mm]\.?|vorm\.|nachm\.|π\.?μ\.?|μ\.?μ\.?"
HEADER = re.compile(
    r"^\u200e?\[?(?P<d>\d{1,4})[./-](?P<m>\d{1,2})[./-](?P<y>\d{1,4})\.?,?\s+"
    r"(?P<cn>上午|下午|凌晨|早上|中午|晚上|午前|午後|오전|오후)?\s*(?P<t>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)"
    rf"(?:[\s\u202f\u00a0]*(?P<ampm>{_AM_PM}))?\]?"
    r"(?:\s+-\s+|\s+)(?P<rest>.*)$"
)
_PM_PREFIX = ("下午", "晚上", "午後", "오후")
_AM_PREFIX = ("上午", "凌晨", "早上", "午前", "오전")
_EDITED = re.compile(r"\s*<(?:This message was edited|已编辑|已編輯|Se editó este mensaje\.?|"
                     r"Diese Nachricht wurde bearbeitet)>\s*$")
FIX = "Export the chat from WhatsApp (Chat > More > Export chat > Without media)."


def day_first(parts: set[tuple[int, int, int]], twelve_hour: bool = False, today: dt.date | None = None,
              in_order: list[tuple[int, int, int]] | None = None) -> bool:
    """Decide D/M or M/D order from the whole file: a field over 12 settles
    it; else the order that keeps the messages in time order (06/03, 08/05,
    09/04 only run forwards month first); else the order that puts no
    message in the future; else the clock (12-hour exports come from
    month-first locales, such as the US)."""
    if any(a > 12 for a, _, _ in parts):
        return True
    if any(b > 12 for _, b, _ in parts):
        return False
    if in_order:
        backwards = {first: _steps_back(in_order, first) for first in (True, False)}
        if backwards[True] != backwards[False]:
            return backwards[True] < backwards[False]
    if today is not None and parts:
        def latest(first: bool) -> dt.date:
            return max(dt.date(y + 2000 if y < 100 else y, *((b, a) if first else (a, b))) for a, b, y in parts)
        try:
            future = {order: latest(order) > today for order in (True, False)}
        except ValueError:
            future = {}
        if future and future[True] != future[False]:
            return not future[True]
    return not twelve_hour  # most of the world writes day first, with a 24-hour clock


def _steps_back(in_order: list[tuple[int, int, int]], first: bool) -> int:
    """How often the date goes back from one message to the next, read day
    first or not (a date that does not exist counts as a step back)."""
    steps, last = 0, None
    for a, b, y in in_order:
        try:
            date = dt.date(y + 2000 if y < 100 else y, *((b, a) if first else (a, b)))
        except ValueError:
            steps += 1
            continue
        if last is not None and date < last:
            steps += 1
        last = date
    return steps


def _hour(hour: int, ampm: str | None, prefix: str | None) -> int | None:
    if ampm:
        low = ampm.lower().replace(" ", "")
        pm = low.startswith(("p", "nachm", "μ"))
        if not 0 <= hour <= 12:
            return None
        return hour % 12 + (12 if pm else 0)  # "00:08 a. m." (Spanish) is 00:08 too
    if prefix:  # 下午1:54 is 13:54, 上午12:05 is 00:05
        if prefix in _PM_PREFIX and hour < 12 or prefix == "中午" and hour < 11:
            return hour + 12
        if prefix in _AM_PREFIX and hour == 12:
            return 0
    return hour


_ENGLISH_AM_PM = re.compile(r"[AaPp]\.?[Mm]\.?")
GUESS_AFTER = 5_000  # messages read before the day order is guessed; the whole file confirms it (or reads again)


class _Dates:
    """Every header's date numbers, for `day_first` (one small set per distinct date)."""

    def __init__(self) -> None:
        self.parts: set[tuple[int, int, int]] = set()
        self.in_order: list[tuple[int, int, int]] = []  # one per change of date: small for years of messages
        self.twelve = self.found = False
        self.last: tuple | None = None  # the header before's raw (day, month, year)

    def header(self, line: str) -> re.Match | None:
        m = HEADER.match(line)
        if m:
            self.found = True
            # An English AM/PM suggests a month-first locale (the US); "p. m.", "nachm." are day-first ones.
            self.twelve = self.twelve or bool(m["ampm"] and _ENGLISH_AM_PM.fullmatch(m["ampm"]))
            raw = m.group("d", "m", "y")
            if raw != self.last and len(raw[0]) != 4:  # the same date as the header before: nothing new
                date = (int(raw[0]), int(raw[1]), int(raw[2]))
                self.parts.add(date)
                if not self.in_order or self.in_order[-1] != date:
                    self.in_order.append(date)
            self.last = raw
        return m

    def day_first(self, source: Source, ctx: Context) -> bool:
        if not self.found:
            raise FormatError(source.path, "no WhatsApp messages found", 1,
                              "Is this a WhatsApp .txt export? Try --format with another app (see --help).")
        return day_first(self.parts, self.twelve, ctx.today, self.in_order)


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    """One read: the day order (D/M or M/D) is guessed from the first
    GUESS_AFTER messages (all of a smaller file) and checked against the
    whole file at its end; a wrong guess reads the file again (Reread), in
    the order the whole file gives, so no message is dated by a guess. (A
    read cut short while guessing, by a broken line, learns the order from
    the whole file first when read again.)"""
    if "day_first" not in source.memo and source.memo.get("guessing"):  # a guessing read was cut short
        dates = _Dates()
        for _, line in source.lines():
            dates.header(line)
        source.memo["day_first"] = dates.day_first(source, ctx)
    if "day_first" in source.memo:
        order = source.memo["day_first"]
        for n, m, more in records(source, HEADER.match, report, "not a WhatsApp message line"):
            msg = _message(n, m, more, order, report)
            if msg is not None:
                yield msg
        return
    source.memo["guessing"] = True
    dates = _Dates()
    held: list[tuple[int, re.Match, list[str]]] = []
    guess: bool | None = None
    for n, m, more in records(source, dates.header, report, "not a WhatsApp message line"):
        if guess is None:
            held.append((n, m, more))
            if len(held) < GUESS_AFTER:
                continue
            guess = dates.day_first(source, ctx)
            yield from _messages(held, guess, report)
            held = []
            continue
        msg = _message(n, m, more, guess, report)
        if msg is not None:
            yield msg
    order = source.memo["day_first"] = dates.day_first(source, ctx)
    source.memo["guessing"] = False
    if guess is None:  # a small file: all of it held, now dated in the order it gives
        yield from _messages(held, order, report)
    elif guess != order:
        raise Reread(f"WhatsApp day order: {'day' if order else 'month'} first after all")


def _messages(held: list[tuple[int, re.Match, list[str]]], order: bool, report: Report) -> Iterator[Message]:
    for n, m, more in held:
        msg = _message(n, m, more, order, report)
        if msg is not None:
            yield msg


@lru_cache(maxsize=256)  # an export's dates come in order: the recent ones are the ones asked again
def _date(d: str, m: str, y: str, order: bool) -> tuple[int, int, int]:
    """(year, month, day) of a header's date fields, once per distinct date: a day's messages share it."""
    a, b, c = int(d), int(m), int(y)
    if len(d) == 4:  # YYYY-MM-DD style
        return a, b, c
    day, month = (a, b) if order else (b, a)
    return (c + 2000 if len(y) <= 2 else c), month, day  # "0001" is the year 1 (refused), not 2001


@lru_cache(maxsize=4096)
def _clock(t: str, ampm: str | None, cn: str | None) -> tuple[int, int, int] | None:
    """(hour, minute, second) of a header's time, once per distinct time; None: no real hour."""
    hms = [int(x) for x in t.replace(".", ":").split(":")]
    hour = _hour(hms[0], ampm, cn)
    return None if hour is None else (hour, hms[1], hms[2] if len(hms) > 2 else 0)


def _message(n: int, m: re.Match, more: list[str], order: bool, report: Report) -> Message | None:
    d, mo, y, cn, t, ampm, rest = m.groups()  # HEADER's groups in order: one call, not one per field
    clock = _clock(t, ampm, cn)
    try:
        if clock is None:
            raise ValueError
        when = dt.datetime(*_date(d, mo, y, order), *clock)
    except ValueError:
        ampm = f" {ampm}" if ampm else ""
        report.skip(n, f"{t}{ampm} on {int(d)}/{int(mo)}/{int(y)} is no real date and time")
        return None
    speaker, sep, body = rest.partition(": ")
    body = "\n".join([body, *more]) if more else body
    if not sep or app_notice(body):  # "X changed the subject"; iOS's notices under the chat's name
        report.notices += 1
        return None
    body = clean(body)
    if body.endswith(">"):  # the only way "<This message was edited>" ends a cleaned (stripped) text
        body = _EDITED.sub("", body)
    if not body:
        report.notices += 1
        return None
    return Message(when, name(speaker), body, n, placeholder_kind(body))
