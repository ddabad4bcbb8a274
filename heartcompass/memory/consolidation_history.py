"""Everyone's consolidation state rebuilt from one pass over the history.

A person with no state of their own (a second device's first garden, a
lost .heartcompass/) was rebuilt alone by State.rebuild: three `git log
--follow` over the whole history each, 1,400 s at 2,000 people. Here the
commits' messages are read once (`git log` with no diff: listing every
commit's files costs git a scan of people/ per commit, seconds at 2,000
people): a garden commit touches its own person's files alone, so its
subject says whose they are; the few commits that may move or name other
files (a rename, an undo, a hand edit, the user's own) are listed with
their files and renames, and each person's three files are followed back
across them as --follow does. Each `Consolidated:` trailer goes to the
people whose files its commit touched, newest first, exactly as
State.rebuild orders them. What the subjects cannot say (the files of a
garden commit whose person was renamed partly, two commits in one second)
is read from git's file lists; a history with a merge is left to
State.rebuild (one pass cannot replay git's per-file simplification of
merges), and so is a listing that cannot be read.

What it found is kept in one file, consolidated/.from-git.json (no slug
starts with a dot), for the people who had no state file then: one write,
not one per person, replaced whole (a run killed while writing it leaves the
old file or none, and the next run rebuilds). It is derived from git, so it
is a cache. A person's own file, written as soon as the gardener or an undo
moves their state, wins over it."""

from __future__ import annotations

import copy
import json
import os
from typing import TYPE_CHECKING

from heartcompass import paths
from heartcompass.atomic import write_cache
from heartcompass.errors import HeartCompassError, UnsafePathError
from heartcompass.formats import FILE_KINDS
from heartcompass.memory.consolidation_trailer import TRAILER, Days, legacy_map, parse_read_whole, parse_trailer
from heartcompass.stat_cache import settled, stat_key
from heartcompass.store.subjects import Verb, parse_subject

if TYPE_CHECKING:
    from heartcompass.store.people import Person
    from heartcompass.store.workspace import Workspace

FILENAME = ".from-git.json"
KINDS = (FILE_KINDS["profile"], FILE_KINDS["events"], FILE_KINDS["memory"])  # Person.files()' order

_read: dict[str, tuple[tuple, dict[str, Days]]] = {}  # the saved file's path -> (its stat, what it holds)
_built: dict[str, tuple[str, dict[str, Days] | None]] = {}  # root -> (HEAD, the last pass at it)
_vouched: dict[str, dict[str, dict[str, tuple[list, list[int]]]]] = {}  # root -> the last pass's logs all read


def lookup(ws: Workspace, person: Person) -> tuple[Days, bool] | None:
    """This person's state as State.rebuild would find it, and whether it is
    saved (in the shared file); None when State.rebuild must run alone."""
    if person.dir != ws.people_dir / person.slug:
        return None
    saved = _saved(ws)
    if person.slug in saved:
        return copy.deepcopy(saved[person.slug]), True
    built = rebuild_all(ws)
    if built is None or person.slug not in built:
        return None  # a merge in the history, or no file of theirs at HEAD (no git needed then)
    return copy.deepcopy(built[person.slug]), person.slug in _saved(ws)


def rebuild_all(ws: Workspace) -> dict[str, Days] | None:
    """slug -> days for each person with a file at HEAD and no state file:
    one `git log` and one `ls-tree` for all of them (once per HEAD), saved."""
    git = ws.git
    if not git.is_repo():
        return None
    head = git.head()
    if head is None:
        return None
    if _built.get(str(ws.root), ("", None))[0] != head:
        built = _one_pass(ws)
        if built is not None:
            _save(ws, built)  # once per pass: a disk that refuses it is not asked again for each person
        _built[str(ws.root)] = (head, built)
    return _built[str(ws.root)][1]


def _one_pass(ws: Workspace) -> dict[str, Days] | None:
    git = ws.git
    try:
        if git.has_merges():
            return None
        at_head = git.tree_blobs(ws.people_dir)
        slugs = {slug for files in _at_head(ws, at_head).values() for slug, _ in files}
        try:
            commits = _commits(ws)
            try:
                found = _walk(ws, _at_head(ws, at_head), commits, by_subject=True)
            except _Unsure as unsure:  # some garden commits' own files, then
                if not unsure.shas:
                    raise
                changes = git.changes_of(sorted(unsure.shas))
                commits = [(sha, when, message, changes[sha], "") if sha in unsure.shas else commit
                           for commit in commits for sha, when, message, _, _ in [commit]]
                found = _walk(ws, _at_head(ws, at_head), commits, by_subject=True)
        except _Unsure:  # the exact walk: every commit's files (seconds on a long history, not minutes)
            found = _walk(ws, _at_head(ws, at_head), [(sha, when, message, changes, "") for sha, when, message, changes
                                                      in git.changes_under(ws.people_dir)], by_subject=False)
    except HeartCompassError:
        return None
    out: dict[str, Days] = {}
    whole: dict[tuple[str, str], tuple[list, str]] = {}  # (slug, day) -> (state, the blob a trailer says was all read)
    for slug in sorted(slugs):
        ordered: dict[str, tuple[int, int, str]] = {}
        for kind in range(len(KINDS)):  # the first file naming a commit places it, as in State.rebuild
            for sha, when, place, message in found.get((slug, kind), []):
                ordered.setdefault(sha, (-when, place, message))
        days: Days = {}
        for _, _, message in sorted(ordered.values()):  # newest first
            blobs = parse_read_whole(message)
            for day, value in parse_trailer(message).items():
                if day not in days:
                    days[day] = value
                    if day in blobs:
                        whole[slug, day] = (value, blobs[day])
        memory = ws.people_dir / slug / FILE_KINDS["memory"]
        if _may_hold_legacy_map(memory):
            for day, n in legacy_map(memory).items():
                days.setdefault(day, [n, None])
        out[slug] = days
    _vouched[str(ws.root)] = _read_whole(ws, at_head, whole)
    return out


def _read_whole(ws: Workspace, at_head: dict[str, str], whole: dict[tuple[str, str], tuple[list, str]]
                ) -> dict[str, dict[str, tuple[list, list[int]]]]:
    """slug -> day -> (its state, its log's stat) for the logs whose bytes
    are, on disk now, a blob a trailer says was read to its end. The stat is
    taken before git compares the files, and a log is trusted only while its
    stat is still that one (new_entries): an entry appended since is read."""
    people = ws.rel(ws.people_dir)
    keys = {}
    for (slug, day), (value, blob) in whole.items():
        rel = f"{people}/{slug}/logs/{day}.md"
        if at_head.get(rel) == blob and (key := stat_key(ws.root / rel)) is not None and settled([key]):
            keys[slug, day, rel] = (value, key)
    try:
        changed = ws.git.changed_from_head(ws.people_dir) if keys else set()
    except HeartCompassError:
        return {}  # git cannot say: every log is read
    out: dict[str, dict[str, tuple[list, list[int]]]] = {}
    for (slug, day, rel), proof in keys.items():
        if rel not in changed:
            out.setdefault(slug, {})[day] = proof
    return out


def vouched(ws: Workspace, person: Person) -> dict[str, tuple[list, list[int]]]:
    """day -> (state, stat) of this person's logs known all read, from this process's pass."""
    if person.dir != ws.people_dir / person.slug:
        return {}
    return _vouched.get(str(ws.root), {}).get(person.slug, {})


class _Unsure(Exception):
    """The commits' subjects cannot say which files these garden commits
    touched (shas: read theirs), or what came first (none: read every commit's)."""

    def __init__(self, shas: set[str] | None = None):
        super().__init__()
        self.shas = shas or set()


Follow = dict[str, list[tuple[str, int]]]  # a path in history -> (slug, kind) of the files at HEAD it became
Commits = list[tuple[str, int, str, list[tuple[str, str, str]], str]]  # sha, time, message, changes, garden scope


def _at_head(ws: Workspace, at_head: dict[str, str]) -> Follow:
    """The three files of each person at HEAD with no state file of their own."""
    people, state_dir = ws.rel(ws.people_dir), ws.state_dir / "consolidated"
    follow: Follow = {}
    for rel in at_head:
        parts = rel.split("/")
        if len(parts) == 3 and parts[0] == people and parts[2] in KINDS and not parts[1].startswith("."):
            if not os.path.lexists(state_dir / f"{parts[1]}.json"):
                follow.setdefault(rel, []).append((parts[1], KINDS.index(parts[2])))
    return follow


def _commits(ws: Workspace) -> Commits:
    """Every commit, newest first, with the files it changed where they can
    move or name a person's files: a garden commit of ours touches its own
    person's files alone (one of them at least: git refuses an empty one) and
    moves nothing, so it is read by its subject; the other commits of ours that
    move nothing and carry no trailer (a chat, an import...) change no one's
    state and are passed over; every other commit (a hand edit, a rename, an
    undo, the user's own) is read in full, with git's renames."""
    out: list[tuple[str, int, str, list[tuple[str, str, str]] | None, str]] = []
    exact = []
    for sha, when, message in ws.git.commit_messages():
        parsed = parse_subject(message.partition("\n")[0].strip())
        verb = parsed.verb if parsed and not parsed.by_hand else None
        if verb == Verb.GARDEN.value and parsed and parsed.scope:
            out.append((sha, when, message, [], parsed.scope))
        elif verb in _STILL and TRAILER not in message:
            continue
        else:
            out.append((sha, when, message, None, ""))
            exact.append(sha)
    changes = ws.git.changes_of(exact)
    return [(sha, when, message, files if files is not None else changes.get(sha, []), scope)
            for sha, when, message, files, scope in out]


# Commits of ours that never move or delete a person's files.
_STILL = frozenset(v.value for v in (Verb.INIT, Verb.ADD, Verb.CONFIG, Verb.CHAT, Verb.LOG, Verb.TELL, Verb.IMPORT,
                                     Verb.COACH, Verb.VOICE, Verb.QUOTE, Verb.REVIEW))


def _walk(ws: Workspace, follow: Follow, commits: Commits, by_subject: bool
          ) -> dict[tuple[str, int], list[tuple[str, int, int, str]]]:
    """(slug, kind) -> (sha, time, place, message) of the commits with a
    trailer that touched that file, newest first, following it back across
    renames as `git log --follow` does. `place` breaks a tie of one person's
    commits made in the same second, as State.rebuild does: how many commits
    touching the file came before. When garden commits are read by their
    subjects (by_subject) it is their place in the history instead, which is
    the same order when the tied commits touch the same first file (checked)."""
    people = ws.rel(ws.people_dir)
    places: dict[tuple[str, int], int] = {}
    found: dict[tuple[str, int], list[tuple[str, int, int, str]]] = {}
    seconds: dict[tuple[str, int], list[tuple[str, str, int | None]]] = {}  # (slug, time) -> (sha, scope, first file)
    unsure: set[str] = set()
    for order, (sha, when, message, changes, scope) in enumerate(commits):
        if scope:  # a garden commit: its person's files, by its subject
            holders = [follow.get(f"{people}/{scope}/{kind}", []) for kind in KINDS]
            slugs = {slug for slug, _ in holders[0]}
            if any(sorted(files) != sorted((slug, k) for slug in slugs) for k, files in enumerate(holders)):
                unsure.add(sha)  # not the three files of the same people at HEAD: which did it touch?
                continue
            if TRAILER in message:
                for slug in slugs:
                    seconds.setdefault((slug, when), []).append((sha, scope, None))
                    for kind in range(len(KINDS)):
                        found.setdefault((slug, kind), []).append((sha, when, order, message))
            continue
        counted: set[tuple[str, int]] = set()
        for status, path, before in changes:
            for touched in (path, before) if status == "R" else (path,):  # a rename's old name: deleted here
                for file in follow.get(touched, ()):
                    if file not in counted:
                        counted.add(file)
                        places[file] = places.get(file, 0) + 1
                        if TRAILER in message:
                            found.setdefault(file, []).append((sha, when, order if by_subject else places[file] - 1,
                                                               message))
        if by_subject and TRAILER in message:
            for slug in {slug for slug, _ in counted}:
                first = min(kind for s, kind in counted if s == slug)
                seconds.setdefault((slug, when), []).append((sha, "", first))
        moved = [(before, follow.pop(path)) for status, path, before in changes if status == "R" and path in follow]
        for before, files in moved:  # older commits wrote these files under their old names
            follow.setdefault(before, []).extend(f for f in files if f not in follow[before])
    if unsure:
        raise _Unsure(unsure)
    _same_first_file(ws, [tied for tied in seconds.values() if len(tied) > 1])
    return found


def _same_first_file(ws: Workspace, ties: list[list[tuple[str, str, int | None]]]) -> None:
    """_Unsure unless the commits of each tie touch the same first of the
    person's files (then their order in the history is State.rebuild's)."""
    people = ws.rel(ws.people_dir)
    changes = ws.git.changes_of([sha for tied in ties for sha, scope, _ in tied if scope])
    for tied in ties:
        firsts = set()
        for sha, scope, first in tied:
            if scope:
                paths = {path for _, path, _ in changes.get(sha, [])}
                first = min((k for k, kind in enumerate(KINDS) if f"{people}/{scope}/{kind}" in paths), default=None)
            firsts.add(first)
        if len(firsts) != 1 or None in firsts:
            raise _Unsure


def _may_hold_legacy_map(path) -> bool:
    """Only a MEMORY.md naming `consolidated` can hold the old map: the others are not parsed."""
    try:
        return b"consolidated" in path.read_bytes()
    except OSError:
        return True  # legacy_map says what is wrong with it


def _saved(ws: Workspace) -> dict[str, Days]:
    path = ws.state_dir / "consolidated" / FILENAME
    try:
        st = os.stat(path)
    except OSError:
        return {}
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    hit = _read.get(str(path))
    if hit and hit[0] == key:
        return hit[1]
    try:
        data = json.loads(paths.read_local(path))
        people = {str(slug): {str(d): [int(v[0]), v[1]] for d, v in days.items()}
                  for slug, days in data["people"].items()}
    except (FileNotFoundError, UnsafePathError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return {}
    _read[str(path)] = (key, people)
    return people


def _save(ws: Workspace, built: dict[str, Days]) -> None:
    path = ws.state_dir / "consolidated" / FILENAME
    fresh = {slug: days for slug, days in built.items()
             if not os.path.lexists(ws.state_dir / "consolidated" / f"{slug}.json")}
    write_cache(path, json.dumps({"head": ws.git.head(), "people": fresh}, separators=(",", ":")))
