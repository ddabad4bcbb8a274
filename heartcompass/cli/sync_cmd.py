"""heartcompass sync — share one brain between devices through your own git remote."""


from typing import Annotated

import typer

from heartcompass.cli.common import err, escape, out, workspace
from heartcompass.errors import HeartCompassError


def register(app: typer.Typer) -> None:
    app.command("sync")(sync)


def sync(ctx: typer.Context,
         cont: Annotated[bool, typer.Option("--continue", help="Finish a sync that stopped on a conflict, once "
                                            "you have fixed the marked files.")] = False,
         abort: Annotated[bool, typer.Option("--abort", help="Give up a sync that stopped on a conflict: back to "
                                             "how things were before it (your commits are kept).")] = False,
         ) -> None:
    """Commit pending hand edits, pull (rebase) and push to sync.remote."""
    from heartcompass.store import sync as sync_mod

    if cont and abort:
        raise HeartCompassError("Use --continue or --abort, not both.")
    ws = workspace(ctx, check_config=not (cont or abort))  # the settings file may be what is in conflict
    result = sync_mod.sync(ws, "continue" if cont else "abort" if abort else None)
    if result.kept:
        out.print(escape(result.kept[0].upper() + result.kept[1:]) + ".")
    if result.conflicts:
        err.print(f"[bold red]Conflict[/] while pulling from {escape(result.remote)}/{escape(result.branch)} in:")
        for path in result.conflicts:
            err.print(f"  {escape(path)}")
        err.print("[dim]Both versions are in those files between <<<<<<< and >>>>>>> marks; nothing was discarded. "
                  "Edit them, then run 'heartcompass sync --continue' (or 'heartcompass sync --abort' to go "
                  "back).[/]")
        raise typer.Exit(1)
    if abort:
        out.print("Sync abandoned: the workspace is as it was before it (nothing was pushed).")
        return
    out.print(f"Synced with {escape(result.remote)}/{escape(result.branch)}"
              + (f" ({result.committed} pending edits committed first)." if result.committed else "."))
