"""DiscordChatExporter's JSON: `guild`, `channel` and `messages`, each with
an ISO `timestamp`, `author` (`name`, `nickname`, `id`), `content`,
`attachments` and `reactions`. Only `Default` and `Reply` messages are
someone's words; joins, pins and calls are the app's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import clean, load_json, name
from heartcompass.messages import placeholder_kind

FIX = "Export with DiscordChatExporter as JSON (--format Json)."
_WORDS = ("Default", "Reply", "0", "19")


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    data = load_json(text, path, "Discord", FIX)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(path, "no 'messages' list: not a DiscordChatExporter export", 1, FIX)
    channel = data.get("channel") if isinstance(data.get("channel"), dict) else {}
    out, bad, notices = [], [], 0
    for n, raw in enumerate(data["messages"], 1):
        if not isinstance(raw, dict):
            bad.append((n, f"message {n} is not an object"))
            continue
        if str(raw.get("type", "Default")) not in _WORDS:
            notices += 1
            continue
        try:
            when = ctx.aware(dt.datetime.fromisoformat(str(raw["timestamp"]).replace("Z", "+00:00")))
        except (KeyError, ValueError):
            bad.append((n, f"message {n} has no valid 'timestamp'"))
            continue
        author = raw.get("author") if isinstance(raw.get("author"), dict) else {}
        body = clean(str(raw.get("content") or ""))
        kind = placeholder_kind(body) if body else "media" if raw.get("attachments") or raw.get("stickers") \
            or raw.get("embeds") else None
        if not body and not kind:
            continue
        out.append(Message(when, name(author.get("nickname")) or name(author.get("name")) or "unknown", body, n,
                           kind, handle=name(author.get("name"))))
    ctype = str(channel.get("type") or "")
    title = name(channel.get("name")) or None
    group = None if ctype in ("DirectTextChat", "1") else (title or "channel")
    return Export(out, bad, group=group, chat=title, notices=notices)
