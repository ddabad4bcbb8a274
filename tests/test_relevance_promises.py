"""The promises of memory/relevance.py on its own (issue 29: mutants that
survived the suite): a line's relevance is BM25 (k1 1.2, b 0.75, lengths in
characters) over what a line holding every term once would score, never
less than the floor; forms of a word are one term and a word is matched
whole; CJK text is searched by character pairs, a lone character only when
no pair holding it is found; a term in most lines is not counted; the newest
message weighs most. Texts in, numbers out: no workspace."""

from __future__ import annotations

import math

import pytest

from heartcompass.memory import relevance


def textbook(query: dict[str, float], docs: list[str]) -> dict[int, float]:
    """BM25 as the module's docstring says, counted another way: each doc's
    own terms (relevance.terms) for words, its text for CJK pairs."""
    n = len(docs)
    lengths = [len(doc.lower()) for doc in docs]
    avg = max(1.0, sum(lengths) / n)

    def count(term: str, doc: str) -> int:
        return doc.lower().count(term) if relevance.is_cjk_run(term) else relevance.terms(doc).count(term)

    tf = {t: [count(t, doc) for doc in docs] for t in query}
    tf = {t: fs for t, fs in tf.items() if any(fs)}
    pairs = [t for t in tf if len(t) == 2 and relevance.is_cjk_run(t)]
    tf = {t: fs for t, fs in tf.items() if not (len(t) == 1 and any(t in pair for pair in pairs))}
    idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, fs in tf.items() for df in [sum(map(bool, fs))]}
    best = max(2.0, sum(query[t] * idf[t] for t in tf))
    out = {}
    for i, length in enumerate(lengths):
        found = [(t, fs[i]) for t, fs in tf.items() if fs[i]]
        if found:
            raw = sum(query[t] * idf[t] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * length / avg)) for t, f in found)
            out[i] = min(1.0, raw / best)
    return out


DOCS = ["We hiked up Takao with her sister", "Dinner at the night market, 夜市 again",
        "hiking boots, hiking poles", "She hates parties", "A quiet day", "在夜市吃糖葫芦", "糖葫芦", "party at noon",
        "a long walk by the river on a rainy evening", "x"]


@pytest.mark.parametrize("messages", [["hiking at the night market?"], ["糖葫芦", "the party"], ["夜市", "rainy day hike"],
                                      ["river"]])
def test_relevance_is_bm25_over_a_line_holding_every_term_once(messages):
    query = relevance.query(messages)
    expected = textbook(query, DOCS)
    assert expected  # each query finds some line
    got = relevance.scores(query, DOCS)
    assert got.keys() == expected.keys()
    assert got == {i: pytest.approx(s, rel=1e-12) for i, s in expected.items()}


def test_a_rare_term_scores_a_line_of_average_length_at_one_and_a_longer_line_less():
    """Rare enough (idf over the floor), a term once in a line of average
    length scores 1; in a line 40 / 12 as long, 2.2 / (1 + 1.2 x (0.25 +
    0.75 x 40 / 12))."""
    docs = ["kite " + "." * 7, "kite " + "." * 35] + ["a walk.. .." for _ in range(28)]
    assert sum(map(len, docs)) / len(docs) == 12 == len(docs[0])
    assert math.log(1 + 28.5 / 2.5) > relevance.FLOOR
    scores = relevance.scores({"kite": 1.0}, docs)
    assert set(scores) == {0, 1} and scores[0] == pytest.approx(1.0, rel=1e-12)
    assert scores[1] == pytest.approx(2.2 / (1 + 1.2 * (0.25 + 0.75 * 40 / 12)), rel=1e-12)


def test_a_line_saying_a_term_again_and_again_scores_at_most_one():
    docs = ["kite kite kite kite"] + ["tea"] * 12
    assert relevance.scores({"kite": 1.0}, docs) == {0: 1.0}


def test_lines_of_one_character_count_as_one_long():
    """Lengths in characters, at least one on average: single characters
    (a CJK line of one) are lines of length one."""
    docs = ["猫", "狗", "鱼", "鸟"]
    assert relevance.scores({"猫": 1.0}, docs) == pytest.approx(textbook({"猫": 1.0}, docs), rel=1e-12)
    idf = math.log(1 + 3.5 / 1.5)
    assert relevance.scores({"猫": 1.0}, docs)[0] == pytest.approx(idf * 2.2 / (1 + 1.2) / 2.0, rel=1e-12)


def test_nothing_asked_or_nothing_to_search_finds_nothing():
    assert relevance.scores({}, DOCS) == {}
    assert relevance.scores({"kite": 1.0}, []) == {}
    assert relevance.scores({"kite": 1.0}, ["tea", "coffee"]) == {}
    assert relevance.scores({"tea": 1.0}, ["tea", "coffee"]) == {0: pytest.approx(textbook({"tea": 1.0}, ["tea", "coffee"])[0])}


# -- common terms -----------------------------------------------------------------------
@pytest.mark.parametrize("n, holding, counted", [(20, 10, True), (20, 11, False), (19, 11, True), (40, 20, True),
                                                 (40, 21, False)])
def test_a_term_in_more_than_half_of_twenty_lines_or_more_is_not_counted(n, holding, counted):
    docs = ["dinner with mom"] * holding + ["a walk"] * (n - holding)
    scores = relevance.scores({"dinner": 1.0}, docs)
    assert set(scores) == (set(range(holding)) if counted else set())
    assert set(relevance.scores({"walk": 1.0}, docs)) == set(range(holding, n))  # the other lines' word is found


def test_how_common_a_term_is_goes_by_what_a_line_must_hold_for_it():
    """'day' is looked for as itself, however often 'data' is written: a
    line saying 'day' is found among twenty that say 'data'."""
    docs = ["a long day"] + ["data data"] * 19
    assert set(relevance.scores(relevance.query(["what a day"]), docs)) == {0}


def test_a_common_term_does_not_hide_a_rare_one():
    docs = ["dinner with mom"] * 15 + ["a walk"] * 4 + ["dinner on the rainbow sidewalk"]
    scores = relevance.scores(relevance.query(["dinner by the rainbow sidewalk"]), docs)
    assert set(scores) == {19}


# -- words ------------------------------------------------------------------------------
@pytest.mark.parametrize("word, stem", [
    ("hiking", "hik"), ("walking", "walk"), ("using", "using"), ("parties", "party"), ("pies", "pie"), ("flies", "fly"), ("hiked", "hik"),
    ("hikes", "hik"), ("used", "used"), ("cats", "cat"), ("gas", "gas"), ("boss", "boss"), ("virus", "virus"),
    ("crisis", "crisis"), ("hike", "hik"), ("eye", "eye"), ("tree", "tre"), ("party", "party"), ("swing", "swing"),
    ("boxes", "box"), ("agrees", "agr"), ("agreed", "agr"), ("agree", "agr"), ("toes", "toe"), ("employee", "employ"),
    ("employees", "employ"), ("freed", "fre"), ("free", "fre"), ("see", "see"),
])
def test_forms_of_a_word_are_one_term_and_short_words_are_left_whole(word, stem):
    assert relevance.terms(word) == [stem]


def test_terms_leave_out_what_says_nothing_about_the_conversation():
    """Function words, "remember" and its kin, single Latin letters and
    common CJK pairs are no terms; a letter that is not ASCII, a lone CJK
    character and a kana or hangul pair are."""
    assert relevance.terms("Okay, yeah, I remember: the dinner was after x") == ["dinner"]
    assert relevance.terms("ü 猫") == ["ü", "猫"]
    assert relevance.terms("我们还记得吃糖葫芦") == ["们还", "得吃", "吃糖", "糖葫", "葫芦"]
    assert relevance.terms("记得 什么") == []  # a pair on its own too
    assert relevance.terms("カラオケ 노래방") == ["カラ", "ラオ", "オケ", "노래", "래방"]
    assert relevance.terms("day_trip to Kyoto") == ["day", "trip", "kyoto"]


def test_a_word_counts_only_where_a_word_starts():
    docs = ["her birthday", "a long day", "day_trip to Nara", "someday", "days off"]
    assert set(relevance.scores(relevance.query(["what a day"]), docs)) == {1, 2, 4}


def test_a_word_found_by_its_key_counts_for_its_own_term_only():
    """'party' is looked for as 'part...': 'parties' is the party, 'parts'
    is another term of the same query, and 'partial' no term at all."""
    query = relevance.query(["the party", "spare parts"])
    docs = ["parties", "parts", "partial", "party party"]
    scores = relevance.scores(query, docs)
    assert set(scores) == {0, 1, 3}
    assert scores == pytest.approx(textbook(query, docs), rel=1e-12)
    assert set(relevance.scores(relevance.query(["the city"]), ["two cities", "a cat", "city life"])) == {0, 2}


# -- CJK --------------------------------------------------------------------------------
def test_a_lone_character_counts_only_where_no_pair_holding_it_was_found():
    """'猫呢' asks about the cat: a line holding the pair is found by it,
    not twice over by its character; without the pair the character counts."""
    query = relevance.query(["猫呢"])
    assert query == {"猫呢": 1.0, "猫": 0.5}  # 呢 is a particle
    docs = ["我的猫呢", "她的猫很可爱", "今天下雨"]
    scores = relevance.scores(query, docs)
    assert set(scores) == {0} and scores[0] == pytest.approx(textbook({"猫呢": 1.0}, docs)[0], rel=1e-12)
    without = relevance.scores(query, docs[1:])
    assert without == {0: pytest.approx(textbook({"猫": 0.5}, docs[1:])[0], rel=1e-12)}


# -- the query --------------------------------------------------------------------------
def test_each_term_weighs_as_much_as_the_newest_message_it_is_in():
    weights = relevance.query(["rainbow", "sidewalk mochi", "castro", "tea", "rainbow castro"])
    assert weights == {"rainbow": 1.0, "sidewalk": pytest.approx(0.6), "mochi": pytest.approx(0.6),
                       "castro": pytest.approx(0.2), "tea": pytest.approx(0.2)}
    assert relevance.query(["猫", "狗"]) == {"猫": 1.0, "狗": pytest.approx(0.6)}  # a lone character: the run and half


def test_a_long_message_is_cut_to_its_first_terms_newest_first():
    page = " ".join(f"word{i}" for i in range(40))
    terms = relevance.query(["rainbow sidewalk", page])
    assert list(terms) == ["rainbow", "sidewalk"] + [f"word{i}" for i in range(relevance.MAX_TERMS - 2)]
    assert len(relevance.query([" ".join(f"word{i}" for i in range(relevance.MAX_TERMS))])) == relevance.MAX_TERMS


def test_terms_are_looked_for_pairs_first_and_lone_characters_last():
    assert relevance.term_keys({"猫": 0.5, "猫呢": 1.0, "party": 1.0, "day": 1.0}) == ["day", "part", "猫呢", "猫"]
