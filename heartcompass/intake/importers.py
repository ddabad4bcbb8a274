"""Real chat exports to log entries (the apps' formats are intake/exports/).

The export is read through once before anything is written (counting who
wrote what, on which days; a line that does not parse is reported by number
and skipped), then again to write, a batch of lines at a time: memory stays
bounded whatever the export's size. Each message becomes an
`import:<speaker>` entry on its original date (the user's own messages are
`import:me`). App placeholders ("<Media omitted>", "[图片]") are skipped and
counted, app notices left out. A re-import, or the same chat exported from
another phone, adds only what the logs do not hold yet: messages are
compared by minute, speaker and normalised text, counting repeats ("ok"
twice in a minute is two messages).

A group chat is split by member: each known member's own lines go to their
log, tagged with the group's name, with the lines just before them as
`context:<speaker>` entries (what they answered; readable by the gardener,
never their words, never their voice). Nobody who did not write in the group
gets any of it."""

from __future__ import annotations

import datetime as dt
import os
import re
import unicodedata
from collections import Counter, deque
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Iterator

from heartcompass.formats import dailylog
from heartcompass.formats.text import read_text
from heartcompass.intake import routing
from heartcompass.intake.exports import Context, Export, Message, Source, detect, parse  # noqa: F401 (the API)
from heartcompass.intake.exports.common import MAX_LINES_BYTES as MAX_EXPORT_BYTES  # noqa: F401 (any export's cap)
from heartcompass.wording import counted

CONTEXT_LINES = 2  # lines of a group shown before a member's message
FLUSH_LINES = 20_000  # lines held before they are written: memory bounded whatever the export's size


def open_export(path: Path) -> Source:
    """The export file, checked (a regular file, not too big); read later, line by line."""
    return Source(path)


@dataclass(slots=True)
class Line:
    """One entry for one person's log."""
    when: dt.datetime
    speaker: str  # import:<who>, import:me, context:<who>
    text: str
    tags: list[str] = field(default_factory=list)
    undated: bool = False  # its time is the import's: matched again by speaker and text alone

    @property
    def counted(self) -> bool:
        return self.speaker.startswith("import:")


class Router:
    """Where each message goes, decided per sender from the first read; the
    second read streams the messages through `lines()` to their people."""

    def __init__(self, export: Export, me: str | None, directory, now: dt.datetime,
                 person: str | None = None, group: bool = False, fallback: str = "group"):
        self.me, self.directory, self.now, self.person = me, directory, now, person
        group_name = export.group or export.chat or fallback  # fallback: the file's name
        self.group = group_name if group else None
        self.tag = [f"group {_safe_tag(group_name)}"] if group else []
        self.owner: dict[tuple[str, str, bool], str | None] = {}  # sender -> slug; None: the user or unknown
        self.unknown: Counter = Counter()  # (speaker, handle) -> their messages, in a group
        self.counted: Counter = Counter()  # slug -> messages routed to them (not context)
        # in a group, a name shared by two ids, or an alias taken by a stranger's id, files no one
        self.not_sure = routing.not_sure(
            [(s, h) for (s, h, mine) in export.senders if not self._user(s, h, mine)],
            directory, directory.person_for) if group else {}
        for (speaker, handle, mine), n in export.senders.items():
            user = self._user(speaker, handle, mine)
            slug = None if user else person if not group else directory.person_for(speaker, handle)
            if (speaker, handle) in self.not_sure and not user:
                slug = None
            if group and slug is not None and person is not None and slug != person:
                slug = None  # NAME given: only their part of the group
            elif group and slug is None and not user and (speaker, handle) not in self.not_sure:
                self.unknown[(speaker, handle)] += n
            self.owner[(speaker, handle, mine)] = slug
            if slug is not None:
                self.counted[slug] += n
            elif not group and user:
                self.counted[person] += n
        self.labels: dict[tuple[str, str, bool, str], str] = {}
        self.window: deque = deque(maxlen=CONTEXT_LINES)  # the group's last lines: (msg, slug), and who saw them

    @property
    def slugs(self) -> list[str]:
        return [slug for slug, n in self.counted.items() if n]

    def _label(self, msg: Message, kind: str = "import") -> str:
        """label(), once per sender: an export has a handful of senders and 100,000s of messages."""
        key = (msg.speaker, msg.handle, msg.mine, kind)
        got = self.labels.get(key)
        if got is None:
            got = self.labels[key] = label(msg, self.is_user(msg), kind)
        return got

    def expected(self, slug: str, export: Export) -> tuple[set[str], str]:
        """The `import:` speakers this import will write to a person's logs,
        and the day of the last (an export in day order: its senders' last days)."""
        speakers, last = set(), []
        for (speaker, handle, mine), day in export.last.items():
            if self.group is None:
                speakers.add(speaker_label(speaker, self._user(speaker, handle, mine)))
            elif self.owner.get((speaker, handle, mine)) == slug:
                speakers.add(speaker_label(speaker, False))
            else:
                continue
            last.append(day)
        return speakers, max(last).isoformat() if last else ""

    def is_user(self, msg: Message) -> bool:
        return self._user(msg.speaker, msg.handle, msg.mine)

    def _user(self, speaker: str, handle: str, mine: bool) -> bool:
        """The user: by the app's own mark, by --me, or by one of their own handles (a speaker may be an id)."""
        return mine or speaker == self.me or self.directory.is_user(handle, speaker)

    def lines(self, msg: Message) -> Iterator[tuple[str, Line]]:
        """(slug, line) for one message: its person's line, or in a group, its
        member's line after the lines just before it (as context)."""
        if msg.placeholder:
            return
        when = _when(msg, self.now)
        if self.group is None:
            assert self.person is not None  # a chat with one person is imported to them (import_cmd)
            yield self.person, Line(when, self._label(msg), msg.text, undated=msg.undated)
            return
        slug = self.owner.get((msg.speaker, msg.handle, msg.mine))
        if slug is not None:
            for other, seen in self.window:  # a member's own line is seen by them already: never their context
                if slug not in seen:
                    seen.add(slug)
                    yield slug, Line(_when(other, self.now), self._label(other, "context"), other.text, list(self.tag))
            yield slug, Line(when, label(msg, False), msg.text, list(self.tag))
        self.window.append((msg, {slug}))


def label(msg: Message, user: bool, kind: str = "import") -> str:
    """A message's speaker in a log. A contact called "me" is not the user."""
    return speaker_label(msg.speaker, user, kind)


def speaker_label(speaker: str, user: bool, kind: str = "import") -> str:
    if user:
        return f"{kind}:me"
    who = _safe_speaker(speaker)
    return f"{kind}:{'contact_' + who if who.casefold() == 'me' else who}"


def _when(msg: Message, now: dt.datetime) -> dt.datetime:
    # An undated transcript line goes after what today's log already holds, not at 00:00 before it.
    return dt.datetime.combine(msg.when.date(), now.time().replace(microsecond=0)) if msg.undated else msg.when


def _safe_tag(name: str) -> str:
    """A group's name inside a log tag: no brackets or commas, one line."""
    return re.sub(r"[\[\],·\s]+", " ", name).strip()[:60] or "group"


def _normal(text: str) -> str:
    """Text as compared across exports: iOS and Android differ in direction
    marks, narrow spaces and line breaks, not in what was said."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]", "", text)
    return " ".join(text.split())


def _key(time: str, speaker: str, text: str) -> tuple[str, str, str]:
    return time[:5], speaker.casefold(), _normal(text)  # minute resolution: Android exports drop seconds


def to_logs(person_dir: Path, lines: list[Line], durable: bool = True) -> dict[str, int]:
    """Append lines to the daily logs, skipping any already there. Returns
    how many messages (not context lines) were added per day.

    Day by day, one day's file in memory at a time; appended without a flush
    each, then made durable once (durable=False: the caller does): a crash
    leaves whole days appended, and a rerun adds only what is missing. (The
    caller has read every day file first: a bad one stops the import before
    any write.)"""
    by_day: dict[dt.date, list[Line]] = {}
    for line in lines:
        by_day.setdefault(line.when.date(), []).append(line)
    added: dict[str, int] = {}
    for day, todo in sorted(by_day.items()):
        new, _ = write_day(person_dir, day, todo)
        n = sum(1 for e in new if e.speaker.startswith("import:"))
        if n:
            added[day.isoformat()] = n
    if added and durable:
        os.sync()  # one flush for every day file, before the commit
    return added


def write_day(person_dir: Path, day: dt.date, lines: list[Line], text_after: bool = False
              ) -> tuple[list[dailylog.Entry], str]:
    """One day's lines appended to its log in one write, in time order,
    skipping those already there: (the entries appended, and with
    `text_after` the file's whole text after the append, else "").

    Duplicates are counted, not collapsed: a day file holding "ok" once at
    14:02 takes one more "ok" at 14:02 from an export that has two."""
    path = dailylog.log_path(person_dir, day)
    text = read_text(path) if path.exists() else ""
    there = dailylog.parse(text, path)
    have = Counter(_key(e.time, e.speaker, e.text) for e in there)
    said = Counter(_key("", e.speaker, e.text) for e in there)  # for undated lines: any time that day
    new = []
    for line in sorted(lines, key=attrgetter("when")):
        entry = dailylog.Entry(line.when.time().isoformat("seconds"), line.speaker, line.text, line.tags)
        if not there:  # a day the logs do not hold yet: nothing to compare with
            new.append(entry)
            continue
        key = _key("" if line.undated else entry.time, entry.speaker, entry.text)
        pool = said if line.undated else have
        if pool[key] > 0:
            pool[key] -= 1  # this occurrence is already in the log
        else:
            new.append(entry)
    if not new:
        return new, ""
    rendered = "".join(e.render() for e in new)
    dailylog.append_many(path, new, day, False, rendered)
    return new, (text or dailylog.header(day)) + rendered if text_after else ""


def import_and_commit(ws, export: Export, router: Router, fmt: str) -> tuple[dict[str, dict[str, int]], str | None]:
    """`heartcompass import`: pending hand edits first; then the messages
    the read kept (exports/spill), written to each person's logs a whole day
    at a time (an export in day order, nearly all) or a batch of lines at a
    time, their voice refreshed, one commit.
    Returns (slug -> messages added per day, the commit); nothing new: ({}, None)."""
    from heartcompass.memory import voice
    from heartcompass.store import audit
    from heartcompass.store.people import Person

    people = {slug: Person(slug, ws.people_dir / slug) for slug in router.slugs}
    with audit.write_transaction(ws, "import"):
        audit.commit_pending(ws, list(people.values()))
        for person in people.values():  # every day file read first: a bad one stops us before any write
            for day in export.days:
                path = dailylog.log_path(person.dir, day)
                if path.exists():
                    dailylog.load(path)
        names = {slug: person.load_profile().names() for slug, person in people.items()}
        feeds = {}
        if export.in_order:  # each person's voice tallied from their lines as they are written
            for slug, person in people.items():
                speakers, newest = router.expected(slug, export)
                feeds[slug] = voice.feed(person.dir, names[slug], voice.tally_path(ws, slug), speakers, newest)
        written = Written(people, feeds)
        if export.in_order:
            _by_days(export, router, written)
        else:
            _by_batches(export, router, written)
        # people in the order of their first line in the export, as the summary and the commit's body list them
        added = {slug: written.added[slug] for slug in written.seen if slug in written.added}
        paths = sorted(p for p in written.touched if p.exists())
        if added:
            os.sync()  # one flush for every day file, before the commit
        if not added:
            if paths:  # only context lines were new: still committed
                audit.commit_or_roll_back(ws, [], audit.subject(audit.Verb.IMPORT, next(iter(people)),
                                          "context lines from a group export"), keep=paths)
            return {}, None
        derived = []
        for slug in added:
            person, feed = people[slug], feeds.get(slug)
            tally = feed.finish(written.days.get(slug, set())) if feed is not None else None
            if voice.refresh(person.dir, names[slug], voice.tally_path(ws, slug), tally):
                derived.append(voice.path_of(person.dir))  # their lines and rhythm, in the same commit
        total = sum(sum(days.values()) for days in added.values())
        where = f" of {router.group}" if router.group else ""
        a = "an" if fmt[:1] in "aeiou" else "a"  # an imessage export
        what = f"{counted(total, 'message')} from {a} {fmt} export{where}"
        if len(added) == 1:
            scope = next(iter(added))
        else:  # several people from one group: one commit, each named in it
            scope, what = None, f"{what} ({', '.join(sorted(added))})"
        body = "\n".join(f"- {s} {day}: {n}" if len(added) > 1 else f"- {day}: {n}"
                         for s, days in added.items() for day, n in sorted(days.items()))
        return added, audit.commit_or_roll_back(ws, derived, audit.subject(audit.Verb.IMPORT, scope, what), body,
                                                keep=paths, what="the voice file")


class Written:
    """What the write did: messages added per person and day, the day files
    touched, the days each log grew by; each day written fed to its
    person's voice (a feed of None: their voice reads the logs afterwards)."""

    def __init__(self, people: dict, feeds: dict):
        self.people, self.feeds = people, feeds
        self.added: dict[str, dict[str, int]] = {}
        self.touched: set[Path] = set()
        self.days: dict[str, set[str]] = {}
        self.seen: dict[str, None] = {}  # each person, by their first line in the export

    def day(self, slug: str, day: dt.date, lines: list[Line]) -> None:
        person_dir, feed = self.people[slug].dir, self.feeds.get(slug)
        path = dailylog.log_path(person_dir, day)
        self.touched.add(path)
        new, text = write_day(person_dir, day, lines, text_after=feed is not None)
        if not new:
            return
        iso = day.isoformat()
        self.days.setdefault(slug, set()).add(iso)
        n = sum(1 for e in new if e.speaker.startswith("import:"))
        if n:
            per = self.added.setdefault(slug, {})
            per[iso] = per.get(iso, 0) + n
        if feed is not None:
            feed.day(path, iso, [_as_read(e) for e in new] if any("\r" in e.text for e in new) else new, text)


def _as_read(entry: dailylog.Entry) -> dailylog.Entry:
    """An entry as the log gives it back (render writes a carriage return as a line break)."""
    if "\r" not in entry.text:
        return entry
    return dailylog.Entry(entry.time, entry.speaker, entry.text.replace("\r\n", "\n").replace("\r", "\n"))


def _by_days(export: Export, router: Router, written: Written) -> None:
    """An export in day order: each day's lines held until no later message
    can add to it (nor a context line before one), then written whole. Past
    FLUSH_LINES held (a day of more messages than that), what is held is
    written as it is, as batches are, and the voice reads the logs after."""
    held: dict[dt.date, dict[str, list[Line]]] = {}
    current = None
    size = 0

    def write(days: list[dt.date]) -> None:
        nonlocal size
        for day in days:
            for slug, lines in held.pop(day).items():
                written.day(slug, day, lines)
                size -= len(lines)

    for msg in export.messages():
        for slug, line in router.lines(msg):
            held.setdefault(line.when.date(), {}).setdefault(slug, []).append(line)
            written.seen.setdefault(slug)
            size += 1
        if size >= FLUSH_LINES:
            written.feeds.clear()  # a day in parts: fed in parts it would not be what the logs give
            write(sorted(held))
        if msg.placeholder or msg.when.date() == current:
            continue
        current = msg.when.date()
        done = min([current, *(seen.when.date() for seen, _ in router.window)])  # context may still come from these
        write(sorted(d for d in held if d < done))
    write(sorted(held))


def _by_batches(export: Export, router: Router, written: Written) -> None:
    """An export out of day order: a bounded batch of lines at a time, each
    batch's days in order (a day may be written in more than one batch)."""
    held: dict[str, list[Line]] = {}
    size = 0

    def flush() -> None:
        for slug, lines in held.items():
            by_day: dict[dt.date, list[Line]] = {}
            for line in lines:
                by_day.setdefault(line.when.date(), []).append(line)
            for day, todo in sorted(by_day.items()):
                written.day(slug, day, todo)
        held.clear()

    for msg in export.messages():
        for slug, line in router.lines(msg):
            held.setdefault(slug, []).append(line)
            written.seen.setdefault(slug)
            size += 1
        if size >= FLUSH_LINES:
            flush()
            size = 0
    flush()


def _safe_speaker(name: str) -> str:
    """Speakers are one token in the log format: no spaces, dots or brackets."""
    return re.sub(r"[\s·\[\]:]+", "_", name.strip()) or "unknown"

