"""Shell completion of the people a command takes: folder names, names and
aliases (Chinese ones too), read from the people index (no profile is parsed
twice). Completion must never fail loudly: a broken workspace completes nothing."""

from __future__ import annotations

from typing import Annotated

import typer


def people_names(incomplete: str, workspace: str | None = None) -> list[str]:
    """Everyone's slug, name and aliases that start with what was typed (any case), slugs first."""
    from heartcompass.errors import HeartCompassError
    from heartcompass.store.people import list_people
    from heartcompass.store.people_index import for_workspace
    from heartcompass.store.workspace import discover

    try:
        ws = discover(workspace)
        people = list_people(ws)
        index = for_workspace(ws)
        facts = index.profiles(people)
    except (HeartCompassError, OSError):
        return []
    wanted = incomplete.casefold()
    slugs, names = [], []
    for person in people:
        slugs.append(person.slug)
        fact = facts.get(person.slug)
        if fact is not None and not fact.error:
            names.extend(fact.names())
    seen, out = set(), []
    for word in [*slugs, *names]:
        if word and word.casefold().startswith(wanted) and word not in seen:
            seen.add(word)
            out.append(word)
    return out


def complete_person(ctx: typer.Context, incomplete: str) -> list[str]:
    option = ctx.find_root().params.get("workspace")
    return people_names(incomplete, str(option) if option else None)


PersonArg = Annotated[str, typer.Argument(help="Slug, name or alias.", autocompletion=complete_person)]
