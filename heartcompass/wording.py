"""How a count reads in English ("1 message", "2 messages"): one home for
every message, summary line and commit subject that counts something."""

from __future__ import annotations


def counted(count: int, word: str, many: str | None = None) -> str:
    """'1 message', '3 messages'; `many` for a plural that is not word + 's'."""
    return f"{count} {word if count == 1 else many or word + 's'}"
