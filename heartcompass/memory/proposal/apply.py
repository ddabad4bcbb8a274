"""Applying a proposal: each statement is judged on its own (ids known, evidence checked, see evidence.py)
and kept, refused with its reasons or asked (verdicts.py); the kept ones are applied to the workbench by the
operations (operations.py); nothing here writes files. What changes who someone is (a relation, gender, birthday,
alias, link; a rewrite or removal of a told, hand-written or Boundaries line; a profile line removed) becomes
a question (asking.py). Without asking (`tell`, whose diff the user confirms), a change to a line the user
wrote by hand becomes an open thread that quotes both, and a removal of what the user told one that asks.
People in their life are judged in mentions.py. A compression is checked in compression.py."""

from __future__ import annotations

import datetime as dt

from heartcompass.formats import events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.memory.proposal.asking import (field_asked, field_question, link_question, removal_asked,
                                                 removal_question, rewrite_question, whose)
from heartcompass.memory.proposal.evidence import Checker, reported
from heartcompass.memory.proposal.fields import check_field, check_link_words
from heartcompass.memory.proposal.limits import over_limits
from heartcompass.memory.proposal.mentions import judge as judge_mentions
from heartcompass.memory.proposal.model import CITES, CITES_NEW, Proposal, ProposalError, said_nothing
from heartcompass.memory.proposal.operations import (add_event, add_line, add_link, add_profile_note, change_event,
                                                     remove_event, remove_line, rewrite_line, rewrite_profile_note,
                                                     set_field)
from heartcompass.memory.proposal.trust import Claim, source_of, supported
from heartcompass.memory.proposal.verdicts import Judge, Verdicts
from heartcompass.memory.proposal.workbench import SECTION_IDS, LogItem, Workbench


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
        weight, source = ck.weight(what, ev.weight), ck.evidence(what, ev.evidence, Claim.EVENT, text)
        when = ck.dated(what, when) if source else None  # the date too stands on the entries cited
        if j.passes(start, "new_events", ev, when and weight is not None and source):
            j.keep(lambda d=when, t=text, w=weight, s=source: add_event(wb, d[0], t, w, s, *d[1:]))
    for ch in proposal.changed_events:
        start = j.start()
        event = known("event", ch.id, event_ids)
        weight = ck.weight(f"event {ch.id}", ch.weight)
        new_text = ck.text(f"event {ch.id}", ch.text) if ch.text else None
        new_date = ck.date(f"event {ch.id}", ch.date) if ch.date else None
        source = ck.evidence(f"event {ch.id}", ch.evidence, Claim.EVENT, new_text) if (new_text or ch.evidence
                                                                                        or ch.date) else None
        new_date = ck.dated(f"event {ch.id}", new_date) if source else None  # corrected by the entries it cites
        ck.says_the_change(f"event {ch.id}", event and ("", event.text), new_text if source else None)
        if event is not None and weight is None and not new_text and not ch.date:
            ck.problems.append(f"event {ch.id}: neither a new weight nor a corrected text or date")
        if not j.passes(start, "changed_events", ch, event is not None):
            continue
        why = whose(wb, event.render()) if asking and (new_text or new_date) else ""
        if why:
            when = new_date or events_fmt.When(event.date, event.month_only, event.approx, event.year_only)
            new = events_fmt.Event(when.date, new_text or event.text, event.weight if weight is None else weight,
                                   source or event.source, when.month_only, when.approx, when.year_only).render()
            j.ask(rewrite_question(wb, "EVENTS.md", "", event.render(), new, list(ck.found), why))
        else:
            j.keep(lambda e=event, w=weight, t=new_text, s=source, d=new_date: change_event(wb, e, w, t, s, d))
    for ident in proposal.removed_events:
        start = j.start()
        event = known("event", ident, event_ids)
        if not j.passes(start, "removed_events", ident, event is not None):
            continue
        why = whose(wb, event.render()) if asking else ""
        if why:
            j.ask(removal_question(wb, "EVENTS.md", "", event.render(), why))
        else:
            j.keep(lambda e=event: remove_event(wb, e, newest))
    for key, title, claim in (("facts", memory_fmt.FACTS, Claim.FACT), ("chat_notes", memory_fmt.CHATS, Claim.CHAT_NOTE),
                              ("threads", memory_fmt.THREADS, Claim.THREAD),
                              ("about_user", memory_fmt.ABOUT_ME, Claim.ABOUT_ME)):
        own_person = key == "about_user" and wb.profile.relation == "self"
        cite = CITES[key]
        carried: dict[str, list[str]] = {}  # a line's id -> the statements of this section that cite it
        for n, line in enumerate(getattr(proposal, f"new_{key}"), 1):
            start, what = j.start(), f"new {'line about the user' if key == 'about_user' else key[:-1].replace('_', ' ')} {n}"
            if own_person:
                ck.problems.append("new_about_user: this is the user's own person, whose facts are all about the "
                                   "user: put them in new_facts")
            text = ck.text(what, line.text)
            source = ck.evidence(what, line.evidence, claim, text, CITES_NEW[key])
            if key == "threads":
                text = memory_fmt.with_until(text, ck.until(what, line.until))
            if not j.passes(start, f"new_{key}", line, source):
                continue
            if key == "threads" and not supported(Claim.FOLLOW_UP, (source_of(i.entry) for i in ck.found)):
                # what the persona raised is not the user's to follow up as true: it is a chat note
                j.keep(lambda x=text, s=source: add_line(wb, memory_fmt.CHATS, f"- {x} ({s})"))
            else:
                x = reported(text, ck.found) if key == "facts" else text
                j.keep(lambda t=title, x=x, s=source: add_line(wb, t, f"- {x} ({s})"))
                _carry(carried, mem_ids, title, line.evidence, x)
        for rw in getattr(proposal, f"rewritten_{key}", []):
            start = j.start()
            target = known(key, rw.id, mem_ids)
            text = ck.text(f"{key} {rw.id}", rw.text)
            source = ck.evidence(f"{key} {rw.id}", rw.evidence, claim, text, cite, target)  # target: what changes
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
                j.keep(lambda tg=target, x=text, s=source: rewrite_line(wb, tg[0], tg[1], f"- {x} ({s})", s))
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
                j.keep(lambda tg=target, m=merged: remove_line(wb, tg[0], tg[1], newest, m))
    for fc in proposal.profile_fields:
        what, start = f"profile field {fc.field}", j.start()
        source = ck.evidence(what, fc.evidence, Claim.PROFILE_FIELD)
        found = list(ck.found)
        value = check_field(ck, fc.field, fc.value, found if source else None)
        if not j.passes(start, "profile_fields", fc, source and value is not None):
            continue
        if asking and field_asked(wb, fc.field, value):
            j.ask(field_question(wb, fc.field, value, found))
        else:
            j.keep(lambda f=fc.field, v=value: set_field(wb, f, v))
    for note in proposal.profile_notes:
        what, start = f"profile note for {note.section}", j.start()
        text = ck.text(what, note.text)
        source = ck.evidence(what, note.evidence, Claim.PROFILE_NOTE, text, CITES_NEW["profile_notes"])
        if note.section not in (*profile_fmt.BODY_SECTIONS, *wb.profile.sections()):
            ck.problems.append(f"{what}: unknown section (use {', '.join(profile_fmt.BODY_SECTIONS)})")
        if j.passes(start, "profile_notes", note, source):
            j.keep(lambda sec=note.section, x=text, s=source: add_profile_note(wb, sec, f"- {x} ({s})"))
    for rw in proposal.rewritten_profile_notes:
        start = j.start()
        target = known("profile note", rw.id, note_ids)
        text = ck.text(f"profile note {rw.id}", rw.text)
        source = ck.evidence(f"profile note {rw.id}", rw.evidence, Claim.PROFILE_NOTE, text, CITES["profile_notes"],
                             target)
        if not j.passes(start, "rewritten_profile_notes", rw, target and source):
            continue
        why = whose(wb, target[1], target[0]) if asking else ""
        if why:
            j.ask(rewrite_question(wb, "PROFILE.md", target[0], target[1], f"- {text} ({source})", list(ck.found),
                                   why))
        else:
            j.keep(lambda tg=target, x=text, s=source: rewrite_profile_note(wb, tg[0], tg[1], f"- {x} ({s})", s))
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
            j.keep(lambda tg=target: rewrite_profile_note(wb, tg[0], tg[1], None, None))
    for link in proposal.new_links:
        what, start = f"link to {link.person}", j.start()
        if link.person not in wb.known_slugs or link.person == wb.slug:
            ck.problems.append(f"{what}: not a known person's slug")
        source = ck.evidence(what, link.evidence, Claim.LINK)
        found = list(ck.found)
        words = check_link_words(ck, what, link.relation_words, found if source else None, link.person)
        if not j.passes(start, "new_links", link, source and words):
            continue
        if asking:
            j.ask(link_question(wb, link.person, words, found))
        else:
            j.keep(lambda p=link.person, w=words: add_link(wb, p, w))
    judge_mentions(ck, j, wb, proposal, asking)  # People in their life (proposal/mentions.py)
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

def _carry(carried: dict[str, list[str]], mem_ids: dict, title: str, evidence: list[str], text: str) -> None:
    for ident in evidence:
        if mem_ids.get(ident.strip(), ("",))[0] == title:
            carried.setdefault(ident.strip(), []).append(text)
