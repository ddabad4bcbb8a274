"""Spans of days: what a date people say can mean, from its first day to its
last ("2022" is the whole year, "last summer" June to August, "~2023-06-02"
the week around it). A date is supported when its span meets a span its
evidence says. No model here."""

from __future__ import annotations

import calendar
import datetime as dt

Span = tuple[dt.date, dt.date]  # first and last day, both in
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2),
            "春": (3, 5), "夏": (6, 8), "秋": (9, 11), "冬": (12, 2)}


def day(d: dt.date, before: int = 0, after: int = 0) -> Span | None:
    try:
        return (d - dt.timedelta(days=before), d + dt.timedelta(days=after))
    except OverflowError:
        return None


def year(y: int, last: int | None = None) -> Span | None:
    """The year y (or the years y..last)."""
    try:
        return (dt.date(y, 1, 1), dt.date(last if last is not None else y, 12, 31))
    except ValueError:
        return None


def month(y: int, m: int, months_after: int = 0) -> Span | None:
    """The month m of year y (m may run past 12 or below 1), or that and the months after it."""
    first, last = y * 12 + m - 1, y * 12 + m - 1 + months_after
    try:
        end_year, end_month = divmod(last, 12)
        return (dt.date(first // 12, first % 12 + 1, 1),
                dt.date(end_year, end_month + 1, calendar.monthrange(end_year, end_month + 1)[1]))
    except ValueError:
        return None


def week(d: dt.date, weeks: int = 0) -> Span | None:
    """Monday to Sunday of d's week, moved by `weeks`."""
    monday = d - dt.timedelta(days=d.weekday()) + dt.timedelta(weeks=weeks)
    return day(monday, 0, 6)


def weekend(d: dt.date, weeks: int = 0) -> Span | None:
    """The Saturday and Sunday of d's week, moved by `weeks`: said on Friday
    2023-04-07, "last weekend" (weeks=-1) is 2023-04-01 and 04-02."""
    monday = d - dt.timedelta(days=d.weekday()) + dt.timedelta(weeks=weeks)
    return day(monday + dt.timedelta(days=5), 0, 1)


def season(y: int, name: str) -> Span | None:
    """A season of year y; winter is December to the February after, and
    January and February of y as well (people say "last winter" of either)."""
    first, last = _SEASONS[name]
    if first > last:
        return month(y, 1, 13)
    return month(y, first, last - first)


def meets(a: Span, b: Span) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def meets_any(span: Span, spans: list[Span]) -> bool:
    return any(meets(span, s) for s in spans)


def has_month_day(spans: list[Span], m: int, d: int) -> bool:
    """Whether some year's m-d (a date written without its year) falls in one of the spans."""
    for first, last in spans:
        for y in range(first.year, min(last.year, first.year + 200) + 1):
            try:
                if first <= dt.date(y, m, d) <= last:
                    return True
            except ValueError:
                continue
    return False


def approximate(span: Span, precision: str) -> Span | None:
    """A date marked approximate ('~'): a day means the week around it, a month
    the months beside it, a year the years beside it."""
    if precision == "year":
        return year(span[0].year - 1, span[1].year + 1)
    if precision == "month":
        return month(span[0].year, span[0].month - 1, 2)
    return day(span[0], 7, 7)
