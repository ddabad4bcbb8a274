"""heartcompass config show | set"""


from typing import Annotated

import typer

from heartcompass.cli.common import new_app, out, workspace

app = new_app("Show or change the workspace settings (heartcompass.toml).")


@app.command("show")
def show(ctx: typer.Context,
         as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """Every setting with its value (defaults included)."""
    from heartcompass.config import KEYS

    ws = workspace(ctx)
    values = ws.config.as_dict()
    if as_json:
        import json

        typer.echo(json.dumps(values, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"{ws.config_path}", title_justify="left", box=None)
    table.add_column("key", style="bold")
    table.add_column("value")
    table.add_column("", style="dim")
    for key, value in values.items():
        table.add_row(key, repr(value) if isinstance(value, str) else str(value), KEYS[key].doc)
    out.print(table)


@app.command("set")
def set_(ctx: typer.Context,
         key: Annotated[str, typer.Argument(help="Dotted key, e.g. llm.base_url.")],
         value: Annotated[str, typer.Argument(help="New value.")]) -> None:
    """Change one setting, keeping the file's comments. Secrets are refused."""
    from heartcompass.audit import set_config

    new, sha = set_config(workspace(ctx), key, value)
    out.print(f"{key} = {new!r}" + (f"  [dim]({sha[:8]})[/]" if sha else "  [dim](unchanged)[/]"))
