"""The dates a statement may write (memory/proposal/spans.py, said_dates.py,
written_dates.py, date_support.py, words.py; issue 29: mutants that
survived): each phrase people say is the span of days it can mean, counted
from the day it was said, no wider and no narrower; a written date is read
with its precision; a refusal explains what the entries' relative times
meant; filler supports nothing. Pure functions, no model, no files."""

from __future__ import annotations

import datetime as dt

import pytest

from heartcompass.formats import dailylog, events as events_fmt
from heartcompass.memory.proposal import spans
from heartcompass.memory.proposal.date_support import Cited, _numbers_of, event_date_problem, unsupported_numbers
from heartcompass.memory.proposal.said_dates import _cn, said_dates
from heartcompass.memory.proposal.words import cjk_bigrams, is_filler
from heartcompass.memory.proposal.workbench import LogItem
from heartcompass.memory.proposal.written_dates import written_dates

d = dt.date
FRIDAY = d(2023, 4, 7)


def one(day: dt.date) -> tuple[dt.date, dt.date]:
    return (day, day)


@pytest.mark.parametrize("phrase, expected", [
    ("two weeks ago", [(d(2023, 3, 21), d(2023, 3, 27))]),  # that week, give or take three days
    ("a few weeks ago", [(d(2023, 2, 28), d(2023, 3, 27))]),  # two to five weeks back, give or take three days
    ("3 days ago", [one(d(2023, 4, 4))]),
    ("a couple of months ago", [(d(2023, 1, 1), d(2023, 3, 31))]),
    ("several years back", [(d(2016, 1, 1), d(2020, 12, 31))]),
    ("in 2 years", [(d(2025, 1, 1), d(2025, 12, 31))]),
    ("in three weeks' time", [(d(2023, 4, 25), d(2023, 5, 1))]),
    ("two days from now", [one(d(2023, 4, 9))]),
    ("a month later", [(d(2023, 5, 1), d(2023, 5, 31))]),
    ("this weekend", [(d(2023, 4, 8), d(2023, 4, 9))]),
    ("next weekend", [(d(2023, 4, 8), d(2023, 4, 9)), (d(2023, 4, 15), d(2023, 4, 16))]),
    ("the weekend", [(d(2023, 4, 1), d(2023, 4, 2)), (d(2023, 4, 8), d(2023, 4, 9))]),
    ("year before last", [(d(2021, 1, 1), d(2021, 12, 31))]),
    ("last night", [(d(2023, 4, 6), d(2023, 4, 7))]),
    ("day before yesterday", [one(d(2023, 4, 5))]),
    ("day after tomorrow", [one(d(2023, 4, 9))]),
    ("tomorrow", [one(d(2023, 4, 8))]),
    ("tonight", [one(FRIDAY)]),
    ("this month", [(d(2023, 4, 1), d(2023, 4, 30))]),
    ("next month", [(d(2023, 5, 1), d(2023, 5, 31))]),
    ("past week", [(d(2023, 3, 27), d(2023, 4, 2))]),
    ("next week", [(d(2023, 4, 10), d(2023, 4, 16))]),
    ("next year", [(d(2024, 1, 1), d(2024, 12, 31))]),
    ("lately", [(d(2023, 1, 7), FRIDAY)]),
    ("the other day", [(d(2023, 3, 24), FRIDAY)]),
    ("a while ago", [(d(2020, 4, 7), FRIDAY)]),
    ("some time ago", [(d(2020, 4, 7), FRIDAY)]),
    ("a while back", [(d(2020, 4, 7), FRIDAY)]),
    ("last winter", [(d(2022, 1, 1), d(2023, 2, 28))]),
    ("this winter", [(d(2023, 1, 1), d(2024, 2, 29))]),
    ("next summer", [(d(2024, 6, 1), d(2024, 8, 31)), (d(2023, 6, 1), d(2023, 8, 31))]),
    ("spring", [(d(2023, 3, 1), d(2023, 5, 31)), (d(2022, 3, 1), d(2022, 5, 31))]),
    ("this past spring", [(d(2022, 3, 1), d(2022, 5, 31))]),
    ("I fall asleep", []),
    ("last fall", [(d(2022, 9, 1), d(2022, 11, 30))]),
    ("last September", [(d(2022, 9, 1), d(2022, 9, 30))]),
    ("last March", [(d(2023, 3, 1), d(2023, 3, 31))]),
    ("next March", [(d(2024, 3, 1), d(2024, 3, 31))]),
    ("next June", [(d(2023, 6, 1), d(2023, 6, 30))]),
    ("this June", [(d(2023, 6, 1), d(2023, 6, 30))]),
    ("last September 5", [one(d(2022, 9, 5))]), ("next March 3", [one(d(2024, 3, 3))]),
    ("this June 5", [one(d(2023, 6, 5))]), ("this morning", [one(FRIDAY)]), ("today", [one(FRIDAY)]),
    ("September 5", [one(d(2023, 9, 5)), one(d(2022, 9, 5))]),
    ("5th of May", [one(d(2023, 5, 5)), one(d(2022, 5, 5))]),
    ("in March", [(d(2023, 3, 1), d(2023, 3, 31))]),
    ("she may come", []),
    ("early May", [(d(2023, 5, 1), d(2023, 5, 31)), (d(2022, 5, 1), d(2022, 5, 31))]),
    ("February 30", [(d(2023, 2, 1), d(2023, 2, 28))]),  # no such day: the month
    ("last Friday", [one(d(2023, 3, 31)), one(d(2023, 3, 24))]),
    ("last Monday", [one(d(2023, 4, 3)), one(d(2023, 3, 27))]),
    ("next Friday", [one(d(2023, 4, 14)), one(d(2023, 4, 21))]),
    ("next Monday", [one(d(2023, 4, 10)), one(d(2023, 4, 17))]),
    ("on Friday", [one(FRIDAY), one(d(2023, 3, 31)), one(d(2023, 4, 14))]),
    ("this Sunday", [one(d(2023, 4, 2)), one(d(2023, 4, 9))]),
    ("三天前", [one(d(2023, 4, 4))]),
    ("3天后", [one(d(2023, 4, 10))]),
    ("两个月后", [(d(2023, 6, 1), d(2023, 6, 30))]),
    ("几年前", [(d(2018, 1, 1), d(2021, 12, 31))]),
    ("好几天以后", [(d(2023, 4, 10), d(2023, 4, 16))]),  # three to nine days on
    ("前几天", [(d(2023, 4, 2), d(2023, 4, 5))]),
    ("两周前", [(d(2023, 3, 21), d(2023, 3, 27))]),
    ("大前年", [(d(2020, 1, 1), d(2020, 12, 31))]),
    ("后年", [(d(2025, 1, 1), d(2025, 12, 31))]),
    ("上个月", [(d(2023, 3, 1), d(2023, 3, 31))]),
    ("下月", [(d(2023, 5, 1), d(2023, 5, 31))]),
    ("这个月", [(d(2023, 4, 1), d(2023, 4, 30))]),
    ("下周", [(d(2023, 4, 10), d(2023, 4, 16))]),
    ("上礼拜", [(d(2023, 3, 27), d(2023, 4, 2))]),
    ("这周末", [(d(2023, 4, 8), d(2023, 4, 9))]),
    ("下周末", [(d(2023, 4, 8), d(2023, 4, 9)), (d(2023, 4, 15), d(2023, 4, 16))]),
    ("周末", [(d(2023, 4, 1), d(2023, 4, 2)), (d(2023, 4, 8), d(2023, 4, 9))]),
    ("昨晚", [(d(2023, 4, 6), FRIDAY)]),
    ("大前天", [one(d(2023, 4, 4))]),
    ("后天", [one(d(2023, 4, 9))]),
    ("近几年", [(d(2018, 1, 1), d(2023, 12, 31))]),
    ("最近", [(d(2023, 1, 7), FRIDAY)]),
    ("去年冬天", [(d(2022, 1, 1), d(2022, 12, 31)), (d(2022, 1, 1), d(2023, 2, 28))]),
    ("秋天", [(d(2023, 9, 1), d(2023, 11, 30)), (d(2022, 9, 1), d(2022, 11, 30))]),
    ("暑假", [(d(2023, 6, 1), d(2023, 8, 31)), (d(2022, 6, 1), d(2022, 8, 31))]),
    ("今年寒假", [(d(2023, 1, 1), d(2023, 12, 31)), (d(2023, 1, 1), d(2024, 2, 29))]),
    ("明年5月3日", [(d(2024, 1, 1), d(2024, 12, 31)), one(d(2024, 5, 3))]),
    ("去年十月", [(d(2022, 1, 1), d(2022, 12, 31)), (d(2022, 10, 1), d(2022, 10, 31))]),
    ("3月", [(d(2023, 3, 1), d(2023, 3, 31))]),
    ("5月", [(d(2023, 5, 1), d(2023, 5, 31)), (d(2022, 5, 1), d(2022, 5, 31))]),
    ("5月6号", [one(d(2023, 5, 6)), one(d(2022, 5, 6))]),
    ("十三月", []),
    ("上周三", [one(d(2023, 3, 29))]),
    ("本周一", [one(d(2023, 4, 3))]),
    ("周五", [one(FRIDAY), one(d(2023, 3, 31)), one(d(2023, 4, 14))]),
    ("下星期天", [one(d(2023, 4, 16))]),
])
def test_a_said_phrase_is_exactly_the_days_it_can_mean(phrase, expected):
    assert said_dates(phrase, FRIDAY) == expected


def test_a_season_said_after_it_is_over_may_be_this_years():
    for phrase, month, season in (("last spring", 6, (3, 5)), ("last fall", 12, (9, 11)), ("last autumn", 12, (9, 11)),
                                  ("this past summer", 9, (6, 8))):
        this_year = (d(2023, season[0], 1), spans.month(2023, season[1])[1])
        assert this_year in said_dates(phrase, d(2023, month, 15)), phrase
        assert this_year not in said_dates(phrase, d(2023, month - 1, 15)), phrase
    assert said_dates("last winter", d(2023, 12, 15)) == [(d(2022, 1, 1), d(2023, 2, 28))]
    assert said_dates("last summer", d(2023, 9, 15)) == [(d(2022, 6, 1), d(2022, 8, 31)), (d(2023, 6, 1), d(2023, 8, 31))]
    assert said_dates("last summer", d(2023, 8, 15)) == [(d(2022, 6, 1), d(2022, 8, 31))]


def test_a_month_said_is_last_years_only_when_said_before_it_comes_round():
    assert said_dates("in April", FRIDAY) == [(d(2023, 4, 1), d(2023, 4, 30))]
    assert said_dates("last April", FRIDAY) == [(d(2022, 4, 1), d(2022, 4, 30))]
    assert said_dates("next April", FRIDAY) == [(d(2024, 4, 1), d(2024, 4, 30))]


@pytest.mark.parametrize("word, n", [("十", 10), ("二十三", 23), ("十二", 12), ("三", 3), ("12", 12), ("零", 0),
                                     ("三十", 30), ("三四", None), ("x", None),
                                     ("三四十", None), ("十十", None), ("十二十", None), ("零十", 0), ("十零", 10)])
def test_a_chinese_count_up_to_ninety_nine_is_read(word, n):
    assert _cn(word) == n


# -- spans ----------------------------------------------------------------------------------
def test_a_month_runs_past_the_years_ends_and_the_calendars_ends_are_no_date():
    assert spans.month(2023, 0) == (d(2022, 12, 1), d(2022, 12, 31))
    assert spans.month(2023, 13) == (d(2024, 1, 1), d(2024, 1, 31))
    assert spans.month(2023, 11, 3) == (d(2023, 11, 1), d(2024, 2, 29))
    assert spans.day(d.max, 0, 1) is None and spans.year(0) is None and spans.month(10000, 1) is None
    assert spans.year(2020, 2022) == (d(2020, 1, 1), d(2022, 12, 31))


def test_an_approximate_date_is_the_week_months_or_years_around_it():
    assert spans.approximate(one(FRIDAY), "day") == (d(2023, 3, 31), d(2023, 4, 14))
    assert spans.approximate((d(2023, 4, 1), d(2023, 4, 30)), "month") == (d(2023, 3, 1), d(2023, 5, 31))
    assert spans.approximate((d(2023, 1, 1), d(2023, 12, 31)), "year") == (d(2022, 1, 1), d(2024, 12, 31))


def test_weeks_weekends_and_seasons():
    assert spans.week(d(2023, 4, 9)) == (d(2023, 4, 3), d(2023, 4, 9))
    assert spans.week(d(2023, 4, 3), -1) == (d(2023, 3, 27), d(2023, 4, 2))
    assert spans.weekend(d(2023, 4, 9), 1) == (d(2023, 4, 15), d(2023, 4, 16))
    assert spans.weekend(FRIDAY) == (d(2023, 4, 8), d(2023, 4, 9))  # unmoved: the week's own weekend
    assert spans.season(2023, "winter") == (d(2023, 1, 1), d(2024, 2, 29))
    assert spans.season(2023, "秋") == (d(2023, 9, 1), d(2023, 11, 30))


def test_spans_meet_when_they_share_a_day():
    assert spans.meets((d(2023, 1, 1), d(2023, 1, 31)), one(d(2023, 1, 31)))
    assert spans.meets(one(d(2023, 1, 1)), (d(2022, 12, 1), d(2023, 1, 1)))
    assert not spans.meets(one(d(2023, 2, 1)), (d(2023, 1, 1), d(2023, 1, 31)))
    assert not spans.meets_any(one(d(2023, 2, 1)), []) and spans.meets_any(one(FRIDAY), [one(d(2020, 1, 1)), one(FRIDAY)])


def test_a_day_of_the_year_falls_in_a_span_of_any_year_it_covers():
    assert not spans.has_month_day([(d(2021, 3, 1), d(2023, 2, 28))], 2, 29)  # no leap day in there
    assert spans.has_month_day([(d(2023, 3, 1), d(2024, 3, 1))], 2, 29)
    assert spans.has_month_day([(d(2023, 5, 3), d(2023, 5, 3))], 5, 3)
    assert not spans.has_month_day([(d(2023, 5, 4), d(2023, 6, 1))], 5, 3)
    assert spans.has_month_day([(d(2023, 1, 1), d(2023, 1, 1)), (d(2023, 5, 1), d(2023, 5, 9))], 5, 3)
    assert spans.has_month_day([(d(1, 1, 1), d(9999, 1, 1))], 2, 29)


# -- written dates --------------------------------------------------------------------------
@pytest.mark.parametrize("text, rest, found", [
    ("on 2023/04/01 and 2023.4.2", "on   and  ", [("2023/04/01", {"2023", "4", "1"}, one(d(2023, 4, 1)), None),
                                                  ("2023.4.2", {"2023", "4", "2"}, one(d(2023, 4, 2)), None)]),
    ("1st of April, 2023", " ", [("1st of April, 2023", {"1", "2023", "4"}, one(d(2023, 4, 1)), None)]),
    ("Apr. 1 2023", " ", [("Apr. 1 2023", {"1", "2023", "4"}, one(d(2023, 4, 1)), None)]),
    ("Sept 9, 2021", " ", [("Sept 9, 2021", {"9", "2021"}, one(d(2021, 9, 9)), None)]),
    ("April 2023", " ", [("April 2023", {"2023", "4"}, (d(2023, 4, 1), d(2023, 4, 30)), None)]),
    ("2022年7月份", " ", [("2022年7月份", {"2022", "7"}, (d(2022, 7, 1), d(2022, 7, 31)), None)]),
    ("2022年7月5号", " ", [("2022年7月5号", {"2022", "7", "5"}, one(d(2022, 7, 5)), None)]),
    ("2022年", " ", [("2022年", {"2022"}, (d(2022, 1, 1), d(2022, 12, 31)), None)]),
    ("3月5日", " ", [("3月5日", {"3", "5"}, None, (3, 5))]),
    ("5 May", " ", [("5 May", {"5"}, None, (5, 5))]),
    ("Dec 25th", " ", [("Dec 25th", {"12", "25"}, None, (12, 25))]),
    ("Feb 29", " ", [("Feb 29", {"2", "29"}, None, (2, 29))]),
    ("Feb 30", "Feb 30", []),
    ("1799 and 2100", "1799 and 2100", []),
    ("1.2019", "1.2019", []),
    ("2019.5", " ", [("2019.5", {"2019", "5"}, (d(2019, 5, 1), d(2019, 5, 31)), None)]),
    ("the 1990s", "the  ", [("1990s", {"1990"}, (d(1990, 1, 1), d(1999, 12, 31)), None)]),
    ("1995s", "1995s", []),
    ("1990年代", " ", [("1990年代", {"1990"}, (d(1990, 1, 1), d(1999, 12, 31)), None)]),  # a decade, not 1990
    ("2023-13", " -13", [("2023", {"2023"}, (d(2023, 1, 1), d(2023, 12, 31)), None)]),
    ("2023-02-30", " -02-30", [("2023", {"2023"}, (d(2023, 1, 1), d(2023, 12, 31)), None)]),
    ("１９９０年", " ", [("1990年", {"1990"}, (d(1990, 1, 1), d(1990, 12, 31)), None)]),
])
def test_a_written_date_is_read_with_its_precision_and_taken_out(text, rest, found):
    got_rest, got = written_dates(text)
    assert got_rest == rest
    assert [(w.text, set(w.numbers), w.span, w.month_day) for w in got] == found


# -- what the cited entries say ---------------------------------------------------------------
def said(text: str, day: str = "2023-04-07", ident: str = "L1") -> LogItem:
    return LogItem(ident, day, dailylog.Entry("20:00:00", "me", text, []))


def test_a_refusal_explains_at_most_three_spans_of_each_entry_that_said_some():
    cited = Cited([said("last weekend, yesterday, last year and next summer"), said("nothing", "2023-04-01", "L2"),
                   said("tomorrow", "2023-04-02", "L3")])
    assert cited.explain() == ("L1 (2023-04-07) says 2023-04-01..2023-04-02, 2023-04-06, 2022-01-01..2022-12-31; "
                               "L3 (2023-04-02) says 2023-04-03")
    assert Cited([said("nothing")]).explain() == ""


def test_the_numbers_of_a_day_month_or_year_said_are_the_entries_numbers():
    assert _numbers_of([one(d(2023, 4, 1)), (d(2022, 3, 1), d(2022, 3, 31)), (d(2021, 1, 1), d(2021, 12, 31)),
                        (d(2019, 1, 1), d(2020, 12, 31))]) == {"2023", "4", "1", "2022", "3", "2021"}
    assert unsupported_numbers("Moved in 2020", Cited([said("moved three years ago")])) == []
    assert unsupported_numbers("Moved in 2019", Cited([said("moved three years ago")])) == ["2019"]


def test_an_entrys_own_day_and_the_night_before_are_dates_it_says():
    cited = Cited([said("we talked")])
    assert cited.spans[0] == (d(2023, 4, 6), FRIDAY)
    assert unsupported_numbers("Talked on 2023-04-06", cited) == []
    assert unsupported_numbers("Talked on 2023-04-05", cited) == ["2023-04-05"]


def test_a_day_of_the_year_stands_on_a_span_that_holds_it():
    cited = Cited([said("we met last weekend")])
    assert unsupported_numbers("Met on April 1", cited) == []
    assert unsupported_numbers("Met on March 25", cited) == ["March 25"]
    lines = Cited([], ["- Met her on 2022-05-03 (log 2022-05-03)"])
    assert unsupported_numbers("Met on May 3", lines) == [] and unsupported_numbers("Met in 2022", lines) == []
    assert unsupported_numbers("Met on June 9", lines) == ["June 9"]


def test_an_event_date_of_each_precision_stands_on_its_entries():
    nothing = Cited([said("nothing")])
    assert event_date_problem(events_fmt.parse_when("2023"), nothing) is None
    assert event_date_problem(events_fmt.parse_when("2023-04"), nothing) is None
    assert event_date_problem(events_fmt.parse_when("~2023-03-31"), nothing) is None
    assert event_date_problem(events_fmt.parse_when("2023-03-31"), nothing) is not None
    assert event_date_problem(events_fmt.parse_when("2023-03"), nothing) is not None
    assert event_date_problem(events_fmt.parse_when("~2023-02"), nothing) is not None
    assert event_date_problem(events_fmt.parse_when("~2023-03"), nothing) is None
    assert event_date_problem(events_fmt.parse_when("2020"), nothing) == (
        "2020 is not a date its entries say (their days, a date they write, or what their relative times mean); "
        "date it by them, or by the entry's own day")
    assert event_date_problem(events_fmt.parse_when("2020"), Cited([said("yesterday")])) == (
        "2020 is not a date its entries say (their days, a date they write, or what their relative times mean: "
        "L1 (2023-04-07) says 2023-04-06); date it by them, or by the entry's own day")


def test_an_event_date_stands_on_the_numbers_of_its_own_precision_only():
    """A year written as an amount (2,040) supports the year 2040, and its
    April: never a month or day the event does not have."""
    cited = Cited([said("it costs 2,040")])
    assert event_date_problem(events_fmt.parse_when("2040"), cited) is None
    assert event_date_problem(events_fmt.parse_when("2040-04"), cited) is None
    assert event_date_problem(events_fmt.parse_when("2040-05"), cited) is not None
    summer = Cited([said("went to Spain last summer", "2023-06-09")])
    assert event_date_problem(events_fmt.parse_when("~2021"), summer) is None  # the years beside it
    assert event_date_problem(events_fmt.parse_when("~2020"), summer) is not None
    same = Cited([said("we met")])  # its numbers are 2023, 4 and 7: "2023.7.4" is written with them all
    assert unsupported_numbers("Met on 2023.7.4", same) == []


def test_an_event_date_written_with_the_entries_numbers_stands():
    """A date whose every number the entries say (the 3rd of "march 3") stands
    even without a span, as a statement's would."""
    cited = Cited([said("the party is on the 3rd, month 5", "2024-01-10")])
    assert event_date_problem(events_fmt.parse_when("2024-05-03"), cited) is None
    assert event_date_problem(events_fmt.parse_when("2024-05-06"), cited) is not None


# -- filler supports nothing ----------------------------------------------------------------
@pytest.mark.parametrize("run, grams", [("哈哈", set()), ("嗯", set()), ("好的", set()), ("没事", set()), ("行行", set()),
                                        ("我们", set()), ("哈喽", set()), ("喜欢", {"喜欢"}), ("猫", {"猫"}),
                                        ("的", set()), ("喜欢猫", {"喜欢", "欢猫"})])
def test_a_chinese_runs_bigrams_leave_out_stop_words_and_filler(run, grams):
    assert cjk_bigrams(run) == grams


@pytest.mark.parametrize("word, wide, narrow", [("hahaha", True, True), ("lol", True, True), ("okkk", True, True),
                                                ("lmao", True, True), ("hmm", True, True), ("cool", True, True),
                                                ("adopted", False, False), ("like", True, False),
                                                ("turned", True, False), ("move", False, False), ("user", True, True),
                                                ("told", True, True), ("teacher", False, False), ("the", True, True)])
def test_filler_and_stop_words_are_no_support(word, wide, narrow):
    assert is_filler(word) is wide and is_filler(word, narrow=True) is narrow


# -- amounts, by value ------------------------------------------------------------------------
from decimal import Decimal  # noqa: E402

from heartcompass.memory.proposal.numbers import _digits_value, _english, plain, read_numbers, unread_numbers  # noqa: E402


@pytest.mark.parametrize("token, values", [("1,234.56", ["1234.56"]), ("1.234,56", ["1234.56"]), ("1.2.3", ["1", "2", "3"]),
                                           ("0,5", ["0.5"]), ("007", ["7"]), ("12,345", ["12345"]),
                                           ("1234,5", ["1234.5"]), ("1.000.000", ["1000000"]),
                                           ("1,000.5.6", ["1", "0", "5", "6"]), ("000.123", ["0.123"]),
                                           ("1'000", ["1000"]), ("1 000", ["1000"])])
def test_a_run_of_digits_and_marks_reads_as_its_values(token, values):
    assert [plain(v) for v in _digits_value(token)] == values


def test_a_value_is_compared_without_trailing_zeros():
    assert [plain(Decimal(v)) for v in ("5000", "1.50", "0.000", "100", "1E+3")] == ["5000", "1.5", "0", "100", "1000"]


@pytest.mark.parametrize("text, rest, found", [
    ("5 mn dollars", "  dollars", {"5000000"}), ("3 bn", " ", {"3000000000"}), ("2 M", " ", {"2000000"}),
    ("2 m", "  m", {"2"}), ("5 kilos", "  kilos", {"5"}), ("1.5 hundred", " ", {"150"}),
    ("一个人", "一个人", set()), ("一一", "一一", set()), ("万一", "万一", set()), ("十", "十", set()),
    ("十一", " ", {"11"}), ("五六天", " 天", {"5", "6"}), ("三四", "三四", set()), ("七十多岁", " 多岁", {"70"}),
    ("两", "两", set()), ("他说一二三四五", "他说 ", {"12345"}), ("三块钱", " 块钱", {"3"}), ("一千", " ", {"1000"}),
    ("第九次", "第 次", {"9"}), ("one of them", "one of them", set()), ("One hundred", " ", {"100"}),
    ("I have two and she has three", "I have   and she has  ", {"2", "3"}),
])
def test_the_amounts_are_taken_out_of_the_text_and_read_by_value(text, rest, found):
    assert read_numbers(text) == (rest, found)


def test_english_number_words_add_units_tens_and_scales():
    assert _english("a hundred and five") == 105
    assert _english("two thousand three hundred") == 2300
    assert _english("one million two") == 1000002
    assert _english("one million two thousand") == 1002000
    assert _english("thousand") == 1000 and _english("ninety-nine") == 99


@pytest.mark.parametrize("text, found", [("cinq", ["cinq"]), ("五千块 cinq", ["cinq"]), ("une", []), ("deux mille", ["deux mille"]), ("dos", []),
                                         ("dos mil", ["dos mil"]), ("пять", ["пять"]), ("five", []),
                                         ("cinq and dos", ["cinq"]), ("trois", ["trois"])])
def test_a_foreign_number_word_alone_counts_only_when_it_is_no_short_latin_word(text, found):
    assert unread_numbers(text) == found


def test_a_chinese_numeral_after_di_or_of_four_digits_is_a_number_anywhere_in_the_text():
    """第 counts the numeral after it as a number wherever it stands (她排第三:
    the 3 a statement may write), and a run of four digit characters is one
    (生于一九九八, 1998) while three alone are not (一九九 is no amount)."""
    assert read_numbers("她排第三") == ("她排第 ", {"3"})
    assert read_numbers("他生于一九九八") == ("他生于 ", {"1998"})
    assert read_numbers("他生于一九九") == ("他生于一九九", set())


def test_english_number_words_keep_every_scale_they_pass():
    """Two million three thousand five is 2,003,005: each scale adds to the
    total, never replaces what came before it."""
    assert _english("two million three thousand five") == 2003005
    assert read_numbers("two million three thousand five dollars")[1] == {"2003005"}
