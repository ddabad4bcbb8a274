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
from heartcompass.intake.exports.reader import records
from heartcompass.messages import placeholder_kind

_HEADER = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(?::\d{2})?)\] ([^:]{1,80}?): ?(.*)$")
_REACTION = re.compile(r"^\(- .* -\)$")
_LINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]+\)")
FIX = "Export with signal-export (sigexport OUTPUT_DIR) and pass a chat's chat.md."


def _finish(msg: Message, body: list[str]) -> Message:
    while body and not body[-1]:  # the blank line before the next message
        body = body[:-1]
    kept = [line for line in body if not line.startswith(">") and not _REACTION.match(line.strip())]
    text = clean(kept[0] if len(kept) == 1 else "\n".join(kept))
    if text in ("(This message was deleted)", "This message was deleted."):
        msg.text, msg.placeholder = "", "deleted"
        return msg
    words = clean(_LINK.sub("", text)) if "](" in text else text
    msg.text = text if words else ""
    msg.placeholder = placeholder_kind(text) if words else "media"  # only attachments: not words
    return msg


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    found = False
    for n, m, body in records(source, _HEADER.match, report, "not a signal-export line"):
        try:
            when = dt.datetime.fromisoformat(m[1])
        except ValueError:
            report.skip(n, f"[{m[1]}] is not a real date and time")
            continue
        if report.keeps(msg := _finish(Message(when, name(m[2]), "", n), [m[3], *body])):
            found = True
            yield msg
    if not found:
        raise FormatError(source.path, "no Signal messages found", 1, FIX)
