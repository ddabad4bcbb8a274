"""What goes into a prompt: whole entries, chosen within a token budget.

A person's files may hold far more than one prompt (years of MEMORY.md and
EVENTS.md); the prompt takes, in this order:

1. The core: the rules, the relation, who they are (name, aliases...).
2. What the conversation names: profile notes, memory lines and events
   that share words (or CJK character pairs) with the last few things the
   user said (relevance.py), best first by RELEVANCE_WEIGHT x relevance +
   standing (an event's weight halved every half-life; a fact's 1), within
   RELEVANT_SHARE of the budget. So a faint event from years ago comes back
   when the user names it.
3. Everything else as without a conversation: sections by priority, then
   events by score (standing plus relevance). Profile notes and memory lines
   leave EVENTS_SHARE of the budget to the events when there are any, and
   take what the events leave over.

Nothing is ever cut mid-entry; what does not fit is reported as left out."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from heartcompass.formats import events as events_fmt
from heartcompass.memory import relevance
from heartcompass.tokens import estimate_tokens

CORE_PRIORITY = 2        # rules 0, relation 1, the profile's fields 2
RELEVANCE_WEIGHT = 2.0   # a line the user names outranks one that merely weighs more
RELEVANT_SHARE = 0.4     # what the conversation names takes at most this much of the budget
EVENTS_SHARE = 0.25      # kept for events while facts and notes are chosen
LEFT_OUT_SHOWN = 50      # per section; the counts are always complete


@dataclass
class Unit:
    section: str
    text: str
    priority: float
    ranked: bool = False    # a profile note or memory line: scored for the conversation
    standing: float = 1.0   # how much it matters before relevance (an event's is its score)
    tokens: int = 0
    order: int = 0          # its place among the units, to keep the files' order in the prompt

    def __post_init__(self):
        self.tokens = estimate_tokens(self.text) + 1  # +1 for the newline that joins it


@dataclass
class Choice:
    chosen: list[Unit] = field(default_factory=list)
    left: dict[str, list[str]] = field(default_factory=dict)
    left_count: dict[str, int] = field(default_factory=dict)
    used: int = 0
    relevant: int = 0       # entries chosen for what the conversation names


class Budget:
    def __init__(self, budget: int, header_tokens: dict[str, int], choice: Choice):
        self.budget, self.header_tokens, self.c = budget, header_tokens, choice
        self.opened: set[str] = set()

    def cost(self, unit: Unit) -> int:
        return unit.tokens + (0 if unit.section in self.opened else self.header_tokens[unit.section])

    def take(self, unit: Unit) -> None:
        self.c.chosen.append(unit)
        self.c.used += self.cost(unit)
        self.opened.add(unit.section)

    def offer(self, unit: Unit, limit: int | None = None) -> bool:
        if self.c.used + self.cost(unit) <= (self.budget if limit is None else limit):
            self.take(unit)
            return True
        return False

    def leave(self, section: str, text: str) -> None:
        self.c.left_count[section] = self.c.left_count.get(section, 0) + 1
        if len(self.c.left.setdefault(section, [])) < LEFT_OUT_SHOWN:
            self.c.left[section].append(text)

    def leave_event(self, event: events_fmt.Event) -> None:
        """Rendered only while it is among those shown: there may be 100,000."""
        if len(self.c.left.get("events", ())) < LEFT_OUT_SHOWN:
            self.leave("events", event.render())
        else:  # fifty are shown: each was counted
            self.c.left_count["events"] += 1

    def cannot_fit(self, event: events_fmt.Event, limit: int) -> bool:
        """True when the event surely does not fit, known without rendering it:
        its line is at least "- YYYY-MM-DD · w0.0 · TEXT (SOURCE)" long (or its
        month's or year's date), a token
        is at most four characters (tokens.py), and the newline is one more."""
        date = (4 if event.year_only else 7 if event.month_only else 10) + event.approx  # 2019, 2023-06, ~
        length = 5 + date + len(event.text) + (7 if event.weight is not None else 0) + (
            len(event.source) + 3 if event.source else 0)
        return -(-length // 4) + 1 > limit - self.c.used


def event_unit(event: events_fmt.Event) -> Unit:
    return Unit("events", event.render(), 8)


class EventList:
    """Parsed events as selection.choose ranks them: each event's standing
    once, then its relevance (a big EVENTS.md's cached form does the same,
    faster: memory/event_pool.py)."""

    def __init__(self, events: list[events_fmt.Event], score_event):
        self.events = events
        self.keys = [score_event(e) for e in events]  # once each: there may be 100,000

    def __len__(self) -> int:
        return len(self.events)

    def named(self, about: dict[str, float]) -> list[tuple[float, int, int, int]]:
        """The events about names, best first, each key standing plus
        relevance: (-key, 1, place in relevance's order, event) (1: after the
        notes it names on an equal key)."""
        found = relevance.scores(about, [e.text for e in self.events])
        for i, r in found.items():
            self.keys[i] += RELEVANCE_WEIGHT * r
        return sorted((-self.keys[i], 1, at, i) for at, i in enumerate(found))

    def offer(self, b: Budget, i: int, limit: int) -> bool:
        return not b.cannot_fit(self.events[i], limit) and b.offer(event_unit(self.events[i]), limit)

    def fill(self, b: Budget, taken: set[int]) -> None:
        _events(b, self.events, taken, self.keys)


def choose(units: list[Unit], events, budget: int, header_tokens: dict[str, int],
           *, score_event=None, about: dict[str, float] | None = None) -> Choice:
    """units: everything but the events, each with its priority; events: a
    list of them (score_event: an event's standing today, at most 1), or
    their cached form (event_pool.TablePool); about: the conversation's terms
    (relevance.query)."""
    pool = EventList(events, score_event) if isinstance(events, list) else events
    choice = Choice()
    b = Budget(budget, header_tokens, choice)
    for i, unit in enumerate(units):
        unit.order = i
    units = sorted(units, key=lambda u: (u.priority, u.order))
    for unit in units:
        if unit.priority <= CORE_PRIORITY and not unit.ranked and not b.offer(unit):
            b.leave(unit.section, unit.text)
    taken_units: set[int] = {u.order for u in choice.chosen}
    taken_events: set[int] = set()   # indices into events
    if about:
        ranked = [u for u in units if u.ranked]
        unit_rel = relevance.scores(about, [u.text for u in ranked])
        notes = sorted((-(RELEVANCE_WEIGHT * r + ranked[i].standing), 0, at, ranked[i])
                       for at, (i, r) in enumerate(unit_rel.items()))
        limit = min(budget, choice.used + int(RELEVANT_SHARE * budget))  # a big core leaves it less
        misses = 0
        for *_, item in heapq.merge(notes, pool.named(about)):  # best first; on an equal key notes, then events
            if limit - choice.used < 4 or misses > 50:  # full, or nearly: the rest compete in step 3
                break
            if isinstance(item, Unit):
                took = b.offer(item, limit)
                if took:
                    taken_units.add(item.order)
            else:
                took = pool.offer(b, item, limit)
                if took:
                    taken_events.add(item)
            choice.relevant += took
            misses = 0 if took else misses + 1
    reserve = int(EVENTS_SHARE * budget) if len(pool) > len(taken_events) else 0
    deferred = []
    for unit in units:
        if unit.order in taken_units or (unit.priority <= CORE_PRIORITY and not unit.ranked):
            continue
        if unit.ranked and choice.used + b.cost(unit) > budget - reserve:
            deferred.append(unit)  # after the events, if they leave room
        elif not b.offer(unit):
            b.leave(unit.section, unit.text)
    pool.fill(b, taken_events)
    for unit in deferred:
        if not b.offer(unit):
            b.leave(unit.section, unit.text)
    return choice


def _events(b: Budget, events: list[events_fmt.Event], taken: set[int], keys: list[float]) -> None:
    """Events by score, rendered only while they can still fit (there may be 100,000)."""
    order = sorted(range(len(events)), key=keys.__getitem__, reverse=True)  # ties: in file order
    ranked = [events[i] for i in order if i not in taken]
    for i, event in enumerate(ranked):
        # once the header is paid, an event of a few tokens still fits the last few left
        smallest = 4 + (0 if "events" in b.opened else b.header_tokens["events"])
        if b.budget - b.c.used < smallest:
            shown = max(0, LEFT_OUT_SHOWN - len(b.c.left.get("events", [])))
            for rest in ranked[i:i + shown]:
                b.c.left.setdefault("events", []).append(rest.render())
            b.c.left_count["events"] = b.c.left_count.get("events", 0) + len(ranked) - i
            return
        if b.cannot_fit(event, b.budget):
            b.leave_event(event)
            continue
        unit = event_unit(event)
        if not b.offer(unit):
            b.leave("events", unit.text)
