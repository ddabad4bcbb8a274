"""heartcompass voice / quote — the person's own words and rhythm (VOICE.md)."""


from typing import Annotated

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import escape, out, print_json, workspace


def register(app: typer.Typer) -> None:
    app.command("voice")(voice)
    app.command("quote")(quote)


def voice(
    ctx: typer.Context,
    name: PersonArg,
    refresh: Annotated[bool, typer.Option("--refresh", help="Pick their lines and learn their rhythm again from "
                                          "the imported messages (your own lines stay).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show how someone writes: their real lines, yours to them, and their reply rhythm."""
    from heartcompass.formats import voice as voice_fmt
    from heartcompass.cli import lookup
    from heartcompass.memory.voice import guidance, load_or_new

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json)
    prof = person.load_profile()
    if refresh:
        from heartcompass.memory import voice as voice_mod

        sha = voice_mod.refresh_and_commit(ws, person, prof.names())
        if sha and not as_json:
            out.print(f"[dim]VOICE.md refreshed ({sha[:8]}).[/]")
    v = load_or_new(person.dir, prof.name)
    if as_json:
        print_json({"person": person.slug, "rhythm": v.rhythm,
                    "theirs": [l.__dict__ for l in v.lines(voice_fmt.THEIRS)],
                    "mine": [l.__dict__ for l in v.lines(voice_fmt.MINE)]}, indent=2)
        return
    shape = guidance(v.rhythm, prof.name, persona=False)
    out.print(f"[bold]{escape(prof.name)}[/] [dim]people/{escape(person.slug)}/VOICE.md[/]")
    out.print(escape(shape) if shape else "[dim]No rhythm yet: import a real chat ('heartcompass import').[/]")
    for title in (voice_fmt.THEIRS, voice_fmt.MINE):
        out.rule(title)
        lines = v.lines(title)
        if not lines:
            out.print("[dim]none yet[/]")
        for line in lines:
            out.print(f"“{escape(line.text)}” [dim]({escape(line.source)})[/]")


def quote(
    ctx: typer.Context,
    name: PersonArg,
    text: Annotated[str, typer.Argument(help="Words they really wrote or said, verbatim.")],
    mine: Annotated[bool, typer.Option("--mine", help="Words YOU wrote to them (helps the coach sound like "
                                       "you).")] = False,
) -> None:
    """Keep a line someone really wrote, as an example of how they write."""
    from heartcompass.memory import voice as voice_mod
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name)
    sha = voice_mod.quote_and_commit(ws, person, text, mine=mine)
    where = "your words to them" if mine else "their words"
    if sha is None:
        out.print(f"Already in {where}.")
    else:
        out.print(f"Kept in people/{escape(person.slug)}/VOICE.md ({where}) — {sha[:8]}")
