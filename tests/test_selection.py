"""memory/selection.py on its own: which whole events a budget takes."""

from __future__ import annotations

import datetime as dt

from heartcompass.formats import events as events_fmt
from heartcompass.memory import selection

DAY = dt.date(2026, 12, 1)


def _choose(events, budget, header=11):
    return selection.choose([], events, budget, {"events": header},
                            score_event=lambda e: events_fmt.score(e, DAY, 365.0))


def test_an_event_that_fits_the_last_few_tokens_after_the_header_is_paid_is_taken():
    """The events header is paid once, with the first event: what is left
    after it may be fewer tokens than the header, and a short event that
    fits there is still taken, not left out."""
    big = events_fmt.Event(DAY, "a long evening walk by the river, talking about the new job", 0.9)
    small = events_fmt.Event(DAY - dt.timedelta(days=1), "tea", 0.1)
    header = 11
    small_cost = selection.event_unit(small).tokens
    assert small_cost < 4 + header  # the case: it fits only once the header is paid
    budget = header + selection.event_unit(big).tokens + small_cost
    choice = _choose([big, small], budget, header)
    assert [u.text for u in choice.chosen] == [big.render(), small.render()]
    assert choice.used == budget and choice.left_count.get("events", 0) == 0
    # one token less: the small one is left out, and said to be
    short = _choose([big, small], budget - 1, header)
    assert [u.text for u in short.chosen] == [big.render()]
    assert short.left == {"events": [small.render()]} and short.left_count == {"events": 1}


def test_an_event_dated_by_its_year_or_month_alone_that_fits_exactly_is_taken():
    """The quick "surely does not fit" check is a lower bound: an event
    written with a year (2019) or a month (2023-06) has a shorter line than a
    day's, and one that fits the last tokens left, to the token, is taken."""
    big = events_fmt.Event(DAY, "a long evening walk by the river, talking about the new job", 0.9)
    for when in ("2019", "2023-06", "~2023-06-02"):
        event = events_fmt.parse_line(f"- {when} · Moved to Berlin with the whole family", "EVENTS.md", 1)
        budget = 11 + selection.event_unit(big).tokens + selection.event_unit(event).tokens
        choice = _choose([big, event], budget)
        assert [u.text for u in choice.chosen] == [big.render(), event.render()], when
        assert choice.used == budget
        assert _choose([big, event], budget - 1).left_count == {"events": 1}
