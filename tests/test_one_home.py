"""Concepts that once had copies now have one home each: how a name is found
in a text, the CJK ranges, the relations a narrative may give someone."""

from __future__ import annotations

import re

import pytest

from heartcompass.language import CJK, FUNCTION_WORDS, HAN
from heartcompass.messages import names_in


@pytest.mark.parametrize("name, text, found", [
    ("li", "li and i went out", True),
    ("li", "lisa came", False),            # a Latin name is a whole word
    ("alice chen", "met alice chen today", True),
    ("小明", "我和小明去爬山", True),        # Chinese has no word boundaries
    ("小明", "我和小红去爬山", False),
    ("さくら", "昨日さくらと会った", True),
])
def test_a_name_is_found_as_a_word_or_as_written(name, text, found):
    assert names_in(name, text) is found


def test_tell_and_the_gardener_find_names_by_the_one_rule():
    from heartcompass.intake import tell
    from heartcompass.memory.proposal import workbench

    assert tell.names_in is names_in and workbench.names_in is names_in


@pytest.mark.parametrize("char, cjk, han", [("好", True, True), ("𠀋", True, True), ("さ", True, False),
                                            ("한", True, False), ("a", False, False), ("é", False, False)])
def test_the_cjk_ranges(char, cjk, han):
    assert bool(re.fullmatch(f"[{CJK}]", char)) is cjk
    assert bool(re.fullmatch(f"[{HAN}]", char)) is han


def test_every_stopword_list_starts_from_the_function_words():
    from heartcompass.intake import cards
    from heartcompass.memory import relevance
    from heartcompass.memory.proposal import words as proposal_words

    for words in (cards._STOPWORDS, proposal_words.stop_words(), relevance.STOPWORDS):
        assert FUNCTION_WORDS <= words


def test_a_person_a_narrative_names_is_offered_every_relation_but_self():
    from heartcompass.formats.profile import RELATIONS
    from heartcompass.intake.tell import NewPerson

    schema = NewPerson.model_json_schema()["properties"]["relation"]
    assert schema["enum"] == [r for r in RELATIONS if r != "self"]
    assert NewPerson(name="小明", relation="self", about="x").relation == "friend"
