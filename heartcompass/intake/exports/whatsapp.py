"""WhatsApp .txt ("Export chat > Without media"): Android's `date, time -
Name: text` and iOS's `[date, time] Name: text`, 12- and 24-hour clocks in
any locale's spelling (PM, p. m., 下午, 오후, nachm.), continuation lines.

A line that looks like a message header but has no real date is reported by
number and skipped; so are lines before the first message. App notices (the
encryption notice under the contact's name, a member added) are left out."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, name
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


def day_first(parts: set[tuple[int, int, int]], twelve_hour: bool = False, today: dt.date | None = None) -> bool:
    """Decide D/M or M/D order from the whole file: a field over 12 settles
    it; else the order that puts no message in the future; else the clock
    (12-hour exports come from month-first locales, such as the US)."""
    if any(a > 12 for a, _, _ in parts):
        return True
    if any(b > 12 for _, b, _ in parts):
        return False
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


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    # First pass: headers only, small tuples (a year of chat must not hold a match object per line).
    rows: list[tuple[int, int, int, int, bool, str, str | None, str | None, str]] = []
    bodies: list[list[str]] = []
    bad: list[tuple[int, str]] = []
    for n, line in lines(text):
        m = HEADER.match(line)
        if m:
            rows.append((n, int(m["d"]), int(m["m"]), int(m["y"]), len(m["d"]) == 4, m["t"], m["ampm"], m["cn"],
                         m["rest"]))
            bodies.append([])
        elif bodies:
            bodies[-1].append(line)
        elif line.strip():
            bad.append((n, f"not a WhatsApp message line: {line.strip()[:60]!r}"))
    if not rows:
        raise FormatError(path, "no WhatsApp messages found", 1,
                          "Is this a WhatsApp .txt export? Try --format with another app (see --help).")
    order = day_first({(a, b, y) for _, a, b, y, iso, *_ in rows if not iso}, any(r[6] for r in rows), ctx.today)
    out: list[Message] = []
    notices = 0
    for (n, a, b, y, iso, t, ampm, cn, rest), more in zip(rows, bodies):
        if iso:  # YYYY-MM-DD style
            year, month, day = a, b, y
        else:
            day, month = (a, b) if order else (b, a)
            year = y + 2000 if y < 100 else y
        hms = [int(x) for x in re.split(r"[:.]", t)]
        hour = _hour(hms[0], ampm, cn)
        try:
            if hour is None:
                raise ValueError
            when = dt.datetime(year, month, day, hour, hms[1], hms[2] if len(hms) > 2 else 0)
        except ValueError:
            bad.append((n, f"{t}{' ' + ampm if ampm else ''} on {a}/{b}/{y} is no real date and time"))
            continue
        speaker, sep, body = rest.partition(": ")
        body = "\n".join([body, *more])
        if not sep or app_notice(body):  # "X changed the subject"; iOS's notices under the chat's name
            notices += 1
            continue
        body = _EDITED.sub("", clean(body))
        if not body:
            notices += 1
            continue
        out.append(Message(when, name(speaker), body, n, placeholder_kind(body)))
    return Export(out, bad, notices=notices)
