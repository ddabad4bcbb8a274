"""heartcompass review — your Yes or No to what the gardener would change
about who someone is (a relation, a birthday, an alias, a told line...)."""


from typing import Annotated

import typer

from heartcompass.cli.common import HeartCompassGroup, err, escape, interactive, out, print_json, workspace
from heartcompass.cli.ask import CANCELLED_EXIT

app = typer.Typer(cls=HeartCompassGroup, invoke_without_command=True, no_args_is_help=False,
                  rich_markup_mode=None, pretty_exceptions_enable=False,
                  help="Answer what the gardener asks before it changes who someone is.",
                  context_settings={"help_option_names": ["-h", "--help"]})

IdArg = Annotated[str, typer.Argument(help="The question's id, e.g. q3 (heartcompass review --json lists them).")]
CHOICES = ["Yes: apply it", "No: never ask this again on this evidence", "Edit: apply my own value instead",
           "Skip: ask me later"]


@app.callback()
def review(ctx: typer.Context,
           as_json: Annotated[bool, typer.Option("--json", help="List the waiting questions as JSON.")] = False
           ) -> None:
    """Each waiting question: what would change, why it is asked, the entries it rests on.

    At a terminal you answer each one: yes, no, edit (your own value or
    line) or skip. Without a terminal the questions are listed; answer them
    with 'review yes ID' or 'review no ID'. Questions expire after
    review.expire_days (default 14)."""
    if ctx.invoked_subcommand is not None:
        return
    from heartcompass.memory import review as core
    from heartcompass.store import clock

    ws = workspace(ctx)
    problem = core.store_problem(ws)
    if problem:  # set aside by the look below: said here once
        err.print(f"[yellow]Warning:[/] {escape(problem)}; set aside as questions.broken. The gardener asks "
                  "again at its next run.")
    found = core.waiting(ws, clock.today(ws))
    if as_json:
        print_json([core.as_json(q) for q in found.questions], indent=1)
        return
    for q in found.expired:
        err.print(f"[dim]Expired unanswered after {ws.config.get('review.expire_days')} days: "
                  f"{escape(q.person)}: {escape(q.what)} ({q.id}).[/]")
    if not found.questions:
        out.print("No questions wait for your answer.")
        return
    if not interactive():
        for q in found.questions:
            _show(q)
        out.print(f"{_count(len(found.questions))}. Answer each with: heartcompass review yes ID, or "
                  "heartcompass review no ID (at a terminal, heartcompass review asks them one by one).")
        return
    _ask_each(ws, found.questions)


def _count(n: int) -> str:
    return f"{n} question{'s' if n != 1 else ''} wait{'s' if n == 1 else ''} for your answer"


def _show(q) -> None:
    from heartcompass.memory.review import old_and_new, quoted

    old, new = old_and_new(q)
    out.print(f"[bold]{q.id}[/] · {escape(q.person)} · asked {escape(q.asked)}")
    out.print(f"  {escape(q.what)}")
    if q.kind in ("rewrite", "removal"):
        out.print(f"  [red]- {escape(str(old).removeprefix('- '))}[/]")
        if new is not None:
            out.print(f"  [green]+ {escape(str(new).removeprefix('- '))}[/]")
    if q.reason:
        out.print(f"  [dim]Why asked: {escape(q.reason)}[/]")
    for entry in q.evidence:
        out.print(f"  [dim]“{escape(quoted(entry))}”[/]")


def _ask_each(ws, questions) -> None:
    applied: list[str] = []
    try:
        stopped = not all(_ask_one(ws, q, applied) for q in questions)
    except KeyboardInterrupt:  # while a Yes was applied, between two questions: the same as at one
        stopped = True
    if stopped:
        done = f"{len(applied)} applied ({', '.join(applied)})" if applied else "nothing applied"
        err.print(f"Stopped; {done}. The others still wait.")
        raise typer.Exit(CANCELLED_EXIT)


def _ask_one(ws, q, applied: list[str]) -> bool:
    """One question asked and answered (the ids applied go to `applied`); False on Ctrl-C."""
    from heartcompass.cli import ask
    from heartcompass.errors import HeartCompassError
    from heartcompass.memory import review as core
    from heartcompass.memory.review_apply import accept
    from heartcompass.store import clock

    out.print()
    _show(q)
    choice = ask.choose("Apply this change?", CHOICES, default=CHOICES[0])
    if choice is None:
        return False
    if choice == CHOICES[3]:
        return True
    try:
        if choice == CHOICES[1]:
            core.refuse(ws, q.id)
            out.print("[dim]Not applied; not asked again on this evidence.[/]")
            return True
        edited = None
        if choice == CHOICES[2]:
            edited = ask.text("Your value or line instead:", default=core.editable(q))
            if edited is None:
                return False
        answer = accept(ws, q.id, clock.now(ws), edited)
    except HeartCompassError as exc:  # this one stays waiting; the next is asked
        err.print(f"[bold red]Not applied:[/] {escape(exc.message)}")
        return True
    if answer.applied:
        applied.append(q.id)
        out.print(f"Applied and committed [dim]({answer.sha[:8] if answer.sha else '-'})[/]: "
                  f"{escape(answer.message)}")
    else:
        out.print(f"[dim]{escape(answer.message)}[/]")
    return True


@app.command("yes")
def yes(ctx: typer.Context, ident: IdArg) -> None:
    """Apply the change a question asks about, in one commit."""
    from heartcompass.memory.review_apply import accept
    from heartcompass.store import clock

    ws = workspace(ctx)
    answer = accept(ws, ident, clock.now(ws))
    if answer.applied:
        out.print(f"Applied and committed [dim]({answer.sha[:8] if answer.sha else '-'})[/]: {escape(answer.message)}")
    else:
        out.print(escape(answer.message))


@app.command("no")
def no(ctx: typer.Context, ident: IdArg) -> None:
    """Refuse it: the same change on the same evidence is never asked again."""
    from heartcompass.memory import review as core

    q = core.refuse(workspace(ctx), ident)
    out.print(f"Not applied: {escape(q.person)}: {escape(q.what)}. Not asked again on this evidence.")
