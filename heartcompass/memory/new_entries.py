"""Which log entries the gardener has not read yet, and the chunks it reads
them in: each log's entries past what consolidation has recorded (a log
unchanged since it was last counted is not parsed), skipping the lines
that are not news (time travel, partial replies, narratives `tell`
applied, markers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from heartcompass.atomic import write_cache
from heartcompass.formats import dailylog
from heartcompass.memory.consolidation import State as ConsolidationState
from heartcompass.memory.proposal import lazy as proposal  # pydantic and all: only once someone has new entries
from heartcompass.stat_cache import settled, stat_key
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace
from heartcompass.tokens import estimate_tokens

if TYPE_CHECKING:
    from heartcompass.memory.proposal.workbench import LogItem

SKIPPED_TAGS = ("as-of", "cut off", "told")  # time travel, partial replies, narratives `tell` applied


class EntryCounts:
    """Cache of entries per log file, so a nightly run over many people and
    a year of logs parses only what changed. Keyed by the log's stat under
    stat_cache's rule: a log written in the last two seconds is not cached
    (a rewrite within the same timestamp, of the same size, is read again)."""

    def __init__(self, ws: Workspace):
        self.path = ws.state_dir / "log-counts.json"
        try:
            self.data: dict[str, list[int]] = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            self.data = {}
        self.dirty = False
        self._seen: dict[str, list[int] | None] = {}  # the key as it was before the log was read

    def known(self, path: Path) -> int | None:
        key = self._seen[str(path)] = stat_key(path)
        hit = self.data.get(str(path))
        return hit[-1] if key is not None and hit and hit[:-1] == key else None

    def remember(self, path: Path, count: int) -> None:
        key = self._seen.pop(str(path), None) or stat_key(path)
        if key is not None and settled([key]) and key == stat_key(path):  # unchanged while it was read
            self.data[str(path)] = [*key, count]
            self.dirty = True
        elif self.data.pop(str(path), None) is not None:
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_cache(self.path, json.dumps(self.data))


def new_entries(person: Person, state: ConsolidationState, counts: EntryCounts
                ) -> tuple[list[LogItem], dict[str, list[dailylog.Entry]]]:
    """Entries past what each log has had consolidated; and those logs'
    entries, whose full count becomes the new state once they are written.
    A log unchanged since it was last read (size, mtime) is not read."""
    items: list[LogItem] = []
    logs: dict[str, list[dailylog.Entry]] = {}
    for day in dailylog.log_dates(person.dir):
        path = person.logs_dir / f"{day}.md"
        if counts.known(path) == state.count(day):
            continue
        entries = dailylog.load(path)
        unread = state.unread(day, entries)  # a log rewritten (undo, restore, by hand): what changed
        # a count that says "all read" only when the state says so too (else the next run must look again)
        counts.remember(path, len(entries) if state.count(day) + len(unread) == len(entries) else -1)
        if not unread:
            continue
        logs[day] = entries
        for index in unread:
            entry = entries[index]
            if not entry.dropped and not any(t.startswith(SKIPPED_TAGS) for t in entry.tags):  # dropped: markers
                items.append(proposal.workbench().LogItem("", day, entry, index))
    for n, item in enumerate(items, 1):
        item.id = f"L{n}"
    return items, logs


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
