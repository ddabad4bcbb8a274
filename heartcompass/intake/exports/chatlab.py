"""The ChatLab interchange format (EchoTrace, imessage-exporter and others
write it): JSON with `meta`, `members`, `messages`, or JSONL with a
`header` line then `member` and `message` lines. Timestamps are Unix
seconds; type 0 is text and 25 a reply, 80 and up are system lines, 81 a
recalled message, the rest media. A JSONL line that does not parse is
reported by number and skipped."""

from __future__ import annotations

import json
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
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


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    first = next((line for _, line in source.lines() if line.strip()), "")
    if '"_type"' in first:
        yield from _jsonl(source, ctx, report)
        return
    data = source.json("ChatLab", FIX)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(source.path, "no 'messages' list: not a ChatLab export", 1, FIX)
    meta = data["meta"] if isinstance(data.get("meta"), dict) else {}
    _describe(report, meta)
    owner = str(meta.get("ownerId") or "")
    for n, raw in enumerate(data["messages"], 1):
        got = _message(raw, n, ctx, owner) if isinstance(raw, dict) else None
        if got is None:
            report.skip(n, f"message {n} has no valid 'timestamp'")
        elif isinstance(got, str):  # "notice"
            report.notices += 1
        else:
            yield got


def _describe(report: Report, meta: dict) -> None:
    title = name(meta.get("name")) or None
    report.chat = title
    report.group = title or "group" if meta.get("type") == "group" else None


def _jsonl(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    meta: dict | None = None
    for n, line in source.lines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            raw = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            report.skip(n, "not a JSON line")
            continue
        kind = raw.get("_type") if isinstance(raw, dict) else None
        if kind == "header":
            meta = raw["meta"] if isinstance(raw.get("meta"), dict) else {}
            _describe(report, meta)
        elif kind == "message":
            got = _message(raw, n, ctx, str((meta or {}).get("ownerId") or ""))
            if got is None:
                report.skip(n, "a message without a valid 'timestamp'")
            elif isinstance(got, str):  # "notice"
                report.notices += 1
            else:
                yield got
        elif kind != "member":
            report.skip(n, "a line that is no header, member or message")
    if meta is None:
        raise FormatError(source.path, "no ChatLab header line found", 1, FIX)
