"""heartcompass log | diff | undo | restore — the audit trail."""


import shlex
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import escape, out, print_diff, workspace


def register(app: typer.Typer) -> None:
    app.command("log")(log)
    app.command("diff")(diff)
    app.command("undo")(undo)
    app.command("restore")(restore)


def log(ctx: typer.Context,
        name: Annotated[Optional[str], typer.Argument(help="Only this person (slug, name or alias).",
                                                      show_default=False)] = None,
        limit: Annotated[int, typer.Option("--limit", "-n", help="How many commits.")] = 30) -> None:
    """Every change as a commit, newest first, with pending hand edits on top."""
    from rich.table import Table

    from heartcompass.store import audit
    from heartcompass.store.people import resolve

    ws = workspace(ctx)
    person = resolve(ws, name) if name else None
    table = Table(box=None, header_style="bold")
    for col in ("when", "commit", "change", "files"):
        table.add_column(col)
    for item in audit.pending(ws, [person] if person else None):
        table.add_row("[yellow]pending[/]", "", f"[yellow]{item.kind}[/] {escape(item.path)}", "")
    commits = audit.history(ws, person, limit + 1)  # one more: are there older ones?
    for c in commits[:limit]:
        table.add_row(c.date[:16].replace("T", " "), f"[dim]{c.short}[/]", escape(c.subject), str(len(c.files)))
    out.print(table)
    if len(commits) > limit:
        named = " " + escape(shlex.quote(name)) if name else ""
        out.print(f"[dim]The newest {limit} changes; older ones: heartcompass log{named} "
                  f"-n {limit * 4}[/]")


def diff(ctx: typer.Context,
         name: Annotated[str, typer.Argument(help="Slug, name or alias.")],
         rev: Annotated[Optional[str], typer.Argument(help="Compare with this commit (default: show pending "
                                                      "hand edits, else the last change).", show_default=False)] = None
         ) -> None:
    """What changed in someone's files."""
    from heartcompass.store import lineage
    from heartcompass.store.people import resolve

    ws = workspace(ctx)
    person = resolve(ws, name)
    if rev:
        sha = ws.git.resolve(rev)
        then = lineage.dir_at(ws, person, sha)  # its folder may have had another name then
        print_diff(ws.git.diff(sha, [person.dir] + ([then] if then != person.dir else [])))
        return
    pending = ws.git.diff(None, [person.dir])
    if pending.strip():
        out.print("[yellow]Uncommitted changes:[/]")
        print_diff(pending)
        return
    commits = lineage.history(ws, person, 1)
    if commits:
        print_diff(ws.git.show(commits[0].sha, lineage.folders(ws, person)))
    else:
        out.print("[dim]No history for this person yet.[/]")


def undo(ctx: typer.Context,
         rev: Annotated[Optional[str], typer.Argument(help="The commit to undo (default: the last one).",
                                                      show_default=False)] = None) -> None:
    """Take back one change with a new commit (history is never rewritten)."""
    from heartcompass.memory import consolidation
    from heartcompass.store import audit

    ws, effect = workspace(ctx), {}

    def note(target) -> str:  # an undone garden commit hands its entries back to the gardener
        found = consolidation.after_undo(ws, target)
        if found:
            effect["person"], effect["days"] = found
        return consolidation.trailer(found[1]) if found else ""

    def then(_target) -> None:
        if effect:
            consolidation.give_back(ws, effect["person"], effect["days"])

    target, new_sha = audit.undo(ws, rev, note=note, then=then)
    out.print(f"Undid {target.short} [bold]{escape(target.subject)}[/] with commit {new_sha[:8]}."
              + (" Its log entries go back to the gardener (next 'heartcompass garden')."
                 if effect and target.subject.startswith("garden(") else ""))


def restore(ctx: typer.Context,
            name: Annotated[str, typer.Argument(help="Slug, name or alias.")],
            file: Annotated[str, typer.Argument(help="profile, events, memory or voice.")],
            at: Annotated[str, typer.Option("--at", help="The commit to bring the file back from.")]) -> None:
    """Bring one file back as it was at a commit, as a new commit."""
    from heartcompass.store import audit
    from heartcompass.store.people import resolve

    ws = workspace(ctx)
    sha = audit.restore(ws, resolve(ws, name), file, at)
    out.print(f"Restored {escape(file)} as of {escape(at)}." + (f" Commit {sha[:8]}." if sha else " (It was already like that.)"))
