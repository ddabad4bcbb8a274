"""Who is who in an export: each sender to the person whose name, alias or
handle matches, the user by their own handles (people/<self>'s `handles:`),
by the app's own mark, or by `--me`. A contact whose name is "me" is not
the user: only these say who the user is."""

from __future__ import annotations

from dataclasses import dataclass, field

from heartcompass.errors import FormatError
from heartcompass.formats.profile import handle_key


@dataclass
class Directory:
    """Everyone's names and handles, read once per import."""
    names: dict[str, list[str]] = field(default_factory=dict)  # slug -> name and aliases
    handles: dict[str, str] = field(default_factory=dict)  # handle key -> slug
    display: dict[str, str] = field(default_factory=dict)  # slug -> name
    mine: set[str] = field(default_factory=set)  # the user's own handle keys
    self_slug: str | None = None

    def person_for(self, speaker: str, handle: str = "") -> str | None:
        """The slug of the one person this sender is, or None (unknown or ambiguous)."""
        if handle and handle_key(handle) in self.handles:
            return self.handles[handle_key(handle)]
        if speaker and handle_key(speaker) in self.handles:  # PyWxDump's senders are wxids
            return self.handles[handle_key(speaker)]
        found = [slug for slug, names in self.names.items() if slug != self.self_slug and _same(speaker, names)]
        return found[0] if len(found) == 1 else None

    def by_handle(self, speaker: str, handle: str) -> str | None:
        """The slug this sender's id (or a speaker that is an id) belongs to, or None."""
        return next((self.handles[handle_key(h)] for h in (handle, speaker) if h and handle_key(h) in self.handles),
                    None)

    def by_own_name(self, speaker: str, slug: str) -> bool:
        """Whether a sender's display name is the person's own name (not only an alias of theirs)."""
        return _same(speaker, [self.display[slug], slug])  # directory() fills display for everyone in names

    def is_user(self, handle: str, speaker: str = "") -> bool:
        return bool(self.mine) and any(h and handle_key(h) in self.mine for h in (handle, speaker))


def not_sure(senders, directory: Directory, slug_of) -> dict[tuple[str, str], str]:
    """The senders of a group filed under a person by name alone when that
    name is not enough: two ids share the display name ("Alice" 111 and 222:
    one may be someone else), or an id the person does not list answers to
    one of their aliases while they list ids of their own (a Discord author
    who took Alice's nickname). (speaker, handle) -> the person they were
    not filed under."""
    ids: dict[str, set[str]] = {}
    for speaker, handle in senders:
        if handle:
            ids.setdefault("".join(speaker.split()).casefold(), set()).add(handle_key(handle))
    out = {}
    for speaker, handle in senders:
        if not handle or directory.by_handle(speaker, handle):
            continue  # filed by their id (or no id to tell two apart)
        slug = slug_of(speaker)  # by name: neither their handle nor their speaker is an id anyone lists
        if slug is None:
            continue
        shared = len(ids.get("".join(speaker.split()).casefold(), ())) > 1
        borrowed = not directory.by_own_name(speaker, slug) and any(s == slug for s in directory.handles.values())
        if shared or borrowed:
            out[(speaker, handle)] = slug
    return out


def _same(speaker: str, names: list[str]) -> bool:
    """A speaker is a person by a whole name or alias (any case or spacing),
    never by a first name alone: in a group, "Alice Wong" is not Alice Chen."""
    squash = lambda t: "".join(t.split()).replace("_", "").casefold()  # noqa: E731
    return any(squash(speaker) == squash(n) for n in names if n.strip())


def directory(ws, aka: dict[str, str] | None = None) -> Directory:
    """Everyone's names and handles; `aka` (an export's handle -> the
    sender's other handle) lets a sender known by either reach their person."""
    from heartcompass.store.people import list_people

    out = Directory()
    for person in list_people(ws):
        try:
            prof = person.load_profile()
        except FormatError:
            continue  # doctor names it; its sender stays unknown here
        out.names[person.slug] = prof.names()
        out.display[person.slug] = prof.name
        keys = [handle_key(h) for h in prof.handles]
        if prof.relation == "self":
            out.self_slug = out.self_slug or person.slug
            out.mine.update(keys)
            continue
        for key in keys:
            out.handles.setdefault(key, person.slug)
    for handle, other in (aka or {}).items():  # a Discord id whose username a profile lists
        key, known = handle_key(handle), handle_key(other)
        if known in out.mine:
            out.mine.add(key)
        elif key not in out.handles and known in out.handles:
            out.handles[key] = out.handles[known]
    return out


def claimed_twice(ws) -> list[tuple[str, list[str]]]:
    """Handles more than one person lists (doctor): (handle, slugs)."""
    from heartcompass.store.people import list_people

    owners: dict[str, tuple[str, list[str]]] = {}
    for person in list_people(ws):
        try:
            handles = person.load_profile().handles
        except FormatError:
            continue
        for handle in dict.fromkeys(handle_key(h) for h in handles):
            owners.setdefault(handle, (handle, []))[1].append(person.slug)
    return [(h, slugs) for h, slugs in owners.values() if len(slugs) > 1]
