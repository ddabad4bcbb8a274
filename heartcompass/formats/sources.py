"""Source markers: where a line of EVENTS.md, MEMORY.md or PROFILE.md came
from, written at its end in parentheses.

    - Moved to Berlin in March (log 2026-03-02)

`log DATE` (the day's log the gardener read it in), `told` (a narrative
the user told), `import` (an imported card or chat), `hand` (the user wrote
it). Markers are ours alone: one a model writes is removed (see FORGED)."""

from __future__ import annotations

import re

SOURCES = r"log \d{4}-\d{2}-\d{2}|told|import|hand"
SOURCE = re.compile(SOURCES)  # the text between the parentheses (fullmatch)
MARKER = re.compile(rf"\((?:{SOURCES})\)$")  # a line's closing marker, e.g. "(log 2026-03-02)"
_TRAILING = re.compile(rf"\s*{MARKER.pattern}")
# Anything that reads as a marker, anywhere, in any case, full-width
# parentheses too: in a model's text, "(hand)" would forge the user's
# protection of a line and "(told)" a provenance it does not have.
FORGED = re.compile(r"\s*[(（]\s*(hand|told|import|log(\s+\d{4}-\d{2}-\d{2})?)\s*[)）]", re.I)


def unforged(text: str) -> str:
    """text without anything that reads as a source marker, look-alike letters
    and brackets included ("(hаnd)" with a Cyrillic а; the caller has applied
    NFKC, which makes "﹙hand﹚" plain), removed until none is left: "X ((hand)hand)"
    loses its inner marker and then the one that made."""
    from heartcompass.sanitize import look_alike_skeleton

    while True:
        spans = [m.span() for m in FORGED.finditer(look_alike_skeleton(text))]
        if not spans:
            return text
        for start, end in reversed(spans):
            text = text[:start] + text[end:]
        text = text.strip()


def without_source(text: str) -> str:
    """The text without its closing marker (and the space before it)."""
    return _TRAILING.sub("", text)
