"""Messenger's and Instagram's "Download your information" JSON
(message_1.json): `participants`, `messages` newest first with
`sender_name`, `timestamp_ms`, `content`. Meta writes the UTF-8 bytes of
the text as if each were a Latin-1 character ("J\u00e2\u009d\u00a4\u00ef\u00b8\u008fhn"
for "J❤️hn"): every string is repaired before use."""

from __future__ import annotations

from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

FIX = "Download your information from Facebook or Instagram (Messages, JSON format) and pass message_1.json."
_MEDIA = ("photos", "videos", "audio_files", "gifs", "sticker", "files", "share")
_NOTICE_TYPES = ("Subscribe", "Unsubscribe")


def repair(text: str) -> str:
    """Undo Meta's mojibake: text whose every character is a byte, read back as UTF-8."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text  # already real text (a re-saved file), or not Meta's mistake


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    data = source.json("Messenger", FIX)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(source.path, "no 'messages' list: not a Messenger or Instagram export", 1, FIX)
    members = [p for p in data.get("participants") or [] if isinstance(p, dict)]
    report.chat = name(repair(str(data.get("title") or ""))) or None
    report.group = report.chat or "group" if len(members) > 2 or data.get("thread_type") == "RegularGroup" else None
    listed = data["messages"]
    for i in range(len(listed) - 1, -1, -1):  # newest first in the file
        raw, n = listed[i], i + 1
        if not isinstance(raw, dict):
            report.skip(n, f"message {n} is not an object")
            continue
        if raw.get("type") in _NOTICE_TYPES or raw.get("is_unsent") is True and not raw.get("content"):
            report.notices += 1
            continue
        try:
            when = ctx.local(int(raw["timestamp_ms"]) / 1000)
        except (KeyError, TypeError, ValueError, OverflowError, OSError):
            report.skip(n, f"message {n} has no valid 'timestamp_ms'")
            continue
        body = clean(repair(str(raw.get("content") or "")))
        if raw.get("type") == "Call":
            kind = "call"
        elif raw.get("share") and body:
            kind = None
        else:
            kind = placeholder_kind(body) if body else "media" if any(raw.get(k) for k in _MEDIA) else None
        if body or kind:
            yield Message(when, name(repair(str(raw.get("sender_name") or ""))) or "unknown", body, n, kind)
