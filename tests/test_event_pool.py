"""The cached form of EVENTS.md chooses what the parsed file chooses:
memory/event_pool.py's walk against selection's sort, and the term index
(memory/relevance_index.py) against relevance's search, on many small
random cases (ties, days to come, tight budgets, English and Chinese)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest

from heartcompass.formats import events as events_fmt
from heartcompass.memory import event_cache, relevance, selection
from heartcompass.memory.event_pool import TablePool
from heartcompass.memory.event_table import EventTable
from heartcompass.memory.relevance_index import TermIndex
from heartcompass.memory.selection import Unit

TODAY = dt.date(2026, 12, 1)
WORDS = ("hiked", "hiking", "hike", "dinner", "party", "parties", "part", "parts", "夜市", "聊天", "糖葫芦", "吃糖葫芦", "猫",
         "她的猫很可爱", "Kyoto", "İstanbul", "day", "birthday", "哈哈哈", "cat", "cats", "Über", "über", "x")
QUERIES = (["hiking dinner"], ["party 糖葫芦"], ["猫呢"], ["哈哈", "day"], ["über cats", "kyoto"], ["nothing here"],
           ["parts of the party"])  # two terms with one key (part): counted in the same order both ways


def _events(rnd: random.Random, n: int) -> list[events_fmt.Event]:
    out = []
    days = [TODAY - dt.timedelta(days=rnd.randint(-5, 40)) for _ in range(6)]  # few days: many ties
    for _ in range(n):
        day = rnd.choice(days)
        kind = rnd.choice(["day"] * 5 + ["month", "year", "approx"])
        out.append(events_fmt.Event(day.replace(day=1) if kind == "month" else day, " ".join(rnd.choices(WORDS, k=rnd.randint(1, 6))),
                                    rnd.choice([None, 0.5, 0.9, 0.1, 0.0, 1.0]), rnd.choice([None, "told"]),
                                    month_only=kind == "month", approx=kind == "approx"))
    return out


def _choices(rnd, events, budget, header, about, half_life=30.0):
    units = [Unit("rules", "Be kind.", 0), Unit("facts", "Likes hiking and 糖葫芦", 3, ranked=True),
             Unit("facts", "Has a cat", 3.1, ranked=True)]
    headers = {"rules": 0, "facts": 6, "events": header}
    plain = selection.choose([dataclasses.replace(u) for u in units], events, budget, headers,
                             score_event=lambda e: events_fmt.score(e, TODAY, half_life), about=about)
    table = EventTable.build(events)
    (table_blobs, groups), (terms_blobs, rest) = (
        table.to_parts(), TermIndex.build([e.text for e in events], table.group_of, len(table.groups)).to_parts())
    cached = event_cache.Cached(EventTable.from_parts([memoryview(b) for b in table_blobs], groups),  # as read back
                                TermIndex.from_parts([memoryview(b) for b in terms_blobs], rest))
    pool = TablePool(cached, TODAY, half_life)
    fast = selection.choose([dataclasses.replace(u) for u in units], pool, budget, headers, about=about)
    return plain, fast


def _same(plain, fast) -> None:
    assert [u.text for u in fast.chosen] == [u.text for u in plain.chosen]
    assert (fast.left, fast.left_count, fast.used, fast.relevant) == (
        plain.left, plain.left_count, plain.used, plain.relevant)


@pytest.mark.parametrize("seed", range(40))
def test_the_table_walk_chooses_what_sorting_every_event_chooses(seed):
    """Same events taken, in the same order, the same ones left out and
    named, the same tokens used, for budgets from a few tokens to all."""
    rnd = random.Random(seed)
    events = _events(rnd, rnd.randint(1, 160))
    for budget in (rnd.randint(10, 60), rnd.randint(60, 400), rnd.randint(400, 3000)):
        about = relevance.query(rnd.choice(QUERIES)) if rnd.random() < 0.7 else None
        _same(*_choices(rnd, events, budget, rnd.choice([0, 3, 11]), about, rnd.choice([30.0, 365.0, 1e300])))


def test_events_to_come_and_today_tie_and_go_in_file_order():
    """Every day from today on stands as today: such ties go in file order,
    whatever their dates, and both ways agree on it."""
    days = [TODAY + dt.timedelta(days=d) for d in (3, 0, 9, 1, 0)]
    events = [events_fmt.Event(day, f"plan number {i}", 0.5) for i, day in enumerate(days)]
    plain, fast = _choices(random.Random(0), events, 10 ** 6, 11, None)
    _same(plain, fast)
    assert [u.text for u in plain.chosen if u.section == "events"] == [e.render() for e in events]


def test_a_stream_too_costly_for_what_is_left_still_names_its_events_among_those_left_out():
    """The first events left out are named in rank order, however many
    streams were dropped for their cost."""
    rnd = random.Random(5)
    events = [events_fmt.Event(TODAY - dt.timedelta(days=i % 7), "word " * rnd.randint(1, 30), rnd.choice([0.2, 0.8]))
              for i in range(300)]
    plain, fast = _choices(rnd, events, 120, 11, None)
    _same(plain, fast)
    assert plain.left_count["events"] > selection.LEFT_OUT_SHOWN == len(plain.left["events"])


@pytest.mark.parametrize("seed", range(60))
def test_the_term_index_scores_what_searching_the_text_scores(seed):
    """The same relevance, to the bit and in the same order, for words
    (whole words, stems, keys shared by several terms), CJK pairs and
    characters, letters that lower-case to two, and terms in most lines."""
    rnd = random.Random(seed)
    docs = [" ".join(rnd.choices(WORDS, k=rnd.randint(1, 8))) + rnd.choice(["", ".", "!", "，"])
            for _ in range(rnd.randint(1, 60))]
    built = TermIndex.build(docs)
    blobs, rest = built.to_parts()
    read_back = TermIndex.from_parts([memoryview(blob) for blob in blobs], rest)  # as the cache reads it
    for q in (*QUERIES, [" ".join(rnd.choices(WORDS, k=5))]):
        terms = relevance.query(q)
        expected = list(relevance.scores(terms, docs).items())
        assert list(built.scores(terms).items()) == expected, q
        assert list(read_back.scores(terms).items()) == expected, q
