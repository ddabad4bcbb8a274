"""Files shipped with the package: the workspace template, prompts, examples.

In a wheel they live inside the package (pyproject force-includes the
top-level folders); in a source checkout or editable install they are the
repository's top-level folders."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped_dir(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"HeartCompass is installed without its '{name}' folder; reinstall it.")
