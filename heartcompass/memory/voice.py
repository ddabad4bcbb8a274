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
import re
import statistics
from pathlib import Path

from heartcompass.atomic import file_checksum, write_atomic
from heartcompass.errors import HeartCompassError
from heartcompass.formats import read_text, voice as voice_fmt
from heartcompass.memory.voice_tally import (  # noqa: F401 (is_cjk, length_of: the benchmark's measure too)
    Candidate, Feed, Measure, Tally, is_cjk, key_of as _key, length_of, rebuild, score as _score, start_feed, update)
from heartcompass.tokens import estimate_tokens

MAX_THEIRS, MAX_MINE = 12, 6
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
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


def group_of(text: str) -> str:
    for name, pattern in GROUPS:
        if pattern.search(text):
            return name
    return "other"


def tally_of(person_dir: Path, names: list[str], private: list[str], kept: Path | None = None) -> Tally:
    """What the voice is chosen from: the tally kept at `kept` brought up to
    date with only the logs' new lines, or (none kept, or a log changed in
    any other way than appended to) read from every log again."""
    if kept is not None:
        from heartcompass import paths

        try:
            tally = Tally.load(paths.read_local(paths.check(kept)), list(names), list(private))
        except (FileNotFoundError, OSError, HeartCompassError):
            tally = None
        if tally is not None and update(tally, person_dir):
            return tally
    return rebuild(person_dir, names, private)


def _keep_tally(kept: Path, tally: Tally) -> None:
    """Local state (.heartcompass/voice/): lost or damaged, the next refresh reads every log again."""
    try:
        write_atomic(kept, tally.dump())
    except (OSError, HeartCompassError):
        pass  # only a slower next refresh


def rhythm_of(runs: list[list[Measure]]) -> dict:
    """How many messages in a row and how long each, from their real messages (measured: voice_tally.measure)."""
    messages = [m for run in runs for m in run]
    if not messages:
        return {}
    cjk = sum(1 for m in messages if m[0]) * 2 >= len(messages)
    lengths = sorted(m[1] if cjk else m[2] for m in messages)
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
            groups.setdefault(group_of(c.text), []).append(c)
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


def refresh(person_dir: Path, names: list[str], kept: Path | None = None, tally: Tally | None = None) -> bool:
    """Pick their (and my) lines and learn their rhythm from the logs.
    Writes VOICE.md when something changed (never when there is nothing
    real to learn from and no file yet). Returns whether it wrote. With
    `kept` (an import's refresh), only the logs' new lines are read, into
    the tally kept there (see voice_tally); with `tally` (an import's, fed
    its lines as it wrote them: voice_tally.Feed), no log is read."""
    path = path_of(person_dir)
    before = file_checksum(path)
    voice = load_or_new(person_dir, names[0])
    if tally is None:
        tally = tally_of(person_dir, names, voice.private, kept)
    if kept is not None:
        _keep_tally(kept, tally)
    theirs, mine, runs = list(tally.theirs.values()), list(tally.mine.values()), tally.replies()
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


def feed(person_dir: Path, names: list[str], kept: Path, speakers: set[str], newest: str) -> Feed | None:
    """An import's voice, fed its lines as it appends them (voice_tally.start_feed); None: refresh as before."""
    try:
        private = load_or_new(person_dir, names[0]).private
    except HeartCompassError:
        return None  # the refresh after the write names what is wrong, as before
    return start_feed(person_dir, names, private, kept, speakers, newest)


def tally_path(ws, slug: str) -> Path:
    return ws.state_dir / "voice" / f"{slug}.json"


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

    with audit.write_transaction(ws, "voice"):
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
    with audit.write_transaction(ws, "quote"):
        audit.commit_pending(ws, [person])
        section = voice_fmt.MINE if mine else voice_fmt.THEIRS
        if not add_line(person.dir, person.load_profile().name, text, f"quote {clock.today(ws).isoformat()}",
                        section):
            return None
        short = " ".join(text.split())[:40]
        return audit.commit_or_roll_back(ws, [path_of(person.dir)],
                                         audit.subject(audit.Verb.QUOTE, person.slug, f"“{short}”"), what="the quote")
