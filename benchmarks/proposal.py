"""What a hostile answer costs: the schema's limits are checked before any
line is matched, so a model answering 20,000 facts and 20,000 events is
refused in time linear in the answer's size, and applying a proposal of
the allowed size grows linearly with the lines already in memory.

    python benchmarks/proposal.py

Prints (ratios, not timed tests):
- reading answers of 2,000 and 20,000 facts and events (pydantic's parse,
  for scale), then refusing them (target: under 10 ms, whatever the size);
- applying 20 new facts to a MEMORY.md of 1,000 and of 10,000 lines: the
  ratio (target: about 10, linear; quadratic matching would be 100)."""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.formats import dailylog, memory as memory_fmt  # noqa: E402
from heartcompass.memory.proposal.apply import apply  # noqa: E402
from heartcompass.memory.proposal.model import Proposal, ProposalError  # noqa: E402
from heartcompass.memory.proposal.workbench import LogItem, read_person, workbench  # noqa: E402
from heartcompass.store.people import list_people  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402

DAY = dt.date(2026, 12, 1)


def flood(n: int) -> dict:
    return {"summary": "flood", "new_facts": [{"text": f"Drinks oolong number {i}", "evidence": ["L1"]}
                                              for i in range(n)],
            "new_events": [{"date": "2026-12-01", "text": f"oolong {i}", "weight": 0.5, "evidence": ["L1"]}
                           for i in range(n)]}


def bench(ws, lines: int):
    person = next(p for p in list_people(ws) if p.slug == "alice")
    _, prof, evs, mem = read_person(person)
    mem.sections[memory_fmt.FACTS] = [f"- Old fact number {i} about tea (told)" for i in range(lines)]
    return workbench(ws, person, prof, evs, mem, DAY, people=list_people(ws))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = create_workspace(Path(tmp) / "brain", example=True)
        items = [LogItem("L1", DAY.isoformat(), dailylog.Entry("20:00:00", "note", "She drinks oolong every day", []))]
        parse, refuse = {}, {}
        for n in (2000, 20000):
            answer, wb = flood(n), bench(ws, 10)
            began = time.perf_counter()
            proposal = Proposal.model_validate(answer)
            parsed = time.perf_counter()
            try:
                apply(wb, proposal, items, [])
            except ProposalError:
                pass
            parse[n], refuse[n] = parsed - began, time.perf_counter() - parsed
        print(f"reading 2,000 facts+events: {parse[2000]:.3f} s; 20,000: {parse[20000]:.3f} s "
              f"(ratio {parse[20000] / parse[2000]:.1f}; pydantic's own parse, before any check of ours)")
        print(f"refusing them once read: {refuse[2000] * 1000:.2f} ms; {refuse[20000] * 1000:.2f} ms "
              "(target: under 10 ms, whatever the size)")
        good = Proposal.model_validate(
            {"summary": "tea", "new_facts": [{"text": f"Drinks oolong tea {w}", "evidence": ["L1"]}
                                             for w in ("daily", "warm", "iced", "sweet", "green", "strong", "weak",
                                                       "hot", "cold", "fresh", "old", "new", "light", "dark",
                                                       "smoky", "floral", "mild", "bitter", "rich", "plain")]})
        took = {}
        for lines in (1000, 10000):
            wb = bench(ws, lines)
            began = time.perf_counter()
            apply(wb, good, items, [])
            took[lines] = time.perf_counter() - began
        print(f"applying 20 facts to 1,000 lines: {took[1000]:.3f} s; to 10,000: {took[10000]:.3f} s; "
              f"ratio {took[10000] / took[1000]:.1f} (target: about 10, linear; quadratic would be 100)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
