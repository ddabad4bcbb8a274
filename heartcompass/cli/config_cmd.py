"""heartcompass config show | get | set | unset"""


from typing import Annotated

import typer

from heartcompass.cli.common import escape, new_app, out, print_json, workspace
from heartcompass.errors import ConfigError

app = new_app("Show or change the workspace settings (heartcompass.toml).")


def complete_key(incomplete: str) -> list[str]:
    """Shell completion of setting names (config get/set/unset)."""
    from heartcompass.store.config import KEYS

    return [key for key in KEYS if key.startswith(incomplete)]


KeyArg = Annotated[str, typer.Argument(help="Dotted key, e.g. llm.base_url.", autocompletion=complete_key)]


def _effective(ws) -> dict[str, dict]:
    """Each setting: its value, where it comes from (file, default or an
    environment variable) and the file's value when the environment overrides it.
    A credential put in the file by hand is never echoed (terminals get shared)."""
    from heartcompass.store.config import KEYS, env_overrides
    from heartcompass.store.credentials import redact

    def shown(value):
        return redact(value) if isinstance(value, str) else value

    cfg, out_, env = ws.config, {}, env_overrides()
    for key in KEYS:
        entry = {"value": shown(cfg.get(key)), "source": "file" if cfg.is_set(key) else "default"}
        if key in env:
            var, value = env[key]
            entry.update(file_value=entry["value"], value=shown(value), source=f"${var}")
        out_[key] = entry
    return out_


def _text(value) -> str:
    """A value as `config show` prints it: a list as `config set` takes it (0.8,2.2)."""
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


@app.command("show")
def show(ctx: typer.Context,
         as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """Every setting with its value (defaults and environment overrides included)."""
    from heartcompass.store.config import KEYS

    ws = workspace(ctx)
    values = _effective(ws)
    if as_json:
        print_json({k: v["value"] for k, v in values.items()}, indent=2)
        return
    # One line per setting, wrapped rather than cut: a URL or model id is shown whole.
    out.print(f"[dim]# {escape(str(ws.config_path))}[/]")
    for key, entry in values.items():
        source = ("" if entry["source"] in ("file", "default") else
                  f" [yellow]from {escape(entry['source'])}[/] [dim](the file says {escape(_text(entry['file_value']))})[/]")
        default = f"  [dim]({entry['source']})[/]" if entry["source"] in ("file", "default") else ""
        out.print(f"[bold]{escape(key)}[/] = {escape(_text(entry['value']))}{source}{default}  "
                  f"[dim]# {escape(KEYS[key].doc)}[/]")


@app.command("get")
def get(ctx: typer.Context,
        key: KeyArg,
        as_json: Annotated[bool, typer.Option("--json", help="Print as JSON (value and source).")] = False) -> None:
    """One setting's value as used (an environment override wins over the file)."""
    from heartcompass.store.config import KEYS, valid_keys_text

    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text(key))
    entry = _effective(workspace(ctx))[key]
    if as_json:
        print_json({"key": key, **entry})
        return
    value = entry["value"]
    typer.echo(",".join(str(v) for v in value) if isinstance(value, list) else _text(value).strip("'")
               if isinstance(value, bool) else str(value))


@app.command("set")
def set_(ctx: typer.Context,
         key: KeyArg,
         value: Annotated[str, typer.Argument(help="New value.")]) -> None:
    """Change one setting, keeping the file's comments. Secrets are refused."""
    from heartcompass.store.config_edit import set_config

    ws = workspace(ctx, check_config=False)  # the file may have a bad value: this may be its fix
    new, sha = set_config(ws, key, value)
    out.print(escape(f"{key} = {_text(new)}") + (f"  [dim]({sha[:8]})[/]" if sha else "  [dim](unchanged)[/]"))
    if key == "user.name" and new:
        _warn_user_name_taken(ws, new)
    _still_invalid(ws)


def _warn_user_name_taken(ws, name: str) -> None:
    from heartcompass.cli.common import err
    from heartcompass.store.people import user_name_fix, user_name_taken

    for c in user_name_taken(ws, name):
        err.print(f"[yellow]Warning:[/] {escape(c.describe())}: prompts about them would mix the two of you up "
                  f"(\"You are {escape(name)}, chatting with {escape(name)}\").")
        err.print(f"[dim]{escape(user_name_fix(name, c.person.slug))}[/]")


@app.command("unset")
def unset(ctx: typer.Context,
          key: KeyArg) -> None:
    """Remove one setting from the file, so its default applies again."""
    from heartcompass.store.config_edit import unset_config
    from heartcompass.store.config import KEYS

    ws = workspace(ctx, check_config=False)
    removed, sha = unset_config(ws, key)
    default = KEYS[key].default
    if not removed:
        out.print(escape(f"{key} is not set in the file; its default is {_text(default)}.") + "  [dim](unchanged)[/]")
    else:
        out.print(escape(f"{key} removed; its default {_text(default)} applies.")
                  + (f"  [dim]({sha[:8]})[/]" if sha else ""))
    _still_invalid(ws)


def _still_invalid(ws) -> None:
    """After set/unset: another bad value the file still has, with its fix."""
    from heartcompass.cli.common import err
    from heartcompass.errors import HeartCompassError

    ws.reload_config()
    try:
        ws.config  # noqa: B018 - validates the whole file
    except HeartCompassError as exc:
        err.print(f"[yellow]Warning:[/] {escape(exc.message)}")
        if exc.hint:
            err.print(f"[dim]{escape(exc.hint)}[/]")
