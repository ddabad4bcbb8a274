"""A plain transcript: `Name: text` lines, optionally after a
`[YYYY-MM-DD HH:MM]` stamp; an indented line continues the message above.
A line without a stamp takes the stamp before it; lines before the first
stamp are undated (filed after the day's entries, and the import says so).
A line that is none of these is reported by number and skipped."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, name
from heartcompass.messages import placeholder_kind

_LINE = re.compile(r"^(?:\[(?P<stamp>\d{4}-\d{2}-\d{2}(?: \d{1,2}:\d{2}(?::\d{2})?)?)\]\s*)?"
                   r"(?P<speaker>[^:：\[\]]{1,40}?)\s*[:：]\s*(?P<text>.*)$")


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    current = dt.datetime.combine(ctx.today, dt.time(0, 0))
    stamped = False
    for n, line in lines(text):
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
                bad.append((n, f"[{stamp}] is not a real date and time (stamps look like [2026-11-28 21:04])"))
                continue
        if m:
            body = clean(m["text"])
            out.append(Message(current, name(m["speaker"]), body, n, placeholder_kind(body), undated=not stamped))
        elif out and line.startswith((" ", "\t")):
            out[-1].text += "\n" + clean(line)
        else:
            bad.append((n, f"expected 'Name: message', got {line.strip()[:60]!r}"))
    if not out:
        raise FormatError(path, "no messages found" + (f"; {bad[0][1]}" if bad else ""), bad[0][0] if bad else 1,
                          "Each line is 'Name: message', optionally after a [YYYY-MM-DD HH:MM] stamp; "
                          "indent a line to continue the message above.")
    return Export(out, bad)
