"""The term index of a big EVENTS.md: relevance.scores without searching
all its text for each message.

Each distinct run of the lower-cased lines (a word, or a run of CJK
characters) is kept once, with the line of each of its occurrences. A
query's key is then looked for in the runs alone: a word key in the words
it starts (relevance's regex matches a key at a word's start only), a CJK
pair or character anywhere in a CJK run (a run is never split by one). So
the counts, and the scores built from them (relevance.weigh), are the ones
relevance.scores finds in the full text, to the last bit."""

from __future__ import annotations

import array
import bisect
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from heartcompass.memory import relevance
from heartcompass.memory.event_table import Column


@dataclass
class Vocabulary:
    """Distinct runs of one kind, joined by newlines (searched in C), each
    with its occurrences' lines in postings[offsets[e]:offsets[e + 1]]."""
    text: str
    starts: Column    # "q": where each run starts in text
    offsets: Column   # "q": into postings, one more than there are runs
    postings: Column  # "i": the line of each occurrence, ascending per run

    @classmethod
    def build(cls, found: dict[str, list[int]]) -> Vocabulary:
        entries = sorted(found)
        starts, offsets, postings = array.array("q"), array.array("q", [0]), array.array("i")
        at = 0
        for run in entries:
            starts.append(at)
            at += len(run) + 1
            postings.extend(found[run])
            offsets.append(len(postings))
        return cls("\n".join(entries), starts, offsets, postings)

    def hits(self, key: str) -> list[tuple[int, bool]]:
        """(run, whether it starts with key) for each time key is in a run."""
        found = []
        for m in re.finditer(re.escape(key), self.text):
            e = bisect.bisect_right(self.starts, m.start()) - 1
            found.append((e, self.starts[e] == m.start()))
        return found

    def lines(self, e: int) -> Column:
        return self.postings[self.offsets[e]:self.offsets[e + 1]]

    def run(self, e: int) -> str:
        end = self.starts[e + 1] - 1 if e + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[e]:end]

    def occurrences(self, hits: list[tuple[int, bool]]) -> int:
        return sum(self.offsets[e + 1] - self.offsets[e] for e, _ in hits)


@dataclass
class TermIndex:
    words: Vocabulary
    cjk: Vocabulary
    lengths: Column   # "i": each line's length, lower-cased
    total_length: int

    @classmethod
    def build(cls, texts: list[str]) -> TermIndex:
        words: dict[str, list[int]] = {}
        cjk: dict[str, list[int]] = {}
        lengths = array.array("i")
        for i, text in enumerate(texts):
            lowered = text.lower()
            lengths.append(len(lowered))
            for run in relevance.runs(lowered):
                (cjk if relevance.is_cjk_run(run) else words).setdefault(run, []).append(i)
        return cls(Vocabulary.build(words), Vocabulary.build(cjk), lengths, sum(lengths))

    def to_parts(self) -> tuple[list[bytes], Any]:
        """Its columns as bytes, and the rest as JSON values (event_cache)."""
        return ([part for v in (self.words, self.cjk) for part in (v.text.encode("utf-8"), v.starts.tobytes(),
                                                                   v.offsets.tobytes(), v.postings.tobytes())]
                + [self.lengths.tobytes()], self.total_length)

    @classmethod
    def from_parts(cls, blobs: list[memoryview], rest: Any) -> TermIndex:
        """Read back as views of the cache's bytes (checked: event_cache)."""
        words, cjk = (Vocabulary(str(text, "utf-8"), starts.cast("q"), offsets.cast("q"), postings.cast("i"))
                      for text, starts, offsets, postings in (blobs[0:4], blobs[4:8]))
        return cls(words, cjk, blobs[8].cast("i"), int(rest))

    def scores(self, query_terms: dict[str, float]) -> dict[int, float]:
        """relevance.scores(query_terms, the lines): the same numbers, in the same order."""
        tf, _ = self.counts(query_terms)
        return relevance.weigh(query_terms, tf, len(self.lengths), self.total_length, self.lengths)

    def counts(self, query_terms: dict[str, float]) -> tuple[dict[str, Counter], set[str]]:
        """relevance.scores's counts ({term: {line: times}}, each term's lines in
        the order the search meets them), and the terms whose lines are not
        in ascending order (a term two keys find: the second adds lines after)."""
        n = len(self.lengths)
        tf: dict[str, Counter] = {}
        unordered: set[str] = set()
        if not query_terms or not n:
            return tf, unordered
        stems: dict[str, str | None] = {}
        for key in relevance.term_keys(query_terms):
            vocabulary = self.cjk if relevance.is_cjk_run(key) else self.words
            hits = vocabulary.hits(key)
            if not relevance.wanted(key, tf, n, lambda _: vocabulary.occurrences(hits)) or not hits:
                continue
            if vocabulary is self.cjk:  # each time the key is in a run, once per line the run is in
                tf[key] = Counter(sorted(i for e, _ in hits for i in vocabulary.lines(e)))
                continue
            by_term: dict[str, list[int]] = {}
            for e, at_start in hits:
                if at_start:
                    run = vocabulary.run(e)
                    if run not in stems:
                        stems[run] = relevance.term_for(run, query_terms)
                    term = stems[run]
                    if term:
                        by_term.setdefault(term, []).extend(vocabulary.lines(e))
            for term in sorted(by_term):
                if term in tf:
                    unordered.add(term)
                tf.setdefault(term, Counter()).update(sorted(by_term[term]))
        return tf, unordered
