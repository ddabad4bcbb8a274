"""How far each daily log has been consolidated: local state, not the person's files.

One small JSON file per person in .heartcompass/consolidated/: for each log
day, how many entries the gardener has read and a checksum of those entries.
The checksum is what keeps it right across undo, restore and a hand edit: when
a log is rewritten under it (an undone chat, a line edited by hand), the
consumed entries are found again (in git's history of that log), and what
the log holds now that is not one of them is read: a changed line again,
an unchanged one not twice, a later one never skipped.

Undoing a garden commit hands its entries back to the gardener: what it had
read is as it was before that commit (the undo's own trailer says so, so a
rebuild from git agrees), and the next `garden` reads them again.

Lost state is rebuilt from git: every garden commit ends with a
`Consolidated:` trailer naming what it consumed (day=count:checksum). Old
workspaces kept a `consolidated` map in MEMORY.md's frontmatter; it is read
once, when no state exists, and dropped by the next garden commit."""

from __future__ import annotations

import difflib
import hashlib
import json
from typing import TYPE_CHECKING

from heartcompass import paths
from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError, UnsafePathError
from heartcompass.formats import dailylog
from heartcompass.memory import consolidation_history
from heartcompass.memory.consolidation_trailer import TRAILER, Days, legacy_map, parse_trailer, trailer

__all__ = ["TRAILER", "Days", "State", "after_undo", "give_back", "legacy_map", "parse_trailer", "prefix_sum",
           "trailer"]

if TYPE_CHECKING:
    from heartcompass.store.people import Person
    from heartcompass.store.workspace import Workspace

HISTORY_VERSIONS = 200  # versions of one log searched for the consumed entries after a rewrite


def prefix_sum(entries: list[dailylog.Entry], n: int) -> str:
    """Checksum of the first n entries, as they read."""
    h = hashlib.sha256()
    for entry in entries[:n]:
        h.update(entry.render().encode("utf-8"))
    return h.hexdigest()[:12]


class State:
    def __init__(self, ws: "Workspace", person: "Person"):
        self.ws, self.person = ws, person
        self.path = ws.state_dir / "consolidated" / f"{person.slug}.json"
        self.dirty = False
        try:
            data = json.loads(paths.read_local(self.path))
            self.days: Days = {str(k): [int(v[0]), v[1]] for k, v in data["days"].items()}
        except (FileNotFoundError, UnsafePathError, ValueError, KeyError, TypeError, IndexError):
            found = consolidation_history.lookup(ws, person)  # everyone from one pass, saved in one file
            if found is None:
                self.days, self.dirty = self.rebuild(), True
            else:
                self.days, saved = found
                self.dirty = not saved
        # logs git vouches were read to their end, as they are now (a rebuild's): day -> (state, stat)
        self.all_read = consolidation_history.vouched(ws, person)

    # -- rebuilding ---------------------------------------------------------
    def rebuild(self) -> Days:
        """From the garden commits' trailers (newest wins), then the old
        MEMORY.md map for days no trailer names: three `git log --follow`,
        for one person (consolidation_history.py does everyone at once, and
        falls back to this where it cannot)."""
        days: Days = {}
        git = self.ws.git
        if git.is_repo() and git.head() is not None:
            found: dict[str, tuple[int, int, str]] = {}  # sha -> (-time, place in git's order, message)
            for path in self.person.files():  # followed across renames of the person
                if git.blob_ids([path]):
                    for place, (sha, when, message) in enumerate(git.file_messages(path)):
                        if TRAILER in message:
                            found.setdefault(sha, (-when, place, message))
            for _, _, message in sorted(found.values()):  # newest first
                for day, value in parse_trailer(message).items():
                    days.setdefault(day, value)
        for day, n in legacy_map(self.person.memory_path).items():
            days.setdefault(day, [n, None])
        return days

    # -- reading ------------------------------------------------------------
    def count(self, day: str) -> int:
        return self.days.get(day, [0, None])[0]

    def unread(self, day: str, entries: list[dailylog.Entry]) -> list[int]:
        """Positions of these entries (the log as it is now) the gardener has
        not read: those past the consumed ones, and, when the log was
        rewritten under us (undo, restore, a line edited by hand), every entry
        that is not one it read, each once. When those are not all at the end,
        the state is left as it was (a prefix cannot say so): the next run
        finds the same ones, until the gardener's commit moves it past them."""
        n, c = self.days.get(day, [0, None])
        if n == 0:
            return list(range(len(entries)))
        if c is None and n <= len(entries):  # from the old MEMORY.md map: trusted once
            self.set(day, n, entries)
            return list(range(n, len(entries)))
        if n <= len(entries) and prefix_sum(entries, n) == c:
            return list(range(n, len(entries)))
        old = self._consumed_from_history(day, n, c) or []
        matcher = difflib.SequenceMatcher(None, [e.render() for e in old], [e.render() for e in entries],
                                          autojunk=False)
        read = {i for block in matcher.get_matching_blocks() for i in range(block.b, block.b + block.size)}
        unread = [i for i in range(len(entries)) if i not in read]
        done = unread[0] if unread else len(entries)
        if unread == list(range(done, len(entries))):
            self.set(day, done, entries)
        return unread

    def _consumed_from_history(self, day: str, n: int, c: str | None) -> list[dailylog.Entry] | None:
        path = self.person.logs_dir / f"{day}.md"
        git = self.ws.git
        if c is None or not git.is_repo() or git.head() is None:
            return None
        try:
            shas = git.file_commits(path, HISTORY_VERSIONS)
        except Exception:
            return None
        for sha in shas:
            text = git.file_at(sha, path)
            if text is None:
                continue
            try:
                entries = dailylog.parse(text, path)
            except FormatError:
                continue
            if len(entries) >= n and prefix_sum(entries, n) == c:
                return entries[:n]
        return None

    # -- writing ------------------------------------------------------------
    def set(self, day: str, n: int, entries: list[dailylog.Entry]) -> None:
        value = [n, prefix_sum(entries, n)]
        if self.days.get(day) != value:
            self.days[day] = value
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_atomic(self.path, json.dumps({"days": dict(sorted(self.days.items()))}, separators=(",", ":")))
            self.dirty = False


# -- an undone garden commit ---------------------------------------------------
def before_garden(ws: "Workspace", person: "Person", sha: str) -> Days:
    """For each day garden commit sha consumed, what was consumed before it:
    the newest earlier trailer naming that day, else nothing (0)."""
    undone = parse_trailer(ws.git.get(sha).body)
    if not undone:
        return {}
    out: Days = {day: [0, None] for day in undone}
    left = set(undone)
    for message in ws.git.messages_before(sha, list(person.files())):  # newest first
        for day, value in parse_trailer(message).items():
            if day in left:
                out[day] = value
                left.discard(day)
        if not left:
            break
    return out


def after_undo(ws: "Workspace", target) -> tuple["Person", Days] | None:
    """What an undo of commit target does to the gardener's state: a garden
    commit's entries are unread again; an undo of that undo reads them again."""
    from heartcompass.store.subjects import Verb, parse_subject, reverted_by
    from heartcompass.store.people import Person

    parsed = parse_subject(target.subject)
    if parsed is None or not parsed.scope or not (ws.people_dir / parsed.scope).is_dir():
        return None
    person = Person(parsed.scope, ws.people_dir / parsed.scope)
    if parsed.verb == Verb.GARDEN.value:
        days = before_garden(ws, person, target.sha)
    elif parsed.verb == Verb.UNDO.value and reverted_by(target.body):
        days = parse_trailer(ws.git.get(reverted_by(target.body)[0]).body)  # as the garden left them
    else:
        return None
    return (person, days) if days else None


def give_back(ws: "Workspace", person: "Person", days: Days) -> None:
    """The state as before an undone garden commit: its entries are unread again."""
    state = State(ws, person)
    for day, value in days.items():
        if state.days.get(day) != value:
            state.days[day] = list(value)
            state.dirty = True
    state.save()
