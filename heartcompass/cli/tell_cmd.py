"""heartcompass tell — add knowledge by narrative or screenshots, after a look at the diff."""


import subprocess
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import ModelOption, escape, interactive, out, print_diff, workspace
from heartcompass.errors import HeartCompassError

TEMPLATE = "\n# Tell HeartCompass about {name}: what happened, what changed. Lines starting with # are ignored.\n"


def register(app: typer.Typer) -> None:
    app.command("tell")(tell)


def tell(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Slug, name or alias.")],
    text: Annotated[Optional[str], typer.Argument(help="What you want to tell (default: stdin, else $EDITOR).",
                                                  show_default=False)] = None,
    image: Annotated[Optional[list[Path]], typer.Option("--image", help="A chat screenshot (repeatable).",
                                                        show_default=False)] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show the proposal; write nothing.")] = False,
    model: ModelOption = None,
) -> None:
    """The model proposes changes to PROFILE.md, EVENTS.md and MEMORY.md; you confirm the diff."""
    from heartcompass import audit, llm, tell as tell_mod
    from heartcompass.chat import now_in_zone
    from heartcompass.people import resolve

    ws = workspace(ctx)
    person = resolve(ws, name)
    if not dry_run:
        ws.git.check_writable()  # mid-rebase...: say so before you type and pay for a proposal
    images = [tell_mod.image_url(p) for p in image or []]  # unreadable or unsupported: stop before any call
    narrative = (text if text is not None else
                 sys.stdin.read() if not sys.stdin.isatty() else _from_editor(ws, person)).strip()
    if not narrative and not images:
        raise HeartCompassError("Nothing to tell.", f'heartcompass tell {name} "She moved to Berlin in March"')
    settings = llm.settings(ws, model)
    plan = tell_mod.plan(ws, llm.make_chat_model(ws, settings), person, narrative, now_in_zone(ws), images)
    for p in plan.plans:
        for diff in p.diffs.values():
            print_diff(diff)
    if not plan.has_changes:
        out.print("[dim]The proposal changes nothing.[/]")
    for new in plan.unknown:
        out.print(f"[yellow]Not in your workspace:[/] {escape(new.name)} — {escape(new.about)}")
    if dry_run:
        out.print("[dim]Dry run: nothing written.[/]")
        return
    if plan.has_changes and not (yes or (interactive() and _confirm("Write these changes?"))):
        with audit.writing(ws, "tell"):
            tell_mod.keep_note_only(ws, plan)
        out.print("Not applied. What you told is kept in the log as a note for the gardener"
                  + ("" if interactive() else " (use --yes to apply without asking)") + ".")
        raise typer.Exit(0 if interactive() else 1)
    with audit.writing(ws, "tell"):
        sha = tell_mod.apply_plan(ws, plan)
    out.print(f"Written and committed [dim]({sha[:8] if sha else '-'})[/]." if plan.has_changes
              else "Kept in the log as a note.")
    for new in plan.unknown:
        if interactive() and not yes and _confirm(f"Add {new.name} as a new person ({new.relation})?"):
            from heartcompass.formats.profile import RELATIONS

            relation = new.relation if new.relation in RELATIONS else "friend"
            added = audit.add_person(ws, new.name, relation, about=new.about)
            out.print(f"Added {escape(new.name)} in people/{escape(added.slug)}/.")
        elif not interactive() or yes:
            out.print(f"[dim]Add {escape(new.name)} with: heartcompass person add \"{escape(new.name)}\"[/]")


def _confirm(question: str) -> bool:
    import questionary

    return bool(questionary.confirm(question, default=True).ask())


def _from_editor(ws, person) -> str:
    from heartcompass.cli.edit_cmd import editor_command

    scratch = ws.state_dir / "tell.md"
    scratch.write_text(TEMPLATE.format(name=person.slug), encoding="utf-8")
    try:
        subprocess.run([*editor_command(), str(scratch)], check=False)
        lines = scratch.read_text(encoding="utf-8").splitlines()
    finally:
        scratch.unlink(missing_ok=True)
    return "\n".join(line for line in lines if not line.lstrip().startswith("#")).strip()
