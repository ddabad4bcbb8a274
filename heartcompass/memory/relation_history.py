"""A relation stage's history: each change of PROFILE.md's `relation`, when,
and on what evidence (the commit that made it: a `review` Yes, a hand edit,
a tell, the person added), read from the files' git history with one
`git log -G` for the whole workspace.

Kept in .heartcompass/relation-history.json keyed by the commit it was read
at, so `graph --json` at ten thousand people reads git once per new commit.
A relation changed by hand and not committed yet ends the history as of
today. A person's history starts at the folder's current name (a rename
starts it again)."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import asdict, dataclass

from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

CACHE = "relation-history.json"
_RELATION = r"^relation:"
_VALUE = re.compile(r"^relation:\s*['\"]?([\w-]+)")
_PATH = re.compile(r"^people/([^/]+)/PROFILE\.md$")
_VERBS = {"add": "added", "edit": "a hand edit", "review": "a review Yes", "tell": "a tell", "garden": "the gardener",
          "import": "an import", "rename": "a rename", "sync": "a sync", "undo": "an undo", "restore": "a restore"}


@dataclass
class Stage:
    stage: str
    since: str          # the user's day (YYYY-MM-DD)
    evidence: str       # in words: "a hand edit", "a review Yes"...
    commit: str = ""    # the commit's subject ("" when not committed yet)


def _evidence(subject: str) -> str:
    verb = re.match(r"^(\w+)", subject)
    return _VERBS.get(verb.group(1), subject) if verb else subject


def _read(ws: Workspace, head: str) -> dict[str, list[dict[str, str]]]:
    from heartcompass.store import clock

    tz = clock.now(ws).tzinfo
    out: dict[str, list[dict[str, str]]] = {}
    for _sha, when, subject, path, line in ws.git.lines_added([":(glob)people/*/PROFILE.md"], _RELATION):
        slug, value = _PATH.match(path), _VALUE.match(line)
        if not slug or not value:
            continue
        stages = out.setdefault(slug.group(1), [])
        if stages and stages[-1]["stage"] == value.group(1):
            continue  # the line moved or was reformatted: no change of stage
        day = dt.datetime.fromtimestamp(when, tz).date().isoformat()
        stages.append(asdict(Stage(value.group(1), day, _evidence(subject), subject)))
    return out


def committed(ws: Workspace) -> dict[str, list[dict[str, str]]]:
    """Every person's stages as committed, read once per HEAD."""
    from heartcompass.atomic import write_atomic

    head = ws.git.head()
    if head is None:
        return {}
    path = ws.state_dir / CACHE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("head") == head and isinstance(data.get("people"), dict):
            return data["people"]
    except (OSError, ValueError, AttributeError):
        pass
    people = _read(ws, head)
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, json.dumps({"head": head, "people": people}, ensure_ascii=False), durable=False)
    except OSError:
        pass
    return people


def of(ws: Workspace, person: Person, relation: str, everyone: dict[str, list[dict[str, str]]] | None = None,
       today: dt.date | None = None) -> list[Stage]:
    """person's stages, oldest first, ending with `relation` as the file has it now."""
    from heartcompass.store import clock

    stages = [Stage(**s) for s in (committed(ws) if everyone is None else everyone).get(person.slug, [])]
    if not stages or stages[-1].stage != relation:
        day = today or clock.today(ws)
        stages.append(Stage(relation, day.isoformat(), "a hand edit (not committed yet)"))
    return stages


def since_words(stages: list[Stage]) -> str:
    """'friend since 2022-12-04, dating since 2023-03-12'."""
    return ", ".join(f"{s.stage} since {s.since}" for s in stages)
