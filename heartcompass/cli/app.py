"""The `heartcompass` command. Each group lives in its own module; heavy
libraries (git, langchain, questionary) are imported inside the commands
that need them, so --help and `person list` start fast. A run loads only
the module of the command it names (building all of them was a tenth of
`person list`); --help, completion and typos get the whole app."""

import importlib
import os
import sys

from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass import __version__
from heartcompass.cli.common import new_app

HELP = "HeartCompass: a second brain about the people in your life, kept as Markdown in git."
# Every command, in --help order -> the module in heartcompass.cli that registers it.
COMMANDS = {"init": "init_cmd", "chat": "chat_cmd", "context": "context_cmd", "garden": "garden_cmd",
            "coach": "coach_cmd", "graph": "graph_cmd", "person": "person_cmd", "tell": "tell_cmd",
            "edit": "edit_cmd", "import": "import_cmd", "voice": "voice_cmd", "quote": "voice_cmd",
            "log": "history_cmd", "diff": "history_cmd", "undo": "history_cmd", "restore": "history_cmd",
            "review": "review_cmd", "config": "config_cmd", "sync": "sync_cmd", "watch": "watch_cmd", "serve": "serve_cmd", "today": "serve_cmd",
            "doctor": "doctor_cmd"}
GROUPS = ("person", "config", "review")  # sub-apps (module.app); the others have register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"heartcompass {__version__}")
        raise typer.Exit()


def root(
    ctx: typer.Context,
    workspace: Annotated[Optional[Path], typer.Option(
        "--workspace", "-w", help="Workspace folder (default: $HEARTCOMPASS_HOME, else the nearest parent "
        "folder with heartcompass.toml, else ~/HeartCompass).", show_default=False)] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    ctx.obj = {"workspace_option": workspace}


def build(names: set[str] | None = None) -> typer.Typer:
    """The app with the commands in names (None: all of them)."""
    app = new_app(HELP)
    app.callback()(root)
    loaded: set[str] = set()
    for name, module_name in COMMANDS.items():
        if (names is not None and name not in names) or module_name in loaded:
            continue
        loaded.add(module_name)
        module = importlib.import_module(f"heartcompass.cli.{module_name}")
        if name in GROUPS:
            app.add_typer(module.app, name=name)
        else:
            module.register(app)
    return app


def __getattr__(name: str):
    if name == "app":  # the whole app, built on first use (tests, completion)
        globals()["app"] = whole = build()
        return whole
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def wanted(args: list[str]) -> set[str] | None:
    """The one command these arguments run, or None when the whole app must
    answer (--help, --version, completion, an unknown name)."""
    if any(key.startswith("_HEARTCOMPASS_COMPLETE") for key in os.environ):
        return None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-w", "--workspace"):
            i += 2
        elif arg.startswith("--workspace="):
            i += 1
        elif arg.startswith("-"):
            return None
        else:
            return {arg} if arg in COMMANDS else None
    return None


def main() -> None:
    build(wanted(sys.argv[1:]))(prog_name="heartcompass")
