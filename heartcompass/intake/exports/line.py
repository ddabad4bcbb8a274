"""LINE's "Send chat history" .txt: a `[LINE] Chat history with X` header
(or the localised one), date lines such as `2017.09.02 Saturday`,
`2018/04/16(月)` or `Sat, 09/02/2017`, then `HH:MM<TAB>sender<TAB>text`
(with 上午/下午 or AM/PM); a message across lines is wrapped in quotes.
A line of only time and text is the app's notice (joined, unsent)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, name
from heartcompass.messages import placeholder_kind

_DATE = re.compile(r"^(?:\w{2,9},?\s+)?(?:(?P<y>\d{4})[./-](?P<m>\d{1,2})[./-](?P<d>\d{1,2})|"
                   r"(?P<m2>\d{1,2})/(?P<d2>\d{1,2})/(?P<y2>\d{4}))(?:\s*[(（]?\s*\w{1,9}\.?\s*[)）]?)?\s*$")
_TIME = re.compile(r"^(?P<cn>上午|下午|午前|午後|오전|오후)?\s*(?P<h>\d{1,2}):(?P<mi>\d{2})\s*(?P<ap>[AaPp][Mm])?$")
_TITLE = re.compile(r"^\ufeff?\[LINE\]\s*(?:Chat history (?:with|in) (?P<en>.+)|(?P<other>.+))$")
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


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    day: dt.date | None = None
    title = None
    notices = 0
    open_quote: Message | None = None  # a "…" message still being read
    for n, line in lines(text):
        if open_quote is not None:
            if line.endswith('"'):
                open_quote.text = clean(open_quote.text + "\n" + line[:-1])
                open_quote.placeholder = placeholder_kind(open_quote.text)
                open_quote = None
            else:
                open_quote.text += "\n" + line
            continue
        if n <= 3 and (t := _TITLE.match(line)):
            title = name(t["en"] or t["other"])
            continue
        d = _DATE.match(line.strip())
        if d:
            try:
                day = dt.date(int(d["y"] or d["y2"]), int(d["m"] or d["m2"]), int(d["d"] or d["d2"]))
            except ValueError:
                bad.append((n, f"{line.strip()!r} is not a real date"))
                day = None
            continue
        parts = line.split("\t")
        clock = _clock(parts[0]) if len(parts) >= 2 else None
        if clock and day is not None:
            when = dt.datetime.combine(day, dt.time(*clock))
            if len(parts) == 2:
                notices += 1  # "12:00<TAB>Alice joined the group." has no sender column
                continue
            body = "\t".join(parts[2:])
            msg = Message(when, name(parts[1]), "", n)
            if body.startswith('"') and not (len(body) > 1 and body.endswith('"')):
                msg.text = body[1:]
                open_quote = msg
            else:
                msg.text = clean(body[1:-1] if len(body) > 1 and body.startswith('"') and body.endswith('"')
                                 else body)
                msg.placeholder = placeholder_kind(msg.text)
            out.append(msg)
        elif out and line.strip() and clock is None and day is not None and not line.startswith(("Saved on", "保存日期")):
            out[-1].text += "\n" + clean(line)  # a line break LINE did not quote
        elif line.strip() and not line.startswith(("Saved on", "保存日期", "保存日時")):
            bad.append((n, f"not a LINE chat line: {line.strip()[:60]!r}"))
    if open_quote is not None:
        open_quote.text = clean(open_quote.text)
    if not out:
        raise FormatError(path, "no LINE messages found", 1, FIX)
    return Export(out, bad, chat=title)
