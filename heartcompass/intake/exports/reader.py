"""The one reader of "a header line, then body lines, then the next
header" exports (WhatsApp, iMessage, Signal, WeChat TXT, QQ): one message
held at a time, whatever the file's size, each with the number of its
header line for the error reports."""

from __future__ import annotations

from typing import Callable, Iterator, Protocol, TypeVar

from heartcompass.intake.exports.common import Source

H = TypeVar("H")
# A message of more lines than this is the wrong file (or a runaway export): the rest of it is left out.
MAX_BODY_LINES = 10_000


class Skips(Protocol):
    def skip(self, number: int, why: str) -> None: ...


def records(source: Source, header: Callable[[str], H | None], report: Skips, stray: str,
            before: Callable[[int, str], bool] | None = None) -> Iterator[tuple[int, H, list[str]]]:
    """(the header's line number, what `header` made of it, the lines below
    it up to the next header), one message at a time. A line before the
    first header that `before` does not take (a title, a field) is reported
    by number, as `stray` (what it is not), and skipped."""
    start = 0
    head: H | None = None
    body: list[str] = []
    for n, line in source.lines():
        found = header(line)
        if found is not None:
            if head is not None:
                yield start, head, body
            start, head, body = n, found, []
        elif head is not None:
            if len(body) < MAX_BODY_LINES:
                body.append(line)
            elif len(body) == MAX_BODY_LINES:
                report.skip(n, f"the message of line {start} goes on past {MAX_BODY_LINES:,} lines: "
                               "the rest of it is left out")
                body.append("")  # one report per message, not one per line
        elif line.strip() and not (before is not None and before(n, line)):
            report.skip(n, f"{stray}: {line.strip()[:60]!r}")
    if head is not None:
        yield start, head, body
