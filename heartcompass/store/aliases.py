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


def alias_refusal(ws: Workspace, alias: str, slug: str | None, user_names: tuple[str, ...] = ()) -> str | None:
    """Why `alias` may not be an alias of people/<slug> (None for a new person), or None."""
    from heartcompass.errors import FormatError
    from heartcompass.store.people import collisions, list_people

    folded = " ".join(alias.split()).casefold()
    if not folded:
        return "it is empty"
    names = {n.casefold() for n in user_names if n.strip()} | {str(ws.config.get("user.name") or "").casefold()}
    if folded in SELF_WORDS or folded in names - {""}:
        return f"{alias!r} is how the user speaks of themselves"
    if ":" in folded or folded in _SPEAKERS:
        return f"{alias!r} is a speaker of the logs, not a name"
    taken = collisions(ws, [alias], exclude=slug)
    if taken:
        return taken[0].describe()
    key = handle_key(alias)
    for person in list_people(ws):
        if person.slug == slug:
            continue
        try:
            handles = person.load_profile().handles
        except FormatError:
            continue
        if key in {handle_key(h) for h in handles}:
            return f"{alias!r} is a handle of people/{person.slug}"
    return None
