"""Whether a statement's numbers and dates, and an event's date, stand on
the entries they cite. Amounts are compared by value (numbers.py: "5K" is
"5,000" is "five thousand"); a written date is supported when it falls in a
span a cited entry says (said_dates.py, counted from that entry's day, or a
date it writes out), or on the entry's own day, or when every number it is
written with is one the entries say. Number words of a language we do not
read are refused, never ignored. No model here."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Sequence

from heartcompass.formats import events as events_fmt
from heartcompass.memory.proposal import spans
from heartcompass.memory.proposal.numbers import evidence_numbers, read_numbers, unread_numbers
from heartcompass.memory.proposal.said_dates import said_dates
from heartcompass.memory.proposal.spans import Span
from heartcompass.memory.proposal.written_dates import Written, written_dates

if TYPE_CHECKING:
    from heartcompass.memory.proposal.workbench import LogItem


class Cited:
    """What the cited entries (and the lines a statement carries forward) say
    of numbers and dates."""

    def __init__(self, found: Sequence[LogItem], lines: Sequence[str] = ()):
        self.spans: list[Span] = []
        self.said: list[tuple[str, str, list[Span]]] = []  # (id, day, spans) of each entry, to explain a refusal
        texts = []
        for item in found:
            day = dt.date.fromisoformat(item.day)
            said = said_dates(item.entry.text, day)
            rest, written = written_dates(item.entry.text)
            # its own day (and the night before: an entry just after midnight tells of the evening)
            own = [s for s in (spans.day(day, 1, 0),) if s is not None]
            self.spans += [*own, *said, *(w.span for w in written if w.span)]
            self.said.append((item.id, item.day, said))
            texts += [item.entry.text, item.day]
        for line in lines:
            self.spans += [w.span for w in written_dates(line)[1] if w.span]
            texts.append(line)
        self.numbers = evidence_numbers(" ".join(texts)) | _numbers_of(self.spans)

    def holds(self, date: Written) -> bool:
        if date.span is not None and spans.meets_any(date.span, self.spans):
            return True
        if date.month_day is not None and spans.has_month_day(self.spans, *date.month_day):
            return True
        return date.numbers <= self.numbers

    def explain(self) -> str:
        """What the entries' relative dates mean, for a refusal's reason."""
        said = [f"{ident} ({day}) says {', '.join(_show(s) for s in spans_[:3])}"
                for ident, day, spans_ in self.said if spans_]
        return "; ".join(said)


def unsupported_numbers(text: str, cited: Cited) -> list[str]:
    """The amounts and dates of a statement its evidence does not say, and
    its number words of a language we do not read."""
    rest, dates = written_dates(text)
    numbers = read_numbers(rest)[1]
    missing = sorted(numbers - cited.numbers, key=lambda n: (len(n), n))
    missing += [d.text.strip() for d in dates if not cited.holds(d)]
    missing += [f"{words!r} (number words we do not read: write the amount in digits)"
                for words in unread_numbers(rest)]
    return missing


def event_date_problem(when: events_fmt.When, cited: Cited) -> str | None:
    """Why an event's date does not stand on its entries, or None."""
    if when.year_only:
        span, precision = spans.year(when.date.year), "year"
    elif when.month_only:
        span, precision = spans.month(when.date.year, when.date.month), "month"
    else:
        span, precision = spans.day(when.date), "day"
    if span is not None and when.approx:
        span = spans.approximate(span, precision)
    numbers = [when.date.year] + ([] if when.year_only else [when.date.month]) + \
        ([when.date.day] if not (when.year_only or when.month_only) else [])
    written = Written(when.text, frozenset(map(str, numbers)), span)
    if span is not None and cited.holds(written):
        return None
    said = cited.explain()
    return (f"{when.text} is not a date its entries say (their days, a date they write, or what their relative "
            f"times mean{': ' + said if said else ''}); date it by them, or by the entry's own day")


def _numbers_of(said: list[Span]) -> set[str]:
    """The numbers of the spans that are one day, one month or one year
    (what a statement may write as "三月" or "2020" from "three years ago")."""
    numbers: set[str] = set()
    for first, last in said:
        if first.year != last.year:
            continue
        numbers.add(str(first.year))
        if first.month == last.month:
            numbers.add(str(first.month))
            if first.day == last.day:
                numbers.add(str(first.day))
    return numbers


def _show(span: Span) -> str:
    first, last = span
    return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
