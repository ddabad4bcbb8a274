"""Answering the gardener's questions (questions.py): what waits, a No, and
expiry. A Yes, which changes the files, is review_apply.py.

The count chat and today show reads the store without the lock and
without changing it; `review`, `doctor` and the phone's /review expire
what is too old (under the lock) and say so once, since an expired
question is gone from the store after that."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from heartcompass.errors import ReviewError
from heartcompass.memory.questions import Question, Questions
from heartcompass.store.workspace import Workspace

LOCK_WAIT = 30.0  # seconds a review waits for a writer (a chat's commit, the gardener between people)


@dataclass
class Waiting:
    questions: list[Question]   # waiting now, oldest first
    expired: list[Question]     # dropped by this look (review.expire_days), to be said once


def _locked(ws: Workspace, purpose: str):
    from heartcompass.store.lock import FileLock

    return FileLock(ws.state_dir / "lock", purpose, wait=LOCK_WAIT)


def _order(q: Question) -> tuple[str, int]:
    number = re.fullmatch(r"q(\d+)", q.id)
    return q.asked, int(number.group(1)) if number else 0


def waiting(ws: Workspace, today: dt.date, purpose: str = "review") -> Waiting:
    """The questions waiting, after dropping the expired ones (saved at once:
    an expired question is reported by this call and never again)."""
    if not Questions(ws).waiting:  # nothing there: no lock taken
        return Waiting([], [])
    with _locked(ws, purpose):
        store = Questions(ws)
        gone = store.expire(today)
        if gone:
            store.save()
        return Waiting(sorted(store.pending(), key=_order), sorted(gone, key=_order))


def unexpired(ws: Workspace, today: dt.date) -> list[Question]:
    """The questions that wait and are not expired, read-only (chat's start,
    today): no lock, no write, nothing imported beyond json."""
    try:
        data = json.loads((ws.state_dir / "questions.json").read_text(encoding="utf-8"))
        days = int(ws.config.get("review.expire_days"))
        found = [Question(**v) for v in dict(data["waiting"]).values()]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []
    oldest = (today - dt.timedelta(days)).isoformat()
    return sorted((q for q in found if not q.asked or q.asked >= oldest), key=_order)


def count_waiting(ws: Workspace, today: dt.date) -> int:
    return len(unexpired(ws, today))


def reminder(ws: Workspace) -> str | None:
    """chat's line at its start, when questions wait."""
    from heartcompass.store import clock

    n = count_waiting(ws, clock.today(ws))
    return f"{n} question{'s' if n != 1 else ''} wait{'s' if n == 1 else ''} for your answer: " \
        "heartcompass review" if n else None


def store_problem(ws: Workspace) -> str | None:
    """Why the store cannot be read (for doctor), or None."""
    path = ws.state_dir / "questions.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        int(data["next"])
        for v in dict(data["waiting"]).values():
            Question(**v)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return f"{ws.rel(path)} does not read back ({type(exc).__name__})"
    return None


def find(store: Questions, ident: str) -> Question:
    """The waiting question with this id, or a ReviewError that says why not."""
    ident = ident.strip()
    q = store.waiting.get(ident)
    if q is not None:
        return q
    number = re.fullmatch(r"q(\d+)", ident)
    if number and 0 < int(number.group(1)) < store.next:
        raise ReviewError(f"Question {ident} no longer waits: it was answered or it expired.",
                          "heartcompass review lists the questions that wait.")
    raise ReviewError(f"No question {ident[:40]!r}.", "heartcompass review lists the questions that wait, "
                      "with their ids (q1, q2...).")


def refuse(ws: Workspace, ident: str, purpose: str = "review") -> Question:
    """A No: the question goes, and the same change on the same evidence is never asked again."""
    with _locked(ws, purpose):
        store = Questions(ws)
        q = find(store, ident)
        store.refuse(q)
        store.save()
        return q


def old_and_new(q: Question) -> tuple[Any, Any]:
    """What the change replaces and what it puts there (None: nothing)."""
    c = q.change
    if q.kind == "field":
        return c.get("old"), c.get("value")
    if q.kind == "alias":
        return None, c.get("value")
    if q.kind == "link":
        return None, f"{c.get('person')}: {c.get('words')}"
    return c.get("old"), c.get("new") if q.kind == "rewrite" else None


def editable(q: Question) -> str:
    """What an edit starts from: the value or line a Yes would write (a link's words alone)."""
    from heartcompass.formats.sources import without_source

    c = q.change
    if q.kind == "link":
        return str(c.get("words") or "")
    if q.kind in ("rewrite", "removal"):
        return without_source(str(c.get("new") or "").removeprefix("- ").strip())
    return str(c.get("value") or "")


def as_json(q: Question) -> dict[str, Any]:
    old, new = old_and_new(q)
    return {"id": q.id, "person": q.person, "kind": q.kind, "what": q.what, "old": old, "new": new,
            "reason": q.reason, "evidence": list(q.evidence), "asked": q.asked}


def quoted(entry: dict[str, str]) -> str:
    """An evidence entry as the user reads it: day, time, speaker, words."""
    when = " ".join(x for x in (str(entry.get("day", "")), str(entry.get("time", ""))[:5]) if x)
    return f"{when} {entry.get('speaker', '?')}: {' '.join(str(entry.get('text', '')).split())}"
