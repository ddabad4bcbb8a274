"""Each person's day counts in short, so a warm `graph --json` at ten
thousand people reads one small file instead of every log's counts.

A person's summary is keyed by what it was computed from: the stat of
their logs folder (a log added or removed changes it) and a digest of each
log's stat (stat_cache's rule: a log appended to or edited by hand, in place
or not, changes it). A warm run stats the folder and each log it names, and
lists no folder, reads no log; anything changed and the full counts of
memory/strength.py are read again. Per target (the user, or another person
by the names they were counted for), only the days with evidence are kept,
and the text of the last one: all a strength is folded from."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from heartcompass import paths
from heartcompass.errors import UnsafePathError
from heartcompass.stat_cache import settled, stat_key

SUMMARY = "strength-summary.json"
FORMAT = 1


def digest(keys: list[list[int] | None]) -> str:
    return hashlib.blake2b(repr(keys).encode(), digest_size=12).hexdigest()


class Summaries:
    def __init__(self, path: Path):
        self.path = path
        self.people: dict[str, dict[str, Any]] = {}
        self._checked: dict[str, dict[str, Any] | None] = {}
        self.dirty = False
        try:
            data = json.loads(paths.read_local(path))
            if data.get("format") == FORMAT and isinstance(data.get("people"), dict):
                self.people = data["people"]
        except (OSError, ValueError, AttributeError, UnsafePathError):  # missing, broken or a FIFO: summed up again
            pass

    def _fresh(self, slug: str, folder: str) -> dict[str, Any] | None:
        """The person's summary when every log is as it was; checked once per run."""
        if slug in self._checked:
            return self._checked[slug]
        entry = self.people.get(slug)
        try:
            if entry is not None and stat_key(folder) == entry["key"]:
                keys = [stat_key(f"{folder}{os.sep}{day}.md") for day in entry["logs"]]
                if digest(keys) != entry["digest"]:
                    entry = None
            else:
                entry = None
        except (OSError, TypeError, KeyError):  # unreadable, or a summary not of this shape: counted again
            entry = None
        self._checked[slug] = entry
        return entry

    def rows(self, slug: str, folder: str, sig: str, until: str) -> tuple[list[Any], str] | None:
        """([day, entries, kinds] of each day with evidence, oldest first; the
        last one's text); None when the summary cannot say."""
        entry = self._fresh(slug, folder)
        found = entry["sigs"].get(sig) if entry is not None else None
        if not isinstance(found, list):
            return None
        rows, last = found
        if rows and rows[-1][0] > until:  # a log dated after today: only the full counts have each day's text
            return None
        return rows, last

    def record(self, slug: str, folder_key: list[int] | None, logs: list[tuple[str, list[int]]], sig: str,
               days: dict[str, list[Any]]) -> None:
        """Keep the counts of `sig` read from these logs (folder stat taken
        before they were listed), once none of them can still change unseen."""
        if not settled([folder_key, *(key for _, key in logs)]):
            return
        mark = digest([key for _, key in logs])
        entry = self.people.get(slug)
        if entry is None or entry.get("key") != folder_key or entry.get("digest") != mark:
            entry = self.people[slug] = {"key": folder_key, "logs": [day for day, _ in logs], "digest": mark,
                                         "sigs": {}}
            self._checked[slug] = entry
        rows = [[day, c[0], c[1]] for day, c in sorted(days.items()) if c[0]]
        entry["sigs"][sig] = [rows, days[rows[-1][0]][2] if rows else ""]
        self.dirty = True

    def forget_all_but(self, slugs: set[str]) -> None:
        for slug in [s for s in self.people if s not in slugs]:
            del self.people[slug]
            self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        from heartcompass.atomic import write_cache

        # not fsynced, and optional: on a read-only disk it is not saved (the CLI says so once) and
        # the next run sums the logs up again; nothing is lost
        write_cache(self.path, json.dumps({"format": FORMAT, "people": self.people}, ensure_ascii=False,
                                          separators=(",", ":")))
        self.dirty = False
