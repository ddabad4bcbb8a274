"""heartcompass sync — share one brain between devices through your own git remote."""

from __future__ import annotations

import typer

from heartcompass.cli.common import err, escape, out, workspace


def register(app: typer.Typer) -> None:
    app.command("sync")(sync)


def sync(ctx: typer.Context) -> None:
    """Commit pending hand edits, pull (rebase) and push to sync.remote."""
    from heartcompass import audit

    ws = workspace(ctx)
    result = audit.sync(ws)
    if result.conflicts:
        err.print(f"[bold red]Conflict[/] while pulling from {escape(result.remote)}/{escape(result.branch)} in:")
        for path in result.conflicts:
            err.print(f"  {escape(path)}")
        err.print("[dim]Both versions are in those files between <<<<<<< and >>>>>>> marks; nothing was discarded. "
                  "Edit them, then: git add FILES && git rebase --continue, and run heartcompass sync again.[/]")
        raise typer.Exit(1)
    out.print(f"Synced with {escape(result.remote)}/{escape(result.branch)}"
              + (f" ({result.committed} pending edits committed first)." if result.committed else "."))
