"""One module per file format: each parses tolerantly and renders exactly."""

from __future__ import annotations

from pathlib import Path

PERSON_FILES = ("PROFILE.md", "EVENTS.md", "MEMORY.md")
FILE_KINDS = {"profile": "PROFILE.md", "events": "EVENTS.md", "memory": "MEMORY.md", "voice": "VOICE.md"}


def validate(path: Path, text: str | None = None) -> None:
    """Parse a person's file by its name; raises FormatError when invalid."""
    from heartcompass.formats import dailylog, events, memory, profile, voice

    path = Path(path)
    if text is None:
        text = path.read_text(encoding="utf-8")
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


def file_for(kind: str) -> str:
    """'profile' / 'PROFILE.md' / 'profile.md' -> 'PROFILE.md'."""
    key = kind.strip().lower().removesuffix(".md")
    if key in FILE_KINDS:
        return FILE_KINDS[key]
    from heartcompass.errors import HeartCompassError

    raise HeartCompassError(f"Unknown file {kind!r}.", "Use profile, events, memory or voice.")
