"""Running a command on a real pseudo-terminal (pexpect), as a person types
it: typer's CliRunner is not a terminal, and a crash that only a terminal
meets (a live progress bar, a questionary prompt) went unseen there.

The command runs as its own process against a workspace and the scripted
model server (stub_server.py) on 127.0.0.1."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pexpect

from waits import DEADLINE

# A cursor hidden by a live display and shown again when it ends.
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
ENTER, DOWN, CTRL_C = "\r", "\x1b[B", "\x03"


def spawn(root: Path, *args: str, timeout: float = DEADLINE, env: dict | None = None) -> pexpect.spawn:
    """`heartcompass --workspace ROOT ARGS` on a 40x120 terminal."""
    environ = {**os.environ, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1", "COLUMNS": "120",
               "LINES": "40", **(env or {})}
    environ.pop("CI", None)  # rich draws no live display where CI is set
    child = pexpect.spawn(sys.executable, ["-m", "heartcompass", "--workspace", str(root), *args], env=environ,
                          encoding="utf-8", timeout=timeout, dimensions=(40, 120), cwd=str(root),
                          use_poll=True)  # select() fails on a descriptor past 1024, as late in the whole suite
    child.logfile_read = io.StringIO()  # all it drew, across every expect()
    return child


def finish(child: pexpect.spawn) -> tuple[int, str]:
    """Wait for the end; the exit code and everything it drew."""
    child.expect(pexpect.EOF)
    child.close()
    code = child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)
    return code, child.logfile_read.getvalue()


def screen_text(raw: str) -> str:
    """What was drawn, without the terminal's control sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r", "", raw)


def assert_clean_end(raw: str) -> None:
    """No traceback, and a cursor that was hidden is shown again."""
    text = screen_text(raw)
    assert "Traceback" not in text and "Error" not in text.replace("Error:", ""), text[-2000:]
    if HIDE_CURSOR in raw:
        assert raw.rfind(SHOW_CURSOR) > raw.rfind(HIDE_CURSOR), "the cursor was left hidden"
