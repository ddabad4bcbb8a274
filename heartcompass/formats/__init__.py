"""One module per file format: each parses tolerantly and renders exactly.
`text` holds what they all need (reading a file of ours, conflict marks,
the file kinds); its names are importable from here too."""

from __future__ import annotations

from pathlib import Path

from heartcompass.formats.text import (CONFLICT_HINT, FILE_KINDS, REPAIR_HINT, check_conflict_marks,  # noqa: F401
                                       conflict_line, decode, file_for, read_text)


def validate(path: Path, text: str | None = None) -> None:
    """Parse a person's file by its name; raises FormatError when invalid."""
    from heartcompass.formats import dailylog, events, memory, profile, voice

    path = Path(path)
    if path.suffix.lower() != ".md":
        return  # not a file of ours (a card's avatar.png): no format to check
    if text is None:
        text = read_text(path)
    if path.name == profile.FILENAME:
        profile.parse(text, path)
    elif path.name == events.FILENAME:
        events.parse(text, path)
    elif path.name == memory.FILENAME:
        memory.parse(text, path)
    elif path.name == voice.FILENAME:
        voice.parse(text, path)
    elif path.parent.name == "logs" and path.suffix == ".md":
        dailylog.parse(text, path)
