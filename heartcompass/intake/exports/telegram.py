"""Telegram Desktop's "Machine-readable JSON": one chat's result.json, or a
whole account's (`chats.list`), from which `--chat NAME` picks one. Times
come from `date_unixtime` when present (in the user's zone), else `date`.
Service messages (calls, pins, joins) are left out."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Iterator

from heartcompass.errors import FormatError, HeartCompassError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import clean, name
from heartcompass.messages import placeholder_kind

FIX = "Export from Telegram Desktop (Settings > Advanced > Export Telegram data) as 'Machine-readable JSON'."
GROUP_TYPES = ("private_group", "private_supergroup", "public_supergroup", "public_group", "private_channel",
               "public_channel")


def text_of(value) -> str:
    """Telegram's `text`: a string, or a list of strings and entity objects
    ({"type": "link", "text": ...}); anything else (null parts) carries no text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return text_of(value.get("text"))
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else text_of(part) if isinstance(part, dict) else ""
                       for part in value)
    return ""


def chats_of(data: dict) -> list[dict]:
    listed = data.get("chats", {}).get("list") if isinstance(data.get("chats"), dict) else None
    return [c for c in listed or [] if isinstance(c, dict) and isinstance(c.get("messages"), list)]


def chat_title(chat: dict) -> str:
    return name(chat.get("name")) or f"#{chat.get('id', '?')}"


def _pick(data, path: Path, ctx: Context) -> dict:
    if not isinstance(data, dict):
        raise FormatError(path, "not a Telegram export (no 'messages' list)", 1, FIX)
    chats = chats_of(data)
    if isinstance(data.get("messages"), list) and not chats:
        return data
    if not chats:
        raise FormatError(path, "no 'messages' list: not a Telegram chat export", 1, FIX)
    titles = [chat_title(c) for c in chats]
    if not ctx.chat:
        raise HeartCompassError(f"{path} is a whole-account Telegram export with {len(chats)} chats; "
                                "say which one with --chat NAME.", "Chats: " + ", ".join(titles))
    wanted = [c for c, t in zip(chats, titles) if t.casefold() == ctx.chat.casefold() or str(c.get("id")) == ctx.chat]
    if len(wanted) != 1:
        raise HeartCompassError(f"--chat {ctx.chat!r} is {'not one of' if not wanted else 'more than one of'} "
                                f"the {len(chats)} chats in {path}.", "Chats: " + ", ".join(titles))
    return wanted[0]


def _when(msg: dict, ctx: Context) -> dt.datetime | None:
    unix = msg.get("date_unixtime")
    try:
        if unix not in (None, ""):
            return ctx.local(int(unix))
        return ctx.aware(dt.datetime.fromisoformat(str(msg["date"])))
    except (KeyError, ValueError, OverflowError, OSError, TypeError):
        return None


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    chat = _pick(source.json("Telegram", FIX), source.path, ctx)
    report.group = chat_title(chat) if chat.get("type") in GROUP_TYPES else None
    report.chat = name(chat.get("name")) or None
    for n, msg in enumerate(chat["messages"], 1):
        if not isinstance(msg, dict) or msg.get("type") != "message":
            report.notices += 1
            continue
        when = _when(msg, ctx)
        if when is None:
            report.skip(n, f"message {n} has no valid 'date' or 'date_unixtime'")
            continue
        body = clean(text_of(msg.get("text")))
        kind = placeholder_kind(body) if body else "media" if msg.get("media_type") or msg.get("photo") or \
            msg.get("file") or msg.get("sticker_emoji") else None  # a photo or sticker without a caption
        if body or kind:
            handle = str(msg.get("from_id") or "")
            yield Message(when, name(text_of(msg.get("from"))) or "unknown", body, n, kind,
                          handle=handle[4:] if handle.startswith("user") and handle[4:].isdigit() else handle)
