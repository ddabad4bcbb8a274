"""Atomic writes: temp file in the same folder, fsync, rename. A reader or a
crash sees the old file or the new one, never half of either. (A cache
file, rebuilt when lost, is replaced whole without the fsync: write_cache.)"""

from __future__ import annotations

import errno
import os
import shlex
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from heartcompass.errors import HeartCompassError, UnsafePathError, WriteError

T = TypeVar("T")


class ConcurrentEditError(HeartCompassError):
    """The file changed on disk since it was read: refusing to overwrite."""


def checksum(data: bytes | memoryview | str) -> str:
    import hashlib  # here: loading OpenSSL is a tenth of `person list`'s start

    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def file_checksum(path: Path) -> str | None:
    try:
        return checksum(path.read_bytes())
    except FileNotFoundError:
        return None


def write_atomic(path: Path, text: str | bytes, expected_checksum: str | None = "any", durable: bool = True) -> None:
    """Write text to path atomically. When expected_checksum is given (None
    meaning "the file must not exist"), refuse if the file on disk changed.
    durable=False skips the fsync: still whole after a crash of the process
    (the kernel has the bytes), not after a power cut (serve's state between
    its periodic durable saves)."""
    from heartcompass import paths

    path = paths.check(Path(path))  # never through a link: it could point outside the workspace
    if expected_checksum != "any" and file_checksum(path) != expected_checksum:
        raise ConcurrentEditError(
            f"{path} changed on disk while HeartCompass was working on it; nothing was written.",
            "Run the command again: it will start from the new content.",
        )
    with write_refusals_named(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # here, not at the top: `person list` never writes
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with write_refusals_named(path):
            with os.fdopen(fd, "wb") as fh:  # a str as UTF-8, its line ends as they are
                fh.write(text if isinstance(text, bytes) else text.encode("utf-8"))
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_cache(path: Path, text: str | bytes) -> None:
    """A cache file: replaced whole (never half-written), not fsynced (it is
    rebuilt when lost or stale). Optional: on a read-only or full disk it is
    not saved (see unsaved_caches) and the command goes on, only slower."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.replace(tmp, path)
    except OSError as exc:
        cache_not_saved(path, exc)
        try:
            os.unlink(tmp)
        except OSError:
            pass


_unsaved: list[tuple[Path, str]] = []


def cache_not_saved(path: Path, exc: OSError) -> None:
    """Remember a cache that could not be saved, for the CLI to say once."""
    _unsaved.append((path, exc.strerror or str(exc)))


def unsaved_caches() -> list[tuple[Path, str]]:
    """The caches this process could not save (each (path, why)), forgotten once asked."""
    found = list(_unsaved)
    _unsaved.clear()
    return found


_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


@contextmanager
def write_refusals_named(path: Path) -> Iterator[None]:
    """Turn the OS's refusals to write path into one clear WriteError."""
    try:
        yield
    except PermissionError:
        raise WriteError(path, "permission denied",
                         f"Give yourself write access to its folder, then run the command again "
                         f"(e.g.: chmod u+w {shlex.quote(str(Path(path).parent))})") from None
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise WriteError(path, "the disk is read-only", "Remount it writable, or use a workspace on a "
                             "writable disk.") from None
        if exc.errno in _FULL:
            raise WriteError(path, "the disk is full", "Free some space, then run the command again.") from None
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(path, "is a symbolic link; HeartCompass writes no file through a link",
                                  hint="Replace the link with a real file, or remove it.") from None
        raise


def read_state(path: Path, parse: Callable[[Any], T]) -> T | None:
    """A local state file (JSON) through parse; None when there is none. One
    that does not read back is set aside as .broken (kept for a look: what it
    held is in the logs) and None returned, so its owner starts afresh."""
    import json

    try:
        return parse(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        try:
            path.replace(path.with_suffix(".broken"))
        except OSError:
            pass
        return None
