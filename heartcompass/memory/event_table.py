"""A big EVENTS.md as columns: what the prompt needs of each event, without
an Event object per line (there may be 100,000).

Per event: its date (an ordinal), its weight (effective: 0.5 when none is
written), its prompt line (Event.render, as bytes at an offset, decoded only
for the few the prompt shows) and how many tokens that line costs there
(selection.Unit's count). And the events grouped by (weight, cost), each
group newest first: within one, an event's standing (its weight halved every
half-life) never rises down the list, whatever the day, so the prompt walks
the groups' heads instead of sorting every event each message
(event_pool.py). For the relevance a message adds, each event's group, and
from each place in a group the shortest text left in it (a shorter line
scores a term higher: relevance's bound, event_relevance.py)."""

from __future__ import annotations

import array
from dataclasses import dataclass
from typing import Any

from heartcompass.formats import events as events_fmt
from heartcompass.tokens import estimate_tokens

Column = Any  # an array.array built, or a memoryview of the cache read back as numbers

@dataclass
class EventTable:
    dates: Column     # "i": the sort date's ordinal
    weights: Column   # "d": the effective weight
    costs: Column     # "i": tokens of the prompt line, with its newline
    offsets: Column   # "q": where each line starts in lines, and one past the last
    lines: bytes | memoryview  # the prompt lines, UTF-8, one after another
    members: Column   # "i": every event, group by group, each group newest first (a day's in file order)
    groups: list[tuple[float, int, int, int]]  # (weight, cost, start, end in members)
    group_of: Column  # "i": each event's group
    shortest: Column  # "i": per place in members, the shortest text (lower-cased) from there to its group's end

    @classmethod
    def build(cls, events: list[events_fmt.Event]) -> EventTable:
        dates, weights, costs = array.array("i"), array.array("d"), array.array("i")
        offsets, chunks, at = array.array("q", [0]), [], 0
        members: dict[tuple[float, int], list[int]] = {}
        for i, event in enumerate(events):
            line = event.render()
            data = line.encode("utf-8")
            chunks.append(data)
            at += len(data)
            offsets.append(at)
            cost = estimate_tokens(line) + 1  # as selection.Unit counts it
            dates.append(event.date.toordinal())
            weights.append(event.effective_weight)
            costs.append(cost)
            members.setdefault((event.effective_weight, cost), []).append(i)
        order, groups = array.array("i"), []
        group_of, shortest = array.array("i", [0]) * len(events), array.array("i")
        for (w, cost), idx in sorted(members.items()):
            groups.append((w, cost, len(order), len(order) + len(idx)))
            ranked = sorted(idx, key=lambda i: (-dates[i], i))
            order.extend(ranked)
            tail: list[int] = []  # from the group's end back
            for i in reversed(ranked):
                group_of[i] = len(groups) - 1
                length = len(events[i].text.lower())  # as the term index counts it
                tail.append(length if not tail or length < tail[-1] else tail[-1])
            shortest.extend(reversed(tail))
        return cls(dates, weights, costs, offsets, b"".join(chunks), order, groups, group_of, shortest)

    def __len__(self) -> int:
        return len(self.dates)

    def line(self, i: int) -> str:
        return str(self.lines[self.offsets[i]:self.offsets[i + 1]], "utf-8")

    def to_parts(self) -> tuple[list[bytes], Any]:
        """Its columns as bytes, and the rest as JSON values (event_cache)."""
        return ([self.dates.tobytes(), self.weights.tobytes(), self.costs.tobytes(), self.offsets.tobytes(),
                 bytes(self.lines), self.members.tobytes(), self.group_of.tobytes(), self.shortest.tobytes()],
                self.groups)

    @classmethod
    def from_parts(cls, blobs: list[memoryview], rest: Any) -> EventTable:
        """Read back as views of the cache's bytes, copying nothing (checked: event_cache)."""
        dates, weights, costs, offsets, lines, members, group_of, shortest = blobs
        return cls(dates.cast("i"), weights.cast("d"), costs.cast("i"), offsets.cast("q"), lines, members.cast("i"),
                   [tuple(group) for group in rest], group_of.cast("i"), shortest.cast("i"))
