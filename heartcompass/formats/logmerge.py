"""Two devices' versions of one day's log, merged as a union of entries.

A log is append-only, so when two devices chatted the same day, each side
is the common version plus entries appended after it: the merge is the
common entries, then both sides' new ones interleaved by time (each side's
own order kept, so a marker still follows what it marks), an entry both
sides appended (the same second, speaker and text) once. Markers name
entries by position, so their positions are rewritten for the merged file.
Anything else (an entry changed or removed on either side) is a real edit:
None, and git's conflict stays for the user."""

from __future__ import annotations

import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog
from heartcompass.formats.dailylog import MARK, MARK_VERBS, Entry

_REF = re.compile(r"^(\d+)(?:-(\d+))?$")


def union(base: str | None, ours: str, theirs: str, path: Path | str) -> str | None:
    """The merged log text, or None when it is not a pure union (a real edit)."""
    try:
        b = dailylog.parse(base, path) if base is not None else []
        o, t = dailylog.parse(ours, path), dailylog.parse(theirs, path)
    except FormatError:
        return None
    key = [e.render() for e in b]
    if [e.render() for e in o[:len(b)]] != key or [e.render() for e in t[:len(b)]] != key:
        return None  # a common entry changed or removed: a real edit
    n = len(b)
    o_map = {i: i for i in range(len(o))}  # old 0-based position -> new one
    t_map = {i: i for i in range(n)}
    merged: list[tuple[Entry, dict[int, int]]] = [(e, o_map) for e in b]
    o_new = list(range(n, len(o)))
    unused: dict[str, list[int]] = {}
    for i in o_new:
        unused.setdefault(o[i].render(), []).append(i)
    t_new = []
    for j in range(n, len(t)):
        twins = unused.get(t[j].render())
        if twins:
            t_map[j] = -twins.pop(0) - 1  # the same entry as ours: resolved once ours is placed
        else:
            t_new.append(j)
    oi = ti = 0
    while oi < len(o_new) or ti < len(t_new):
        take_ours = ti >= len(t_new) or (oi < len(o_new) and o[o_new[oi]].time <= t[t_new[ti]].time)
        if take_ours:
            o_map[o_new[oi]] = len(merged)
            merged.append((o[o_new[oi]], o_map))
            oi += 1
        else:
            t_map[t_new[ti]] = len(merged)
            merged.append((t[t_new[ti]], t_map))
            ti += 1
    for j, place in t_map.items():
        if place < 0:
            t_map[j] = o_map[-place - 1]
    entries = [_moved(e, side) for e, side in merged]
    return _front(ours if o else theirs) + "".join(e.render() for e in entries)


def _moved(entry: Entry, where: dict[int, int]) -> Entry:
    """A marker's positions (1-based) as they are in the merged file."""
    if entry.speaker != MARK:
        return entry
    tags = []
    for tag in entry.tags:
        verb, _, refs = tag.partition(" ")
        if verb not in MARK_VERBS:
            tags.append(tag)
            continue
        numbers = []
        for ref in refs.split():
            m = _REF.match(ref)
            if m:
                numbers += [where[k - 1] + 1 for k in range(int(m[1]), int(m[2] or m[1]) + 1) if k - 1 in where]
        tags.append(dailylog.marker_tag(verb, [p - 1 for p in numbers]) if numbers else tag)
    return Entry(entry.time, entry.speaker, entry.text, tags)


def _front(text: str) -> str:
    """The file's text before its first entry (the date frontmatter)."""
    m = re.search(r"(?m)^- \d{2}:\d{2}:\d{2} · ", text)
    return text[:m.start()] if m else text
