"""heartcompass garden — the nightly consolidation (run it from cron)."""


import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from heartcompass.cli.common import (ModelOption, err, escape, out, print_columns, print_diff, print_json,
                                     workspace)
from heartcompass.errors import HeartCompassError
from heartcompass.wording import counted

if TYPE_CHECKING:
    from rich.progress import Progress as Bar, TaskID


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
    if review and not _terminal():
        raise HeartCompassError("--review asks before writing each person's changes, so it needs a terminal.",
                                "Run it in a terminal, or see the diffs without writing: heartcompass garden --dry-run")
    from heartcompass.llm import providers as llm
    from heartcompass.store import clock
    from heartcompass.memory.garden_log import append_run_log
    from heartcompass.memory.gardener import Gardener
    from heartcompass.cli import lookup

    from heartcompass.store.people import list_people

    people = [lookup.person(ws, name, asking=not as_json) for name in person] if person else list_people(ws)
    settings = llm.settings(ws, model)
    started = clock.now(ws)
    # sys.stderr.isatty(), not err.is_terminal: an idle run never loads rich's console
    shown = Progress(len(people), live=sys.stderr.isatty() and not (review or quiet), plain=not (quiet or as_json))
    gardener = Gardener(ws, lambda: llm.make_chat_model(ws, settings), dry_run=dry_run,
                        review=_ask if review else None, on_start=shown.start, on_done=shown.done)
    try:
        with shown:
            results = gardener.run(people)
    except (KeyboardInterrupt, StopGarden):
        # One Ctrl-C stops the run: what is committed stays, the rest waits for the next run.
        err.print("\n[yellow]Stopped.[/] Done so far:" if shown.results else "\n[yellow]Stopped[/] before any "
                  "person was done.")
        if shown.results:
            _summary(shown.results)
            if not dry_run:
                append_run_log(ws, shown.results, started)
        err.print("[dim]The others keep their new entries for the next 'heartcompass garden'.[/]")
        raise typer.Exit(130) from None
    if not dry_run:
        append_run_log(ws, results, started)
    failed = [r for r in results if r.status in ("failed", "skipped", "refused")]
    if as_json:
        print_json([{k: v for k, v in r.__dict__.items() if k != "diffs" or dry_run} for r in results], indent=2)
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
    rows = [[r.slug, r.status, str(r.entries), *_changes(r), *_lines(r), r.commit[:8] if r.commit else ""]
            for r in results]
    print_columns(["person", "status", "entries", "events", "memory tokens", "kept", "refused", "asked", "commit"],
                  rows, right={2, 5, 6, 7})
    if any(r.refused for r in results):
        out.print("[dim]Refused lines, with their reasons: .heartcompass/garden.log[/]")
    if any(r.asked for r in results):
        out.print("[dim]Questions wait for your answer: heartcompass review[/]")


def _lines(r) -> list[str]:
    """The kept, refused and asked cells: what became of the lines the model proposed."""
    if not r.entries:
        return ["—", "—", "—"]
    return [str(r.kept), str(len(r.refused)), str(len(r.asked))]


def _changes(r) -> list[str]:
    """The events and memory-tokens cells: "—" for a person whose files were not
    read (nothing new, or stopped before), one number for memory that kept its size."""
    if not r.entries:
        return ["—", "—"]
    memory = (str(r.memory_after) if r.memory_before == r.memory_after
              else f"{r.memory_before} → {r.memory_after}")
    return [f"+{r.events_added} ~{r.events_changed}", memory]


class StopGarden(Exception):
    """Ctrl-C at a review question: stop the whole run, not just this person."""


class Progress:
    """Per-person progress on stderr: a live bar on a terminal, else one
    plain line per person that had something to do (cron logs stay short)."""

    def __init__(self, total: int, live: bool, plain: bool):
        self.total, self.live, self.plain = total, live, plain
        self.results: list = []
        self._bar: tuple[Bar, TaskID] | None = None  # the live bar and its one task

    def __enter__(self):
        if self.live and self.total > 1:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

            bar = Bar(TextColumn("[bold]garden[/]"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.description}"), TimeElapsedColumn(), console=err.real(), transient=True)
            bar.start()
            self._bar = bar, bar.add_task("", total=self.total)
        return self

    def __exit__(self, *exc) -> None:
        if self._bar:
            self._bar[0].stop()

    def start(self, person) -> None:
        if self._bar:
            bar, task = self._bar
            bar.update(task, description=escape(person.slug))

    def done(self, result) -> None:
        self.results.append(result)
        n = len(self.results)
        if self._bar:
            bar, task = self._bar
            bar.update(task, completed=n)
        elif self.plain and result.status != "up to date":
            err.print(f"garden {n}/{self.total} {escape(result.slug)}: {result.status}"
                      + (f", {counted(result.entries, 'entry', 'entries')}: {result.kept} kept, "
                         f"{len(result.refused)} refused, {len(result.asked)} asked" if result.entries else ""),
                      markup=False)


def _terminal() -> bool:
    """--review asks its questions by cli/ask's rule: a person at the terminal (stdin and stdout)."""
    from heartcompass.cli.ask import can_ask

    return can_ask()


def _ask(result) -> bool:
    from heartcompass.memory.garden_log import refused_line

    out.rule(f"[bold]{escape(result.slug)}[/]: {counted(result.entries, 'new entry', 'new entries')}")
    for diff in result.diffs.values():
        print_diff(diff)
    if result.refused:
        out.print(f"[yellow]Refused ({len(result.refused)}), not written:[/]")
        for refused in result.refused:
            out.print(f"  {escape(refused_line(refused))}")
    if result.asked:
        out.print(f"[dim]{counted(len(result.asked), 'question')} will wait for you in heartcompass review.[/]")
    if not result.diffs:
        return True  # only the consolidation pointers move
    from heartcompass.cli.ask import confirm

    answer = confirm(f"Write these changes for {result.slug}?", default=True, piped=False)
    if answer is None:  # Ctrl-C: the whole run stops; what is committed stays
        raise StopGarden()
    return answer


def _cron_line(root: Path) -> str:
    import shlex  # here: --help loads this module

    if any(c in str(root) + sys.executable for c in "\n\r"):
        raise HeartCompassError("cron reads one line per job, and this path holds a line break: "
                                f"{root!r}", "Move the workspace to a folder whose name has no line break.")
    found = shutil.which("heartcompass")
    exe = shlex.quote(str(Path(found).resolve())) if found else f"{shlex.quote(sys.executable)} -m heartcompass"
    log = root / ".heartcompass" / "garden.cron.log"
    line = (f"{exe} --workspace {shlex.quote(str(root))} garden --quiet >> {shlex.quote(str(log))} 2>&1")
    return "0 2 * * * " + line.replace("%", "\\%")  # cron reads a bare % as a newline
