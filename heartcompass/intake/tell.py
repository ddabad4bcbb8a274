"""tell: the user adds knowledge by narrative ("she moved to Berlin") or by
chat screenshots. The gardener's proposal machinery reads it as one trusted
note entry; the result is shown as a diff and written only when confirmed.

The narrative is appended to the person's log as a `note` before any model
is called, so a failed call or a crash loses nothing. What happens next is
recorded with an append-only marker (formats/dailylog.py): `applied` when
the proposal was written (the gardener must not apply it twice), `discards`
when the user chose to drop it; with no marker (declined but kept, or the
model unreachable) the gardener learns from it at its next run."""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, Field, field_validator

from heartcompass.atomic import checksum, write_atomic
from heartcompass.errors import HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.formats.profile import RELATIONS
from heartcompass.llm.providers import structured_invoke
from heartcompass.messages import names_in
from heartcompass.store.people import Person, list_people
from heartcompass.memory.proposal.propose import fit_budget, propose
from heartcompass.memory.proposal.workbench import LogItem, diff_text, read_person, render_texts, workbench
from heartcompass.store.workspace import Workspace

IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF87a": "image/gif",
               b"GIF89a": "image/gif"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
OFFERED = tuple(r for r in RELATIONS if r != "self")  # someone a narrative names is never the narrator


class NewPerson(BaseModel):
    name: str = Field(description="the name as written")
    relation: str = Field(description=", ".join(OFFERED[:-1]) + " or " + OFFERED[-1],
                          json_schema_extra={"enum": list(OFFERED)})
    about: str = Field(description="one line about them, from the narrative")

    @field_validator("relation")
    @classmethod
    def _not_self(cls, value: str) -> str:
        """Someone the narrative names is not the user: 'self' (or no relation we know) is offered as friend."""
        return value if value in RELATIONS and value != "self" else "friend"

    @field_validator("about")
    @classmethod
    def _one_line(cls, value: str) -> str:
        """The model's line about them lands in PROFILE.md: one line by every definition, no marker."""
        from heartcompass.memory.proposal.evidence import one_line

        return one_line(value)


class Mentions(BaseModel):
    """People the narrative mentions who are not in the known list."""
    people: list[NewPerson] = Field(default_factory=list, json_schema_extra={"maxItems": 10})


@dataclass
class PersonPlan:
    person: Person
    name: str
    originals: dict[Path, str | None]
    texts: dict[Path, str]
    diffs: dict[str, str]
    changes: list[str]
    summary: str
    refused: list[dict] = field(default_factory=list)  # the proposal's lines the checks refused, with why


@dataclass
class TellPlan:
    person: Person
    narrative: str
    now: dt.datetime
    plans: list[PersonPlan] = field(default_factory=list)
    unknown: list[NewPerson] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        return any(p.diffs for p in self.plans)

    def refused_lines(self) -> list[str]:
        """Each refused line, for people: whose, the statement, why (the good lines are kept without them)."""
        from heartcompass.memory.garden_log import refused_line

        return [f"{p.person.slug}: {refused_line(r)}" for p in self.plans for r in p.refused]


def image_url(path: Path) -> str:
    """A data URL for a screenshot, or a clear error."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise HeartCompassError(f"Cannot read the image {path}: {exc.strerror or exc}.") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise HeartCompassError(f"{path} is {len(data) // (1024 * 1024)} MB; images go up to 20 MB.")
    kind = next((t for magic, t in IMAGE_TYPES.items() if data.startswith(magic)), None)
    if kind is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind = "image/webp"
    if kind is None:
        raise HeartCompassError(f"{path} is not a PNG, JPEG, GIF or WebP image.",
                                "Take the screenshot as PNG or JPEG.")
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def mentioned(ws: Workspace, person: Person, narrative: str) -> list[Person]:
    """The person, then any other known person named in the narrative."""
    from heartcompass.store.people_index import for_workspace

    out = [person]
    text = narrative.casefold()
    people = list_people(ws)
    facts = for_workspace(ws).profiles(people)  # cached: not every profile parsed before the request
    for other in people:
        if other.slug == person.slug:
            continue
        prof = facts[other.slug]
        if prof.error:
            continue
        if prof.relation == "self":
            continue  # the narrator: "me" in a narrative is not a mention
        names = prof.names()
        if any(names_in(n, text) for n in (name.casefold().strip() for name in names) if len(n) >= 2):
            out.append(other)
    return out


@dataclass
class Note:
    """Where the narrative was logged."""
    person: Person
    path: Path
    day: dt.date
    position: int   # 0-based, in the day's log
    text: str


def log_note(person: Person, narrative: str, now: dt.datetime) -> Note:
    """Append the narrative to today's log, before anything else happens."""
    day = now.date()
    path = dailylog.log_path(person.dir, day)
    text = narrative or "(screenshots)"
    position = dailylog.append(path, dailylog.Entry(now.strftime("%H:%M:%S"), "note", text), day)
    return Note(person, path, day, position, text)


def _mark(note: Note, verb: str, why: str, now: dt.datetime) -> None:
    dailylog.append(note.path, dailylog.marker(now.strftime("%H:%M:%S"), verb, [note.position], why), note.day)


def plan(ws: Workspace, model: Any, person: Person, narrative: str, now: dt.datetime,
         images: Sequence[str] = ()) -> TellPlan:
    entry = dailylog.Entry(now.strftime("%H:%M:%S"), "note", narrative or "(screenshots)")
    items = [LogItem("L1", now.date().isoformat(), entry, 0)]
    result = TellPlan(person, narrative, now)
    for who in mentioned(ws, person, narrative):
        originals, prof, evs, mem = read_person(who)
        wb = workbench(ws, who, prof, evs, mem, now.date())
        # the user confirms the diff: what would be asked in a garden is shown in it, applied on their yes
        verdicts = propose(ws, model, wb, items, list(images), asking=False)
        fit_budget(ws, model, wb)
        texts = render_texts(who, wb)
        changed = {p: t for p, t in texts.items() if t != originals[p]}
        result.plans.append(PersonPlan(who, prof.name, originals, changed,
                                       {ws.rel(p): diff_text(originals[p] or "", t, ws.rel(p)) for p, t in changed.items()},
                                       list(wb.changes), verdicts.summary.strip(), [r.as_dict() for r in verdicts.refused]))
    result.unknown = _unknown_people(ws, model, narrative)
    return result


def _unknown_people(ws: Workspace, model: Any, narrative: str) -> list[NewPerson]:
    if not narrative.strip():
        return []
    from langchain_core.messages import HumanMessage, SystemMessage

    from heartcompass.store.people_index import for_workspace

    known = []
    for slug, facts in for_workspace(ws).profiles(list_people(ws)).items():
        known += [slug] if facts.error else facts.names()
    try:
        found = structured_invoke(model, Mentions, [
            SystemMessage(content="List the people this narrative mentions by name who are not in the known list "
                                  "(and are not the narrator). Known: " + ", ".join(known)),
            HumanMessage(content=narrative)], ws=ws, max_tokens=512)  # a Mentions, validated there
    except Exception:  # a nicety: never a reason to fail the tell
        return []
    names = {n.casefold() for n in known} | _PRONOUNS
    return [p for p in found.people if p.name.strip() and p.name.strip().casefold() not in names]


# A weak model lists "She" (meaning the person told about) as someone new: a pronoun is nobody.
_PRONOUNS = {"i", "me", "you", "he", "him", "she", "her", "it", "we", "us", "they", "them",
             "我", "你", "您", "他", "她", "它", "我们", "你们", "他们", "她们", "咱们"}


def apply_plan(ws: Workspace, plan: TellPlan, note: Note, now: dt.datetime, purpose: str = "tell") -> str | None:
    """Write every file of the plan (refusing any edited meanwhile), mark the
    logged narrative as applied, and make one commit: one write transaction.
    A journal (store/unfinished.py) holds the texts before the first write: a
    tell killed before its commit is finished by the next command that writes,
    as a tell, never as the user's hand edit."""
    from heartcompass.store import audit

    with audit.write_transaction(ws, purpose):
        return _apply(ws, plan, note, now)


def _apply(ws: Workspace, plan: TellPlan, note: Note, now: dt.datetime) -> str | None:
    from heartcompass.store import audit, unfinished
    from heartcompass.atomic import ConcurrentEditError, file_checksum

    # Hand edits are the user's own commits, never mixed into ours (the phone's /tell commits
    # none before); the told person's own log holds the uncommitted note: it goes into this commit.
    others = [p.person for p in plan.plans if p.person.slug != note.person.slug]
    audit.commit_pending(ws, others)  # none: no one's
    audit.commit_pending(ws, [note.person], hand_edits_only=True)
    for p in plan.plans:
        if unfinished.garden_journal_path(ws, p.person.slug).exists():  # its files are the garden's, not yet committed
            raise HeartCompassError(f"A garden of {p.person.slug} was interrupted and is not finished yet; "
                                    "nothing written.", "Run 'heartcompass garden' (it finishes it), then the tell again.")
        for path, old in p.originals.items():
            if path in p.texts and file_checksum(path) != (checksum(old) if old is not None else None):
                raise ConcurrentEditError(f"{ws.rel(path)} changed since the proposal was made; nothing written.",
                                          "Run the tell again.")
    also = [p.person.slug for p in plan.plans[1:] if p.texts]
    summary = plan.plans[0].summary if plan.plans else "noted"
    subject = audit.subject(audit.Verb.TELL, plan.person.slug,
                            summary[:60] + (f" (also {', '.join(also)})" if also else ""))
    body = f"Told: {plan.narrative}\n\n" + "\n".join(f"{p.person.slug}: {c}" for p in plan.plans for c in p.changes)
    journal = unfinished.tell_journal_path(ws, note.person.slug)
    unfinished.save(ws, journal, {path: (_checksum_of(p.originals[path]), text)
                                  for p in plan.plans for path, text in p.texts.items()}, subject, body,
                   keep=[note.path])
    _mark(note, "applied", "tell applied it to the files", now)
    done: list[tuple[Path, str | None, str]] = []
    try:
        for p in plan.plans:
            for path, text in p.texts.items():
                old = p.originals[path]
                write_atomic(path, text, expected_checksum=checksum(old) if old is not None else None)
                done.append((path, old, text))
    except HeartCompassError:  # a hand save in the instant before a write: the others go back
        for path, old, text in done:
            _put_back(path, old, text)
        journal.unlink(missing_ok=True)
        log_note(note.person, note.text, now)  # the note is marked applied: logged again, unmarked
        raise
    touched = [note.path, *(path for p in plan.plans for path in p.texts)]
    try:
        sha = audit.commit_or_roll_back(ws, touched[1:], subject, body, keep=[note.path], what="the proposed changes")
    except HeartCompassError:
        journal.unlink(missing_ok=True)  # the files went back
        # ...but the note is marked applied: log it again, unmarked, for the gardener.
        log_note(note.person, note.text, now)
        raise
    journal.unlink(missing_ok=True)
    return sha


def _checksum_of(text: str | None) -> str | None:
    return checksum(text) if text is not None else None


def _put_back(path: Path, old: str | None, written: str) -> None:
    """A file of the plan as it was, unless edited by hand since our write (then it is the user's)."""
    from heartcompass.atomic import ConcurrentEditError, file_checksum

    try:
        if old is not None:
            write_atomic(path, old, expected_checksum=checksum(written))
        elif file_checksum(path) == checksum(written):
            path.unlink()
    except ConcurrentEditError:
        pass


def keep_note(ws: Workspace, note: Note, why: str = "proposal declined", purpose: str = "tell") -> str | None:
    """Not applied: the note stays in the log, unmarked, for the gardener."""
    from heartcompass.store import audit

    with audit.write_transaction(ws, purpose):
        return audit.commit_or_roll_back(ws, [], audit.subject(audit.Verb.TELL, note.person.slug, f"noted, {why}"),
                                         f"Told: {note.text}", keep=[note.path])


def discard_note(ws: Workspace, note: Note, now: dt.datetime, purpose: str = "tell") -> str | None:
    """The user dropped it: a marker tells the gardener to skip the note."""
    from heartcompass.store import audit

    with audit.write_transaction(ws, purpose):
        _mark(note, "discards", "tell declined; not for the gardener", now)
        return audit.commit_or_roll_back(ws, [], audit.subject(audit.Verb.TELL, note.person.slug, "discarded"),
                                         f"Discarded: {note.text}", keep=[note.path])
