"""/tell's offers: what waits for Yes or No in an app chat, kept across
restarts in .heartcompass/serve/tell_offers.json (local state, never
committed): a /tell's proposal (the files it would write, checked against
the files on disk when the answer comes) and the offer to add someone the
narrative named. (The gardener's questions are memory/questions.py.)

The file is replaced whole and fsynced on every change (a /tell is rare):
a Yes pressed after a restart still finds its offer. An offer is kept
for EXPIRE_DAYS, at most KEEP of them; then the buttons answer that it is
gone, and the told note stays in the log for the gardener. Keys are never
reused (the counter is kept too), so an old button cannot answer a new
offer. A broken file is set aside and the offers start afresh."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

from heartcompass.atomic import ConcurrentEditError, checksum, read_state, write_atomic
from heartcompass.store.workspace import Workspace

KEEP = 20         # offers waiting at most (never answered: the note stays in the log anyway)
EXPIRE_DAYS = 3   # an offer older than this is dropped
FILE_NAME = "tell_offers.json"
OLD_NAME = "proposals.json"  # its name before 2026-12 (read once, then renamed)


class TellOffers:
    def __init__(self, path: Path, clock: Callable[[], float] = time.time):
        self.path, self.clock = path, clock
        self._mu = threading.Lock()
        self.next = 1
        self.waiting: dict[str, dict[str, Any]] = {}
        self._load()

    def _load(self) -> None:
        def parse(data: Any) -> tuple[int, dict[str, dict[str, Any]]]:
            return int(data["next"]), {str(k): dict(v) for k, v in dict(data["waiting"]).items()}

        state = read_state(self.path, parse)  # a broken file is set aside: the notes are in the logs
        if state is not None:
            self.next, self.waiting = state

    def _save(self) -> None:
        write_atomic(self.path, json.dumps({"next": self.next, "waiting": self.waiting}, ensure_ascii=False))

    def _expire(self) -> None:
        old = self.clock() - EXPIRE_DAYS * 86400
        for key in [k for k, v in self.waiting.items() if float(v.get("at", 0)) < old]:
            del self.waiting[key]
        while len(self.waiting) > KEEP:
            self.waiting.pop(next(iter(self.waiting)))

    def add(self, chat: str, record: dict[str, Any]) -> str:
        """Keep an offer for this app chat; its key is the buttons' data."""
        with self._mu:
            key = f"t{self.next}"
            self.next += 1
            self.waiting[key] = {**record, "chat": chat, "at": self.clock()}
            self._expire()
            self._save()
            return key

    def take(self, key: str, chat: str) -> dict[str, Any] | None:
        """The offer, answered now (so never twice); None when it is not
        waiting (answered, expired, or another chat's)."""
        with self._mu:
            self._expire()
            record = self.waiting.get(key)
            if record is None or record.get("chat") != chat:
                self._save()
                return None
            del self.waiting[key]
            self._save()
            return record

    def latest(self, chat: str) -> str | None:
        with self._mu:
            return next((k for k, v in reversed(self.waiting.items()) if v.get("chat") == chat), None)


def for_workspace(ws: Workspace) -> TellOffers:
    serve = ws.state_dir / "serve"
    if (serve / OLD_NAME).is_file() and not (serve / FILE_NAME).exists():
        try:
            (serve / OLD_NAME).replace(serve / FILE_NAME)  # offers kept by an older serve still answer
        except OSError:
            pass  # they start afresh: each told note is in the log anyway
    return TellOffers(serve / FILE_NAME)


# -- a /tell's offer as JSON, and back ----------------------------------------------------
def tell_record(ws: Workspace, plan: Any, note: Any) -> dict[str, Any]:
    """What a Yes needs to apply `plan` later: the new texts, and a checksum
    of each file as the proposal saw it (None: it did not exist)."""
    return {
        "kind": "tell", "person": plan.person.slug, "narrative": plan.narrative, "now": plan.now.isoformat(),
        "note": {"person": note.person.slug, "path": ws.rel(note.path), "day": note.day.isoformat(),
                 "position": note.position, "text": note.text},
        "plans": [{"person": p.person.slug, "name": p.name, "summary": p.summary, "changes": list(p.changes),
                   "diffs": dict(p.diffs),
                   "originals": {ws.rel(path): (checksum(old) if old is not None else None)
                                 for path, old in p.originals.items() if path in p.texts},
                   "texts": {ws.rel(path): text for path, text in p.texts.items()}} for p in plan.plans],
    }


def tell_note(ws: Workspace, record: dict[str, Any]) -> Any:
    """Where the narrative was logged (a Note)."""
    from heartcompass.intake.tell import Note
    from heartcompass.store.people import Person

    n = record["note"]
    return Note(Person(str(n["person"]), ws.people_dir / str(n["person"])), ws.root / str(n["path"]),
                dt.date.fromisoformat(n["day"]), int(n["position"]), str(n["text"]))


def tell_plan(ws: Workspace, record: dict[str, Any], note: Any) -> Any:
    """The TellPlan again, from the files on disk now. A file that changed
    since the proposal was made, a person gone or a note not where it was:
    ConcurrentEditError, and nothing is written."""
    from heartcompass.formats import dailylog
    from heartcompass.intake.tell import PersonPlan, TellPlan
    from heartcompass.store.people import Person

    def person(slug: str) -> Person:
        found = Person(slug, ws.people_dir / slug)
        if not found.dir.is_dir():
            raise ConcurrentEditError(f"people/{slug}/ is gone since the proposal was made; nothing written.",
                                      "Tell it again with /tell.")
        return found

    person(note.person.slug)
    entries = dailylog.load(note.path) if note.path.is_file() else []
    if not (note.position < len(entries) and entries[note.position].speaker == "note"
            and entries[note.position].text == note.text and not entries[note.position].dropped):
        raise ConcurrentEditError(f"What you told is no longer where it was in {ws.rel(note.path)}; "
                                  "nothing written.", "Tell it again with /tell.")
    plans = []
    for p in record["plans"]:
        originals: dict[Path, str | None] = {}
        for rel, digest in p["originals"].items():
            path = ws.root / rel
            now = _current(path)
            if (checksum(now) if now is not None else None) != digest:
                raise ConcurrentEditError(f"{rel} changed since the proposal was made; nothing written.",
                                          "Tell it again with /tell: the proposal starts from the file as it is.")
            originals[path] = now
        plans.append(PersonPlan(person(str(p["person"])), str(p["name"]), originals,
                                {ws.root / rel: str(text) for rel, text in p["texts"].items()},
                                {str(k): str(v) for k, v in p["diffs"].items()}, [str(c) for c in p["changes"]],
                                str(p["summary"])))
    return TellPlan(person(str(record["person"])), str(record["narrative"]),
                    dt.datetime.fromisoformat(record["now"]), plans)


def _current(path: Path) -> str | None:
    from heartcompass.formats import read_text

    try:
        return read_text(path)
    except FileNotFoundError:
        return None
