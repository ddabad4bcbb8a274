"""DiscordChatExporter's JSON: `guild`, `channel` and `messages`, each with
an ISO `timestamp`, `author` (`name`, `nickname`, `id`), `content`,
`attachments` and `reactions`. Only `Default` and `Reply` messages are
someone's words; joins, pins and calls are the app's.

A sender's handle is `discord:<id>` (the id never changes; the display name
and even the username can), with the username beside it: a `handles:` entry
of either routes them."""

from __future__ import annotations

import datetime as dt
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

FIX = "Export with DiscordChatExporter as JSON (--format Json)."
_WORDS = ("Default", "Reply", "0", "19")


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    data = source.json("Discord", FIX)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(source.path, "no 'messages' list: not a DiscordChatExporter export", 1, FIX)
    channel = data["channel"] if isinstance(data.get("channel"), dict) else {}
    report.chat = name(channel.get("name")) or None
    report.group = None if str(channel.get("type") or "") in ("DirectTextChat", "1") else (report.chat or "channel")
    for n, raw in enumerate(data["messages"], 1):
        if not isinstance(raw, dict):
            report.skip(n, f"message {n} is not an object")
            continue
        if str(raw.get("type", "Default")) not in _WORDS:
            report.notices += 1
            continue
        try:
            when = ctx.aware(dt.datetime.fromisoformat(str(raw["timestamp"]).replace("Z", "+00:00")))
        except (KeyError, ValueError):
            report.skip(n, f"message {n} has no valid 'timestamp'")
            continue
        author = raw["author"] if isinstance(raw.get("author"), dict) else {}
        body = clean(str(raw.get("content") or ""))
        kind = placeholder_kind(body) if body else "media" if raw.get("attachments") or raw.get("stickers") \
            or raw.get("embeds") else None
        if body or kind:
            user, ident = name(author.get("name")), name(author.get("id"))
            yield Message(when, name(author.get("nickname")) or user or "unknown", body, n, kind,
                          handle=f"discord:{ident}" if ident else user, aka=user if ident else "")
