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
from heartcompass.formats import dailylog, read_text
from heartcompass.memory.hand_lines import blob_id
from heartcompass.memory.consolidation import State as ConsolidationState, prefix_sum
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
    (a rewrite within the same timestamp, of the same size, is read again).
    It names the state a log is all read under, not only a count: a run that
    saves no state (a dry run, a failed call) must not hide a hand edit."""

    def __init__(self, ws: Workspace):
        self.path = ws.state_dir / "log-counts.json"
        try:
            self.data: dict[str, list] = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            self.data = {}
        self.dirty = False
        self._seen: dict[str, list[int] | None] = {}  # the key as it was before the log was read

    def known(self, path: Path) -> list | None:
        """The state ([count, checksum]) this log, as it is now, is all read under."""
        key = self._seen[str(path)] = stat_key(path)
        hit = self.data.get(str(path))
        return hit[-2:] if key is not None and hit and hit[:-2] == key else None

    def remember(self, path: Path, read: list | None) -> None:
        key = self._seen.pop(str(path), None) or stat_key(path)
        if key is not None and settled([key]) and key == stat_key(path):  # unchanged while it was read
            self.data[str(path)] = [*key, *(read or [-1, None])]
            self.dirty = True
        elif self.data.pop(str(path), None) is not None:
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            write_cache(self.path, json.dumps(self.data))


def new_entries(person: Person, state: ConsolidationState, counts: EntryCounts, days: list[str] | None = None,
                blobs: dict[str, str] | None = None) -> tuple[list[LogItem], dict[str, list[dailylog.Entry]]]:
    """Entries past what each log has had consolidated; and those logs'
    entries, whose full count becomes the new state once they are written.
    A log unchanged since it was last read (size, mtime) is not read, nor is
    one git vouches was read to its end (state.all_read, a rebuilt state's).
    blobs: filled with the git blob id of each log read (day -> id)."""
    items: list[LogItem] = []
    logs: dict[str, list[dailylog.Entry]] = {}
    for day in dailylog.log_dates(person.dir) if days is None else days:
        path = person.logs_dir / f"{day}.md"
        consumed = state.days.get(day, [0, None])
        if counts.known(path) == consumed:
            continue
        proof = state.all_read.get(day)
        if proof and proof[0] == consumed and proof[1] == stat_key(path):  # read to the end, unchanged since
            counts.remember(path, consumed)
            continue
        text = read_text(path)
        entries = dailylog.parse(text, path)
        if blobs is not None:
            blobs[day] = blob_id(text.encode("utf-8"))
        unread = state.unread(day, entries)  # a log rewritten (undo, restore, by hand): what changed
        # "all read" only when the state says so too (else the next run must look again)
        all_read = state.count(day) + len(unread) == len(entries)
        counts.remember(path, [len(entries), prefix_sum(entries, len(entries))] if all_read else None)
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


def read_to_end(days: dict[str, list], logs: dict[str, list[dailylog.Entry]], blobs: dict[str, str]
                ) -> dict[str, str]:
    """day -> blob id of the logs these counts cover to their last entry
    (the trailer names them: a second device need not read them again)."""
    return {day: blobs[day] for day, (n, _) in days.items() if day in blobs and n == len(logs.get(day, ()))}


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
