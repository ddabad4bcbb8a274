"""What the model is shown: the person's files with an id on every line
(E for events, F/C/T for MEMORY.md's sections, P for PROFILE.md's notes; a
thread whose time has passed marked so), the known people, and the new log
entries (L ids, each marked trusted or not). Only the events that
matter most are shown (shown_events), picked through an index kept with
the workbench, so neither the prompt nor the work grows with a history."""

from __future__ import annotations

import datetime as dt
from typing import overload

from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.memory.proposal.workbench import SECTION_IDS, LogItem, Workbench, norm
from heartcompass.tokens import estimate_tokens


class EventIndex:
    """wb.events.events ranked and indexed once, then kept up to date by the
    operations (apply.py: _add_event, _change_event, _remove_event), so a chunk's
    work does not grow with the person's history: the shown events are picked
    with a few binary searches, and a duplicate is found by (date, text).

    Ranks are (-score, seq): seq is the position in the list (new events
    get the next one), so ties keep the list's order, as a stable sort does.
    The index belongs to one list object of one length for one (today,
    half-life); anything else (a restored snapshot, a list replaced or grown
    by other code) rebuilds it, see events_index()."""

    def __init__(self, wb: Workbench, half_life: float):
        self.events = wb.events.events
        self.today, self.half_life = wb.today, half_life
        self.rank: dict[int, tuple[float, int]] = {}          # id(event) -> its key
        self.by_key: dict[tuple[float, int], events_fmt.Event] = {}
        self.cost: dict[int, int] = {}                         # id(event) -> tokens shown
        self.buckets: dict[int, list[tuple[float, int]]] = {}  # cost -> sorted keys
        self.by_date: dict[dt.date, list[tuple[float, int]]] = {}  # date -> sorted keys
        self.same: dict[tuple[dt.date, str], list[tuple[int, events_fmt.Event]]] = {}  # dedup, in list order
        self.seq = 0
        for event in self.events:
            self._insert(event, self._next())
        self.count = len(self.events)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def valid(self, wb: Workbench, half_life: float | None = None) -> bool:
        return (self.events is wb.events.events and len(self.events) == self.count and self.today == wb.today
                and (half_life is None or half_life == self.half_life))

    def _insert(self, event: events_fmt.Event, seq: int) -> None:
        from bisect import insort

        key = (-events_fmt.score(event, self.today, self.half_life), seq)
        cost = estimate_tokens(event.render()) + 2
        self.rank[id(event)], self.by_key[key], self.cost[id(event)] = key, event, cost
        insort(self.buckets.setdefault(cost, []), key)
        insort(self.by_date.setdefault(event.date, []), key)
        insort(self.same.setdefault((event.date, norm(event.text)), []), (seq, event))

    def _drop(self, event: events_fmt.Event, date: dt.date, text: str) -> int:
        from bisect import bisect_left

        key, cost = self.rank.pop(id(event)), self.cost.pop(id(event))
        del self.by_key[key]
        for keys in (self.buckets[cost], self.by_date[date]):
            del keys[bisect_left(keys, key)]
        same = self.same[(date, norm(text))]
        same.remove(next(pair for pair in same if pair[1] is event))
        return key[1]

    def holds(self, event: events_fmt.Event) -> bool:
        key = self.rank.get(id(event))
        return key is not None and self.by_key[key] is event

    # -- kept up to date by the operations
    def added(self, event: events_fmt.Event) -> None:
        self._insert(event, self._next())
        self.count += 1

    def changed(self, event: events_fmt.Event, before: events_fmt.Event) -> None:
        """event's fields changed in place; before: a copy with the old fields."""
        self._insert(event, self._drop(event, before.date, before.text))

    def removed(self, event: events_fmt.Event, events: list[events_fmt.Event]) -> None:
        self._drop(event, event.date, event.text)
        self.events, self.count = events, len(events)

    # -- asked
    def first_same(self, date: dt.date, text: str) -> events_fmt.Event | None:
        same = self.same.get((date, norm(text)))
        return same[0][1] if same else None

    def shown(self, days: set[str], budget_tokens: int) -> list[events_fmt.Event]:
        """What the ranked walk in shown_events picks: each next event in rank
        order that is on one of the days or still fits the budget."""
        from bisect import bisect_right

        day_keys = sorted(k for date in map(_as_date, days) if date is not None for k in self.by_date.get(date, ()))
        costs = sorted(self.buckets)
        picked: list[events_fmt.Event] = []
        used, pos = 0, (float("-inf"), -1)
        while True:
            best = None
            i = bisect_right(day_keys, pos)
            if i < len(day_keys):
                best = day_keys[i]
            for cost in costs:
                if used + cost > budget_tokens:
                    break
                keys = self.buckets[cost]
                j = bisect_right(keys, pos)
                if j < len(keys) and (best is None or keys[j] < best):
                    best = keys[j]
            if best is None:
                return picked
            event = self.by_key[best]
            picked.append(event)
            used += self.cost[id(event)]
            pos = best


def _as_date(day: str) -> dt.date | None:
    try:
        date = dt.date.fromisoformat(day)
    except (TypeError, ValueError):
        return None
    return date if date.isoformat() == day else None


@overload
def events_index(wb: Workbench, half_life: float) -> EventIndex: ...


@overload
def events_index(wb: Workbench, half_life: None = None) -> EventIndex | None: ...


def events_index(wb: Workbench, half_life: float | None = None) -> EventIndex | None:
    """wb's EventIndex, (re)built when it no longer matches wb.events.events.
    Without a half-life, only an index already built (None if there is none)."""
    idx = wb.event_index
    if idx is not None and idx.valid(wb, half_life):
        return idx
    if half_life is None:
        wb.event_index = None
        return None
    wb.event_index = EventIndex(wb, half_life)
    return wb.event_index


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
    days = [d for d in (_as_date(i.day) for i in items) if d is not None]
    return min(max(days), today) if days else today


def present(wb: Workbench, items: list[LogItem], events_shown: list[events_fmt.Event]) -> str:
    prof = wb.profile
    out = [f"Today: {wb.today.isoformat()}", "", f"## PROFILE.md of {prof.name} (slug {wb.slug})"]
    for key in ("relation", "mbti", "gender", "birthday", "aliases", "tags", "related"):
        value = prof.doc.meta.get(key)
        if value not in (None, "", []):
            out.append(f"{key}: {value}")
    notes = list(enumerate(prof.notes(), 1))
    for heading in prof.sections():
        out.append(f"### {heading}")
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
        trust = "trusted" if e.trusted else "UNTRUSTED: said by the simulated persona"
        if e.speaker in ("me", "import:me"):  # the user's own words: what about_user lines may cite
            trust = "trusted: the user"
        elif e.speaker.startswith("context:"):  # a group import's surrounding line: what they answered
            trust = "context only: another group member's line, not this person's words"
        body = e.text.replace("\n", " / ")
        out.append(f"{item.id} [{item.day} {e.time[:5]} · {e.speaker} · {trust}] {body}")
    return "\n".join(out)


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
    return "\n".join(out)
