"""heartcompass context — exactly what chat would send."""


from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import err, escape, out, print_json, workspace


def register(app: typer.Typer) -> None:
    app.command("context")(context)


def build_for(ws, name: str, as_of: str | None, about: str | None = None, asking: bool = True):
    from heartcompass.memory import context as context_mod
    from heartcompass.store import clock
    from heartcompass.cli import lookup

    person = lookup.person(ws, name, asking=asking)
    rev, tag = context_mod.parse_time_travel(ws, as_of) if as_of else (None, None)
    return person, context_mod.build(ws, person, clock.now(ws), rev=rev, history_tag=tag, about=about), tag


def context(
    ctx: typer.Context,
    name: PersonArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Build it from the files as they were at a "
                     "date (YYYY-MM-DD) or commit.", show_default=False)] = None,
    about: Annotated[Optional[str], typer.Option("--for", help="Show the prompt chat would send for this "
                     "message: what it names is chosen first.", show_default=False)] = None,
) -> None:
    """Print the exact prompt chat would send, with tokens per section and what was left out."""
    from heartcompass.errors import HeartCompassError
    from heartcompass.sanitize import strip_controls

    ws = workspace(ctx)
    if about is not None and not about.strip():
        raise HeartCompassError("--for needs the message to choose for, e.g. --for \"remember the rainbow sidewalk?\"")
    person, c, _ = build_for(ws, name, as_of, about, asking=not as_json)
    if as_json:
        print_json({
            "person": person.slug, "as_of": c.rev, "now": c.now, "budget": c.budget, "tokens": c.tokens,
            "history_tokens": c.history_tokens, "history_budget": c.history_budget,
            "messages": [{"role": r, "content": t} for r, t in c.messages()],
            "sections": [s.__dict__ for s in c.sections],
            "left_out": c.left_out, "warnings": c.warnings,
            "chosen_for": c.about, "chosen_for_it": c.relevant,
        }, indent=2)
        return
    for role, text in c.messages():
        out.rule(f"[bold]{role}[/]", align="left", style="dim")
        out.print(strip_controls(text), markup=False, highlight=False)  # file and model text
    out.rule(style="dim")
    print_summary(c)
    for warning in c.warnings:
        err.print(f"[yellow]Warning:[/] {escape(warning)}")


def print_summary(c) -> None:
    """Tokens per section and what was left out."""
    from rich.table import Table

    from heartcompass.sanitize import strip_controls
    from heartcompass.wording import counted

    table = Table(box=None, header_style="bold", title="Tokens (estimated)", title_justify="left")
    for col in ("section", "tokens", "entries", "left out"):
        table.add_column(col, justify="left" if col == "section" else "right")
    for s in c.sections:
        if s.included or s.left_out:
            table.add_row(escape(s.heading), str(s.tokens), str(s.included),
                          f"[yellow]{s.left_out}[/]" if s.left_out else "0")
    table.add_row("[bold]system prompt[/]", f"[bold]{c.tokens}[/] / {c.budget}", "", "")
    table.add_row("recent turns", f"{c.history_tokens} / {c.history_budget}", str(len(c.history)), "")
    out.print(table)
    if c.about:  # what the selection was for: the user's own words, one line
        said = " / ".join(strip_controls(t).replace("\n", " ") for t in c.about)
        said = said if len(said) <= 70 else said[:69] + "…"
        out.print(f"Chosen for: [italic]{escape(said)}[/] ({counted(c.relevant, 'entry', 'entries')} it names)")
    counts = {s.key: s.left_out for s in c.sections}
    for key, items in c.left_out.items():
        shown = "; ".join(escape(i.splitlines()[0][:70]) for i in items[:5])
        more = f" … and {counts[key] - 5} more" if counts[key] > 5 else ""
        out.print(f"[yellow]Left out of {key}:[/] {shown}{more}")
