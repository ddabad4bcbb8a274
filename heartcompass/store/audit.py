"""The audit trail: every change to the workspace is its own git commit.

Before HeartCompass writes a person's files, the user's uncommitted hand
edits to them are validated and committed on their own (`edit(<slug>): by
hand`), so the tool's change is always a separate commit that `undo` can
take back exactly. Commit subjects are built and read in `subjects` (Verb
and subject are importable from here too: most writers take them with the
transaction)."""

from __future__ import annotations

import shlex
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from heartcompass import formats, paths
from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError, GitError, HeartCompassError
from heartcompass.formats import profile as profile_fmt
from heartcompass.store.githistory import Commit
from heartcompass.store.people import Person
from heartcompass.store.subjects import BY_HAND, MOVED_FROM, REVERTS_PREFIX, Verb, scope_of, subject
from heartcompass.store.workspace import Workspace
from heartcompass.wording import counted


WAIT = 30.0  # seconds a short command waits for another writer (a commit, a gardener) to finish


@contextmanager
def write_transaction(ws: Workspace, purpose: str, wait: float | None = None) -> Iterator[None]:
    """Every command that commits runs inside this: one writer at a time (the
    workspace lock, waited for up to `wait` seconds), and a repository where a
    commit is right now (no rebase, merge, cherry-pick or revert in progress,
    no detached HEAD, no stale index.lock), else one clear error line."""
    from heartcompass.store.lock import FileLock
    from heartcompass.store.unfinished import finish_told

    with FileLock(ws.state_dir / "lock", purpose, wait=WAIT if wait is None else wait):
        ws.git.check_writable()
        finish_told(ws)  # a `tell` killed before its commit: that commit first, never as the user's edit
        yield


def commit_or_roll_back(ws: Workspace, paths: list[Path], subject: str, body: str = "",
                        keep: list[Path] | tuple = (), what: str = "the change",
                        moved: tuple[Path, Path] | None = None) -> str | None:
    """Commit a change HeartCompass made. When git refuses (a hook, a full
    disk...), `paths` go back to how they were (a folder `moved` (from, to)
    is moved back, logs and all) and `keep` (logs, which are append-only)
    stay pending for the next command; the error says which."""
    try:
        return ws.git.commit([*paths, *keep, *(moved[1:] if moved else ())], subject, body)
    except GitError as exc:
        said = []
        if moved and moved[1].exists():
            from heartcompass.store.move_back import move_back

            move_back(moved[1], moved[0])  # with what a chat appended by the old path meanwhile
        if paths:
            ws.git.roll_back(list(paths))
            said.append(f"{what} was rolled back")
        if keep:
            said.append(f"{', '.join(ws.rel(p) for p in keep)} stays as it is, to be committed by the next command")
        raise GitError(f"{exc.message} (Not committed: {'; '.join(said)}.)", exc.hint) from None


@dataclass
class Pending:
    slug: str
    path: str      # relative to the workspace
    code: str      # git status code: M, A, D, ??
    kind: str      # "hand edit" or "chat log"


def pending(ws: Workspace, people: list[Person] | None = None) -> list[Pending]:
    """Uncommitted changes under people/, by person. A person's folder moved
    by hand (mv people/a people/b) is one hand edit of the new one: its
    files and the old folder's deletions, together (git sees the rename)."""
    out = _changes(ws, [p.dir for p in people] if people is not None else [ws.people_dir])
    new = {i.slug for i in out if i.code in ("??", "A", "R") and i.path == f"people/{i.slug}/{profile_fmt.FILENAME}"}
    if not new:
        return out
    everyone = out if people is None else _changes(ws, [ws.people_dir])
    for old, moved_to in _moved_folders(ws, everyone, new).items():
        out = [i for i in out if i.slug != old]
        out += [Pending(moved_to, i.path, i.code, "hand edit") for i in everyone if i.slug == old]
        out = [Pending(i.slug, i.path, i.code, "hand edit") if i.slug == moved_to else i for i in out]
    return out


def _changes(ws: Workspace, paths: list[Path]) -> list[Pending]:
    from heartcompass.store.unfinished import journaled_writes

    if not paths:  # no one named is no one: git's status of no path would be everyone's
        return []
    out = []
    ours = journaled_writes(ws)  # written by a garden or a tell whose commit failed: not the user's
    for code, rel in ws.git.status(paths):
        if _a_persons(rel, ours):
            kind = "chat log" if Path(rel).parts[2] == "logs" and _appended(ws, rel, code) else "hand edit"
            out.append(Pending(Path(rel).parts[1], rel, code, kind))
    return out


def _a_persons(rel: str, ours: set[str]) -> bool:
    """Is this uncommitted path a person's file to commit (not our own staging, temp or journaled file)?"""
    parts = Path(rel).parts
    if rel in ours or len(parts) < 3 or parts[0] != "people" or parts[1].startswith("."):
        return False
    return "/.new-" not in rel and not Path(rel).name.startswith(".")  # our own staging and temp files


def nothing_to_commit(ws: Workspace, people: list[Person]) -> bool:
    """Would commit_earlier(ws, people) find nothing to do (no change of theirs
    pending, no `tell` to finish, git at rest)? Asked of git alone, without
    GitPython or the lock: True only when sure; False sends the caller the
    long way (commit_earlier), which commits or says what stops it."""
    from heartcompass.store.gitplain import PlainGit
    from heartcompass.store.unfinished import journaled_writes, told_unfinished

    git = PlainGit(ws.root)
    if told_unfinished(ws) or not git.at_rest():
        return False
    try:
        changed = [rel for _, rel in git.status([p.dir for p in people])]
    except (GitError, OSError):  # git busy, or not there: the long way says what
        return False
    ours = journaled_writes(ws) if changed else set()
    return not any(_a_persons(rel, ours) for rel in changed)


def _moved_folders(ws: Workspace, items: list[Pending], new: set[str]) -> dict[str, str]:
    """{old slug: new slug} for folders gone whole whose files reappear, the
    same bytes, in a new person's folder (the one holding the most of them)."""
    gone: dict[str, list[str]] = {}
    for i in items:
        if "D" in i.code and not (ws.people_dir / i.slug).exists():
            gone.setdefault(i.slug, []).append(i.path)
    if not gone:
        return {}
    before = ws.git.blob_ids([rel for rels in gone.values() for rel in rels])
    moves = {}
    for old, rels in gone.items():
        inside = [rel.split("/", 2)[2] for rel in rels]
        best = max(new, key=lambda slug: _same_files(ws, before, old, slug, inside))
        if _same_files(ws, before, old, best, inside):
            moves[old] = best
    return moves


def _same_files(ws: Workspace, before: dict[str, str], old: str, slug: str, inside: list[str]) -> int:
    here = [f"people/{slug}/{name}" for name in inside if (ws.people_dir / slug / name).is_file()]
    now = ws.git.working_blob_ids(here)
    return sum(1 for rel in here if now.get(rel) == before.get(f"people/{old}/{rel.split('/', 2)[2]}"))


def _appended(ws: Workspace, rel: str, code: str) -> bool:
    """Is this change to a log entries appended (ours to commit as a log), or
    a rewrite of lines already committed (the user's, by hand: logs are
    append-only, so it is never taken for a chat's)?"""
    if "D" in code or "R" in code:
        return False  # deleted or moved by hand
    if code == "??" or "A" in code:
        return True  # a new day's log
    committed = ws.git.file_at("HEAD", rel)
    try:
        now = (ws.root / rel).read_bytes()
    except OSError:
        return False
    return committed is not None and now.startswith(committed.encode("utf-8"))


def commit_pending(ws: Workspace, people: list[Person] | None = None, hand_edits_only: bool = False) -> list[str]:
    """Validate and commit pending hand edits (and uncommitted chat logs,
    unless hand_edits_only) of these people (None: everyone; []: no one), each person's edits as one
    commit. An invalid hand edit stops the command: it is never overwritten
    or mixed into another commit."""
    items = [i for i in pending(ws, people) if not hand_edits_only or i.kind == "hand edit"]
    for item in items:
        _check(ws, item)
    shas = []
    for slug in sorted({i.slug for i in items}):
        for kind in ("hand edit", "chat log"):
            mine = [i for i in items if i.slug == slug and i.kind == kind]
            sha = _commit_items(ws, slug, kind, mine)
            if sha:
                shas.append(sha)
    return shas


def commit_earlier(ws: Workspace, people: list[Person] | None, purpose: str,
                   wait: float | None = None) -> list[str]:
    """Before a command writes: what was pending (hand edits, a crashed
    chat's log) gets its own commits, in a write transaction of its own."""
    with write_transaction(ws, purpose, wait=wait):
        return commit_pending(ws, people)


def commit_logs(ws: Workspace, logs: list[Path]) -> list[str]:
    """Commit these chat logs (appended to by us), one `log(<slug>)` commit
    per person, as commit_pending does; a log changed otherwise is left alone."""
    wanted = {ws.rel(p) for p in logs}
    items = [i for i in pending(ws) if i.path in wanted and i.kind == "chat log"]
    shas = [_commit_items(ws, slug, "chat log", [i for i in items if i.slug == slug])
            for slug in sorted({i.slug for i in items})]
    return [sha for sha in shas if sha]


def _commit_items(ws: Workspace, slug: str, kind: str, items: list[Pending]) -> str | None:
    if not items:
        return None
    if kind == "hand edit":
        what, verb = BY_HAND, Verb.EDIT
    else:
        what, verb = "chat log " + ", ".join(sorted({Path(i.path).stem for i in items})), Verb.LOG
    return ws.git.commit([ws.root / i.path for i in items], subject(verb, slug, what), _file_list(items))


def commit_valid_edits(ws: Workspace, person: Person) -> tuple[str | None, list[FormatError]]:
    """For `watch`: commit the person's valid hand edits; report the invalid
    ones and leave them uncommitted (never overwritten)."""
    valid, invalid = [], []
    for item in pending(ws, [person]):
        if item.kind != "hand edit":
            continue
        try:
            _check(ws, item)
            valid.append(item)
        except FormatError as exc:
            invalid.append(exc)
    sha = None
    if valid:
        sha = ws.git.commit([ws.root / i.path for i in valid], subject(Verb.EDIT, person.slug, BY_HAND),
                            _file_list(valid))
    return sha, invalid


def save_edit(ws: Workspace, person: Person, path: Path, text: str, expected_checksum: str | None) -> str | None:
    """`heartcompass edit`: the validated text replaces the file (refused if
    it changed meanwhile) and is committed as the user's hand edit."""
    with write_transaction(ws, "edit"):
        write_atomic(path, text, expected_checksum=expected_checksum)
        # Not committed (a hook refused)? It is a hand edit: the next command commits it as one.
        return commit_or_roll_back(ws, [], subject(Verb.EDIT, person.slug, f"{path.name} {BY_HAND}"), keep=[path])


def _check(ws: Workspace, item: Pending) -> None:
    """A pending change that may be committed, or a FormatError."""
    path = ws.root / item.path
    paths.check(path)  # a person folder or file that is a link is named as such, never committed
    if item.code == "D":
        if Path(item.path).parts[1] != item.slug:
            return  # its folder was moved to the person's by hand: committed with it, as a rename
        folder = Path(item.path).parent
        if not (ws.root / folder).exists():
            raise FormatError(ws.root / folder, "was deleted or moved by hand, and is no person's folder now",
                              hint=f"Bring it back with: git checkout -- {shlex.quote(folder.as_posix())}  (a "
                              "person is renamed with 'heartcompass person rename', put away with "
                              "'heartcompass person archive').")
        if path.name == profile_fmt.FILENAME:
            raise FormatError(path, "was deleted by hand; a person needs a PROFILE.md",
                              hint=f"Bring it back with: git checkout -- {shlex.quote(item.path)}  (or archive "
                              "the person).")
    elif path.is_file():
        formats.validate(path)


def _file_list(items: list[Pending]) -> str:
    moved = sorted({Path(i.path).parts[1] for i in items if Path(i.path).parts[1] != i.slug})
    return "\n".join([f"- {i.path} ({_CODES.get(i.code, i.code)})" for i in items]
                     + [f"\n{MOVED_FROM}people/{old}/" for old in moved])


_CODES = {"M": "changed", "A": "added", "D": "deleted", "??": "new", "R": "renamed"}


def history(ws: Workspace, person: Person | None = None, limit: int = 50) -> list[Commit]:
    if person is None:
        return ws.git.log(None, limit)
    from heartcompass.store import lineage

    return lineage.history(ws, person, limit)  # across renames


def undo(ws: Workspace, rev: str | None = None, *, note: Callable[[Commit], str] | None = None,
         then: Callable[[Commit], None] | None = None) -> tuple[Commit, str]:
    """Revert one commit with a new commit (never a reset). note(target) adds
    lines to the undo's message; then(target) runs after it, under the same
    lock (the gardener's state follows an undone garden: memory/consolidation)."""
    with write_transaction(ws, "undo"):
        target, new_sha = _undo(ws, rev, note)
        if then is not None:
            then(target)
        return target, new_sha


def _undo(ws: Workspace, rev: str | None, note: Callable[[Commit], str] | None = None) -> tuple[Commit, str]:
    from heartcompass.store.gitrepo import RevertConflict  # here: an idle garden imports this module, not git

    sha = ws.git.resolve(rev or "HEAD")
    target = ws.git.get(sha)
    if ws.git.parents(sha) == 0:
        raise HeartCompassError("That is the workspace's first commit; there is nothing before it to go back to.")
    if ws.git.parents(sha) > 1:
        raise HeartCompassError(f"{target.short} is a merge (from sync); undo cannot take it back safely.",
                                "Undo the single changes inside it instead (see 'heartcompass log').")
    # The user's hand edits of the people it touches are theirs: committed first, as any command that writes does.
    touched = {f.split("/")[1] for f in target.files if f.startswith("people/") and f.count("/") >= 2}
    commit_pending(ws, [Person(slug, ws.people_dir / slug) for slug in sorted(touched)
                        if (ws.people_dir / slug).is_dir()], hand_edits_only=True)
    dirty = {p for _, p in ws.git.status()}
    clash = sorted(dirty & set(target.files))
    if clash:
        raise HeartCompassError(
            "These files have uncommitted changes that the undo would mix with: " + ", ".join(clash) + ".",
            "Let HeartCompass commit them first (any command that writes does), or revert them yourself.")
    try:
        extra = note(target) if note is not None else ""
        new_sha = ws.git.revert(sha, subject(Verb.UNDO, scope_of(target.subject), target.subject),
                                f"{REVERTS_PREFIX}{sha}." + (f"\n\n{extra}" if extra else ""))
    except RevertConflict as exc:
        raise HeartCompassError(
            f"Cannot undo {target.short} ({target.subject}): later changes touch the same lines of "
            f"{', '.join(exc.files)}; nothing was changed.",
            f"Edit those lines by hand ('heartcompass edit'), or bring the file back as it was before that change: "
            f"{_restore_command(exc.files[0], target.short)}.") from None
    return target, new_sha


def _restore_command(rel: str, short: str) -> str:
    parts = Path(rel).parts
    if len(parts) == 3 and parts[0] == "people" and parts[2].lower().removesuffix(".md") in formats.FILE_KINDS:
        return f"heartcompass restore {shlex.quote(parts[1])} {parts[2].lower().removesuffix('.md')} --at {short}~1"
    return f"git checkout {short}~1 -- {shlex.quote(rel)}"


def restore(ws: Workspace, person: Person, file_kind: str, rev: str) -> str | None:
    """Bring one file back as it was at rev, as a new commit."""
    with write_transaction(ws, "restore"):
        return _restore(ws, person, file_kind, rev)


def _restore(ws: Workspace, person: Person, file_kind: str, rev: str) -> str | None:
    from heartcompass.store import lineage

    filename = formats.file_for(file_kind)
    sha = ws.git.resolve(rev)
    path = person.dir / filename
    then = lineage.path_at(ws, person, path, sha)
    text = ws.git.file_at(sha, then)  # under its name back then
    if text is None:
        raise HeartCompassError(f"people/{person.slug}/{filename} did not exist at {rev}.",
                                f"See the commits that touched it: heartcompass log {shlex.quote(person.slug)}")
    formats.validate(path, text)
    commit_pending(ws, [person])
    if filename == profile_fmt.FILENAME and path.exists() and Path(then) != path:  # renamed since
        text = _keeping_current_names(path, text)
    if path.exists() and formats.read_text(path) == text:
        return None
    write_atomic(path, text)
    return commit_or_roll_back(ws, [path], subject(Verb.RESTORE, person.slug, f"{filename} as of {sha[:8]}"),
                               what=f"{ws.rel(path)}")


def _keeping_current_names(path: Path, old_text: str) -> str:
    """A profile brought back from before a rename keeps the name the folder
    has now (and its aliases, the old name among them): the rest is as it was."""
    now, then = profile_fmt.load(path), profile_fmt.parse(old_text, path)
    if (then.name, then.aliases) == (now.name, now.aliases):
        return old_text
    then.set("name", now.name)
    then.set("aliases", list(now.aliases))
    return profile_fmt.render(then)


def commit_chat(ws: Workspace, person: Person, paths: set[Path] | list[Path], messages: int,
                time_travel: str | None = None) -> str | None:
    """The day's log after a chat: one commit, apart from any hand edit."""
    if not paths:
        return None
    days = ", ".join(sorted(Path(p).stem for p in paths))
    what = f"{counted(messages, 'message')} on {days}"
    if time_travel:
        what += f" (time travel, {time_travel})"
    from heartcompass.paths import read_exact  # (`paths` here are the logs)

    try:  # from the bytes, as the gardener commits: git never re-reads a 10,000-person index for a chat
        texts: dict[Path | str, str] = {p: read_exact(Path(p)) for p in paths}
    except (OSError, UnicodeDecodeError, HeartCompassError):  # gone, a link, not text: git's add says what it is
        return ws.git.commit(list(paths), subject(Verb.CHAT, person.slug, what))
    return ws.git.commit_contents(texts, subject(Verb.CHAT, person.slug, what))

