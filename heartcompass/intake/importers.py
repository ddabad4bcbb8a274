"""Real chat exports to log entries: WhatsApp .txt (12- and 24-hour styles,
Android and iOS), Telegram Desktop's result.json, and plain transcripts.

Parsing is complete before anything is written: malformed input is an error
with its line number. Each message becomes an `import:<speaker>` entry on its
original date (the user's own messages are `import:me`). System placeholders
("<Media omitted>", "This message was deleted") are skipped and counted. A
re-import, or the same chat exported from another phone, adds only what the
logs do not hold yet: messages are compared by minute, speaker and
normalised text, counting repeats ("ok" twice in a minute is two messages)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from heartcompass.errors import FormatError, HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.messages import placeholder_kind

# Years of daily chat are tens of MiB; more is the wrong file, and parsing it would hold GiBs.
MAX_EXPORT_BYTES = 100 << 20


def read_export(path: Path) -> str:
    """The export's text: a regular file, bounded in size, UTF-8."""
    from heartcompass.intake.limits import read_limited

    raw = read_limited(path, MAX_EXPORT_BYTES, "chat export")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not UTF-8 text (byte {exc.start})", raw[:exc.start].count(b"\n") + 1,
                          "Export the chat again (WhatsApp and Telegram write UTF-8), "
                          "or convert it with 'iconv -t UTF-8'.") from None


@dataclass
class Message:
    when: dt.datetime
    speaker: str
    text: str
    line: int
    placeholder: str | None = None  # "media", "deleted", "call": an app's stand-in, not a message
    undated: bool = False  # a plain transcript line before any [date] stamp: filed under today


_EDITED = re.compile(r"\s*<(?:This message was edited|已编辑|已編輯)>\s*$")


# -- WhatsApp -------------------------------------------------------------------
_WA = re.compile(
    r"^\u200e?\[?(?P<d>\d{1,4})[./-](?P<m>\d{1,2})[./-](?P<y>\d{1,4}),?\s+"
    r"(?P<cn>上午|下午|凌晨|早上|中午|晚上)?\s*(?P<t>\d{1,2}[:.]\d{2}(?:[:.]\d{2})?)(?:[\s\u202f\u00a0]*(?P<ampm>[AaPp]\.?\s?[Mm]\.?))?\]?"
    r"(?:\s+-\s+|\s+)(?P<rest>.*)$"
)


def _wa_date(parts: list[tuple[int, int, int]], twelve_hour: bool = False, today: dt.date | None = None) -> bool:
    """Decide D/M or M/D order from the whole file: a field over 12 settles
    it; else the order that puts no message in the future; else the clock
    (12-hour exports come from month-first locales, such as the US)."""
    if any(a > 12 for a, _, _ in parts):
        return True
    if any(b > 12 for _, b, _ in parts):
        return False
    if today is not None and parts:
        def latest(day_first: bool) -> dt.date:
            return max(dt.date(y + 2000 if y < 100 else y, *((b, a) if day_first else (a, b)))
                       for a, b, y in parts)
        try:
            future = {order: latest(order) > today for order in (True, False)}
        except ValueError:
            future = {}
        if future and future[True] != future[False]:
            return not future[True]
    return not twelve_hour  # most of the world writes day first, with a 24-hour clock


def parse_whatsapp(text: str, path: Path | str, today: dt.date | None = None) -> list[Message]:
    rows: list[tuple[int, re.Match]] = []
    continuation: dict[int, list[str]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = _WA.match(line)
        if m:
            rows.append((n, m))
            continuation[n] = []
        elif rows:
            continuation[rows[-1][0]].append(line)
        elif line.strip():
            raise FormatError(path, f"not a WhatsApp export line: {line.strip()[:60]!r}", n,
                              "Export the chat from WhatsApp (Chat > More > Export chat > Without media).")
    if not rows:
        raise FormatError(path, "no WhatsApp messages found", 1,
                          "Is this a WhatsApp .txt export? Try --format plain or --format telegram.")
    nums = [(int(m["d"]), int(m["m"]), int(m["y"])) for _, m in rows if len(m["d"]) <= 2]
    day_first = _wa_date(nums, any(m["ampm"] for _, m in rows), today)
    out = []
    for n, m in rows:
        a, b, y = int(m["d"]), int(m["m"]), int(m["y"])
        if len(m["d"]) == 4:  # YYYY-MM-DD style
            y, a, b = a, int(m["m"]), int(m["y"])
            day, month = b, a
        else:
            day, month = (a, b) if day_first else (b, a)
        year = y + 2000 if y < 100 else y
        hms = [int(x) for x in re.split(r"[:.]", m["t"])] + [0]
        hour, minute, second = hms[0], hms[1], hms[2] if len(hms) > 3 else 0
        if m["ampm"]:
            pm = m["ampm"].lower().startswith("p")
            if not 1 <= hour <= 12:
                raise FormatError(path, f"{m['t']} {m['ampm']} is not a 12-hour time", n)
            hour = hour % 12 + (12 if pm else 0)
        elif m["cn"]:  # Chinese exports: 下午1:54 is 13:54, 上午12:05 is 00:05
            if m["cn"] in ("下午", "晚上") and hour < 12 or m["cn"] == "中午" and hour < 11:
                hour += 12
            elif m["cn"] in ("上午", "凌晨", "早上") and hour == 12:
                hour = 0
        try:
            when = dt.datetime(year, month, day, hour, minute, second)
        except ValueError:
            raise FormatError(path, f"{m.group(0)[:30]!r} has no real date or time", n) from None
        rest = m["rest"]
        speaker, sep, body = rest.partition(": ")
        if not sep:  # "Messages are end-to-end encrypted", "X changed the subject"...
            continue
        body = _EDITED.sub("", "\n".join([body, *continuation[n]]).strip().replace("\u200e", ""))
        out.append(Message(when, speaker.strip().replace("\u200e", ""), body, n, placeholder_kind(body)))
    return out


# -- Telegram -----------------------------------------------------------------------
def _tg_text(value) -> str:
    """Telegram's `text`: a string, or a list of strings and entity objects
    ({"type": "link", "text": ...}); anything else (null parts) carries no text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _tg_text(value.get("text"))
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else _tg_text(part) if isinstance(part, dict) else ""
                       for part in value)
    return ""


def parse_telegram(text: str, path: Path | str) -> list[Message]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"not valid JSON ({exc.msg})", exc.lineno,
                          "Export from Telegram Desktop as 'Machine-readable JSON' and pass result.json.") from None
    except RecursionError:
        raise FormatError(path, "JSON nested too deeply to be a Telegram export", 1,
                          "Export from Telegram Desktop as 'Machine-readable JSON' and pass result.json.") from None
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(path, "no 'messages' list: not a Telegram chat export", 1,
                          "Export one chat (not the whole account) from Telegram Desktop as JSON.")
    out = []
    for n, msg in enumerate(data["messages"], 1):
        if not isinstance(msg, dict) or msg.get("type") != "message":
            continue
        try:
            when = dt.datetime.fromisoformat(str(msg["date"]))
        except (KeyError, ValueError):
            raise FormatError(path, f"message {n} has no valid 'date'", None) from None
        body = _tg_text(msg.get("text")).strip()
        kind = placeholder_kind(body) if body else "media" if msg.get("media_type") or msg.get("photo") or \
            msg.get("file") else None  # a photo or sticker without a caption is not a message
        if body or kind:
            out.append(Message(when.replace(tzinfo=None), _tg_text(msg.get("from")) or "unknown", body, n, kind))
    return out


# -- plain transcript --------------------------------------------------------------------
_PLAIN = re.compile(r"^(?:\[(?P<stamp>\d{4}-\d{2}-\d{2}(?: \d{1,2}:\d{2}(?::\d{2})?)?)\]\s*)?"
                    r"(?P<speaker>[^:\[\]]{1,40}?)\s*[:：]\s*(?P<text>.*)$")


def parse_plain(text: str, path: Path | str, default_day: dt.date) -> list[Message]:
    out: list[Message] = []
    current = dt.datetime.combine(default_day, dt.time(0, 0))
    stamped = None  # the line of the first [date] stamp
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _PLAIN.match(line)
        if m and m["stamp"]:
            try:
                stamp = m["stamp"]
                current = (dt.datetime.fromisoformat(stamp) if " " in stamp
                           else dt.datetime.combine(dt.date.fromisoformat(stamp), dt.time(0, 0)))
                stamped = stamped or n
            except ValueError:
                raise FormatError(path, f"[{m['stamp']}] is not a real date and time", n,
                                  "Stamps look like [2026-11-28 21:04].") from None
        if m:
            text = m["text"].strip()
            out.append(Message(current, m["speaker"].strip(), text, n, placeholder_kind(text),
                               undated=stamped is None))
        elif out and line.startswith((" ", "\t")):
            out[-1].text += "\n" + line.strip()
        else:
            raise FormatError(path, f"expected 'Name: message', got {line.strip()[:60]!r}", n,
                              "Each line is 'Name: message', optionally after a [YYYY-MM-DD HH:MM] stamp; "
                              "indent a line to continue the message above.")
    if not out:
        raise FormatError(path, "no messages found", 1, "Each line is 'Name: message'.")
    return out


_WA_HEADER = re.compile(r"^\u200e?\[?\d{1,4}[./-]\d{1,2}[./-]\d{1,4},\s|^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\s+\S+\s+-\s")


def detect(text: str) -> str:
    """The export's format from its content: Telegram's JSON, WhatsApp's
    'date, time - Name:' lines, else a plain 'Name: text' transcript."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        return "telegram"
    first = next((line for line in stripped.splitlines() if line.strip()), "")
    return "whatsapp" if _WA_HEADER.match(first) else "plain"


def parse(fmt: str, text: str, path: Path | str, today: dt.date) -> list[Message]:
    if fmt == "auto":
        fmt = detect(text)
    if fmt == "whatsapp":
        return parse_whatsapp(text, path, today)
    if fmt == "telegram":
        return parse_telegram(text, path)
    if fmt == "plain":
        return parse_plain(text, path, today)
    raise HeartCompassError(f"Unknown format {fmt!r}.", "Use --format auto, whatsapp, telegram or plain.")


def speakers(messages: list[Message]) -> list[str]:
    seen: dict[str, int] = {}
    for msg in messages:
        seen[msg.speaker] = seen.get(msg.speaker, 0) + 1
    return sorted(seen, key=lambda s: -seen[s])


def _normal(text: str) -> str:
    """Text as compared across exports: iOS and Android differ in direction
    marks, narrow spaces and line breaks, not in what was said."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]", "", text)
    return " ".join(text.split())


def _key(time: str, speaker: str, text: str) -> tuple[str, str, str]:
    return time[:5], speaker.casefold(), _normal(text)  # minute resolution: Android exports drop seconds


def to_logs(person_dir: Path, messages: list[Message], me: str) -> dict[str, int]:
    """Append messages to the daily logs, skipping any already there.
    Returns how many were added per day.

    Duplicates are counted, not collapsed: a day file holding "ok" once at
    14:02 takes one more "ok" at 14:02 from an export that has two. Files are
    appended to without a flush each, then synced once: a crash leaves whole
    days appended, and a rerun adds only what is missing."""
    by_day: dict[dt.date, list[Message]] = {}
    for msg in sorted((m for m in messages if not m.placeholder), key=lambda m: m.when):
        by_day.setdefault(msg.when.date(), []).append(msg)
    plan: list[tuple[dt.date, Path, list[dailylog.Entry]]] = []
    for day, msgs in sorted(by_day.items()):  # read every day file first: a bad one stops us before any write
        path = dailylog.log_path(person_dir, day)
        have = Counter(_key(e.time, e.speaker, e.text) for e in (dailylog.load(path) if path.exists() else []))
        new = []
        for msg in msgs:
            speaker = "import:me" if msg.speaker == me else f"import:{_safe_speaker(msg.speaker)}"
            entry = dailylog.Entry(msg.when.strftime("%H:%M:%S"), speaker, msg.text)
            key = _key(entry.time, entry.speaker, entry.text)
            if have[key] > 0:
                have[key] -= 1  # this occurrence is already in the log
            else:
                new.append(entry)
        if new:
            plan.append((day, path, new))
    added: dict[str, int] = {}
    for day, path, new in plan:
        dailylog.append_many(path, new, day, durable=False)
        added[day.isoformat()] = len(new)
    if added:
        os.sync()  # one flush for every day file, before the commit
    return added


def import_and_commit(ws, person, messages: list[Message], me: str, fmt: str) -> tuple[dict[str, int], str | None]:
    """`heartcompass import`: pending hand edits first, then the messages into
    the logs and the person's voice refreshed, one commit. Returns (messages
    added per day, the commit); nothing new: ({}, None)."""
    from heartcompass.memory import voice
    from heartcompass.store import audit

    with audit.writing(ws, "import"):
        audit.commit_pending(ws, [person])
        added = to_logs(person.dir, messages, me)
        if not added:
            return added, None
        paths = [person.logs_dir / f"{day}.md" for day in added]
        derived = []
        if voice.refresh(person.dir, person.load_profile().names()):  # their lines and rhythm, in the same commit
            derived.append(voice.path_of(person.dir))
        what = f"{sum(added.values())} messages from a {fmt} export"
        return added, audit.commit_or_roll_back(
            ws, derived, audit.subject(audit.Verb.IMPORT, person.slug, what),
            "\n".join(f"- {day}: {n}" for day, n in sorted(added.items())), keep=paths, what="the voice file")


def skipped(messages: list[Message]) -> Counter:
    """How many app placeholders of each kind the export held."""
    return Counter(m.placeholder for m in messages if m.placeholder)


def _safe_speaker(name: str) -> str:
    """Speakers are one token in the log format: no spaces, dots or brackets."""
    return re.sub(r"[\s·\[\]]+", "_", name.strip()) or "unknown"
