"""A profile field the model sets, checked like a fact: a value of the
field's shape (a relation from the list, a real birthday, a short gender
or tag, an alias nobody else answers to) that the entries it cites say.
A relation change from friend to dating citing "haha ok" is refused with
the reason, so is `relation: self` on someone other than the user, an
alias of "me" or of another person, and a birthday of 02-30."""

from __future__ import annotations

import datetime as dt
import re
from typing import Sequence

from heartcompass.formats import profile as profile_fmt
from heartcompass.memory.proposal.evidence import FIRST_YEAR, Checker, lexical
from heartcompass.memory.proposal.words import (BIRTHDAY_WORDS, EX_NOT_A_PARTNER, GENDER_VALUES, GENDER_WORDS, MONTHS,
                                                NAMING_WORDS, PRONOUNS, RELATION_WORDS)
from heartcompass.messages import names_in
from heartcompass.store.aliases import SELF_WORDS
from heartcompass.memory.proposal.workbench import LogItem

SHORT_FIELD = 40  # a gender or a tag is a word or two


def _cited(found: list[LogItem]) -> str:
    return " ".join(i.entry.text for i in found)


def says(keywords: str, cited: str) -> bool:
    """Whether the cited text says one of the keywords: Chinese as text,
    English as a word (pronouns too) or its stem."""
    folded = cited.casefold()
    plain = set(re.findall(r"[a-z]+(?:-[a-z]+)?", folded))
    stems = lexical(cited, narrow=True)[0]
    for word in keywords.split():
        if "_" in word:  # a phrase: "in love" says dating where "love" alone ("would love to try") does not
            if re.search(rf"\b{re.escape(word.replace('_', ' '))}\b", folded):
                return True
        elif not word.isascii():
            if word in folded:
                return True
        elif word in plain or (len(word) > 3 and lexical(word, narrow=True)[0] & stems):
            return True
    return False


def check_field(ck: Checker, name: str, value: str, found: list[LogItem] | None):
    """A profile field's value as it will be written, or None (and a problem).
    found: the cited entries (None when the evidence was already refused)."""
    from heartcompass.errors import FormatError, PersonError
    from heartcompass.sanitize import clean_text
    from heartcompass.store.slugs import clean_name

    what = f"profile field {name}"
    value = value.strip()
    try:
        if name == "relation":
            value = profile_fmt.check_relation(value, "relation")
            return _relation(ck, what, value, found)
        if name == "mbti":
            mbti = profile_fmt.normalize_mbti(value, "mbti")
            if mbti is None:  # an empty value is no type (it read as "not the JSON asked for")
                ck.problems.append(f"{what}: empty; an MBTI type is four letters, e.g. ENFP")
                return None
            return _supported(ck, what, mbti, found, says(mbti, _cited(found or [])))
        if name == "birthday":
            return _birthday(ck, what, value, found)
        if name == "alias":
            return _alias(ck, what, clean_name(clean_text(value)), found)
        text = ck.text(f"profile {name}", value)
        if len(text) > SHORT_FIELD or re.search(r"\d", text):
            ck.problems.append(f"{what}: {text[:60]!r} is not a {name}; a {name} is a word or two "
                               f"({SHORT_FIELD} characters at most, no numbers)")
            return None
        if name == "gender":
            group = next((g for g, values in GENDER_VALUES.items() if text.casefold() in values.split()), None)
            if group is not None and found is not None:
                return _supported(ck, what, text, found, _says_gender(group, _cited(found)))
        if found is not None and text:
            ck.support(what, text, found)
        return text
    except (FormatError, PersonError) as exc:
        ck.problems.append(f"{what}: {exc.message}")
        return None


def _supported(ck: Checker, what: str, value: str, found: list[LogItem] | None, ok: bool):
    if found is None:
        return None
    if not ok:
        ids = ", ".join(i.id for i in found)
        ck.problems.append(f"{what}: the entries it cites ({ids}) do not say {value!r}; change a field only on "
                           "what they say")
        return None
    return value


def _relation(ck: Checker, what: str, value: str, found: list[LogItem] | None):
    current = ck.wb.profile.relation
    if value == current:
        return value  # no change: nothing to support
    if value == "self":
        ck.problems.append(f"{what}: 'self' is the user's own person; {ck.wb.profile.name} is someone else")
        return None
    if current == "self":
        ck.problems.append(f"{what}: {ck.wb.profile.name} is the user's own person (relation: self); "
                           "that does not change")
        return None
    cited = EX_NOT_A_PARTNER.sub(" ", _cited(found or []))  # "her ex boss" is no ex
    return _supported(ck, what, value, found, says(RELATION_WORDS[value], cited))


def _says_gender(group: str, cited: str) -> bool:
    """The entries say the gender: a noun of it ("woman", 女), or its pronouns
    where no other gender's pronoun shares the text (in "She said he was late"
    "he" may be anyone)."""
    words = GENDER_WORDS[group].split()
    others = {w for g, ws in GENDER_WORDS.items() if g != group for w in ws.split()} & PRONOUNS
    nouns = " ".join(w for w in words if w not in PRONOUNS)
    if says(nouns, cited):
        return True
    return says(" ".join(w for w in words if w in PRONOUNS), cited) and not says(" ".join(others), cited)


def _birthday(ck: Checker, what: str, value: str, found: list[LogItem] | None):
    m = re.fullmatch(r"(?:(\d{4})-)?(\d{2})-(\d{2})", value)
    try:
        date = dt.date(int(m.group(1) or 2000), int(m.group(2)), int(m.group(3))) if m else None
    except ValueError:
        date = None
    if m is None or date is None or (m.group(1) and not FIRST_YEAR <= date.year <= ck.wb.today.year):
        ck.problems.append(f"{what}: {value!r} is not a real birthday (YYYY-MM-DD from {FIRST_YEAR}, or MM-DD)")
        return None
    if found is None:
        return None
    words, numbers = lexical(_cited(found))
    named_month = any(MONTHS.get(w) == date.month for w in re.findall(r"[a-z]+", _cited(found).casefold()))
    ok = (str(date.day) in numbers and (str(date.month) in numbers or named_month)
          and (not m.group(1) or m.group(1) in numbers) and says(BIRTHDAY_WORDS, _cited(found)))
    return _supported(ck, what, value, found, ok)


def _alias(ck: Checker, what: str, alias: str, found: list[LogItem] | None):
    folded = alias.casefold()
    if folded in SELF_WORDS or folded in {n.casefold() for n in ck.wb.user_names}:
        ck.problems.append(f"{what}: {alias!r} is how the user speaks of themselves, not a name of "
                           f"{ck.wb.profile.name}")
        return None
    owner = ck.wb.alias_owner(alias) if ck.wb.alias_owner else None
    if owner:
        ck.problems.append(f"{what}: {owner}; an alias is a name only this person answers to")
        return None
    cited = _cited(found or []).casefold()
    present = folded in cited if not alias.isascii() else re.search(
        rf"(?<!\w){re.escape(folded)}(?!\w)", cited) is not None
    # the entries say it is a name of hers ("we call her Ali"), not only that it is said
    return _supported(ck, what, alias, found, present and says(NAMING_WORDS, cited))


def check_link_words(ck: Checker, what: str, words: str, found: list[LogItem] | None, person: str = "") -> str:
    """Who another person is to this one ('her brother'): a short statement its
    entries say, in entries that name that other person (person: their slug; a
    sentence about Tom says nothing of who the user is to her)."""
    words = ck.text(what, words)
    names: Sequence[str] = ck.wb.names_of(person) if person and ck.wb.names_of else ()
    if found is not None and words:
        ck.support(what, words, found)
        cited = _cited(found).casefold()
        if names and not any(names_in(n.casefold(), cited) for n in names if n.strip()):
            ids = ", ".join(i.id for i in found)
            ck.problems.append(f"{what}: the entries it cites ({ids}) do not name {names[0]}; a link rests on "
                               "entries about both people")
    return words
