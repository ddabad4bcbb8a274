"""What the map knows beyond its links: each link's strength (memory/strength),
each person's relation history (memory/relation_history), for `graph`'s line
widths and `graph --json`. Reads files and one cached git log; no model."""

from __future__ import annotations

import datetime as dt
from typing import Any

from heartcompass.memory import relation_history
from heartcompass.memory.graph import Graph, Weights
from heartcompass.memory.strength import Strength, Strengths
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace


def _people(ws: Workspace, slugs: set[str]) -> dict[str, Person]:
    folder = ws.people_dir  # once: a map of ten thousand people would make it ten thousand times
    return {slug: Person(slug, folder / slug) for slug in slugs}


def strengths(ws: Workspace, g: Graph, today: dt.date, slugs: set[str] | None = None,
              people: dict[str, Person] | None = None
              ) -> tuple[dict[tuple[str, str], Strength], dict[str, Strength]]:
    """(each related link's strength, the user's link to each person)."""
    store = Strengths(ws)
    keep = set(g.names) if slugs is None else slugs & set(g.names)
    people = {slug: p for slug, p in people.items() if slug in keep} if people is not None else _people(ws, keep)
    names = {slug: [g.names[slug], *g.aliases.get(slug, ())] for slug in people}
    mine = {slug: store.with_user(p, today) for slug, p in people.items() if g.relations.get(slug) != "self"}
    links = {(a, b): store.between(people[a], b, names[b], today)
             for a, b, _ in g.edges if a in people and b in people and g.relations.get(a) != "self"}
    for a, b, _ in g.edges:  # the user's own `related` links are the user's link to them
        if g.relations.get(a) == "self" and b in mine:
            links[(a, b)] = mine[b]
    if slugs is None:
        store.forget_all_but(set(g.names))
    store.save()
    return links, mine


def weights(links: dict[tuple[str, str], Strength], mine: dict[str, Strength]) -> Weights:
    return ({k: s.strength for k, s in links.items()}, {k: s.strength for k, s in mine.items()})


def as_json(ws: Workspace, g: Graph, today: dt.date, slugs: set[str] | None = None) -> dict[str, Any]:
    keep = set(g.names) if slugs is None else slugs
    folks = _people(ws, keep & set(g.names))
    links, mine = strengths(ws, g, today, slugs, folks)
    history = relation_history.committed(ws)
    people = []
    for slug in sorted(s for s in keep if s in g.names):
        stages = relation_history.of(ws, folks[slug], g.relations.get(slug, "?"), history, today)
        entry: dict[str, Any] = {"slug": slug, "name": g.names[slug], "relation": g.relations.get(slug, "?"),
                                 "relation_history": [{"stage": s.stage, "since": s.since, "evidence": s.evidence,
                                                       "commit": s.commit} for s in stages]}
        if slug in mine:
            entry["with_user"] = mine[slug].as_json()
        people.append(entry)
    out_links = []
    for a, b, words in g.edges:
        if a in keep and b in keep:
            link: dict[str, Any] = {"from": a, "to": b, "as": words}
            if (a, b) in links:
                link.update(links[(a, b)].as_json())
            out_links.append(link)
    me = next((s for s, r in g.relations.items() if r == "self"), None)
    user_links = [{"from": me, "to": slug, "as": "", "user": True, **s.as_json()}
                  for slug, s in sorted(mine.items()) if slug in keep and s.days]
    return {"today": today.isoformat(), "people": people, "links": out_links + user_links}
