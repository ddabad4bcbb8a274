"""heartcompass edit — open a person's file in your editor; validated, committed."""


import shlex
from typing import Annotated

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import err, escape, out, workspace


def register(app: typer.Typer) -> None:
    app.command("edit")(edit)


def edit(ctx: typer.Context,
         name: PersonArg,
         file: Annotated[str, typer.Argument(help="profile, events, memory or voice.")] = "profile") -> None:
    """Edit PROFILE.md, EVENTS.md, MEMORY.md or VOICE.md; an invalid result never reaches the file."""
    from heartcompass import formats
    from heartcompass.store import audit
    from heartcompass.atomic import file_checksum
    from heartcompass.cli.editor import run_editor
    from heartcompass.errors import FormatError
    from heartcompass.cli import lookup
    from heartcompass.store.workspace import keep_rejected

    ws = workspace(ctx)
    person = lookup.person(ws, name)
    filename = formats.file_for(file)
    path = person.dir / filename
    audit.commit_earlier(ws, [person], "edit")
    original = formats.read_text(path) if path.exists() else ""  # a link or bad bytes: named, not opened
    before = file_checksum(path)
    # The editor works on a copy: the real file keeps its last valid content.
    scratch = ws.state_dir / "edit" / person.slug / filename
    scratch.parent.mkdir(parents=True, exist_ok=True)
    scratch.write_text(original, encoding="utf-8")
    try:
        while True:
            run_editor(scratch)
            text = scratch.read_text(encoding="utf-8")
            try:
                formats.validate(path, text)
                break
            except FormatError as exc:
                err.print(f"[bold red]Not saved:[/] {escape(exc.message)}")
                if exc.hint:
                    err.print(f"[dim]{escape(exc.hint)}[/]")
                if not ask_reopen():
                    kept = keep_rejected(ws, person.slug, filename, text)
                    err.print(f"{escape(ws.rel(path))} is unchanged. Your text is kept in {escape(ws.rel(kept))} "
                              "(never committed): fix it there and copy it over "
                              f"{escape(ws.rel(path))}, or run again and paste it in: heartcompass edit "
                              f"{escape(shlex.quote(person.slug))} {escape(shlex.quote(file))}")
                    raise typer.Exit(1)
        if text == original:
            out.print("[dim]No changes.[/]")
            return
        sha = audit.save_edit(ws, person, path, text, before)
        out.print(f"Saved {escape(ws.rel(path))}" + (f" [dim]({sha[:8]})[/]" if sha else "") + ".")
        if filename == "PROFILE.md":
            _warn_taken(ws, person)
    finally:
        scratch.unlink(missing_ok=True)


def _warn_taken(ws, person) -> None:
    """A name or alias typed by hand that someone else already answers to."""
    from heartcompass.store.people import collisions

    for c in collisions(ws, person.load_profile().names(), exclude=person.slug):
        err.print(f"[yellow]Warning:[/] {escape(c.describe())}; looking it up is now ambiguous "
                  "('heartcompass doctor' lists such names).")


def ask_reopen() -> bool:
    """Not asked when piped, and Ctrl-C: the text is kept aside, the file stays as it was."""
    from heartcompass.cli.ask import choose

    reopen = "Reopen it in the editor"
    return choose("The file is not valid. What now?", [reopen, "Discard my changes"], piped=None) == reopen
