"""The audit trail: every change to the workspace is its own git commit.

Before HeartCompass writes a person's files, the user's uncommitted hand
edits to them are validated and committed on their own (`edit(<slug>): by
hand`), so the tool's change is always a separate commit that `undo` can
take back exactly. Commit subjects are `<verb>(<slug>): <what>`."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from heartcompass import formats, paths
from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError, GitError, HeartCompassError, PersonError
from heartcompass.formats import profile as profile_fmt
from heartcompass.gitrepo import Commit
from heartcompass.people import Person, check_new_name, create, linking_profiles, refuse_taken, resolve
from heartcompass.slugs import clean_name, slugify
from heartcompass.workspace import Workspace

SUBJECT = re.compile(r"^(?P<verb>[a-z-]+)\((?P<scope>[^)]+)\): ")
WAIT = 30.0  # seconds a short command waits for another writer (a commit, a gardener) to finish


@contextmanager
def writing(ws: Workspace, purpose: str, wait: float | None = None) -> Iterator[None]:
    """Every command that commits runs inside this: one writer at a time (the
    workspace lock, waited for up to `wait` seconds), and a repository where a
    commit is right now (no rebase, merge, cherry-pick or revert in progress,
    no detached HEAD, no stale index.lock), else one clear error line."""
    from heartcompass.lock import WorkspaceLock

    with WorkspaceLock(ws.state_dir / "lock", purpose, wait=WAIT if wait is None else wait):
        ws.git.check_writable()
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
        if moved and moved[1].exists() and not moved[0].exists():
            moved[1].rename(moved[0])
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
    """Uncommitted changes under people/, by person."""
    paths = [p.dir for p in people] if people is not None else [ws.people_dir]
    out = []
    for code, rel in ws.git.status(paths):
        parts = Path(rel).parts
        if len(parts) < 3 or parts[0] != "people" or parts[1].startswith("."):
            continue
        if "/.new-" in rel or Path(rel).name.startswith("."):
            continue  # our own staging and temp files
        kind = "chat log" if parts[2] == "logs" else "hand edit"
        out.append(Pending(parts[1], rel, code, kind))
    return out


def commit_pending(ws: Workspace, people: list[Person] | None = None) -> list[str]:
    """Validate and commit pending hand edits (and uncommitted chat logs) of
    these people, each person's edits as one commit. An invalid hand edit
    stops the command: it is never overwritten or mixed into another commit."""
    items = pending(ws, people)
    for item in items:
        _check(ws, item)
    shas = []
    for slug in sorted({i.slug for i in items}):
        for kind, verb in (("hand edit", "edit"), ("chat log", "log")):
            mine = [i for i in items if i.slug == slug and i.kind == kind]
            if not mine:
                continue
            names = sorted({Path(i.path).name for i in mine})
            what = "by hand" if verb == "edit" else "chat log " + ", ".join(n.removesuffix(".md") for n in names)
            body = _file_list(mine)
            sha = ws.git.commit([ws.root / i.path for i in mine], f"{verb}({slug}): {what}", body)
            if sha:
                shas.append(sha)
    return shas


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
        sha = ws.git.commit([ws.root / i.path for i in valid], f"edit({person.slug}): by hand", _file_list(valid))
    return sha, invalid


def _check(ws: Workspace, item: Pending) -> None:
    """A pending change that may be committed, or a FormatError."""
    path = ws.root / item.path
    paths.check(path)  # a person folder or file that is a link is named as such, never committed
    if item.code == "D":
        if path.name == profile_fmt.FILENAME:
            raise FormatError(path, "was deleted by hand; a person needs a PROFILE.md",
                              hint=f"Bring it back with 'git checkout -- {item.path}', or archive the person.")
    elif path.is_file():
        formats.validate(path)


def _file_list(items: list[Pending]) -> str:
    return "\n".join(f"- {i.path} ({_CODES.get(i.code, i.code)})" for i in items)


_CODES = {"M": "changed", "A": "added", "D": "deleted", "??": "new", "R": "renamed"}


def set_config(ws: Workspace, key: str, raw: str):
    """`config set`: a hand edit of heartcompass.toml is committed first."""
    from heartcompass.config import load_for_commit, parse_value, set_value

    parse_value(key, raw)  # refuse before touching anything
    with writing(ws, "config set"):
        if ws.git.status([ws.config_path]):
            load_for_commit(ws.config_path)
            ws.git.commit([ws.config_path], "edit(config): by hand")
        value = set_value(ws.config_path, key, raw)
        ws.reload_config()  # the commit already follows the new setting (git.hooks false: no hooks)
        try:
            return value, commit_or_roll_back(ws, [ws.config_path], f"config: {key} = {value!r}",
                                              what=f"{ws.config_path.name}")
        finally:
            ws.reload_config()


def unset_config(ws: Workspace, key: str):
    """`config unset`: like set_config, the key's line leaves the file."""
    from heartcompass.config import KEYS, load_for_commit, unset_value, valid_keys_text
    from heartcompass.errors import ConfigError

    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text())
    with writing(ws, "config unset"):
        if ws.git.status([ws.config_path]):
            load_for_commit(ws.config_path)
            ws.git.commit([ws.config_path], "edit(config): by hand")
        if not unset_value(ws.config_path, key):
            return False, None
        return True, commit_or_roll_back(ws, [ws.config_path], f"config: unset {key}",
                                         what=f"{ws.config_path.name}")


def add_person(ws: Workspace, name: str, relation: str, **fields) -> Person:
    with writing(ws, "person add"):
        person = create(ws, name, relation, **fields)
        commit_or_roll_back(ws, [person.dir], f"add({person.slug}): new person",
                            what=f"people/{person.slug}/ (nothing was added)")
    return person


def rename_person(ws: Workspace, old: str, new_name: str, allow_taken: bool = False) -> tuple[Person, list[str]]:
    """Rename a person: the folder moves (git mv), the old name becomes an
    alias, and `related` links in other profiles follow."""
    with writing(ws, "rename"):
        return _rename_person(ws, old, new_name, allow_taken)


def _rename_person(ws: Workspace, old: str, new_name: str, allow_taken: bool) -> tuple[Person, list[str]]:
    person = resolve(ws, old)
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
    target = Person(new_slug, ws.people_dir / new_slug)
    if new_slug != person.slug:
        ws.git.move(person.dir, target.dir)
    prof.path = target.profile_path
    prof.set("name", new_name)
    if old_name != new_name and old_name.casefold() not in (a.casefold() for a in prof.aliases):
        prof.set("aliases", [*prof.aliases, old_name])
    _retitle(prof.doc, f"# {old_name}", f"# {new_name}")
    write_atomic(target.profile_path, profile_fmt.render(prof))
    for path, prefix in ((target.events_path, "# Events — "), (target.memory_path, "# Memory — ")):
        if path.exists():
            text = formats.read_text(path)
            new_text = _retitle_text(text, prefix + old_name, prefix + new_name)
            if new_text != text:
                formats.validate(path, new_text)
                write_atomic(path, new_text)
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
                        f"rename({new_slug}): from {person.slug}", body,
                        what=f"the rename (people/{person.slug} is as it was)",
                        moved=(person.dir, target.dir) if target.dir != person.dir else None)
    return target, [p.slug for p in linkers]


def _retitle_text(text: str, old: str, new: str) -> str:
    """Replace a title line that is exactly `old` (the first such line)."""
    return re.sub(rf"(?m)^{re.escape(old)}[ \t]*$", new.replace("\\", r"\\"), text, count=1)


def _retitle(doc, old: str, new: str) -> None:
    doc.body = _retitle_text(doc.body, old, new)


def archive_person(ws: Workspace, name: str) -> Path:
    with writing(ws, "archive"):
        return _archive_person(ws, name)


def _archive_person(ws: Workspace, name: str) -> Path:
    person = resolve(ws, name)
    commit_pending(ws, [person])
    dest = ws.archive_dir / person.slug
    if dest.exists():
        raise PersonError(f"people/.archive/{person.slug} already exists.",
                          "Rename the archived folder first, or this person.")
    ws.archive_dir.mkdir(parents=True, exist_ok=True)
    ws.git.move(person.dir, dest)
    commit_or_roll_back(ws, [person.dir], f"archive({person.slug}): moved to people/.archive",
                        what=f"the move (people/{person.slug} is where it was)", moved=(person.dir, dest))
    return dest


def history(ws: Workspace, person: Person | None = None, limit: int = 50) -> list[Commit]:
    if person is None:
        return ws.git.log(None, limit)
    from heartcompass import lineage

    return lineage.history(ws, person, limit)  # across renames


def scope_of(subject: str) -> str:
    m = SUBJECT.match(subject)
    return m["scope"] if m else "workspace"


def undo(ws: Workspace, rev: str | None = None) -> tuple[Commit, str]:
    """Revert one commit with a new commit (never a reset)."""
    with writing(ws, "undo"):
        return _undo(ws, rev)


def _undo(ws: Workspace, rev: str | None) -> tuple[Commit, str]:
    sha = ws.git.resolve(rev or "HEAD")
    target = ws.git.get(sha)
    if ws.git.parents(sha) == 0:
        raise HeartCompassError("That is the workspace's first commit; there is nothing before it to go back to.")
    if ws.git.parents(sha) > 1:
        raise HeartCompassError(f"{target.short} is a merge (from sync); undo cannot take it back safely.",
                                "Undo the single changes inside it instead (see 'heartcompass log').")
    dirty = {p for _, p in ws.git.status()}
    clash = sorted(dirty & set(target.files))
    if clash:
        raise HeartCompassError(
            "These files have uncommitted changes that the undo would mix with: " + ", ".join(clash) + ".",
            "Let HeartCompass commit them first (any command that writes does), or revert them yourself.")
    new_sha = ws.git.revert(sha, f"undo({scope_of(target.subject)}): {target.subject}",
                            f"This reverts commit {sha}.")
    return target, new_sha


def restore(ws: Workspace, person: Person, file_kind: str, rev: str) -> str | None:
    """Bring one file back as it was at rev, as a new commit."""
    with writing(ws, "restore"):
        return _restore(ws, person, file_kind, rev)


def _restore(ws: Workspace, person: Person, file_kind: str, rev: str) -> str | None:
    from heartcompass import lineage

    filename = formats.file_for(file_kind)
    sha = ws.git.resolve(rev)
    path = person.dir / filename
    text = ws.git.file_at(sha, lineage.path_at(ws, person, path, sha))  # under its name back then
    if text is None:
        raise HeartCompassError(f"people/{person.slug}/{filename} did not exist at {rev}.",
                                f"See 'heartcompass log {person.slug}' for the commits that touched it.")
    formats.validate(path, text)
    commit_pending(ws, [person])
    if path.exists() and formats.read_text(path) == text:
        return None
    write_atomic(path, text)
    return commit_or_roll_back(ws, [path], f"restore({person.slug}): {filename} as of {sha[:8]}",
                               what=f"{ws.rel(path)}")


def commit_chat(ws: Workspace, person: Person, paths: set[Path] | list[Path], messages: int,
                time_travel: str | None = None) -> str | None:
    """The day's log after a chat: one commit, apart from any hand edit."""
    if not paths:
        return None
    days = ", ".join(sorted(Path(p).stem for p in paths))
    what = f"{messages} message{'s' if messages != 1 else ''} on {days}"
    if time_travel:
        what += f" (time travel, {time_travel})"
    return ws.git.commit(list(paths), f"chat({person.slug}): {what}")


@dataclass
class SyncResult:
    remote: str
    branch: str
    committed: int
    conflicts: list[str]
    pushed: bool


def sync(ws: Workspace, action: str | None = None) -> SyncResult:
    """Commit pending valid hand edits, pull with rebase, push. A conflict is
    left in place for the user: nothing is discarded. action "continue"
    finishes a sync stopped on a conflict (once the files are fixed), "abort"
    goes back to before it."""
    remote = str(ws.config.get("sync.remote"))
    if remote not in ws.git.remotes():
        raise HeartCompassError(f"This workspace has no git remote {remote!r}.",
                                f"Add one: git -C {ws.root} remote add {remote} <url>  (or set sync.remote).")
    from heartcompass.lock import WorkspaceLock

    # Fails fast rather than waiting: a sync is never run mid-garden (its writes are not hand edits).
    with WorkspaceLock(ws.state_dir / "lock", "sync"):
        if action is None:
            ws.git.check_writable()
            return _sync(ws, remote)
        if not ws.git.rebase_in_progress():
            ws.git.clear_sync_mark()
            raise HeartCompassError(f"There is no stopped sync to {action}.", "Run 'heartcompass sync'.")
        branch = _rebased_branch(ws)
        if action == "abort":
            ws.git.rebase_abort()
            return SyncResult(remote, branch, 0, [], False)
        conflicts = _continue_rebase(ws)
        if conflicts:
            return SyncResult(remote, branch, 0, conflicts, False)
        ws.git.clear_sync_mark()
        ws.git.push(remote, branch)
        return SyncResult(remote, branch, 0, [], True)


def _rebased_branch(ws: Workspace) -> str:
    for name in ("rebase-merge", "rebase-apply"):
        head = ws.git.git_dir / name / "head-name"
        if head.exists():
            return head.read_text(encoding="utf-8").strip().removeprefix("refs/heads/")
    return "main"


_MARKERS = re.compile(r"(?m)^(<{7}|>{7})( |$)")


def _continue_rebase(ws: Workspace) -> list[str]:
    """Stage the files the user fixed (no conflict marks left, and they
    parse) and let the rebase go on; returns files still in conflict."""
    fixed = ws.git.conflicted()
    for rel in fixed:
        path = ws.root / rel
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if _MARKERS.search(text):
                raise HeartCompassError(f"{rel} still has conflict marks (<<<<<<< ... >>>>>>>).",
                                        "Keep the lines you want, delete the marks, then run "
                                        "'heartcompass sync --continue' again.")
            if rel.startswith("people/") and rel.endswith(".md"):
                formats.validate(path)
            from heartcompass.config import check_committable
            check_committable(ws.root, rel)  # heartcompass.toml: parses, and no credential goes out
    if fixed:
        ws.git.stage(fixed)
    return ws.git.rebase_continue()


def _sync(ws: Workspace, remote: str) -> SyncResult:
    committed = len(commit_pending(ws))
    if ws.git.status([ws.config_path]):
        from heartcompass.config import load_for_commit

        load_for_commit(ws.config_path)  # never push a credential put in by hand
        ws.git.commit([ws.config_path], "edit(config): by hand")
        committed += 1
    branch = ws.git.branch()
    conflicts = ws.git.pull_rebase(remote, branch)
    if conflicts:
        return SyncResult(remote, branch, committed, conflicts, False)
    ws.git.push(remote, branch)
    return SyncResult(remote, branch, committed, [], True)


def import_card(ws: Workspace, path: Path, allow_taken: bool = False) -> Person:
    """A new person from a character card (V1 or V2), one commit."""
    from heartcompass import cards
    from heartcompass.errors import FormatError as _FormatError
    from heartcompass.formats.profile import normalize_mbti

    fields = cards.person_fields(cards.read_card(path), str(ws.config.get("user.name") or "me"))
    try:
        mbti = normalize_mbti(fields["mbti"])
    except _FormatError:
        mbti = None  # a card's odd type is not worth refusing the card for
    extra = {"card_extensions": fields["extensions"]} if fields["extensions"] else {}
    if fields.get("birthday"):
        extra = {"birthday": fields["birthday"], **extra}
    import datetime as dt

    from heartcompass.formats.events import Event

    past = []
    for day, text, weight in fields["events"]:
        try:
            past.append(Event(dt.date.fromisoformat(day), text, weight, "import"))
        except ValueError:
            fields["facts"].append(f"{day}: {text}")  # not a real date: kept as a fact
    with writing(ws, "import-card"):
        person = create(ws, fields["name"], fields["relation"], mbti=mbti, aliases=fields["aliases"],
                        gender=fields["gender"], tags=fields["tags"], sections=fields["sections"],
                        facts=fields["facts"], extra=extra, past_events=past, allow_taken=allow_taken)
        from heartcompass.voice import add_line

        for line in fields.get("voice") or []:  # the card's example dialogue: how they write
            add_line(person.dir, fields["name"], line, "card")
        commit_or_roll_back(ws, [person.dir], f"add({person.slug}): from character card {Path(path).name}",
                            what=f"people/{person.slug}/ (nothing was added)")
    return person
