"""heartcompass garden — the nightly consolidation (run it from cron)."""


import datetime as dt
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import ModelOption, err, escape, out, print_columns, print_diff, workspace


def register(app: typer.Typer) -> None:
    app.command("garden")(garden)


def garden(
    ctx: typer.Context,
    person: Annotated[Optional[list[str]], typer.Option("--person", "-p", help="Only this person (repeatable).",
                                                        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff of each file; write nothing.")] = False,
    review: Annotated[bool, typer.Option("--review", help="Show each person's diff and ask before writing.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing when all went well.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    cron_line: Annotated[bool, typer.Option("--cron-line", help="Print a crontab line for 02:00 nightly.")] = False,
    model: ModelOption = None,
) -> None:
    """Consolidate new chat-log entries into PROFILE.md, EVENTS.md and MEMORY.md: one commit per person."""
    ws = workspace(ctx)
    if cron_line:
        typer.echo(_cron_line(ws.root))
        return
    from heartcompass import llm
    from heartcompass.gardener import Gardener, append_run_log
    from heartcompass.people import resolve

    people = [resolve(ws, name) for name in person] if person else None
    settings = llm.settings(ws, model)
    started = dt.datetime.now().astimezone()
    gardener = Gardener(ws, lambda: llm.make_chat_model(ws, settings), dry_run=dry_run,
                        review=_ask if review else None)
    results = gardener.run(people)
    if not dry_run:
        append_run_log(ws, results, started)
    failed = [r for r in results if r.status in ("failed", "skipped")]
    if as_json:
        typer.echo(json.dumps([{k: v for k, v in r.__dict__.items() if k != "diffs" or dry_run}
                               for r in results], ensure_ascii=False, indent=2))
    elif not (quiet and not failed):
        if dry_run:
            for r in results:
                for diff in r.diffs.values():
                    print_diff(diff)
        _summary(results)
    for r in failed:
        err.print(f"[bold red]{escape(r.slug)}:[/] {escape(r.message)}")
    if failed:
        raise typer.Exit(1)


def _summary(results) -> None:
    rows = [[r.slug, r.status, str(r.entries), f"+{r.events_added} ~{r.events_changed}",
             f"{r.memory_before} → {r.memory_after}", r.commit[:8] if r.commit else ""] for r in results]
    print_columns(["person", "status", "entries", "events", "memory tokens", "commit"], rows, right={2})


def _ask(result) -> bool:
    out.rule(f"[bold]{escape(result.slug)}[/]: {result.entries} new entries")
    for diff in result.diffs.values():
        print_diff(diff)
    if not result.diffs:
        return True  # only the consolidation pointers move
    if not sys.stdin.isatty():
        return False
    import questionary

    return bool(questionary.confirm(f"Write these changes for {result.slug}?", default=True).ask())


def _cron_line(root: Path) -> str:
    exe = shutil.which("heartcompass") or f"{sys.executable} -m heartcompass"
    exe = str(Path(exe).resolve()) if shutil.which("heartcompass") else exe
    log = root / ".heartcompass" / "garden.cron.log"
    return (f"0 2 * * * {exe} --workspace {shlex.quote(str(root))} garden --quiet "
            f">> {shlex.quote(str(log))} 2>&1")
