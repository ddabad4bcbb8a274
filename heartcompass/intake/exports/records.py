"""What a parser gives back: each `Message`, a `Report` of what it skipped,
and the `Export` counted once through; and the `Context` it reads in (the
user's today and zone, --chat). Apart from the package's face (which
dispatches to the parsers) so the parsers take them from here."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from heartcompass.errors import FormatError

FIRST_YEAR = 1970  # no chat app's message is older: 0001 or 99999 is a broken date, not history


class Reread(Exception):
    """A parser learnt at the end of its one read what it had to guess at
    the start (WhatsApp's day order), and guessed wrong: `parse` reads the
    export again, the parser now knowing (Source.memo)."""


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
    in_order: bool = True  # every real message's day on or after the one before: written a whole day at a time
    last: dict = field(default_factory=dict)  # (speaker, handle, mine) -> the day of their last real message

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
    spill_dir: Path | None = None  # where the read keeps the messages (the workspace's state: a disk, not a tmpfs)

    def check_year(self, path: Path | str, line: int, when: dt.datetime) -> None:
        """A year outside FIRST_YEAR to next year is a broken date: the import is refused at its line."""
        if not FIRST_YEAR <= when.year <= self.today.year + 1:
            raise FormatError(path, f"the year {when.year} is not a real date of a chat (expected {FIRST_YEAR} "
                              f"to {self.today.year + 1})", line,
                              "Fix or remove that line, then import again: nothing was imported.")

    def local(self, seconds: float) -> dt.datetime:
        """A Unix time as the user's wall-clock time, naive like every log time."""
        return dt.datetime.fromtimestamp(seconds, self.tz).replace(tzinfo=None)  # tz None: this machine's zone

    def aware(self, when: dt.datetime) -> dt.datetime:
        """An aware time (an ISO stamp with an offset) on the user's clock; a naive one is left as it is."""
        if when.tzinfo is None:
            return when
        return when.astimezone(self.tz).replace(tzinfo=None)
