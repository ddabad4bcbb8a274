"""The gardener: consolidates new log entries into PROFILE.md, EVENTS.md and
MEMORY.md, one reviewable commit per person.

Safety, in order of the steps below:
- one gardener at a time (a workspace lock; a stale lock is taken over);
- a journal in .heartcompass/garden/ holds the new texts before any file is
  written, so a run killed at any moment is finished by the next one, and
  the consolidation pointers (in MEMORY.md) move with the files they
  describe, never apart from them;
- pending hand edits are committed first, as their own commits;
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from heartcompass import audit, prompts
from heartcompass.atomic import ConcurrentEditError, checksum, file_checksum, write_atomic
from heartcompass.errors import FormatError, HeartCompassError, LLMError, MissingKeyError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.garden_proposal import (Compressed, LogItem, Proposal, ProposalError, Workbench,
                                          apply, apply_compression, present, shown_events)
from heartcompass.llm import ask_structured, structured_invoke
from heartcompass.lock import WorkspaceLock
from heartcompass.people import Person, list_people
from heartcompass.tokens import estimate_tokens
from heartcompass.workspace import Workspace

TOOL_VERBS = {"init", "add", "rename", "archive", "restore", "undo", "config", "chat", "log", "garden",
              "tell", "import", "sync", "coach", "voice"}
SKIPPED_TAGS = ("as-of", "cut off", "told")  # time travel, partial replies, narratives `tell` applied
EVENTS_SHOWN_TOKENS = 800


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
            write_atomic(self.path, json.dumps(self.data))


def new_entries(person: Person, mem: memory_fmt.Memory, counts: EntryCounts) -> tuple[list[LogItem], dict[str, int]]:
    """Entries past each log's consolidation pointer; and each log's full
    count, which becomes the new pointer once they are written."""
    done = mem.consolidated
    items: list[LogItem] = []
    totals: dict[str, int] = {}
    for day in dailylog.log_dates(person.dir):
        path = person.logs_dir / f"{day}.md"
        cached = counts.known(path)
        if cached is not None and cached <= done.get(day, 0):
            continue
        entries = dailylog.load(path)
        counts.remember(path, len(entries))
        if len(entries) <= done.get(day, 0):
            continue
        totals[day] = len(entries)
        for index in range(done.get(day, 0), len(entries)):
            entry = entries[index]
            if not entry.dropped and not any(t.startswith(SKIPPED_TAGS) for t in entry.tags):  # dropped: markers
                items.append(LogItem("", day, entry, index))
    for n, item in enumerate(items, 1):
        item.id = f"L{n}"
    return items, totals


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

    def __init__(self, ws: Workspace, slug: str):
        self.ws = ws
        self.path = ws.state_dir / "garden" / f"{slug}.json"

    def save(self, files: dict[Path, tuple[str | None, str]], subject: str, body: str) -> None:
        data = {"subject": subject, "body": body,
                "files": {self.ws.rel(p): {"old": old, "new": new} for p, (old, new) in files.items()}}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False))

    def recover(self) -> str | None:
        """Finish an interrupted gardening: write what is missing, commit.
        A file changed by hand since is left alone (and so is the rest)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError:
            self.path.unlink()
            return None
        files = {self.ws.root / rel: v for rel, v in data["files"].items()}
        state = {p: file_checksum(p) for p in files}
        if any(state[p] not in (v["old"], checksum(v["new"])) for p, v in files.items()):
            self.path.unlink()
            return None
        for path, v in files.items():
            if state[path] == v["old"]:
                write_atomic(path, v["new"], expected_checksum=v["old"])
        sha = self.ws.git.commit(list(files), data["subject"], data["body"] + "\n\n(finished after an interruption)")
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
        self.today = today or dt.date.today()
        self.dry_run = dry_run
        self.review = review
        self.counts = EntryCounts(ws)
        self._written: dict[Path, str] = {}  # checksums of what this run wrote

    @property
    def model(self):
        if self._model is None:
            self._model = self.make_model()
        return self._model

    def run(self, people: list[Person] | None = None) -> list[PersonResult]:
        people = people if people is not None else list_people(self.ws)
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
                Journal(self.ws, person.slug).recover()
                if has_pending:
                    audit.commit_pending(self.ws, [person])
            return self._garden(person, result)
        except MissingKeyError:
            raise
        except ConcurrentEditError as exc:
            result.status, result.message = "skipped", f"{exc.message} It will be retried next run."
        except (HeartCompassError, ProposalError) as exc:
            result.status, result.message = "failed", str(exc)
        if not self.dry_run and result.status in ("failed", "skipped"):
            result.commit = Journal(self.ws, person.slug).recover()  # chunks already written stay, committed
        return result

    def _garden(self, person: Person, result: PersonResult) -> PersonResult:
        originals, prof, evs, mem = read_person(person)
        items, totals = new_entries(person, mem, self.counts)
        result.memory_before = result.memory_after = mem.body_tokens()
        if not items:
            return result  # nothing new: no model call, no commit
        result.entries = len(items)
        wb = workbench(self.ws, person, prof, evs, mem, self.today)
        wb.days_read = set(totals)
        budget = int(self.ws.config.get("memory.context_budget_tokens"))
        summaries = []
        batches = chunks(items, budget)
        for n, chunk in enumerate(batches, 1):
            proposal = self._propose(wb, chunk)
            summaries.append(proposal.summary.strip())
            self._fit_budget(wb)
            for day in {i.day for i in chunk}:  # this chunk's entries are now in memory
                wb.memory.set_consolidated(day, max(i.index for i in chunk if i.day == day) + 1)
            if n < len(batches):
                self._write(person, wb, originals, result, summaries, final=False)
        for day, total in totals.items():
            wb.memory.set_consolidated(day, total)  # skipped (time-travel) entries count as read
        return self._write(person, wb, originals, result, summaries, final=True)

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
        journal = Journal(self.ws, person.slug)
        current = {p: file_checksum(p) for p in changed}
        for path in changed:  # still what we read? (a hand edit meanwhile wins)
            expected = checksum(originals[path]) if originals[path] is not None else None
            if current[path] != expected and not (self._written.get(path) == current[path]):
                raise ConcurrentEditError(f"{self.ws.rel(path)} was edited while the gardener ran; "
                                          "nothing of this person was written.")
        journal.save({p: (current[p], t) for p, t in changed.items()}, subject, body)
        for path, text in changed.items():
            write_atomic(path, text, expected_checksum=current[path])
            self._written[path] = checksum(text)
        if not commit:
            return None
        sha = self.ws.git.commit(list(person.files()), subject, body)
        journal.clear()
        return sha


def read_person(person: Person):
    """(original texts by path, profile, events, memory) as on disk now."""
    originals = {p: (p.read_text(encoding="utf-8") if p.exists() else None) for p in person.files()}
    prof = profile_fmt.parse(originals[person.profile_path], person.profile_path)
    evs = (events_fmt.parse(originals[person.events_path], person.events_path)
           if originals[person.events_path] is not None else events_fmt.new(person.events_path, prof.name))
    mem = (memory_fmt.parse(originals[person.memory_path], person.memory_path)
           if originals[person.memory_path] is not None else memory_fmt.new(person.memory_path, prof.name))
    return originals, prof, evs, mem


def workbench(ws: Workspace, person: Person, prof, evs, mem, today: dt.date) -> Workbench:
    """The files in memory, with the lines whose last change was the user's
    (git blame) marked as theirs."""
    protected = {text for path in person.files() for subject, text in ws.git.blame(path)
                 if is_hand_subject(subject) and text.strip() not in ("", "---")}
    return Workbench(person.slug, prof, evs, mem, protected, {p.slug for p in list_people(ws)}, today)


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
            raw = ask_structured(model, Proposal, messages)
            if isinstance(raw, Exception):
                raise raw
            proposal = raw if isinstance(raw, Proposal) else Proposal.model_validate(raw)
            snapshot = _snapshot(wb)
            try:
                apply(wb, proposal, chunk, shown)
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
        result = structured_invoke(model, Compressed, messages)
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


def _body_of(text: str | None) -> str:
    if text is None:
        return ""
    return memory_fmt.render_body(memory_fmt.parse(text, Path(memory_fmt.FILENAME)))


def _snapshot(wb: Workbench):
    import copy

    return copy.deepcopy((wb.profile.doc.meta, wb.profile.doc.body, wb.events.events, wb.memory.sections,
                          wb.changes, wb.counts))


def _restore(wb: Workbench, snap) -> None:
    (wb.profile.doc.meta, wb.profile.doc.body, wb.events.events, wb.memory.sections,
     wb.changes, wb.counts) = snap


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
