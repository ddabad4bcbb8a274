"""Whether a word may be a person's alias: aliases route messages (an import
files a sender by name, alias or handle) and name people in text, so one
that is the user ("me", 我, the user's name), a log's own speaker ("note",
"import:me") or anyone else's name, slug, alias or handle is refused, from the
gardener and from imported data (a vCard's NICKNAME) alike."""

from __future__ import annotations

from heartcompass.formats.profile import handle_key
from heartcompass.store.workspace import Workspace

# What the user calls themselves in a chat: never another person's alias.
SELF_WORDS = frozenset({"me", "myself", "i", "user", "the user", "you", "我", "自己", "本人", "你"})
# A log's speakers ("import:me", "note", "persona"...): a word with ":" in it is never a name
_SPEAKERS = frozenset({"note", "persona", "mark"})


def taken_names(ws: Workspace) -> dict[str, tuple[dict[str, str], set[str]]]:
    """Everyone's names (name, aliases, slug; casefolded) and handle keys, by slug: read
    once for an import that checks many aliases."""
    from heartcompass.errors import FormatError
    from heartcompass.store.people import list_people

    out = {}
    for person in list_people(ws):
        names: dict[str, str] = {_fold(person.slug): "folder name"}
        try:
            prof = person.load_profile()
            names.update({_fold(a): "alias" for a in prof.aliases if a})
            names[_fold(prof.name)] = "name"
            handles = prof.handles
        except FormatError:
            handles = []
        out[person.slug] = (names, {handle_key(h) for h in handles})
    return out


def _fold(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", " ".join(text.split())).casefold()


def alias_refusal(ws: Workspace, alias: str, slug: str | None, user_names: tuple[str, ...] = (),
                  taken: dict[str, tuple[dict[str, str], set[str]]] | None = None) -> str | None:
    """Why `alias` may not be an alias of people/<slug> (None for a new person), or None.
    taken: taken_names(ws), when many aliases are checked."""
    folded = _fold(alias)
    if not folded:
        return "it is empty"
    names = {_fold(n) for n in (*user_names, str(ws.config.get("user.name") or ""))}  # "" matches nothing now
    if folded in SELF_WORDS or folded in names:
        return f"{alias!r} is how the user speaks of themselves"
    if ":" in folded or folded in _SPEAKERS:
        return f"{alias!r} is a speaker of the logs, not a name"
    key = handle_key(alias)
    for other, (their_names, their_handles) in (taken if taken is not None else taken_names(ws)).items():
        if other == slug:
            continue
        if folded in their_names:
            return f"{alias!r} is already the {their_names[folded]} of people/{other}"
        if key in their_handles:
            return f"{alias!r} is a handle of people/{other}"
    return None
