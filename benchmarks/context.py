"""Prompt assembly time and size for a person with 10, 1,000, 20,000 and
100,000 events (a 100,000-event EVENTS.md is about 8 MB), without a message
and chosen for one (context --for, every chat message).

    python benchmarks/context.py

Targets: prompt tokens within memory.context_budget_tokens, assembly under
200 ms at 20,000 events, and time per event at 100,000 at most 1.2x that at
20,000 (linear). Chosen for a message (context --for, each chat message):
at most 1.3x the time without one, for three messages: one naming words in
most events ("dinner", "夜市", not counted: too common to tell events
apart), one naming words in a third of them (the costliest to count), one
naming a rare event. Times are CPU time, which a busy machine disturbs
less. To measure another version on the same data (one without messages
prints n/a for them): PYTHONPATH=/path/to/its/checkout python benchmarks/context.py"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# This checkout, unless PYTHONPATH names another version to measure.
sys.path.insert(len(sys.path) if os.environ.get("PYTHONPATH") else 0, str(Path(__file__).resolve().parents[1]))

from heartcompass.memory import context  # noqa: E402
from heartcompass.formats import events as events_fmt  # noqa: E402
from heartcompass.store.people import create  # noqa: E402
from heartcompass.store.workspace import Workspace  # noqa: E402
from heartcompass.store.creation import copy_template  # noqa: E402

NOW = dt.datetime(2026, 12, 2, 20, 0, tzinfo=dt.timezone.utc)
WORDS = ("hiked", "dinner", "called", "moved", "夜市", "聊天", "birthday", "Kyoto", "her cat", "a long talk about work")
TOPICS = ("pottery class", "sunflowers", "糖葫芦")  # each in a third of the events
MESSAGES = {"most": "remember that dinner at the 夜市 in Kyoto?", "third": "how was the pottery class? 还想吃糖葫芦吗",
            "rare": "remember the rainbow sidewalk?"}
RUNS = 7


def person_with_events(root: Path, n: int):
    root.mkdir()
    copy_template(root)
    ws = Workspace(root)
    person = create(ws, "Alice", "friend", mbti="ENFP", about="Grew up in Taipei.")
    rnd = random.Random(n)
    ef = events_fmt.load(person.events_path)
    ef.events = [events_fmt.Event(NOW.date() - dt.timedelta(days=rnd.randint(0, 3650)),
                                  " ".join(rnd.choices(WORDS, k=8)) + ", " + rnd.choice(TOPICS)
                                  + (", the rainbow sidewalk" if i % 1000 == 999 else ""),
                                  round(rnd.random(), 2), "told")
                 for i in range(n)]
    person.events_path.write_text(events_fmt.render(ef), encoding="utf-8")
    return ws, person


def timed(ws, person, about=None):
    times, c = [], None
    for _ in range(RUNS):
        start = time.process_time()
        c = context.build(ws, person, NOW, **({"about": about} if about else {}))
        times.append(time.process_time() - start)
    return statistics.median(times), c


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        heads = "".join(f"{'for ' + k:>16}" for k in MESSAGES)
        print(f"{'events':>7} {'EVENTS.md':>10} {'median':>9} {'tokens':>7} {'budget':>7}{heads}  verdict")
        per_event, worst = {}, 0.0
        for n in (10, 1_000, 20_000, 100_000):
            ws, person = person_with_events(Path(tmp) / f"ws{n}", n)
            median, c = timed(ws, person)
            per_event[n] = median / n
            ok = c.tokens <= c.budget and (n != 20_000 or median < 0.2)
            cells = ""
            for message in MESSAGES.values():
                try:
                    named, cn = timed(ws, person, message)
                except TypeError:  # a version that cannot choose for a message
                    cells += f"{'n/a':>16}"
                    continue
                ok = ok and cn.tokens <= cn.budget
                if n >= 1_000:  # at 10 events, a few milliseconds either way
                    worst = max(worst, named / median)
                cells += f"{named * 1000:>8.1f}ms {named / median:>4.2f}x"
            size = person.events_path.stat().st_size
            print(f"{n:>7} {size / 1e6:>8.2f}MB {median * 1000:>7.1f}ms {c.tokens:>7} {c.budget:>7}{cells}  "
                  f"{'ok' if ok else 'OVER'}" + (f" ({median / 0.2:.2f}x of the 200 ms target)" if n == 20_000 else ""))
        ratio = per_event[100_000] / per_event[20_000]
        print(f"time per event, 100,000 vs 20,000: {ratio:.2f}x ({'ok' if ratio <= 1.2 else 'OVER'}, target 1.2x)")
        if worst:
            print(f"chosen for a message vs without, at 1,000 events or more: at most {worst:.2f}x "
                  f"({'ok' if worst <= 1.3 else 'OVER'}, target 1.3x)")


if __name__ == "__main__":
    main()
