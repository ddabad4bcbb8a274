"""Prompt files: shipped in prompts/, overridable by a file of the same name
in the workspace's prompts/. Placeholders are $name style (string.Template),
so braces in a prompt need no escaping."""

from __future__ import annotations

from pathlib import Path
from string import Template

from heartcompass.errors import HeartCompassError
from heartcompass.resources import shipped_dir
from heartcompass.store.workspace import Workspace


def prompt_path(ws: Workspace | None, filename: str) -> Path:
    if ws is not None:
        override = ws.prompts_dir / filename
        if override.is_file() or override.is_symlink():  # a link is refused when read, not skipped
            return override
    path = shipped_dir("prompts") / filename
    if not path.is_file():
        raise HeartCompassError(f"No prompt file {filename!r} (shipped or in {ws.prompts_dir if ws else 'prompts/'}).")
    return path


def render(ws: Workspace | None, filename: str, **values: object) -> str:
    from heartcompass.formats import read_text

    path = prompt_path(ws, filename)
    text = read_text(path)  # a linked or non-UTF-8 override is refused, named
    return Template(text).safe_substitute({k: str(v) for k, v in values.items()}).strip()
