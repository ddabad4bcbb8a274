"""A big EVENTS.md's parsed and term-indexed form (event_table,
relevance_index), kept in .heartcompass/prompt/ (git-ignored, local), so a
message's prompt neither parses nor searches 100,000 lines.

It is keyed by the checksum of the file's text, so any change to EVENTS.md,
by hand or by us, in place or not, whatever its times say, is a rebuild.
Its own content carries a checksum too: a cache cut short, or changed in
place (even to the same length), is set aside as .broken and rebuilt, never
trusted. Small files are parsed as before: below SMALLEST, parsing costs
less than checking a cache."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from heartcompass import __version__, paths
from heartcompass.atomic import checksum, write_cache
from heartcompass.errors import UnsafePathError
from heartcompass.formats import events as events_fmt
from heartcompass.formats.text import decode, read_bytes
from heartcompass.memory.event_table import EventTable
from heartcompass.memory.relevance_index import TermIndex
from heartcompass.store.workspace import Workspace

class Cached(NamedTuple):
    table: EventTable
    terms: TermIndex


FOLDER = "prompt"
SMALLEST = 256 * 1024  # bytes of EVENTS.md (about 2,500 events)
MAGIC = b"heartcompass events cache\n"
FORMAT = 4  # of what is kept: another is rebuilt, as a file changed since is (3: groups, shortest texts, runs' bitmaps; 4: 'agree' stemmed as 'agreed')
ALIGN = 8  # each column starts at a multiple of it, read in place as its numbers


def path_for(state_dir: Path, slug: str) -> Path:
    return state_dir / FOLDER / f"{slug}.events"


def read(ws: Workspace, slug: str, events_path: Path) -> tuple[str | None, Cached | None]:
    """EVENTS.md's text, or for a big one its cached form instead (the text
    None); (None, None) when there is no EVENTS.md."""
    if not events_path.exists():
        return None, None
    data = read_bytes(events_path)
    if len(data) < SMALLEST:
        return decode(data, events_path), None
    return None, load(ws.state_dir, slug, data, events_path)


def load(state_dir: Path, slug: str, data: bytes, events_path: Path) -> Cached:
    """The cached form of EVENTS.md's bytes, read back, or built (and saved:
    a cache that cannot be saved is said once, and the prompt goes on)."""
    path = path_for(state_dir, slug)
    source = checksum(data)
    found = _read(path, source)
    if found is not None:
        return found
    text = decode(data, events_path)  # a FormatError as without the cache
    events = events_fmt.parse(text, events_path, readonly=True).events
    table = EventTable.build(events)
    index = TermIndex.build([e.text for e in events], table.group_of, len(table.groups))
    (table_blobs, table_rest), (terms_blobs, terms_rest) = table.to_parts(), index.to_parts()
    blobs = table_blobs + terms_blobs
    payload = b"".join(blob + bytes(-len(blob) % ALIGN) for blob in blobs)
    header = json.dumps({"format": FORMAT, "version": __version__, "source": source, "payload": checksum(payload),
                         "sizes": [len(blob) for blob in blobs], "table": [len(table_blobs), table_rest],
                         "terms": terms_rest})
    write_cache(path, MAGIC + header.encode("ascii") + b"\n" + payload)
    return Cached(table, index)


def _read(path: Path, source: str) -> Cached | None:
    """The cache when it is whole and for this text; None to rebuild it (a
    broken one set aside first)."""
    try:
        fd = paths.open_regular(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnsafePathError):
        _set_aside(path)
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read()
    except OSError:
        _set_aside(path)
        return None
    finally:
        os.close(fd)
    try:
        if not data.startswith(MAGIC):
            raise ValueError("not an events cache")
        end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC):end])
        if (header["format"], header["version"], header["source"]) != (FORMAT, __version__, source):
            return None  # another version's, or EVENTS.md changed since: rebuilt over it
        payload = memoryview(data)[end + 1:]
        if checksum(payload) != header["payload"]:
            raise ValueError("its content does not match its checksum")
        blobs, at = [], 0
        for size in header["sizes"]:
            blobs.append(payload[at:at + size])
            at += size + -size % ALIGN
        if at != len(payload):
            raise ValueError("its parts do not add up to its length")
        split, table_rest = header["table"]
        return Cached(EventTable.from_parts(blobs[:split], table_rest),
                      TermIndex.from_parts(blobs[split:], header["terms"]))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        _set_aside(path)
        return None


def _set_aside(path: Path) -> None:
    """Kept for a look as .broken (it holds nothing the files do not), and rebuilt."""
    try:
        path.replace(path.with_suffix(".broken"))
    except OSError:
        pass
