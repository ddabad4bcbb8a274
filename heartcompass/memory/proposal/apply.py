"""Applying a proposal: each statement is judged on its own (ids known, evidence
checked, see evidence.py) and kept, refused with its reasons or asked (verdicts.py);
the kept ones are applied to the workbench by the operations below; nothing here
writes files. What changes who someone is (a relation, gender, birthday, alias,
link; a rewrite or removal of a told, hand-written or Boundaries line; a profile
line removed) becomes a question (asking.py). Without asking (`tell`, whose diff the
user confirms), a change to a line the user wrote by hand becomes an open thread that
quotes both, and a removal of what the user told one that asks (compression.py: a compression)."""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Sequence

from heartcompass.formats import events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.formats.sources import without_source
from heartcompass.memory.proposal.asking import (field_asked, field_question, holds, link_question, removal_asked,
                                                 removal_question, rewrite_question, told, whose)
from heartcompass.memory.proposal.evidence import Checker, reported
from heartcompass.memory.proposal.fields import check_field, check_link_words
from heartcompass.memory.proposal.limits import over_limits
from heartcompass.memory.proposal.model import CITES, CITES_NEW, Proposal, ProposalError, said_nothing
from heartcompass.memory.proposal.verdicts import Judge, Verdicts
from heartcompass.memory.proposal.workbench import SECTION_IDS, LogItem, Workbench, events_index, norm


def apply(wb: Workbench, proposal: Proposal, items: list[LogItem], events_shown: list[events_fmt.Event],
          visual: bool = False, asking: bool = True) -> Verdicts:
    """Judge each statement on its own (one bad line never sinks the good
    ones) and apply the kept ones. asking: what changes who someone is becomes
    a Question (the gardener; `tell`'s diff is confirmed by the user). Raises
    ProposalError (changing nothing) only when the whole is over the schema's
    limits. visual: the entries came with screenshots, whose words the text
    does not hold."""
    too_many = over_limits(proposal)  # before any work: 20,000 facts are refused, not matched
    if too_many:
        raise ProposalError(too_many)
    ck = Checker(wb, items)
    ck.visual = visual
    verdicts = Verdicts(said_nothing=said_nothing(proposal))
    j = Judge(ck, verdicts)
    newest = f"log {max(i.day for i in items)}" if items else "log"
    event_ids = {f"E{i + 1}": e for i, e in enumerate(events_shown)}
    mem_ids = {f"{p}{i + 1}": (title, line) for p, title in SECTION_IDS
               for i, line in enumerate(wb.memory.items(title))}
    note_ids = {f"P{i + 1}": note for i, note in enumerate(wb.profile.notes())}
    ck.lines = {**{k: line for k, (_, line) in mem_ids.items()}, **{k: line for k, (_, line) in note_ids.items()}}

    def known(kind: str, ident: str, table: dict):
        if ident.strip() not in table:
            ck.problems.append(f"{kind} {ident!r}: no such id")
            return None
        return table[ident.strip()]

    for n, ev in enumerate(proposal.new_events, 1):
        what, start = f"new event {n}", j.start()
        when, text = ck.date(what, ev.date), ck.text(what, ev.text)
        weight, source = ck.weight(what, ev.weight), ck.evidence(what, ev.evidence, "trusted", text)
        if j.passes(start, "new_events", ev, when and weight is not None and source):
            j.keep(lambda d=when, t=text, w=weight, s=source: _add_event(wb, d[0], t, w, s, *d[1:]))
    for ch in proposal.changed_events:
        start = j.start()
        event = known("event", ch.id, event_ids)
        weight = ck.weight(f"event {ch.id}", ch.weight)
        new_text = ck.text(f"event {ch.id}", ch.text) if ch.text else None
        source = ck.evidence(f"event {ch.id}", ch.evidence, "trusted", new_text) if (new_text or ch.evidence) else None
        ck.says_the_change(f"event {ch.id}", event and ("", event.text), new_text if source else None)
        if event is not None and weight is None and not new_text:
            ck.problems.append(f"event {ch.id}: neither a new weight nor a corrected text")
        if not j.passes(start, "changed_events", ch, event is not None):
            continue
        why = whose(wb, event.render()) if asking and new_text else ""
        if why:
            new = events_fmt.Event(event.date, new_text or event.text, event.weight if weight is None else weight,
                                   source or event.source, event.month_only, event.approx).render()
            j.ask(rewrite_question(wb, "EVENTS.md", "", event.render(), new, list(ck.found), why))
        else:
            j.keep(lambda e=event, w=weight, t=new_text, s=source: _change_event(wb, e, w, t, s))
    for ident in proposal.removed_events:
        start = j.start()
        event = known("event", ident, event_ids)
        if not j.passes(start, "removed_events", ident, event is not None):
            continue
        why = whose(wb, event.render()) if asking else ""
        if why:
            j.ask(removal_question(wb, "EVENTS.md", "", event.render(), why))
        else:
            j.keep(lambda e=event: _remove_event(wb, e, newest))
    for key, title, need in (("facts", memory_fmt.FACTS, "trusted"), ("chat_notes", memory_fmt.CHATS, "persona"),
                             ("threads", memory_fmt.THREADS, "any"), ("about_user", memory_fmt.ABOUT_ME, "user")):
        own_person = key == "about_user" and wb.profile.relation == "self"
        cite = CITES[key]
        carried: dict[str, list[str]] = {}  # a line's id -> the statements of this section that cite it
        for n, line in enumerate(getattr(proposal, f"new_{key}"), 1):
            start, what = j.start(), f"new {'line about the user' if key == 'about_user' else key[:-1].replace('_', ' ')} {n}"
            if own_person:
                ck.problems.append("new_about_user: this is the user's own person, whose facts are all about the "
                                   "user: put them in new_facts")
            text = ck.text(what, line.text)
            source = ck.evidence(what, line.evidence, need, text, CITES_NEW[key])
            if key == "threads":
                text = memory_fmt.with_until(text, ck.until(what, line.until))
            if not j.passes(start, f"new_{key}", line, source):
                continue
            if key == "threads" and not all(i.entry.trusted for i in ck.found):
                # what the persona raised is not the user's to follow up as true: it is a chat note
                j.keep(lambda x=text, s=source: _add_line(wb, memory_fmt.CHATS, f"- {x} ({s})"))
            else:
                x = reported(text, ck.found) if key == "facts" else text
                j.keep(lambda t=title, x=x, s=source: _add_line(wb, t, f"- {x} ({s})"))
                _carry(carried, mem_ids, title, line.evidence, x)
        for rw in getattr(proposal, f"rewritten_{key}", []):
            start = j.start()
            target = known(key, rw.id, mem_ids)
            text = ck.text(f"{key} {rw.id}", rw.text)
            source = ck.evidence(f"{key} {rw.id}", rw.evidence, need, text, cite, target)  # target: what changes
            text = reported(text, ck.found) if key == "facts" and source else text
            if key == "threads":  # a rewrite that gives no end keeps the line's own
                kept = memory_fmt.UNTIL.search(target[1]) if target and rw.until is None else None
                text = memory_fmt.with_until(text, kept.group(1) if kept else ck.until(f"{key} {rw.id}", rw.until))
            if target and target[0] != title:
                ck.problems.append(f"{rw.id} is not in {title}")
            if not j.passes(start, f"rewritten_{key}", rw, target and source):
                continue
            why = whose(wb, target[1]) if asking else ""
            if why:
                j.ask(rewrite_question(wb, "MEMORY.md", title, target[1], f"- {text} ({source})", list(ck.found), why))
            else:
                j.keep(lambda tg=target, x=text, s=source: _rewrite_line(wb, tg[0], tg[1], f"- {x} ({s})", s))
                _carry(carried, mem_ids, title, rw.evidence, text)
        removed = proposal.closed_threads if key == "threads" else getattr(proposal, f"removed_{key}")
        for ident in removed:
            start = j.start()
            target = known(key, ident, mem_ids)
            if target and target[0] != title:
                ck.problems.append(f"{ident} is not in {title}")
            if not j.passes(start, "closed_threads" if key == "threads" else f"removed_{key}", ident, target):
                continue
            merged = carried.get(ident.strip(), [])
            why = removal_asked(wb, title, target[1], merged) if asking else ""
            if why:
                j.ask(removal_question(wb, "MEMORY.md", title, target[1], why))
            else:
                j.keep(lambda tg=target, m=merged: _remove_line(wb, tg[0], tg[1], newest, m))
    for fc in proposal.profile_fields:
        what, start = f"profile field {fc.field}", j.start()
        source = ck.evidence(what, fc.evidence, "trusted")
        found = list(ck.found)
        value = check_field(ck, fc.field, fc.value, found if source else None)
        if not j.passes(start, "profile_fields", fc, source and value is not None):
            continue
        if asking and field_asked(wb, fc.field, value):
            j.ask(field_question(wb, fc.field, value, found))
        else:
            j.keep(lambda f=fc.field, v=value: _set_field(wb, f, v))
    for note in proposal.profile_notes:
        what, start = f"profile note for {note.section}", j.start()
        text = ck.text(what, note.text)
        source = ck.evidence(what, note.evidence, "trusted", text, CITES_NEW["profile_notes"])
        if note.section not in (*profile_fmt.BODY_SECTIONS, *wb.profile.sections()):
            ck.problems.append(f"{what}: unknown section (use {', '.join(profile_fmt.BODY_SECTIONS)})")
        if j.passes(start, "profile_notes", note, source):
            j.keep(lambda sec=note.section, x=text, s=source: _add_profile_note(wb, sec, f"- {x} ({s})"))
    for rw in proposal.rewritten_profile_notes:
        start = j.start()
        target = known("profile note", rw.id, note_ids)
        text = ck.text(f"profile note {rw.id}", rw.text)
        source = ck.evidence(f"profile note {rw.id}", rw.evidence, "trusted", text, CITES["profile_notes"], target)
        if not j.passes(start, "rewritten_profile_notes", rw, target and source):
            continue
        why = whose(wb, target[1], target[0]) if asking else ""
        if why:
            j.ask(rewrite_question(wb, "PROFILE.md", target[0], target[1], f"- {text} ({source})", list(ck.found),
                                   why))
        else:
            j.keep(lambda tg=target, x=text, s=source: _rewrite_profile_note(wb, tg[0], tg[1], f"- {x} ({s})", s))
    for removal in proposal.removed_profile_notes:
        start = j.start()
        target = known("profile note", removal.id, note_ids)
        ck.removal(f"profile note {removal.id}", removal.evidence, target)  # on entries that speak of the line
        if not j.passes(start, "removed_profile_notes", removal, target):
            continue
        if asking:
            why = whose(wb, target[1], target[0]) or "a profile line says who someone is"
            j.ask(removal_question(wb, "PROFILE.md", target[0], target[1], why))
        else:
            j.keep(lambda tg=target: _rewrite_profile_note(wb, tg[0], tg[1], None, None))
    for link in proposal.new_links:
        what, start = f"link to {link.person}", j.start()
        if link.person not in wb.known_slugs or link.person == wb.slug:
            ck.problems.append(f"{what}: not a known person's slug")
        source = ck.evidence(what, link.evidence, "trusted")
        found = list(ck.found)
        words = check_link_words(ck, what, link.relation_words, found if source else None, link.person)
        if not j.passes(start, "new_links", link, source and words):
            continue
        if asking:
            j.ask(link_question(wb, link.person, words, found))
        else:
            j.keep(lambda p=link.person, w=words: _add_link(wb, p, w))
    start = j.start()  # the summary is no statement: unfit, it is left out of the commit's message
    summary = ck.text("summary", proposal.summary)
    verdicts.summary = "" if ck.problems[start:] else summary
    for op in j.ops:
        op()
    return verdicts


def close_past_threads(wb: Workbench, now: dt.date) -> None:
    """Open threads whose time has passed by `now` (the newest day the
    entries reached) are closed: the model was shown them as past, to keep
    what matters as a fact first. The user's own lines stay (the prompt no
    longer shows them once past)."""
    for line in wb.memory.items(memory_fmt.THREADS):
        if memory_fmt.is_past(line, now) and not wb.is_protected(line):
            wb.memory.sections[memory_fmt.THREADS].remove(line)
            wb.changes.append(f"✓ past {memory_fmt.THREADS}: {line[2:]}")


# -- the operations ------------------------------------------------------------------
def _add_event(wb: Workbench, date: dt.date, text: str, weight: float, source: str, month_only: bool = False,
               approx: bool = False) -> None:
    idx = events_index(wb)
    if idx is not None:
        existing = idx.first_same(date, text)
    else:
        existing = next((e for e in wb.events.events if e.date == date and norm(e.text) == norm(text)), None)
    if existing is not None:  # the same event twice is one event, weighted up
        if weight > existing.effective_weight and not wb.is_protected(existing.render()):
            _change_event(wb, existing, weight, None, None)
        return
    event = events_fmt.Event(date, text, weight, source, month_only, approx)
    wb.events.events.append(event)
    if idx is not None:
        idx.added(event)
    wb.counts["events_added"] += 1
    wb.changes.append(f"+ event {event.when} · w{weight} · {text} ({source})")


def _change_event(wb: Workbench, event: events_fmt.Event, weight, text, source) -> None:
    line = event.render()
    if wb.is_protected(line):
        if text:
            _thread_for_hand_line(wb, line, text, source or "log")
        return
    idx, before = events_index(wb), copy.copy(event)
    if wb.event_undo is not None:  # put back in place if the proposal is rejected (workbench.restore)
        wb.event_undo.append((event, before))
    if idx is not None and not idx.holds(event):  # not (or no longer) in the list: rebuilt when next asked
        idx = wb.event_index = None
    if weight is not None:
        event.weight = weight
    if text:
        event.text, event.source = text, source or event.source
    if idx is not None:
        idx.changed(event, before)
    if event.render() != line:
        wb.counts["events_changed"] += 1
        wb.changes.append(f"~ event {line[2:]} -> {event.render()[2:]}")


def _remove_event(wb: Workbench, event: events_fmt.Event, source: str = "log") -> None:
    if wb.is_protected(event.render()) or told(event.render()):  # the user's own line stays, and we ask
        _thread_for_removal(wb, f"- {event.text}", source, "wrote" if wb.is_protected(event.render()) else "told me")
        return
    idx = events_index(wb)
    before = len(wb.events.events)
    wb.events.events = [e for e in wb.events.events if e is not event]
    if idx is not None and idx.holds(event) and len(wb.events.events) == before - 1:
        idx.removed(event, wb.events.events)
    else:
        wb.event_index = None
    wb.counts["events_changed"] += 1
    wb.changes.append(f"- event {event.render()[2:]}")


def _add_line(wb: Workbench, title: str, line: str) -> None:
    lines = memory_fmt.ensure_section(wb.memory, title)
    if norm(line) not in (norm(x) for x in lines):
        lines.append(line)
        wb.changes.append(f"+ {title}: {line[2:]}")


def _rewrite_line(wb: Workbench, title: str, old: str, new: str, source: str) -> None:
    if wb.is_protected(old):
        _thread_for_hand_line(wb, old, new[2:], source)
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines[lines.index(old)] = new
        wb.changes.append(f"~ {title}: {old[2:]} -> {new[2:]}")


def _carry(carried: dict[str, list[str]], mem_ids: dict, title: str, evidence: list[str], text: str) -> None:
    for ident in evidence:
        if mem_ids.get(ident.strip(), ("",))[0] == title:
            carried.setdefault(ident.strip(), []).append(text)


def _remove_line(wb: Workbench, title: str, old: str, source: str = "log", merged: Sequence[str] = ()) -> None:
    """merged: the statements of this proposal that cite the line; a told line
    one of them carries in substance was merged into it, and goes."""
    carried = told(old) and any(holds(x, old) for x in merged)
    if title != memory_fmt.THREADS and (wb.is_protected(old) or (told(old) and not carried)):
        _thread_for_removal(wb, old, source, "wrote" if wb.is_protected(old) else "told me")
        return
    if wb.is_protected(old):
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines.remove(old)
        wb.changes.append(f"{'✓ closed' if title == memory_fmt.THREADS else '-'} {title}: {old[2:]}")


def _thread_for_hand_line(wb: Workbench, hand_line: str, suggestion: str, source: str) -> None:
    """The user's line wins; the disagreement becomes an open thread."""
    wrote = without_source(hand_line[2:].strip())
    suggestion = without_source(suggestion.strip())
    src = source if source.startswith("log ") else "log"
    _add_line(wb, memory_fmt.THREADS, f'- You wrote "{wrote}", but the chats suggest "{suggestion}" ({src})')


def _thread_for_removal(wb: Workbench, line: str, source: str, how: str) -> None:
    """A removal of what the user told or wrote has no evidence of its own:
    the line stays, and an open thread asks whether it still holds."""
    said = without_source(line[2:].strip())
    _add_line(wb, memory_fmt.THREADS, f'- You {how} "{said}"; does it still hold? ({source})')


def _set_field(wb: Workbench, name: str, value: str) -> None:
    meta = wb.profile.doc.meta
    if name in ("alias", "tag"):
        key = "aliases" if name == "alias" else "tags"
        current = list(meta.get(key) or [])
        if norm(value) not in (norm(str(x)) for x in current):
            meta[key] = [*current, value]
            wb.changes.append(f"+ profile {key}: {value}")
        return
    if meta.get(name) != value:
        old = meta.get(name)
        raw_line = next((line for line in wb.profile.doc.raw_meta.splitlines()
                         if re.match(rf"{name}\s*:", line)), None)
        if raw_line is not None and wb.is_protected(raw_line):
            _thread_for_hand_line(wb, f"- {raw_line.strip()}", f"{name}: {value}", "log")
            return
        meta[name] = value
        wb.changes.append(f"~ profile {name}: {old} -> {value}")


def _add_profile_note(wb: Workbench, section: str, line: str) -> None:
    """Append a line to one body section; every other byte stays put."""
    body = wb.profile.doc.body
    if norm(line) in norm(body):
        return
    m = re.search(rf"(?m)^## {re.escape(section)}[ \t]*$", body)
    if not m:
        body = body.rstrip("\n") + f"\n\n## {section}\n\n{line}\n"
    else:
        nxt = re.search(r"(?m)^## ", body[m.end():])
        end = m.end() + nxt.start() if nxt else len(body)
        content = body[m.end():end]
        kept = content.rstrip("\n")
        trailing = content[len(kept):] or "\n"
        sep = "\n" if kept.strip() else "\n\n"
        body = body[:m.end()] + kept + sep + line + trailing + body[end:]
    wb.profile.doc.body = body
    wb.changes.append(f"+ profile {section}: {line[2:]}")


def _rewrite_profile_note(wb: Workbench, section: str, old: str, new: str | None, source: str | None) -> None:
    """Replace (or, new None, remove) one line of a PROFILE.md section; every
    other byte stays put. The user's own line stays: a rewrite of it becomes
    an open thread."""
    if wb.is_protected(old):
        if new:
            _thread_for_hand_line(wb, f"- {old.lstrip('- ')}", new[2:], source or "log")
        return
    body = wb.profile.doc.body
    m = re.search(rf"(?m)^## {re.escape(section)}[ \t]*$", body)
    if not m:
        return
    nxt = re.search(r"(?m)^## ", body[m.end():])
    end = m.end() + nxt.start() if nxt else len(body)
    at = re.search(rf"(?m)^{re.escape(old)}[ \t\r]*(\n|$)", body[m.end():end])
    if not at:
        return
    start, stop = m.end() + at.start(), m.end() + at.end()
    wb.profile.doc.body = body[:start] + (f"{new}\n" if new else "") + body[stop:]
    wb.changes.append(f"~ profile {section}: {old.lstrip('- ')} -> {new[2:]}" if new
                      else f"- profile {section}: {old.lstrip('- ')}")


def _add_link(wb: Workbench, person: str, words: str) -> None:
    related = list(wb.profile.doc.meta.get("related") or [])
    if any(isinstance(r, dict) and r.get("person") == person for r in related):
        return
    wb.profile.doc.meta["related"] = [*related, {"person": person, "as": words}]
    wb.changes.append(f"+ profile related: {person} ({words})")
