"""Names as people say them: "bob" for Bob Stone, "ali" for Alice Chen,
"明月" for 欧阳明月. Asked only when no slug, name or alias matches exactly
(people.matching); each way is tried in turn, and the first that finds
anyone decides: one person resolves, several are ambiguous."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Callable

from heartcompass.errors import FormatError

if TYPE_CHECKING:  # people imports this module
    from heartcompass.store.people import Person


def _cjk(text: str) -> bool:
    return bool(text) and all(unicodedata.name(ch, "").startswith(("CJK UNIFIED", "HANGUL")) for ch in text)


def _first_names(name: str) -> set[str]:
    """A name's first word ("Bob Stone": bob), and for a Chinese name the
    given name after a one- or two-character family name (欧阳明月: 明月, 王小明: 小明)."""
    words = name.casefold().split()
    found = {words[0]} if len(words) > 1 else set()
    if len(words) == 1 and _cjk(name) and len(name) >= 2:
        found |= {name[1:], *([name[2:]] if len(name) >= 4 else [])}
    return found


def loosely(people: list[Person], name: str) -> list[Person]:
    """Everyone `name` could mean, by the first way that finds anyone: a
    first or given name, else the start of a name, alias or slug."""
    wanted = " ".join(name.casefold().split())
    if not wanted:
        return []
    known: list[tuple[Person, list[str]]] = []
    for person in people:
        try:
            known.append((person, [person.slug, *person.load_profile().names()]))
        except FormatError:  # an unparsable profile cannot match by name
            continue
    ways: list[Callable[[str], bool]] = [
        lambda n: wanted in _first_names(n),
        lambda n: n.casefold().startswith(wanted) and len(wanted) >= 2,
    ]
    for way in ways:
        found = [person for person, names in known if any(way(n) for n in names)]
        if found:
            return found
    return []


def titled(people: list[Person]) -> list[tuple[str, str]]:
    """(slug, name) of each, for a question of which one is meant; the slug
    stands in for a name that cannot be read."""
    found = []
    for person in people:
        try:
            found.append((person.slug, person.load_profile().name or person.slug))
        except FormatError:
            found.append((person.slug, person.slug))
    return found
