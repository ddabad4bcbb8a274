"""EVENTS.md: one dated, weighted event per line, newest first.

    - 2026-11-28 · w0.8 · Hiked Mount Takao; she was nervous (log 2026-11-28)
    - 2023-06 · w0.6 · Started a pottery class (log 2023-06-20)
    - ~2023-06-02 · Went camping with the kids (log 2023-06-09)
    - 2019 · Moved to Berlin (log 2023-06-09)

A date is a day, a month ("2023-06": "in June"), a year ("2019", when that
is all that is known) or approximate ("~" first: "around the start of June";
"~2022-07": that summer), as people say them. Weight and source are
optional for hand-added lines, '|' is accepted for '·' and '～' or '≈' for
'~' (they are easier to type), and lines may come in any order: the
renderer sorts.
Text before the first event (a title, a note to self) is kept as written.
An event's score (its weight, halved every half-life) ranks it for prompts."""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from heartcompass.errors import FormatError
from heartcompass.formats import frontmatter_doc as fm
from heartcompass.formats.text import FILE_KINDS, read_text
from heartcompass.formats.sources import SOURCE

FILENAME = FILE_KINDS["events"]
DEFAULT_WEIGHT = 0.5
_SEP = r"\s*[·|]\s*"
APPROX = "~～≈"  # what marks an approximate date; "~" is the one written
# No lazy quantifier and no trailing \s*$: this runs 20,000 times per prompt.
_LINE = re.compile(
    rf"- (?P<approx>[{APPROX}] ?)?(?P<date>\d{{4}}(?:-\d{{2}}(?:-\d{{2}})?)?)(?:{_SEP}|\s+)"
    rf"(?:w(?P<weight>\d+(?:\.\d+)?){_SEP})?(?P<text>.*)"
)
_WHEN = re.compile(rf"(?P<approx>[{APPROX}] ?)?(?P<date>\d{{4}}(?:-\d{{2}}(?:-\d{{2}})?)?)")
FORMAT_HINT = ("Write events as '- YYYY-MM-DD · w0.8 · what happened (source)'; weight and source are optional; "
               "the date may be a month (2023-06), a year (2019) or approximate (~2023-06-02).")


@dataclass
class Event:
    date: dt.date              # the sort key: the day, or the first of the month (or year) for a month (or year)
    text: str
    weight: float | None = None
    source: str | None = None
    month_only: bool = False   # "2023-06": some day that month
    approx: bool = False       # "~2023-06-02": about then
    year_only: bool = False    # "2019": some time that year

    @property
    def effective_weight(self) -> float:
        return DEFAULT_WEIGHT if self.weight is None else self.weight

    @property
    def when(self) -> str:
        """The date as the file writes it and people read it: 2023-06-02,
        2023-06 (a month), 2019 (a year) or ~2023-06-02 (approximate)."""
        return format_when(self.date, self.month_only, self.approx, self.year_only)

    def render(self) -> str:
        parts = [self.when]
        if self.weight is not None:
            parts.append(f"w{_fmt_weight(self.weight)}")
        text = self.text + (f" ({self.source})" if self.source else "")
        parts.append(text)
        return "- " + " · ".join(parts)


@dataclass
class EventsFile:
    doc: fm.Document
    path: Path
    preamble: str
    events: list[Event] = field(default_factory=list)
    _orig_events: list[Event] | None = field(default_factory=list, repr=False)  # None: parsed only to read

    def sorted_events(self) -> list[Event]:
        """Newest first; a day sorts before its month (2023-06-20, then 2023-06),
        a month of a year before the year itself, and an exact date before an
        approximate one on the same day."""
        return sorted(self.events, key=lambda e: (e.date, not e.year_only, not e.month_only, not e.approx),
                      reverse=True)


class When(NamedTuple):
    """An event's date as parsed: its sort date and how precise it is."""
    date: dt.date
    month_only: bool = False
    approx: bool = False
    year_only: bool = False

    @property
    def text(self) -> str:
        return format_when(*self)


def parse_when(value: str) -> When:
    """The date of '2023-06-02', '2023-06', '2019' or '~2023-06-02';
    ValueError naming what is wrong."""
    m = _WHEN.fullmatch(value.strip())
    if not m:
        raise ValueError(f"{value.strip()[:30]!r} is not a date (YYYY-MM-DD, YYYY-MM, YYYY or ~YYYY-MM-DD)")
    date, month_only = _date_of(m["date"])
    return When(date, month_only, m["approx"] is not None, len(m["date"]) == 4)


def _date_of(text: str) -> tuple[dt.date, bool]:
    month_only = len(text) == 7
    try:
        date = dt.date.fromisoformat(text + "-01" if month_only else text + "-01-01" if len(text) == 4 else text)
    except ValueError:
        raise ValueError(f"{text} is not a real {'month' if month_only else 'date'}") from None
    return date, month_only


def format_when(date: dt.date, month_only: bool = False, approx: bool = False, year_only: bool = False) -> str:
    written = date.isoformat()[:4] if year_only else date.isoformat()[:7] if month_only else date.isoformat()
    return ("~" if approx else "") + written


def score(event: Event, today: dt.date, half_life_days: float) -> float:
    """How much an event matters today: its weight, halved every half-life."""
    age = max((today - event.date).days, 0)
    return event.effective_weight * math.exp(-math.log(2) * age / half_life_days)


def _fmt_weight(w: float) -> str:
    text = f"{w:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def parse_line(line: str, path: Path | str, lineno: int) -> Event:
    m = _LINE.match(line)
    if not m:
        raise FormatError(path, f"not an event line: {line.strip()[:60]!r}", lineno, FORMAT_HINT)
    raw = m["date"]
    month_only, year_only = len(raw) == 7, len(raw) == 4
    try:  # inline: 20,000 lines per prompt
        date = dt.date.fromisoformat(raw + "-01" if month_only else raw + "-01-01" if year_only else raw)
    except ValueError:
        raise FormatError(path, f"{raw} is not a real {'month' if month_only else 'year' if year_only else 'date'}",
                          lineno, FORMAT_HINT) from None
    weight = None
    if m["weight"] is not None:
        weight = float(m["weight"])
        if not 0.0 <= weight <= 1.0:
            raise FormatError(path, f"weight w{m['weight']} is outside 0..1", lineno,
                              "Weights go from w0 (trivial) to w1 (life-changing).")
    text = m["text"].rstrip()
    source = None
    if text.endswith(")"):
        start = text.rfind("(")
        if start >= 0 and SOURCE.fullmatch(text, start + 1, len(text) - 1):
            source, text = text[start + 1:-1], text[:start].rstrip()
    if not text:
        raise FormatError(path, "the event has a date but no text", lineno, FORMAT_HINT)
    if month_only or year_only or m["approx"] is not None:
        return Event(date, text, weight, source, month_only, m["approx"] is not None, year_only)
    return Event(date, text, weight, source)  # the usual line, as fast as before


def parse(text: str, path: Path, *, readonly: bool = False) -> EventsFile:
    """readonly: for a reader such as the prompt, which never renders the
    file back: no copy of every event is kept to detect changes (most of
    the time of a 100,000-event file), and render() refuses the result."""
    doc = fm.parse(text, path)
    body_start = text.count("\n", 0, len(text) - len(doc.body))  # lines before the body
    preamble: list[str] = []
    events: list[Event] = []
    for i, line in enumerate(doc.body.splitlines()):
        lineno = body_start + i + 1
        if line.startswith("- "):
            events.append(parse_line(line, path, lineno))
        elif not events:
            preamble.append(line)
        elif line.strip() and not line.lstrip().startswith("<!--"):
            raise FormatError(path, f"unexpected text after the events: {line.strip()[:60]!r}",
                              lineno, FORMAT_HINT)
    pre = "\n".join(preamble).rstrip("\n")
    # a copy of each event: a changed weight must count as a change
    return EventsFile(doc, path, pre + "\n\n" if pre else "", events,
                      None if readonly else [replace(e) for e in events])


def load(path: Path) -> EventsFile:
    return parse(read_text(path), path)


def render(ef: EventsFile) -> str:
    if ef._orig_events is None:  # its original order and bytes were not kept: rendering could reorder them
        raise ValueError(f"{ef.path} was parsed read-only; load it without readonly to write it.")
    if ef.events == ef._orig_events and ef.doc.has_original_text:
        return fm.render(ef.doc)  # unchanged: the original bytes
    lines = "".join(e.render() + "\n" for e in ef.sorted_events())
    ef.doc.body = ef.preamble + lines
    return fm.render(ef.doc)


def new(path: Path, name: str) -> EventsFile:
    preamble = f"\n# Events — {name}\n\n"
    doc = fm.new({}, preamble)
    doc.has_frontmatter = False
    return EventsFile(doc, path, preamble, [], [])


def count_events(text: str) -> int:
    """Fast count for listings, without full parsing."""
    return sum(1 for line in text.splitlines() if _LINE.match(line))
