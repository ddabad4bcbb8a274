"""The gardener's cost: its prompt must not grow with history, and a run
with nothing new must be cheap.

    python benchmarks/garden.py [DAYS]

Prints the prompt tokens on day 1 and on the last day of a year (default
365 days) of synthetic daily logs, with their ratio (target: near 1), and
the wall time of a run over 100 people with no new entries (target: zero
model calls, under 2 s)."""

from __future__ import annotations

import datetime as dt
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.runnables import RunnableLambda  # noqa: E402

from heartcompass.formats import dailylog, memory as memory_fmt  # noqa: E402
from heartcompass.gardener import Gardener  # noqa: E402
from heartcompass.garden_proposal import Compressed, Proposal  # noqa: E402
from heartcompass.people import create, list_people  # noqa: E402
from heartcompass.tokens import estimate_tokens  # noqa: E402
from heartcompass.workspace import create_workspace  # noqa: E402

TOPICS = ("work", "the move", "her cat", "hiking", "a new café", "her sister", "a film", "the weather", "夜市", "工作")


class RecordingModel:
    """Answers like a diligent gardener, and records each prompt's size."""

    def __init__(self):
        self.prompt_tokens: list[int] = []
        self.calls = 0

    def with_structured_output(self, schema, **kwargs):
        def run(messages):
            self.calls += 1
            text = "\n".join(str(m.content) for m in messages)
            if schema is Compressed:
                lines = re.findall(r"(?m)^- .+$", text.split("## Facts")[-1].split("## From our chats")[0])
                return Compressed(facts=lines[-8:], chat_notes=[], threads=[])
            self.prompt_tokens.append(estimate_tokens(text))
            day = re.search(r"L1 \[(\d{4}-\d{2}-\d{2})", text).group(1)
            return Proposal(summary=f"day {day}",
                            new_events=[{"date": day, "text": f"Talked about {random.choice(TOPICS)} on {day}",
                                         "weight": round(random.random(), 2), "evidence": ["L1"]}],
                            new_facts=[{"text": f"Mentioned {random.choice(TOPICS)} plans ({day})",
                                        "evidence": ["L1"]}])
        return RunnableLambda(run)


def seed_history(person) -> None:
    from heartcompass.formats import events as events_fmt

    ef = events_fmt.load(person.events_path)
    ef.events = [events_fmt.Event(dt.date(2020, 1, 1) + dt.timedelta(days=7 * i), f"Old event about "
                                  f"{random.choice(TOPICS)} number {i}", round(random.random(), 2), "import")
                 for i in range(300)]
    person.events_path.write_text(events_fmt.render(ef), encoding="utf-8")
    mem = memory_fmt.load(person.memory_path)
    while mem.body_tokens() < mem.budget_tokens - 60:
        mem.sections[memory_fmt.FACTS].append(f"- Known fact about {random.choice(TOPICS)} (import)")
    person.memory_path.write_text(memory_fmt.render(mem), encoding="utf-8")


def year_of_logs(days: int) -> tuple[int, int]:
    random.seed(7)
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        person = create(ws, "Alice", "friend")
        seed_history(person)  # someone known for years: full memory, many events
        ws.git.commit([person.dir], "add(alice): new person")
        model = RecordingModel()
        start = dt.date(2026, 1, 1)
        for d in range(days):
            day = start + dt.timedelta(days=d)
            path = dailylog.log_path(person.dir, day)
            for i in range(10):
                speaker = "me" if i % 2 == 0 else "persona"
                dailylog.append(path, dailylog.Entry(f"20:{i:02d}:00", speaker,
                                                     f"we talked about {random.choice(TOPICS)} " * 3), day)
            Gardener(ws, lambda: model, today=day).run([person])
        return model.prompt_tokens[0], model.prompt_tokens[-1]


def quiet_night(people: int) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        for n in range(people):
            person = create(ws, f"Person {n:03d}", "friend")
            mem = memory_fmt.load(person.memory_path)
            for d in range(30):  # a month of logs, all consolidated already
                day = dt.date(2026, 11, 1) + dt.timedelta(days=d)
                for i in range(6):
                    dailylog.append(dailylog.log_path(person.dir, day),
                                    dailylog.Entry(f"10:0{i}:00", "me", "hello there"), day)
                mem.set_consolidated(day.isoformat(), 6)
            person.memory_path.write_text(memory_fmt.render(mem), encoding="utf-8")
        ws.git.commit([ws.people_dir], "add: people")
        model = RecordingModel()
        people_list = list_people(ws)
        t0 = time.perf_counter()
        Gardener(ws, lambda: model).run(people_list)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        Gardener(ws, lambda: model).run(people_list)
        warm = time.perf_counter() - t0
        return cold, warm, model.calls


def main() -> None:
    days = int(sys.argv[1]) if len(sys.argv) > 1 else 365
    first, last = year_of_logs(days)
    print(f"prompt tokens, day 1: {first}; day {days}: {last}; ratio {last / first:.2f} (target near 1)")
    cold, warm, calls = quiet_night(100)
    print(f"100 people, nothing new: {calls} model calls; {cold:.2f} s first run (cold cache), "
          f"{warm:.2f} s next ({warm / 2:.2f}x of the 2 s target)")


if __name__ == "__main__":
    main()
