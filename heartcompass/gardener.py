"""The gardener: consolidates new log entries into PROFILE.md, EVENTS.md and
MEMORY.md, one reviewable commit per person.

Safety, in order of the steps below:
- one gardener at a time (a workspace lock; a stale lock is taken over);
- a journal in .heartcompass/garden/ holds the new texts before any file is
  written, so a run killed at any moment is finished by the next one, and
  the consolidation state (.heartcompass/consolidated/, see consolidation.py)
  moves with the files it describes, never apart from them;
- pending hand edits are committed first, as their own commits; the
  gardener's commit holds exactly the bytes it wrote (built from them, not
  from the working files), so a hand edit saved meanwhile stays the user's,
  for its own `edit(...)` commit;
- the model's proposal is validated before anything is written; a bad one
  (after one corrected try) leaves that person's entries unconsumed;
- each write checks the file is still what was read: a hand edit made while
  the gardener ran is never overwritten."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from heartcompass import audit, clock, prompts
from heartcompass.atomic import ConcurrentEditError, checksum, file_checksum, write_atomic
from heartcompass.consolidation import State as ConsolidationState, prefix_sum, trailer
from heartcompass.errors import FormatError, HeartCompassError, LLMError, MissingKeyError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt, read_text
from heartcompass.garden_proposal import (Compressed, LogItem, Proposal, ProposalError, Workbench, apply,
                                          apply_compression, compressed_schema, consumes, present,
                                          proposal_schema, shown_events)
from heartcompass.llm import ask_structured, structured_invoke
from heartcompass.lock import WorkspaceLock
from heartcompass.people import Person, list_people
from heartcompass.tokens import estimate_tokens
from heartcompass.workspace import Workspace

TOOL_VERBS = {"init", "add", "rename", "archive", "restore", "undo", "config", "chat", "log", "garden",
              "tell", "import", "sync", "coach", "voice"}
SKIPPED_TAGS = ("as-of", "cut off", "told")  # time travel, partial replies, narratives `tell` applied
EVENTS_SHOWN_TOKENS = 800
CHECKPOINT_SECONDS = 5.0  # a long backlog is written (journal, files, state) at most this often, and at the end
PROPOSAL_MAX_TOKENS = 2048  # a proposal is a handful of short lines; more is a runaway


@dataclass
class PersonResult:
    slug: str
    status: str = "up to date"    # up to date | gardened | dry run | declined | skipped | failed
    entries: int = 0
    events_added: int = 0
    events_changed: int = 0
    memory_before: int = 0
    memory_after: int = 0
    commit: str | None = None
    message: str = ""
    diffs: dict[str, str] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)


def is_hand_subject(subject: str) -> bool:
    """A commit the user made: `edit(...)` or anything not HeartCompass's own."""
    m = re.match(r"^([a-z-]+)(\(|:)", subject)
    return not m or m.group(1) == "edit" or m.group(1) not in TOOL_VERBS


# -- finding new entries --------------------------------------------------------
class EntryCounts:
    """Cache of entries per log file (keyed by size and mtime), so a nightly
    run over many people and a year of logs parses only what changed."""

    def __init__(self, ws: Workspace):
        self.path = ws.state_dir / "log-counts.json"
        try:
            self.data: dict[str, list[int]] = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            self.data = {}
        self.dirty = False

    def known(self, path: Path) -> int | None:
        st = path.stat()
        hit = self.data.get(str(path))
        return hit[2] if hit and hit[0] == st.st_size and hit[1] == st.st_mtime_ns else None

    def remember(self, path: Path, count: int) -> None:
        st = path.stat()
        self.data[str(path)] = [st.st_size, st.st_mtime_ns, count]
        self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_cache(self.path, json.dumps(self.data))


def new_entries(person: Person, state: ConsolidationState, counts: EntryCounts
                ) -> tuple[list[LogItem], dict[str, list[dailylog.Entry]]]:
    """Entries past what each log has had consolidated; and those logs'
    entries, whose full count becomes the new state once they are written.
    A log unchanged since it was last read (size, mtime) is not read."""
    items: list[LogItem] = []
    logs: dict[str, list[dailylog.Entry]] = {}
    for day in dailylog.log_dates(person.dir):
        path = person.logs_dir / f"{day}.md"
        if counts.known(path) == state.count(day):
            continue
        entries = dailylog.load(path)
        counts.remember(path, len(entries))
        done = state.verified(day, entries)  # a log rewritten by undo or restore moves it back
        if len(entries) <= done:
            continue
        logs[day] = entries
        for index in range(done, len(entries)):
            entry = entries[index]
            if not entry.dropped and not any(t.startswith(SKIPPED_TAGS) for t in entry.tags):  # dropped: markers
                items.append(LogItem("", day, entry, index))
    for n, item in enumerate(items, 1):
        item.id = f"L{n}"
    return items, logs


def chunks(items: list[LogItem], budget: int) -> list[list[LogItem]]:
    """Oldest first, each within budget (a single huge entry is its own chunk)."""
    out: list[list[LogItem]] = [[]]
    used = 0
    for item in items:
        cost = estimate_tokens(item.entry.text) + 12
        if out[-1] and used + cost > budget:
            out.append([])
            used = 0
        out[-1].append(item)
        used += cost
    return [c for c in out if c]


# -- the journal ----------------------------------------------------------------------
class Journal:
    """The texts a gardening is about to write, saved before the first write."""

    def __init__(self, ws: Workspace, person: Person):
        self.ws, self.person = ws, person
        self.path = ws.state_dir / "garden" / f"{person.slug}.json"

    def save(self, files: dict[Path, tuple[str | None, str]], days: dict[str, list], subject: str,
             body: str) -> None:
        data = {"subject": subject, "body": body, "days": days,
                "files": {self.ws.rel(p): {"old": old, "new": new} for p, (old, new) in files.items()}}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False))

    def raw(self) -> str | None:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def put_back(self, raw: str | None) -> None:
        """The journal as it was before a chunk that was put back."""
        if raw is None:
            self.clear()
        else:
            write_atomic(self.path, raw)

    def recover(self, written: dict[Path, str] | None = None) -> str | None:
        """Finish an interrupted gardening: write what is missing, move the
        consolidation state, commit exactly the journal's texts. `written`:
        checksums of what this process wrote (it knows a later hand edit
        from a write that never happened). After a kill, a file changed by
        hand since is left alone (and so is the rest)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:
            self.path.unlink()
            return None
        files = {self.ws.root / rel: v for rel, v in data["files"].items()}
        now = {p: file_checksum(p) for p in files}
        ours = {p for p, v in files.items()
                if now[p] == checksum(v["new"]) or (written or {}).get(p) == checksum(v["new"])}
        if any(now[p] != v["old"] for p, v in files.items() if p not in ours):
            self.path.unlink()
            return None
        for path, v in files.items():
            if path not in ours:
                write_atomic(path, v["new"], expected_checksum=v["old"])
        state = ConsolidationState(self.ws, self.person)
        state.days.update(data.get("days", {}))
        state.dirty = True
        state.save()
        sha = self.ws.git.commit_contents({p: v["new"] for p, v in files.items()}, data["subject"],
                                          _with_note(data["body"], "(finished after an interruption)"))
        self.path.unlink()
        return sha

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


# -- one person ----------------------------------------------------------------------------
class Gardener:
    def __init__(self, ws: Workspace, make_model: Callable[[], Any], *, today: dt.date | None = None,
                 dry_run: bool = False, review: Callable[[PersonResult], bool] | None = None):
        self.ws = ws
        self.make_model = make_model
        self._model = None
        self.today = today or clock.today(ws)
        self.dry_run = dry_run
        self.review = review
        self.counts = EntryCounts(ws)
        self._written: dict[Path, str] = {}  # checksums of what this run wrote
        self._texts: dict[Path, str] = {}    # and the texts
        self._people: list[Person] = []
        self._names: dict[str, tuple[list[str], list[str]]] | None = None  # slug -> (names, links)
        self._history: dict[str, list] | None = None  # slug -> [last commit, files hand commits touched]
        self._committed: set[str] = set()  # people whose hand edits this run committed

    @property
    def model(self):
        if self._model is None:
            self._model = self.make_model()
        return self._model

    def run(self, people: list[Person] | None = None) -> list[PersonResult]:
        self._people = list_people(self.ws)  # once per run, not per person
        people = people if people is not None else self._people
        lock = WorkspaceLock(self.ws.state_dir / "lock", "gardener")
        with lock:
            if not self.dry_run:
                self.ws.git.check_writable()  # no commit onto a rebase, a merge, a detached HEAD
            results = []
            pending = {p.slug for p in audit.pending(self.ws, people)} if not self.dry_run else set()
            for person in people:
                results.append(self._one(person, person.slug in pending))
            self.counts.save()
        return results

    def _one(self, person: Person, has_pending: bool) -> PersonResult:
        result = PersonResult(person.slug)
        try:
            if not self.dry_run:
                Journal(self.ws, person).recover()
                if has_pending:
                    audit.commit_pending(self.ws, [person])
                    self._committed.add(person.slug)
            return self._garden(person, result)
        except MissingKeyError:
            raise
        except ConcurrentEditError as exc:
            result.status, result.message = "skipped", f"{exc.message} It will be retried next run."
        except (HeartCompassError, ProposalError) as exc:
            result.status, result.message = "failed", str(exc)
        if not self.dry_run and result.status in ("failed", "skipped"):
            # chunks already written stay, committed as exactly what was written
            try:
                result.commit = Journal(self.ws, person).recover(self._written)
            except HeartCompassError as exc:  # e.g. a hook refused: the journal stays, for the next run
                result.message += f" ({exc.message})"
            if result.commit:
                result.message += " The entries gardened before that are committed."
        return result

    def _garden(self, person: Person, result: PersonResult) -> PersonResult:
        state = ConsolidationState(self.ws, person)
        items, logs = new_entries(person, state, self.counts)
        if not items:
            if not self.dry_run:
                state.save()  # a rebuilt or corrected state; nothing else is read
            return result  # nothing new: no model call, no commit
        heads = self._check_committed(person) if not self.dry_run else None
        originals, prof, evs, mem = read_person(person)
        mem.drop_legacy()  # the old map moves to the state (read by it when it had none)
        result.memory_before = result.memory_after = mem.body_tokens()
        result.entries = len(items)
        text = "\n".join(i.entry.text for i in items)
        history = self._history_of(person) if person.slug not in self._committed and heads is not None else None
        wb = workbench(self.ws, person, prof, evs, mem, self.today, people=self._people, mentions=text,
                       names=self._name_index, heads=heads, history=history)
        wb.days_read = set(logs)
        self._state, self._days = state, {}
        budget = int(self.ws.config.get("memory.context_budget_tokens"))
        summaries = []
        batches = chunks(items, budget)
        checkpoint = time.monotonic()
        kept_back = 0
        for n, chunk in enumerate(batches, 1):
            proposal = self._propose(wb, chunk)
            if not consumes(proposal):  # silence is not "nothing worth keeping": they wait for the next run
                kept_back = sum(len(c) for c in batches[n - 1:])
                break
            summaries.append(proposal.summary.strip())
            self._fit_budget(wb)
            for day in {i.day for i in chunk}:  # this chunk's entries are now in memory
                count = max(i.index for i in chunk if i.day == day) + 1
                self._days[day] = [count, prefix_sum(logs[day], count)]
            if n < len(batches) and time.monotonic() - checkpoint >= CHECKPOINT_SECONDS:
                self._write(person, wb, originals, result, summaries, final=False)  # progress kept
                checkpoint = time.monotonic()
        if not kept_back:
            for day, entries in logs.items():  # skipped (time-travel) entries count as read
                self._days[day] = [len(entries), prefix_sum(entries, len(entries))]
        self._write(person, wb, originals, result, summaries, final=True)
        if kept_back:
            if result.status == "gardened" and kept_back == len(items):
                result.status = "skipped"  # nothing consumed: say so, the exit code too
            result.message = (f"the model proposed nothing for {kept_back} entries without saying they hold "
                              "nothing worth keeping; they stay for the next run")
        return result

    @staticmethod
    def _put_back(path: Path, written: str, previous: str | None) -> None:
        try:
            if previous is None:
                if file_checksum(path) == checksum(written):
                    path.unlink()
            else:
                write_atomic(path, previous, expected_checksum=checksum(written))
        except ConcurrentEditError:
            pass  # edited by hand since: it is the user's now

    def _check_committed(self, person: Person) -> dict[str, str] | None:
        """The files read must be what HEAD holds, so the gardener's commit
        holds only its own change: a hand edit saved since the start of the
        run is committed first, on its own. Returns HEAD's blob ids of them."""
        if self.ws.git.head() is None:
            return None
        heads = self.ws.git.blob_ids(person.files())
        for path in person.files():
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                data = None
            if heads.get(self.ws.rel(path)) != (blob_id(data) if data is not None else None):
                audit.commit_pending(self.ws, [person])
                self._committed.add(person.slug)
                return self.ws.git.blob_ids(person.files())
        return heads

    def _history_of(self, person: Person) -> tuple[str | None, set[str]] | None:
        """(last commit touching the person's files, those files a hand commit
        touched), from one `git log` for everyone, run once, when a first
        person's hand lines are not cached yet (not a log per person)."""
        if not (self.ws.state_dir / "hand-lines" / f"{person.slug}.json").exists() and self._history is None:
            self._history = {}
            sep, end = "\x1f", "\x1e"
            out = self.ws.git._git("log", f"--format={end}%H{sep}%s", "--name-only", "--",
                                   *(f":(glob)people/*/{name}" for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")))
            for chunk in out.split(end)[1:]:
                head, *files = chunk.strip("\n").split("\n")
                sha, subject = head.split(sep, 1)
                hand = is_hand_subject(subject)
                for rel in files:
                    parts = rel.split("/")
                    if len(parts) == 3:
                        entry = self._history.setdefault(parts[1], [sha, set()])
                        if hand:
                            entry[1].add(rel)
        if self._history is None:
            return None
        last, by_hand = self._history.get(person.slug, (None, set()))
        return last, set(by_hand)

    def _name_index(self) -> dict[str, tuple[list[str], list[str]]]:
        """Every person's names and aliases (casefolded) and links, read once per run."""
        if self._names is None:
            self._names = {}
            for other in self._people:
                try:
                    prof = other.load_profile()
                except (FormatError, OSError, UnicodeDecodeError):
                    continue
                names = [n.casefold() for n in [other.slug, *prof.names()] if len(n.strip()) >= 2]
                self._names[other.slug] = (names, [link["person"] for link in prof.related])
        return self._names

    def _propose(self, wb: Workbench, chunk: list[LogItem]) -> Proposal:
        return propose(self.ws, self.model, wb, chunk)

    def _fit_budget(self, wb: Workbench) -> None:
        fit_budget(self.ws, self.model, wb)

    def _write(self, person: Person, wb: Workbench, originals: dict, result: PersonResult,
               summaries: list[str], final: bool) -> PersonResult:
        texts = render_texts(person, wb)
        result.events_added, result.events_changed = wb.counts["events_added"], wb.counts["events_changed"]
        result.memory_after = wb.memory.body_tokens()
        result.changes = list(wb.changes)
        changed = {p: t for p, t in texts.items() if t != originals[p]}
        wb.touched = {name for name, p in (("profile", person.profile_path), ("events", person.events_path))
                      if p in changed}
        if memory_fmt.render_body(wb.memory) != _body_of(originals[person.memory_path]):
            wb.touched.add("memory")
        if not final:
            # Each chunk is written once done (so a long backlog makes progress), unless
            # the user is to see everything first.
            if not self.dry_run and self.review is None:
                self._commit_files(person, changed, originals, wb, summaries, commit=False)
            return result
        result.diffs = {self.ws.rel(p): diff_text(originals[p] or "", t, self.ws.rel(p)) for p, t in changed.items()}
        if self.dry_run:
            result.status = "dry run"
            return result
        if self.review is not None and not self.review(result):
            result.status = "declined"
            return result
        result.commit = self._commit_files(person, changed, originals, wb, summaries, commit=True)
        result.status = "gardened"
        return result

    def _commit_files(self, person, changed, originals, wb, summaries, commit: bool) -> str | None:
        subject, body = _message(person.slug, wb, summaries)
        body = _with_note(body, trailer(self._days))  # what was consumed: the state can be rebuilt from git
        journal = Journal(self.ws, person)
        current = {p: file_checksum(p) for p in changed}
        for path in changed:  # still what we read or last wrote? (a hand edit meanwhile wins)
            expected = checksum(originals[path]) if originals[path] is not None else None
            if current[path] != expected and not (self._written.get(path) == current[path]):
                raise ConcurrentEditError(f"{self.ws.rel(path)} was edited while the gardener ran; "
                                          "nothing more of this person was written.")
        before = journal.raw()
        journal.save({p: (current[p], t) for p, t in changed.items()}, self._days, subject, body)
        done: dict[Path, str] = {}
        try:
            for path, text in changed.items():
                write_atomic(path, text, expected_checksum=current[path])
                done[path] = text
        except ConcurrentEditError:
            # A hand save in the instant before a write: put back this chunk's other
            # writes, so what is on disk is the last whole chunk (its journal again).
            for path, text in done.items():
                self._put_back(path, text, self._texts.get(path, originals[path]))
            journal.put_back(before)
            raise
        for path, text in done.items():
            self._written[path] = checksum(text)
            self._texts[path] = text
        self._state.days.update(self._days)  # the state moves with the files, after them
        self._state.dirty = True
        self._state.save()
        if not commit:
            return None
        # exactly the bytes written: a hand edit saved since stays pending, the user's own
        sha = self.ws.git.commit_contents(changed, subject, body)
        journal.clear()
        if sha:
            remember_hand_lines(self.ws, person, sha, {p: changed.get(p, originals[p] or "") for p in originals})
        return sha


def read_person(person: Person):
    """(original texts by path, profile, events, memory) as on disk now."""
    originals = {p: (read_text(p) if p.exists() else None) for p in person.files()}
    prof = profile_fmt.parse(originals[person.profile_path], person.profile_path)
    evs = (events_fmt.parse(originals[person.events_path], person.events_path)
           if originals[person.events_path] is not None else events_fmt.new(person.events_path, prof.name))
    mem = (memory_fmt.parse(originals[person.memory_path], person.memory_path)
           if originals[person.memory_path] is not None else memory_fmt.new(person.memory_path, prof.name))
    return originals, prof, evs, mem


def workbench(ws: Workspace, person: Person, prof, evs, mem, today: dt.date, *,
              people: list[Person] | None = None, mentions: str | None = None,
              names: Callable[[], dict[str, tuple[list[str], list[str]]]] | None = None,
              heads: dict[str, str] | None = None,
              history: tuple[str | None, set[str]] | None = None) -> Workbench:
    """The files in memory, with the lines whose last change was the user's
    (git blame) marked as theirs. With `mentions` (the new entries' text),
    the known people are only those the entries and files mention, plus the
    person's links: the prompt does not grow with the workspace."""
    protected = hand_lines(ws, person, heads, history)
    people = people if people is not None else list_people(ws)
    known = {p.slug for p in people}
    if mentions is not None:
        index = names() if names else {}
        text = "\n".join([mentions, prof.doc.body, str(prof.doc.meta.get("related") or ""),
                          memory_fmt.render_body(mem)]).casefold()
        known = {slug for slug, (words, _) in index.items() if any(_mentioned(w, text) for w in words)}
        known |= {link["person"] for link in prof.related}
        known |= {link for slug in list(known) for link in index.get(slug, ((), ()))[1]}
        known &= {p.slug for p in people}
    return Workbench(person.slug, prof, evs, mem, protected, known, today)


def _mentioned(name: str, text: str) -> bool:
    if name not in text:
        return False
    if not name.isascii():
        return True  # Chinese names have no word boundaries
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def hand_lines(ws: Workspace, person: Person, heads: dict[str, str] | None = None,
               history: tuple[str | None, set[str]] | None = None) -> set[str]:
    """Lines whose last change was the user's. git blame walks a file's whole
    history, so it runs only on files a hand commit touched since the last
    look; what it found is kept in .heartcompass/hand-lines/ (and updated by
    the gardener's own commits, which never touch a hand line). `heads`:
    the files' blob ids at HEAD, when known: unchanged ones need no git.
    `history`: (last commit, files touched by hand) when already known."""
    cache = ws.state_dir / "hand-lines" / f"{person.slug}.json"
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
    cache = ws.state_dir / "hand-lines" / f"{person.slug}.json"
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return
    present = {line for text in texts.values() for line in text.splitlines()}
    data["lines"] = sorted(line for line in data.get("lines", []) if line in present)
    data["head"] = sha
    data["blobs"] = {ws.rel(p): blob_id(t.encode("utf-8")) for p, t in texts.items() if p.exists()}
    write_cache(cache, json.dumps(data, ensure_ascii=False))


def write_cache(path: Path, text: str) -> None:
    """A cache file: replaced whole (never half-written), not fsynced (it is
    rebuilt when lost or stale)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def blob_id(data: bytes) -> str:
    """git's id of a blob with these bytes."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def render_texts(person: Person, wb: Workbench) -> dict[Path, str]:
    """The new file texts; each must parse, or nothing is written."""
    texts = {person.profile_path: profile_fmt.render(wb.profile),
             person.events_path: events_fmt.render(wb.events),
             person.memory_path: memory_fmt.render(wb.memory)}
    for path, text in texts.items():
        formats_check(path, text)
    return texts


def propose(ws: Workspace, model: Any, wb: Workbench, chunk: list[LogItem], images: list[str] = ()) -> Proposal:
    """Ask for a proposal on these entries and apply it to wb; one corrected
    try after invalid output. images: data URLs shown with the entries."""
    from langchain_core.messages import HumanMessage, SystemMessage

    half_life = float(ws.config.get("memory.half_life_days"))
    shown = shown_events(wb, chunk, EVENTS_SHOWN_TOKENS, half_life)
    text = present(wb, chunk, shown)
    content: Any = text if not images else [{"type": "text", "text": text},
                                            *({"type": "image_url", "image_url": {"url": url}} for url in images)]
    messages = [SystemMessage(content=prompts.render(ws, "garden.md", name=wb.profile.name)),
                HumanMessage(content=content)]
    last_error: Exception | None = None
    for attempt in range(2):  # one corrected try after an invalid proposal
        try:
            raw = ask_structured(model, Proposal, messages, ws=ws, spec=proposal_schema(wb, chunk, shown),
                                 max_tokens=PROPOSAL_MAX_TOKENS)
            if isinstance(raw, Exception):
                raise raw
            proposal = raw if isinstance(raw, Proposal) else Proposal.model_validate(raw)
            snapshot = _snapshot(wb)
            try:
                apply(wb, proposal, chunk, shown, visual=bool(images))
            except ProposalError:
                _restore(wb, snapshot)
                raise
            return proposal
        except ProposalError as exc:
            last_error = exc
            messages = [*messages, HumanMessage(content="That proposal was rejected: " + "; ".join(
                exc.problems) + ". Send a corrected proposal.")]
        except LLMError:
            raise
        except Exception as exc:  # unparsable or schema-violating output
            last_error = exc
            messages = [*messages, HumanMessage(content=f"That output could not be read ({type(exc).__name__}). "
                                                        "Answer with the JSON proposal only.")]
    detail = str(last_error).strip().splitlines()
    raise ProposalError([f"the model's proposal was invalid twice ({type(last_error).__name__}: "
                         f"{' '.join(detail[:2])[:300]})"])

def fit_budget(ws: Workspace, model: Any, wb: Workbench) -> None:
    """Compress MEMORY.md with the model when it is over its budget."""
    from langchain_core.messages import HumanMessage, SystemMessage

    budget = wb.memory.budget_tokens
    if wb.memory.body_tokens() <= budget:
        return
    text = memory_fmt.render_body(wb.memory)
    keep = [line for title in memory_fmt.SECTIONS for line in wb.memory.items(title) if wb.is_protected(line)]
    if keep:
        text += "\n\nThe user wrote these lines by hand; keep them exactly:\n" + "\n".join(keep)
    messages = [SystemMessage(content=prompts.render(ws, "garden_compress.md", budget=budget)),
                HumanMessage(content=text)]
    try:
        result = structured_invoke(model, Compressed, messages, ws=ws, spec=compressed_schema(budget),
                                   max_tokens=2 * budget + 512)
        result = result if isinstance(result, Compressed) else Compressed.model_validate(result)
    except Exception as exc:
        raise ProposalError([f"MEMORY.md is over its budget ({wb.memory.body_tokens()} > {budget} tokens) "
                             f"and compressing it failed: {exc}"]) from None
    snapshot = _snapshot(wb)
    problems = apply_compression(wb, result)
    if problems or wb.memory.body_tokens() > budget:
        _restore(wb, snapshot)
        raise ProposalError(problems or [f"compressed MEMORY.md is still over budget "
                                         f"({wb.memory.body_tokens()} > {budget} tokens)"])


def formats_check(path: Path, text: str) -> None:
    """What the gardener renders must parse, or nothing is written."""
    from heartcompass import formats

    try:
        formats.validate(path, text)
    except FormatError as exc:
        raise ProposalError([f"the result would not parse: {exc.message}"]) from None


def _message(slug: str, wb: Workbench, summaries: list[str]) -> tuple[str, str]:
    parts = []
    if wb.counts["events_added"]:
        n = wb.counts["events_added"]
        parts.append(f"{n} new event{'s' if n != 1 else ''}")
    if wb.counts["events_changed"]:
        n = wb.counts["events_changed"]
        parts.append(f"{n} event{'s' if n != 1 else ''} changed")
    if "memory" in wb.touched:
        parts.append("memory updated")
    if "profile" in wb.touched:
        parts.append("profile updated")
    days = sorted(wb.days_read)
    source = (f"from {days[0]} log" if len(days) == 1 else
              f"from {days[0]} and {days[1]} logs" if len(days) == 2 else
              f"from {len(days)} logs, {days[0]} to {days[-1]}" if days else "")
    subject = f"garden({slug}): {', '.join(parts) or 'nothing new'} {source}".strip()
    body = "\n".join(s for s in summaries if s) + "\n\n" + "\n".join(wb.changes)
    return subject, body.strip()


def _with_note(body: str, note: str) -> str:
    return f"{body}\n\n{note}".strip() if note else body


def _body_of(text: str | None) -> str:
    if text is None:
        return ""
    return memory_fmt.render_body(memory_fmt.parse(text, Path(memory_fmt.FILENAME)))


def _snapshot(wb: Workbench):
    """What applying a proposal may change, to put back if it is rejected. Copies
    one level deep where that is all a proposal touches (a section's lines), and
    no event: the list is copied (its references), an event changed in place is
    copied when it changes (wb.event_undo), and wb.changes only grows; so the
    cost does not grow with a long history (a deep copy of one per chunk made a
    backlog quadratic)."""
    import copy

    wb.event_undo = []
    return (copy.deepcopy(wb.profile.doc.meta), wb.profile.doc.body, list(wb.events.events), wb.event_undo,
            {title: list(lines) for title, lines in wb.memory.sections.items()}, len(wb.changes), dict(wb.counts))


def _restore(wb: Workbench, snap) -> None:
    meta, body, events, undo, sections, changes, counts = snap
    for event, before in reversed(undo):  # the events' own fields, as they were
        vars(event).update(vars(before))
    undo.clear()
    (wb.profile.doc.meta, wb.profile.doc.body, wb.events.events, wb.memory.sections, wb.counts) = (
        meta, body, events, sections, counts)
    del wb.changes[changes:]


def diff_text(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}"))


def append_run_log(ws: Workspace, results: list[PersonResult], started: dt.datetime) -> None:
    """One line per person per run in .heartcompass/garden.log (kept locally)."""
    lines = [f"{started.isoformat(timespec='seconds')} {r.slug} {r.status} entries={r.entries} "
             f"+events={r.events_added} ~events={r.events_changed} memory={r.memory_before}->{r.memory_after} "
             f"commit={r.commit[:8] if r.commit else '-'}" + (f" {' '.join(r.message.split())}" if r.message else "")
             for r in results]
    with open(ws.state_dir / "garden.log", "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
