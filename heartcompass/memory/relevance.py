"""How much a piece of memory has to do with the conversation at hand.

BM25 over words (lower-cased, lightly stemmed, without the commonest English
words) and CJK character bigrams, so "the rainbow sidewalk" and "糖葫芦"
find the line that names them. No embeddings: the files are the truth,
and a query only ever looks at its own few terms, so all the lines are
searched at once for each of them (a big EVENTS.md's lines through its
term index, relevance_index.py, which finds the same counts).

A score is in 0..1: the line's BM25 score over what a line holding every
query term once would score (never less than FLOOR, so a query whose only
known words are common ones, "dinner" in a third of all lines, lifts those
lines only a little). The newest message weighs most, and at most
MAX_TERMS terms are looked for."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
import re
from collections import Counter
from typing import Collection

from heartcompass.language import CJK, FUNCTION_WORDS

# Kana, CJK ideographs (and their extensions and compatibility forms), Hangul.


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern, re.Pattern]:
    """(a term's run of letters or CJK characters, one CJK character):
    compiled on first use, so a chat opens without paying for them."""
    return re.compile(rf"[{CJK}]+|[^\W_{CJK}]+"), re.compile(rf"[{CJK}]")


def _is_cjk(text: str) -> bool:
    return _patterns()[1].match(text) is not None


K1, B = 1.2, 0.75
FLOOR = 2.0  # about the idf of a term in one line of ten: below it, a match says little
# A term found more often than in half the lines (of twenty or more) is not
# counted: BM25's classic idf is zero there, and it is the costliest to count.
COMMON_SHARE, COMMON_FROM = 0.5, 20
MAX_TERMS = 32  # of the conversation, newest first
# Words (and CJK bigrams) that say nothing about what a conversation is about,
# and "remember" (记得), which asks about the past without naming it.
STOPWORDS = FUNCTION_WORDS | frozenset("""
a after am an as at back be before by do doing don done get go going got he hello hey hi i if in is it know let
like me mine my no of oh ok okay on one or out over remember remembered say so still thing things think to up us
we while yeah
记得 还记 什么 怎么 这个 那个 我们 你们 他们 她们 就是 可以 没有 知道 觉得 一个 现在 时候 是不 不是
""".split())
# CJK characters too common to say what a message is about on their own.
CJK_STOP = frozenset("的了是我你他她它们在有和就不也都还吗呢吧啊呀哦嗯这那个一上下说要会没很得着过到去来么什样好记"
                     "想看能对给让把被与及或之其又再已")


def _stem(word: str) -> str:
    """A light English stemmer: 'hiked', 'hiking', 'hikes' and 'hike' are one word; so are 'agree' and
    'agreed' (every final e goes, as 'agreed' loses its ed and then its e)."""
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("ed", "es")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    while len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _key(term: str) -> str:
    """What a doc holding the term must contain: the stem, or for 'party'
    (from 'parties') 'part'."""
    return term[:-1] if len(term) > 3 and term.endswith("y") else term


def terms(text: str) -> list[str]:
    """The terms of a text: stemmed words, and each CJK run as its character
    bigrams (a lone character as itself)."""
    out: list[str] = []
    for run in _patterns()[0].findall(text.lower()):
        if _is_cjk(run):
            out += [b for b in (run[i:i + 2] for i in range(len(run) - 1)) if b not in STOPWORDS] \
                if len(run) > 1 else [run]
        elif run not in STOPWORDS and not (len(run) == 1 and run.isascii()):
            out.append(_stem(run))
    return out


def query(messages: list[str]) -> dict[str, float]:
    """Terms of the conversation, newest message first: each term weighs as
    much as the newest message it is in (1, then 0.6, then 0.4 ...). A CJK
    character that is no particle counts on its own too, at half weight:
    "猫呢" is about the cat (猫), and no line holds the bigram 猫呢."""
    weights: dict[str, float] = {}
    for age, message in enumerate(messages):
        weight = max(0.2, 1.0 - 0.4 * age)
        for term in terms(message):
            weights[term] = max(weights.get(term, 0.0), weight)
        for char in _patterns()[1].findall(message):
            if char not in CJK_STOP:
                weights[char] = max(weights.get(char, 0.0), weight / 2)
    if len(weights) > MAX_TERMS:  # a pasted page: each term is a pass over all the text
        kept = sorted(weights, key=lambda t: -weights[t])[:MAX_TERMS]  # the newest first, in their order
        weights = {t: weights[t] for t in kept}
    return weights


def term_keys(query_terms: dict[str, float]) -> list[str]:
    """What a doc holding each term must contain, in the order looked for:
    lone CJK characters last (a bigram found holding one makes it moot)."""
    return sorted({_key(t) for t in query_terms}, key=lambda k: (len(k) == 1 and _is_cjk(k), k))


def runs(lowered: str) -> list[str]:
    """A lower-cased text's runs of letters (a word), or of CJK characters."""
    return _patterns()[0].findall(lowered)


def is_cjk_run(run: str) -> bool:
    return _is_cjk(run)


def _finders(query_terms: dict[str, float]) -> list[tuple[str, re.Pattern, bool]]:
    """One pattern per term key, each starting with its literal (so the
    search skips ahead in C): a stem at the start of a word, then the rest
    of the word (checked by stemming it); or a CJK bigram or character.
    Lone characters come last: they only count when no bigram holding them
    was found."""
    finders = []
    for key in term_keys(query_terms):
        if _is_cjk(key):
            finders.append((key, re.compile(re.escape(key)), False))
        else:  # not preceded by a letter of the same word: the lookbehind spans the key and one more
            k = re.escape(key)
            finders.append((key, re.compile(rf"{k}(?<![^\W_{CJK}]{k})[^\W_{CJK}]*"), True))
    return finders


def wanted(key: str, tf: Collection[str], n: int, occurrences) -> bool:
    """Whether a term key is looked for: not a lone character a found bigram
    holds, and not found more often than in half the lines (occurrences(key):
    how often it is in all the text)."""
    if len(key) == 1 and any(key in pair for pair in tf if len(pair) == 2):
        return False  # a bigram holding it was found: it adds nothing
    # in most lines: it cannot tell them apart (and would cost the most)
    return not (n >= COMMON_FROM and occurrences(key) > n * COMMON_SHARE)


def term_for(word: str, query_terms: dict[str, float]) -> str | None:
    """The query term a word found by its key counts for, if any."""
    term = word if word in query_terms else _stem(word)
    return term if term in query_terms else None


def scores(query_terms: dict[str, float], docs: list[str]) -> dict[int, float]:
    """{index: relevance in 0..1} of the docs that share a term with the query
    (the others are 0 and left out). All the text is searched at once, one
    term at a time, and the matches are counted by (doc, term) in C, with
    no Python step per doc or per match: 100,000 events stay fast. (A big
    EVENTS.md is searched through its term index instead: relevance_index.py.)"""
    lowered = [doc.lower() for doc in docs]
    lengths = [len(doc) for doc in lowered]
    big = "\n".join(lowered)
    ends = list(itertools.accumulate(n + 1 for n in lengths))  # bisect_right(ends, p): the doc at p
    stems: dict[str, str | None] = {}  # a word as found -> its query term (None: not one)
    tf: dict[str, Counter] = {}  # term -> {doc: count}
    for key, pattern, is_word in _finders(query_terms):
        if not wanted(key, tf, len(docs), big.count):
            continue
        matches = list(pattern.finditer(big))
        if not matches:
            continue
        where = map(bisect.bisect_right, itertools.repeat(ends), map(re.Match.start, matches))
        if not is_word:
            tf[key] = Counter(where)
            continue
        words = list(map(re.Match.group, matches))
        for word in set(words).difference(stems):
            stems[word] = term_for(word, query_terms)
        found = list(map(stems.__getitem__, words))
        at = list(where)
        for term in sorted(filter(None, set(found))):  # usually one: "hiked", "hiking" are "hik"
            is_term = map(operator.eq, found, itertools.repeat(term))  # not term.__eq__: NotImplemented is true
            tf.setdefault(term, Counter()).update(itertools.compress(at, is_term))
    return weigh(query_terms, tf, len(docs), sum(lengths), lengths)


def gains(query_terms: dict[str, float], df: dict[str, int], n: int,
          total_length: int) -> tuple[dict[str, float], float, float]:
    """BM25's parts that are the same for every doc, from how many docs hold
    each term found (df): each one's gain (its share of the best score), and
    n0, n1: a doc of length L holding a term f times scores
    gain * f / (f + n0 + n1 * L) for it."""
    avg_len = max(1.0, total_length / n)  # characters stand in for a doc's length in terms
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    best = max(FLOOR, sum(query_terms[t] * idf[t] for t in idf))
    return ({t: query_terms[t] * idf[t] * (K1 + 1) / best for t in df}, K1 * (1 - B), K1 * B / avg_len)


def weigh(query_terms: dict[str, float], tf: dict[str, Counter], n: int, total_length: int,
          lengths) -> dict[int, float]:
    """BM25 from the counts: {doc: relevance in 0..1} (lengths[doc]: its
    length in characters, lower-cased; total_length: all of theirs)."""
    if not tf:
        return {}
    gain_of, n0, n1 = gains(query_terms, {t: len(c) for t, c in tf.items()}, n, total_length)
    raw: dict[int, float] = {}
    for t, counts in tf.items():
        gain = gain_of[t]
        if not raw:  # the first term's in one go (0.0 + x is x): 50,000 lines may hold it
            raw = {i: gain * f / (f + n0 + n1 * lengths[i]) for i, f in counts.items()}
            continue
        for i, f in counts.items():
            raw[i] = raw.get(i, 0.0) + gain * f / (f + n0 + n1 * lengths[i])
    return {i: r if r < 1.0 else 1.0 for i, r in raw.items()}
