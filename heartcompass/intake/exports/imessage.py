"""imessage-exporter's TXT: a timestamp line such as `May 17, 2022  5:29:42
PM` (possibly followed by a read receipt in brackets), the sender (a name,
a phone number or an address; `Me` is the user) on the next line, then the
body, a blank line between messages. Attachment and app lines are media."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, name
from heartcompass.messages import app_notice, placeholder_kind

STAMP = re.compile(r"^(?P<stamp>[A-Z][a-z]{2} \d{1,2}, \d{4}\s+\d{1,2}:\d{2}:\d{2}\s*[AP]M)(?:\s*\(.*\))?\s*$")
_ATTACHMENT = re.compile(r"^(?:/|~/|Attachment missing|This message responded to an earlier message|"
                         r"App: |Sticker from |Edited \d+ times?)")
FIX = "Export with imessage-exporter (--format txt) and pass one conversation's .txt."


def _finish(msg: Message, body: list[str]) -> None:
    kept = [line for line in body if not _ATTACHMENT.match(line.strip())]
    msg.text = clean("\n".join(kept))
    msg.placeholder = placeholder_kind(msg.text) if msg.text else "media"


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    when: dt.datetime | None = None  # a timestamp line read; the sender comes next
    body: list[str] = []
    for n, line in lines(text.lstrip("\ufeff")):
        m = STAMP.match(line.strip())
        if m:
            if out and body is not None:
                _finish(out[-1], body)
            body = []
            try:
                when = dt.datetime.strptime(" ".join(m["stamp"].split()), "%b %d, %Y %I:%M:%S %p")
            except ValueError:
                bad.append((n, f"{m['stamp']!r} is not a real date and time"))
                when = None
            continue
        if when is not None:
            sender = name(line)
            if not sender:
                continue
            out.append(Message(when, sender, "", n, handle=sender if sender != "Me" else "", mine=sender == "Me"))
            when = None
        elif out:
            body.append(line)
        elif line.strip():
            bad.append((n, f"not an imessage-exporter line: {line.strip()[:60]!r}"))
    if out:
        _finish(out[-1], body)
    kept = [msg for msg in out if not (msg.text and app_notice(msg.text))]
    if not kept:
        raise FormatError(path, "no iMessage messages found", 1, FIX)
    return Export(kept, bad, notices=len(out) - len(kept))
