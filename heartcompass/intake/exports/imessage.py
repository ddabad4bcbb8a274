"""imessage-exporter's TXT: a timestamp line such as `May 17, 2022  5:29:42
PM` (possibly followed by a read receipt in brackets), the sender (a name,
a phone number or an address; `Me` is the user) on the next line, then the
body, a blank line between messages. Attachment and app lines are media."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.intake.exports.reader import records
from heartcompass.messages import placeholder_kind

STAMP = re.compile(r"^(?P<stamp>(?P<mon>[A-Z][a-z]{2}) (?P<d>\d{1,2}), (?P<y>\d{4})\s+(?P<h>\d{1,2}):(?P<mi>\d{2}):"
                   r"(?P<s>\d{2})\s*(?P<ap>[AP])M)(?:\s*\(.*\))?\s*$")
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_ATTACHMENT = re.compile(r"^(?:/|~/|Attachment missing|This message responded to an earlier message|"
                         r"App: |Sticker from |Edited \d+ times?)")
FIX = "Export with imessage-exporter (--format txt) and pass one conversation's .txt."


def _finish(msg: Message, body: list[str]) -> Message:
    while body and not body[-1]:  # the blank line between messages
        body = body[:-1]
    kept = [line for line in body if not _ATTACHMENT.match(line.strip())]
    msg.text = clean(kept[0] if len(kept) == 1 else "\n".join(kept))
    msg.placeholder = placeholder_kind(msg.text) if msg.text else "media"
    return msg


def _when(m: re.Match) -> dt.datetime | None:
    try:
        hour = int(m["h"])
        if not 1 <= hour <= 12:
            return None
        return dt.datetime(int(m["y"]), _MONTHS[m["mon"]], int(m["d"]), hour % 12 + (12 if m["ap"] == "P" else 0),
                           int(m["mi"]), int(m["s"]))  # not strptime: five times slower
    except (ValueError, KeyError):
        return None


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    found = False
    for n, m, body in records(source, STAMP.match, report, "not an imessage-exporter line"):
        when = _when(m)
        if when is None:
            report.skip(n, f"{m['stamp']!r} is not a real date and time")
            continue
        at = 0 if body and name(body[0]) else next((i for i, line in enumerate(body) if name(line)), -1)
        if at < 0:
            continue  # a time and no sender
        sender = name(body[at])  # on the line after the time
        msg = Message(when, sender, "", n + at + 1, handle=sender if sender != "Me" else "", mine=sender == "Me")
        if report.keeps(msg := _finish(msg, body[at + 1:])):
            found = True
            yield msg
    if not found:
        raise FormatError(source.path, "no iMessage messages found", 1, FIX)
