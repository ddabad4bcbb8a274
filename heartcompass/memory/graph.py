"""The relationship map: `related` links in PROFILE.md frontmatter form a
graph of the people in the workspace. Core only: building, walking, export
to Mermaid and DOT, and the link problems `doctor` reports."""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from heartcompass.store.people import DEFAULT_SELF_NAME, list_people
from heartcompass.store.workspace import Workspace


@dataclass
class Graph:
    names: dict[str, str] = field(default_factory=dict)        # slug -> display name
    relations: dict[str, str] = field(default_factory=dict)    # slug -> relation to the user
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # slug -> other names
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, as-words)
    unread: set[str] = field(default_factory=set)  # profiles that did not parse: their links are unknown
    # Edges by end, built once (rebuilt if edges grew): a scan per lookup made the map quadratic.
    _index: tuple[int, dict, dict] = field(default=(-1, {}, {}), repr=False, compare=False)

    def _by_end(self) -> tuple[dict[str, list[tuple[str, str]]], dict[str, list[tuple[str, str]]]]:
        if self._index[0] != len(self.edges):
            out: dict[str, list[tuple[str, str]]] = {}
            into: dict[str, list[tuple[str, str]]] = {}
            for a, b, words in self.edges:
                out.setdefault(a, []).append((b, words))
                into.setdefault(b, []).append((a, words))
            self._index = (len(self.edges), out, into)
        return self._index[1], self._index[2]

    def out_of(self, slug: str) -> list[tuple[str, str]]:
        return list(self._by_end()[0].get(slug, ()))

    def into(self, slug: str) -> list[tuple[str, str]]:
        return list(self._by_end()[1].get(slug, ()))

    def missing(self) -> list[tuple[str, str]]:
        """Links to people who are not in the workspace: (from, to)."""
        return [(a, b) for a, b, _ in self.edges if b not in self.names]

    def one_sided(self) -> list[tuple[str, str]]:
        pairs = {(a, b) for a, b, _ in self.edges}
        return sorted((a, b) for a, b in pairs if b in self.names and b not in self.unread and (b, a) not in pairs)

    def walk(self, root: str, depth: int) -> "Node":
        """A tree from root, both directions, each person once. Depth first,
        with an explicit stack: a long chain of people must not hit Python's
        recursion limit."""
        seen = {root}
        top = Node(root, self.names.get(root, root))
        stack = [(top, 0)]
        while stack:
            node, level = stack.pop()
            if level >= depth:
                continue
            near: dict[str, tuple[str, str]] = {}
            for other, words, direction in ([(b, w, "out") for b, w in self.out_of(node.slug)] +
                                            [(a, w, "in") for a, w in self.into(node.slug)]):
                if other in seen:
                    continue
                if other in near:  # linked both ways: one branch with both descriptions
                    words = " / ".join(w for w in (near[other][0], words) if w)
                    direction = "both"
                near[other] = (words, direction)
            seen.update(near)  # nearest first: a person is shown where they are closest
            for other, (words, direction) in near.items():
                node.children.append(Node(other, self.names.get(other, other), words, direction))
            # the first child's whole branch is grown before the second's, as a recursion would
            stack.extend((child, level + 1) for child in reversed(node.children))
        return top


@dataclass
class Node:
    slug: str
    name: str
    words: str = ""
    direction: str = ""     # "out": the parent's profile names them; "in": theirs names the parent; "both"
    children: list["Node"] = field(default_factory=list)


def build(ws: Workspace) -> Graph:
    from heartcompass.store.people_index import for_workspace

    return from_facts(for_workspace(ws).profiles(list_people(ws)), str(ws.config.get("user.name") or "").strip())


def from_facts(everyone: dict, user: str = "") -> Graph:
    """The map from the people index's facts (slug -> ProfileFacts); the
    user's own person is named by user.name when its profile keeps the default."""
    graph = Graph()
    for slug, facts in everyone.items():
        graph.names[slug] = facts.name if not facts.error else slug
        if facts.relation == "self" and facts.name == DEFAULT_SELF_NAME and user:  # as display_name shows them
            graph.names[slug] = user
        if facts.error:
            graph.unread.add(slug)
            continue
        graph.relations[slug] = facts.relation
        graph.aliases[slug] = tuple(facts.aliases)
        for target, words in facts.related:
            graph.edges.append((slug, target, words))
    return graph


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def to_dot(graph: Graph, slugs: set[str] | None = None, weights: "Weights | None" = None) -> str:
    """weights: each link's strength, drawn as its line's width (pen 1 to 5)
    and written after its words; the user's own links (dashed) are drawn
    from the user's person to each person with evidence."""
    keep = slugs if slugs is not None else set(graph.names) | {b for _, b, _ in graph.edges}
    lines = ["digraph heartcompass {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
    for slug in sorted(keep):
        label = graph.names.get(slug, f"{slug} (missing)")
        lines.append(f'  "{_quote(slug)}" [label="{_quote(label)}"];')
    for a, b, words, strength, dashed in _drawn(graph, keep, weights):
        attrs = []
        label = " · ".join(filter(None, [words, f"{strength:.2f}" if strength is not None else ""]))
        if label:
            attrs.append(f'label="{_quote(label)}"')
        if strength is not None:
            attrs.append(f"penwidth={1 + 4 * strength:.1f}")
        if dashed:
            attrs.append("style=dashed")
        lines.append(f'  "{_quote(a)}" -> "{_quote(b)}"' + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


Weights = tuple[dict[tuple[str, str], float], dict[str, float]]  # (related links, the user's link to each person)


def _drawn(graph: Graph, keep: set[str], weights: Weights | None):
    """(from, to, words, strength or None, the user's own link?) for each line of the map."""
    links, mine = weights or ({}, {})
    out = [(a, b, words, links.get((a, b)) if weights else None, False)
           for a, b, words in graph.edges if a in keep and b in keep]
    me = next((s for s, r in graph.relations.items() if r == "self"), None)
    if weights and me in keep:
        linked = {b for a, b, _ in graph.edges if a == me}
        out += [(me, slug, "", strength, True) for slug, strength in sorted(mine.items())
                if slug in keep and slug not in linked and strength > 0]
    return out


def _mermaid_text(text: str) -> str:
    # Mermaid labels in quotes cannot hold a double quote; #quot; is its escape.
    return re.sub(r'["\n]', lambda m: "#quot;" if m.group() == '"' else " ", text)


def to_mermaid(graph: Graph, slugs: set[str] | None = None, weights: Weights | None = None) -> str:
    keep = slugs if slugs is not None else set(graph.names) | {b for _, b, _ in graph.edges}
    ids = {slug: f"p{i}" for i, slug in enumerate(sorted(keep))}  # slugs may be Unicode: ids stay ASCII
    lines = ["graph LR"]
    for slug in sorted(keep):
        label = graph.names.get(slug, f"{slug} (missing)")
        lines.append(f'  {ids[slug]}["{_mermaid_text(label)}"]')
    styles = []
    for n, (a, b, words, strength, dashed) in enumerate(_drawn(graph, keep, weights)):
        label = " · ".join(filter(None, [words, f"{strength:.2f}" if strength is not None else ""]))
        line = "-.->" if dashed else "-->"
        arrow = f'{line}|"{_mermaid_text(label)}"|' if label else line
        lines.append(f"  {ids[a]} {arrow} {ids[b]}")
        if strength is not None:  # the line's width is its strength
            styles.append(f"  linkStyle {n} stroke-width:{1 + 4 * strength:.1f}px")
    return "\n".join(lines + styles) + "\n"


def reachable(node: Node) -> set[str]:
    out, stack = set(), [node]
    while stack:
        current = stack.pop()
        out.add(current.slug)
        stack.extend(current.children)
    return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a map is drawn: its caches load
    millions of small objects (none in a cycle) and each full collection
    walks them all again: a second of a 2 s map at ten thousand people."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
