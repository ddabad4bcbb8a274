"""heartcompass config show | set"""


from typing import Annotated

import typer

from heartcompass.cli.common import escape, new_app, out, workspace

app = new_app("Show or change the workspace settings (heartcompass.toml).")


@app.command("show")
def show(ctx: typer.Context,
         as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """Every setting with its value (defaults included)."""
    from heartcompass.config import KEYS

    from heartcompass.credentials import redact

    ws = workspace(ctx)
    # A credential put in the file by hand is never echoed (terminals get shared).
    values = {k: redact(v) if isinstance(v, str) else v for k, v in ws.config.as_dict().items()}
    if as_json:
        import json

        typer.echo(json.dumps(values, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    table = Table(title=escape(str(ws.config_path)), title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value")
    table.add_column("", style="dim")
    for key, value in values.items():
        table.add_row(key, escape(repr(value) if isinstance(value, str) else str(value)), KEYS[key].doc)
    out.print(table)


@app.command("set")
def set_(ctx: typer.Context,
         key: Annotated[str, typer.Argument(help="Dotted key, e.g. llm.base_url.")],
         value: Annotated[str, typer.Argument(help="New value.")]) -> None:
    """Change one setting, keeping the file's comments. Secrets are refused."""
    from heartcompass.audit import set_config

    new, sha = set_config(workspace(ctx), key, value)
    out.print(f"{escape(key)} = {escape(repr(new))}" + (f"  [dim]({sha[:8]})[/]" if sha else "  [dim](unchanged)[/]"))
