"""Atomic writes: temp file in the same folder, fsync, rename. A reader or a
crash sees the old file or the new one, never half of either."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from heartcompass.errors import HeartCompassError


class ConcurrentEditError(HeartCompassError):
    """The file changed on disk since it was read: refusing to overwrite."""


def checksum(data: bytes | str) -> str:
    import hashlib  # here: loading OpenSSL is a tenth of `person list`'s start

    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def file_checksum(path: Path) -> str | None:
    try:
        return checksum(path.read_bytes())
    except FileNotFoundError:
        return None


def write_atomic(path: Path, text: str, expected_checksum: str | None = "any") -> None:
    """Write text to path atomically. When expected_checksum is given (None
    meaning "the file must not exist"), refuse if the file on disk changed."""
    path = Path(path)
    if expected_checksum != "any" and file_checksum(path) != expected_checksum:
        raise ConcurrentEditError(
            f"{path} changed on disk while HeartCompass was working on it; nothing was written.",
            "Run the command again: it will start from the new content.",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
