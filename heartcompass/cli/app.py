"""The `heartcompass` command. Each group lives in its own module; heavy
libraries (git, langchain, questionary) are imported inside the commands
that need them, so --help and `person list` start fast."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass import __version__
from heartcompass.cli import (chat_cmd, coach_cmd, config_cmd, context_cmd, doctor_cmd, edit_cmd, garden_cmd,
                              graph_cmd, history_cmd, import_cmd, init_cmd, person_cmd, sync_cmd, tell_cmd,
                              voice_cmd, watch_cmd)
from heartcompass.cli.common import new_app

app = new_app("HeartCompass: a second brain about the people in your life, kept as Markdown in git.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"heartcompass {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    workspace: Annotated[Optional[Path], typer.Option(
        "--workspace", "-w", help="Workspace folder (default: $HEARTCOMPASS_HOME, else the nearest parent "
        "folder with heartcompass.toml).", show_default=False)] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    ctx.obj = {"workspace_option": workspace}


init_cmd.register(app)
chat_cmd.register(app)
context_cmd.register(app)
garden_cmd.register(app)
coach_cmd.register(app)
graph_cmd.register(app)
app.add_typer(person_cmd.app, name="person")
tell_cmd.register(app)
edit_cmd.register(app)
import_cmd.register(app)
voice_cmd.register(app)
history_cmd.register(app)
app.add_typer(config_cmd.app, name="config")
sync_cmd.register(app)
watch_cmd.register(app)
doctor_cmd.register(app)


def main() -> None:
    app(prog_name="heartcompass")
