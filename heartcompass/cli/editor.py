"""The user's editor: $VISUAL, then $EDITOR, split like a shell splits it
("code --wait" is a program and an argument), then nano or vi. A missing
program or a failed run is one clear line naming the variable to fix."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from heartcompass.errors import HeartCompassError

FIX = "Set it to an editor you have, e.g. export {var}=nano (or 'code --wait' for VS Code)."


def editor_command() -> tuple[list[str], str]:
    """(argv, where it came from: '$VISUAL', '$EDITOR' or 'default')."""
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            try:
                argv = shlex.split(value)
            except ValueError as exc:  # an unbalanced quote
                raise HeartCompassError(f"${var} is not a valid command ({exc}): {value!r}.",
                                        FIX.format(var=var)) from None
            if argv:
                return argv, f"${var}"
    if not (sys.stdin.isatty() and sys.stdout.isatty()):  # a terminal editor with no terminal only garbles
        raise HeartCompassError("No terminal to open an editor in, and $VISUAL / $EDITOR is not set.",
                                "Run it in a terminal, or set one that opens its own window, e.g. "
                                "export EDITOR='code --wait'.")
    for fallback in ("nano", "vi"):
        if shutil.which(fallback):
            return [fallback], "default"
    raise HeartCompassError("No editor found: $EDITOR is not set and neither nano nor vi is installed.",
                            FIX.format(var="EDITOR"))


def run_editor(path: Path) -> None:
    """Open path in the user's editor and wait for it to close. An editor
    that cannot start, or exits with an error (vim's :cq), raises."""
    argv, source = editor_command()
    var = source.lstrip("$") if source != "default" else "EDITOR"
    where = f" (from {source}={shlex.join(argv)!s})" if source != "default" else ""
    try:
        result = subprocess.run([*argv, str(path)], check=False)
    except FileNotFoundError:
        raise HeartCompassError(f"The editor {argv[0]!r}{where} was not found.", FIX.format(var=var)) from None
    except PermissionError:
        raise HeartCompassError(f"The editor {argv[0]!r}{where} cannot be run (not executable).",
                                FIX.format(var=var)) from None
    except OSError as exc:
        raise HeartCompassError(f"The editor {argv[0]!r}{where} could not start: {exc.strerror or exc}.",
                                FIX.format(var=var)) from None
    if result.returncode != 0:
        raise HeartCompassError(f"The editor {argv[0]!r}{where} exited with status {result.returncode}; "
                                "nothing was saved.", "Save and quit normally to keep your text.")
