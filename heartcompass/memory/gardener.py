"""The gardener: consolidates new log entries into PROFILE.md, EVENTS.md and
MEMORY.md, one reviewable commit per person. This is the nightly runner (person by person: the new
entries in chunks, the model's answer on each, the files written and committed); what the model is asked
and how its answer is checked and applied is the proposal package (memory/proposal/), which `tell` shares;
which entries are new, and the chunks, is new_entries.py.

Safety, in order of the steps below:
- one gardener at a time; the workspace lock is held only while a person's
  files are read or written, never while the model thinks, and a waiting
  command gets it before the gardener takes it back (garden_turns.py);
- a tell killed before its commit is finished first (store/unfinished.py), as the tell's;
- a journal (garden_journal.py) holds the new texts before any file is written, so a run killed at any
  moment is finished by the next one, and the consolidation state (.heartcompass/consolidated/, see
  consolidation.py) moves with the files it describes, never apart from them;
- pending hand edits of a person with new entries are committed first, as their own commits (an idle run
  starts no git at all); the gardener's commit holds exactly the bytes it wrote (built from them, not from
  the working files), so a hand edit saved meanwhile stays the user's, for its own `edit(...)` commit;
- each line of the model's proposal is judged before anything is written: kept, refused (sent back once,
  then listed in garden.log, see garden_log.py) or asked (a question for the user, memory/questions.py, added
  under the lock once the lines it came with are written; so is a close label recent conflict contradicts,
  contradictions.py); a chunk with every line refused leaves its entries for the next run (on REFUSED_DAYS
  days, then they count as read: garden_log.refused_for_good); an answer that cannot be read fails the
  person, its chunk unconsumed;
- each write checks the file is still what was read: a hand edit made while
  the gardener ran is never overwritten."""

from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from heartcompass.store import audit, clock
from heartcompass.memory.contradictions import contradiction
from heartcompass.atomic import ConcurrentEditError, checksum, file_checksum, write_atomic
from heartcompass.memory.consolidation import State as ConsolidationState, prefix_sum, trailer
from heartcompass.errors import HeartCompassError, MissingKeyError
from heartcompass.formats import dailylog, memory as memory_fmt
from heartcompass.memory.garden_journal import GardenJournal, with_note
from heartcompass.memory.garden_log import leave_questions, refused_for_good
from heartcompass.memory.new_entries import EntryCounts, chunks, new_entries, read_to_end
from heartcompass.memory.hand_lines import HistoryForHands, blob_id, remember_hand_lines
from heartcompass.memory.garden_turns import GardenTurns, NotWritable
from heartcompass.store.people import Person, list_people
from heartcompass.store.unfinished import finish_told, told_unfinished
from heartcompass.memory.proposal import lazy as proposal  # pydantic and all: only once someone has new entries
from heartcompass.store.workspace import Workspace
from heartcompass.wording import counted

if TYPE_CHECKING:
    from heartcompass.memory.proposal.workbench import Workbench

CHECKPOINT_SECONDS = 5.0  # a long backlog is written (journal, files, state) at most this often, and at the end
NOTHING_KEPT = "nothing kept"  # the model read the entries and kept nothing of them: no file changed


@dataclass
class PersonResult:
    slug: str
    status: str = "up to date"  # gardened, nothing kept, dry run, declined, skipped, failed, refused (all, for good)
    entries: int = 0
    events_added: int = 0
    events_changed: int = 0
    memory_before: int = 0
    memory_after: int = 0
    commit: str | None = None
    message: str = ""
    diffs: dict[str, str] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    kept: int = 0  # lines of the proposals applied; refused: {kind, statement, reasons}, shown and in garden.log
    refused: list[dict] = field(default_factory=list)
    corrected: list[dict] = field(default_factory=list)  # refused at first, answered by the correction round
    asked: list[dict] = field(default_factory=list)  # the questions asked (memory/questions.py), as kept


# -- one person ----------------------------------------------------------------------------
class Gardener:
    """One run: for each person, the new entries in chunks, a proposal on
    each applied to the workbench, then the files written and committed."""

    def __init__(self, ws: Workspace, make_model: Callable[[], Any], *, today: dt.date | None = None,
                 dry_run: bool = False, review: Callable[[PersonResult], bool] | None = None,
                 on_start: Callable[[Person], None] = lambda person: None,
                 on_done: Callable[[PersonResult], None] = lambda result: None):
        self.ws = ws
        self.on_start, self.on_done = on_start, on_done  # progress, for whoever shows it
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
        self._history = HistoryForHands(ws)  # read once, for first looks at hand lines
        self._turns = GardenTurns(ws, check=not dry_run)
        self._state_turn = 0  # the lock's turn when the consolidation state was read
        self._pending: set[str] | None = None  # people with hand edits to commit first (once someone is gardened)
        self._listed: list[Person] = []
        self._asked: list = []  # the questions of the person being gardened, asked once committed

    @property
    def model(self):
        if self._model is None:
            self._model = self.make_model()
        return self._model

    def run(self, people: list[Person] | None = None) -> list[PersonResult]:
        self._people = list_people(self.ws)  # once per run, not per person
        people = self._listed = people if people is not None else self._people
        with self._turns:
            if not self.dry_run and told_unfinished(self.ws):  # only then: an idle run starts no git
                self._turns.writable()  # no commit onto a rebase, a merge, a detached HEAD
                finish_told(self.ws)
            results = []
            for person in people:
                self.on_start(person)
                try:
                    self._turns.take()  # a command waiting gets in first
                except HeartCompassError as exc:  # another command (a sync) kept the lock past our wait: stop here
                    results.append(PersonResult(person.slug, "skipped", message=f"{exc.message} It will be retried "
                                                "next run, with everyone after it."))
                    self.on_done(results[-1])
                    break
                if self._turns.turns > 1 and not os.path.lexists(person.profile_path):
                    results.append(PersonResult(person.slug, "skipped", message="renamed or archived while the "
                                                "gardener ran; its entries are read by the next run"))
                else:
                    results.append(self._one(person))
                self.on_done(results[-1])
            self.counts.save()
        return results

    def _one(self, person: Person) -> PersonResult:
        result = PersonResult(person.slug)
        try:
            journal = GardenJournal(self.ws, person)
            if not self.dry_run and os.path.lexists(journal.path):
                self._turns.writable()
                journal.recover()
            return self._garden(person, result)
        except (MissingKeyError, NotWritable):
            raise
        except ConcurrentEditError as exc:
            result.status, result.message = "skipped", f"{exc.message} It will be retried next run."
        except HeartCompassError as exc:  # a ProposalError too
            result.status, result.message = "failed", str(exc)
        if not self.dry_run and result.status in ("failed", "skipped"):
            # chunks already written stay, committed as exactly what was written
            try:
                self._turns.take()
                self._turns.writable()
                result.commit = GardenJournal(self.ws, person).recover(self._written)
            except HeartCompassError as exc:  # e.g. a hook refused: the journal stays, for the next run
                result.message += f" ({exc.message})"
            if result.commit:
                result.message += " The entries gardened before that are committed."
        return result

    def _garden(self, person: Person, result: PersonResult) -> PersonResult:
        days = dailylog.log_dates(person.dir)
        if not days:
            return result  # no logs: no state to read (a missing one is rebuilt from git, three commands)
        state = ConsolidationState(self.ws, person)
        blobs: dict[str, str] = {}  # the logs' blob ids, for the trailer (read to their end, they are named)
        items, logs = new_entries(person, state, self.counts, days, blobs)
        if not items:
            if not self.dry_run:
                state.save()  # a rebuilt or corrected state; nothing else is read
            return result  # nothing new: no model call, no commit (and no git)
        if not self.dry_run:
            self._turns.writable()
            if self._pending is None:  # one `git status` of people/, once someone has new entries
                # (a pathspec per person made git's status quadratic: 11 s of CPU at 10,000 people)
                some = self._listed if len(self._listed) <= 20 else None
                self._pending = {p.slug for p in audit.pending(self.ws, some)}
            if person.slug in self._pending:
                self._history.commit_pending(person)
        heads = self._check_committed(person) if not self.dry_run else None
        workbench, propose = proposal.workbench(), proposal.propose()
        originals, prof, evs, mem = workbench.read_person(person)
        mem.drop_legacy()  # the old map moves to the state (read by it when it had none)
        result.memory_before = result.memory_after = mem.body_tokens()
        result.entries = len(items)
        text = "\n".join(i.entry.text for i in items)
        history = self._history.of(person) if heads is not None else None
        wb = workbench.workbench(self.ws, person, prof, evs, mem, self.today, people=self._people, mentions=text,
                                 names=self._name_index, heads=heads, history=history)
        wb.days_read = set(logs)
        self._state, self._days, self._state_turn, self._read = state, {}, self._turns.turns, (logs, blobs)
        self._turns.release()  # the model may take minutes: others write meanwhile, the checksums guard
        budget = int(self.ws.config.get("memory.context_budget_tokens"))
        summaries: list[str] = []
        batches = chunks(items, budget)
        checkpoint = time.monotonic()
        kept_back, n, gave_up = 0, 0, False
        self._asked = []
        while n < len(batches):
            chunk, n = batches[n], n + 1
            try:
                verdicts = propose.propose(self.ws, self.model, wb, chunk)
            except propose.ChunkTooLong:  # the answer did not fit: each half gets the room
                batches[n - 1:n] = [chunk[:len(chunk) // 2], chunk[len(chunk) // 2:]]
                n -= 1
                continue
            result.kept += verdicts.kept
            result.refused += [r.as_dict() for r in verdicts.refused]
            result.corrected += [r.as_dict() for r in verdicts.answered]
            self._asked += verdicts.asked
            given_up = not self.dry_run and refused_for_good(self.ws, result, chunk, verdicts, self.today)
            gave_up = gave_up or given_up
            if not given_up and not verdicts.consumes:
                kept_back = sum(len(c) for c in batches[n - 1:])  # they wait for the next run
                if not verdicts.everything_refused:  # silence is not "nothing worth keeping"
                    result.message = (f"the model proposed nothing for {counted(kept_back, 'entry', 'entries')} "
                                      "without saying they hold nothing worth keeping; they stay for the next run")
                elif self.dry_run:
                    result.message = "every line the model proposed was refused"
                break
            summaries.append(verdicts.summary.strip())
            propose.fit_budget(self.ws, self.model, wb)
            for day in {i.day for i in chunk}:  # this chunk's entries are now in memory
                later = [i.index for c in batches[n:] for i in c if i.day == day]  # all before: read
                count = min(later) if later else len(logs[day])
                self._days[day] = [count, prefix_sum(logs[day], count)]
            if n < len(batches) and time.monotonic() - checkpoint >= CHECKPOINT_SECONDS:
                self._write(person, wb, originals, result, summaries, final=False)  # progress kept
                checkpoint = time.monotonic()
        if not kept_back:
            for day, entries in logs.items():  # skipped (time-travel) entries count as read
                self._days[day] = [len(entries), prefix_sum(entries, len(entries))]
        if not self.dry_run:  # recent conflict against a close label: asked with the rest
            self._asked += [q for q in [contradiction(self.ws, person, self.today)] if q is not None]
        message = result.message
        self._write(person, wb, originals, result, summaries, final=True)
        if kept_back and result.status in ("gardened", NOTHING_KEPT) and kept_back == len(items):
            result.status = "failed" if result.refused else "skipped"  # nothing consumed: say so, the exit code too
        elif gave_up and result.status == NOTHING_KEPT:
            result.status = "refused"  # read, with nothing kept: the exit code says so too
        result.message = message or result.message
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
                self._history.commit_pending(person, heads)
                return self.ws.git.blob_ids(person.files())
        return heads

    def _name_index(self) -> dict[str, tuple[list[str], list[str]]]:
        """Every person's names and links, read once per run."""
        if self._names is None:
            self._names = proposal.workbench().name_index(self._people, self.ws)
        return self._names

    def _write(self, person: Person, wb: Workbench, originals: dict, result: PersonResult,
               summaries: list[str], final: bool) -> PersonResult:
        texts = proposal.workbench().render_texts(person, wb)
        result.events_added, result.events_changed = wb.counts["events_added"], wb.counts["events_changed"]
        result.memory_after = wb.memory.body_tokens()
        result.changes = list(wb.changes)
        changed = {p: t for p, t in texts.items() if t != originals[p]}
        wb.touched = {name for name, p in (("profile", person.profile_path), ("events", person.events_path))
                      if p in changed}
        if memory_fmt.render_body(wb.memory) != _body_of(originals[person.memory_path]):
            wb.touched.add("memory")
        if not final:
            # A checkpoint (CHECKPOINT_SECONDS apart): what the chunks so far made is written, not
            # committed, so a long backlog makes progress; not when the user is to see everything first.
            if not self.dry_run and self.review is None:
                self._commit_files(person, changed, originals, wb, summaries, commit=False)
                result.asked += leave_questions(self.ws, self._asked, self.today)  # under the write's lock
            return result
        diff_text = proposal.workbench().diff_text
        result.diffs = {self.ws.rel(p): diff_text(originals[p] or "", t, self.ws.rel(p)) for p, t in changed.items()}
        asked = result.asked  # those of the chunks written already; the rest shown, and asked once committed
        result.asked = asked + leave_questions(self.ws, self._asked, self.today, keep=False)
        if self.dry_run:
            result.status = "dry run"
            return result
        if self.review is not None and not self.review(result):
            result.status = "declined"
            return result
        result.commit = self._commit_files(person, changed, originals, wb, summaries, commit=True)
        result.status = "gardened" if changed or result.commit else NOTHING_KEPT
        result.asked = asked + leave_questions(self.ws, self._asked, self.today)  # still under the commit's lock
        return result

    def _commit_files(self, person, changed, originals, wb, summaries, commit: bool) -> str | None:
        subject, body = _message(person.slug, wb, summaries)
        body = with_note(body, trailer(self._days, read_to_end(self._days, *self._read)))  # the state, from git
        journal = GardenJournal(self.ws, person)
        self._turns.take()
        self._turns.writable()
        if self._turns.turns != self._state_turn:  # another command may have moved it while the model ran
            self._state, self._state_turn = ConsolidationState(self.ws, person), self._turns.turns
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
        head = self.ws.git.head()
        sha = self.ws.git.commit_contents(changed, subject, body)
        self._history.moved_by_us(head, sha)
        journal.clear()
        if sha:
            remember_hand_lines(self.ws, person, sha, {p: changed.get(p, originals[p] or "") for p in originals})
        return sha


def _message(slug: str, wb: Workbench, summaries: list[str]) -> tuple[str, str]:
    parts = []
    if wb.counts["events_added"]:
        parts.append(counted(wb.counts["events_added"], "new event"))
    if wb.counts["events_changed"]:
        parts.append(f"{counted(wb.counts['events_changed'], 'event')} changed")
    if "memory" in wb.touched:
        parts.append("memory updated")
    if "profile" in wb.touched:
        parts.append("profile updated")
    days = sorted(wb.days_read)
    source = (f"from {days[0]} log" if len(days) == 1 else
              f"from {days[0]} and {days[1]} logs" if len(days) == 2 else
              f"from {len(days)} logs, {days[0]} to {days[-1]}" if days else "")
    subject = audit.subject(audit.Verb.GARDEN, slug, f"{', '.join(parts) or 'nothing new'} {source}".strip())
    body = "\n".join(s for s in summaries if s) + "\n\n" + "\n".join(wb.changes)
    return subject, body.strip()


def _body_of(text: str | None) -> str:
    return "" if text is None else memory_fmt.render_body(memory_fmt.parse(text, Path(memory_fmt.FILENAME)))
