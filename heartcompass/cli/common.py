"""Shared pieces of the CLI: consoles, the workspace of this invocation,
and turning domain errors into one red line and an exit code."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from heartcompass.errors import HeartCompassError
from heartcompass.sanitize import strip_controls

if TYPE_CHECKING:
    from rich.console import Console


class LazyConsole:
    """A rich Console made on first use: importing rich.console is a fifth
    of what --help costs, and --help never prints through it."""

    def __init__(self, **settings: Any):
        self._settings = settings
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)

    def real(self) -> Any:
        """The rich Console itself, for what rich drives directly (a live
        progress bar enters it with `with`, which no __getattr__ reaches)."""
        if self._console is None:
            from rich.console import Console

            class PipeConsole(Console):
                def on_broken_pipe(self) -> None:
                    # rich would exit 1 here; the command decides instead (a chat still logs and commits).
                    self.quiet = True
                    if self.file in (sys.stdout, sys.__stdout__):
                        discard_stdout()
                    raise BrokenPipeError(32, "the reader of the output went away")

            self._console = PipeConsole(**self._settings)
        return self._console


def stdout_gone() -> bool:
    """stdout is a pipe whose reader went away (poll reports an error on it),
    or already sent to /dev/null for that reason."""
    import select

    if _discarded:
        return True
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _fd, event in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test's captured stdout)
        return False


_discarded = False


def discard_stdout() -> None:
    """Whatever is still printed goes to /dev/null: stdout's reader (`| head`)
    went away, and a failed flush at exit must not turn into an error."""
    global _discarded
    _discarded = True
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        pass


out = LazyConsole(highlight=False, soft_wrap=True)
err = LazyConsole(stderr=True, highlight=False, soft_wrap=True)
DEBUG_ENV = "HEARTCOMPASS_DEBUG"
# Every command that calls a model takes the same override.
ModelOption = Annotated[Optional[str], typer.Option("--model", help="Use this model instead of llm.model.",
                                                    show_default=False)]


def fail(exc: HeartCompassError) -> typer.Exit:
    # Messages quote names, file contents and paths: escaped, never markup.
    err.print(f"[bold red]Error:[/] {escape(exc.message)}", markup=True, highlight=False)
    if exc.hint:
        err.print(f"[dim]{escape(exc.hint)}[/]")
    return typer.Exit(exc.exit_code)


class HeartCompassGroup(TyperGroup):
    """Catches domain errors from any command below it: one clear message,
    a non-zero exit code, no traceback (HEARTCOMPASS_DEBUG=1 shows it)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except HeartCompassError as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            raise fail(exc) from None
        except BrokenPipeError:
            if not stdout_gone():  # a pipe of ours (git's stdin) is a real error
                raise
            discard_stdout()  # `| head -1` read what it wanted: no error (chat already says so)
            return None
        except OSError as exc:  # a read-only or full disk anywhere: the file, not a traceback
            problem = _access_problem(exc)
            if problem is None or os.environ.get(DEBUG_ENV):
                raise
            where = f"{exc.filename}: " if exc.filename else "A file of the workspace could not be written: "
            raise fail(HeartCompassError(f"{where}{problem}", "Check that the workspace folder is "
                                         "yours, writable and has space (e.g. 'ls -ld', 'chmod u+rw', 'df -h'), "
                                         "then run the command again.")) from None


def _access_problem(exc: OSError) -> str | None:
    import errno

    if exc.filename is None:  # a write that failed after its open (a flush, a close): no file to name
        return {errno.ENOSPC: "the disk is full", getattr(errno, "EDQUOT", -1): "the disk quota is used up",
                errno.EROFS: "the disk is read-only"}.get(exc.errno)
    if isinstance(exc, PermissionError):
        return "permission denied"
    return {errno.EROFS: "the disk is read-only", errno.ENOSPC: "the disk is full",
            getattr(errno, "EDQUOT", -1): "the disk quota is used up"}.get(exc.errno)


def new_app(help_text: str) -> typer.Typer:
    return typer.Typer(cls=HeartCompassGroup, help=help_text, no_args_is_help=True,
                       rich_markup_mode=None, pretty_exceptions_enable=False,
                       context_settings={"help_option_names": ["-h", "--help"]})


def workspace(ctx: typer.Context, check_config: bool = True):
    """The workspace for this command (--workspace, $HEARTCOMPASS_HOME, cwd).
    check_config=False: for `config set/unset`, which may be the fix."""
    from heartcompass.store.workspace import discover

    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    if "ws" not in obj:
        ws = discover(obj.get("workspace_option"))
        if check_config:
            ws.config  # noqa: B018 - a broken heartcompass.toml is named by every command, first
        obj["ws"] = ws
        root.obj = obj
    return obj["ws"]


def remind_questions(ws, quiet: bool = False) -> None:
    """chat's one dim line at its start when the gardener's questions wait
    (a read of one small file; nothing heavy imported)."""
    from heartcompass.memory.review import reminder

    line = None if quiet else reminder(ws)
    if line:
        err.print(f"[dim]{escape(line)}[/]")


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def escape(text: object) -> str:
    """User, file or model text for a markup string: control sequences
    stripped (they could retitle or clear the terminal), markup escaped."""
    from rich.markup import escape as _escape

    return _escape(strip_controls(str(text)))


# Characters JSON leaves raw that a terminal acts on or that reorder what is shown:
# DEL, the C1 controls (0x9b is CSI, 0x9d OSC), line separators, bidi overrides.
_JSON_RAW_CONTROLS = "[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"


def to_json(data: Any, indent: int | None = None) -> str:
    """JSON for --json output: Chinese and other text stays readable (not
    \\u-escaped), while every control character is escaped (C0 by json
    itself, C1 and the others here), so model or file text printed as JSON
    can neither drive the terminal nor hide part of a line."""
    import json
    import re

    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return re.sub(_JSON_RAW_CONTROLS, lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(data: Any, indent: int | None = None) -> None:
    typer.echo(to_json(data, indent))


def cell_len(text: str) -> int:
    """Columns text takes in a terminal: East Asian wide and full-width
    characters take two, combining marks none. As rich.cells.cell_len
    counts, without loading rich's tables on `person list`'s start."""
    if text.isascii():
        return len(text)
    import unicodedata

    width = last = 0
    for ch in text:
        if ch == "\ufe0f":  # emoji presentation: a symbol before it is drawn wide
            if last == 1:
                width, last = width + 1, 2
        elif "\U0001f3fb" <= ch <= "\U0001f3ff" or unicodedata.combining(ch) or \
                unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue  # skin tones and marks join the character before them
        else:
            last = 2 if unicodedata.east_asian_width(ch) in "WF" else 1 if ord(ch) > 0x7f else 0
            width += last or 1
    return width


def print_columns(headers: list[str], rows: list[list[str]], right: set[int] | frozenset[int] = frozenset()) -> None:
    """A plain aligned table. rich's Table costs ~0.5 ms a row to lay out,
    too slow for `person list` of hundreds of people, and even rich's
    Console is a fifth of that command's start: this writes plain lines
    (bold header on a terminal), CJK-aware, control characters removed."""
    headers = [strip_controls(h) for h in headers]  # names and file text: never terminal controls
    rows = [[strip_controls(c) for c in r] for r in rows]
    widths = [max([cell_len(h), *(cell_len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def fmt(cells: list[str]) -> str:
        parts = []
        for i, cell in enumerate(cells):
            pad = " " * (widths[i] - cell_len(cell))
            parts.append(pad + cell if i in right else cell + pad)
        return "  ".join(parts).rstrip()

    typer.secho(fmt(headers), bold=True)  # the style is dropped when stdout is not a terminal
    typer.echo("\n".join(fmt(r) for r in rows))


def print_diff(text: str) -> None:
    """A unified diff, coloured."""
    if not text.strip():
        out.print("[dim]No differences.[/]")
        return
    # One write, coloured by hand: through rich line by line, 5,000 lines took 3 s (git's own diff 0.2 s).
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    lines = []
    for line in strip_controls(text).split("\n"):  # a file's escape sequences never reach the terminal
        code = ("" if not colour else "32" if line.startswith("+") and not line.startswith("+++") else
                "31" if line.startswith("-") and not line.startswith("---") else
                "36" if line.startswith("@@") else "1" if line.startswith(("diff ", "+++", "---")) else "")
        lines.append(f"\x1b[{code}m{line}\x1b[0m" if code else line)
    sys.stdout.write("\n".join(lines).rstrip("\n") + "\n")
    sys.stdout.flush()
