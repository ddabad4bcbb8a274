"""A person across renames. `person rename` moves people/<old>/ to
people/<new>/ in one commit, `rename(<new>): from <old>`; git alone would
show a folder's history only since the move. These commits are the record
used to follow the person back: which folder they had at any commit, and
every commit that touched them under any of their folders."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from heartcompass.store.subjects import MOVED_FROM, Verb, parse_subject, reverted_by
from heartcompass.store.githistory import Commit
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace


@dataclass(frozen=True)
class Era:
    slug: str             # the folder name during this era
    since: str | None     # the rename commit that gave this name (None: from the start)
    until: str | None     # the rename commit that took it away (None: still current)


_MOVES = (Verb.RENAME, Verb.ARCHIVE, Verb.UNARCHIVE, Verb.UNDO)


def _moves(ws: Workspace) -> list[tuple[str, str, str]]:
    """(sha, new slug or '', old slug) of every rename (with `person rename`,
    or a folder moved by hand and committed as one edit) and archive not
    undone (by `undo`, or by an `unarchive` of that person), newest first."""
    grep = "^(" + "|".join(v.value for v in _MOVES) + ")\\(|^" + MOVED_FROM
    undone: set[str] = set()
    unarchived: list[str] = []
    moves: list[tuple[str, str, str]] = []
    for sha, text, body in ws.git.messages(grep):
        parsed = parse_subject(text.strip())
        if parsed is None or sha in undone:
            continue
        if parsed.verb == Verb.UNDO:
            undone.update(reverted_by(body))
        elif not parsed.scope:  # ours always name the person: a user's own "archive: ..." moves no one
            continue
        elif parsed.verb == Verb.UNARCHIVE:
            unarchived.append(parsed.scope)
        elif parsed.verb == Verb.ARCHIVE and parsed.scope in unarchived:
            unarchived.remove(parsed.scope)  # they came back: this archive is taken back
        elif parsed.verb == Verb.ARCHIVE:
            moves.append((sha, "", parsed.scope))
        elif parsed.verb == Verb.RENAME and parsed.what.startswith("from "):
            moves.append((sha, parsed.scope, parsed.what.removeprefix("from ")))
        elif parsed.verb == Verb.EDIT and parsed.scope:  # a folder moved by hand (mv), committed as one edit
            moves += [(sha, parsed.scope, line.removeprefix(MOVED_FROM + "people/").rstrip("/"))
                      for line in body.splitlines() if line.startswith(MOVED_FROM + "people/")]
    return moves


def eras(ws: Workspace, person: Person) -> list[Era]:
    """The person's folder names, newest first. The oldest era starts after
    any earlier occupant of that folder name left it (renamed or archived)."""
    if ws.git.head() is None:
        return [Era(person.slug, None, None)]
    moves = _moves(ws)
    found: list[Era] = []
    slug, until = person.slug, None
    for sha, new, old in moves:
        if new == slug and old != slug:
            found.append(Era(slug, sha, until))
            slug, until = old, sha
    start = None
    for sha, new, old in moves:  # the newest departure from this folder before the oldest era ends
        if old == slug and new != slug and sha != until and ws.git.is_ancestor(sha, until or "HEAD"):
            start = sha
            break
    found.append(Era(slug, start, until))
    return found


def dir_at(ws: Workspace, person: Person, rev: str) -> Path:
    """The person's folder as it was named at rev."""
    for era in eras(ws, person):
        if era.since is None or ws.git.is_ancestor(era.since, rev):
            return ws.people_dir / era.slug
    return person.dir


def path_at(ws: Workspace, person: Person, path: Path, rev: str) -> Path:
    """One of the person's files (a path under person.dir) as named at rev."""
    return dir_at(ws, person, rev) / Path(path).relative_to(person.dir)


def folders(ws: Workspace, person: Person) -> list[Path]:
    """Every folder the person has had, current first."""
    return [ws.people_dir / e.slug for e in eras(ws, person)]


def history(ws: Workspace, person: Person, limit: int = 50) -> list[Commit]:
    """Commits that touched the person under any of their names, newest first."""
    all_eras = eras(ws, person)
    if all_eras == [Era(person.slug, None, None)]:
        return ws.git.log([person.dir], limit)
    seen: dict[str, Commit] = {}
    for n, era in enumerate(all_eras):
        rev = era.until or "HEAD"
        if era.since:  # a rename into the name is the person's; the oldest era's start is another leaving it
            rev = f"{era.since}{'' if n == len(all_eras) - 1 else '^'}..{rev}"
        for c in ws.git.log([ws.people_dir / era.slug], limit, rev=rev):
            seen.setdefault(c.sha, c)
    order = {sha: i for i, sha in enumerate(ws.git.rev_list("HEAD"))}
    return sorted(seen.values(), key=lambda c: order.get(c.sha, len(order)))[:limit]
