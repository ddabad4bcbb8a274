"""heartcompass log | diff | undo | restore — the audit trail."""


import shlex
from typing import Annotated, Any, Optional

import typer

from heartcompass.cli.complete import PersonArg, complete_person
from heartcompass.cli.common import escape, out, print_diff, print_json, workspace


def register(app: typer.Typer) -> None:
    app.command("log")(log)
    app.command("diff")(diff)
    app.command("undo")(undo)
    app.command("restore")(restore)


def log(ctx: typer.Context,
        name: Annotated[Optional[str], typer.Argument(help="Only this person (slug, name or alias).", autocompletion=complete_person,
                                                      show_default=False)] = None,
        limit: Annotated[int, typer.Option("--limit", "-n", help="How many commits.")] = 30,
        as_json: Annotated[bool, typer.Option("--json", help="Print as JSON (pending edits, then commits).")
                           ] = False) -> None:
    """Every change as a commit, newest first, with pending hand edits on top."""
    from heartcompass.store import audit
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json) if name else None
    if as_json:
        print_json({"pending": [{"person": i.slug, "path": i.path, "kind": i.kind}
                                for i in audit.pending(ws, [person] if person else None)],
                    "commits": [{"sha": c.sha, "date": c.date, "author": c.author, "subject": c.subject,
                                 "files": c.files} for c in audit.history(ws, person, limit)]}, indent=2)
        return
    from rich.table import Table

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
         name: PersonArg,
         rev: Annotated[Optional[str], typer.Argument(help="Compare with this commit (default: show pending "
                                                      "hand edits, else the last change).", show_default=False)] = None,
         as_json: Annotated[bool, typer.Option("--json", help="Print as JSON: what was compared, and the diff.")
                            ] = False) -> None:
    """What changed in someone's files."""
    from heartcompass.store import lineage
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json)
    pending = "" if rev else ws.git.diff(None, [person.dir])
    if rev:
        sha = ws.git.resolve(rev)
        then = lineage.dir_at(ws, person, sha)  # its folder may have had another name then
        shown, what, text = sha, "since", ws.git.diff(sha, [person.dir] + ([then] if then != person.dir else []))
    elif pending.strip():
        shown, what, text = None, "pending", pending
    else:
        commits = lineage.history(ws, person, 1)
        shown, what = (commits[0].sha, "commit") if commits else (None, "none")
        text = ws.git.show(commits[0].sha, lineage.folders(ws, person)) if commits else ""
    if as_json:
        print_json({"person": person.slug, "compared": what, "commit": shown, "diff": text,
                    "files": diff_stats(text)}, indent=2)
    elif what == "none":
        out.print("[dim]No history for this person yet.[/]")
    else:
        if what == "pending":
            out.print("[yellow]Uncommitted changes:[/]")
        print_diff(text)


def diff_stats(text: str) -> list[dict]:
    """Per file of a unified diff: its path, lines added and removed."""
    files: list[dict] = []
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            files.append({"path": line.split(" b/", 1)[-1], "added": 0, "removed": 0})
        elif files and line.startswith("+") and not line.startswith("+++"):
            files[-1]["added"] += 1
        elif files and line.startswith("-") and not line.startswith("---"):
            files[-1]["removed"] += 1
    return files


def undo(ctx: typer.Context,
         rev: Annotated[Optional[str], typer.Argument(help="The commit to undo (default: the last one).",
                                                      show_default=False)] = None) -> None:
    """Take back one change with a new commit (history is never rewritten)."""
    from heartcompass.memory import consolidation
    from heartcompass.store import audit

    ws = workspace(ctx)
    effect: dict[str, Any] = {}  # the person and days an undone garden commit hands back

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
            name: PersonArg,
            file: Annotated[str, typer.Argument(help="profile, events, memory or voice.")],
            at: Annotated[str, typer.Option("--at", help="The commit to bring the file back from.")]) -> None:
    """Bring one file back as it was at a commit, as a new commit."""
    from heartcompass.store import audit
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    sha = audit.restore(ws, lookup.person(ws, name), file, at)
    out.print(f"Restored {escape(file)} as of {escape(at)}." + (f" Commit {sha[:8]}." if sha else " (It was already like that.)"))
