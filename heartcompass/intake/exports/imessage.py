"""imessage-exporter's TXT: a timestamp line such as `May 17, 2022  5:29:42
PM` (possibly followed by a read receipt in brackets), the sender (a name,
a phone number or an address; `Me` is the user) on the next line, then the
body, a blank line between messages. Attachment and app lines are media."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Message, Report, Source
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import app_notice, placeholder_kind

STAMP = re.compile(r"^(?P<stamp>[A-Z][a-z]{2} \d{1,2}, \d{4}\s+\d{1,2}:\d{2}:\d{2}\s*[AP]M)(?:\s*\(.*\))?\s*$")
_ATTACHMENT = re.compile(r"^(?:/|~/|Attachment missing|This message responded to an earlier message|"
                         r"App: |Sticker from |Edited \d+ times?)")
FIX = "Export with imessage-exporter (--format txt) and pass one conversation's .txt."


def _finish(msg: Message, body: list[str]) -> Message:
    kept = [line for line in body if not _ATTACHMENT.match(line.strip())]
    msg.text = clean("\n".join(kept))
    msg.placeholder = placeholder_kind(msg.text) if msg.text else "media"
    return msg


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    when: dt.datetime | None = None  # a timestamp line read; the sender comes next
    held: Message | None = None
    body: list[str] = []
    found = False
    for n, line in source.lines():
        m = STAMP.match(line.strip())
        if m:
            if held is not None:
                msg = _finish(held, body)
                if msg.text and app_notice(msg.text):
                    report.notices += 1
                else:
                    found = True
                    yield msg
            held, body = None, []
            try:
                when = dt.datetime.strptime(" ".join(m["stamp"].split()), "%b %d, %Y %I:%M:%S %p")
            except ValueError:
                report.skip(n, f"{m['stamp']!r} is not a real date and time")
                when = None
            continue
        if when is not None:
            sender = name(line)
            if sender:
                held = Message(when, sender, "", n, handle=sender if sender != "Me" else "", mine=sender == "Me")
                when = None
        elif held is not None:
            body.append(line)
        elif line.strip():
            report.skip(n, f"not an imessage-exporter line: {line.strip()[:60]!r}")
    if held is not None:
        msg = _finish(held, body)
        if msg.text and app_notice(msg.text):
            report.notices += 1
        else:
            found = True
            yield msg
    if not found:
        raise FormatError(source.path, "no iMessage messages found", 1, FIX)
