"""The people around a person, in a prompt.

- Everyone's prompt (persona, reflection, coach) has the person's own
  `## People in their life` lines, one ranked unit each, so the conversation
  picks the ones it names: what they themself said about the people they
  mention.
- Only the coach's prompt ("about" voice: advice to the user, who knows all
  their notes) sees across people: when the conversation names another
  person of the workspace (by name, alias, nickname, 老王, a mention linked
  to them), their notes (MEMORY.md facts) and the path between the two on
  the map, one or two hops. A persona never gets another person's files:
  what you told Bob stays Bob's."""

from __future__ import annotations

from collections import deque

from heartcompass import names
from heartcompass.errors import FormatError
from heartcompass.formats import mentions as mentions_fmt
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.memory.selection import Unit
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

SECTION = mentions_fmt.SECTION

HOPS = 2
MOST_OTHERS = 5        # people named in one conversation whose notes are offered
NOTES_EACH = 40        # lines offered per person named (the budget takes what fits)


def mention_units(prof: profile_fmt.Profile, priority: float, standing: float) -> list[Unit]:
    return [Unit("circle", mentions_fmt.render_line(m), priority + i / 1e6, ranked=True, standing=standing)
            for i, m in enumerate(mentions_fmt.read(prof.body))]


def path(g, start: str, goal: str, hops: int = HOPS) -> list[tuple[str, str, str]] | None:
    """[(from, to, words)] along the map from start to goal, within hops (either direction)."""
    back: dict[str, tuple[str, str, str] | None] = {start: None}
    todo = deque([(start, 0)])
    while todo:
        slug, depth = todo.popleft()
        if slug == goal:
            steps: list[tuple[str, str, str]] = []
            while (step := back[slug]) is not None:
                steps.append(step)
                slug = step[0] if step[1] == slug else step[1]
            return list(reversed(steps))
        if depth >= hops:
            continue
        for other, words in g.out_of(slug):
            if other not in back:
                back[other] = (slug, other, words)
                todo.append((other, depth + 1))
        for other, words in g.into(slug):
            if other not in back:
                back[other] = (other, slug, words)
                todo.append((other, depth + 1))
    return None


def named_people(person: Person, prof: profile_fmt.Profile, text: str, facts: dict) -> list[str]:
    """Slugs of the other people of the workspace the text names, directly or by a linked mention."""
    cands = [names.Candidate(slug, f.names()) for slug, f in facts.items()
             if slug != person.slug and not f.error and f.relation != "self"]
    found = list(names.named_in(text, cands))
    linked = [names.Candidate(m.person, m.names(), m.role) for m in mentions_fmt.read(prof.body) if m.person]
    found += [slug for slug in names.named_in(text, linked) if slug in facts and slug not in found]
    return found[:MOST_OTHERS]


def others_units(ws: Workspace, person: Person, prof: profile_fmt.Profile, text: str, priority: float,
                 facts: dict) -> list[Unit]:
    """For the coach: each other person the text names, their notes and the path.
    facts: everyone's ProfileFacts (slug ->), as the snapshot read them."""
    from heartcompass.memory import graph as graph_mod

    if not text.strip():
        return []
    found = named_people(person, prof, text, facts)
    if not found:
        return []
    g = graph_mod.from_facts(facts)
    units = []
    for n, slug in enumerate(found):
        who = g.names.get(slug, slug)
        steps = path(g, person.slug, slug)
        route = _route(g, person.slug, steps) if steps else "not linked on the map"
        base = priority + n / 100
        units.append(Unit("others", f"- {who} ({g.relations.get(slug, '?')} of the user); path: {route}", base))
        other = Person(slug, ws.people_dir / slug)
        try:
            lines = other.load_memory().items(memory_fmt.FACTS) if other.memory_path.exists() else []
        except FormatError:
            lines = []
        units += [Unit("others", f"  {who}: {line.lstrip('- ').strip()}", base + (i + 1) / 1e6, ranked=True)
                  for i, line in enumerate(lines[:NOTES_EACH])]
    return units


def _route(g, start: str, steps: list[tuple[str, str, str]]) -> str:
    """'Alice Chen → (her colleague) → Bob Li': an arrow the way the profile that says it points."""
    parts, here = [g.names.get(start, start)], start
    for a, b, words in steps:
        there, arrow = (b, "→") if a == here else (a, "←")
        parts.append(f"{arrow} ({words or 'linked'}) {arrow} {g.names.get(there, there)}")
        here = there
    return " ".join(parts)
