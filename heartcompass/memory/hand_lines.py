"""Which lines of a person's files the user wrote by hand: those whose last
change was a commit of theirs (`edit(...)` or anything not HeartCompass's
own), found by git blame. Blame walks a file's whole history, so what it
found is kept in .heartcompass/hand-lines/<slug>.json with the commit and
blob ids it holds for, and kept valid by the gardener's own commits."""

from __future__ import annotations

import json
from pathlib import Path

from heartcompass.atomic import write_cache
from heartcompass.store.subjects import is_hand_subject
from heartcompass.errors import HeartCompassError
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

def hand_lines(ws: Workspace, person: Person, heads: dict[str, str] | None = None,
               history: tuple[str | None, set[str]] | None = None) -> set[str]:
    """Lines whose last change was the user's. git blame walks a file's whole
    history, so it runs only on files a hand commit touched since the last
    look; what it found is kept in .heartcompass/hand-lines/ (and updated by
    the gardener's own commits, which never touch a hand line). `heads`:
    the files' blob ids at HEAD, when known: unchanged ones need no git.
    `history`: (last commit, files touched by hand) when already known."""
    cache = _cache(ws, person)
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        head, known = data["head"], set(data["lines"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        data, head, known = {}, None, set()
    if head and heads is not None and data.get("blobs") == heads:
        return known  # the files are as they were at the last look
    if head is None and history is not None:  # first look, with the whole history already read
        last, by_hand = history
        lines = {text for path in person.files() if ws.rel(path) in by_hand
                 for subject, text in ws.git.blame(path) if is_hand_subject(subject) and text.strip() not in ("", "---")}
        if last:
            write_cache(cache, json.dumps({"head": last, "blobs": heads or {}, "lines": sorted(lines)},
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
            lines |= {text for subject, text in ws.git.blame(path)
                      if is_hand_subject(subject) and text.strip() not in ("", "---")}
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


def hand_history(ws: Workspace) -> dict[str, list]:
    """slug -> [the last commit touching the person's files, those files a
    hand commit touched]: one `git log` for everyone (not one per person),
    for a first look at people whose hand lines are not cached yet."""
    found: dict[str, list] = {}
    sep, end = "\x1f", "\x1e"
    out = ws.git._git("log", f"--format={end}%H{sep}%s", "--name-only", "--",
                      *(f":(glob)people/*/{name}" for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")))
    for chunk in out.split(end)[1:]:
        head, *files = chunk.strip("\n").split("\n")
        sha, subject = head.split(sep, 1)
        hand = is_hand_subject(subject)
        for rel in files:
            parts = rel.split("/")
            if len(parts) == 3:
                entry = found.setdefault(parts[1], [sha, set()])
                if hand:
                    entry[1].add(rel)
    return found


def _cache(ws: Workspace, person: Person) -> Path:
    return ws.state_dir / "hand-lines" / f"{person.slug}.json"


def blob_id(data: bytes) -> str:
    """git's id of a blob with these bytes."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
