"""Dates a text writes out ("2023-04-01", "2022-07", "April 1, 2023",
"2022年7月", "in 2022", "the 1990s", "May 3"), each as the span of days it
means, with the numbers it is written with. A statement's dates are checked
as dates (date_support.py), not as loose numbers; an entry's are dates its
statements may use. No model here."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

from heartcompass.memory.proposal import spans
from heartcompass.memory.proposal.spans import Span

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|december|"
          r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?")
_ORD = r"(?:st|nd|rd|th)?"
_ISO = re.compile(r"(?<![\d.])([12]\d{3})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?(?![\d])")
_CN = re.compile(r"(?<!\d)([12]\d{3})\s*年(?!代)(?:\s*(\d{1,2})\s*月(?:份)?(?:\s*(\d{1,2})\s*[日号])?)?")
_EN = re.compile(rf"\b(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?)?{_MONTH}(?:\s+(\d{{1,2}}){_ORD})?,?\s+([12]\d{{3}})\b", re.I)
_MONTH_DAY = re.compile(rf"\b(?:(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}|{_MONTH}\s+(\d{{1,2}}){_ORD})\b|"
                        r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", re.I)
_YEAR = re.compile(r"(?<![\d.,])(1[89]\d\d|20\d\d)(s|年代)?(?![\d]|[.,]\d)")


@dataclass(frozen=True)
class Written:
    text: str                               # as written
    numbers: frozenset[str]                 # the numbers it is written with
    span: Span | None = None                # the days it means
    month_day: tuple[int, int] | None = None  # a day of the year, year unsaid ("May 3")


def written_dates(text: str) -> tuple[str, list[Written]]:
    """(the text with its dates taken out, those dates). A date that is no
    real one (2023-02-30) is left in, its numbers checked as numbers."""
    text = unicodedata.normalize("NFKC", text)
    found: list[Written] = []

    def take(pattern: re.Pattern, read) -> None:
        nonlocal text

        def one(m: re.Match) -> str:
            written = read(m)
            if written is None:
                return m.group(0)
            found.append(written)
            return " "

        text = pattern.sub(one, text)

    take(_ISO, lambda m: _dated(m[0], int(m[1]), int(m[2]), int(m[3]) if m[3] else None))
    take(_CN, lambda m: _dated(m[0], int(m[1]), int(m[2]) if m[2] else None, int(m[3]) if m[3] else None))
    take(_EN, lambda m: _dated(m[0], int(m[4]), _month(m[2]), int(m[1] or m[3]) if (m[1] or m[3]) else None))
    take(_MONTH_DAY, _month_day)
    take(_YEAR, lambda m: _decade(m) if m[2] else _dated(m[0], int(m[1]), None, None))
    return text, found


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()[:3]) + 1  # the pattern's group holds no "."


def _dated(written: str, year: int, month: int | None, day: int | None) -> Written | None:
    numbers = frozenset(str(n) for n in (year, month, day) if n is not None)
    try:
        if month is None:
            return Written(written, numbers, spans.year(year))
        if day is None:
            dt.date(year, month, 1)
            return Written(written, numbers, spans.month(year, month))
        return Written(written, numbers, spans.day(dt.date(year, month, day)))
    except ValueError:
        return None


def _decade(m: re.Match) -> Written | None:
    first = int(m[1])
    return Written(m[0], frozenset({m[1]}), spans.year(first, first + 9)) if first % 10 == 0 else None


def _month_day(m: re.Match) -> Written | None:
    if m[5]:
        month, day = int(m[5]), int(m[6])
    else:
        month, day = _month(m[2] or m[3]), int(m[1] or m[4])
    try:
        dt.date(2000, month, day)  # a leap year: February 29 is a day of the year
    except ValueError:
        return None
    return Written(m[0], frozenset({str(month), str(day)}), month_day=(month, day))
