"""A profile field or link the model sets (memory/proposal/fields.py, issue
29) is checked like a fact: a value of the field's shape that the entries it
cites say. A relation changed on "haha ok" is refused with the reason, so is
`relation: self` on someone else, an alias that is the user or another
person, a birthday of 02-30, and a link resting on entries that never name
the other person. Each test checks one value against entries in memory."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal.evidence import Checker
from heartcompass.memory.proposal.fields import check_field, check_link_words, says
from heartcompass.memory.proposal.workbench import LogItem, Workbench

TODAY = dt.date(2026, 12, 1)


def bench(relation: str = "friend", owner: dict[str, str] | None = None, names: dict[str, list[str]] | None = None,
          user_names: tuple[str, ...] = ("Sam",)) -> Workbench:
    profile = f"---\nname: Alice\nrelation: {relation}\n---\n\n# Alice\n"
    return Workbench("alice", profile_fmt.parse(profile, Path("PROFILE.md")),
                     events_fmt.parse("# Events — Alice\n", Path("EVENTS.md")), memory_fmt.new(Path("MEMORY.md"), "Alice"),
                     set(), {"alice", "bob"}, TODAY,
                     alias_owner=(lambda alias: (owner or {}).get(alias.casefold())) if owner is not None else None,
                     user_names=user_names,
                     names_of=(lambda slug: (names or {}).get(slug, [])) if names is not None else None)


def said(*texts: str) -> list[LogItem]:
    return [LogItem(f"L{n}", "2026-11-30", dailylog.Entry(f"20:0{n}:00", "me", text), n - 1)
            for n, text in enumerate(texts, 1)]


def field(name: str, value: str, *texts: str, wb: Workbench | None = None, cited: bool = True):
    """(the value as it will be written or None, the problems) of one field on entries saying texts."""
    items = said(*texts)
    ck = Checker(wb or bench(), items)
    return check_field(ck, name, value, items if cited else None), ck.problems


# -- what the entries say ---------------------------------------------------------------
def test_a_keyword_is_said_as_a_word_its_stem_a_phrase_or_chinese_text():
    assert says("friend", "she is my best friend")
    assert says("friend", "we became friends")  # the stem
    assert not says("friend", "she is friendly")  # a word, not a prefix of one
    assert says("in_love", "I think I'm in love with her") and not says("in_love", "she would love to travel")
    assert says("约会 恋爱", "我们昨天去约会了")
    assert not says("约会", "我们昨天去吃饭了")
    assert says("ex", "she is my ex now") and not says("ex", "the next one")
    assert says("non-binary", "Alex is non-binary")
    assert says("date", "update the dates") and not says("son", "my sons")  # three letters: whole words only
    assert says("dating", "we have been dating since May")


# -- relation ---------------------------------------------------------------------------
def test_a_relation_change_rests_on_entries_that_say_it():
    assert field("relation", "dating", "we are dating now") == ("dating", [])
    value, problems = field("relation", "dating", "haha ok")
    assert value is None and problems == ["profile field relation: the entries it cites (L1) do not say 'dating'; "
                                          "change a field only on what they say"]


def test_a_relation_unchanged_needs_no_support():
    assert field("relation", "friend", "haha ok") == ("friend", [])


def test_self_is_only_the_users_own_person_and_never_changes():
    value, problems = field("relation", "self", "this is me")
    assert value is None and problems == ["profile field relation: 'self' is the user's own person; Alice is "
                                          "someone else"]
    value, problems = field("relation", "friend", "my friend", wb=bench("self"))
    assert value is None and problems == ["profile field relation: Alice is the user's own person (relation: self); "
                                          "that does not change"]


def test_an_ex_boss_says_no_ex_partner():
    assert field("relation", "broken_up", "she met my ex boss")[0] is None
    assert field("relation", "broken_up", "she is my ex now") == ("broken_up", [])


def test_an_unknown_relation_is_refused_with_the_allowed_ones():
    value, problems = field("relation", "soulmate", "she is my soulmate")
    assert value is None and problems == ["profile field relation: relation: unknown relation 'soulmate'"]


def test_a_relation_on_refused_evidence_is_not_set():
    assert field("relation", "dating", "we are dating", cited=False) == (None, [])


# -- mbti -------------------------------------------------------------------------------
def test_an_mbti_type_is_set_only_when_the_entries_say_it():
    assert field("mbti", "enfp", "she says she is an ENFP") == ("ENFP", [])
    value, problems = field("mbti", "INTJ", "she says she is an ENFP")
    assert value is None and problems == ["profile field mbti: the entries it cites (L1) do not say 'INTJ'; change "
                                          "a field only on what they say"]
    value, problems = field("mbti", "  ", "she is an ENFP")
    assert value is None and problems == ["profile field mbti: empty; an MBTI type is four letters, e.g. ENFP"]
    value, problems = field("mbti", "XYZW", "she is an XYZW")
    assert value is None and problems[0].startswith("profile field mbti: ")


# -- birthday ---------------------------------------------------------------------------
def test_a_birthday_is_a_real_date_its_entries_say_is_a_birthday():
    assert field("birthday", "05-03", "her birthday is on May 3") == ("05-03", [])
    assert field("birthday", "1990-05-03", "born May 3, 1990") == ("1990-05-03", [])
    value, problems = field("birthday", "05-03", "lunch with her on May 3")  # a lunch, not a birthday
    assert value is None and problems[0].endswith("do not say '05-03'; change a field only on what they say")
    assert field("birthday", "1991-05-03", "born May 3, 1990")[0] is None  # the year is not theirs
    assert field("birthday", "05-04", "her birthday is on May 3")[0] is None  # nor the day
    assert field("birthday", "06-03", "her birthday is on May 3")[0] is None  # nor the month
    assert field("birthday", "05-03", "her birthday: 3rd of month 5") == ("05-03", [])  # a month by number


def test_a_birthday_said_day_first_is_a_day_of_that_month_not_millions():
    """'3 May' is the third of May: the M of May is no scale (3M is three million)."""
    assert field("birthday", "05-03", "her birthday is on 3 May") == ("05-03", [])
    assert field("birthday", "1990-03-03", "born 3 March 1990") == ("1990-03-03", [])


def test_a_birthday_that_is_no_date_or_out_of_range_is_refused():
    why = "is not a real birthday (YYYY-MM-DD from 1900, or MM-DD)"
    for value in ("02-30", "1990-13-01", "May 3", "1899-05-03", "2027-01-01"):
        got, problems = field("birthday", value, f"her birthday {value}")
        assert got is None and problems == [f"profile field birthday: {value!r} {why}"], value
    assert field("birthday", "1900-01-01", "born 1 January 1900")[0] == "1900-01-01"
    assert field("birthday", "2026-12-01", "born 1 December 2026, her birthday")[0] == "2026-12-01"
    assert field("birthday", "02-29", "her birthday is 29 February")[0] == "02-29"  # a leap day, any year
    assert field("birthday", "05-03", "her birthday is on May 3", cited=False) == (None, [])


# -- gender and tags --------------------------------------------------------------------
def test_a_gender_rests_on_a_noun_or_pronouns_no_other_gender_shares():
    assert field("gender", "female", "she is a woman who loves tea") == ("female", [])
    assert field("gender", "female", "she loves tea") == ("female", [])
    assert field("gender", "male", "she said he was late")[0] is None  # "he" may be anyone there
    assert field("gender", "female", "she said he was late")[0] is None
    assert field("gender", "male", "my friend is a man, she said") == ("male", [])  # a noun says it
    value, problems = field("gender", "female", "we had lunch")
    assert value is None and problems == ["profile field gender: the entries it cites (L1) do not say 'female'; "
                                          "change a field only on what they say"]
    assert field("gender", "女", "她是女生") == ("女", [])


def test_a_gender_or_tag_is_a_word_or_two():
    long = "climber " + "x" * 33
    value, problems = field("tag", long, "she is a climber")
    assert value is None and problems == [f"profile field tag: {long!r} is not a tag; a tag is a word or two "
                                          "(40 characters at most, no numbers)"]
    assert field("tag", "climber 2", "climber 2")[0] is None
    assert field("tag", "climber", "she is a keen climber") == ("climber", [])
    assert field("tag", long[:40], "she is a climber") == (long[:40], [])


def test_a_tag_or_unlisted_gender_rests_on_entries_that_share_its_words():
    value, problems = field("tag", "climber", "we had lunch")
    assert value is None or problems  # not said: refused
    assert problems and "shares no words" in problems[0]
    assert field("gender", "genderfluid", "Alex says they are genderfluid") == ("genderfluid", [])
    assert field("tag", "climber", "we had lunch", cited=False) == ("climber", [])  # checked later, or refused


# -- alias ------------------------------------------------------------------------------
def test_an_alias_is_a_name_the_entries_say_she_is_called():
    assert field("alias", "Ali", "we call her Ali") == ("Ali", [])
    assert field("alias", "小爱", "我们叫她小爱") == ("小爱", [])
    value, problems = field("alias", "Ali", "Ali came to lunch")  # said, not said to be her name
    assert value is None and "do not say 'Ali'" in problems[0]
    assert field("alias", "Ali", "we call her Alison")[0] is None  # a whole name, not part of one
    assert field("alias", "Ali", "we call her Ali", cited=False) == (None, [])


def test_an_alias_is_never_the_user_or_someone_elses_name():
    value, problems = field("alias", "me", "we call her me")
    assert value is None and problems == ["profile field alias: 'me' is how the user speaks of themselves, not a name "
                                          "of Alice"]
    value, problems = field("alias", "sam", "we call her Sam")
    assert value is None and problems == ["profile field alias: 'sam' is how the user speaks of themselves, not a "
                                          "name of Alice"]
    wb = bench(owner={"bobby": "'Bobby' is already a name of people/bob"})
    value, problems = field("alias", "Bobby", "we call her Bobby", wb=wb)
    assert value is None and problems == ["profile field alias: 'Bobby' is already a name of people/bob; an alias "
                                          "is a name only this person answers to"]
    assert field("alias", "Ali", "we call her Ali", wb=wb) == ("Ali", [])


# -- a link -----------------------------------------------------------------------------
def link(words: str, *texts: str, person: str = "bob", names=None, cited: bool = True):
    items = said(*texts)
    ck = Checker(bench(names={"bob": ["Bob", "Robert"]} if names is None else names), items)
    return check_link_words(ck, "link to bob", words, items if cited else None, person), ck.problems


def test_a_link_rests_on_entries_that_name_the_other_person_and_say_who_they_are():
    assert link("her brother", "Bob is her brother") == ("her brother", [])
    assert link("her brother", "Robert is her brother") == ("her brother", [])
    words, problems = link("her brother", "her brother is visiting")
    assert problems == ["link to bob: the entries it cites (L1) do not name Bob; a link rests on entries about "
                        "both people"]
    assert link("her brother", "her brother is visiting", names={}) == ("her brother", [])  # no names known
    assert link("her brother", "her brother is visiting", person="") == ("her brother", [])


def test_a_link_says_what_its_entries_say():
    words, problems = link("her boss", "Bob is her brother")
    assert problems and "shares no words" in problems[0]
    assert link("her brother", "her brother is visiting", cited=False) == ("her brother", [])
    words, problems = link("", "Bob is her brother")
    assert words == "" and problems == ["link to bob: empty text"]


def test_a_refused_alias_or_birthday_says_which_field_and_which_entries():
    value, problems = field("alias", "Ali", "Ali came to lunch")
    assert problems == ["profile field alias: the entries it cites (L1) do not say 'Ali'; change a field only on what "
                        "they say"]
    value, problems = field("birthday", "05-03", "lunch with her on May 3", "and May 4")
    assert problems == ["profile field birthday: the entries it cites (L1, L2) do not say '05-03'; change a field "
                        "only on what they say"]


def test_a_birthday_without_a_year_is_no_date_out_of_range_whatever_today_is():
    wb = bench()
    wb.today = dt.date(1999, 6, 1)  # a clock set back: MM-DD has no year to be after it
    assert field("birthday", "05-03", "her birthday is on May 3", wb=wb) == ("05-03", [])
    assert field("birthday", "1998-05-03", "born May 3, 1998, her birthday", wb=wb) == ("1998-05-03", [])
    assert field("birthday", "2000-05-03", "born May 3, 2000, her birthday", wb=wb)[0] is None


def test_a_link_names_both_people_in_its_entries_each_id_listed():
    words, problems = link("her brother", "her brother is visiting", "he is tall")
    assert problems == ["link to bob: the entries it cites (L1, L2) do not name Bob; a link rests on entries about "
                        "both people"]
    words, problems = link("her boss", "Bob is her brother")
    assert problems == ["link to bob: shares no words with the entries it cites (L1); state only what they say, in "
                        "their words"]


def test_a_link_without_a_way_to_know_names_rests_on_what_its_entries_say():
    items = said("her brother is visiting")
    ck = Checker(bench(), items)  # no names_of: a workbench built without the workspace's people
    assert check_link_words(ck, "link to bob", "her brother", items, "bob") == "her brother" and ck.problems == []
    ck = Checker(bench(names={}), items)
    ck.wb.names_of = lambda slug: ["Bob"]
    assert check_link_words(ck, "link to ?", "her brother", items) == "her brother" and ck.problems == []  # no person


def test_a_relation_word_is_found_by_its_stem_even_where_the_full_stop_word_list_holds_it():
    """'turns me down' says 'failed' (turned): the stem of a relation word counts, though 'turns' is a stop word."""
    assert field("relation", "failed", "she turns me down every time") == ("failed", [])


def test_each_refused_field_value_says_which_field_and_why():
    assert field("mbti", "XYZW", "she is an XYZW") == (None, ["profile field mbti: mbti: 'XYZW' is not an MBTI type"])
    assert field("tag", "   ", "x") == ("", ["profile tag: empty text"])
    assert field("tag", "climber", "we had lunch")[1] == [
        "profile field tag: shares no words with the entries it cites (L1); state only what they say, in their words"]
    long = "a very keen climber of the highest peaks in the alps and beyond them"
    assert field("tag", long, "a keen climber")[1] == [f"profile field tag: {long[:60]!r} is not a tag; a tag is a "
                                                      "word or two (40 characters at most, no numbers)"]


def test_an_alias_ending_one_entry_is_read_apart_from_the_next():
    assert field("alias", "Ali", "we call her Ali", "she likes tea") == ("Ali", [])
