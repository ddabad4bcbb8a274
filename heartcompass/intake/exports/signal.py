"""signal-export's Markdown (chat.md): `[YYYY-MM-DD HH:MM] Sender: body`,
continuation lines, attachments as Markdown links, a reply's quote as `>`
lines (the other person's words, left out), reactions as `(- … -)` lines,
"(This message was deleted)"."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, name
from heartcompass.messages import app_notice, placeholder_kind

_HEADER = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(?::\d{2})?)\] ([^:]{1,80}?): ?(.*)$")
_REACTION = re.compile(r"^\(- .* -\)$")
_LINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]+\)")
FIX = "Export with signal-export (sigexport OUTPUT_DIR) and pass a chat's chat.md."


def _finish(msg: Message, body: list[str]) -> None:
    kept = [line for line in body if not line.startswith(">") and not _REACTION.match(line.strip())]
    text = clean("\n".join(kept))
    if text in ("(This message was deleted)", "This message was deleted."):
        msg.text, msg.placeholder = "", "deleted"
        return
    words = clean(_LINK.sub("", text))
    msg.text = text if words else ""
    msg.placeholder = placeholder_kind(text) if words else "media"  # only attachments: not words


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    body: list[str] = []
    notices = 0
    for n, line in lines(text.lstrip("\ufeff")):
        m = _HEADER.match(line)
        if m:
            if out:
                _finish(out[-1], body)
            body = [m[3]]
            try:
                when = dt.datetime.fromisoformat(m[1])
            except ValueError:
                bad.append((n, f"[{m[1]}] is not a real date and time"))
                body = []
                continue
            out.append(Message(when, name(m[2]), "", n))
        elif out:
            body.append(line)
        elif line.strip():
            bad.append((n, f"not a signal-export line: {line.strip()[:60]!r}"))
    if out:
        _finish(out[-1], body)
    kept = [msg for msg in out if not (msg.text and app_notice(msg.text))]
    notices = len(out) - len(kept)
    if not kept:
        raise FormatError(path, "no Signal messages found", 1, FIX)
    return Export(kept, bad, notices=notices)
