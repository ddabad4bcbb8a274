"""The operations a kept statement (or a Yes in review) applies to the
workbench: add, change or remove an event, a MEMORY.md line, a profile
field, note or link. Nothing here judges or writes files: apply.py judges,
the gardener and review write. A line the user wrote stays theirs: a
change to it becomes an open thread that quotes both, a removal of it or
of what they told one that asks."""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Sequence

from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.formats.sources import without_source
from heartcompass.memory.proposal.asking import holds, told
from heartcompass.memory.proposal.workbench import Workbench, events_index, norm

def add_event(wb: Workbench, date: dt.date, text: str, weight: float, source: str, month_only: bool = False,
               approx: bool = False, year_only: bool = False) -> None:
    idx = events_index(wb)
    if idx is not None:
        existing = idx.first_same(date, text)
    else:
        existing = next((e for e in wb.events.events if e.date == date and norm(e.text) == norm(text)), None)
    if existing is not None:  # the same event twice is one event, weighted up
        if weight > existing.effective_weight and not wb.is_protected(existing.render()):
            change_event(wb, existing, weight, None, None)
        return
    event = events_fmt.Event(date, text, weight, source, month_only, approx, year_only)
    wb.events.events.append(event)
    if idx is not None:
        idx.added(event)
    wb.counts["events_added"] += 1
    wb.changes.append(f"+ event {event.when} · w{weight} · {text} ({source})")


def change_event(wb: Workbench, event: events_fmt.Event, weight, text, source,
                  when: events_fmt.When | None = None) -> None:
    line = event.render()
    if wb.is_protected(line):
        if text or when:
            thread_for_hand_line(wb, line, f"{when.text if when else event.when} · {text or event.text}",
                                  source)
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
    if when:  # a date the entries cited correct
        event.date, event.month_only, event.approx, event.year_only = when
        event.source = source or event.source
    if idx is not None:
        idx.changed(event, before)
    if event.render() != line:
        wb.counts["events_changed"] += 1
        wb.changes.append(f"~ event {line[2:]} -> {event.render()[2:]}")


def remove_event(wb: Workbench, event: events_fmt.Event, source: str = "log") -> None:
    if wb.is_protected(event.render()) or told(event.render()):  # the user's own line stays, and we ask
        thread_for_removal(wb, f"- {event.text}", source, "wrote" if wb.is_protected(event.render()) else "told me")
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


def add_line(wb: Workbench, title: str, line: str) -> None:
    lines = memory_fmt.ensure_section(wb.memory, title)
    if norm(line) not in (norm(x) for x in lines):
        lines.append(line)
        wb.changes.append(f"+ {title}: {line[2:]}")


def rewrite_line(wb: Workbench, title: str, old: str, new: str, source: str) -> None:
    if wb.is_protected(old):
        thread_for_hand_line(wb, old, new[2:], source)
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines[lines.index(old)] = new
        wb.changes.append(f"~ {title}: {old[2:]} -> {new[2:]}")



def remove_line(wb: Workbench, title: str, old: str, source: str = "log", merged: Sequence[str] = ()) -> None:
    """merged: the statements of this proposal that cite the line; a told line
    one of them carries in substance was merged into it, and goes."""
    carried = told(old) and any(holds(x, old) for x in merged)
    if title != memory_fmt.THREADS and (wb.is_protected(old) or (told(old) and not carried)):
        thread_for_removal(wb, old, source, "wrote" if wb.is_protected(old) else "told me")
        return
    if wb.is_protected(old):
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines.remove(old)
        wb.changes.append(f"{'✓ closed' if title == memory_fmt.THREADS else '-'} {title}: {old[2:]}")


def thread_for_hand_line(wb: Workbench, hand_line: str, suggestion: str, source: str | None) -> None:
    """The user's line wins; the disagreement becomes an open thread (from a day's
    log when the suggestion is; told or unknown, it is only "log")."""
    wrote = without_source(hand_line[2:].strip())
    suggestion = without_source(suggestion.strip())
    src = source if source and source.startswith("log ") else "log"
    add_line(wb, memory_fmt.THREADS, f'- You wrote "{wrote}", but the chats suggest "{suggestion}" ({src})')


def thread_for_removal(wb: Workbench, line: str, source: str, how: str) -> None:
    """A removal of what the user told or wrote has no evidence of its own:
    the line stays, and an open thread asks whether it still holds."""
    said = without_source(line[2:].strip())
    add_line(wb, memory_fmt.THREADS, f'- You {how} "{said}"; does it still hold? ({source})')


def set_field(wb: Workbench, name: str, value: str) -> None:
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
            thread_for_hand_line(wb, f"- {raw_line.strip()}", f"{name}: {value}", None)
            return
        meta[name] = value
        wb.changes.append(f"~ profile {name}: {old} -> {value}")


def add_profile_note(wb: Workbench, section: str, line: str) -> None:
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


def rewrite_profile_note(wb: Workbench, section: str, old: str, new: str | None, source: str | None) -> None:
    """Replace (or, new None, remove) one line of a PROFILE.md section; every
    other byte stays put. The user's own line stays: a rewrite of it becomes
    an open thread."""
    if wb.is_protected(old):
        if new:
            thread_for_hand_line(wb, f"- {old.lstrip('- ')}", new[2:], source)
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


def add_link(wb: Workbench, person: str, words: str) -> None:
    related = list(wb.profile.doc.meta.get("related") or [])
    if any(isinstance(r, dict) and r.get("person") == person for r in related):
        return
    wb.profile.doc.meta["related"] = [*related, {"person": person, "as": words}]
    wb.changes.append(f"+ profile related: {person} ({words})")
