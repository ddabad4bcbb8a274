"""How strong each link is, from the logs: between the user and a person,
and between two people linked in `related`.

Evidence is what really passed between them, day by day: a person's real
messages and the user's notes (import:*, note; a simulated chat with the
persona is practice, not the relationship). For a link between two people,
the entries of the first's logs that name the second. Each day of evidence
raises the strength (new = old × 0.7 + evidence × 0.3, a day of FULL
entries being full evidence), and it fades between days and since the last
with `relations.half_life_days`. Each entry's kind (warm, conflict, work)
is read from its words; a kind not seen for KIND_DAYS days is history.

The day counts are kept in .heartcompass/strength.json, each day's by its
log's stat (stat_cache's rule) and the names it was counted for, so only a
changed or new log is read again; a person whose logs all are as they were
is folded from their short summary (memory/strength_summary), without
reading this file at all. Reads files only: no model, no git."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from heartcompass import names as names_mod
from heartcompass.errors import FormatError
from heartcompass.formats import dailylog
from heartcompass.memory.strength_summary import SUMMARY, Summaries
from heartcompass.stat_cache import settled, stat_key
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

FULL = 10           # entries in a day that are a full day of evidence
KEEP, NEW = 0.7, 0.3
KIND_DAYS = 90      # a kind of interaction not seen for this long is history
COOLING_FROM = 0.2  # a link weaker than this at its peak never "cools": it was never warm
CACHE = "strength.json"
FORMAT = 2  # bump when what an entry holds changes
_LOG_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
KIND_WORDS = {
    "conflict": r"angry|upset|fight|fought|argu\w*|sorry|apolog\w*|hate|annoy\w*|furious|yell\w*|blame\w*|"
                r"生气|吵架|吵|烦|对不起|道歉|讨厌|分手|冷战|失望",
    "work": r"meeting|project|deadline|office|client|boss|colleague|report|work|job|"
            r"开会|会议|项目|工作|加班|客户|老板|同事|汇报|上班",
    "warm": r"love|miss|thank\w*|haha\w*|hug\w*|glad|happy|proud|lol|❤️?|😊|🥰|"
            r"想你|爱你|谢谢|哈哈|开心|抱抱|喜欢|辛苦了",
}
_KIND = {kind: re.compile(rf"(?<![a-z])(?:{words})", re.I) for kind, words in KIND_WORDS.items()}


def kinds_of(text: str) -> list[str]:
    return [kind for kind, pattern in _KIND.items() if pattern.search(text)]


def counts(entries: list[dailylog.Entry], names: list[str] | None = None) -> list[Any]:
    """[entries, {kind: entries}, the last one's text] of a day's real entries
    (only those naming one of `names`, when given)."""
    cands = [names_mod.Candidate("x", names)] if names else None
    n, last = 0, ""
    kinds: dict[str, int] = {}
    for e in dailylog.effective_entries(entries):
        if not (e.speaker == "note" or e.speaker.startswith("import:")):
            continue
        if cands is not None and not names_mod.named_in(e.text, cands):
            continue
        n += 1
        for kind in kinds_of(e.text):
            kinds[kind] = kinds.get(kind, 0) + 1
        last = " ".join(e.text.split())[:160]
    return [n, kinds, last]


@dataclass
class Strength:
    strength: float = 0.0
    peak: float = 0.0                                  # the highest it has been
    kind: str = ""                                     # the most seen kind in the last KIND_DAYS days
    kinds: dict[str, str] = field(default_factory=dict)  # kind -> the last day it was seen
    last_evidence: dict[str, str] | None = None         # {"day", "text"}
    days: list[str] = field(default_factory=list)      # the days of evidence, oldest first

    def as_json(self) -> dict[str, Any]:
        return {"strength": round(self.strength, 3), "peak": round(self.peak, 3), "kind": self.kind,
                "kinds": self.kinds, "last_evidence": self.last_evidence}

    @property
    def cooling(self) -> bool:
        return self.peak >= COOLING_FROM and self.strength <= self.peak / 2


def fold(days: dict[str, list[Any]], today: dt.date, half_life: float) -> Strength:
    """The strength today from each day's [entries, kinds, last text]."""
    until = today.isoformat()
    kept = sorted(d for d, c in days.items() if c[0] and d <= until)
    return fold_rows([(d, days[d][0], days[d][1]) for d in kept], days[kept[-1]][2] if kept else "", today,
                     half_life)


def fold_rows(rows: list[Any], last: str, today: dt.date, half_life: float) -> Strength:
    """fold, from (day, entries, kinds) of the days with evidence up to today, oldest
    first, and the last one's text (as a summary keeps them)."""
    out, s, prev = Strength(), 0.0, None
    recent: dict[str, int] = {}
    now = today.toordinal()
    out.days = [day for day, _, _ in rows]
    for day, n, kinds in rows:
        date = _ordinal(day)  # a map of ten thousand people folds seventy thousand days
        if prev is not None:
            s *= 0.5 ** ((date - prev) / half_life)
        s = s * KEEP + min(1.0, n / FULL) * NEW
        out.peak, prev = max(out.peak, s), date
        for kind, k in kinds.items():
            out.kinds[kind] = day
            if now - date <= KIND_DAYS:
                recent[kind] = recent.get(kind, 0) + k
    if prev is not None:
        out.strength = s * 0.5 ** ((now - prev) / half_life)
        out.last_evidence = {"day": out.days[-1], "text": last}
    out.kind = max(sorted(recent), key=lambda k: recent[k]) if recent else ""
    return out


def _sig(target: str, names: list[str] | None) -> str:
    """The target and a checksum of the names it was counted for: short, as it is kept per day."""
    return f"{target}:{zlib.crc32(chr(31).join(names or []).encode()):08x}" if names else target


@lru_cache(maxsize=65536)
def _ordinal(day: str) -> int:
    return dt.date.fromisoformat(day).toordinal()


class Strengths:
    """The day counts of a workspace's logs, read once per changed log."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.path: Path = ws.state_dir / CACHE
        self.half_life = float(ws.config.get("relations.half_life_days"))
        self._people: dict[str, dict[str, Any]] | None = None
        self._listed: dict[str, list[tuple[str, str, list[int]]]] = {}
        self._folders: dict[str, list[int] | None] = {}
        self._paths: dict[str, str] = {}
        self.summaries = Summaries(ws.state_dir / SUMMARY)
        self.dirty = False

    @property
    def people(self) -> dict[str, dict[str, Any]]:
        """Each log's counts, read only when a summary cannot say (it is the big file)."""
        if self._people is None:
            self._people = {}
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if data.get("format") == FORMAT and isinstance(data.get("people"), dict):
                    self._people = data["people"]
            except (OSError, ValueError, AttributeError):  # missing or broken: counted again
                pass
        return self._people

    def save(self) -> None:
        self.summaries.save()
        if not self.dirty:
            return
        from heartcompass.atomic import write_atomic

        try:
            self.path.parent.mkdir(exist_ok=True)
            write_atomic(self.path, json.dumps({"format": FORMAT, "people": self.people}, ensure_ascii=False),
                         durable=False)
            self.dirty = False
        except OSError:  # a read-only workspace still draws its map, only slower
            pass

    def _logs(self, person: Person) -> list[tuple[str, str, list[int]]]:
        """(day, path, stat key) of each of the person's logs, listed once per Strengths."""
        found = self._listed.get(person.slug)
        if found is None:
            found = []
            # the folder's stat before its listing: a log added after it changes the folder since
            self._folders[person.slug] = stat_key(self._folder(person))
            try:
                with os.scandir(self._folder(person)) as it:
                    for entry in it:
                        if _LOG_NAME.fullmatch(entry.name):
                            st = entry.stat()
                            found.append((entry.name[:-3], entry.path,
                                          [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]))
            except OSError:  # no logs folder (or not one): no evidence
                pass
            found.sort()
            self._listed[person.slug] = found
        return found

    def days(self, person: Person, target: str, names: list[str] | None) -> dict[str, list[Any]]:
        """{day: counts} of the person's logs (about `target`, by `names`).
        The cache holds, per log, its stat key and its counts for each target
        (by the names they were counted for): a changed log is read once for all."""
        mine = self.people.setdefault(person.slug, {})
        sig = _sig(target, names)
        out: dict[str, list[Any]] = {}
        logs = self._logs(person)
        for day, path, key in logs:
            hit = mine.get(day)
            if hit is not None and hit[0] == key and sig in hit[1]:
                out[day] = hit[1][sig]
                continue
            try:
                value = counts(dailylog.load(Path(path)), names)
            except FormatError:  # doctor names a broken log; as evidence it is none, until it changes
                value = [0, {}, ""]
            except OSError:
                continue
            out[day] = value
            if settled([key]):
                if hit is None or hit[0] != key:
                    hit = mine[day] = [key, {}]
                hit[1][sig] = value
                self.dirty = True
        if len(mine) > len(logs):
            for day in set(mine) - {d for d, _, _ in logs}:
                del mine[day]
                self.dirty = True
        return out

    def with_user(self, person: Person, today: dt.date) -> Strength:
        return self._fold(person, "", None, today)

    def between(self, person: Person, other: str, other_names: list[str], today: dt.date) -> Strength:
        """The link from person to other, from person's logs naming them."""
        return self._fold(person, other, other_names, today)

    def _fold(self, person: Person, target: str, names: list[str] | None, today: dt.date) -> Strength:
        """From the person's summary when their logs are as it was made from, else from every log."""
        sig, folder = _sig(target, names), self._folder(person)
        found = self.summaries.rows(person.slug, folder, sig, today.isoformat())
        if found is not None:
            return fold_rows(*found, today, self.half_life)
        days = self.days(person, target, names)
        self.summaries.record(person.slug, self._folders.get(person.slug),
                              [(day, key) for day, _, key in self._logs(person)], sig, days)
        return fold(days, today, self.half_life)

    def _folder(self, person: Person) -> str:
        found = self._paths.get(person.slug)
        if found is None:
            found = self._paths[person.slug] = os.path.join(person.dir, "logs")
        return found

    def forget_all_but(self, slugs: set[str]) -> None:
        self.summaries.forget_all_but(slugs)
        for slug in [s for s in self._people or {} if s not in slugs]:
            del self.people[slug]
            self.dirty = True
