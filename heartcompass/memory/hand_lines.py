"""Which lines of a person's files the user wrote by hand: those whose last
change was a commit of theirs (`edit(...)` or anything not HeartCompass's
own), found by git blame. Blame walks a file's whole history, so it runs
only on a file both the user's commits and ours wrote: one only the user's
touched (a bulk commit of their own, a migration) is theirs line by line.
What it found is kept in .heartcompass/hand-lines/<slug>.json with the
commit and blob ids it holds for, and kept valid by the gardener's own
commits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from heartcompass.atomic import write_cache
from heartcompass.store.subjects import is_hand_subject
from heartcompass.errors import HeartCompassError
from heartcompass.store import audit
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

class Touched(NamedTuple):
    """What the history says of a person's files."""

    last: str | None  # the last commit touching them
    by_hand: set[str]  # those a hand commit touched
    mixed: set[str]  # of those, the ones our commits (or a rename into them) touched too: only these need blame


def hand_lines(ws: Workspace, person: Person, heads: dict[str, str] | None = None,
               history: Touched | None = None) -> set[str]:
    """Lines whose last change was the user's. git blame walks a file's whole
    history, so it runs only on files a hand commit touched since the last
    look; what it found is kept in .heartcompass/hand-lines/ (and updated by
    the gardener's own commits, which never touch a hand line). `heads`:
    the files' blob ids at HEAD, when known: unchanged ones need no git.
    `history`: what the whole history says of the files, when already read."""
    cache = _cache(ws, person)
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        head, known = data["head"], set(data["lines"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        data, head, known = {}, None, set()
    if head and heads is not None and data.get("blobs") == heads:
        return known  # the files are as they were at the last look
    if head is None and history is not None:  # first look, with the whole history already read
        lines = set()
        for path in person.files():
            if ws.rel(path) in history.mixed:
                lines |= _blamed(ws, path)
            elif ws.rel(path) in history.by_hand:
                lines |= _all_lines(ws, path, heads)
        if history.last:
            write_cache(cache, json.dumps({"head": history.last, "blobs": heads or {}, "lines": sorted(lines)},
                                          ensure_ascii=False))
        return lines
    commits = ws.git.log(person.files(), limit=1) if head else []
    if head and commits and commits[0].sha == head:
        return known  # nothing touched these files since
    try:
        commits = ws.git.log(person.files(), limit=1_000_000, rev=f"{head}..HEAD" if head else "HEAD")
    except HeartCompassError:  # the cached commit is gone (history rewritten): look at all of it
        head, known = None, set()
        commits = ws.git.log(person.files(), limit=1_000_000)
    if not commits:
        return known
    by_hand = {f for c in commits if is_hand_subject(c.subject) for f in c.files}
    lines = set(known)
    for path in person.files():
        if ws.rel(path) in by_hand:
            lines |= _blamed(ws, path)
    write_cache(cache, json.dumps({"head": commits[0].sha, "blobs": heads or ws.git.blob_ids(person.files()),
                                   "lines": sorted(lines)}, ensure_ascii=False))
    return lines


def remember_hand_lines(ws: Workspace, person: Person, sha: str, texts: dict[Path, str]) -> None:
    """After a gardener commit: the user's lines are those still there (the
    gardener never writes one), so the cache stays valid without a blame."""
    cache = _cache(ws, person)
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return
    present = {line for text in texts.values() for line in text.splitlines()}
    data["lines"] = sorted(line for line in data.get("lines", []) if line in present)
    data["head"] = sha
    data["blobs"] = {ws.rel(p): blob_id(t.encode("utf-8")) for p, t in texts.items() if p.exists()}
    write_cache(cache, json.dumps(data, ensure_ascii=False))


def is_cached(ws: Workspace, person: Person) -> bool:
    """Whether the person's hand lines have been looked for before."""
    return _cache(ws, person).exists()


def hand_history(ws: Workspace) -> dict[str, Touched]:
    """slug -> what the history says of the person's files: one `git log`
    for everyone (not one per person), for a first look at people whose hand
    lines are not cached yet."""
    found: dict[str, Touched] = {}
    ours: set[str] = set()
    for sha, subject, files, moved in ws.git.touched([f":(glob)people/*/{name}"
                                                       for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")]):
        hand = is_hand_subject(subject)
        for rel in files:
            parts = rel.split("/")
            if len(parts) == 3:
                entry = found.setdefault(parts[1], Touched(sha, set(), set()))
                if hand:
                    entry.by_hand.add(rel)
                else:
                    ours.add(rel)
                if rel in moved:  # blame follows a rename back into the other file's history
                    ours.add(rel)
    for entry in found.values():
        entry.mixed.update(entry.by_hand & ours)
    return found


class HistoryForHands:
    """hand_history read once per garden, for the people whose hand lines
    are not cached yet, and kept true as commits come in."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self._rows: dict[str, Touched] | None = None
        self._head: str | None = None  # HEAD when it was read (the commits that keep it true move it along)
        self._committed: set[str] = set()  # people whose files a hand edit committed since

    def of(self, person: Person) -> Touched | None:
        """What the history says of the person's files, or None when it is
        not known any more (their hand edit committed since)."""
        if person.slug in self._committed:
            return None
        if self._rows is not None and self.ws.git.head() != self._head:
            self._rows = None  # another command committed while the lock was away: read it again
        if self._rows is None and not is_cached(self.ws, person):
            self._rows, self._head = hand_history(self.ws), self.ws.git.head()
        if self._rows is None:
            return None
        found = self._rows.get(person.slug, Touched(None, set(), set()))
        return Touched(found.last, set(found.by_hand), set(found.mixed))

    def commit_pending(self, person: Person, before: dict[str, str] | None = None) -> None:
        """What the person has pending (a hand edit, a log) committed first, on
        its own: the history stays true of everyone else, and of this person
        too when their files were not in it (only a log was). `before`: the
        files' blob ids at HEAD, when known."""
        head = self.ws.git.head()
        before = before if before is not None else self.ws.git.blob_ids(person.files())
        audit.commit_pending(self.ws, [person])
        if self.ws.git.blob_ids(person.files()) != before:
            self._committed.add(person.slug)
        self.moved_by_us(head, self.ws.git.head())

    def moved_by_us(self, head: str | None, sha: str | None) -> None:
        """HEAD went from `head` to `sha` by a commit that keeps the history true."""
        if sha and head == self._head:
            self._head = sha


def _blamed(ws: Workspace, path: Path) -> set[str]:
    """The lines of the committed file whose last change was the user's."""
    return {text for subject, text in ws.git.blame(path) if is_hand_subject(subject) and _counts(text)}


def _all_lines(ws: Workspace, path: Path, heads: dict[str, str] | None) -> set[str]:
    """Every line of the committed file, as blame would give them, when only
    the user's commits touched it: the working file when it is the
    committed one, else the committed blob (one cheap `git show`)."""
    rel = ws.rel(path)
    try:
        data: bytes | None = path.read_bytes()
    except FileNotFoundError:
        data = None
    if data is not None and heads and heads.get(rel) == blob_id(data):
        text = data.decode("utf-8", "surrogateescape")
    else:
        text = ws.git.file_at("HEAD", path) or ""
    # git's lines are split on "\n" alone; blame's reader then splits its "\t"-led output lines again
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    return {part[1:] for line in lines for part in ("\t" + line + "\n").splitlines()
            if part.startswith("\t") and _counts(part[1:])}


def _counts(text: str) -> bool:
    return text.strip() not in ("", "---")


def _cache(ws: Workspace, person: Person) -> Path:
    return ws.state_dir / "hand-lines" / f"{person.slug}.json"


def blob_id(data: bytes) -> str:
    """git's id of a blob with these bytes."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
