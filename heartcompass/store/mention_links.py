"""When someone a person mentions becomes a person of the workspace (`person
add`, a card, contacts, tell), the mention's line in `## People in their
life` links to them (`→ slug`) instead of standing beside them as a copy.

Called inside the write transaction that adds the person; the profiles it
changes are committed with the new folder. Only a sure match links: the
mention's name or alias is the new person's name, alias or a form of them
(first name, nickname, 老王 for 王建国); two mentions in one profile that
both fit, or a mention already linked, are left as they are."""

from __future__ import annotations

from pathlib import Path

from heartcompass import names
from heartcompass.atomic import file_checksum, write_atomic
from heartcompass.errors import FormatError
from heartcompass.formats import mentions as mentions_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.formats.text import read_text
from heartcompass.store.people import Person, list_people
from heartcompass.store.workspace import Workspace

SURE = ("exact", "nickname")


def link_new_people(ws: Workspace, added: list[Person]) -> list[Path]:
    """Links the mentions that mean one of `added`; returns the profiles written."""
    newcomers = []
    for person in added:
        try:
            prof = person.load_profile()
        except FormatError:
            continue
        newcomers.append(names.Candidate(person.slug, prof.names()))
    if not newcomers:
        return []
    slugs = {p.slug for p in added}
    written = []
    for other in list_people(ws):
        if other.slug in slugs or not other.profile_path.exists():
            continue
        path = _link_in(ws, other, newcomers)
        if path is not None:
            written.append(path)
    return written


def _link_in(ws: Workspace, person: Person, newcomers: list[names.Candidate]) -> Path | None:
    before = file_checksum(person.profile_path)  # taken as read: a change meanwhile refuses the write
    try:
        text = read_text(person.profile_path)
    except (OSError, FormatError):
        return None
    if mentions_fmt.HEADING not in text:  # most profiles: no parse at all
        return None
    try:
        prof = profile_fmt.parse(text, person.profile_path)
    except FormatError:  # a broken profile is doctor's to report, not ours to rewrite
        return None
    found = mentions_fmt.read(prof.body)
    changed = False
    for newcomer in newcomers:
        fits = [i for i, m in enumerate(found) if not m.person and _means(m, newcomer)]
        if len(fits) == 1:  # two lines that both fit: which one is them is the user's to say
            found[fits[0]] = found[fits[0]].changed(person=newcomer.id)
            changed = True
    if not changed:
        return None
    from heartcompass.store.audit import commit_pending

    commit_pending(ws, [person])  # the user's own edit of this profile stays their own commit
    prof.doc.body = mentions_fmt.write(prof.body, mentions_fmt.with_ids(found))
    new_text = profile_fmt.render(prof)
    profile_fmt.parse(new_text, person.profile_path)  # never write what we could not read back
    write_atomic(person.profile_path, new_text, before)
    return person.profile_path


def _means(mention: mentions_fmt.Mention, newcomer: names.Candidate) -> bool:
    found = names.resolve(mention.name, [newcomer])
    if found.kind not in SURE:
        found = next((r for r in (names.resolve(a, [newcomer]) for a in mention.aliases) if r.kind in SURE), found)
    return found.kind in SURE and found.one == newcomer.id
