"""signal-export's Markdown (chat.md): `[YYYY-MM-DD HH:MM] Sender: body`,
continuation lines, attachments as Markdown links, a reply's quote as `>`
lines (the other person's words, left out), reactions as `(- … -)` lines,
"(This message was deleted)"."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

_HEADER = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(?::\d{2})?)\] ([^:]{1,80}?): ?(.*)$")
_REACTION = re.compile(r"^\(- .* -\)$")
_LINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]+\)")
FIX = "Export with signal-export (sigexport OUTPUT_DIR) and pass a chat's chat.md."


def _finish(msg: Message, body: list[str]) -> Message:
    kept = [line for line in body if not line.startswith(">") and not _REACTION.match(line.strip())]
    text = clean("\n".join(kept))
    if text in ("(This message was deleted)", "This message was deleted."):
        msg.text, msg.placeholder = "", "deleted"
        return msg
    words = clean(_LINK.sub("", text))
    msg.text = text if words else ""
    msg.placeholder = placeholder_kind(text) if words else "media"  # only attachments: not words
    return msg


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    held: Message | None = None
    body: list[str] = []
    found = False
    for n, line in source.lines():
        m = _HEADER.match(line)
        if m:
            if held is not None and report.keeps(msg := _finish(held, body)):
                found = True
                yield msg
            try:
                held, body = Message(dt.datetime.fromisoformat(m[1]), name(m[2]), "", n), [m[3]]
            except ValueError:
                report.skip(n, f"[{m[1]}] is not a real date and time")
                held, body = None, []
        elif held is not None:
            body.append(line)
        elif line.strip():
            report.skip(n, f"not a signal-export line: {line.strip()[:60]!r}")
    if held is not None and report.keeps(msg := _finish(held, body)):
        found = True
        yield msg
    if not found:
        raise FormatError(source.path, "no Signal messages found", 1, FIX)
