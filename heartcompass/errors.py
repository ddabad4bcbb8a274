"""Domain errors. The core raises these; the CLI turns each into one clear
message and an exit code, never a traceback."""

from __future__ import annotations

from pathlib import Path


class HeartCompassError(Exception):
    exit_code = 1  # every error HeartCompass reports; 2 is left to usage errors (a bad option or argument)

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class WorkspaceNotFound(HeartCompassError):
    pass


class ConfigError(HeartCompassError):
    pass


class PersonError(HeartCompassError):
    pass


class AmbiguousPerson(PersonError):
    """A name several people answer to: `candidates` are their (slug, name),
    for a caller that can ask which one is meant (the terminal, the phone)."""

    def __init__(self, name: str, candidates: list[tuple[str, str]]):
        super().__init__(f"{name!r} could be several people: " + ", ".join(slug for slug, _ in candidates) + ".",
                         "Use the folder name (slug) to choose one.")
        self.name = name
        self.candidates = candidates


class GitError(HeartCompassError):
    pass


class ReviewError(HeartCompassError):
    """A question of the gardener's that cannot be answered: unknown, gone, or an edit that does not fit."""


class MissingKeyError(HeartCompassError):
    """No key or endpoint for the model: exit 1 like every error we report (2 is a usage error)."""


class LLMError(HeartCompassError):
    pass


class FormatError(HeartCompassError):
    """A file that cannot be parsed: names the file, the line when known,
    and what to do. Such a file is never rewritten."""

    def __init__(self, path: Path | str, problem: str, line: int | None = None,
                 hint: str | None = None):
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {problem}", hint)
        self.path = Path(path)
        self.line = line
        self.problem = problem


class UnsafePathError(FormatError):
    """A file reached through a symbolic link (see paths.py): never read or
    written, so nothing outside the workspace is sent to a model or changed."""


class WriteError(HeartCompassError):
    """A file the workspace needs to change cannot be written (permissions,
    a read-only or full disk). Nothing else was changed for it."""

    def __init__(self, path: Path | str, problem: str, hint: str | None = None):
        super().__init__(f"{path}: cannot be written ({problem})", hint)
        self.path = Path(path)
