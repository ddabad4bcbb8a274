"""Questions the gardener asks instead of applying a change that alters who
someone is (a relation stage, gender, birthday, an alias or handle, a link,
a rewrite or removal of a told, hand-written or Boundaries line, a profile
line removed). They wait for the user's Yes in `heartcompass review`, at
chat's start, in `today` and on the phone.

Kept in .heartcompass/questions.json (local state, never committed),
replaced whole on each change by an atomic write; callers hold the
workspace lock when they add or answer. A question is dropped unanswered
after `review.expire_days`. A No is remembered by the question's key
(person, kind, change and the evidence's words), so the same change on the
same evidence is never asked again; new evidence asks anew. A broken file
is set aside and the questions start afresh (the entries stay in the logs).

A question's `change` is what applying it needs, JSON only:
  field     {"field": "relation"|"gender"|"birthday", "value": str, "old": str|None}
  alias     {"value": str}                      (an alias or a handle, routed by)
  link      {"person": slug, "words": str}
  rewrite   {"file": "MEMORY.md"|"PROFILE.md"|"EVENTS.md", "section": str, "old": line, "new": line}
  removal   {"file": ..., "section": str, "old": line}
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from heartcompass.store.workspace import Workspace

KINDS = ("field", "alias", "link", "rewrite", "removal")
KEEP_REFUSED = 5000  # remembered Noes, newest kept


@dataclass
class Question:
    person: str                     # the person's slug
    kind: str                       # one of KINDS
    change: dict[str, Any]          # what a Yes applies (see the module's doc)
    what: str                       # one line for people: "relation: friend → dating"
    evidence: list[dict[str, str]] = field(default_factory=list)  # {"day", "time", "speaker", "text"} quoted
    reason: str = ""                # why it is asked rather than applied
    asked: str = ""                 # ISO date it was first asked (the user's day)
    id: str = ""                    # "q12": given by the store, never reused

    @property
    def key(self) -> str:
        """Same person, same change, same evidence: the same question."""
        from heartcompass.atomic import checksum

        said = sorted(" ".join(str(e.get("text", "")).split()) for e in self.evidence)
        return checksum(json.dumps([self.person, self.kind, self.change, said], ensure_ascii=False,
                                   sort_keys=True))[:24]


class Questions:
    """The questions waiting in one workspace."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.path: Path = ws.state_dir / "questions.json"
        self.next = 1
        self.waiting: dict[str, Question] = {}
        self.refused: list[str] = []
        self._load()

    def _load(self) -> None:
        from heartcompass.atomic import read_state

        def parse(data: Any) -> tuple[int, dict[str, Question], list[str]]:
            return (int(data["next"]), {str(k): Question(**v) for k, v in dict(data["waiting"]).items()},
                    [str(k) for k in data.get("refused", [])])

        state = read_state(self.path, parse)  # a broken file is set aside: the entries are in the logs
        if state is not None:
            self.next, self.waiting, self.refused = state

    def save(self) -> None:
        from heartcompass.atomic import write_atomic

        data = {"next": self.next, "waiting": {k: asdict(q) for k, q in self.waiting.items()},
                "refused": self.refused[-KEEP_REFUSED:]}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")

    def expire(self, today: dt.date) -> list[Question]:
        """Drops (and returns) the questions older than review.expire_days."""
        days = int(self.ws.config.get("review.expire_days"))
        gone = [q for q in self.waiting.values() if q.asked and dt.date.fromisoformat(q.asked) + dt.timedelta(days) < today]
        for q in gone:
            del self.waiting[q.id]
        return gone

    def pending(self, person: str | None = None) -> list[Question]:
        return [q for q in self.waiting.values() if person is None or q.person == person]

    def add(self, question: Question, today: dt.date) -> Question | None:
        """Keeps a question unless the user said No to it (same evidence) or it already waits."""
        key = question.key
        if key in self.refused:
            return None
        same = next((q for q in self.waiting.values() if q.key == key), None)
        if same is not None:
            return same
        question.id, question.asked = f"q{self.next}", question.asked or today.isoformat()
        self.next += 1
        self.waiting[question.id] = question
        return question

    def take(self, ident: str) -> Question | None:
        """The question, no longer waiting (answered now, so never twice)."""
        return self.waiting.pop(ident.strip(), None)

    def refuse(self, question: Question) -> None:
        """A No: the same change on the same evidence is not asked again."""
        self.waiting.pop(question.id, None)
        if question.key not in self.refused:
            self.refused.append(question.key)
