"""A big EVENTS.md's cached form (event_table, relevance_index) as
selection.choose ranks it: the same prompt as selection.EventList builds
from the parsed file, to the byte, scoring only the events it reaches.

EventList scores every event (standing, plus relevance for those the
conversation names; ties in file order, or among the named, in relevance's
order) and sorts them. Here the same order comes off two heaps: one of
places in the table's (weight, cost) groups, each at the most its events
from there on can score (newest first, so standing never rises; for the
named, plus relevance's bound at the shortest text left,
event_relevance.py), and one of the events scored so far. An event goes
out once no place can pass it. A group whose cost is more than the tokens
left is let go unscored: none of its events can fit, now or later. So a
message costs the few hundred events a prompt holds and the few more it
must score to be sure of them, not 100,000, nor the third of them a
common word names."""

from __future__ import annotations

import datetime as dt
import heapq
import math
from typing import Any, Callable, Iterator

from heartcompass.memory.event_cache import Cached
from heartcompass.memory.event_relevance import Relevance
from heartcompass.memory.selection import LEFT_OUT_SHOWN, RELEVANCE_WEIGHT, Budget, Unit

CHUNK = 16  # events of one group taken at a time where no relevance is added
FEW_NAMED = 2000  # named events scored all at once, not walked group by group

Item = tuple[float, Any, int]  # (-key, its place among equal keys, event)


class TablePool:
    def __init__(self, cached: Cached | None, today: dt.date, half_life_days: float):
        assert cached is not None
        self.table, self.terms = cached.table, cached.terms
        self.today, self.half_life = today.toordinal(), half_life_days
        self._halving: dict[int, float] = {}  # date -> its factor today
        self.relevance: Relevance | None = None  # what the conversation names
        self._named_places: list[tuple[float, int, int, bool]] | None = None  # each group's first, at its most

    def __len__(self) -> int:
        return len(self.table)

    def _factor(self, date: int) -> float:
        """What a weight is multiplied by on that day: events.score's, to the bit."""
        factor = self._halving.get(date)
        if factor is None:
            age = max(self.today - date, 0)
            factor = self._halving[date] = math.exp(-math.log(2) * age / self.half_life)
        return factor

    def named(self, about: dict[str, float]) -> Iterator[tuple[float, int, Any, int]]:
        """The events about names, best first, as selection ranks them after
        the notes it names on an equal key: (-key, 1, place in relevance's
        order, event)."""
        self.relevance = Relevance(self.terms, about)
        return ((key, 1, place, i) for key, place, i in self._walk(set(), lambda cost: False, unnamed=False))

    def _unit(self, i: int) -> Unit:
        return Unit("events", self.table.line(i), 8)  # its tokens: the table's cost (event_cache's version)

    def offer(self, b: Budget, i: int, limit: int) -> bool:
        cost = self.table.costs[i] + (0 if "events" in b.opened else b.header_tokens["events"])
        if b.c.used + cost > limit:
            return False
        b.take(self._unit(i))
        return True

    def fill(self, b: Budget, taken: set[int]) -> None:
        """selection._events' walk: each event, best first, taken when it fits;
        the first LEFT_OUT_SHOWN of those left out named, all of them counted."""
        shown = b.c.left.get("events", [])
        named_left: list[str] = []
        took = 0
        header, costs = b.header_tokens["events"], self.table.costs

        def dropped(cost: int) -> bool:  # and the room only shrinks: no event of that cost fits, now or later
            return cost > b.budget - b.c.used and len(shown) + len(named_left) >= LEFT_OUT_SHOWN

        for _, _, i in self._walk(taken, dropped, unnamed=True):
            if costs[i] + (0 if "events" in b.opened else header) <= b.budget - b.c.used:
                b.take(self._unit(i))
                took += 1
            elif len(shown) + len(named_left) < LEFT_OUT_SHOWN:
                named_left.append(self.table.line(i))
        left = len(self.table) - len(taken) - took
        if left:
            b.c.left_count["events"] = b.c.left_count.get("events", 0) + left
            b.c.left.setdefault("events", []).extend(named_left)

    def _walk(self, taken: set[int], dropped: Callable[[int], bool], unnamed: bool) -> Iterator[Item]:
        """The events not taken, best first: the named ones, and with unnamed
        the others. Ties go in file order, among the named in step 2 (no event
        taken yet, unnamed False) in relevance's order."""
        table, rel = self.table, self.relevance
        members, dates, costs, groups = table.members, table.dates, table.costs, table.groups
        ranked = unnamed  # the order for filling: ties in file order
        places: list[tuple[float, int, int, bool]] = []  # (-most from there on, group, place in members, named)
        ready: list[Item] = []
        if unnamed:
            places += [(-w * self._factor(dates[members[start]]), g, start, False)
                       for g, (w, _, start, _) in enumerate(groups)]
        is_named: Callable[[int], bool] = lambda i: False
        if rel and rel.named_at_most <= FEW_NAMED:  # scored at once
            named = rel.named()
            is_named = named.__contains__
            ready += [self._item(rel, i, rel.score(i), ranked) for i in named if i not in taken]
        elif rel:  # walked group by group
            is_named = rel.is_named
            if self._named_places is None:
                self._named_places = [(self._most(rel, g, groups[g][2]), g, groups[g][2], True)
                                      for g in rel.groups(table.group_of)]
            places += self._named_places
        heapq.heapify(places)
        heapq.heapify(ready)
        while places or ready:
            if ready and (not places or ready[0][0] < places[0][0]):  # its key above any place's most
                item = heapq.heappop(ready)
                if not dropped(costs[item[2]]):
                    yield item
                continue
            _, g, j, for_named = heapq.heappop(places)
            weight, cost, _, end = groups[g]
            if dropped(cost):
                continue
            if for_named:  # one at a time: each may be far below the place's most
                i = members[j]
                scored = rel.score(i) if rel and i not in taken else None
                if scored:
                    heapq.heappush(ready, self._item(rel, i, scored, ranked))
                if j + 1 < end:
                    heapq.heappush(places, (self._most(rel, g, j + 1), g, j + 1, True))
                continue
            stop = min(j + CHUNK, end)
            for i in members[j:stop]:
                if i not in taken and not is_named(i):
                    heapq.heappush(ready, (-weight * self._factor(dates[i]), i, i))
            if stop < end:
                heapq.heappush(places, (-weight * self._factor(dates[members[stop]]), g, stop, False))

    def _item(self, rel: Relevance | None, i: int, scored: tuple[float, int] | None, ranked: bool) -> Item:
        """A named event: (-(standing + RELEVANCE_WEIGHT x relevance), place, event)."""
        assert rel and scored, "only a named event is scored"
        r, first = scored
        key = self.table.weights[i] * self._factor(self.table.dates[i]) + RELEVANCE_WEIGHT * r
        return -key, i if ranked else rel.place(i, first), i

    def _most(self, rel: Relevance | None, g: int, j: int) -> float:
        """-(the most a named event of group g from place j on can score)."""
        assert rel, "only the named are walked for their relevance"
        weight, table = self.table.groups[g][0], self.table
        return -(weight * self._factor(table.dates[table.members[j]]) + RELEVANCE_WEIGHT * rel.bound(table.shortest[j]))
