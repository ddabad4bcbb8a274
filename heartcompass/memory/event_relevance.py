"""What a message's words add to the events of a big EVENTS.md, one event at
a time, so the prompt's walk (event_pool.py) scores the events it reaches,
not every event the message names (a common word may be in a third of
100,000).

An event's relevance is relevance.weigh's for it, to the bit: the same
gains added in the same order. Its place among the events weigh returns
(where two keys tie, that order is theirs) is the first term that finds it,
then its place among that term's lines. And a bound: no event whose text is
at least L characters long scores more than bound(L), each term counted as
often as any one line holds it, and only terms found together in some line
added up (words in a third of the events each, but never in one event
together, do not add)."""

from __future__ import annotations

import itertools
from collections import Counter

from heartcompass.memory import relevance
from heartcompass.memory.relevance_index import TermIndex

MARGIN = 1e-9  # the bound is summed in another order than an event's score: rounding is far below this
MOST_SETS = 64  # sets of terms found together: past it, all the terms as one (a looser bound, as true)


class Relevance:
    def __init__(self, index: TermIndex, query_terms: dict[str, float]):
        tf, unordered = index.counts(query_terms)
        self.lengths = index.lengths
        self.terms: list[tuple[Counter, float]] = []
        self.n0 = self.n1 = 0.0
        if tf:
            gain_of, self.n0, self.n1 = relevance.gains(query_terms, tf, len(index.lengths), index.total_length)
            self.terms = [(counts, gain_of[t]) for t, counts in tf.items()]
        self.named: set[int] = set().union(*tf.values())  # every event some term finds
        self._ordered = [t not in unordered for t in tf]
        self._places: dict[int, dict[int, int]] = {}
        self._most = [max(counts.values()) for counts in tf.values()]
        self._together = together(list(tf.values()))
        self._bounds: dict[int, float] = {}

    def score(self, i: int) -> tuple[float, int] | None:
        """(relevance in 0..1, the first term that finds the event), or None
        for an event no term finds."""
        raw, first = 0.0, -1
        n0, n1, length = self.n0, self.n1, self.lengths[i]
        for t, (counts, gain) in enumerate(self.terms):
            f = counts.get(i)
            if f:
                raw += gain * f / (f + n0 + n1 * length)  # 0.0 + x is x: weigh's sum, term by term
                if first < 0:
                    first = t
        if first < 0:
            return None
        return (raw if raw < 1.0 else 1.0), first

    def place(self, i: int, first: int) -> tuple[int, int]:
        """Where weigh puts the event among those it finds."""
        if self._ordered[first]:  # its lines in ascending order: the line is its place
            return first, i
        places = self._places.get(first)
        if places is None:
            places = self._places[first] = dict(zip(self.terms[first][0], itertools.count()))
        return first, places[i]

    def bound(self, shortest: int) -> float:
        """At least the relevance of any event whose text (lower-cased) is
        `shortest` characters long or longer."""
        found = self._bounds.get(shortest)
        if found is None:
            n0, n1 = self.n0, self.n1
            each = [gain * f / (f + n0 + n1 * shortest) for (_, gain), f in zip(self.terms, self._most)]
            top = max(sum(each[t] for t in terms) for terms in self._together)
            found = self._bounds[shortest] = min(1.0, top * (1 + MARGIN))
        return found


def together(counts: list[Counter]) -> list[list[int]]:
    """The largest sets of terms (by their place in counts) each two of
    which share a line: every line's terms are within one of them."""
    near: list[set[int]] = [set() for _ in counts]
    for a, b in itertools.combinations(range(len(counts)), 2):
        if not counts[a].keys().isdisjoint(counts[b].keys()):
            near[a].add(b)
            near[b].add(a)
    found: list[list[int]] = []

    def grow(chosen: list[int], could: set[int], done: set[int]) -> None:  # Bron and Kerbosch's, with a pivot
        if len(found) > MOST_SETS:
            return
        if not could and not done:
            found.append(chosen)
            return
        pivot = max(could | done, key=lambda u: len(near[u] & could))
        for v in sorted(could - near[pivot]):
            grow(chosen + [v], could & near[v], done & near[v])
            could, done = could - {v}, done | {v}

    grow([], set(range(len(counts))), set())
    return found if len(found) <= MOST_SETS else [list(range(len(counts)))]
