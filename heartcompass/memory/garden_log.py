"""What a garden leaves for review, kept locally in .heartcompass/: the
questions it asks (questions.json, memory/questions.py), the run log (garden.log: one line per person per run, then one line per line the
model proposed and the checks refused, with its reasons, so a user or a
developer tuning a prompt can grep what was lost), and on how many days a
person's next entries had every proposed line refused.

Entries whose every line is refused stay unconsumed, so a better answer may
come next night; once that happened on REFUSED_DAYS days (the user's days,
not runs: a user who runs it five times in an evening has given it one
night) they are counted as read, their refused lines in garden.log each
run, so they do not go back to the model every night forever."""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import TYPE_CHECKING, Sequence

from heartcompass.store.workspace import Workspace

if TYPE_CHECKING:
    from heartcompass.memory.gardener import PersonResult
    from heartcompass.memory.proposal.verdicts import Verdicts

REFUSED_DAYS = 3


def append_run_log(ws: Workspace, results: Sequence[PersonResult], started: dt.datetime) -> None:
    """One line per person per run in .heartcompass/garden.log, each followed
    by its refused lines: `<time> <slug> refused <kind> <statement as JSON> -- <reasons>`, then
    the lines refused at first whose correction was judged again (`corrected`, same form: the
    correction's own verdict is in kept= or a refused line), so a prompt's first-try misses stay
    visible."""
    stamp = started.isoformat(timespec="seconds")
    lines = []
    for r in results:
        lines.append(f"{stamp} {r.slug} {r.status} entries={r.entries} +events={r.events_added} "
                     f"~events={r.events_changed} memory={r.memory_before}->{r.memory_after} "
                     f"kept={r.kept} refused={len(r.refused)} asked={len(r.asked)} "
                     f"commit={r.commit[:8] if r.commit else '-'}"
                     + (f" {' '.join(r.message.split())}" if r.message else ""))
        lines += [f"{stamp} {r.slug} refused {refused_line(x)}" for x in r.refused]
        lines += [f"{stamp} {r.slug} corrected {refused_line(x)}" for x in r.corrected]
    with open(ws.state_dir / "garden.log", "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def refused_line(refused: dict) -> str:
    """A refused line as one line of text: its kind, the statement as the model wrote it, why."""
    said = json.dumps(refused["statement"], ensure_ascii=False, sort_keys=True)
    reasons = "; ".join(" ".join(str(r).split()) for r in refused["reasons"])
    return f"{refused['kind']} {said} -- {reasons}"


class RefusedRuns:
    """Per person: the first entry of the chunk whose every line was refused,
    and the days it was."""

    def __init__(self, ws: Workspace):
        self.path = ws.state_dir / "refused_runs.json"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.runs = {str(k): (str(v[0]), [str(d) for d in v[1]]) for k, v in dict(data).items()}
        except (OSError, ValueError, TypeError, IndexError, AttributeError):
            self.runs = {}  # lost or broken: counting starts again, nothing else depends on it

    def record(self, slug: str, first: str, today: dt.date) -> int:
        """The entries from `first` refused again today; on how many days now."""
        held = self.runs.get(slug)
        days = held[1] if held and held[0] == first else []
        self.runs[slug] = (first, sorted({*days, today.isoformat()}))
        self._save()
        return len(self.runs[slug][1])

    def clear(self, slug: str) -> None:
        if self.runs.pop(slug, None) is not None:
            self._save()

    def _save(self) -> None:
        from heartcompass.atomic import write_atomic

        write_atomic(self.path, json.dumps({k: list(v) for k, v in self.runs.items()}, ensure_ascii=False) + "\n")


def refused_for_good(ws: Workspace, result: PersonResult, chunk: list, verdicts: Verdicts, today: dt.date) -> bool:
    """Every line proposed on the chunk refused: its entries stay for the
    next run, until that happened on REFUSED_DAYS days; then they count as
    read (True), their refused lines listed in garden.log."""
    refusals = RefusedRuns(ws)
    if not verdicts.everything_refused:
        if verdicts.consumes:
            refusals.clear(result.slug)
        return False
    days = refusals.record(result.slug, f"{chunk[0].day}#{chunk[0].index}", today)
    reasons = "; ".join(r for x in verdicts.refused for r in x.reasons)
    if days < REFUSED_DAYS:
        result.message = (f"every line the model proposed was refused ({reasons}); the entries stay for the next "
                          f"run (day {days} of {REFUSED_DAYS}), the refused lines are in .heartcompass/garden.log")
        return False
    refusals.clear(result.slug)
    result.message = (f"every line the model proposed was refused again ({reasons}); after {REFUSED_DAYS} days the "
                      "entries count as read, and the refused lines are in .heartcompass/garden.log")
    return True


def leave_questions(ws: Workspace, pending: list, today: dt.date, keep: bool = True) -> list[dict]:
    """The person's questions as JSON. keep: added to the store (the caller
    holds the workspace lock, after the commit of the lines they came with)
    and no longer pending; one the user said No to on the same evidence is
    not asked again. Without keep (a dry run, --review before the answer),
    only shown. A question never changes a file."""
    from dataclasses import asdict

    if not keep or not pending:
        return [asdict(q) for q in pending]
    from heartcompass.memory.questions import Questions

    store = Questions(ws)
    added = [store.add(q, today) for q in pending]
    store.save()
    pending.clear()
    return [asdict(q) for q in added if q is not None]
