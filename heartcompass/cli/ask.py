"""Questions asked in a terminal (questionary), by one set of rules:

- only when a person is there: stdin and stdout both a terminal (piped or
  from cron, no question is asked; the caller's `piped` answer stands);
- Ctrl-C (and end of input) comes through questionary's unsafe_ask(): its
  .ask() catches Ctrl-C itself, prints "Cancelled by user" and returns None,
  which a caller easily reads as an empty answer and carries on. `answer()`
  ends the whole command (nothing written); `confirm()` and `choose()` return
  None, for a command that has something to keep or finish first (a note
  logged, a run half done) and says what Ctrl-C means there."""

from __future__ import annotations

from typing import Any

import typer

from heartcompass.cli.common import err, interactive

CANCELLED_EXIT = 130  # as a shell reports a command ended by Ctrl-C


def can_ask() -> bool:
    """Whether a question may be asked now: a person at the terminal."""
    return interactive()


def asked(question: Any) -> Any:
    """The answer to a questionary question, or None on Ctrl-C or end of input."""
    try:
        return question.unsafe_ask()
    except (KeyboardInterrupt, EOFError):
        return None


def answer(question: Any, cancelled: str = "nothing was changed") -> Any:
    """The answer to a questionary question; Ctrl-C exits with CANCELLED_EXIT."""
    value = asked(question)
    if value is None:
        err.print(f"Cancelled; {cancelled}.")
        raise typer.Exit(CANCELLED_EXIT)
    return value


def confirm(text: str, default: bool, piped: bool = False) -> bool | None:
    """Yes or no; `piped` when no one can be asked; None on Ctrl-C."""
    if not can_ask():
        return piped
    import questionary

    value = asked(questionary.confirm(text, default=default))
    return None if value is None else bool(value)


def choose(text: str, choices: list[str], default: str | None = None, piped: str | None = None) -> str | None:
    """One of the choices; `piped` when no one can be asked; None on Ctrl-C."""
    if not can_ask():
        return piped
    import questionary

    return asked(questionary.select(text, choices=choices, default=default))


def text(prompt: str, default: str = "") -> str | None:
    """A line the user types; None on Ctrl-C (or when no one can be asked)."""
    if not can_ask():
        return None
    import questionary

    value = asked(questionary.text(prompt, default=default))
    return None if value is None else str(value)


def pick(text: str, choices: list[tuple[str, str]], cancelled: str = "nothing was done") -> str:
    """The value of one of the (title, value) choices; Ctrl-C exits with CANCELLED_EXIT.
    Only for a caller that has checked can_ask()."""
    import questionary

    return str(answer(questionary.select(text, choices=[questionary.Choice(t, value=v) for t, v in choices]),
                      cancelled))
