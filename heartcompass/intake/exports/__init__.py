"""Chat exports, one module per app. Each module's `messages(source, ctx,
report)` yields the export's messages in its order, one at a time, and
reports the lines it could not read (by number; skipped, never a reason to
refuse the whole file) and what the app itself knows (a group's name).
`parse` reads an export through once and keeps only counts: who wrote how
much, which days, what was skipped; the import then reads it again to write.
A line-based export is never held whole in memory.

Parsing is pure: nothing is written here. `detect` reads the format from the
content; `parse` dispatches by name, importing only the module it needs."""

from __future__ import annotations

import datetime as dt
import importlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterator

from heartcompass.errors import HeartCompassError
from heartcompass.intake.exports.common import Source  # noqa: F401 (part of the API)

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
    aka: str = ""  # another handle of the same sender (Discord's username beside its id)


@dataclass
class Report:
    """What a parser says besides the messages: lines it skipped, notices it left out, the chat's name."""
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line or message number, why); the first 1,000
    bad_count: int = 0
    notices: int = 0  # app and system lines left out (encryption notices, joins, renames)
    group: str | None = None  # the group chat's name; None for a one-to-one chat
    chat: str | None = None  # the chat's title, when the export names it

    def keeps(self, msg: "Message") -> bool:
        """False, and counted, for an app's notice (encryption, joins) read as a message."""
        from heartcompass.messages import app_notice

        if msg.text and app_notice(msg.text):
            self.notices += 1
            return False
        return True

    def skip(self, number: int, why: str) -> None:
        self.bad_count += 1
        if len(self.bad) < 1000:  # a wrong file could have a million: the count is enough past these
            self.bad.append((number, why))


@dataclass
class Sender:
    speaker: str
    handle: str
    mine: bool


@dataclass
class Export:
    """An export read once through: what it holds, counted (never the
    messages themselves); `messages()` reads them again, one at a time, so
    memory stays bounded whatever the export's size."""
    read: Callable[[], Iterator[Message]]
    report: Report
    senders: Counter = field(default_factory=Counter)  # (speaker, handle, mine) -> real messages
    placeholders: Counter = field(default_factory=Counter)
    days: set = field(default_factory=set)  # every day a message is on
    undated: int = 0
    total: int = 0  # messages, placeholders included
    placeholder_speakers: set = field(default_factory=set)  # who sent only stand-ins still counts as a speaker
    aka: dict = field(default_factory=dict)  # handle -> the sender's other handle (a Discord id -> username)

    def messages(self) -> Iterator[Message]:
        return self.read()

    def speakers(self) -> list[str]:
        seen: Counter = Counter()
        for (speaker, _, _), n in self.senders.items():
            seen[speaker] += n
        for speaker in self.placeholder_speakers:
            seen.setdefault(speaker, 0)
        return sorted(seen, key=lambda s: -seen[s])

    @property
    def bad(self) -> list[tuple[int, str]]:
        return self.report.bad

    @property
    def group(self) -> str | None:
        return self.report.group

    @property
    def chat(self) -> str | None:
        return self.report.chat

    @property
    def notices(self) -> int:
        return self.report.notices


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


def parse(fmt: str, source: Source, ctx: Context) -> Export:
    """Read the export through once, counting; nothing is kept but the counts."""
    if fmt not in FORMATS:
        raise HeartCompassError(f"Unknown format {fmt!r}.", "Use --format auto, " + ", ".join(FORMATS) + ".")
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt][0]}")
    report = Report()
    export = Export(lambda: module.messages(source, ctx, Report()), report)
    for msg in module.messages(source, ctx, report):
        export.total += 1
        export.days.add(msg.when.date())
        export.undated += msg.undated
        if msg.aka:
            export.aka[msg.handle] = msg.aka
        if msg.placeholder:
            export.placeholders[msg.placeholder] += 1
            export.placeholder_speakers.add(msg.speaker)
        else:
            export.senders[(msg.speaker, msg.handle, msg.mine)] += 1
    return export


def detect(source: Source) -> str:
    """The export's format from its first bytes (and, for a Markdown file, its name)."""
    from heartcompass.intake.exports import sniff

    return sniff.detect(source.head(), source.path.name)
