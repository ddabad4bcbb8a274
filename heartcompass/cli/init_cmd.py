"""heartcompass init"""


from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import escape, out


def register(app: typer.Typer) -> None:
    app.command("init")(init)


def init(
    path: Annotated[Optional[Path], typer.Argument(help="Folder for the workspace (default ~/HeartCompass).",
                                                   show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Set up a workspace in a non-empty folder "
                                        "(existing files are kept).")] = False,
    example: Annotated[bool, typer.Option("--example", help="Also add an example person, Alice.")] = False,
) -> None:
    """Create a workspace: template files, people/me/, git, first commit."""
    from heartcompass.store.workspace import DEFAULT_PATH, add_example, create_workspace

    target = (path or DEFAULT_PATH).expanduser()
    ws, created = create_workspace(target, force=force, example=example)
    if created:
        out.print(f"Created a HeartCompass workspace in [bold]{escape(str(ws.root))}[/].")
    elif example and add_example(ws):
        out.print(f"{escape(str(ws.root))} is already a HeartCompass workspace; added the example person (one commit).")
    else:
        out.print(f"{escape(str(ws.root))} is already a HeartCompass workspace; nothing was changed"
                  + (" (the example person, Alice, is already there)." if example else "."))
    if example:
        out.print("Example person: [bold]alice[/] — try 'heartcompass context alice'.")
    out.print("Next: 'heartcompass person add NAME'. Set a model with 'heartcompass config set llm.base_url URL' "
              "and put API keys in .env.")
