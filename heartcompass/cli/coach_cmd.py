"""heartcompass coach — what to reply to the real person."""


import shlex
import sys
from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import ModelOption, err, escape, interactive, out, print_json, workspace
from heartcompass.errors import HeartCompassError
from heartcompass.wording import counted


def register(app: typer.Typer) -> None:
    app.command("coach")(coach)


def coach(
    ctx: typer.Context,
    name: PersonArg,
    message: Annotated[Optional[str], typer.Argument(help="The message they sent (default: read a pasted "
                       "thread from stdin).", show_default=False)] = None,
    follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep coaching as the conversation goes on.")
                      ] = False,
    save: Annotated[bool, typer.Option("--save", help="Save the exchange to their log (as notes).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
    model: ModelOption = None,
) -> None:
    """2 to 4 reply candidates with tone and why, the risks, and a suggestion or two."""
    from heartcompass.llm import providers as llm
    from heartcompass.store import clock
    from heartcompass.talk.coach import CoachSession
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json)
    if message is None:
        try:
            message = _read("Their message: ") if interactive() else sys.stdin.read().strip()
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
    message = (message or "").strip()
    if not message:
        raise HeartCompassError("No message to coach on.",
                                f"heartcompass coach {shlex.quote(name)} \"the message they sent\"")
    settings = llm.settings(ws, model)
    # The provider (a second to import) is made once the person's files have been read.
    session = CoachSession(ws, person, None, clock.now(ws), make_model=lambda: llm.make_chat_model(ws, settings))
    show = (lambda a: print_json(a.model_dump(), indent=2)) if as_json else lambda a: render(a, session.name)
    show(session.advise(message))
    try:
        while follow:
            mine = _read("What did you reply? (a number picks that candidate; Enter to skip) ")
            theirs = _read("Their next message (Enter to finish): ") if mine is not None else None
            if theirs is None or not theirs.strip():
                break
            show(session.advise(theirs.strip(), session.chosen(mine or "") or None))
    except KeyboardInterrupt:  # one Ctrl-C ends the conversation, at a question or while the model thinks
        out.print("[dim]Stopped.[/]")
    if save or (interactive() and not as_json and _confirm("Save this exchange to their log for the gardener?")):
        count = session.save_and_commit()
        if not as_json:
            out.print(f"[dim]Saved {counted(count, 'message')} to people/{escape(person.slug)}/logs/ as notes.[/]")


def _read(prompt: str) -> str | None:
    if interactive():
        from prompt_toolkit import prompt as pt_prompt

        try:
            return pt_prompt(prompt)
        except EOFError:  # Ctrl-D: the end of the conversation; Ctrl-C goes on up and stops it at once
            return None
    line = sys.stdin.readline()
    return line.rstrip("\n") if line else None


def _confirm(question: str) -> bool:
    """Ctrl-C saves nothing and ends the command as Ctrl-C does everywhere (exit 130)."""
    from heartcompass.cli.ask import CANCELLED_EXIT, confirm

    yes = confirm(question, default=False, piped=False)
    if yes is None:
        err.print("Cancelled; nothing was saved.")
        raise typer.Exit(CANCELLED_EXIT)
    return yes


def render(advice, name: str) -> None:
    from rich.panel import Panel

    out.print(Panel(escape(advice.reading), title=f"[bold]What {escape(name)} probably means[/]",
                    title_align="left", border_style="cyan"))
    for n, c in enumerate(advice.candidates, 1):
        out.print(f"[bold]{n}.[/] [green]{escape(c.reply)}[/]")
        out.print(f"   [dim]{escape(c.tone)} — {escape(c.why)}[/]")
    if advice.risks:
        out.print("[bold yellow]Risks[/]")
        for r in advice.risks:
            out.print(f"  • {escape(r)}")
    if advice.suggestions:
        out.print("[bold]Suggestions[/]")
        for s in advice.suggestions:
            out.print(f"  → {escape(s)}")
