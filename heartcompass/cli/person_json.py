"""`person show --json`: one person as a script reads them."""

from __future__ import annotations

from heartcompass.cli.common import print_json


def print_person(ws, person) -> None:
    from heartcompass.store.people import display_name

    prof, evs, mem = person.load_profile(), person.load_events(), person.load_memory()
    print_json({
        "slug": person.slug, "name": display_name(prof, str(ws.config.get("user.name") or "")),
        "relation": prof.relation, "mbti": prof.mbti, "aliases": prof.aliases, "handles": prof.handles,
        "gender": prof.gender, "birthday": str(prof.birthday) if prof.birthday else None, "tags": prof.tags,
        "related": prof.related, "profile": prof.body.strip(),
        "events": [{"when": e.when, "weight": e.effective_weight, "text": e.text, "source": e.source}
                   for e in evs.sorted_events()],
        "memory": {"tokens": mem.body_tokens(), "budget": mem.budget_tokens, "sections": mem.sections},
    }, indent=2)
