"""heartcompass init"""


from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import escape, out


def register(app: typer.Typer) -> None:
    app.command("init")(init)


def init(
    ctx: typer.Context,
    path: Annotated[Optional[Path], typer.Argument(
        help="Folder for the workspace (default: --workspace, else $HEARTCOMPASS_HOME, else ~/HeartCompass).",
        show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Set up a workspace in a non-empty folder "
                                        "(existing files are kept).")] = False,
    example: Annotated[bool, typer.Option("--example", help="Also add an example person, Alice.")] = False,
    remote: Annotated[Optional[str], typer.Option("--from", help="A second device: copy the workspace that "
                      "'heartcompass sync' pushes to this git remote (URL or path).", show_default=False)] = None,
) -> None:
    """Create a workspace: template files, people/me/, git, first commit (or, with --from, copy one)."""
    from heartcompass.store.creation import add_example, create_workspace, init_target

    root = ctx.find_root()
    option = root.obj.get("workspace_option") if isinstance(root.obj, dict) else None
    target, source = init_target(path, option)
    if remote is not None:
        _init_from(target, source, remote, example)
        return
    ws, created = create_workspace(target, force=force, example=example)
    if created:
        out.print(f"Created a HeartCompass workspace in [bold]{escape(str(ws.root))}[/] ({escape(source)}).")
    elif example and add_example(ws):
        out.print(f"{escape(str(ws.root))} is already a HeartCompass workspace; added the example person (one commit).")
    else:
        out.print(f"{escape(str(ws.root))} is already a HeartCompass workspace; nothing was changed"
                  + (" (the example person, Alice, is already there)." if example else "."))
    if example:
        out.print("Example person: [bold]alice[/] — try 'heartcompass context alice'.")
    out.print("Next: 'heartcompass person add NAME'. Set a model with 'heartcompass config set llm.base_url URL' "
              "and put API keys in .env.")


def _init_from(target: Path, source: str, remote: str, example: bool) -> None:
    from heartcompass.errors import HeartCompassError
    from heartcompass.store.creation import clone_workspace

    if example:
        raise HeartCompassError("--example and --from do not go together: --from copies a workspace as it is.")
    ws, branch = clone_workspace(target, remote)
    out.print(f"Copied the workspace from {escape(remote)} ({escape(branch)}) into [bold]{escape(str(ws.root))}[/] "
              f"({escape(source)}); 'heartcompass sync' keeps the two in step.")
    out.print("API keys are not copied (.env stays on each device): put them in this device's .env.")
