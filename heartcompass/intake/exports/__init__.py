"""Chat exports, one module per app. Each `parse(text, path, ctx)` returns an
`Export`: its messages in the export's order, the lines it could not read
(reported by number and skipped, never a reason to refuse the whole file),
and what the app itself knows (a group's name, the user's own messages).

Parsing is pure: nothing is written here. `detect` reads the format from the
content; `parse` dispatches by name, importing only the module it needs."""

from __future__ import annotations

import datetime as dt
import importlib
from dataclasses import dataclass, field
from pathlib import Path

from heartcompass.errors import HeartCompassError

# name -> (module, what the user exports it as); the order is --format's help order.
FORMATS = {
    "whatsapp": ("whatsapp", "WhatsApp .txt"),
    "telegram": ("telegram", "Telegram Desktop result.json"),
    "wechat": ("wechat", "WeChat: MemoTrace CSV or TXT, PyWxDump CSV"),
    "chatlab": ("chatlab", "ChatLab JSON or JSONL (EchoTrace, imessage-exporter...)"),
    "qq": ("qq", "QQ message manager .txt"),
    "line": ("line", "LINE .txt"),
    "signal": ("signal", "signal-export chat.md"),
    "discord": ("discord", "DiscordChatExporter JSON"),
    "imessage": ("imessage", "imessage-exporter .txt"),
    "messenger": ("messenger", "Messenger or Instagram message_1.json"),
    "plain": ("plain", "a 'Name: text' transcript"),
}


@dataclass(slots=True)
class Message:
    when: dt.datetime
    speaker: str
    text: str
    line: int
    placeholder: str | None = None  # "media", "deleted", "call": an app's stand-in, not a message
    undated: bool = False  # a plain transcript line before any [date] stamp: filed after today's entries
    handle: str = ""  # the app's id for the sender (wxid, QQ number, user id), when it writes one
    mine: bool = False  # the app itself says the user sent it (WeChat's IsSender, iMessage's "Me")


@dataclass
class Export:
    messages: list[Message]
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line or message number, why) skipped
    group: str | None = None  # the group chat's name; None for a one-to-one chat
    chat: str | None = None  # the chat's title, when the export names it
    notices: int = 0  # app and system lines left out (encryption notices, joins, renames)


@dataclass
class Context:
    today: dt.date
    tz: dt.tzinfo | None = None  # the user's zone (clock.now's): Unix times become the user's wall clock
    chat: str | None = None  # --chat NAME: one chat of a whole-account export
    person: str | None = None  # whose chat it is, for formats whose rows do not name the other side

    def local(self, seconds: float) -> dt.datetime:
        """A Unix time as the user's wall-clock time, naive like every log time."""
        return dt.datetime.fromtimestamp(seconds, self.tz).replace(tzinfo=None)  # tz None: this machine's zone

    def aware(self, when: dt.datetime) -> dt.datetime:
        """An aware time (an ISO stamp with an offset) on the user's clock; a naive one is left as it is."""
        if when.tzinfo is None:
            return when
        return when.astimezone(self.tz).replace(tzinfo=None)


def parse(fmt: str, text: str, path: Path | str, ctx: Context) -> Export:
    if fmt not in FORMATS:
        raise HeartCompassError(f"Unknown format {fmt!r}.", "Use --format auto, " + ", ".join(FORMATS) + ".")
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt][0]}")
    return module.parse(text, path, ctx)


def detect(text: str, name: str = "") -> str:
    """The export's format from its first bytes (and, for a Markdown file, its name)."""
    from heartcompass.intake.exports import sniff

    return sniff.detect(text, name)
