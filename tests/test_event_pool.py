"""The cached form of EVENTS.md chooses what the parsed file chooses:
memory/event_pool.py's walk against selection's sort, and the term index
(memory/relevance_index.py) against relevance's search, on many small
random cases (ties, days to come, tight budgets, English and Chinese)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import random

import pytest

from heartcompass.formats import events as events_fmt
from heartcompass.memory import event_cache, event_pool, event_relevance, relevance, relevance_index, selection
from heartcompass.memory.event_pool import TablePool
from heartcompass.memory.event_relevance import Relevance
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


def _pool(events, half_life=30.0) -> TablePool:
    table = EventTable.build(events)
    (table_blobs, groups), (terms_blobs, rest) = (
        table.to_parts(), TermIndex.build([e.text for e in events], table.group_of, len(table.groups)).to_parts())
    return TablePool(event_cache.Cached(EventTable.from_parts([memoryview(b) for b in table_blobs], groups),
                                        TermIndex.from_parts([memoryview(b) for b in terms_blobs], rest)),
                     TODAY, half_life)


def _walked(monkeypatch, few: int, big_run: int) -> None:
    """The walk's ways, each made to happen on a few events: scoring every
    named event at once (few), or group by group; terms counted or read
    through their runs' bitmaps (big_run: lines a run needs for one)."""
    monkeypatch.setattr(event_pool, "FEW_NAMED", few)
    monkeypatch.setattr(relevance_index, "BIG_RUN", big_run)


TIED = ("pottery class", "sunflowers", "糖葫芦", "pottery", "class", "sunflowers 糖葫芦", "par party", "hiked hiking")


def _tied_events(rnd: random.Random, n: int) -> list[events_fmt.Event]:
    """Many events alike to the bit: two days, two weights, the same few
    texts, so keys tie across terms found first by different words."""
    days = [TODAY - dt.timedelta(days=d) for d in (0, 3)]
    return [events_fmt.Event(rnd.choice(days), rnd.choice(TIED) + rnd.choice(["", " hiked"]), rnd.choice([0.5, 0.9]))
            for _ in range(n)]


@pytest.mark.parametrize("few, big_run", [(0, 1), (0, 3), (0, 10 ** 9), (10 ** 9, 1)])
@pytest.mark.parametrize("seed", range(6))
def test_the_walk_names_every_event_in_relevances_order_ties_and_all(monkeypatch, seed, few, big_run):
    """The named events come out as EventList ranks them, every one of
    them, with the same keys, ties in relevance's order (the first term that
    finds an event, then its line), whichever way the walk goes."""
    _walked(monkeypatch, few, big_run)
    rnd = random.Random(seed)
    events = _tied_events(rnd, rnd.randint(40, 200))
    ties = 0
    for q in (["pottery class sunflowers 糖葫芦"], ["par party"], ["hiking 糖葫"], ["sunflowers", "class"]):
        about = relevance.query(q)
        plain = selection.EventList(events, lambda e: events_fmt.score(e, TODAY, 30.0)).named(about)
        walked = list(_pool(events).named(about))
        assert [(key, tag, i) for key, tag, _, i in walked] == [(key, tag, i) for key, tag, _, i in plain], q
        ties += len(plain) - len({key for key, *_ in plain})
    assert ties > 10  # many named, and tied


@pytest.mark.parametrize("few, big_run", [(0, 1), (0, 3), (10 ** 9, 1)])
@pytest.mark.parametrize("seed", range(12))
def test_the_walk_chooses_what_sorting_chooses_each_way_it_goes(monkeypatch, seed, few, big_run):
    """The prompt's choice, to the byte, when the walk goes group by group
    or reads common terms through bitmaps (most messages never go there
    with a few hundred events)."""
    _walked(monkeypatch, few, big_run)
    rnd = random.Random(seed)
    events = _events(rnd, rnd.randint(1, 160)) + _tied_events(rnd, rnd.randint(0, 80))
    rnd.shuffle(events)
    for budget in (rnd.randint(10, 60), rnd.randint(60, 400), rnd.randint(400, 3000)):
        about = relevance.query(rnd.choice([*QUERIES, ["pottery class 糖葫芦"], ["par party hiking"]]))
        _same(*_choices(rnd, events, budget, rnd.choice([0, 3, 11]), about, rnd.choice([30.0, 365.0, 1e300])))


@pytest.mark.parametrize("big_run", [1, 10 ** 9])
@pytest.mark.parametrize("seed", range(10))
def test_no_event_scores_above_the_bound_for_its_length(monkeypatch, seed, big_run):
    """relevance's bound at an event's length is never below its score,
    and the score is relevance's own, to the bit."""
    _walked(monkeypatch, 0, big_run)
    rnd = random.Random(seed)
    events = _events(rnd, rnd.randint(20, 120)) + _tied_events(rnd, 40)
    pool = _pool(events)
    for q in (*QUERIES, ["pottery class 糖葫芦 hiking"]):
        about = relevance.query(q)
        expected = relevance.scores(about, [e.text for e in events])
        rel = Relevance(pool.terms, about)
        scored = {i: s[0] for i in range(len(events)) if (s := rel.score(i))}
        assert scored == expected, q
        assert all(r <= rel.bound(pool.terms.lengths[i]) for i, r in scored.items()), q
        assert all(rel.is_named(i) == (i in expected) for i in range(len(events))), q


def test_terms_never_found_in_one_line_do_not_add_up_in_the_bound():
    """Three words each in a third of the events, never two in one: the
    bound is one word's, not three's; with all three in one line, three's."""
    events = [events_fmt.Event(TODAY, word, 0.5) for word in ("pottery", "sunflowers", "kites") * 30]
    about = relevance.query(["pottery sunflowers kites"])
    apart = Relevance(_pool(events).terms, about)
    assert apart._together == [[0], [1], [2]]
    one = apart.score(0)
    assert one and apart.bound(len("pottery")) >= one[0]
    assert apart.bound(len("pottery")) < 2 * one[0]
    together = Relevance(_pool(events + [events_fmt.Event(TODAY, "pottery sunflowers kites", 0.5)]).terms, about)
    assert together._together == [[0, 1, 2]]


class _Lines:
    def __init__(self, near: set[int]):
        self.near = near

    def shares_a_line(self, other: _Lines) -> bool:
        return id(other) in self.near


def test_too_many_sets_of_terms_found_together_become_one_set_of_all():
    """Terms in threes, each sharing a line with every term outside its
    three (81 largest sets for twelve terms): one set of all of them, a
    looser bound but a true one; a few sets are listed as they are."""
    terms = [_Lines(set()) for _ in range(12)]
    for a in range(12):
        terms[a].near = {id(terms[b]) for b in range(12) if a // 3 != b // 3}
    assert event_relevance.together(terms) == [list(range(12))]  # type: ignore[arg-type]
    few = terms[:6]  # 9 largest sets of 2
    found = event_relevance.together(few)  # type: ignore[arg-type]
    assert len(found) == 9 and all(len(s) == 2 and s[0] // 3 != s[1] // 3 for s in found)


def test_the_table_knows_each_events_group_and_the_shortest_text_left_in_it():
    rnd = random.Random(1)
    events = _events(rnd, 200)
    table = EventTable.build(events)
    for g, (_, _, start, end) in enumerate(table.groups):
        for j in range(start, end):
            assert table.group_of[table.members[j]] == g
            assert table.shortest[j] == min(len(events[i].text.lower()) for i in table.members[j:end])
    assert len(table.groups) > 5


@pytest.mark.parametrize("few, big_run", [(0, 1), (0, 10 ** 9), (10 ** 9, 1), (10 ** 9, 10 ** 9)])
def test_events_tied_across_terms_go_in_relevances_order_not_the_files(monkeypatch, few, big_run):
    """"origami" and "pottery" (as long, as often, the same day and weight)
    tie to the bit; relevance lists the first term's lines first, so every
    origami event is named before any pottery one, though they alternate in
    the file, and the budget for named events takes origami only."""
    _walked(monkeypatch, few, big_run)
    events = [events_fmt.Event(TODAY, word, 0.5) for word in ("pottery", "origami") * 40]
    events += [events_fmt.Event(TODAY - dt.timedelta(days=9), "a walk", 0.5) for _ in range(80)]
    about = relevance.query(["origami pottery"])
    named = list(_pool(events).named(about))
    assert len({key for key, *_ in named}) == 1 and len(named) == 80
    assert [events[i].text for *_, i in named] == ["origami"] * 40 + ["pottery"] * 40
    plain, fast = _choices(random.Random(0), events, 200, 3, about)
    _same(plain, fast)
    picked = [u.text for u in plain.chosen if u.section == "events"]
    assert picked and all("origami" in text for text in picked[:plain.relevant])


@pytest.mark.parametrize("big_run", [1, 10 ** 9])
def test_a_named_groups_place_stands_at_the_most_its_next_event_scores_no_higher(monkeypatch, big_run):
    """The walk's place in a group of named events is a bound that is
    reached: where the event at the place is as short as any after it and
    holds the terms as often as any line does, its key is the place's most
    (to rounding), for weights, days, relevance below 1 and at its cap of 1. A looser
    place would have the walk score events it need not (issue 32's cost)."""
    _walked(monkeypatch, 0, big_run)
    long_text = "pottery class after a long day at the studio downtown"
    events = [events_fmt.Event(TODAY - dt.timedelta(days=d), long_text, w) for d in (40, 10, 25, 10) for w in (0.3, 0.8)]
    events += [events_fmt.Event(TODAY - dt.timedelta(days=d % 9), "a slow walk along the river", 0.5) for d in range(60)]
    events += [events_fmt.Event(TODAY - dt.timedelta(days=d), "pottery class", 0.6) for d in (3, 7)]  # short: at 1
    pool = _pool(events)
    rel = pool.relevance = Relevance(pool.terms, relevance.query(["pottery class"]))
    table, relevances = pool.table, []
    for g, (weight, _, start, end) in enumerate(table.groups):
        for j in range(start, end):
            i = table.members[j]
            scored = rel.score(i)
            if scored is None:
                continue
            key = weight * pool._factor(table.dates[i]) + selection.RELEVANCE_WEIGHT * scored[0]
            assert key <= -pool._most(rel, g, j) <= key * (1 + 1e-6), (g, j)
            relevances.append(scored[0])
    assert len(relevances) == 10 and sorted(relevances)[-2:] == [1.0, 1.0] and 0 < min(relevances) < 0.9


@pytest.mark.parametrize("big_run", [1, 10 ** 9])
@pytest.mark.parametrize("seed", range(4))
def test_a_terms_groups_are_those_its_lines_are_in_no_more(monkeypatch, seed, big_run):
    """The walk visits the groups a message's terms are in (counted, or
    through their runs' group bitmaps), and only those: a group none of
    them is in is never walked for the named."""
    _walked(monkeypatch, 0, big_run)
    rnd = random.Random(seed)
    events = _events(rnd, rnd.randint(60, 160)) + _tied_events(rnd, 40)
    pool = _pool(events)
    group_of, visited = pool.table.group_of, 0
    for q in (*QUERIES, ["pottery class 糖葫芦 hiking"]):
        about = relevance.query(q)
        rel = Relevance(pool.terms, about)
        expected = {group_of[i] for i in relevance.scores(about, [e.text for e in events])}
        assert rel.groups(group_of) == expected, q
        for term in rel.terms:
            assert term.groups(group_of) == {group_of[i] for i in term.lines()}, q
        visited += len(expected)
    assert visited and len(pool.table.groups) > max(len(rel.groups(group_of)), 1)


def test_filling_the_prompt_walks_a_few_hundred_events_not_all_of_them(monkeypatch):
    """Once nothing left fits and fifty of those left out are named, the
    walk lets every group go, and a group's place waits at its next event's
    standing: filling a prompt of a few events from 6,000 hands fill a few
    hundred and weighs the standing of fewer than a tenth (issue 32:
    100,000 cost what a few hundred do), and the choice is the sort's."""
    rnd = random.Random(4)
    events = [events_fmt.Event(TODAY - dt.timedelta(days=rnd.randint(0, 900)),
                               " ".join(rnd.choices(WORDS, k=rnd.randint(1, 8))), rnd.choice([0.2, 0.5, 0.9]))
              for _ in range(6000)]
    walked: list[int] = []
    weighed: list[int] = []
    walk, factor = TablePool._walk, TablePool._factor

    def counted(self, *args, **kwargs):
        for item in walk(self, *args, **kwargs):
            walked.append(item[2])
            yield item

    def counted_factor(self, date):
        weighed.append(date)
        return factor(self, date)

    monkeypatch.setattr(TablePool, "_walk", counted)
    monkeypatch.setattr(TablePool, "_factor", counted_factor)
    plain, fast = _choices(rnd, events, 300, 11, None)
    _same(plain, fast)
    assert plain.left_count["events"] > 5900 and len(plain.left["events"]) == selection.LEFT_OUT_SHOWN
    assert 0 < len(walked) < 300 and 0 < len(weighed) < len(events) // 10


@pytest.mark.parametrize("about", [None, ["hiking 糖葫芦"]])
def test_fill_adds_to_the_events_already_left_out_as_the_sort_does(about):
    """Both ways of filling take what was left out before as theirs: the
    count goes on from it, and only as many more are named as make fifty."""
    rnd = random.Random(2)
    events = _events(rnd, 200)
    score = lambda e: events_fmt.score(e, TODAY, 30.0)  # noqa: E731
    choices = []
    for pool in (selection.EventList(events, score), _pool(events)):
        if about:
            pool.named(relevance.query(about))
        choice = selection.Choice(left={"events": [f"earlier {k}" for k in range(10)]}, left_count={"events": 12})
        pool.fill(selection.Budget(60, {"events": 3}, choice), set())
        choices.append(choice)
    _same(*choices)
    plain = choices[0]
    assert plain.chosen and plain.left_count["events"] == 12 + 200 - len(plain.chosen)
    assert len(plain.left["events"]) == selection.LEFT_OUT_SHOWN and plain.left["events"][:10][-1] == "earlier 9"


def test_two_terms_share_a_line_whichever_way_each_is_kept(monkeypatch):
    """Whether two terms are ever in one line (which of them the bound may
    add up) is the same read through bitmaps, counted, or one of each, in
    either order: pottery and kites share lines, sunflowers none with
    pottery."""
    _walked(monkeypatch, 0, 30)  # pottery and sunflowers in 30 lines or more: bitmaps; kites and 糖葫芦 counted
    events = [events_fmt.Event(TODAY, text, 0.5)
              for text in ["pottery"] * 30 + ["sunflowers"] * 30 + ["pottery kites"] * 2 + ["kites", "糖葫芦"]]
    terms = Relevance(_pool(events).terms, relevance.query(["pottery sunflowers kites 糖葫芦"])).terms
    assert sorted(term.counts is None for term in terms) == [False] * 3 + [True] * 2  # kit, 糖葫, 葫芦 counted
    lines = [set(term.lines()) for term in terms]
    shared = 0
    for a in range(5):
        for b in range(5):
            if a != b:
                assert terms[a].shares_a_line(terms[b]) == bool(lines[a] & lines[b]), (a, b)
                shared += bool(lines[a] & lines[b])
    assert shared == 4  # pottery and kites, 糖葫 and 葫芦, both ways


@pytest.mark.parametrize("few, big_run", [(0, 1), (0, 10 ** 9), (10 ** 9, 1)])
def test_an_event_two_terms_find_is_placed_by_the_first_of_them(monkeypatch, few, big_run):
    """Short lines score relevance's cap of 1 whichever terms find them, so
    "kites" and "pottery kites" tie. Relevance's first term is kit (its
    search's order), which finds both: they go in file order, alternating.
    Placed by the last term that finds it, each "pottery kites" would go
    after every "kites"."""
    _walked(monkeypatch, few, big_run)
    events = [events_fmt.Event(TODAY, text, 0.5) for text in ("kites", "pottery kites") * 5]
    events += [events_fmt.Event(TODAY - dt.timedelta(days=5), "pottery at the studio", 0.5)] * 100
    events += [events_fmt.Event(TODAY - dt.timedelta(days=5), "a slow walk along the river at dusk", 0.5)] * 200
    about = relevance.query(["pottery kites"])
    pool = _pool(events)
    scores = relevance.scores(about, [e.text for e in events])
    assert list(pool.terms.found(about)) == ["kit", "pottery"] and {scores[i] for i in range(10)} == {1.0}
    plain = selection.EventList(events, lambda e: events_fmt.score(e, TODAY, 30.0)).named(about)
    walked = list(pool.named(about))
    assert [(key, i) for key, _, _, i in walked] == [(key, i) for key, _, _, i in plain]
    assert [events[i].text for *_, i in walked[:10]] == ["kites", "pottery kites"] * 5


def _largest_sets(n: int, near: list[set[int]]) -> list[list[int]]:
    """Every set of terms each two of which share a line, and in no larger such set (by trying every subset)."""
    sets = [s for s in itertools.chain.from_iterable(itertools.combinations(range(n), k) for k in range(1, n + 1))
            if all(b in near[a] for a, b in itertools.combinations(s, 2))]
    return sorted(list(s) for s in sets if not any(set(s) < set(t) for t in sets))


@pytest.mark.parametrize("seed", range(12))
def test_the_sets_of_terms_found_together_are_all_the_largest_and_only_them(seed):
    """together lists every largest set of terms sharing lines two by two
    (a path a-b-c: {a, b} and {b, c}, so an event of b and c is bounded
    too), each once, none of them within another."""
    rnd = random.Random(seed)
    n = rnd.randint(3, 7)
    terms = [_Lines(set()) for _ in range(n)]
    near: list[set[int]] = [set() for _ in range(n)]
    for a, b in itertools.combinations(range(n), 2):
        if (seed < 2 and b == a + 1) or (seed >= 2 and rnd.random() < 0.5):  # seeds 0, 1: a path
            near[a].add(b)
            near[b].add(a)
            terms[a].near.add(id(terms[b]))
            terms[b].near.add(id(terms[a]))
    found = event_relevance.together(terms)  # type: ignore[arg-type]
    assert sorted(sorted(s) for s in found) == _largest_sets(n, near)
    assert len(found) == n - 1 if seed < 2 else found  # a path of n terms: n - 1 pairs


def test_sixty_four_sets_of_terms_are_listed_as_they_are_more_become_one():
    """MOST_SETS sets are listed; past them, one set of all the terms."""
    terms = [_Lines(set()) for _ in range(12)]
    for a in range(12):  # in pairs, each sharing a line with every term outside its pair: 2^6 = 64 largest sets
        terms[a].near = {id(terms[b]) for b in range(12) if a // 2 != b // 2}
    found = event_relevance.together(terms)  # type: ignore[arg-type]
    assert len(found) == event_relevance.MOST_SETS == 64 and all(len(s) == 6 for s in found)


@pytest.mark.parametrize("seed", range(6))
def test_an_index_built_without_a_tables_groups_has_every_line_in_group_zero(monkeypatch, seed):
    """Built from texts alone (no event table), every line is in one group,
    0; its common runs keep bitmaps all the same, and relevance read
    through them, built or read back, is the search's."""
    _walked(monkeypatch, 0, 1)
    rnd = random.Random(seed)
    docs = [" ".join(rnd.choices(WORDS, k=rnd.randint(1, 8))) for _ in range(rnd.randint(10, 60))]
    built = TermIndex.build(docs)
    blobs, rest = built.to_parts()
    named = 0
    for index in (built, TermIndex.from_parts([memoryview(blob) for blob in blobs], rest)):
        for q in QUERIES:
            about = relevance.query(q)
            expected = relevance.scores(about, docs)
            rel = Relevance(index, about)
            assert {i: s[0] for i in range(len(docs)) if (s := rel.score(i))} == expected, q
            assert rel.groups([0] * len(docs)) == ({0} if expected else set()), q
            named += len(expected)
    assert named
