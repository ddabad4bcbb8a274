"""Chat exports, one module per app. Each module's `messages(source, ctx,
report)` yields the export's messages in its order, one at a time, and
reports the lines it could not read (by number; skipped, never a reason to
refuse the whole file) and what the app itself knows (a group's name).
`parse` reads an export through once: it counts (who wrote how much, which
days, what was skipped) and keeps the messages in a temporary file
(`spill`), from which the import writes them without parsing again. A
line-based export is never held whole in memory.

Parsing is pure: nothing is written here. `detect` reads the format from the
content; `parse` dispatches by name, importing only the module it needs."""

from __future__ import annotations

import importlib

from heartcompass.errors import FormatError, HeartCompassError
from heartcompass.intake.exports.common import Source  # noqa: F401 (part of the API)
from heartcompass.intake.exports.records import (  # noqa: F401 (part of the API)
    FIRST_YEAR, Context, Export, Message, Report, Reread, Sender)

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


def parse(fmt: str, source: Source, ctx: Context) -> Export:
    """Read the export through once, counting; the messages wait in a temporary file for the write."""
    if fmt not in FORMATS:
        raise HeartCompassError(f"Unknown format {fmt!r}.", "Use --format auto, " + ", ".join(FORMATS) + ".")
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt][0]}")
    try:
        return _read(module, source, ctx)
    except Reread:
        return _read(module, source, ctx)  # the parser knows now what it guessed: a second read, never a third
    except FormatError:
        if not source.memo.get("guessing"):
            raise
        return _read(module, source, ctx)  # refused while a parser guessed: read again knowing, refused if still so


def _read(module, source: Source, ctx: Context) -> Export:
    from heartcompass.intake.exports.spill import Spill

    report = Report()
    spill = Spill(ctx.spill_dir)
    export = Export(spill.messages, report)
    previous = None  # the last real message's day
    # per message, so kept in locals: the counts are written back to the export at the end
    add, days, senders, last = spill.add, export.days, export.senders, export.last
    first_year, last_year = FIRST_YEAR, ctx.today.year + 1
    total = undated = 0
    for msg in module.messages(source, ctx, report):
        add(msg)
        when = msg.when
        if not first_year <= when.year <= last_year:
            ctx.check_year(source.path, msg.line, when)  # every format: before anything is written (it raises)
        total += 1
        day = when.date()
        days.add(day)
        undated += msg.undated
        if msg.aka:
            export.aka[msg.handle] = msg.aka
        if msg.placeholder:
            export.placeholders[msg.placeholder] += 1
            export.placeholder_speakers.add(msg.speaker)
        else:
            sender = (msg.speaker, msg.handle, msg.mine)
            senders[sender] += 1
            last[sender] = day
            if previous is not None and day < previous:
                export.in_order = False
            previous = day
    export.total, export.undated = total, undated
    return export


def detect(source: Source) -> str:
    """The export's format from its first bytes (and, for a Markdown file, its name)."""
    from heartcompass.intake.exports import sniff

    return sniff.detect(source.head(), source.path.name)
