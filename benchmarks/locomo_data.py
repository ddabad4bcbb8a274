"""LoCoMo's JSON, read and checked, for benchmarks/locomo.py: the samples,
their sessions as a chat export and as one transcript, and which side each
question is about.

The format (snap-research/locomo, data/locomo10.json) is a list of samples:
{"sample_id", "conversation": {"speaker_a", "speaker_b", "session_N": [{"speaker",
"dia_id", "text", "blip_caption"?...}], "session_N_date_time": "1:56 pm on 8 May,
2023"}, "qa": [{"question", "answer", "evidence": ["D1:3"], "category"}]}.
Categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5
adversarial (left out, as the published evaluations do)."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SESSION = re.compile(r"session_(\d+)")
_DIA = re.compile(r"D\d+:\d+")
_WHEN = re.compile(r"(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d+)\b", re.I)
FIRST_YEAR = 1970  # as the importer's (intake/exports/records): "May, 0001" or "May, 99999" is a broken date
_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"), 1)}


class DataError(Exception):
    """The data file is not LoCoMo's format: what, where, and the fix."""


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass
class Session:
    number: int
    when: dt.datetime
    said: str          # the date as the data writes it, for the transcript
    turns: list[Turn]


@dataclass
class Question:
    index: int         # its place in the sample's qa list: the cache key
    question: str
    answer: str
    category: int
    evidence: list[str]
    side: str = "unknown"  # person | user | both | unknown: whose lines the evidence is
    others: bool = False   # it names someone besides the two speakers (names_someone_else)


@dataclass
class Sample:
    sample_id: str
    person: str        # the speaker HeartCompass keeps a person for
    user: str          # the other speaker: the user
    sessions: list[Session]
    questions: list[Question] = field(default_factory=list)

    @property
    def last(self) -> dt.datetime:
        return self.sessions[-1].when


def parse_when(text: str) -> dt.datetime:
    m = _WHEN.search(text)
    if not m or m[5].lower() not in _MONTHS or not FIRST_YEAR <= int(m[6]) <= dt.date.today().year + 1:
        raise ValueError(text)
    hour = int(m[1]) % 12 + (12 if m[3].lower() == "p" else 0)
    return dt.datetime(int(m[6]), _MONTHS[m[5].lower()], int(m[4]), hour, int(m[2]))


def load(path: Path, person_is: str = "a") -> list[Sample]:
    """Every sample of the file, checked before any is used."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file. Pass LoCoMo's data/locomo10.json "
                        "(https://github.com/snap-research/locomo).") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read it as UTF-8 text ({exc}).") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg}). Pass LoCoMo's "
                        "data/locomo10.json as downloaded.") from None
    except RecursionError:  # Python's parser gives up at about a thousand levels; LoCoMo's file has six
        raise DataError(f"{path}: nested too deeply (lists or objects inside each other beyond what Python "
                        "reads); LoCoMo's locomo10.json is a few levels deep. Pass it as downloaded.") from None
    if isinstance(data, dict) and "conversation" in data:
        data = [data]  # one sample on its own
    if not isinstance(data, list) or not data:
        raise DataError(f"{path}: expected a list of samples, each with 'conversation' and 'qa' (LoCoMo's "
                        "locomo10.json).")
    return [_sample(path, n, raw, person_is) for n, raw in enumerate(data)]


def _sample(path: Path, n: int, raw, person_is: str) -> Sample:
    where = f"{path}, sample {n}"
    if not isinstance(raw, dict) or not isinstance(raw.get("conversation"), dict) \
            or not isinstance(raw.get("qa"), list):
        raise DataError(f"{where}: needs a 'conversation' object and a 'qa' list, as in LoCoMo's locomo10.json.")
    conv = raw["conversation"]
    sample_id = str(raw.get("sample_id") or f"sample-{n}")
    where = f"{path}, sample {sample_id!r}"
    speakers = [conv.get("speaker_a"), conv.get("speaker_b")]
    for key, name in zip(("speaker_a", "speaker_b"), speakers):
        if not isinstance(name, str) or not name.strip() or ":" in name or "\n" in name:
            raise DataError(f"{where}: conversation.{key} must be a name (no ':' or line break); "
                            f"it is {name!r}.")
    if speakers[0].strip() == speakers[1].strip():
        raise DataError(f"{where}: speaker_a and speaker_b are both {speakers[0]!r}; they must differ.")
    person, user = (speakers if person_is == "a" else speakers[::-1])
    sessions = []
    for key in sorted((k for k in conv if _SESSION.fullmatch(k)), key=lambda k: int(k.split("_")[1])):
        number = int(key.split("_")[1])
        turns = conv[key]
        if not isinstance(turns, list):
            raise DataError(f"{where}: conversation.{key} must be a list of messages.")
        if not turns:
            continue
        said = conv.get(f"{key}_date_time")
        try:
            when = parse_when(str(said))
        except ValueError:
            raise DataError(f"{where}: conversation.{key}_date_time is {said!r}; expected a time like "
                            f"'1:56 pm on 8 May, 2023' (a year from {FIRST_YEAR} to next year).") from None
        sessions.append(Session(number, when, str(said), [_turn(where, key, i, t, speakers)
                                                          for i, t in enumerate(turns)]))
    if not sessions:
        raise DataError(f"{where}: the conversation has no session_N lists of messages.")
    sessions.sort(key=lambda s: s.when)
    sample = Sample(sample_id, person.strip(), user.strip(), sessions)
    speaker_of = {t.dia_id: t.speaker for s in sessions for t in s.turns}
    for i, q in enumerate(raw["qa"]):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str) or "category" not in q:
            raise DataError(f"{where}: qa[{i}] needs 'question' and 'category'.")
        category = _category(q["category"])
        if category is None:
            raise DataError(f"{where}: qa[{i}].category is {q['category']!r}; expected a whole number 1 to 5.")
        if category not in CATEGORIES:
            continue  # 5: adversarial, unanswerable by design; left out as the published evaluations do
        if q.get("answer") is None:
            raise DataError(f"{where}: qa[{i}] (category {category}) has no 'answer'.")
        evidence = _DIA.findall(" ".join(str(e) for e in q.get("evidence") or []))  # "D8:6; D9:17" occurs
        sample.questions.append(Question(i, q["question"].strip(), str(q["answer"]).strip(), category, evidence,
                                         side_of(evidence, speaker_of, sample),
                                         names_someone_else(q["question"], speakers)))
    return sample


def _category(raw) -> int | None:
    """A whole number (LoCoMo's are ints; "2" is read too), never 2.7 taken as 2 or true as 1."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and re.fullmatch(r"[0-9]{1,3}", raw.strip()):
        return int(raw)
    return None


def _turn(where: str, key: str, i: int, raw, speakers: list[str]) -> Turn:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or raw.get("speaker") not in speakers:
        raise DataError(f"{where}: conversation.{key}[{i}] needs 'text' and a 'speaker' that is speaker_a or "
                        f"speaker_b ({', '.join(speakers)}).")
    text = " ".join(raw["text"].split())
    if raw.get("blip_caption"):  # a shared photo: its caption, as LoCoMo's own baselines show it
        text = f"{text} [shares {' '.join(str(raw['blip_caption']).split())}]".strip()
    return Turn(str(raw.get("dia_id") or f"{key}:{i}"), raw["speaker"].strip(), text)


_NOT_NAMES = set("""what when where who whom whose which why how did does do is are was were would could should
will can has have had the a an and or of in on at to for from with by about after before during i january february
march april may june july august september october november december monday tuesday wednesday thursday friday
saturday sunday""".split())


def names_someone_else(question: str, speakers: list[str]) -> bool:
    """Whether a question names someone besides the two speakers: a kinship or
    role word (heartcompass.names.KIN: daughter, 女儿, colleague, dog...) or a
    capitalised word that is not theirs, a question word, a month or a day,
    and does not follow in/at/to/from/the (a place, an event). A heuristic,
    for reporting those questions apart (issue 28)."""
    from heartcompass.names import KIN

    theirs = {w.casefold() for s in speakers for w in re.findall(r"\w+", s)}
    words = re.findall(r"[\w'’-]+", question)
    lowered = question.casefold()
    if any((w in lowered) if not w.isascii() else re.search(rf"\b{re.escape(w)}s?\b", lowered) for w in KIN):
        return True
    for before, word in zip(["", *words], words):
        bare = re.sub(r"['’]s$", "", word)
        if (bare[:1].isupper() and bare.casefold() not in theirs and bare.casefold() not in _NOT_NAMES
                and before.casefold() not in ("in", "at", "to", "from", "the")):
            return True
    return False


def side_of(evidence: list[str], speaker_of: dict[str, str], sample: Sample) -> str:
    """Whose life a question asks about, by who said its evidence lines."""
    who = {speaker_of[e] for e in evidence if e in speaker_of}
    if who == {sample.person}:
        return "person"
    if who == {sample.user}:
        return "user"
    return "both" if who else "unknown"


def export_text(sample: Sample) -> str:
    """The conversation as a WhatsApp export (ISO dates, 24-hour clock: no
    day/month guessing). LoCoMo gives each session a start time, not each
    message: they follow one minute apart, in order."""
    lines = []
    for session in sample.sessions:
        for i, turn in enumerate(session.turns):
            when = session.when + dt.timedelta(minutes=i)
            lines.append(f"{when:%Y-%m-%d}, {when:%H:%M:%S} - {turn.speaker}: {turn.text}")
    return "\n".join(lines) + "\n"


def transcript(sample: Sample) -> str:
    """The whole conversation, session by session with its date: the full-context baseline."""
    parts = []
    for session in sample.sessions:
        lines = [f"Session {session.number}, {session.said}:"]
        lines += [f"{turn.speaker}: {turn.text}" for turn in session.turns]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
