"""The promises of memory/selection.py on its own (issue 29: mutants that
survived the suite): the core is always there; what the conversation names
comes first, within its share; the rest by priority, with room kept for the
events; events by score, never cut, the first left out named and all of them
counted; an event that surely cannot fit is not even rendered (there may be
100,000). Units and events in, a Choice out: no workspace.

Sizes are exact: an ASCII unit of 4 x (t - 1) characters costs t tokens (its
newline included), and so does an event whose line is that long."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass

import pytest

from heartcompass.formats import events as events_fmt
from heartcompass.memory import relevance, selection
from heartcompass.memory.selection import Unit

YEAR = dt.date(2019, 1, 1)
KITE = {"kite": 1.0}  # the conversation's terms (relevance.query): one word, "kite"
RENDERS: Counter = Counter()


@dataclass
class Ev(events_fmt.Event):
    """An event with the score it is given (its standing today), counting
    how often its line is rendered."""
    key: float = 0.5

    def render(self) -> str:
        RENDERS[self.text] += 1
        return super().render()


def padded(words: str, length: int) -> str:
    assert len(words) <= length
    return words + "." * (length - len(words))  # dots: no term, no CJK


def unit(tokens: int, words: str = "", section: str = "facts", priority: float = 3, **kw) -> Unit:
    u = Unit(section, padded(words, 4 * (tokens - 1)), priority, **kw)
    assert u.tokens == tokens
    return u


def ev(tokens: int, words: str = "", key: float = 0.5) -> Ev:
    """A year's event without weight or source: "- 2019 · TEXT"."""
    e = Ev(YEAR, padded(words, 4 * (tokens - 1) - 9), None, None, year_only=True, key=key)
    assert selection.event_unit(e).tokens == tokens
    return e


def pick(units, events, budget, about=None, headers=None) -> selection.Choice:
    return selection.choose(list(units), list(events), budget, defaultdict(int, headers or {}),
                            score_event=lambda e: e.key, about=about)


def texts(choice: selection.Choice) -> list[str]:
    return [u.text for u in choice.chosen]


# -- costs and sections -----------------------------------------------------------------
def test_a_unit_costs_its_estimated_tokens_and_the_newline_that_joins_it():
    assert Unit("facts", "Likes tea", 3).tokens == 4  # 9 characters: 3 tokens, and the newline
    assert Unit("facts", "爱吃糖葫芦", 3).tokens == 6  # a CJK character is a token


def test_a_sections_header_is_paid_once_with_its_first_entry_and_a_unit_that_fits_exactly_is_taken():
    a, b = unit(5, "a", section="related", priority=5), unit(5, "b", section="related", priority=5)
    whole = pick([a, b], [], 13, headers={"related": 3})
    assert texts(whole) == [a.text, b.text] and whole.used == 13 and whole.left_count == {}
    short = pick([a, b], [], 12, headers={"related": 3})
    assert texts(short) == [a.text] and short.used == 8
    assert short.left == {"related": [b.text]} and short.left_count == {"related": 1}


def test_what_does_not_fit_is_counted_whole_and_the_first_fifty_are_named():
    units = [unit(5, f"fact {i}", section="related", priority=5) for i in range(60)]
    choice = pick(units, [], 20)
    assert texts(choice) == [u.text for u in units[:4]] and choice.used == 20
    assert choice.left_count == {"related": 56}
    assert choice.left == {"related": [u.text for u in units[4:54]]}  # in their order


def test_units_go_by_priority_then_in_the_order_given():
    first, second = unit(5, "first", section="related", priority=5), unit(5, "second", section="related", priority=5)
    mbti = unit(5, "mbti", section="mbti", priority=4.5)
    assert texts(pick([first, second, mbti], [], 10)) == [mbti.text, first.text]
    assert texts(pick([second, first], [], 5)) == [second.text]


# -- the core ---------------------------------------------------------------------------
def test_the_core_is_taken_first_and_a_part_that_does_not_fit_is_said_to_be_left_out():
    rules, relation = unit(10, "rules", section="rules", priority=0), unit(50, "relation", section="relation", priority=1)
    profile = unit(5, "profile", section="profile", priority=2)
    fact = unit(3, "kite", priority=3, ranked=True)
    choice = pick([fact, profile, relation, rules], [], 16, about=KITE)
    assert texts(choice) == [rules.text, profile.text]  # the fact the message names waits for the core
    assert choice.left == {"relation": [relation.text], "facts": [fact.text]} and choice.relevant == 0
    assert choice.left_count == {"relation": 1, "facts": 1}
    big = unit(20, "who she is", section="profile", priority=2)
    alone = pick([big, rules], [], 16)
    assert texts(alone) == [rules.text] and alone.left == {"profile": [big.text]}
    assert alone.left_count == {"profile": 1}  # left out once, not again with the rest


def test_what_the_conversation_names_cannot_push_out_the_core():
    """The profile's fields (priority 2) are core: taken before the named
    events; a line of lower priority (2.5) is not, and the named events come
    first."""
    events = [ev(35, "kite one", 0.5), ev(35, "kite two", 0.4)]
    core = unit(50, "who she is", section="profile", priority=2)
    choice = pick([core], events, 100, about=KITE)
    assert texts(choice) == [core.text, events[0].render()] and choice.relevant == 1
    assert choice.used == 85 and choice.left_count == {"events": 1}
    other = unit(70, "who she is", section="related", priority=2.5)  # too big to follow the named event
    after = pick([other], events, 100, about=KITE)
    assert texts(after) == [events[0].render(), events[1].render()] and after.relevant == 1
    assert after.left == {"related": [other.text]}


def test_a_big_core_and_what_the_conversation_names_stay_within_the_budget():
    """The conversation's share is of what the budget has left: after a core
    of 70 tokens out of 100, a named event of 35 does not fit (it did once:
    the prompt went over its budget)."""
    core = unit(70, "who she is", section="profile", priority=2)
    named = ev(35, "kite", 0.5)
    choice = pick([core], [named], 100, about=KITE)
    assert texts(choice) == [core.text] and choice.used == 70 <= 100 and choice.relevant == 0
    assert choice.left == {"events": [named.render()]}
    assert texts(pick([core], [named], 105, about=KITE)) == [core.text, named.render()]


# -- what the conversation names --------------------------------------------------------
def test_named_lines_take_at_most_their_share_of_the_budget_and_the_rest_goes_by_priority():
    """A named fact of low priority comes before unnamed ones of higher
    priority, within 40% of the budget; each is chosen once."""
    plain = [unit(10, f"fact {i}", priority=3, ranked=True) for i in range(10)]
    named = [unit(10, f"kite {i}", priority=5, ranked=True) for i in range(6)]
    without = pick(plain + named, [], 100)
    assert texts(without) == [u.text for u in plain] and without.relevant == 0
    choice = pick(plain + named, [], 100, about=KITE)
    assert choice.relevant == 4  # 40 of 100 tokens
    assert texts(choice) == [u.text for u in named[:4] + plain[:6]] and choice.used == 100
    assert choice.left_count == {"facts": 6}
    assert choice.left == {"facts": [u.text for u in plain[6:] + named[4:]]}


def test_a_named_line_that_fits_the_last_four_tokens_of_the_share_is_taken_for_it():
    """Budget 10: the share is 4 tokens, and a named line of 4 fills it."""
    fact = unit(4, "kite", ranked=True)
    choice = pick([fact], [], 10, about=KITE)
    assert texts(choice) == [fact.text] and choice.relevant == 1
    assert pick([fact], [], 9, about=KITE).relevant == 0  # a share of 3: too little to try


def test_the_search_stops_when_fewer_than_four_tokens_of_the_share_are_left():
    """What is left of the share then goes by priority: a named line of two
    tokens after another is not chosen for the conversation."""
    first, second = unit(2, "kite", ranked=True, standing=2), unit(2, "kite", ranked=True)
    choice = pick([first, second], [], 10, about=KITE)
    assert choice.relevant == 1 and texts(choice) == [first.text, second.text]


# lines that do not name it: a word in most lines would count for none (relevance.COMMON_SHARE)
def others() -> list[Unit]:
    return [unit(4, f"other {i}", priority=9, ranked=True) for i in range(120)]


@pytest.mark.parametrize("big, taken", [(50, 1), (51, 0)])
def test_fifty_named_lines_that_do_not_fit_in_a_row_end_the_search(big, taken):
    """Past 51 misses in a row the named lines stop being tried (the rest
    compete by priority): 100,000 named events would otherwise be walked."""
    bigs = [unit(50, f"kite big {i}", ranked=True, standing=100 - i / 100) for i in range(big)]
    small = unit(5, "kite small", ranked=True, standing=10)
    assert pick(bigs + [small] + others(), [], 100, about=KITE).relevant == taken


def test_a_named_line_taken_starts_the_count_of_misses_again():
    bigs = [unit(50, f"kite big {i}", ranked=True, standing=1000 - 10 * i) for i in range(100)]
    # standings 10 apart: a relevance (at most 1, counted twice) cannot reorder them
    smalls = [unit(5, "kite small one", ranked=True, standing=505), unit(5, "kite small two", ranked=True, standing=1)]
    choice = pick(bigs + smalls + others(), [], 100, about=KITE)
    assert choice.relevant == 2 and smalls[0].text in texts(choice) and smalls[1].text in texts(choice)


def test_a_faint_event_the_message_names_comes_back_before_heavier_ones():
    heavy = [ev(10, f"coffee {i}", 1.0) for i in range(20)]
    faint = ev(10, "flew a kite", 0.01)
    plain = pick([], heavy + [faint], 50)
    assert faint.render() not in texts(plain) and plain.relevant == 0
    named = pick([], heavy + [faint], 50, about=KITE)
    assert texts(named) == [faint.render()] + [e.render() for e in heavy[:4]] and named.relevant == 1
    assert named.left_count == {"events": 16} and named.used == 50


def test_a_fact_stands_as_an_event_of_full_weight_today_against_what_the_message_names():
    """Named alike, a fact (standing 1) and an event of weight 1 from today
    tie, and the one the message names more strongly goes first."""
    fact = unit(10, "kite", ranked=True)
    event = ev(10, "kite kite", 1.0)  # the word twice: a little more about it
    r_fact = relevance.scores(KITE, [fact.text])[0]
    r_event = relevance.scores(KITE, [event.text])[0]
    assert r_fact < r_event < r_fact + 0.5  # what a standing of 2 instead of 1 would outweigh
    choice = pick([fact], [event], 25, about=KITE)  # a share of 10: room for one
    assert texts(choice)[0] == event.render() and choice.relevant == 1


def test_items_named_alike_go_in_the_order_given_facts_before_events():
    fact, event = unit(10, "kite", ranked=True), ev(10, "kite", 1.0)
    choice = pick([fact], [event], 25, about=KITE)
    assert texts(choice) == [fact.text, event.render()] and choice.relevant == 1


@pytest.mark.parametrize("between", [0.25, 0.75])
def test_a_named_event_left_for_lack_of_share_still_ranks_by_twice_its_relevance_plus_its_weight(between):
    """Relevance counts twice a line's standing (RELEVANCE_WEIGHT 2), in the
    search and in the events' ranking that follows it."""
    named, heavy = [ev(15, f"kite {i}", 0.3) for i in range(3)], [ev(15, f"tea {i}") for i in range(5)]
    r = relevance.scores(KITE, [e.text for e in named + heavy])[2]
    for e in heavy:  # 2r + 0.3 < its score < 3r + 0.3: the third named event goes after them all
        e.key = 0.3 + (2 + between) * r
    choice = pick([], named + heavy, 100, about=KITE)
    assert choice.relevant == 2  # 30 of the 40 tokens named; the third would make 45
    assert texts(choice) == [e.render() for e in named[:2] + heavy[:4]]
    assert choice.left == {"events": [heavy[4].render(), named[2].render()]}
    for e in heavy:  # now the third one goes first
        e.key = 0.3 + (2 - between) * r
    assert texts(pick([], named + heavy, 100, about=KITE))[2] == named[2].render()


# -- the events' reserve ----------------------------------------------------------------
def test_facts_leave_a_quarter_of_the_budget_to_the_events_and_take_what_they_leave():
    facts = [unit(15, f"fact {i}", ranked=True) for i in range(6)]
    events = [ev(20, f"event {i}", 0.5) for i in range(3)]
    choice = pick(facts, events, 100)
    assert texts(choice) == [u.text for u in facts[:5]] + [events[0].render()]  # 75 tokens of facts, to the token
    assert choice.used == 95 and choice.left_count == {"events": 2, "facts": 1}
    roomy = pick(facts, events[:1], 110)  # the sixth fact would eat into the events' 27 tokens
    assert texts(roomy) == [u.text for u in facts[:5]] + [events[0].render(), facts[5].text]  # after the events


def test_without_events_to_leave_room_for_facts_take_the_whole_budget_before_lower_sections():
    facts = [unit(10, f"fact {i}", ranked=True) for i in range(12)]
    words = unit(10, "how she talks", section="words", priority=9)
    choice = pick(facts + [words], [], 100)
    assert texts(choice) == [u.text for u in facts[:10]]
    assert choice.left == {"facts": [facts[10].text, facts[11].text], "words": [words.text]}


def test_events_all_taken_for_the_conversation_leave_no_reserve_and_none_is_taken_twice():
    events = [ev(10, "kite one", 0.2), ev(10, "kite two", 0.1)]
    facts = [unit(10, f"fact {i}", ranked=True) for i in range(10)]
    words = unit(10, "how she talks", section="words", priority=9)
    choice = pick(facts + [words], events, 100, about=KITE)
    assert texts(choice) == [e.render() for e in events] + [u.text for u in facts[:8]] and choice.relevant == 2
    assert choice.left == {"facts": [facts[8].text, facts[9].text], "words": [words.text]}
    assert choice.left_count == {"facts": 2, "words": 1}


def test_a_unit_named_and_taken_is_not_taken_again_nor_the_core_twice():
    core = unit(5, "core", section="profile", priority=2)
    fact = unit(5, "kite", ranked=True)
    choice = pick([core, fact], [ev(5, "tea")], 1000, about=KITE)
    assert sorted(texts(choice)) == sorted([core.text, fact.text, ev(5, "tea").render()]) and choice.used == 15


# -- the events' walk -------------------------------------------------------------------
def test_events_go_by_score_then_in_file_order():
    light, heavy, mid, tie = ev(10, "light", 0.1), ev(10, "heavy", 0.9), ev(10, "mid", 0.5), ev(10, "tie", 0.5)
    choice = pick([], [light, heavy, mid, tie], 30)
    assert texts(choice) == [heavy.render(), mid.render(), tie.render()]
    assert choice.left == {"events": [light.render()]} and choice.left_count == {"events": 1}


def test_an_event_of_four_tokens_fits_the_last_four():
    big, small = ev(10, "big", 0.9), ev(4, "tea", 0.1)
    choice = pick([], [big, small], 14)
    assert texts(choice) == [big.render(), small.render()] and choice.used == 14
    short = pick([], [big, small], 13)
    assert texts(short) == [big.render()]
    assert short.left == {"events": [small.render()]} and short.left_count == {"events": 1}


def test_the_events_left_out_when_the_budget_is_spent_are_named_up_to_fifty_in_all():
    huge = [ev(60, f"huge {i}", 0.9) for i in range(48)]  # surely too big: left out first, in rank order
    small = [ev(5, f"small {i}", 0.5) for i in range(7)]
    choice = pick([], huge + small, 10)
    assert texts(choice) == [small[0].render(), small[1].render()]
    assert choice.left_count == {"events": 53}
    assert choice.left["events"] == [e.render() for e in huge + small[2:4]]
    more = pick([], [ev(60, f"huge {i}", 0.9) for i in range(55)] + small, 10)
    assert more.left_count == {"events": 60} and len(more.left["events"]) == 50


def test_an_event_that_might_fit_but_does_not_is_left_out_and_named():
    """The quick bound counts a weight as "w0": w0.25 is three characters
    more, so this event passes the bound and is still too long."""
    event = Ev(YEAR, "x" * 20, 0.25, None, year_only=True, key=0.5)  # "- 2019 · w0.25 · " + 20: 37 characters
    assert selection.event_unit(event).tokens == 11
    assert texts(pick([], [event], 11)) == [event.render()]
    short = pick([], [event], 10)
    assert short.chosen == [] and short.left == {"events": [event.render()]} and short.left_count == {"events": 1}


WHENS = {"2019": dict(year_only=True), "2019-06": dict(month_only=True), "2019-06-02": {}, "~2019-06-02": dict(approx=True)}


def _tight(when: str, weight: float | None, source: str | None, length: int, words: str = "") -> Ev:
    """An event whose line is `length` characters: "- " WHEN [" · w0.0"] " · " TEXT [" (told)"]."""
    kind = WHENS[when]
    date = dt.date(2019, 6, 1 if kind.get("month_only") else 2) if when != "2019" else YEAR
    rest = 5 + len(when) + (7 if weight is not None else 0) + (len(source) + 3 if source else 0)
    event = Ev(date, padded(words or f"e{len(RENDERS)}", length - rest), weight, source, key=0.1, **kind)
    assert len(event.render()) == length and event.when == when  # and a name of its own: RENDERS holds it
    return event


CASES = [(when, weight, source) for when in WHENS for weight in (None, 0.0, 1.0) for source in (None, "told")]


@pytest.mark.parametrize("when, weight, source", CASES)
def test_an_event_whose_line_fits_to_the_token_is_taken(when, weight, source):
    """The quick check is a lower bound for every kind of line: an event
    that fits the last tokens exactly is taken (a weight of 0 or 1 is the
    shortest one: w0.0, w1.0)."""
    event = _tight(when, weight, source, 40)  # 10 tokens and the newline: one character more is 12
    tokens = selection.event_unit(event).tokens
    choice = pick([], [event], tokens)
    assert texts(choice) == [event.render()] and choice.used == tokens
    assert pick([], [event], tokens - 1).left_count == {"events": 1}


def test_an_event_that_surely_cannot_fit_is_never_rendered_once_fifty_are_named():
    """Rendering 100,000 lines that cannot fit would cost more than the
    prompt: past the fifty named, an event whose shortest possible line is
    longer than the room left is counted, not rendered, even when it misses
    by a single character."""
    first = ev(10, "first", 1.0)  # taken: 10 tokens of 20 used
    huge = [ev(60, f"huge {i}", 0.9) for i in range(50)]
    room = 10  # a line of 37 characters or more surely takes 11 tokens or more
    tight = [_tight(when, weight, source, 4 * (room - 1) + 1) for when, weight, source in CASES]
    fits = ev(room, "fits", 0.01)  # the walk goes on to the last one: there was room all along
    RENDERS.clear()
    choice = pick([], [first] + huge + tight + [fits], 10 + room)
    assert texts(choice) == [first.render(), fits.render()] and choice.left_count == {"events": 50 + len(tight)}
    assert len(choice.left["events"]) == 50
    assert {e.text: RENDERS[e.text] for e in tight} == {e.text: 0 for e in tight}
    assert all(RENDERS[e.text] == 1 for e in huge)  # each named once


def test_once_no_event_can_fit_the_rest_are_counted_and_only_the_first_fifty_rendered():
    """10 tokens left (of 15: a line of 5 took the rest) and a header of 11
    to pay: no event fits, and the walk ends there, naming fifty."""
    events = [ev(4, f"e{i:02}") for i in range(60)]
    related = unit(5, "her sister", section="related", priority=5)
    RENDERS.clear()
    choice = pick([related], events, 15, headers={"events": 11})
    assert texts(choice) == [related.text] and choice.left_count == {"events": 60}
    assert choice.left == {"events": [e.render() for e in events[:50]]}
    assert [RENDERS[e.text] for e in events] == [2] * 50 + [0] * 10  # the walk's and this test's


def test_in_the_search_an_event_that_surely_cannot_fit_the_share_is_not_rendered():
    tight = _tight("2019", None, None, 4 * (4 - 1) + 1, "kite")  # budget 10: a share of 4 tokens; this needs 5
    RENDERS.clear()
    choice = pick([], [tight], 10, about=KITE)
    assert choice.relevant == 0 and RENDERS[tight.text] == 1  # rendered once, to be taken after the search
    assert texts(choice) == [tight.render()]
