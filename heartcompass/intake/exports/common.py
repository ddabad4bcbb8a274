"""What every export parser needs: message text made safe for a log, the
apps' notices, numbered lines, JSON read with a clear error."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from heartcompass.errors import FormatError

# Every character str.splitlines breaks on, apart from \n: in a log each must
# be a real line break (a continuation line), never a second entry or heading.
_BREAKS = re.compile("\r\n|[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# Invisible marks the apps sprinkle (iOS's U+200E before every notice, BOMs, zero-width joiners' neighbours).
_MARKS = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def clean(text: str) -> str:
    """A message's text as it goes into a log: one kind of line break, no
    direction marks or escapes, no blank edges."""
    if text.isprintable():  # no break, mark or control at all (most messages): nothing to take out
        return text.strip()
    from heartcompass.sanitize import strip_controls

    text = _BREAKS.sub("\n", text)
    return strip_controls(_MARKS.sub("", text)).strip()


def body(lines: list[str]) -> tuple[str, str | None]:
    """A message written over lines (QQ, WeChat TXT) whose lines may be the
    app's stand-ins ("在的" then "[图片]"): its words, and "media" (or the
    stand-in's kind) when nothing but stand-ins is left."""
    from heartcompass.messages import placeholder_kind

    while lines and not lines[-1].strip():  # the blank line between messages
        lines = lines[:-1]
    if len(lines) == 1:  # most messages: one line, words or a stand-in
        kind = placeholder_kind(lines[0])
        words = "" if kind else clean(lines[0])
        return words, None if words else kind or "media"
    kinds = [placeholder_kind(line) for line in lines]
    words = clean("\n".join(line for line, kind in zip(lines, kinds) if not kind))
    return words, None if words else next((k for k in kinds if k), "media")


@lru_cache(maxsize=4096)
def _name(text: str) -> str:
    return " ".join(clean(text).split())


def name(text: object) -> str:
    """A sender's name: one line, no marks; empty when there is none."""
    return _name(str(text or ""))


# A JSON export is parsed whole: years of daily chat are tens of MiB; more is the wrong file.
MAX_JSON_BYTES = 100 << 20
# A line-based export is read line by line, never whole: only a bound against the wrong file.
MAX_LINES_BYTES = 4 << 30
MAX_LINE_BYTES = 4 << 20
BLOCK_BYTES = 1 << 20
FIX_UTF8 = ("Export the chat again (the apps write UTF-8), or convert it, naming its encoding: "
            "'iconv -f GBK -t UTF-8' for a Chinese Windows export.")


class Source:
    """The export file, read as often as needed: line by line, or whole (JSON)."""

    def __init__(self, path: Path | str):
        from heartcompass.intake.limits import check_regular

        self.path = Path(path)
        self.size = check_regular(self.path, MAX_LINES_BYTES, "chat export")
        self.memo: dict = {}  # what a parser learnt on its first read (WhatsApp's date order)

    def lines(self) -> Iterator[tuple[int, str]]:
        """(number, line), split only at \\n (and \\r\\n): a U+2028 inside a
        message stays inside it, as the export meant. Read a block at a time
        (one line at a time costs an import a third of its parse), never more
        than a block and one line held."""
        from heartcompass.intake.limits import open_regular

        with open_regular(self.path, "chat export") as f:
            n = 0
            rest = b""  # the start of a line the last block cut
            while block := f.read(BLOCK_BYTES):
                block = rest + block
                end = block.rfind(b"\n") + 1
                if not end:  # no line break yet: one line of megabytes is never held whole
                    if len(block) > MAX_LINE_BYTES:
                        raise self._too_long(n + 1)
                    rest = block
                    continue
                rest = block[end:]
                for line in self._decoded(block[:end], n):
                    n += 1
                    if n == 1:
                        line = line.lstrip("\ufeff")
                    yield n, line[:-1] if line.endswith("\r") else line
            if rest:
                for line in self._decoded(rest + b"\n", n):
                    n += 1
                    if n == 1:
                        line = line.lstrip("\ufeff")
                    yield n, line[:-1] if line.endswith("\r") else line

    def _decoded(self, block: bytes, before: int) -> list[str]:
        """A block of whole lines as text lines; a line too long or not UTF-8 named by its number."""
        try:
            lines = block.decode("utf-8").split("\n")[:-1]
        except UnicodeDecodeError:
            for i, raw in enumerate(block.split(b"\n")[:-1], before + 1):
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError(self.path, f"not UTF-8 text (byte {exc.start} of the line)", i, FIX_UTF8) \
                        from None
            raise
        if len(block) > MAX_LINE_BYTES and any(len(line) > MAX_LINE_BYTES // 4 for line in lines):
            for i, line in enumerate(lines, before + 1):  # characters are at most 4 bytes: measure the suspects
                if len(line.encode("utf-8")) > MAX_LINE_BYTES:
                    raise self._too_long(i)
        return lines

    def _too_long(self, n: int) -> FormatError:
        return FormatError(self.path, f"line {n} is longer than {MAX_LINE_BYTES >> 20} MiB: not a chat export", n,
                           "Is this the right file, and the right --format?")

    def text(self) -> str:
        """The whole text, for JSON (bounded: a JSON export is parsed whole)."""
        from heartcompass.intake.limits import read_limited

        raw = read_limited(self.path, MAX_JSON_BYTES, "chat export")
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise FormatError(self.path, f"not UTF-8 text (byte {exc.start})", raw[:exc.start].count(b"\n") + 1,
                              FIX_UTF8) from None

    def json(self, app: str, fix: str):
        """The export's JSON, parsed once however often it is read (an import reads it through twice)."""
        if "json" not in self.memo:
            self.memo["json"] = load_json(self.text(), self.path, app, fix)
        return self.memo["json"]

    def head(self, size: int = 8192) -> str:
        from heartcompass.intake.limits import open_regular

        with open_regular(self.path, "chat export") as f:
            return f.read(size).decode("utf-8", "ignore").lstrip("\ufeff")


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(number, line) of a text in memory, split as Source.lines splits."""
    for n, line in enumerate(text.split("\n"), 1):
        yield n, line[:-1] if line.endswith("\r") else line


def load_json(text: str, path: Path | str, app: str, fix: str):
    """The export's JSON, or one clear error naming the file and the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, f"not valid JSON ({exc.msg})", exc.lineno, fix) from None
    except RecursionError:
        raise FormatError(path, f"JSON nested too deeply to be a {app} export", 1, fix) from None


def no_messages(path: Path | str, app: str, fix: str) -> FormatError:
    return FormatError(path, f"no {app} messages found", 1, fix)
