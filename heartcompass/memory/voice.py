"""How a person writes: their own real lines (VOICE.md) and their rhythm.

Only real messages qualify: `import:<them>` entries of the logs, lines the
user quotes, lines the user writes by hand. What the simulated persona said
never does. The choice is made in code, deterministically: short, single-line
candidates without private data are scored by recency (newest habits win)
and frequency, grouped by what they do (greeting, laughing, comforting,
refusing, asking, emoji, other) and taken round-robin across the groups, so
the handful kept is diverse, within the file's token budget. Lines the user
added are never removed; only lines tagged `(import DATE)` are replaced."""

from __future__ import annotations

import datetime as dt
import math
import re
import statistics
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from heartcompass.atomic import file_checksum, write_atomic
from heartcompass.errors import HeartCompassError
from heartcompass.formats import dailylog, read_text, voice as voice_fmt
from heartcompass.messages import matches_person, placeholder_kind
from heartcompass.tokens import estimate_tokens
from heartcompass.language import CJK

MAX_THEIRS, MAX_MINE = 12, 6
MAX_WORDS, MAX_CHARS = 25, 120
BURST_GAP = dt.timedelta(minutes=10)   # their messages closer than this, uninterrupted, are one reply
HALF_LIFE_DAYS = 180
POOL_LIMIT = 20_000  # candidate lines held per side while reading the logs
MAX_RUNS = 20_000  # the newest replies the rhythm is learnt from
_SPEAKER = re.compile(r"^- \d\d:\d\d:\d\d · ([^\s·\[\]]+)", re.M)
_CJK = re.compile(f"[{CJK}]")
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
_PRIVATE = re.compile(r"https?://|www\.|\S+@\S+\.\w+|\d[\d\s-]{5,}\d")
GROUPS = (
    ("greeting", re.compile(r"^(hi|hey|hello|yo|morning|good (morning|night)|night|gn|你好|嗨|哈喽|早|晚安|在吗)\b|"
                            r"(早安|晚安|你好|在吗)", re.I)),
    ("laugh", re.compile(r"(haha|hehe|lol|lmao|😂|🤣|😆|哈哈|嘿嘿|笑死|hhh)", re.I)),
    ("comfort", re.compile(r"(sorry|hug|don'?t worry|it'?s ok|you got this|take care|抱抱|没事|别担心|辛苦|加油|"
                           r"心疼)", re.I)),
    ("refusal", re.compile(r"^(no|nah|nope|can'?t|not really|maybe not)\b|(不要|不行|算了|改天|不了)", re.I)),
    ("question", re.compile(r"([?？]\s*$|[吗呢]\s*$)")),
    ("emoji", _EMOJI),
)


@dataclass
class Candidate:
    text: str
    day: str
    count: int = 1

    def group(self) -> str:
        for name, pattern in GROUPS:
            if pattern.search(self.text):
                return name
        return "other"


_LETTER = re.compile(r"[^\W\d_]")


def is_cjk(text: str) -> bool:
    cjk = len(_CJK.findall(text))  # counted by the regex engine: this runs once per imported message
    return cjk > 0 and cjk * 2 >= len(_LETTER.findall(text))


def length_of(text: str, cjk: bool) -> int:
    """Characters (without spaces) for Chinese/Japanese/Korean writers, words otherwise."""
    return len(re.sub(r"\s", "", text)) if cjk else len(text.split())


def their_speakers(entries_speakers: set[str], names: list[str]) -> set[str]:
    """Which `import:` speakers are this person: those matching a name or
    alias; else the only one who is not the user."""
    others = {s for s in entries_speakers if s.startswith("import:") and s != "import:me"}
    mine = {s for s in others if matches_person(s[len("import:"):], names)}  # as import's own check
    if mine:
        return mine
    return others if len(others) == 1 else set()


def _usable(text: str, private: list[str]) -> bool:
    text = text.strip()
    if not text or "\n" in text or '"' in text or placeholder_kind(text):
        return False
    if len(text) > MAX_CHARS:
        return False
    words, chars = len(text.split()), len(text) - text.count(" ")
    if max(words, chars) > MAX_WORDS and length_of(text, is_cjk(text)) > MAX_WORDS:  # is_cjk only when it matters
        return False
    if _PRIVATE.search(text):
        return False
    low = text.casefold()
    return not any(word.casefold() in low for word in private)


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold()) or text


def collect(person_dir: Path, names: list[str], private: list[str]):
    """Their candidate lines, mine, and their messages grouped in runs (one
    reply = the messages they sent in a row) for the rhythm. One day's log
    in memory at a time; the pools keep their best lines and the rhythm the
    newest runs, so years of imported chat fit in bounded memory."""
    theirs: dict[str, Candidate] = {}
    mine: dict[str, Candidate] = {}
    runs: deque[list[str]] = deque(maxlen=MAX_RUNS)
    days = dailylog.log_dates(person_dir)
    speakers: set[str] = set()
    for day in days:  # who speaks, from a quick scan: the full parse comes once, below
        speakers.update(_SPEAKER.findall(read_text(person_dir / "logs" / f"{day}.md")))
    them = their_speakers(speakers, names)
    newest = dt.date.fromisoformat(days[-1]) if days else None
    for day in days:
        entries = dailylog.load(person_dir / "logs" / f"{day}.md")
        run: list[str] = []
        last: dt.datetime | None = None
        for e in entries:
            if placeholder_kind(e.text):
                continue  # "<Media omitted>": nobody wrote that
            when = dt.datetime.fromisoformat(f"{day}T{e.time}")
            if e.speaker in them:
                if run and last is not None and when - last > BURST_GAP:
                    runs.append(run)
                    run = []
                run.append(e.text)
                last = when
                pool = theirs
            else:
                if run and e.speaker not in ("note",):
                    runs.append(run)
                    run = []
                pool = mine if e.speaker == "import:me" else None
            if pool is not None and _usable(e.text, private):
                key = _key(e.text)
                if key in pool:
                    pool[key].count += 1
                    pool[key].text, pool[key].day = e.text.strip(), day  # the newest wording wins
                else:
                    pool[key] = Candidate(e.text.strip(), day)
        if run:
            runs.append(run)
        for pool in (theirs, mine):
            if len(pool) > POOL_LIMIT:
                _prune(pool, newest)
    return list(theirs.values()), list(mine.values()), list(runs)


def _score(c: Candidate, newest: dt.date) -> float:
    age = (newest - dt.date.fromisoformat(c.day)).days
    return 0.5 ** (age / HALF_LIFE_DAYS) + 0.15 * math.log2(1 + c.count)


def _prune(pool: dict[str, Candidate], newest: dt.date) -> None:
    """Keep the best half of a pool grown past its limit (the lines choose() would pick stay)."""
    kept = sorted(pool.items(), key=lambda kv: -_score(kv[1], newest))[:POOL_LIMIT // 2]
    pool.clear()
    pool.update(kept)


def rhythm_of(runs: list[list[str]]) -> dict:
    """How many messages in a row and how long each, from their real messages."""
    messages = [m for run in runs for m in run]
    if not messages:
        return {}
    cjk = sum(1 for m in messages if is_cjk(m)) * 2 >= len(messages)
    lengths = sorted(length_of(m, cjk) for m in messages)
    bursts = sorted(len(run) for run in runs)
    return {"messages": len(messages),
            "median_words": int(statistics.median(lengths)),
            "long_words": lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))],
            "burst_median": int(statistics.median(bursts)),
            "burst_p75": bursts[min(len(bursts) - 1, int(len(bursts) * 0.75))],
            "multi_share": round(sum(1 for b in bursts if b > 1) / len(bursts), 2),
            **({"unit": "characters"} if cjk else {})}


def choose(candidates: list[Candidate], keep: list[voice_fmt.Line], budget: int, limit: int) -> list[voice_fmt.Line]:
    """The user's lines first, then picked ones round-robin across groups, by score."""
    if not candidates:
        return list(keep)
    newest = max(dt.date.fromisoformat(c.day) for c in candidates)

    def score(c: Candidate) -> float:
        return _score(c, newest)

    kept_keys = {_key(line.text) for line in keep}
    groups: dict[str, list[Candidate]] = {}
    for c in sorted(candidates, key=lambda c: (-score(c), c.day, c.text)):
        if _key(c.text) not in kept_keys:
            groups.setdefault(c.group(), []).append(c)
    used = sum(estimate_tokens(line.render()) for line in keep)
    chosen: list[voice_fmt.Line] = []
    order = [name for name, _ in GROUPS] + ["other"]
    while len(keep) + len(chosen) < limit and any(groups.values()):
        for name in order:
            if not groups.get(name) or len(keep) + len(chosen) >= limit:
                continue
            c = groups[name].pop(0)
            line = voice_fmt.Line(c.text, f"import {c.day}")
            cost = estimate_tokens(line.render())
            if used + cost <= budget:
                chosen.append(line)
                used += cost
    return [*keep, *chosen]


def path_of(person_dir: Path) -> Path:
    return Path(person_dir) / voice_fmt.FILENAME


def load_or_new(person_dir: Path, name: str) -> voice_fmt.Voice:
    path = path_of(person_dir)
    return voice_fmt.load(path) if path.exists() else voice_fmt.new(path, name)


def refresh(person_dir: Path, names: list[str]) -> bool:
    """Pick their (and my) lines and learn their rhythm from the logs.
    Writes VOICE.md when something changed (never when there is nothing
    real to learn from and no file yet). Returns whether it wrote."""
    path = path_of(person_dir)
    before = file_checksum(path)
    voice = load_or_new(person_dir, names[0])
    theirs, mine, runs = collect(person_dir, names, voice.private)
    if not theirs and not mine and not runs and before is None:
        return False
    share = voice.budget_tokens * 2 // 3
    voice.sections[voice_fmt.THEIRS] = choose(
        theirs, [l for l in voice.lines(voice_fmt.THEIRS) if not l.picked], share, MAX_THEIRS)
    voice.sections[voice_fmt.MINE] = choose(
        mine, [l for l in voice.lines(voice_fmt.MINE) if not l.picked], voice.budget_tokens - share, MAX_MINE)
    rhythm = rhythm_of(runs)
    if rhythm and rhythm != voice.doc.meta.get("rhythm"):
        voice.doc.meta["rhythm"] = rhythm
    text = voice_fmt.render(voice)
    voice_fmt.parse(text, path)  # never write what we could not read back
    if before is not None and read_text(path) == text:
        return False
    write_atomic(path, text, before)
    return True


def add_line(person_dir: Path, name: str, text: str, source: str, section: str = voice_fmt.THEIRS) -> bool:
    """A line the user quotes (or a card brings). Returns False if already there."""
    text = " ".join(text.split()).strip().strip('"“”')
    if not text:
        raise HeartCompassError("Nothing to quote.", 'Give the words they wrote, e.g. heartcompass quote alice "好呀～"')
    if '"' in text:
        text = text.replace('"', "”")
    path = path_of(person_dir)
    before = file_checksum(path)
    voice = load_or_new(person_dir, name)
    lines = voice.sections.setdefault(section, [])
    if any(_key(l.text) == _key(text) for l in lines):
        return False
    lines.append(voice_fmt.Line(text, source))
    rendered = voice_fmt.render(voice)
    voice_fmt.parse(rendered, path)
    write_atomic(path, rendered, before)
    return True


def guidance(rhythm: dict, name: str, persona: bool) -> str | None:
    """One line on reply shape, e.g. 'usually 1-3 short messages, rarely more than 15 words'."""
    if not rhythm or not rhythm.get("messages"):
        return None
    unit = rhythm.get("unit", "words")
    most = max(1, int(rhythm.get("burst_p75", 1)))
    count = "1 message" if most == 1 else f"1–{most} messages"
    shape = (f"usually {count} in a row, about {rhythm.get('median_words')} {unit} each, rarely more than "
             f"{rhythm.get('long_words')} {unit}")
    if persona:
        return f"Write like you do in real chats: {shape}."
    return f"{name} writes {shape} (from {rhythm['messages']} real messages)."


# -- with the audit trail -----------------------------------------------------------
def refresh_and_commit(ws, person, names: list[str]) -> str | None:
    """`voice --refresh`: pending hand edits first, then one commit."""
    from heartcompass.store import audit

    with audit.writing(ws, "voice"):
        audit.commit_pending(ws, [person])
        if not refresh(person.dir, names):
            return None
        message = audit.subject(audit.Verb.VOICE, person.slug, "their lines and rhythm from the logs")
        return audit.commit_or_roll_back(ws, [path_of(person.dir)], message, what="the voice file")


def quote_and_commit(ws, person, text: str, *, mine: bool = False) -> str | None:
    """`quote` and chat's /quote: a real line the user keeps, one commit."""
    from heartcompass.sanitize import strip_controls
    from heartcompass.store import audit, clock

    text = strip_controls(text)  # a kept line is shown and sent as it is: no escapes or bidi overrides
    with audit.writing(ws, "quote"):
        audit.commit_pending(ws, [person])
        section = voice_fmt.MINE if mine else voice_fmt.THEIRS
        if not add_line(person.dir, person.load_profile().name, text, f"quote {clock.today(ws).isoformat()}",
                        section):
            return None
        short = " ".join(text.split())[:40]
        return audit.commit_or_roll_back(ws, [path_of(person.dir)],
                                         audit.subject(audit.Verb.QUOTE, person.slug, f"“{short}”"), what="the quote")
