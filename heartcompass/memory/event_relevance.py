"""What a message's words add to the events of a big EVENTS.md, one event at
a time, so the prompt's walk (event_pool.py) scores the events it reaches,
not every event the message names (a common word may be in a third of
100,000), and nothing here reads the lines of a common word: its runs keep
bitmaps of their lines and groups (relevance_index.py).

An event's relevance is relevance.weigh's for it, to the bit: the same
gains added in the same order. Its place among the events weigh returns
(where two keys tie, that order is theirs) is the first term that finds it,
then its line. And a bound: no event whose text is
at least L characters long scores more than bound(L), each term counted as
often as any one line holds it, and only terms found together in some line
added up (words in a third of the events each, but never in one event
together, do not add)."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from typing import Iterable

from heartcompass.memory import relevance
from heartcompass.memory.relevance_index import TermIndex, Vocabulary

MARGIN = 1e-9  # the bound is summed in another order than an event's score: rounding is far below this
MOST_SETS = 64  # sets of terms found together: past it, all the terms as one (a looser bound, as true)


class Term:
    """A term's lines: through its runs' bitmaps when each run keeps one,
    else counted (few lines, or a CJK pair in many short runs)."""

    def __init__(self, index: TermIndex, vocabulary: Vocabulary, by_key: list[list[int]]):
        self.index, self.vocabulary, self.by_key = index, vocabulary, by_key
        times = Counter(e for runs in by_key for e in runs)  # a run found twice counts its lines twice
        self.counts: Counter | None = None
        self.mask = 0  # bit i: line i holds the term (runs with bitmaps)
        if all(vocabulary.bitmap_at[e] >= 0 for e in times):
            self.runs = [(vocabulary.bitmap(e), vocabulary.lines(e), vocabulary.most[e], k) for e, k in times.items()]
            for bits, *_ in self.runs:
                self.mask |= int.from_bytes(bits, "little")
            self.df = vocabulary.distinct[next(iter(times))] if len(times) == 1 else self.mask.bit_count()
            self.most = sum(most * k for _, _, most, k in self.runs)
            self.bits = self.runs[0][0] if len(times) == 1 else self.mask.to_bytes(vocabulary.line_bytes, "little")
        else:
            self.counts = self._counted()
            self.df, self.most = len(self.counts), max(self.counts.values())

    def _counted(self) -> Counter:
        return self.index.counts({"": (self.vocabulary, self.by_key)})[""]

    def count(self, i: int) -> int:
        """How many times line i holds the term."""
        if self.counts is not None:
            return self.counts.get(i, 0)
        if not self.bits[i >> 3] >> (i & 7) & 1:
            return 0
        f = 0
        for bits, lines, most, k in self.runs:
            if bits[i >> 3] >> (i & 7) & 1:
                f += k * (1 if most == 1 else bisect.bisect_right(lines, i) - bisect.bisect_left(lines, i))
        return f

    def lines(self) -> Iterable[int]:
        if self.counts is not None:
            return self.counts
        return set().union(*(lines for _, lines, _, _ in self.runs))

    def groups(self, group_of) -> set[int]:
        """The groups of the event table its lines are in."""
        if self.counts is not None:
            return set(map(group_of.__getitem__, self.counts))
        mask = 0
        for e in {e for runs in self.by_key for e in runs}:
            mask |= self.vocabulary.group_bitmap(e)
        return {g for g in range(mask.bit_length()) if mask >> g & 1}

    def shares_a_line(self, other: Term) -> bool:
        if self.counts is None and other.counts is None:
            return self.mask & other.mask != 0
        few, many = (self, other) if self.counts is not None else (other, self)
        return any(map(many.count, few.lines()))

class Relevance:
    def __init__(self, index: TermIndex, query_terms: dict[str, float]):
        found = index.found(query_terms)
        self.lengths = index.lengths
        self.terms = [Term(index, vocabulary, by_key) for vocabulary, by_key in found.values()]
        self.gains: list[float] = []
        self.n0 = self.n1 = 0.0
        if found:
            gain_of, self.n0, self.n1 = relevance.gains(
                query_terms, {t: term.df for t, term in zip(found, self.terms)}, len(index.lengths), index.total_length)
            self.gains = [gain_of[t] for t in found]
        self.named_at_most = sum(term.df for term in self.terms)
        self._together = together(self.terms)
        self._bounds: dict[int, float] = {}

    def named(self) -> set[int]:
        """Every event a term finds (read from the terms' lines: few)."""
        return set().union(*(term.lines() for term in self.terms))

    def is_named(self, i: int) -> bool:
        return any(term.count(i) for term in self.terms)

    def groups(self, group_of) -> set[int]:
        return set().union(*(term.groups(group_of) for term in self.terms))

    def score(self, i: int) -> tuple[float, int] | None:
        """(relevance in 0..1, the first term that finds the event), or None
        for an event no term finds."""
        raw, first = 0.0, -1
        n0, n1, length = self.n0, self.n1, self.lengths[i]
        for t, (term, gain) in enumerate(zip(self.terms, self.gains)):
            f = term.count(i)
            if f:
                raw += gain * f / (f + n0 + n1 * length)  # 0.0 + x is x: weigh's sum, term by term
                if first < 0:
                    first = t
        if first < 0:
            return None
        return (raw if raw < 1.0 else 1.0), first

    @staticmethod
    def place(i: int, first: int) -> tuple[int, int]:
        """Where weigh puts the event among those it finds: the first term's
        lines first, then those only the next term finds... each term's in
        ascending order (a term two keys find: the shorter key, first, finds
        every line the longer one does)."""
        return first, i

    def bound(self, shortest: int) -> float:
        """At least the relevance of any event whose text (lower-cased) is
        `shortest` characters long or longer."""
        found = self._bounds.get(shortest)
        if found is None:
            n0, n1 = self.n0, self.n1
            each = [gain * term.most / (term.most + n0 + n1 * shortest) for term, gain in zip(self.terms, self.gains)]
            top = max(sum(each[t] for t in terms) for terms in self._together)
            found = self._bounds[shortest] = min(1.0, top * (1 + MARGIN))
        return found


def together(terms: list[Term]) -> list[list[int]]:
    """The largest sets of terms (by their place in the list) each two of
    which share a line: every line's terms are within one of them."""
    near: list[set[int]] = [set() for _ in terms]
    for a, b in itertools.combinations(range(len(terms)), 2):
        if terms[a].shares_a_line(terms[b]):
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

    grow([], set(range(len(terms))), set())
    return found if len(found) <= MOST_SETS else [list(range(len(terms)))]
