"""A Yes to one of the gardener's questions (questions.py): the change,
applied to the person's files as they are now, in one commit of its own
(`review(<slug>): ...`) inside the usual write transaction. The user's
pending hand edits of that person are committed first, as theirs.

A Yes re-checks the files: a line to rewrite or remove that is gone, a
field that already has the value, or one the user set otherwise since it
was asked, is said and changes nothing (the question goes). The answer is the user's decision, so it may change what
the gardener never touches (a told, hand-written or Boundaries line); the
line it writes in place of one of those keeps that protection: a told
line's successor is marked (told), any other's (hand). An edited answer
(the user's own value or line) is checked like a hand edit: a relation
from the list, a real birthday, one line; a line the user typed is theirs,
marked (hand)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from heartcompass.errors import HeartCompassError, ReviewError
from heartcompass.memory.questions import Question, Questions
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

FIELDS = ("relation", "gender", "birthday")
SHORT = 40  # characters of a line in a commit subject


class Stale(Exception):
    """The files changed since the question was asked: said, and nothing changes."""


@dataclass
class Answer:
    question: Question
    applied: bool
    message: str          # what happened, for people
    sha: str | None = None


def accept(ws: Workspace, ident: str, now: dt.datetime, edited: str | None = None,
           purpose: str = "review") -> Answer:
    """Apply question `ident` (with the user's own value or line when
    `edited`), commit it, and drop it from the store. A ReviewError (and
    nothing written, the question still waiting) when it cannot be."""
    from heartcompass.memory.review import find
    from heartcompass.store import audit
    from heartcompass.store.slugs import is_safe_slug

    with audit.write_transaction(ws, purpose):
        store = Questions(ws)
        q = find(store, ident)
        if not is_safe_slug(q.person):  # a hand-edited store never leads a write out of people/
            raise ReviewError(f"Question {q.id} names no person's folder ({q.person[:40]!r}).")
        person = Person(q.person, ws.people_dir / q.person)
        if not person.profile_path.is_file():
            store.take(q.id)
            store.save()
            return Answer(q, False, f"people/{q.person}/ is gone (renamed or archived): nothing changed.")
        audit.commit_pending(ws, [person])  # the user's own edits first, as theirs
        answer = _apply(ws, person, q, now, edited)
        store.take(q.id)
        store.save()
        return answer


def _apply(ws: Workspace, person: Person, q: Question, now: dt.datetime, edited: str | None) -> Answer:
    from heartcompass.formats import profile as profile_fmt
    from heartcompass.memory.proposal.workbench import read_person
    from heartcompass.store import unfinished

    if unfinished.garden_journal_path(ws, person.slug).exists():
        raise ReviewError(f"A garden of {person.slug} was interrupted and is not finished yet; nothing changed.",
                          "Run 'heartcompass garden' (it finishes it), then answer again.")
    originals, prof, _evs, _mem = read_person(person)
    if q.kind in ("field", "alias", "link"):
        try:
            what = _profile_change(ws, person, q, prof, now.date(), edited)
        except Stale as gone:
            return Answer(q, False, str(gone))
        texts = {person.profile_path: profile_fmt.render(prof)} if what else {}
    elif q.kind in ("rewrite", "removal"):
        what, texts = _line_change(ws, person, q, originals, edited)
    else:
        raise ReviewError(f"Question {q.id} is of a kind this version does not know ({q.kind[:20]!r}).")
    changed = {p: t for p, t in texts.items() if t != originals.get(p)}
    if not changed:
        return Answer(q, False, what or "Nothing to change: the files already say so.")
    what = what or q.what
    return Answer(q, True, what, _commit(ws, person, q, originals, changed, what, edited))


def _profile_change(ws: Workspace, person: Person, q: Question, prof, today: dt.date,
                    edited: str | None) -> str | None:
    """A field, an alias or a link set in the profile's front matter (the
    rest of the file stays byte for byte); None when it already says so.
    Not apply.py's operations: those turn a change to the user's own line
    into an open thread, and this change is the user's own."""
    from heartcompass.memory.proposal.workbench import norm
    from heartcompass.store.people import list_people

    meta, c = prof.doc.meta, q.change
    if q.kind == "field":
        name = str(c.get("field", ""))
        if name not in FIELDS:
            raise ReviewError(f"Question {q.id} changes {name[:20]!r}, which is not a field review sets.")
        value = check_value(ws, person, name, edited if edited is not None else str(c.get("value", "")), today)
        old = meta.get(name)
        if str(old or "") == value:
            return None
        asked_over = c.get("old")
        if edited is None and "old" in c and str(old or "") != str(asked_over or ""):
            raise Stale(f"{name} is {old or 'not set'} now, not {asked_over or 'unset'} as when asked: "
                        "nothing changed.")
        meta[name] = value
        return f"{name} {old or '-'} → {value}"
    if q.kind == "alias":
        value = check_value(ws, person, "alias", edited if edited is not None else str(c.get("value", "")), today)
        if norm(value) in (norm(str(a)) for a in [prof.name, *prof.aliases]):
            return None
        meta["aliases"] = [*prof.aliases, value]  # (a single alias may be written as a string)
        return f"alias {value}"
    other = str(c.get("person", ""))
    words = _one_line(edited if edited is not None else str(c.get("words", "")), "the link's words")
    if other == person.slug or other not in {p.slug for p in list_people(ws)}:
        raise ReviewError(f"people/{other[:40]}/ is not there any more: the link cannot be made.")
    links = list(meta.get("related") or [])
    mine = next((r for r in links if isinstance(r, dict) and r.get("person") == other), None)
    if mine is not None:
        if str(mine.get("as") or "") == words:
            return None
        mine["as"] = words  # the link stays where it is; its words are what the user said yes to
        return f"link {other} as {words}"
    meta["related"] = [*links, {"person": other, "as": words}]
    return f"link {other} ({words})"


def check_value(ws: Workspace, person: Person, name: str, value: str, today: dt.date) -> str:
    """A value for a field or an alias, checked as a hand edit of PROFILE.md is."""
    from heartcompass.errors import FormatError, PersonError
    from heartcompass.formats import profile as profile_fmt

    value = _one_line(value, name)
    try:
        if name == "relation":
            value = profile_fmt.check_relation(value, "relation")
            if value == "self":
                raise ReviewError("'self' is the user's own person; choose another relation.")
        elif name == "birthday":
            m = re.fullmatch(r"(?:(\d{4})-)?(\d{2})-(\d{2})", value)
            try:
                date = dt.date(int(m.group(1) or 2000), int(m.group(2)), int(m.group(3))) if m else None
            except ValueError:
                date = None
            if m is None or date is None or (m.group(1) and date > today):
                raise ReviewError(f"{value[:40]!r} is not a real birthday.", "Write YYYY-MM-DD or MM-DD, "
                                  "e.g. 1996-04-12 or 04-12.")
        elif name == "alias":
            from heartcompass.memory.proposal.fields import SELF_WORDS
            from heartcompass.store.people import collisions
            from heartcompass.store.slugs import clean_name

            value = clean_name(value)
            if value.casefold() in SELF_WORDS or value.casefold() == str(ws.config.get("user.name") or "").casefold():
                raise ReviewError(f"{value!r} is how you speak of yourself, not a name of {person.slug}.")
            taken = collisions(ws, [value], exclude=person.slug)
            if taken:
                raise ReviewError(f"{taken[0].describe()}; an alias is a name only one person answers to.")
        elif len(value) > 40:
            raise ReviewError(f"A {name} is a word or two (40 characters at most).")
    except (FormatError, PersonError) as exc:
        raise ReviewError(exc.message, exc.hint) from None
    return value


def _one_line(text: str, what: str) -> str:
    from heartcompass.sanitize import strip_controls

    if "\n" in text.strip() or "\r" in text.strip():
        raise ReviewError(f"{what.capitalize()} must be one line.")
    text = " ".join(strip_controls(text).split())
    if not text:
        raise ReviewError(f"{what.capitalize()} is empty.")
    return text


def _line_change(ws, person, q, originals, edited) -> tuple[str, dict[Path, str]]:
    """A rewrite or a removal of one line of MEMORY.md, PROFILE.md or
    EVENTS.md, done on the file's text (every other byte stays put)."""
    c = q.change
    name, section, old = str(c.get("file", "")), str(c.get("section", "")), str(c.get("old", "")).rstrip()
    path = {p.name: p for p in person.files()}.get(name)
    if path is None:
        raise ReviewError(f"Question {q.id} names a file review does not change ({name[:40]!r}).")
    text = originals.get(path)
    lines = (text or "").split("\n")
    at = _find_line(lines, section, old)
    if at is None:
        return f"The line is no longer in {name}{f' ({section})' if section else ''}: nothing changed.", {}
    new = None
    if q.kind == "rewrite" or edited is not None:
        proposed = edited if edited is not None else str(c.get("new", ""))
        new = _successor(old, _one_line(proposed, "the new line"), edited is not None)
        lines[at] = new
        what = f"{section or name}: {_short(old)} → {_short(new)}"
    else:
        del lines[at]
        what = f"{section or name}: removed {_short(old)}"
    return what, {path: "\n".join(lines)}


def _find_line(lines: list[str], section: str, old: str) -> int | None:
    """The index of `old` in `section` (`## section`; the whole file when there is none)."""
    start, end = 0, len(lines)
    if section:
        heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
        mine = next((i for i in heads if lines[i][3:].strip() == section.strip()), None)
        if mine is None:
            return None
        start, end = mine + 1, next((i for i in heads if i > mine), len(lines))
    return next((i for i in range(start, end) if lines[i].rstrip() == old), None)


def _successor(old: str, new: str, typed: bool) -> str:
    """The line written in old's place, attributed so the gardener still
    knows whose it is: what the user told stays told; anything else the
    user said yes to (a hand line's or a Boundaries line's successor) or
    typed is theirs, marked (hand), which the gardener never changes
    unasked. (A review commit is HeartCompass's, so blame alone would not
    say it.)"""
    from heartcompass.formats.sources import without_source
    from heartcompass.memory.proposal.trust import Mark, mark_of

    bullet = "- " if old.startswith("- ") else ""
    body = without_source(new[2:] if new.startswith("- ") else new).strip()
    return f"{bullet}{body} ({'told' if mark_of(old) is Mark.TOLD and not typed else 'hand'})"


def _short(line: str) -> str:
    line = line[2:] if line.startswith("- ") else line
    return line if len(line) <= SHORT else line[:SHORT - 1] + "…"


def _commit(ws: Workspace, person: Person, q: Question, originals: dict[Path, str | None],
            changed: dict[Path, str], what: str, edited: str | None) -> str | None:
    """Each changed file must parse; written against its checksum, committed, or put back."""
    from heartcompass.atomic import checksum, write_atomic
    from heartcompass.memory.hand_lines import remember_hand_lines
    from heartcompass.memory.proposal.workbench import formats_check
    from heartcompass.memory.proposal.model import ProposalError
    from heartcompass.memory.review import quoted
    from heartcompass.store import audit, unfinished

    for path, text in changed.items():
        try:
            formats_check(path, text)
        except ProposalError as exc:
            raise ReviewError(f"Not applied: {'; '.join(exc.problems)}.") from None
    body = "\n".join([f"Your Yes to question {q.id}" + (f", edited: {edited}" if edited is not None else "") + ".",
                      *([f"Asked because: {q.reason}"] if q.reason else []),
                      *(f"Evidence: {quoted(e)}" for e in q.evidence)])
    subject = audit.subject(audit.Verb.REVIEW, person.slug, what)
    # Killed between the write and the commit: the next command that writes commits it as this
    # review (tell's journal, finished by every write transaction), never as the user's hand edit.
    journal = unfinished.tell_journal_path(ws, person.slug)
    unfinished.save(ws, journal, {p: (checksum(o) if (o := originals.get(p)) is not None else None, t)
                                  for p, t in changed.items()}, subject, body)
    try:
        for path, text in changed.items():  # one file: a review changes one line or one field
            old = originals.get(path)
            write_atomic(path, text, expected_checksum=checksum(old) if old is not None else None)
        sha = audit.commit_or_roll_back(ws, list(changed), subject, body, what="the change")
    except HeartCompassError:  # refused and put back (or never written): nothing to finish
        journal.unlink(missing_ok=True)
        raise
    journal.unlink(missing_ok=True)
    if sha:
        texts = {p: changed.get(p, originals.get(p)) for p in person.files()}
        remember_hand_lines(ws, person, sha, {p: t for p, t in texts.items() if t is not None})
    return sha
