"""heartcompass graph — how the people in your life are connected."""


from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import complete_person
from heartcompass.cli.common import workspace
from heartcompass.errors import HeartCompassError


EVERYONE = 1_000_000_000  # "all levels": walking is iterative, a chain may be as long as the workspace
GUIDES = {True: ("└── ", "    "), False: ("├── ", "│   ")}  # last child?: (this line, lines below it)


def register(app: typer.Typer) -> None:
    app.command("graph")(graph)


def graph(
    ctx: typer.Context,
    name: Annotated[Optional[str], typer.Argument(help="Start from this person (default: everyone).", autocompletion=complete_person,
                                                  show_default=False)] = None,
    depth: Annotated[Optional[int], typer.Option("--depth", "-d", help="How many links away (default: 2 from "
                     "NAME; everyone connected without NAME).", min=1, show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="tree, mermaid, dot or json (mermaid, dot and json "
                                     "with each link's strength).")] = "tree",
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json: people with their relation "
                                          "history, links with strength, kind and last evidence.")] = False,
) -> None:
    """The relationship map from the `related` links in PROFILE.md."""
    from heartcompass.memory import graph as graph_mod

    fmt = "json" if as_json else fmt
    if fmt not in ("tree", "mermaid", "dot", "json"):
        raise HeartCompassError(f"Unknown format {fmt!r}.", "Use tree, mermaid, dot or json.")
    ws = workspace(ctx)
    with graph_mod.collector_paused():
        _draw(ws, graph_mod.build(ws), name, depth, fmt, as_json)


def _draw(ws, g, name: Optional[str], depth: Optional[int], fmt: str, as_json: bool) -> None:
    from heartcompass.cli import lookup
    from heartcompass.memory import graph as graph_mod

    roots = [lookup.person(ws, name, asking=not as_json).slug] if name else ([] if fmt != "tree" else _roots(g))
    trees = [g.walk(root, depth or (2 if name else EVERYONE)) for root in roots]
    if fmt != "tree":
        keep = set().union(*(graph_mod.reachable(t) for t in trees)) if name else None
        from heartcompass.memory import graph_data
        from heartcompass.sanitize import strip_controls  # names come from hand-edited profiles
        from heartcompass.store import clock

        if fmt == "json":
            import json

            # one line, by json's C encoder: indented, 10,000 people took seconds to print
            typer.echo(json.dumps(graph_data.as_json(ws, g, clock.today(ws), keep), ensure_ascii=False))
            return
        weights = graph_data.weights(*graph_data.strengths(ws, g, clock.today(ws), keep))
        draw = graph_mod.to_mermaid if fmt == "mermaid" else graph_mod.to_dot
        typer.echo(strip_controls(draw(g, keep, weights)), nl=False)
        return
    import os
    import sys

    # Plain text with colour codes by hand, in one write: 5,000 people were 13 MB through rich's markup (3 s).
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    sys.stdout.write("".join("\n".join(tree_lines(root, g, colour)) + "\n" for root in trees))
    sys.stdout.flush()


def _roots(g) -> list[str]:
    """Everyone, starting with the user, then whoever is not reached yet."""
    order = sorted(g.names, key=lambda s: (g.relations.get(s) != "self", s))
    roots, seen = [], set()
    from heartcompass.memory.graph import reachable

    for slug in order:
        if slug not in seen:
            roots.append(slug)
            seen |= reachable(g.walk(slug, EVERYONE))
    return roots


def tree_lines(root, g, colour: bool = False) -> list[str]:
    """The tree as lines with guides (ANSI colours when colour). Drawn here
    rather than with rich's Tree, which is quadratic in depth and drops lines
    deeper than the terminal is wide; each person is one line, however deep.
    Names come from hand-edited profiles: their escape sequences are stripped."""
    from heartcompass.sanitize import strip_controls

    def style(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if colour else text

    def clean(text: str) -> str:
        return " ".join(strip_controls(text).split())  # one line each, whatever a name holds

    lines = [f"{style('1', clean(root.name))} {style('2', '(' + clean(g.relations.get(root.slug, '?')) + ')')}"]
    stack = [("", child, i == len(root.children) - 1) for i, child in reversed(list(enumerate(root.children)))]
    while stack:
        prefix, node, last = stack.pop()
        arrow = {"out": "→", "in": "←", "both": "↔"}[node.direction]
        missing = " " + style("31", "(not in the workspace)") if node.slug not in g.names else ""
        words = " " + style("2", clean(node.words)) if node.words else ""
        lines.append(f"{style('2', prefix + GUIDES[last][0])}{arrow} {style('1', clean(node.name))}{words}{missing}")
        below = prefix + GUIDES[last][1]
        stack.extend((below, child, i == len(node.children) - 1)
                     for i, child in reversed(list(enumerate(node.children))))
    return lines
