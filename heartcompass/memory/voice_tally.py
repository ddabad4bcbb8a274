"""What VOICE.md is chosen from, read out of the logs and kept between
imports: their candidate lines and mine (scored later by `voice.choose`),
who "they" are, and their replies in runs (the rhythm).

A rebuild reads every log, oldest day first. After an import only what is
new is read: the logs are append-only, so a day file that grew is read from
where the last reading stopped (its earlier text checked unchanged by a
digest), an untouched one is not opened at all, and anything else (a log
shrunk or rewritten by undo, restore or a sync merge, new names or private
words, someone new speaking who changes who "they" are, a lost or damaged
tally) falls back to the rebuild. Adding a day's new lines after the others
gives what reading them in day order gives: a candidate's count adds up, its
newest wording (by day, then place in the file) wins, and each day keeps its
own runs, the newest MAX_RUNS taken across days. The one difference from a
rebuild: past POOL_LIMIT different lines a pool keeps its best-scored half,
and what was dropped then is not counted again later (both ways keep the
best-scored lines of what they read)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog, read_text
from heartcompass.language import CJK
from heartcompass.messages import placeholder_kind

VERSION = 1
POOL_LIMIT = 20_000  # candidate lines held per side while reading the logs
MAX_RUNS = 20_000  # the newest replies the rhythm is learnt from
TRIM_EVERY = 64  # days fed to a tally between trims of its runs: memory flat in the size of an import
BURST_GAP = 10 * 60  # seconds: their messages closer than this, uninterrupted, are one reply
HALF_LIFE_DAYS = 180
MAX_WORDS, MAX_CHARS = 25, 120
_SPEAKER = re.compile(r"^- \d\d:\d\d:\d\d · ([^\s·\[\]]+)", re.M)
# Runs, not characters: findall makes a string per match, and a run's length counts its characters.
_CJK_RUN = re.compile(f"[{CJK}]+")
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_SPACE = re.compile(r"\s")
_WORD_RUN = re.compile(r"[^\W_]+")  # what key_of keeps: every character but [\W_]
# A link (http://, https://, www.), an address or a phone number: one search each, the address's only where
# an "@" is (a search of them joined tries every alternative at every place, and \S+@ backtracks over every
# word: a third of a tally).
_MAIL = re.compile(r"\S+@\S+\.\w+")
_NUMBER = re.compile(r"\d[\d\s-]{5,}\d")
Measure = tuple[bool, int, int]  # a message of theirs: (written in CJK?, characters without spaces, words)


@dataclass
class Candidate:
    text: str
    day: str
    count: int = 1


def is_cjk(text: str) -> bool:
    if text.isascii():
        return False
    cjk = sum(map(len, _CJK_RUN.findall(text)))  # counted by the regex engine: once per imported message
    if cjk * 2 >= len(text):
        return cjk > 0  # no text has more letters than characters: the letters need no counting
    return cjk > 0 and cjk * 2 >= sum(map(len, _LETTER_RUN.findall(text)))


def length_of(text: str, cjk: bool) -> int:
    """Characters (without spaces) for Chinese/Japanese/Korean writers, words otherwise."""
    return len(_SPACE.sub("", text)) if cjk else len(text.split())


def measure(text: str) -> Measure:
    words = text.split()  # at the same whitespace as \s: their lengths are the characters without spaces
    return is_cjk(text), sum(map(len, words)), len(words)


def key_of(text: str) -> str:
    return "".join(_WORD_RUN.findall(text.casefold())) or text  # the text without [\W_]


def usable(text: str, private: list[str], cjk: bool | None = None) -> bool:
    """A short single line without private data (the caller has left placeholders out; `cjk`: is_cjk(text),
    when known)."""
    text = text.strip()
    if not text or len(text) > MAX_CHARS or "\n" in text or '"' in text:
        return False
    chars = len(text) - text.count(" ")  # never fewer than its words: each word has a character
    if chars > MAX_WORDS and length_of(text, is_cjk(text) if cjk is None else cjk) > MAX_WORDS:
        return False
    if "http://" in text or "https://" in text or "www." in text or ("@" in text and _MAIL.search(text)) \
            or _NUMBER.search(text):
        return False
    if private:
        low = text.casefold()
        return not any(word.casefold() in low for word in private)
    return True


def score(c: Candidate, newest: dt.date) -> float:
    age = (newest - dt.date.fromisoformat(c.day)).days
    return 0.5 ** (age / HALF_LIFE_DAYS) + 0.15 * math.log2(1 + c.count)


def _by_score(newest: str):
    """A sort key of (key, candidate) rows, best score first: score()'s very sum, each day's recency worked out
    once (a pool of 20,000 lines holds a few hundred days)."""
    day = dt.date.fromisoformat(newest)
    recency: dict[str, float] = {}

    def key(row: tuple[str, Candidate]) -> float:
        c = row[1]
        near = recency.get(c.day)
        if near is None:
            near = recency[c.day] = 0.5 ** ((day - dt.date.fromisoformat(c.day)).days / HALF_LIFE_DAYS)
        return -(near + 0.15 * math.log2(1 + c.count))
    return key


@dataclass
class DayRuns:
    """One day's replies of theirs: the closed runs, the one still open at
    the end of what was read (the next lines may continue it), its last time."""
    closed: list[list[Measure]] = field(default_factory=list)
    open: list[Measure] = field(default_factory=list)
    last: str | None = None

    def all(self) -> list[list[Measure]]:
        return [*self.closed, self.open] if self.open else list(self.closed)


@dataclass
class Tally:
    names: list[str]
    private: list[str]
    them: set[str] = field(default_factory=set)
    speakers: set[str] = field(default_factory=set)
    theirs: dict[str, Candidate] = field(default_factory=dict)
    mine: dict[str, Candidate] = field(default_factory=dict)
    runs: dict[str, DayRuns | None] = field(default_factory=dict)  # None: older than the newest MAX_RUNS runs
    files: dict[str, list] = field(default_factory=dict)  # day -> [bytes, mtime_ns, characters read, digest]

    # -- reading a day's entries, whole or only its new ones -------------------------
    def add(self, day: str, entries: list[dailylog.Entry]) -> None:
        state = self.runs.setdefault(day, DayRuns())
        them, private = self.them, self.private
        last = None if state is None or state.last is None else _seconds(state.last)
        for e in entries:
            text = e.text
            if placeholder_kind(text):
                continue  # "<Media omitted>": nobody wrote that
            speaker = e.speaker
            cjk: bool | None = None
            if speaker in them:
                if state is not None:
                    when = _seconds(e.time)
                    if state.open and last is not None and when - last > BURST_GAP:
                        state.closed.append(state.open)
                        state.open = []
                    state.open.append(m := measure(text))
                    state.last, last = e.time, when
                    cjk = m[0]
                pool = self.theirs
            else:
                if state is not None and state.open and speaker != "note":
                    state.closed.append(state.open)
                    state.open = []
                if speaker != "import:me":
                    continue
                pool = self.mine
            if usable(text, private, cjk):
                text = text.strip()
                key = key_of(text)
                c = pool.get(key)
                if c is None:
                    pool[key] = Candidate(text, day)
                else:
                    c.count += 1
                    if day >= c.day:  # the newest wording wins: a later day, or later in the same day's file
                        c.text, c.day = text, day

    def bound(self, newest: str) -> None:
        """Keep memory bounded: a pool past its limit keeps its best half; runs older than the newest MAX_RUNS go."""
        for pool in (self.theirs, self.mine):
            if len(pool) > POOL_LIMIT:
                kept = sorted(pool.items(), key=_by_score(newest))[:POOL_LIMIT // 2]
                pool.clear()
                pool.update(kept)

    def trim_runs(self) -> None:
        total = 0
        for day in sorted(self.runs, reverse=True):
            state = self.runs[day]
            if total >= MAX_RUNS:
                self.runs[day] = None
            elif state is not None:
                total += len(state.closed) + bool(state.open)

    def replies(self) -> list[list[Measure]]:
        """The newest MAX_RUNS runs, oldest first."""
        out: list[list[Measure]] = []
        for day in sorted(self.runs):
            state = self.runs[day]
            if state is not None:
                out.extend(state.all())
        return out[-MAX_RUNS:]

    # -- kept between imports ---------------------------------------------------------
    def dump(self) -> str:
        runs = {d: None if s is None else [s.closed, s.open, s.last] for d, s in self.runs.items()}
        return json.dumps({"version": VERSION, "names": self.names, "private": self.private,
                           "them": sorted(self.them), "speakers": sorted(self.speakers), "files": self.files,
                           "theirs": [[c.text, c.day, c.count] for c in self.theirs.values()],
                           "mine": [[c.text, c.day, c.count] for c in self.mine.values()], "runs": runs},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def load(cls, text: str, names: list[str], private: list[str]) -> "Tally | None":
        """The kept tally, or None when it is for other names or private words, or not ours."""
        try:
            data = json.loads(text)
            if data["version"] != VERSION or data["names"] != names or data["private"] != private:
                return None
            out = cls(names, private, set(data["them"]), set(data["speakers"]), files=data["files"])
            for pool, rows in ((out.theirs, data["theirs"]), (out.mine, data["mine"])):
                for text_, day, count in rows:
                    pool[key_of(text_)] = Candidate(str(text_), str(day), int(count))
            for day, state in data["runs"].items():
                out.runs[day] = None if state is None else DayRuns(
                    [[(bool(a), int(b), int(c)) for a, b, c in run] for run in state[0]],
                    [(bool(a), int(b), int(c)) for a, b, c in state[1]], state[2])
            return out
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None


@lru_cache(maxsize=4096)  # an import's lines repeat their times (WhatsApp's 1,440 minutes of a day)
def _seconds(time: str) -> int:
    """A log entry's HH:MM:SS as seconds into its day."""
    return int(time[:2]) * 3600 + int(time[3:5]) * 60 + int(time[6:8])


def their_speakers(speakers: set[str], names: list[str]) -> set[str]:
    """Which `import:` speakers are this person: those matching a name or
    alias; else the only one who is not the user."""
    from heartcompass.messages import matches_person

    others = {s for s in speakers if s.startswith("import:") and s != "import:me"}
    mine = {s for s in others if matches_person(s[len("import:"):], names)}  # as import's own check
    if mine:
        return mine
    return others if len(others) == 1 else set()


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _stat(path: Path) -> list[int]:
    info = os.stat(path, follow_symlinks=False)
    return [info.st_size, info.st_mtime_ns]


def rebuild(person_dir: Path, names: list[str], private: list[str]) -> Tally:
    """Every log read, oldest day first; one day's log in memory at a time."""
    tally = Tally(list(names), list(private))
    days = dailylog.log_dates(person_dir)
    for day in days:  # who speaks, from a quick scan: the full parse comes once, below
        tally.speakers.update(_SPEAKER.findall(read_text(person_dir / "logs" / f"{day}.md")))
    tally.them = their_speakers(tally.speakers, names)
    for day in days:
        path = person_dir / "logs" / f"{day}.md"
        stat = _stat(path)
        text = read_text(path)
        tally.add(day, dailylog.parse(text, path))
        tally.files[day] = [*stat, len(text), _digest(text)]
        tally.bound(days[-1])
    tally.trim_runs()
    return tally


def update(tally: Tally, person_dir: Path) -> bool:
    """Read only what the logs gained since the tally; False (the tally
    untouched) when a log changed otherwise and only a rebuild will do."""
    days = dailylog.log_dates(person_dir)
    if set(tally.files) - set(days):
        return False  # a day's log went away (undo, restore)
    grown: list[tuple[str, int]] = []  # (day, characters already read)
    speakers = set(tally.speakers)
    for day in days:
        path = person_dir / "logs" / f"{day}.md"
        known = tally.files.get(day)
        if known is not None and _stat(path) == known[:2]:
            continue  # untouched since: not opened
        text = read_text(path)
        start = 0
        if known is not None:
            start = known[2]
            if len(text) < start or not text[start - 1:start] == "\n" or _digest(text[:start]) != known[3]:
                return False  # shrunk or rewritten, not appended to
        speakers.update(_SPEAKER.findall(text, start))
        grown.append((day, start))
    if their_speakers(speakers, tally.names) != tally.them:
        return False  # someone new speaks, and it changes whose lines are theirs
    tally.speakers = speakers
    for day, start in grown:  # one day's new lines in memory at a time
        path = person_dir / "logs" / f"{day}.md"
        stat = _stat(path)
        text = read_text(path)
        try:
            new = dailylog.parse(text[start:], path) if start else dailylog.parse(text, path)
        except FormatError:
            return False  # the rebuild names the line
        tally.add(day, new)
        tally.files[day] = [*stat, len(text), _digest(text)]
        tally.bound(days[-1])
    tally.trim_runs()
    return True


class Feed:
    """The tally brought up to date from an import's own lines as it appends
    them, whole days in day order: what `update` would read back from the
    logs afterwards, without reading them (see `start_feed`)."""

    def __init__(self, tally: Tally, newest: str, old_days: list[str]):
        self.tally, self.newest, self.old_days = tally, newest, old_days
        self.last = ""  # the last day fed: days must come in order, each once
        self.fed = 0

    def day(self, path: Path, day: str, entries: list[dailylog.Entry], text: str) -> None:
        """One day's appended entries; `text` is the whole file after the append."""
        if day <= self.last:
            raise ValueError(f"days fed out of order: {day} after {self.last}")
        self.last = day
        self.tally.speakers.update(e.speaker for e in entries)
        self.tally.add(day, entries)
        self.tally.files[day] = [*_stat(path), len(text), _digest(text)]
        self.tally.bound(self.newest)
        self.fed += 1
        if self.fed % TRIM_EVERY == 0:
            # Days come in order and only the newest gains runs: a day past the newest MAX_RUNS runs now is
            # past them at the end too, so trimming as we go keeps what trimming once at the end keeps.
            self.tally.trim_runs()

    def finish(self, written: set[str]) -> "Tally | None":
        """The tally, or None when what was written is not what the feed
        assumed (the newest day, who "they" are): the caller reads the logs."""
        tally = self.tally
        if max([*self.old_days, *written], default="") != self.newest:
            return None
        if their_speakers(tally.speakers, tally.names) != tally.them:
            return None
        tally.trim_runs()
        return tally


def start_feed(person_dir: Path, names: list[str], private: list[str], kept: Path | None,
               speakers: set[str], newest: str) -> Feed | None:
    """A Feed for an import about to write `speakers`' lines up to the day
    `newest`, when feeding gives exactly what reading the logs after it
    would: no logs yet, or a kept tally that every log still matches and
    whose "they" the new speakers leave as they are. Else None."""
    days = dailylog.log_dates(person_dir)
    if not days:
        tally = Tally(list(names), list(private))  # what a rebuild of no logs is
    else:
        from heartcompass import paths
        from heartcompass.errors import HeartCompassError

        try:
            loaded = Tally.load(paths.read_local(paths.check(kept)), list(names), list(private)) if kept else None
        except (OSError, HeartCompassError):
            loaded = None
        if loaded is None or set(loaded.files) != set(days) or \
                any(_stat(person_dir / "logs" / f"{d}.md") != loaded.files[d][:2] for d in days):
            return None  # none kept, or a log changed since: the refresh reads the logs, as before
        tally = loaded
    them = their_speakers(tally.speakers | speakers, names)
    if days and them != tally.them:
        return None  # "they" change: every log is read again
    tally.them = them
    return Feed(tally, max(newest, days[-1]) if days else newest, days)
