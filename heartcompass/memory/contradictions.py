"""A relation label the recent evidence contradicts becomes a question, never
a silent change: a friend, family or partner with conflict on each of the
last IN_A_ROW days of real messages is asked about in `review` ("relation:
friend → tension?", with those messages quoted). A No is remembered with its
evidence (memory/questions.py), so the same days never ask again; new
conflicts ask anew.

The gardener asks it with the questions of its verdicts, once it has
gardened a person; it reads the day counts of memory/strength.py, no model."""

from __future__ import annotations

import datetime as dt

from heartcompass.errors import FormatError
from heartcompass.memory.questions import Question
from heartcompass.memory.strength import Strengths
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

IN_A_ROW = 3
CLOSE = ("friend", "family", "dating")  # labels that say the two are close


def contradiction(ws: Workspace, person: Person, today: dt.date) -> Question | None:
    """The question to ask about person's label, or None when the evidence fits it."""
    try:
        prof = person.load_profile()
    except FormatError:
        return None
    if prof.relation not in CLOSE:
        return None
    store = Strengths(ws)
    days = store.days(person, "", None)
    store.save()
    recent = sorted(d for d, c in days.items() if c[0] and d <= today.isoformat())[-IN_A_ROW:]
    if len(recent) < IN_A_ROW or not all(days[d][1].get("conflict") for d in recent):
        return None
    if any(days[d][1].get("warm", 0) >= days[d][1]["conflict"] for d in recent):
        return None  # they made up the same day: not a contradiction
    evidence = [{"day": d, "time": "", "speaker": prof.name, "text": days[d][2]} for d in recent]
    return Question(person.slug, "field", {"field": "relation", "value": "tension", "old": prof.relation},
                    f"relation: {prof.relation} → tension",
                    evidence, f"conflict on each of the last {IN_A_ROW} days of real messages contradicts "
                              f"'{prof.relation}'")
