"""Real chat exports to log entries (the apps' formats are intake/exports/).

Parsing is complete before anything is written; a line that does not parse
is reported by number and skipped. Each message becomes an
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog
from heartcompass.intake.exports import Context, Export, Message, detect, parse  # noqa: F401 (the API)
from heartcompass.wording import counted

# Years of daily chat are tens of MiB; more is the wrong file, and parsing it would hold GiBs.
MAX_EXPORT_BYTES = 100 << 20
CONTEXT_LINES = 2  # lines of a group shown before a member's message


def read_export(path: Path) -> str:
    """The export's text: a regular file, bounded in size, UTF-8."""
    from heartcompass.intake.limits import read_limited

    raw = read_limited(path, MAX_EXPORT_BYTES, "chat export")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text (byte {exc.start})", raw[:exc.start].count(b"\n") + 1,
                          "Export the chat again (the apps write UTF-8), or convert it with 'iconv -t UTF-8'.") from None


@dataclass(slots=True)
class Line:
    """One entry for one person's log."""
    when: dt.datetime
    speaker: str  # import:<who>, import:me, context:<who>
    text: str
    tags: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        return self.speaker.startswith("import:")


@dataclass
class Plan:
    """Where each message goes: slug -> its lines, and who could not be placed."""
    lines: dict[str, list[Line]] = field(default_factory=dict)
    unknown: Counter = field(default_factory=Counter)  # (speaker, handle) -> their messages
    group: str | None = None


def speakers(messages: list[Message]) -> list[str]:
    seen = Counter(m.speaker for m in messages)
    return sorted(seen, key=lambda s: -seen[s])


def skipped(messages: list[Message]) -> Counter:
    """How many app placeholders of each kind the export held."""
    return Counter(m.placeholder for m in messages if m.placeholder)


def label(msg: Message, user: bool, kind: str = "import") -> str:
    """A message's speaker in a log. A contact called "me" is not the user."""
    if user:
        return f"{kind}:me"
    who = _safe_speaker(msg.speaker)
    return f"{kind}:{'contact_' + who if who.casefold() == 'me' else who}"


def is_user(msg: Message, me: str | None, directory) -> bool:
    return msg.mine or (me is not None and msg.speaker == me) or directory.is_user(msg.handle, msg.speaker)


def route_one(export: Export, slug: str, me: str | None, directory, now: dt.datetime) -> Plan:
    """A one-to-one chat: every message to this person's log."""
    out = [Line(_when(m, now), label(m, is_user(m, me, directory)), m.text) for m in export.messages
           if not m.placeholder]
    return Plan({slug: out})


def route_group(export: Export, me: str | None, directory, now: dt.datetime, only: str | None = None) -> Plan:
    """A group chat: each known member's lines (and the lines just before
    them, as context) to their own log; unknown members counted."""
    group = _safe_tag(export.group or export.chat or "group")
    plan = Plan(group=export.group or export.chat or "group")
    real = [m for m in export.messages if not m.placeholder]
    owner = [None if is_user(m, me, directory) else directory.person_for(m.speaker, m.handle) for m in real]
    given: dict[str, int] = {}  # slug -> index past the last line already given to them
    for i, (msg, slug) in enumerate(zip(real, owner)):
        if slug is None:
            if not is_user(msg, me, directory):
                plan.unknown[(msg.speaker, msg.handle)] += 1
            continue
        if only is not None and slug != only:
            continue
        lines = plan.lines.setdefault(slug, [])
        for j in range(max(given.get(slug, 0), i - CONTEXT_LINES), i):
            if owner[j] != slug:
                other = real[j]
                lines.append(Line(_when(other, now), label(other, is_user(other, me, directory), "context"),
                                  other.text, [f"group {group}"]))
        lines.append(Line(_when(msg, now), label(msg, False), msg.text, [f"group {group}"]))
        given[slug] = i + 1
    return plan


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


def to_logs(person_dir: Path, lines: list[Line]) -> dict[str, int]:
    """Append lines to the daily logs, skipping any already there. Returns
    how many messages (not context lines) were added per day.

    Duplicates are counted, not collapsed: a day file holding "ok" once at
    14:02 takes one more "ok" at 14:02 from an export that has two. Day by
    day, one day's file in memory at a time; appended without a flush each,
    then synced once: a crash leaves whole days appended, and a rerun adds
    only what is missing."""
    by_day: dict[dt.date, list[Line]] = {}
    for line in sorted(lines, key=lambda l: l.when):
        by_day.setdefault(line.when.date(), []).append(line)
    for day in by_day:  # every day file read first: a bad one stops us before any write
        path = dailylog.log_path(person_dir, day)
        if path.exists():
            dailylog.load(path)
    added: dict[str, int] = {}
    for day, todo in sorted(by_day.items()):
        path = dailylog.log_path(person_dir, day)
        have = Counter(_key(e.time, e.speaker, e.text) for e in (dailylog.load(path) if path.exists() else []))
        new = []
        for line in todo:
            entry = dailylog.Entry(line.when.strftime("%H:%M:%S"), line.speaker, line.text, list(line.tags))
            key = _key(entry.time, entry.speaker, entry.text)
            if have[key] > 0:
                have[key] -= 1  # this occurrence is already in the log
            else:
                new.append(entry)
        if new:
            dailylog.append_many(path, new, day, durable=False)
            if any(e.speaker.startswith("import:") for e in new):
                added[day.isoformat()] = sum(1 for e in new if e.speaker.startswith("import:"))
    if added:
        os.sync()  # one flush for every day file, before the commit
    return added


def import_and_commit(ws, plan: Plan, fmt: str) -> tuple[dict[str, dict[str, int]], str | None]:
    """`heartcompass import`: pending hand edits first, then the lines into
    each person's logs and their voice refreshed, one commit. Returns
    (slug -> messages added per day, the commit); nothing new: ({}, None)."""
    from heartcompass.memory import voice
    from heartcompass.store import audit
    from heartcompass.store.people import Person

    people = [Person(slug, ws.people_dir / slug) for slug in plan.lines]
    with audit.writing(ws, "import"):
        audit.commit_pending(ws, people)
        added: dict[str, dict[str, int]] = {}
        paths: list[Path] = []
        for person in people:
            days = to_logs(person.dir, plan.lines[person.slug])
            touched = sorted({line.when.date().isoformat() for line in plan.lines[person.slug]})
            paths += [p for p in (person.logs_dir / f"{d}.md" for d in touched) if p.exists()]
            if days:
                added[person.slug] = days
        if not added:
            if paths:  # only context lines were new: still committed, with nothing to say about them
                audit.commit_or_roll_back(ws, [], audit.subject(audit.Verb.IMPORT, people[0].slug,
                                          "context lines from a group export"), keep=paths)
            return {}, None
        derived = []
        for person in people:
            if person.slug in added and voice.refresh(person.dir, person.load_profile().names()):
                derived.append(voice.path_of(person.dir))  # their lines and rhythm, in the same commit
        total = sum(sum(days.values()) for days in added.values())
        where = f" of {plan.group}" if plan.group else ""
        what = f"{counted(total, 'message')} from a {fmt} export{where}"
        if len(added) == 1:
            scope = next(iter(added))
        else:  # several people from one group: one commit, each named in it
            scope, what = None, f"{what} ({', '.join(sorted(added))})"
        body = "\n".join(f"- {s} {day}: {n}" if len(added) > 1 else f"- {day}: {n}"
                         for s, days in added.items() for day, n in sorted(days.items()))
        return added, audit.commit_or_roll_back(ws, derived, audit.subject(audit.Verb.IMPORT, scope, what), body,
                                                keep=paths, what="the voice file")


def _safe_speaker(name: str) -> str:
    """Speakers are one token in the log format: no spaces, dots or brackets."""
    return re.sub(r"[\s·\[\]:]+", "_", name.strip()) or "unknown"

