"""heartcompass watch — commit hand edits from any editor as they happen."""


from typing import Annotated

import typer

from heartcompass.cli.common import err, escape, out, workspace


def register(app: typer.Typer) -> None:
    app.command("watch")(watch)


def watch(ctx: typer.Context,
          debounce: Annotated[float, typer.Option("--debounce", help="Seconds of quiet before a burst of saves "
                                                  "is committed.", min=0.1)] = 1.0) -> None:
    """Validate and commit every hand edit under people/ (until Ctrl-C)."""
    from heartcompass.store import audit
    from heartcompass.intake.watcher import EditWatcher

    ws = workspace(ctx)
    for sha in audit.commit_earlier(ws, None, "watch"):  # what was edited before we started
        out.print(f"[dim]committed earlier edits ({sha[:8]})[/]")
    waiting = {"shown": False}

    def on_wait(owner):
        if not waiting["shown"]:
            out.print(f"[dim]Another HeartCompass {escape(str(owner.get('purpose', 'command')))} is running "
                      f"(pid {owner.get('pid', '?')}); waiting…[/]")
            waiting["shown"] = True

    def on_commit(slug, sha):
        waiting["shown"] = False
        out.print(f"[green]✓[/] edit({escape(slug)}) committed [dim]{sha[:8]}[/]")

    def on_invalid(exc):
        err.print(f"[bold red]✗ not committed:[/] {escape(exc.message)}")
        if exc.hint:
            err.print(f"  [dim]{escape(exc.hint)}[/]")

    def on_blocked(exc):
        err.print(f"[bold yellow]! not committed yet:[/] {escape(exc.message)} [dim](Edits wait; they are "
                  "committed once git is ready and you save again, or by the next command.)[/]")

    out.print(f"Watching {escape(str(ws.people_dir))} for hand edits. Ctrl-C to stop.")
    watcher = EditWatcher(ws, debounce=debounce, on_commit=on_commit, on_invalid=on_invalid, on_wait=on_wait,
                          on_blocked=on_blocked)
    try:
        watcher.run()
    except KeyboardInterrupt:
        out.print("Stopped.")
