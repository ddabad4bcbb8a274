"""The ChatLab interchange format (EchoTrace, imessage-exporter and others
write it): JSON with `meta`, `members`, `messages`, or JSONL with a
`header` line then `member` and `message` lines. Timestamps are Unix
seconds; type 0 is text and 25 a reply, 80 and up are system lines, 81 a
recalled message, the rest media. A JSONL line that does not parse is
reported by number and skipped."""

from __future__ import annotations

import json
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, lines, load_json, name
from heartcompass.messages import placeholder_kind

FIX = "Export as ChatLab JSON or JSONL (a header line with 'chatlab' and 'meta', then messages)."
_TEXT = (0, 25)


def _message(raw: dict, n: int, ctx: Context, owner: str) -> Message | str | None:
    """A message, "notice" for a system line, or None when the entry is not a message at all."""
    try:
        when = ctx.local(float(raw["timestamp"]))
    except (KeyError, TypeError, ValueError, OverflowError, OSError):
        return None
    kind = raw.get("type", 0)
    if isinstance(kind, int) and kind >= 80:
        return "notice" if kind != 81 else Message(when, _who(raw), "", n, "deleted")
    body = clean(str(raw.get("content") or "")) if kind in _TEXT else ""
    place = placeholder_kind(body) if body else "media"
    handle = str(raw.get("sender") or "")
    return Message(when, _who(raw), body, n, place, handle=handle, mine=bool(owner) and handle == owner)


def _who(raw: dict) -> str:
    return name(raw.get("groupNickname")) or name(raw.get("accountName")) or name(raw.get("sender")) or "unknown"


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    stripped = text.lstrip("\ufeff \t\r\n")
    first = stripped.split("\n", 1)[0]
    if '"_type"' in first:
        return _jsonl(text, path, ctx)
    data = load_json(text, path, "ChatLab", FIX)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(path, "no 'messages' list: not a ChatLab export", 1, FIX)
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    out, bad, notices = [], [], 0
    owner = str(meta.get("ownerId") or "")
    for n, raw in enumerate(data["messages"], 1):
        got = _message(raw, n, ctx, owner) if isinstance(raw, dict) else None
        if got is None:
            bad.append((n, f"message {n} has no valid 'timestamp'"))
        elif got == "notice":
            notices += 1
        else:
            out.append(got)
    return _export(out, bad, notices, meta)


def _export(out, bad, notices, meta: dict) -> Export:
    title = name(meta.get("name")) or None
    return Export(out, bad, group=title or "group" if meta.get("type") == "group" else None, chat=title,
                  notices=notices)


def _jsonl(text: str, path: Path | str, ctx: Context) -> Export:
    out, bad, notices = [], [], 0
    meta: dict = {}
    for n, line in lines(text.lstrip("\ufeff")):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            raw = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad.append((n, "not a JSON line"))
            continue
        kind = raw.get("_type") if isinstance(raw, dict) else None
        if kind == "header":
            meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else {}
        elif kind == "message":
            got = _message(raw, n, ctx, str(meta.get("ownerId") or ""))
            if got is None:
                bad.append((n, "a message without a valid 'timestamp'"))
            elif got == "notice":
                notices += 1
            else:
                out.append(got)
        elif kind != "member":
            bad.append((n, "a line that is no header, member or message"))
    if not out and not meta:
        raise FormatError(path, "no ChatLab header or messages found", 1, FIX)
    return _export(out, bad, notices, meta)
