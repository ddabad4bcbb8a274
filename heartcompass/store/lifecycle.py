"""Person lifecycle: add, rename, archive, unarchive — each one commit (a card
becomes a person through add_person too, from cards.import_card).

people.py finds, reads and creates a person's files; this module changes
who is in the workspace through the audit trail (audit.py): pending hand
edits are committed first, the change is its own commit, and a refused
commit puts everything back."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from heartcompass import formats
from heartcompass.atomic import write_atomic
from heartcompass.store.audit import Verb, commit_or_roll_back, commit_pending, subject, write_transaction
from heartcompass.errors import FormatError, PersonError
from heartcompass.formats import events as events_fmt
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.store.people import Person, check_new_name, create, linking_profiles, matching, refuse_taken, resolve
from heartcompass.store.slugs import clean_name, slugify
from heartcompass.store.workspace import Workspace


def add_person(ws: Workspace, name: str, relation: str, *, why: str = "new person", purpose: str = "person add",
               then: Callable[[Person], None] | None = None, **fields: Any) -> Person:
    """Every new person, one commit `add(<slug>): <why>`: the files from
    people.create, then(person) adding more to the folder (a card's voice
    lines and picture), under the lock; a refused commit leaves no folder."""
    with write_transaction(ws, purpose):
        linked = [Person(link["person"], ws.people_dir / link["person"]) for link in fields.get("related") or []]
        commit_pending(ws, linked)  # their hand edits are theirs, before the links back are written (none: no one's)
        person = create(ws, name, relation, **fields)
        if then is not None:
            then(person)
        from heartcompass.store.mention_links import link_new_people

        mentioned = link_new_people(ws, [person])  # someone others mention: their lines now point here
        commit_or_roll_back(ws, [person.dir, *_link_back(person, linked), *mentioned],
                            subject(Verb.ADD, person.slug, why),
                            what=f"people/{person.slug}/ (nothing was added)")
    return person


def _link_back(person: Person, linked: list[Person]) -> list[Path]:
    """Each person the new one links to links back (as the gardener's links
    do: doctor warns about a one-sided link). How they see the new person is
    not known, so the link back has no words. A profile that does not parse
    is left as it is. Returns the profiles written."""
    written = []
    for other in linked:
        try:
            prof = other.load_profile()
        except FormatError:
            continue
        if any(link["person"] == person.slug for link in prof.related):
            continue
        prof.set("related", [*(prof.doc.meta.get("related") or []), {"person": person.slug}])
        write_atomic(other.profile_path, profile_fmt.render(prof))
        written.append(other.profile_path)
    return written


@dataclass
class Renamed:
    person: Person         # under the new name and folder
    linkers: list[str]     # slugs of the people whose `related` links followed
    kept_alias: str | None  # the old name, now an alias (None: not kept, or already one)


def rename_person(ws: Workspace, old: str, new_name: str, allow_taken: bool = False,
                  keep_alias: bool = True, allow_self: bool = False) -> Renamed:
    """Rename a person: the folder moves (git mv), the old name becomes an
    alias (unless keep_alias is False), and `related` links in other profiles
    follow. The user's own person only with allow_self."""
    with write_transaction(ws, "rename"):
        return _rename_person(ws, old, new_name, allow_taken, keep_alias, allow_self)


def _rename_person(ws: Workspace, old: str, new_name: str, allow_taken: bool, keep_alias: bool,
                   allow_self: bool) -> Renamed:
    person = resolve(ws, old)
    if not allow_self:
        _refuse_self(person, "renaming it moves your folder and replaces the name chats call you by "
                     "(user.name)", "What you are called comes from user.name: set it with 'heartcompass "
                     "config set user.name NAME'. Add --force to rename the folder anyway (links follow).")
    new_name = clean_name(new_name)
    new_slug = slugify(new_name)
    if new_name == person.load_profile().name and new_slug == person.slug:
        raise PersonError(f"{person.slug} is already called {new_name!r}; nothing to rename.")
    if new_slug != person.slug:
        check_new_name(ws, new_name)
    if not allow_taken:
        refuse_taken(ws, [new_name], exclude=person.slug)
    linkers = linking_profiles(ws, person.slug)
    commit_pending(ws, [person, *linkers])
    prof = person.load_profile()  # validated before anything moves
    linker_profiles = [(p, p.load_profile()) for p in linkers]
    old_name = prof.name
    retitled = _retitled_files(person, old_name, new_name)  # so are the files whose title changes
    target = Person(new_slug, ws.people_dir / new_slug)
    if new_slug != person.slug:
        ws.git.move(person.dir, target.dir)
    prof.set("name", new_name)
    kept = None
    if keep_alias and old_name.casefold() != new_name.casefold() \
            and old_name.casefold() not in (a.casefold() for a in prof.aliases):  # names match in any case
        prof.set("aliases", [*prof.aliases, old_name])
        kept = old_name
    _retitle(prof.doc, f"# {old_name}", f"# {new_name}")
    write_atomic(target.profile_path, profile_fmt.render(prof))
    for filename, text in retitled.items():
        write_atomic(target.dir / filename, text)
    for other, other_prof in linker_profiles:
        other_prof.set("related", [
            {**link, "person": new_slug} if link.get("person") == person.slug else link
            for link in other_prof.doc.meta.get("related") or []
        ])
        write_atomic(other.profile_path, profile_fmt.render(other_prof))
    body = f"{old_name} is now {new_name}."
    if linkers:
        body += "\nLinks updated in: " + ", ".join(p.slug for p in linkers)
    commit_or_roll_back(ws, [person.dir, *[p.profile_path for p in linkers]],
                        subject(Verb.RENAME, new_slug, f"from {person.slug}"), body,
                        what=f"the rename (people/{person.slug} is as it was)",
                        moved=(person.dir, target.dir) if target.dir != person.dir else None)
    return Renamed(target, [p.slug for p in linkers], kept)


def _retitled_files(person: Person, old_name: str, new_name: str) -> dict[str, str]:
    """EVENTS.md and MEMORY.md with their title line renamed, by file name,
    each parsed before anything moves: a file that does not parse stops the
    rename there, named where the user finds it, with nothing changed."""
    out = {}
    for path, prefix, parse in ((person.events_path, "# Events — ", events_fmt.parse),
                                (person.memory_path, "# Memory — ", memory_fmt.parse)):
        if path.exists():
            text = formats.read_text(path)
            new_text = _retitle_text(text, prefix + old_name, prefix + new_name)
            if new_text != text:
                parse(new_text, path)
                out[path.name] = new_text
    return out


def _retitle_text(text: str, old: str, new: str) -> str:
    """Replace a title line that is exactly `old` (the first such line)."""
    return re.sub(rf"(?m)^{re.escape(old)}[ \t]*$", new.replace("\\", r"\\"), text, count=1)


def _retitle(doc, old: str, new: str) -> None:
    doc.body = _retitle_text(doc.body, old, new)


def _refuse_self(person: Person, why: str, hint: str) -> None:
    """The user's own person (relation: self) is who 'chat me', coach and
    everyone's links to the user read: changed only on purpose (--force)."""
    relation: str | None
    try:
        relation = person.load_profile().relation
    except FormatError:  # archiving someone whose profile does not parse stays possible
        relation = "self" if person.slug == "me" else None
    if relation == "self":
        raise PersonError(f"people/{person.slug} is you (relation: self): {why}. Nothing was changed.", hint)


@dataclass
class Archived:
    dest: Path            # people/.archive/<slug>
    linkers: list[str]    # slugs of the people whose `related` still names them


def archive_person(ws: Workspace, name: str, allow_self: bool = False) -> Archived:
    """Move a person to people/.archive/ (one commit). Links others have to
    them are left as they are (they come back with unarchive) and reported.
    The user's own person only with allow_self."""
    with write_transaction(ws, "archive"):
        return _archive_person(ws, name, allow_self)


def _archive_person(ws: Workspace, name: str, allow_self: bool) -> Archived:
    person = resolve(ws, name)
    commit_pending(ws, [person])
    if not allow_self:
        _refuse_self(person, "archiving it leaves 'chat me', coach and everyone's links to you without you",
                     "Edit people/{0}/PROFILE.md instead; add --force to archive "
                     "it anyway.".format(person.slug))
    dest = ws.archive_dir / person.slug
    if dest.exists():
        raise PersonError(f"people/.archive/{person.slug} already exists.",
                          "Rename the archived folder first, or this person.")
    ws.archive_dir.mkdir(exist_ok=True)  # people/ is there: the person was found in it
    ws.git.move(person.dir, dest)
    linkers = [p.slug for p in linking_profiles(ws, person.slug)]
    commit_or_roll_back(ws, [person.dir], subject(Verb.ARCHIVE, person.slug, "moved to people/.archive"),
                        what=f"the move (people/{person.slug} is where it was)", moved=(person.dir, dest))
    return Archived(dest, linkers)


def unarchive_person(ws: Workspace, name: str, allow_taken: bool = False) -> Person:
    """Bring an archived person back from people/.archive/ (slug, name or
    alias), one commit. Refused when their folder name is in use again."""
    with write_transaction(ws, "unarchive"):
        return _unarchive_person(ws, name, allow_taken)


def _unarchive_person(ws: Workspace, name: str, allow_taken: bool) -> Person:
    src = _archived(ws, name)
    slug = src.name
    dest = ws.people_dir / slug
    if dest.exists():
        raise PersonError(f"people/{slug} exists: someone else has that folder name now, so {name!r} "
                          "cannot come back there.", "Rename that person first (heartcompass person rename "
                          f"{shlex.quote(slug)} NEW-NAME), then unarchive again.")
    changed = [rel for _, rel in ws.git.status([src])]
    if changed:
        raise PersonError(f"people/.archive/{slug} has uncommitted changes ({', '.join(changed)}); "
                          "nothing was moved.",
                          "Commit them with git, or take them back with: git checkout -- "
                          f"{shlex.quote(f'people/.archive/{slug}')} ; then unarchive again.")
    prof = Person(slug, src).load_profile()  # a profile that does not parse is named, and nothing moves
    if not allow_taken:
        refuse_taken(ws, prof.names())
    ws.git.move(src, dest)
    commit_or_roll_back(ws, [src], subject(Verb.UNARCHIVE, slug, "back from people/.archive"),
                        what=f"the move (people/.archive/{slug} is where it was)", moved=(src, dest))
    return Person(slug, dest)


def _archived(ws: Workspace, name: str) -> Path:
    """The archived folder for a slug, name or alias (any case)."""
    folders = sorted(p for p in ws.archive_dir.iterdir() if p.is_dir()) if ws.archive_dir.is_dir() else []
    found = matching([Person(f.name, f) for f in folders], name)
    if len(found) == 1:
        return found[0].dir
    if found:
        raise PersonError(f"{name!r} matches several archived people: {', '.join(p.slug for p in found)}.",
                          "Use the folder name under people/.archive/.")
    try:
        slug = slugify(name)
    except PersonError:
        slug = None
    active = f" (people/{slug}/ is not archived)" if slug and (ws.people_dir / slug).is_dir() else ""
    raise PersonError(f"No archived person {name!r}{active}.",
                      "Archived people: " + (", ".join(f.name for f in folders) or "none") + ".")
