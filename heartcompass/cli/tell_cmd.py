"""heartcompass tell — add knowledge by narrative or screenshots, after a look at the diff."""


import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import ModelOption, err, escape, interactive, out, print_diff, workspace
from heartcompass.errors import HeartCompassError

TEMPLATE = "\n# Tell HeartCompass about {name}: what happened, what changed. Lines starting with # are ignored.\n"


def register(app: typer.Typer) -> None:
    app.command("tell")(tell)


def tell(
    ctx: typer.Context,
    name: PersonArg,
    text: Annotated[Optional[str], typer.Argument(help="What you want to tell (default: stdin, else $EDITOR).",
                                                  show_default=False)] = None,
    image: Annotated[Optional[list[Path]], typer.Option("--image", help="A chat screenshot (repeatable).",
                                                        show_default=False)] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show the proposal; write nothing, not even the note.")] = False,
    model: ModelOption = None,
) -> None:
    """The model proposes changes to PROFILE.md, EVENTS.md and MEMORY.md; you confirm the diff.

    What you tell is logged as a note first, so nothing is lost if the model
    cannot be reached. Declined (No, Ctrl-C): you choose to keep the note for
    the gardener or discard it; without a terminal it is kept (exit 1).
    --dry-run writes nothing at all, not even the note."""
    from heartcompass.intake import tell as tell_mod
    from heartcompass.llm import providers as llm
    from heartcompass.store import audit
    from heartcompass.store import clock
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name)
    if not dry_run:
        ws.git.check_writable_ahead()  # mid-rebase...: say so before you type and pay for a proposal
    images = [tell_mod.image_url(p) for p in image or []]  # unreadable or unsupported: stop before any call
    narrative = (text if text is not None else
                 sys.stdin.read() if not sys.stdin.isatty() else _from_editor(ws, person)).strip()
    if not narrative and not images:
        import shlex

        raise HeartCompassError("Nothing to tell.", f'heartcompass tell {shlex.quote(name)} "She moved to Berlin in March"')
    # A broken file is reported now, not after the provider's second-long import.
    person.load_profile(), person.load_events(), person.load_memory()
    settings = llm.settings(ws, model)
    chat_model = llm.make_chat_model(ws, settings)
    now = clock.now(ws)
    note = None
    if not dry_run:
        audit.commit_earlier(ws, [person], "tell")  # earlier edits get their own commit, not the tell's
        note = tell_mod.log_note(person, narrative, now)
    try:
        with _thinking():
            plan = tell_mod.plan(ws, chat_model, person, narrative, now, images)
    except HeartCompassError:
        if note:
            _keep_quietly(ws, tell_mod, note, "no proposal (model error)")
            err.print("[dim]What you told is kept in the log as a note; the next garden learns from it.[/]")
        raise
    except KeyboardInterrupt:
        out.print()
        if note:
            _declined(ws, tell_mod, note, "interrupted")
        raise typer.Exit(130) from None
    for p in plan.plans:
        for diff in p.diffs.values():
            print_diff(diff)
    for line in plan.refused_lines():
        out.print(f"[yellow]Refused, not written:[/] {escape(line)}")
    if not plan.has_changes:
        out.print("[dim]The proposal changes nothing.[/]")
    for new in plan.unknown:
        out.print(f"[yellow]Not in your workspace:[/] {escape(new.name)} — {escape(new.about)}")
    if dry_run:
        out.print("[dim]Dry run: nothing written, not even the note.[/]")
        return
    assert note is not None  # not a dry run: what was told is in the log
    if plan.has_changes and not (yes or (interactive() and _confirm("Write these changes?"))):
        if interactive():
            raise typer.Exit(_declined(ws, tell_mod, note, "proposal declined"))
        tell_mod.keep_note(ws, note)
        out.print("Not applied. What you told is kept in the log as a note for the gardener "
                  "(use --yes to apply without asking).")
        raise typer.Exit(1)
    if not plan.has_changes:  # not applied, so not marked: the gardener reads the note with its day
        tell_mod.keep_note(ws, note, "nothing to change")
        out.print("Nothing changed in the files; what you told stays in the log as a note for the next garden.")
        if plan.refused_lines():  # every line refused: say so by the exit code too
            raise typer.Exit(1)
    else:
        try:
            sha = tell_mod.apply_plan(ws, plan, note, clock.now(ws))
        except HeartCompassError:
            _keep_quietly(ws, tell_mod, note, "not applied")
            err.print("[dim]What you told is kept in the log as a note; the next garden learns from it.[/]")
            raise
        out.print(f"Written and committed [dim]({sha[:8] if sha else '-'})[/].")
    for new in plan.unknown:
        if not interactive() or yes:
            import shlex

            out.print(f"[dim]Add {escape(new.name)} with: heartcompass person add {escape(shlex.quote(new.name))}[/]")
            continue
        add = _confirm_or_stop(f"Add {new.name} as a new person ({new.relation})?")
        if add is None:  # Ctrl-C: no more questions (the tell itself is done)
            out.print("[dim]Stopped; no one else was added.[/]")
            raise typer.Exit(130)
        if add:
            from heartcompass.formats.profile import RELATIONS
            from heartcompass.store import lifecycle

            relation = new.relation if new.relation in RELATIONS else "friend"
            try:
                added = lifecycle.add_person(ws, new.name, relation, about=new.about)
                out.print(f"Added {escape(new.name)} in people/{escape(added.slug)}/.")
            except HeartCompassError as exc:  # the tell is done; this extra only reports
                err.print(f"[yellow]Not added:[/] {escape(exc.message)}")


def _keep_quietly(ws, tell_mod, note, why: str) -> None:
    """On the way out after an error: commit the note if git lets us; if not,
    it is on disk and the next command commits it. The first error is the one to show."""
    try:
        tell_mod.keep_note(ws, note, why)
    except HeartCompassError:
        pass


def _declined(ws, tell_mod, note, why: str) -> int:
    """Keep the logged note for the gardener, or discard it (a marker entry:
    the log itself is never rewritten). Ctrl-C here keeps it: nothing lost.
    Returns the exit code: 130 after a Ctrl-C, as everywhere else."""
    from heartcompass.store import clock

    choice = _ask_keep() if interactive() else KEEP
    keep = choice != "Discard it"  # Ctrl-C (None) keeps it
    if keep:
        tell_mod.keep_note(ws, note, why)
    else:
        tell_mod.discard_note(ws, note, clock.now(ws))
    if keep:
        out.print("Not applied. What you told is kept in the log as a note for the gardener.")
    else:
        out.print("Not applied, and discarded: the gardener will skip it (the log keeps the text).")
    return 130 if choice is None else 0


def _thinking():
    """A spinner while the model reads the narrative (seconds, on a slow model)."""
    import contextlib

    return out.status("[dim]The model is reading what you told…[/]") if out.is_terminal else contextlib.nullcontext()


KEEP = "Keep it as a note: the next garden may learn from it"


def _ask_keep() -> str | None:
    """KEEP or "Discard it"; None on Ctrl-C."""
    from heartcompass.cli.ask import choose

    return choose("Not applied. What you told:", [KEEP, "Discard it"], default=KEEP, piped=KEEP)


def _confirm(question: str) -> bool:
    """Ctrl-C is a No: the note is logged already, and what becomes of it is asked next."""
    return bool(_confirm_or_stop(question))


def _confirm_or_stop(question: str) -> bool | None:
    """Yes or no; None on Ctrl-C."""
    from heartcompass.cli.ask import confirm

    return confirm(question, default=True, piped=False)


def _from_editor(ws, person) -> str:
    from heartcompass.cli.editor import run_editor

    scratch = ws.state_dir / "tell.md"
    scratch.write_text(TEMPLATE.format(name=person.slug), encoding="utf-8")
    try:
        run_editor(scratch)
        lines = scratch.read_text(encoding="utf-8").splitlines()
    finally:
        scratch.unlink(missing_ok=True)
    return "\n".join(line for line in lines if not line.lstrip().startswith("#")).strip()
