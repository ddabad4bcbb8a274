"""Numbers and dates that mean something (issue 27, item 3): one reader of
amounts (values, never spellings), Chinese numerals only where the text uses
them as numbers, other languages' number words found rather than ignored,
and the span of days each relative phrase can mean."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from heartcompass.formats import dailylog, events as events_fmt
from heartcompass.memory.proposal.date_support import Cited, event_date_problem, unsupported_numbers
from heartcompass.memory.proposal.numbers import read_numbers, unread_numbers
from heartcompass.memory.proposal.said_dates import said_dates
from heartcompass.memory.proposal.schema import DATE_PATTERN
from heartcompass.memory.proposal.workbench import LogItem
from heartcompass.memory.proposal.written_dates import written_dates

d = dt.date


def values(text: str) -> set[str]:
    return read_numbers(text)[1]


@pytest.mark.parametrize("text, value", [
    ("500.000 dollars", "500000"), ("500,000 dollars", "500000"), ("500 000 dollars", "500000"),
    ("500\u202f000", "500000"), ("1'000", "1000"), ("1.5 kg", "1.5"), ("1,5 kg", "1.5"), ("0.500", "0.5"),
    ("1,234.56", "1234.56"), ("1.234,56", "1234.56"), ("5K", "5000"), ("2.5k", "2500"), ("3M", "3000000"),
    ("5 thousand", "5000"), ("5万", "50000"), ("3千", "3000"), ("2.5万", "25000"), ("five thousand", "5000"),
    ("a hundred", "100"), ("five hundred and fifty", "550"), ("五千", "5000"), ("五百五", "550"),
    ("五百零五", "505"), ("一万五", "15000"), ("二〇二三年", "2023"), ("第三次", "3"), ("三千多块", "3000"),
    ("٥٠٠", "500"), ("５００", "500"), ("5 000,50", "5000.5"), ("1 234 567", "1234567"),
])
def test_one_parser_reads_an_amount_by_its_value(text, value):
    assert values(text) == {value}


def test_a_year_and_a_count_side_by_side_stay_two_numbers():
    assert values("in 2023 100 people came") == {"2023", "100"}
    assert values("version 1.2.3") == {"1", "2", "3"}


def test_the_calendar_ends_and_absurd_counts_are_no_error():
    for day in (d(1, 1, 1), d(9999, 12, 31)):
        assert said_dates("last weekend, in 99999999 years, 8000年前, last Friday", day) == []
    assert said_dates("in 99999999 years", FRIDAY) == []
    assert said_dates("last Friday", FRIDAY)  # the same reader, on a phrase it can place


def test_an_amount_is_never_read_as_a_smaller_one():
    assert values("500.000 dollars") != values("500 dollars")
    assert values("五百五") == {"550"} != values("505")  # 五百五 is 550, not 505
    assert values("5K") == values("5,000") == values("five thousand") == values("5000")


@pytest.mark.parametrize("text", ["陆琳说她喜欢猫", "我们去了九寨沟", "一家人吃饭", "在万达看电影", "千万别忘了", "周六一起吃饭",
                                  "十分喜欢", "one of them", "5 kids", "3 months"])
def test_a_numeral_that_is_a_name_or_a_word_is_no_amount(text):
    assert values(text) <= {"5", "3"} and not values(text) - set(re.findall(r"\d", text))


def test_a_chinese_numeral_is_a_number_where_the_text_uses_it_as_one():
    assert values("陆琳三年前去了九寨沟") == {"3"}
    assert values("陆个苹果") == {"6"} and values("第九") == {"9"} and values("三四个人") == {"3", "4"}


@pytest.mark.parametrize("text, words", [("cinq mille dollars", "cinq mille"), ("fünfhundert Euro", "fünfhundert"),
                                         ("오천 원", "오천"), ("dos mil pesos", "dos mil"), ("пять тысяч", "пять тысяч"),
                                         ("fünfhundertfünfzig", "fünfhundertfünfzig")])
def test_number_words_of_a_language_we_do_not_read_are_found(text, words):
    assert unread_numbers(text) == [words]


@pytest.mark.parametrize("text", ["五千块", "once upon a time", "in sept", "I set the pet on the table", "Lima",
                                  "a venti latte", "five thousand"])
def test_our_own_words_are_not_foreign_numbers(text):
    assert unread_numbers(text) == []


FRIDAY = d(2023, 4, 7)


@pytest.mark.parametrize("phrase, span", [
    ("we went hiking last weekend", (d(2023, 4, 1), d(2023, 4, 2))),
    ("上周末去爬山了", (d(2023, 4, 1), d(2023, 4, 2))),
    ("last summer", (d(2022, 6, 1), d(2022, 8, 31))),
    ("去年夏天", (d(2022, 6, 1), d(2022, 8, 31))),
    ("a few years ago", (d(2018, 1, 1), d(2021, 12, 31))),
    ("前几年", (d(2018, 1, 1), d(2021, 12, 31))),
    ("last month", (d(2023, 3, 1), d(2023, 3, 31))),
    ("recently", (d(2023, 1, 7), FRIDAY)),
    ("前阵子", (d(2023, 1, 7), FRIDAY)),
    ("yesterday", (d(2023, 4, 6), d(2023, 4, 6))),
])
def test_a_relative_phrase_is_the_span_it_can_mean(phrase, span):
    assert span in said_dates(phrase, FRIDAY)


def test_last_weekend_is_the_saturday_and_sunday_before_whatever_day_it_is_said():
    for said in (d(2023, 4, 3), FRIDAY, d(2023, 4, 8), d(2023, 4, 9)):  # Monday, Friday, Saturday, Sunday
        assert said_dates("last weekend", said) == [(d(2023, 4, 1), d(2023, 4, 2))]


def test_written_dates_are_read_with_their_precision():
    rest, found = written_dates("Met on 2023-04-01, moved 2022年7月, born April 1, 1990, in 2019, May 3, the 1990s")
    spans = {w.text.strip(): w.span for w in found}
    assert spans["2023-04-01"] == (d(2023, 4, 1),) * 2 and spans["2022年7月"] == (d(2022, 7, 1), d(2022, 7, 31))
    assert spans["April 1, 1990"] == (d(1990, 4, 1),) * 2 and spans["2019"] == (d(2019, 1, 1), d(2019, 12, 31))
    assert spans["1990s"] == (d(1990, 1, 1), d(1999, 12, 31))
    assert next(w for w in found if w.text == "May 3").month_day == (5, 3)
    assert not re.search(r"\d", rest)


def item(text: str, day: str = "2023-04-07", ident: str = "L1") -> LogItem:
    return LogItem(ident, day, dailylog.Entry("20:00:00", "me", text, []))


def test_a_statement_date_must_fall_in_a_span_its_entry_says():
    weekend = Cited([item("We went hiking last weekend")])
    assert unsupported_numbers("Went hiking on 2023-04-01", weekend) == []
    assert unsupported_numbers("Went hiking on 2023-03-25", weekend) == ["2023-03-25"]
    summer = Cited([item("I lived in Spain last summer", "2023-06-09")])
    assert unsupported_numbers("Lived in Spain in 2022", summer) == []
    assert unsupported_numbers("Lived in Spain in 2022-07", summer) == []
    assert unsupported_numbers("Lived in Spain in 2021", summer) == ["2021"]
    ago = Cited([item("Alice moved to Berlin three years ago", "2023-06-09")])
    assert unsupported_numbers("Moved to Berlin in 2020", ago) == []


def test_amounts_are_compared_by_value_and_foreign_words_refused():
    assert unsupported_numbers("Salary is 5K", Cited([item("my salary is 5000 a month")])) == []
    assert unsupported_numbers("Salary is 5000", Cited([item("my salary is 5K a month")])) == []
    five_hundred = Cited([item("she lent me 500 dollars")])
    assert unsupported_numbers("Lent 500.000 dollars", five_hundred) == ["500000"]
    for words in ("cinq mille", "오천"):
        assert "number words we do not read" in unsupported_numbers(f"Lent {words} dollars", five_hundred)[0]
    assert unsupported_numbers("借了505块", Cited([item("借了五百五块")])) == ["505"]


def test_a_count_of_one_or_an_ordinal_in_words_supports_the_same_count_in_digits():
    # the promise: a correct line that writes in digits what its entry said in words is kept
    for statement, said in (("第1次见面", "第一次见面"), ("去过1次", "去过一次"), ("Met for the 1st time", "First time we met"),
                            ("第2次去", "the second time I went"), ("Went 2 times", "we went twice"),
                            ("Has 1 sister", "I have one sister"), ("第1名", "拿了第一"), ("第1名", "第一")):
        assert unsupported_numbers(statement, Cited([item(said)])) == [], (statement, said)
    # and a wrong count stays refused: these words mean one value each, and 一 in a word or a larger numeral none
    assert unsupported_numbers("Went 3 times", Cited([item("we went twice")])) == ["3"]
    assert unsupported_numbers("第2次见面", Cited([item("第一次见面")])) == ["2"]
    for said in ("我们一起吃饭", "一家人", "十一个人", "the firstborn"):
        assert unsupported_numbers("第1次", Cited([item(said)])) == ["1"], said
    # a statement's own words of one claim nothing: it is read as before
    assert values("第一次见面") == values("at first she went once") == set()


def test_every_cited_entry_and_carried_line_supports_a_statement_not_only_the_last():
    """A statement citing two entries stands on what either says (its amount in the first, its date a relative
    phrase of the first), and a line it carries forward adds to them, never replaces them."""
    first = item("she lent me 500 dollars last weekend")
    second = item("ok", "2023-04-09", "L2")
    for cited in (Cited([first, second]), Cited([first], ["- Lent money (log 2023-04-07)"])):
        assert unsupported_numbers("Lent 500 dollars on 2023-04-01", cited) == []
        assert unsupported_numbers("Lent 600 dollars on 2023-03-25", cited) == ["600", "2023-03-25"]


def test_an_event_date_stands_on_its_entries():
    november = Cited([item("see you on November 1", "2023-10-30")])
    assert "1950-11-01 is not a date its entries say" in (event_date_problem(events_fmt.parse_when("1950-11-01"),
                                                                             november) or "")
    assert event_date_problem(events_fmt.parse_when("2023-11-01"), november) is None
    assert event_date_problem(events_fmt.parse_when("2023-10-30"), november) is None  # the entry's own day
    summer = Cited([item("went to Spain last summer", "2023-06-09")])
    for when in ("2022", "2022-07", "~2022-07", "~2022"):
        assert event_date_problem(events_fmt.parse_when(when), summer) is None, when
    assert event_date_problem(events_fmt.parse_when("2021-07"), summer) is not None


def test_a_year_is_an_event_date_that_round_trips_and_sorts_after_its_months(tmp_path):
    text = ("\n# Events\n\n- 2022 · w0.5 · Moved to Berlin (log 2023-06-09)\n- ~2022-07 · Spain trip\n"
            "- 2022-03-01 · dinner\n- ~2019 · met her\n")
    parsed = events_fmt.parse(text, tmp_path / "EVENTS.md")
    assert events_fmt.render(parsed) == text
    assert [e.when for e in parsed.sorted_events()] == ["~2022-07", "2022-03-01", "2022", "~2019"]
    parsed.events[0].weight = 0.6
    assert "- 2022 · w0.6 · Moved to Berlin (log 2023-06-09)\n" in events_fmt.render(parsed)
    assert events_fmt.parse_when("2019") == events_fmt.When(d(2019, 1, 1), False, False, True)
    assert all(re.match(DATE_PATTERN, w) for w in ("2019", "~2019", "2019-07", "~2019-07-02"))
    assert not re.match(DATE_PATTERN, "19")
