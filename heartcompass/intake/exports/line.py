"""LINE's "Send chat history" .txt: a `[LINE] Chat history with X` header
(or the localised one), date lines such as `2017.09.02 Saturday`,
`2018/04/16(月)` or `Sat, 09/02/2017`, then `HH:MM<TAB>sender<TAB>text`
(with 上午/下午 or AM/PM); a message across lines is wrapped in quotes.
A line of only time and text is the app's notice (joined, unsent)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

_DATE = re.compile(r"^(?:\w{2,9},?\s+)?(?:(?P<y>\d{4})[./-](?P<m>\d{1,2})[./-](?P<d>\d{1,2})|"
                   r"(?P<m2>\d{1,2})/(?P<d2>\d{1,2})/(?P<y2>\d{4}))(?:\s*[(（]?\s*\w{1,9}\.?\s*[)）]?)?\s*$")
_TIME = re.compile(r"^(?P<cn>上午|下午|午前|午後|오전|오후)?\s*(?P<h>\d{1,2}):(?P<mi>\d{2})\s*(?P<ap>[AaPp][Mm])?$")
_TITLE = re.compile(r"^\ufeff?\[LINE\]\s*(?:Chat history (?:with|in) (?P<en>.+)|(?P<other>.+))$")
_SAVED = ("Saved on", "保存日期", "保存日時")
FIX = "Export from LINE (chat > menu > Settings > Export chat history) as a .txt file."


def _clock(text: str) -> tuple[int, int] | None:
    m = _TIME.match(text.strip())
    if not m:
        return None
    hour, minute = int(m["h"]), int(m["mi"])
    pm = (m["ap"] or "").lower() == "pm" or m["cn"] in ("下午", "午後", "오후")
    if m["ap"] or m["cn"]:
        if hour > 12:
            return None
        hour = hour % 12 + (12 if pm else 0)
    return (hour, minute) if hour < 24 and minute < 60 else None


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    day: dt.date | None = None
    held: Message | None = None  # the last message: a line LINE did not quote may continue it
    quoted = False  # held is a "…" message still being read
    found = False
    for n, line in source.lines():
        if quoted:
            if line.endswith('"'):
                held.text += "\n" + line[:-1]
                quoted = False
            else:
                held.text += "\n" + line
            continue
        if n <= 3 and (t := _TITLE.match(line)):
            report.chat = name(t["en"] or t["other"])
            continue
        d = _DATE.match(line.strip())
        if d:
            try:
                day = dt.date(int(d["y"] or d["y2"]), int(d["m"] or d["m2"]), int(d["d"] or d["d2"]))
            except ValueError:
                report.skip(n, f"{line.strip()!r} is not a real date")
                day = None
            continue
        parts = line.split("\t")
        clock = _clock(parts[0]) if len(parts) >= 2 else None
        if clock and day is not None:
            if len(parts) == 2:
                report.notices += 1  # "12:00<TAB>Alice joined the group." has no sender column
                continue
            if held is not None:
                found = True
                yield _done(held)
            body = "\t".join(parts[2:])
            held = Message(dt.datetime.combine(day, dt.time(*clock)), name(parts[1]), body, n)
            if body.startswith('"'):
                if len(body) > 1 and body.endswith('"'):
                    held.text = body[1:-1]
                else:
                    held.text, quoted = body[1:], True
        elif held is not None and line.strip() and not line.startswith(_SAVED):
            held.text += "\n" + line  # a line break LINE did not quote
        elif line.strip() and not line.startswith(_SAVED):
            report.skip(n, f"not a LINE chat line: {line.strip()[:60]!r}")
    if held is not None:
        yield _done(held)
    elif not found:
        raise FormatError(source.path, "no LINE messages found", 1, FIX)


def _done(msg: Message) -> Message:
    msg.text = clean(msg.text)
    msg.placeholder = placeholder_kind(msg.text)
    return msg
