"""The messages of an export's one read, kept for the write in a temporary
file, in batches: the export is parsed once, and memory holds one batch
whatever its size. Each message's sender is stored once, by number; the
rest as marshal writes plain values (fast, and private to this process)."""

from __future__ import annotations

import datetime as dt
import marshal
import os
import tempfile
from pathlib import Path
from typing import Iterator

from heartcompass.intake.exports.records import Message

BATCH = 2_000  # messages per marshal write


class Spill:
    def __init__(self, folder: Path | None = None) -> None:
        try:  # gone when closed, or on a crash; in the workspace if it can: /tmp may be memory (a tmpfs)
            self.file = tempfile.TemporaryFile(prefix="heartcompass-import-", dir=folder)
        except OSError:
            self.file = tempfile.TemporaryFile(prefix="heartcompass-import-")
        self.senders: dict[tuple[str, str, bool, str], int] = {}
        self.table: list[tuple[str, str, bool, str]] = []
        self.batch: list[tuple] = []
        self.spans: list[tuple[int, int]] = []  # (offset, length) of each batch written
        self.size = 0

    def add(self, msg: Message) -> None:
        key = (msg.speaker, msg.handle, msg.mine, msg.aka)
        number = self.senders.get(key)
        if number is None:
            number = self.senders[key] = len(self.table)
            self.table.append(key)
        self.batch.append((number, msg.when.isoformat(), msg.text, msg.line, msg.placeholder, msg.undated))
        if len(self.batch) >= BATCH:
            self._write()

    def _write(self) -> None:
        if not self.batch:
            return
        data = marshal.dumps(self.batch)
        self.file.write(data)
        self.spans.append((self.size, len(data)))
        self.size += len(data)
        self.batch = []

    def messages(self) -> Iterator[Message]:
        """Every message added, in order; each call reads from the start (no shared file position)."""
        self._write()
        self.file.flush()
        fd, table, when = self.file.fileno(), self.table, dt.datetime.fromisoformat
        for offset, length in self.spans:
            for number, stamp, text, line, placeholder, undated in marshal.loads(os.pread(fd, length, offset)):
                speaker, handle, mine, aka = table[number]
                yield Message(when(stamp), speaker, text, line, placeholder, undated, handle, mine, aka)

    def close(self) -> None:
        self.file.close()
