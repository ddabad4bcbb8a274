"""A plain transcript: `Name: text` lines, optionally after a
`[YYYY-MM-DD HH:MM]` stamp; an indented line continues the message above.
A line without a stamp takes the stamp before it; lines before the first
stamp are undated (filed after the day's entries, and the import says so).
A line that is none of these is reported by number and skipped."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

_LINE = re.compile(r"^(?:\[(?P<stamp>\d{4}-\d{2}-\d{2}(?: \d{1,2}:\d{2}(?::\d{2})?)?)\]\s*)?"
                   r"(?P<speaker>[^:：\[\]]{1,40}?)\s*[:：]\s*(?P<text>.*)$")


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    held: Message | None = None  # the message read last: an indented line may continue it
    current = dt.datetime.combine(ctx.today, dt.time(0, 0))
    stamped = False
    for n, line in source.lines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m and m["stamp"]:
            stamp = m["stamp"]
            try:
                current = (dt.datetime.fromisoformat(stamp) if " " in stamp
                           else dt.datetime.combine(dt.date.fromisoformat(stamp), dt.time(0, 0)))
                stamped = True
            except ValueError:
                report.skip(n, f"[{stamp}] is not a real date and time (stamps look like [2026-11-28 21:04])")
                continue
        if m:
            if held is not None:
                yield _done(held)
            held = Message(current, name(m["speaker"]), m["text"], n, undated=not stamped)
        elif held is not None and line.startswith((" ", "\t")):
            held.text += "\n" + line.strip()
        else:
            report.skip(n, f"expected 'Name: message', got {line.strip()[:60]!r}")
    if held is None:
        bad = report.bad
        from heartcompass.intake.exports.whatsapp import HEADER as WHATSAPP

        whatsapp = any(WHATSAPP.match(line) for _, line in source.lines())  # a stamp sniffing did not know
        raise FormatError(source.path, "no messages found" + (f"; {bad[0][1]}" if bad else ""),
                          bad[0][0] if bad else 1,
                          "It looks like a WhatsApp export: try --format whatsapp." if whatsapp else
                          "Each line is 'Name: message', optionally after a [YYYY-MM-DD HH:MM] stamp; "
                          "indent a line to continue the message above.")
    yield _done(held)


def _done(msg: Message) -> Message:
    msg.text = clean(msg.text)
    msg.placeholder = placeholder_kind(msg.text)
    return msg
