"""A big EVENTS.md's cached form (event_table, relevance_index) as
selection.choose ranks it: the same prompt as selection.EventList builds
from the parsed file, to the byte, without an object or a score per event.

EventList sorts every event by its key (standing, plus relevance for those
the conversation names; ties in file order) and offers them in turn. Here
the same order comes off a heap holding one head per stream: each
(weight, cost) group of the table (newest first, so its standing never
rises), and the named events by cost. A stream whose cost is more than the
tokens left is dropped whole: none of its events can fit, now or later. So
a message costs the few hundred events a prompt holds, not 100,000."""

from __future__ import annotations

import datetime as dt
import heapq
from collections import defaultdict
import math
from typing import Iterable, Iterator

from heartcompass.memory.event_cache import Cached
from heartcompass.memory.selection import LEFT_OUT_SHOWN, RELEVANCE_WEIGHT, Unit, Budget

Stream = Iterator[tuple[float, int]]  # (-key, event), best first


class TablePool:
    def __init__(self, cached: Cached | None, today: dt.date, half_life_days: float):
        assert cached is not None
        self.table, self.terms = cached.table, cached.terms
        self.today, self.half_life = today.toordinal(), half_life_days
        self._halving: dict[int, float] = {}  # date -> its factor today
        self.named: dict[int, float] = {}    # event -> key, for those the conversation names

    def __len__(self) -> int:
        return len(self.table)

    def _factor(self, date: int) -> float:
        """What a weight is multiplied by on that day: events.score's, to the bit."""
        factor = self._halving.get(date)
        if factor is None:
            age = max(self.today - date, 0)
            factor = self._halving[date] = math.exp(-math.log(2) * age / self.half_life)
        return factor

    def relevant(self, about: dict[str, float]) -> dict[int, float]:
        found = self.terms.scores(about)
        weights, dates, factors = self.table.weights, self.table.dates, self._halving
        for date in {dates[i] for i in found}.difference(factors):
            self._factor(date)
        self.named = {i: weights[i] * factors[dates[i]] + RELEVANCE_WEIGHT * r for i, r in found.items()}
        return self.named

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
        streams, costs = self._streams(taken)
        heap = [(*head, s) for s, head in enumerate(next(stream, None) for stream in streams) if head]
        heapq.heapify(heap)
        shown = b.c.left.get("events", [])
        named_left: list[str] = []
        took = 0
        header = b.header_tokens["events"]
        while heap:
            _, i, s = heap[0]
            room = b.budget - b.c.used
            if costs[s] > room and len(shown) + len(named_left) >= LEFT_OUT_SHOWN:
                heapq.heappop(heap)  # and the room only shrinks: none of this stream's events fits
                continue
            if costs[s] + (0 if "events" in b.opened else header) <= room:
                b.take(self._unit(i))
                took += 1
            elif len(shown) + len(named_left) < LEFT_OUT_SHOWN:
                named_left.append(self.table.line(i))
            head = next(streams[s], None)
            if head:
                heapq.heapreplace(heap, (*head, s))
            else:
                heapq.heappop(heap)
        left = len(self.table) - len(taken) - took
        if left:
            b.c.left_count["events"] = b.c.left_count.get("events", 0) + left
            b.c.left.setdefault("events", []).extend(named_left)

    def _streams(self, taken: set[int]) -> tuple[list[Stream], list[int]]:
        """Every event not taken yet, in streams of one cost each, each best first."""
        streams, costs = [], []
        for weight, cost, start, end in self.table.groups:
            streams.append(self._group(weight, start, end))
            costs.append(cost)
        by_cost: dict[int, list[tuple[float, int]]] = defaultdict(list)
        cost_of = self.table.costs
        for i, key in self.named.items():
            by_cost[cost_of[i]].append((-key, i))
        for cost, heads in by_cost.items():
            streams.append(_popped(heads, taken))
            costs.append(cost)
        return streams, costs

    def _group(self, weight: float, j: int, end: int) -> Stream:
        """A group's events by (-standing, event), the named ones apart. Newest
        first, standing never rises; where it ties across days (every day from
        today on is today), the tied run is put in file order."""
        named, dates, members, factor = self.named, self.table.dates, self.table.members, self._factor
        while j < end:
            day = dates[members[j]]
            key = weight * factor(day)
            k = j + 1
            while k < end and (dates[members[k]] == day or weight * factor(dates[members[k]]) == key):
                k += 1
            run: Iterable[int] = members[j:k] if dates[members[k - 1]] == day else sorted(members[j:k])
            for i in run:
                if i not in named:
                    yield -key, i
            j = k


def _popped(heads: list[tuple[float, int]], taken: set[int]) -> Stream:
    heapq.heapify(heads)
    while heads:
        head = heapq.heappop(heads)
        if head[1] not in taken:
            yield head
