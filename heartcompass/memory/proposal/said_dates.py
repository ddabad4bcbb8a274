"""Dates people say relative to when they say them ("three years ago",
"last weekend", "last summer", "a few years ago", "recently", "去年夏天",
"上周末", "前几年"), as the span of days each can mean, counted from the
date of the entry that says them and with the tolerance the phrase has:
"three years ago", said on 2023-06-09, is 2020; "last weekend", said on
Friday 2023-04-07, is 2023-04-01 or 04-02; "a few years ago" is 2 to 5
years before. A date a statement or an event writes is supported when it
falls in one of them (date_support.py), so the gardener can write the date
itself instead of a time that no longer means anything once the day has
passed."""

from __future__ import annotations

import datetime as dt
import re

from heartcompass.memory.proposal import spans
from heartcompass.memory.proposal.spans import Span

_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
               "thirty": 30}
# how far back or ahead a vague count goes: "a few years ago" is 2 to 5 years before
_VAGUE = {"a few": (2, 5), "few": (2, 5), "a couple of": (1, 3), "a couple": (1, 3), "couple of": (1, 3),
          "several": (3, 7), "many": (5, 30), "几": (2, 5), "好几": (3, 9)}
_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_NUM = r"\d+|" + "|".join(sorted(map(re.escape, [*_EN_NUMBERS, *_VAGUE]), key=len, reverse=True))
_CN_NUM = r"\d+|好几|几|[零一二两俩三四五六七八九十]+"
_DAY_NUM = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_NAME = "|".join(_MONTHS) + r"|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"

_AGO = re.compile(rf"\b({_EN_NUM})\s+(year|month|week|day)s?\s+(ago|before|earlier|back)\b", re.I)
_AHEAD = re.compile(rf"\b(?:in\s+({_EN_NUM})\s+(year|month|week|day)s?(?:'?\s+time)?|({_EN_NUM})\s+(year|month|"
                    rf"week|day)s?\s+(?:from now|later))\b", re.I)
_NAMED = re.compile(r"\b(last|next|this|past)\s+(year|month|week|weekend)\b|\b(?:the|this)\s+weekend\b|"
                    r"\byear before last\b|\b(yesterday|today|tonight|tomorrow|last night|this morning)\b|"
                    r"\bday before yesterday\b|\bday after tomorrow\b", re.I)
_RECENT = re.compile(r"\b(recently|lately|not long ago|the other day|a while (?:ago|back)|some time ago)\b", re.I)
_SEASON = re.compile(r"\b(?:(last|next|this|past|the|in)\s+)?(?:(?:this\s+)?past\s+)?(spring|summer|autumn|fall|"
                     r"winter)\b", re.I)
_MONTH = re.compile(rf"\b(?:(last|next|this)\s+)?(?:{_DAY_NUM}\s+(?:of\s+)?)?({_MONTH_NAME})(?:\s+{_DAY_NUM}\b)?"
                    r"(?!\s*,?\s*\d{4})", re.I)
_WEEKDAY = re.compile(r"\b(last|next|this|on)\s+(" + "|".join(_WEEKDAYS) + r")\b", re.I)
_CN_AGO = re.compile(rf"({_CN_NUM})\s*(?:个)?(年|月|周|星期|礼拜|天)(前|以前|之前|后|以后|之后)|前(几|好几)(?:个)?(年|月|周|天)")
_CN_NAMED = re.compile(r"大前年|前年|去年|今年|明年|后年|上个?月|下个?月|这个月|本月|(上|下|这|本)个?(周末|周|星期|礼拜)"
                       r"(?![一二三四五六日天1-7])|周末|大前天|前天|昨天|昨晚|今天|今晚|今早|明天|后天")
_CN_RECENT = re.compile(r"最近|近来|前阵子|前一阵|前段时间|前些日子|前些天|不久前|这几年|近几年")
_CN_SEASON = re.compile(r"(大前年|前年|去年|今年|明年)?(春|夏|秋|冬)(?:天|季)|(去年|今年|明年)?(暑|寒)假")
_CN_MONTH = re.compile(r"(去年|今年|明年)?(\d{1,2}|[一二三四五六七八九十]{1,3})月(?:份)?(?:(\d{1,2}|[一二三四五六七八九十]{1,3})"
                       r"[日号])?")
_CN_WEEKDAY = re.compile(r"(上|下|这|本)?个?(?:周|星期|礼拜)([一二三四五六日天1-7])")
_CN_NAMED_DAYS = {"大前天": (-3, -3), "前天": (-2, -2), "昨天": (-1, -1), "昨晚": (-1, 0), "今天": (0, 0),
                  "今晚": (0, 0), "今早": (0, 0), "明天": (1, 1), "后天": (2, 2)}
_CN_NAMED_YEARS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_CN_WEEKDAYS = {c: i for i, c in enumerate("一二三四五六日")} | {"天": 6} | {str(i): i - 1 for i in range(1, 8)}


def said_dates(text: str, day: dt.date) -> list[Span]:
    """The spans of days a text said on `day` may mean, one or more per phrase."""
    if not 1 < day.year < 9999:  # no log is dated at the calendar's ends: counting from them would overflow
        return []
    out: list[Span | None] = []
    for m in _AGO.finditer(text):
        out.append(_back(day, m[2].lower(), _count(m[1])))
    for m in _AHEAD.finditer(text):
        n, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        lo, hi = _count(n)
        out.append(_back(day, unit.lower(), (-hi, -lo)))
    for m in _NAMED.finditer(text):
        out += _named(day, m)
    for m in _RECENT.finditer(text):
        out.append(_recent(day, m[1].lower()))
    for m in _SEASON.finditer(text):
        which, name = (m[1] or "").lower(), m[2].lower()
        if name != "fall" or which:  # "I fall asleep" is no season
            out += _season(day, name, "last" if "past" in m[0].lower() else which)
    for m in _MONTH.finditer(text):
        if m[3].lower() == "may" and not m[1] and not m[2] and not m[4] and not re.search(
                r"\b(in|of|since|until|by|early|late|mid)\s+$", text[:m.start()], re.I):
            continue  # "she may come" is no month
        month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m[3].lower().rstrip(".")[:3]))
        out += _month_said(day, month, (m[1] or "").lower(), m[2] or m[4])
    for m in _WEEKDAY.finditer(text):
        out += _weekday_said(day, _WEEKDAYS.index(m[2].lower()), m[1].lower())
    out += _chinese(text, day)
    return [s for s in out if s is not None]


def _chinese(text: str, day: dt.date) -> list[Span | None]:
    out: list[Span | None] = []
    for m in _CN_AGO.finditer(text):
        if m[4]:  # 前几年, 前几天
            out.append(_back(day, _CN_UNITS[m[5]], _VAGUE[m[4]]))
            continue
        n = _VAGUE.get(m[1]) or _cn(m[1])
        if n is not None:
            lo, hi = n if isinstance(n, tuple) else (n, n)
            out.append(_back(day, _CN_UNITS[m[2]], (lo, hi) if "前" in m[3] else (-hi, -lo)))
    for m in _CN_NAMED.finditer(text):
        word = m[0]
        if word in _CN_NAMED_YEARS:
            out.append(spans.year(day.year + _CN_NAMED_YEARS[word]))
        elif word in _CN_NAMED_DAYS:
            before, after = _CN_NAMED_DAYS[word]
            out.append(spans.day(day + dt.timedelta(days=before), 0, after - before))
        elif word.endswith("周末"):
            weeks = {"上": [-1], "下": [0, 1], "这": [0], "本": [0]}.get(word[0], [-1, 0])
            out += [spans.weekend(day, w) for w in weeks]
        else:
            step = -1 if word[0] == "上" else 1 if word[0] == "下" else 0
            out.append(spans.month(day.year, day.month + step) if word.endswith("月") else spans.week(day, step))
    for m in _CN_RECENT.finditer(text):
        out.append(spans.year(day.year - 5, day.year) if m[0].endswith("几年") else _recent(day, "recently"))
    for m in _CN_SEASON.finditer(text):
        prefix, name = (m[1], m[2]) if m[2] else (m[3], "夏" if m[4] == "暑" else "冬")
        if prefix:
            out.append(spans.season(day.year + _CN_NAMED_YEARS[prefix], name))
        else:
            out += _season(day, name, "")
    for m in _CN_MONTH.finditer(text):
        number, date = _cn(m[2]), _cn(m[3]) if m[3] else None
        if number and 1 <= number <= 12:
            if m[1]:
                y = day.year + _CN_NAMED_YEARS[m[1]]
                out.append(_on(y, number, date))
            else:
                out += _month_said(day, number, "", str(date) if date else None)
    for m in _CN_WEEKDAY.finditer(text):
        weekday = _CN_WEEKDAYS[m[2]]
        if m[1]:
            monday = day - dt.timedelta(days=day.weekday())
            out.append(spans.day(monday + dt.timedelta(weeks={"上": -1, "下": 1}.get(m[1], 0), days=weekday)))
        else:
            out += _weekday_said(day, weekday, "on")
    return out


_CN_UNITS = {"年": "year", "月": "month", "周": "week", "星期": "week", "礼拜": "week", "天": "day"}


def _count(word: str) -> tuple[int, int]:
    """A count said in words or digits, as the range it means: "three" is 3
    to 3, "a few" 2 to 5."""
    word = " ".join(word.lower().split())
    if word in _VAGUE:
        return _VAGUE[word]
    n = int(word) if word.isdigit() else _EN_NUMBERS[word]  # _AGO and _AHEAD match no other word
    return n, n


def _back(day: dt.date, unit: str, counts: tuple[int, int]) -> Span | None:
    """The span `counts` (lo, hi) units before `day` (negative: after it)."""
    try:
        return _units_back(day, unit, *counts)
    except OverflowError:  # "in 99999999 days": no date
        return None


def _units_back(day: dt.date, unit: str, lo: int, hi: int) -> Span | None:
    if unit == "year":
        return spans.year(day.year - hi, day.year - lo)
    if unit == "month":
        return spans.month(day.year, day.month - hi, hi - lo)
    if unit == "week":  # "two weeks ago": that week, give or take a few days
        return spans.day(day - dt.timedelta(weeks=hi), 3, 3 + 7 * (hi - lo))
    return spans.day(day - dt.timedelta(days=hi), 0, hi - lo)


def _named(day: dt.date, m: re.Match) -> list[Span | None]:
    word = " ".join(m[0].lower().split())
    if m[1]:
        step = {"last": -1, "past": -1, "next": 1, "this": 0}[m[1].lower()]
        unit = m[2].lower()
        if unit == "weekend":
            return [spans.weekend(day, s) for s in ([0, 1] if step == 1 else [step])]
        if unit == "year":
            return [spans.year(day.year + step)]
        return [spans.month(day.year, day.month + step) if unit == "month" else spans.week(day, step)]
    if word.endswith("weekend"):  # "the weekend": the one past or the one coming
        return [spans.weekend(day, -1), spans.weekend(day, 0)]
    if "before last" in word:
        return [spans.year(day.year - 2)]
    before, after = {"yesterday": (-1, -1), "today": (0, 0), "tonight": (0, 0), "tomorrow": (1, 1),
                     "last night": (-1, 0), "this morning": (0, 0), "day before yesterday": (-2, -2),
                     "day after tomorrow": (2, 2)}[word]
    return [spans.day(day + dt.timedelta(days=before), 0, after - before)]


def _recent(day: dt.date, word: str) -> Span | None:
    """How far back "recently" and its kin reach (in days)."""
    back = {"the other day": 14, "a while ago": 3 * 365, "a while back": 3 * 365, "some time ago": 3 * 365}
    return spans.day(day, back.get(word, 90), 0)


def _season(day: dt.date, name: str, which: str) -> list[Span | None]:
    """"last summer" is the summer of the year before (and this year's too
    once it is over); a season said alone is this year's or last year's."""
    # only an English season comes with a "last" (去年夏天 is a year's, said_dates' _chinese)
    last_month = {"spring": 5, "summer": 8, "autumn": 11, "fall": 11}.get(name, 12)
    season_over = day.month > last_month
    if which == "last":  # "past summer" comes as "last"
        return [spans.season(day.year - 1, name)] + ([spans.season(day.year, name)] if season_over else [])
    if which == "next":
        return [spans.season(day.year + 1, name), spans.season(day.year, name)]
    if which == "this":
        return [spans.season(day.year, name)]
    return [spans.season(day.year, name), spans.season(day.year - 1, name)]


def _on(year: int, month: int, date: int | None) -> Span | None:
    if date is None:
        return spans.month(year, month)
    try:
        return spans.day(dt.date(year, month, date))
    except ValueError:
        return spans.month(year, month)


def _month_said(day: dt.date, month: int, which: str, date: str | None) -> list[Span | None]:
    """'last September', 'next March', or just 'in September' / 'September 5'
    (this year's, or last year's when said before it comes round)."""
    n = int(date) if date else None
    if which == "last":
        return [_on(day.year - 1 if month >= day.month else day.year, month, n)]
    if which == "next":
        return [_on(day.year + 1 if month <= day.month else day.year, month, n)]
    if which == "this":
        return [_on(day.year, month, n)]
    return [_on(day.year, month, n), _on(day.year - 1, month, n) if month > day.month else None]


def _weekday_said(day: dt.date, weekday: int, which: str) -> list[Span | None]:
    """'last Friday': the one before the day (or the one before that); 'next
    Friday': the next one (or the one after); 'this' or 'on Friday': the next
    one or the one just past."""
    back = (day.weekday() - weekday) % 7 or 7
    ahead = (weekday - day.weekday()) % 7 or 7
    if which == "last":
        return [spans.day(day - dt.timedelta(days=back)), spans.day(day - dt.timedelta(days=back + 7))]
    if which == "next":
        return [spans.day(day + dt.timedelta(days=ahead)), spans.day(day + dt.timedelta(days=ahead + 7))]
    same = [spans.day(day)] if day.weekday() == weekday else []
    return [*same, spans.day(day - dt.timedelta(days=back)), spans.day(day + dt.timedelta(days=ahead))]


def _cn(word: str) -> int | None:
    """An Arabic or Chinese number up to 99 ('三', '十二', '二十三'); None for a
    run that is none ('三四', "three or four"; '三四十', '十十')."""
    if word.isdigit():
        return int(word)
    tens, ten, ones = word.partition("十")
    if not ten:
        return _CN_DIGITS.get(word)
    high, low = (_CN_DIGITS.get(tens) if tens else 1), (_CN_DIGITS.get(ones) if ones else 0)
    return None if high is None or low is None else high * 10 + low
