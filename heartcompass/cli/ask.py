"""Questions asked in a terminal (questionary), with one rule for Ctrl-C:
it cancels the whole command and nothing is written. questionary's .ask()
catches Ctrl-C itself, prints "Cancelled by user" and returns None, which a
caller easily reads as an empty answer and carries on; here Ctrl-C (and
end of input) comes through unsafe_ask() and ends the command."""

from __future__ import annotations

from typing import Any

import typer

from heartcompass.cli.common import err

CANCELLED_EXIT = 130  # as a shell reports a command ended by Ctrl-C


def answer(question: Any, cancelled: str = "nothing was changed") -> Any:
    """The answer to a questionary question; Ctrl-C exits with CANCELLED_EXIT."""
    try:
        value = question.unsafe_ask()
    except (KeyboardInterrupt, EOFError):
        value = None
    if value is None:
        err.print(f"Cancelled; {cancelled}.")
        raise typer.Exit(CANCELLED_EXIT)
    return value
