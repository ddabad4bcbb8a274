"""heartcompass graph — how the people in your life are connected."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from heartcompass.cli.common import escape, out, workspace
from heartcompass.errors import HeartCompassError


def register(app: typer.Typer) -> None:
    app.command("graph")(graph)


def graph(
    ctx: typer.Context,
    name: Annotated[Optional[str], typer.Argument(help="Start from this person (default: everyone).",
                                                  show_default=False)] = None,
    depth: Annotated[Optional[int], typer.Option("--depth", "-d", help="How many links away (default: 2 from "
                     "NAME; everyone connected without NAME).", min=1, show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="tree, mermaid or dot.")] = "tree",
) -> None:
    """The relationship map from the `related` links in PROFILE.md."""
    from heartcompass import graph as graph_mod
    from heartcompass.people import resolve

    if fmt not in ("tree", "mermaid", "dot"):
        raise HeartCompassError(f"Unknown format {fmt!r}.", "Use tree, mermaid or dot.")
    ws = workspace(ctx)
    g = graph_mod.build(ws)
    roots = [resolve(ws, name).slug] if name else _roots(g)
    trees = [g.walk(root, depth or (2 if name else 1_000)) for root in roots]
    if fmt != "tree":
        keep = set().union(*(graph_mod.reachable(t) for t in trees)) if name else None
        from heartcompass.sanitize import strip_controls  # names come from hand-edited profiles

        typer.echo(strip_controls((graph_mod.to_mermaid if fmt == "mermaid" else graph_mod.to_dot)(g, keep)), nl=False)
        return
    from rich.tree import Tree

    for root in trees:
        tree = Tree(f"[bold]{escape(root.name)}[/] [dim]({escape(g.relations.get(root.slug, '?'))})[/]")
        _add(tree, root, g)
        out.print(tree)


def _roots(g) -> list[str]:
    """Everyone, starting with the user, then whoever is not reached yet."""
    order = sorted(g.names, key=lambda s: (g.relations.get(s) != "self", s))
    roots, seen = [], set()
    from heartcompass.graph import reachable

    for slug in order:
        if slug not in seen:
            roots.append(slug)
            seen |= reachable(g.walk(slug, 1_000))
    return roots


def _add(tree, node, g) -> None:
    for child in node.children:
        arrow = {"out": "→", "in": "←", "both": "↔"}[child.direction]
        missing = "" if child.slug in g.names else " [red](not in the workspace)[/]"
        words = f" [dim]{escape(child.words)}[/]" if child.words else ""
        branch = tree.add(f"{arrow} [bold]{escape(child.name)}[/]{words}{missing}")
        _add(branch, child, g)
