"""What the model is shown: the person's files with an id on every line
(E for events, F/C/T for MEMORY.md's sections, P for PROFILE.md's notes, M
for the people they mention; a
thread whose time has passed marked so), the known people, and the new log
entries (L ids, each marked trusted or not). Only the events that
matter most are shown (shown_events), picked through the workbench's EventIndex, so neither the prompt nor the work grows with a history."""

from __future__ import annotations

import datetime as dt

from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.memory.proposal.trust import SHOWN_AS, source_of
from heartcompass.memory.proposal.workbench import SECTION_IDS, LogItem, Workbench, as_date, events_index
from heartcompass.sanitize import clean_text
from heartcompass.tokens import estimate_tokens


def shown_events(wb: Workbench, items: list[LogItem], budget_tokens: int, half_life: float
                 ) -> list[events_fmt.Event]:
    """The events the model sees: the highest-scoring ones within a budget,
    plus any on the dates the new entries talk about. Bounded, so the
    prompt does not grow with a person's history; so is the work, through
    an index kept with the workbench (the same pick as ranking all events
    and walking them, see _shown_by_walk)."""
    days = {i.day for i in items}
    return events_index(wb, half_life).shown(days, budget_tokens)


def _shown_by_walk(wb: Workbench, items: list[LogItem], budget_tokens: int, half_life: float
                   ) -> list[events_fmt.Event]:
    """The plain definition of shown_events (tests compare the two)."""
    days = {i.day for i in items}
    ranked = sorted(wb.events.events, key=lambda e: events_fmt.score(e, wb.today, half_life), reverse=True)
    picked, used = [], 0
    for event in ranked:
        cost = estimate_tokens(event.render()) + 2
        if event.date.isoformat() in days or used + cost <= budget_tokens:
            picked.append(event)
            used += cost
    return picked


PAST = "   [its time has passed: it will be closed]"


def entries_now(items: list[LogItem], today: dt.date) -> dt.date:
    """How far the conversation has reached: the newest day of the entries
    (an old chat imported is gardened as of its own time), never after today."""
    days = [d for d in (as_date(i.day) for i in items) if d is not None]
    return min(max(days), today) if days else today


def present(wb: Workbench, items: list[LogItem], events_shown: list[events_fmt.Event]) -> str:
    prof = wb.profile
    out = [f"Today: {wb.today.isoformat()}", "", f"## PROFILE.md of {prof.name} (slug {wb.slug})"]
    for key in ("relation", "mbti", "gender", "birthday", "aliases", "tags", "related"):
        value = prof.doc.meta.get(key)
        if value not in (None, "", []):
            out.append(f"{key}: {value}")
    notes = list(enumerate(prof.notes(), 1))
    from heartcompass.memory.proposal import mentions

    for heading in prof.sections():
        out.append(f"### {heading}")
        if heading == mentions.SECTION:  # one line per person they mention, by M id
            out += mentions.present(wb)
            continue
        out += [f"P{i} {line}{'   [hand-written]' if wb.is_protected(line) else ''}"
                for i, (section, line) in notes if section == heading] or ["(empty)"]
    out += ["", "## EVENTS.md (most relevant; id, then the line)"]
    out += [f"E{i + 1} {e.render()}{'   [hand-written]' if wb.is_protected(e.render()) else ''}"
            for i, e in enumerate(events_shown)] or ["(none)"]
    out += ["", f"## MEMORY.md (budget {wb.memory.budget_tokens} tokens, now {wb.memory.body_tokens()})"]
    now = entries_now(items, wb.today)
    for prefix, title in SECTION_IDS:
        out.append(f"### {title}")
        lines = wb.memory.items(title)
        out += [f"{prefix}{i + 1} {line}{'   [hand-written]' if wb.is_protected(line) else ''}"
                f"{PAST if title == memory_fmt.THREADS and memory_fmt.is_past(line, now) else ''}"
                for i, line in enumerate(lines)] or ["(none)"]
    out += ["", "## Known people (slugs): " + (", ".join(sorted(wb.known_slugs - {wb.slug})) or "(none)")]
    out += ["", "## New log entries to consolidate"]
    for item in items:
        e = item.entry
        body = e.text.replace("\n", " / ")
        out.append(f"{item.id} [{item.day} {e.time[:5]} · {e.speaker} · {SHOWN_AS[source_of(e)]}] {body}")
    return clean_text("\n".join(out), nfkc=False)  # what a log or a hand edit hides reaches no model


def present_memory(wb: Workbench) -> str:
    """MEMORY.md as the compressor sees it: an id on every line; the user's
    own lines marked, as they are kept whatever it answers."""
    out = [f"Today: {wb.today.isoformat()}", "",
           f"## MEMORY.md (budget {wb.memory.budget_tokens} tokens, now {wb.memory.body_tokens()})"]
    for prefix, title in SECTION_IDS:
        out.append(f"### {title}")
        out += [f"{prefix}{i + 1} {line}" + ("   [hand-written: kept as it is; do not list it]"
                                             if wb.is_protected(line) else "")
                for i, line in enumerate(wb.memory.items(title))] or ["(none)"]
    return clean_text("\n".join(out), nfkc=False)
