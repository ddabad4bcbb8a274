"""Dates people say relative to when they say them ("three years ago",
"last week", "in September", "去年", "上个月"), computed from the date of the
entry that says them: "three years ago", said on 2023-06-09, is 2020. The
number check (evidence.py) accepts the numbers of these dates as said by
the entries a statement cites, so the gardener can write the year itself
instead of a time that no longer means anything once the day has passed."""

from __future__ import annotations

import datetime as dt
import re

_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
               "thirty": 30, "a couple of": 2, "couple of": 2, "several": 3}
_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_NUM = r"\d+|" + "|".join(sorted(map(re.escape, _EN_NUMBERS), key=len, reverse=True))
_CN_NUM = r"\d+|[零一二两俩三四五六七八九十]+"

_AGO = re.compile(rf"\b({_EN_NUM})\s+(year|month|week|day)s?\s+(ago|before|earlier|back)\b", re.I)
_AHEAD = re.compile(rf"\b(?:in\s+({_EN_NUM})\s+(year|month|week|day)s?(?:'?\s+time)?|({_EN_NUM})\s+(year|month|week|day)s?"
                    rf"\s+(?:from now|later))\b", re.I)
_NAMED = re.compile(r"\b(last|next|this)\s+(year|month|week|weekend)\b|\byear before last\b|\b(yesterday|today|"
                    r"tonight|tomorrow)\b|\bday before yesterday\b|\bday after tomorrow\b", re.I)
_MONTH = re.compile(r"\b(?:(last|next|this)\s+)?(" + "|".join(_MONTHS) + r"|(?:jan|feb|mar|apr|jun|jul|aug|sep|"
                    r"sept|oct|nov|dec)\.?)\b", re.I)
_WEEKDAY = re.compile(r"\b(last|next|this|on)\s+(" + "|".join(_WEEKDAYS) + r")\b", re.I)
_CN_AGO = re.compile(rf"({_CN_NUM})\s*(?:个)?(年|月|周|星期|礼拜|天)(前|以前|之前|后|以后|之后)")
_CN_NAMED = re.compile(r"大前年|前年|去年|今年|明年|后年|上个?月|下个?月|这个月|本月|上个?(?:周|星期|礼拜)|"
                       r"下个?(?:周|星期|礼拜)|大前天|前天|昨天|今天|明天|后天")
_CN_MONTH = re.compile(r"(去年|今年|明年)?([一二三四五六七八九十]{1,3})月")
_CN_NAMED_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "今天": 0, "明天": 1, "后天": 2}
_CN_NAMED_YEARS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}


def said_dates(text: str, day: dt.date) -> list[dt.date | tuple[int, int] | int]:
    """The dates a text said on `day` refers to: a day, a (year, month), or
    a year, as precise as what was said."""
    out: list = []
    for m in _AGO.finditer(text):
        out.append(_shift(day, m[2].lower(), -_en(m[1])))
    for m in _AHEAD.finditer(text):
        n, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        out.append(_shift(day, unit.lower(), _en(n)))
    for m in _NAMED.finditer(text):
        word = m[0].lower()
        if m[1]:
            step = {"last": -1, "next": 1, "this": 0}[m[1].lower()]
            unit = m[2].lower()
            out.append(_shift(day, "week" if unit == "weekend" else unit, step))
        elif "before last" in word:
            out.append(day.year - 2)
        else:
            out.append(day + dt.timedelta(days={"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1,
                                                "day before yesterday": -2, "day after tomorrow": 2}[word]))
    for m in _MONTH.finditer(text):
        if m[2].lower() == "may" and not m[1] and not re.search(r"\b(in|of|since|until|by|early|late|mid)\s+$",
                                                                 text[:m.start()], re.I):
            continue  # "she may come" is no month
        month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m[2].lower().rstrip(".")[:3]))
        out.append(_month_said(day, month, (m[1] or "").lower()))
    for m in _WEEKDAY.finditer(text):
        out.append(_weekday_said(day, _WEEKDAYS.index(m[2].lower()), m[1].lower()))
    for m in _CN_AGO.finditer(text):
        n = _cn(m[1])
        unit = {"年": "year", "月": "month", "天": "day"}.get(m[2], "week")
        if n is not None:
            out.append(_shift(day, unit, -n if "前" in m[3] else n))
    for m in _CN_NAMED.finditer(text):
        word = m[0]
        if word in _CN_NAMED_YEARS:
            out.append(day.year + _CN_NAMED_YEARS[word])
        elif word in _CN_NAMED_DAYS:
            out.append(day + dt.timedelta(days=_CN_NAMED_DAYS[word]))
        else:
            step = -1 if word[0] == "上" else 1 if word[0] == "下" else 0
            out.append(_shift(day, "month" if word.endswith("月") else "week", step))
    for m in _CN_MONTH.finditer(text):
        number = _cn(m[2])
        if number and 1 <= number <= 12:
            year = day.year + _CN_NAMED_YEARS.get(m[1] or "今年", 0)
            out.append((year, number) if m[1] else _month_said(day, number, ""))
    return out


def said_numbers(text: str, day: dt.date) -> set[str]:
    """The numbers (year, month, day, as the number check writes them) of
    the dates a text said on `day` refers to."""
    numbers: set[str] = set()
    for when in said_dates(text, day):
        if isinstance(when, dt.date):
            numbers |= {str(when.year), str(when.month), str(when.day)}
        elif isinstance(when, tuple):
            numbers |= {str(when[0]), str(when[1])}
        else:
            numbers.add(str(when))
    return numbers


def _shift(day: dt.date, unit: str, n: int) -> dt.date | tuple[int, int] | int:
    if unit == "year":
        return day.year + n
    if unit == "month":
        index = day.year * 12 + day.month - 1 + n
        return (index // 12, index % 12 + 1)
    try:
        return day + dt.timedelta(days=n * (7 if unit == "week" else 1))
    except OverflowError:
        return day


def _month_said(day: dt.date, month: int, which: str) -> tuple[int, int]:
    """'last September', 'next March', or just 'in September' (this year's)."""
    if which == "last":
        return (day.year - 1 if month >= day.month else day.year, month)
    if which == "next":
        return (day.year + 1 if month <= day.month else day.year, month)
    return (day.year, month)


def _weekday_said(day: dt.date, weekday: int, which: str) -> dt.date:
    """'last Friday': the one before the day; 'next', 'this' or 'on Friday': the next one."""
    if which == "last":
        back = (day.weekday() - weekday) % 7 or 7
        return day - dt.timedelta(days=back)
    ahead = (weekday - day.weekday()) % 7 or (7 if which == "next" else 0)
    return day + dt.timedelta(days=ahead)


def _en(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _EN_NUMBERS.get(word, 1)


def _cn(word: str) -> int | None:
    """An Arabic or Chinese number up to 99 ('三', '十二', '二十三')."""
    if word.isdigit():
        return int(word)
    if "十" in word:
        tens, _, ones = word.partition("十")
        return (_CN_DIGITS.get(tens, 0) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    if len(word) == 1:
        return _CN_DIGITS.get(word)
    return None
