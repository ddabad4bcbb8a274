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


BIG_RUN = 1024  # lines a run is in, from which it keeps a bitmap of them (event_relevance's walk)


@dataclass
class Vocabulary:
    """Distinct runs of one kind, joined by newlines (searched in C), each
    with its occurrences' lines in postings[offsets[e]:offsets[e + 1]]. Per
    run: how many lines it is in (distinct), the most times one line holds
    it (most), and for a run in BIG_RUN lines or more a bitmap of its lines
    and one of their groups (the event table's), the k-th such run's at
    bitmap_at[e] == k (-1: none), each line_bytes, group_bytes long."""
    text: str
    starts: Column    # "q": where each run starts in text
    offsets: Column   # "q": into postings, one more than there are runs
    postings: Column  # "i": the line of each occurrence, ascending per run
    distinct: Column  # "i"
    most: Column      # "i"
    bitmap_at: Column  # "i"
    bitmaps: bytes | memoryview
    group_bitmaps: bytes | memoryview
    line_bytes: int
    group_bytes: int

    @classmethod
    def build(cls, found: dict[str, list[int]], n: int, group_of: Column, groups: int) -> Vocabulary:
        entries = sorted(found)
        starts, offsets, postings = array.array("q"), array.array("q", [0]), array.array("i")
        distinct, most, bitmap_at = array.array("i"), array.array("i"), array.array("i")
        line_bytes, group_bytes = (n + 7) // 8, (groups + 7) // 8
        bitmaps, group_bitmaps = bytearray(), bytearray()
        at = 0
        for run in entries:
            starts.append(at)
            at += len(run) + 1
            lines = found[run]
            postings.extend(lines)
            offsets.append(len(postings))
            counts = Counter(lines)
            distinct.append(len(counts))
            most.append(max(counts.values()))
            bitmap_at.append(len(bitmaps) // line_bytes if len(counts) >= BIG_RUN else -1)
            if len(counts) >= BIG_RUN:
                bitmaps += _bitmap(counts, line_bytes)
                group_bitmaps += _bitmap({group_of[i] for i in counts}, group_bytes)
        return cls("\n".join(entries), starts, offsets, postings, distinct, most, bitmap_at, bytes(bitmaps),
                   bytes(group_bitmaps), line_bytes, group_bytes)

    def bitmap(self, e: int) -> bytes | memoryview:
        """The lines run e is in, bit i & 7 of byte i >> 3 for line i (a run with one)."""
        k = self.bitmap_at[e]
        return self.bitmaps[k * self.line_bytes:(k + 1) * self.line_bytes]

    def group_bitmap(self, e: int) -> int:
        """The groups of the lines run e is in (bitmap(e) not 0)."""
        k = self.bitmap_at[e]
        return int.from_bytes(self.group_bitmaps[k * self.group_bytes:(k + 1) * self.group_bytes], "little")

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

    def parts(self) -> list[bytes]:
        return [self.text.encode("utf-8"), self.starts.tobytes(), self.offsets.tobytes(), self.postings.tobytes(),
                self.distinct.tobytes(), self.most.tobytes(), self.bitmap_at.tobytes(), bytes(self.bitmaps),
                bytes(self.group_bitmaps)]

    @classmethod
    def from_parts(cls, blobs: list[memoryview], line_bytes: int, group_bytes: int) -> Vocabulary:
        text, starts, offsets, postings, distinct, most, bitmap_at, bitmaps, group_bitmaps = blobs
        return cls(str(text, "utf-8"), starts.cast("q"), offsets.cast("q"), postings.cast("i"), distinct.cast("i"),
                   most.cast("i"), bitmap_at.cast("i"), bitmaps, group_bitmaps, line_bytes, group_bytes)


def _bitmap(members, size: int) -> bytes:
    bits = bytearray(size)
    for i in members:
        bits[i >> 3] |= 1 << (i & 7)
    return bytes(bits)


Found = dict[str, tuple[Vocabulary, list[list[int]]]]  # term -> its vocabulary, the runs each key finds it in


@dataclass
class TermIndex:
    words: Vocabulary
    cjk: Vocabulary
    lengths: Column   # "i": each line's length, lower-cased
    total_length: int
    groups: int       # how many groups the lines are in (event_table's)

    @classmethod
    def build(cls, texts: list[str], group_of: Column | None = None, groups: int = 1) -> TermIndex:
        """group_of: each line's group (all in one without it)."""
        words: dict[str, list[int]] = {}
        cjk: dict[str, list[int]] = {}
        lengths = array.array("i")
        for i, text in enumerate(texts):
            lowered = text.lower()
            lengths.append(len(lowered))
            for run in relevance.runs(lowered):
                (cjk if relevance.is_cjk_run(run) else words).setdefault(run, []).append(i)
        of = group_of if group_of is not None else array.array("i", [0]) * len(texts)
        return cls(Vocabulary.build(words, len(texts), of, groups), Vocabulary.build(cjk, len(texts), of, groups),
                   lengths, sum(lengths), groups)

    def to_parts(self) -> tuple[list[bytes], Any]:
        """Its columns as bytes, and the rest as JSON values (event_cache)."""
        return self.words.parts() + self.cjk.parts() + [self.lengths.tobytes()], [self.total_length, self.groups]

    @classmethod
    def from_parts(cls, blobs: list[memoryview], rest: Any) -> TermIndex:
        """Read back as views of the cache's bytes (checked: event_cache)."""
        total_length, groups = int(rest[0]), int(rest[1])
        lengths = blobs[18].cast("i")
        line_bytes, group_bytes = (len(lengths) + 7) // 8, (groups + 7) // 8
        return cls(Vocabulary.from_parts(blobs[0:9], line_bytes, group_bytes),
                   Vocabulary.from_parts(blobs[9:18], line_bytes, group_bytes), lengths, total_length, groups)

    def scores(self, query_terms: dict[str, float]) -> dict[int, float]:
        """relevance.scores(query_terms, the lines): the same numbers, in the same order."""
        tf = self.counts(self.found(query_terms))
        return relevance.weigh(query_terms, tf, len(self.lengths), self.total_length, self.lengths)

    def counts(self, found: Found) -> dict[str, Counter]:
        """relevance.scores's counts, {term: {line: times}}, each term's lines
        in the order the search meets them."""
        tf: dict[str, Counter] = {}
        for term, (vocabulary, by_key) in found.items():
            for runs in by_key:
                tf.setdefault(term, Counter()).update(sorted(i for e in runs for i in vocabulary.lines(e)))
        return tf

    def found(self, query_terms: dict[str, float]) -> Found:
        """The runs each term is found in, key by key (a run once per time a
        key is in it; a term two keys find: the second's after), without
        reading their lines."""
        n = len(self.lengths)
        found: Found = {}
        if not query_terms or not n:
            return found
        stems: dict[str, str | None] = {}
        for key in relevance.term_keys(query_terms):
            vocabulary = self.cjk if relevance.is_cjk_run(key) else self.words
            hits = vocabulary.hits(key)
            if not relevance.wanted(key, found, n, lambda _: vocabulary.occurrences(hits)) or not hits:
                continue
            if vocabulary is self.cjk:  # each time the key is in a run, once per line the run is in
                found[key] = (vocabulary, [[e for e, _ in hits]])
                continue
            by_term: dict[str, list[int]] = {}
            for e, at_start in hits:
                if at_start:
                    run = vocabulary.run(e)
                    if run not in stems:
                        stems[run] = relevance.term_for(run, query_terms)
                    term = stems[run]
                    if term:
                        by_term.setdefault(term, []).append(e)
            for term in sorted(by_term):
                found.setdefault(term, (vocabulary, []))[1].append(by_term[term])
        return found
