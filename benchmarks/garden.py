"""The gardener's cost: its prompt must not grow with history or with people,
and its own work must not grow with the backlog.

    python benchmarks/garden.py [DAYS] [--quick]

Prints (ratios, not timed tests):
- prompt tokens on day 1 and on the last day of a year (default 365 days)
  of synthetic daily logs, with their ratio (target: near 1);
- a run over 100 people with no new entries (target: zero model calls,
  under 2 s), and a quiet night over 5 people with big EVENTS.md (it must
  not parse them);
- a 100k-message import gardened with an instant model: our overhead per
  chunk (time between model calls) on the last 10% vs the first 10%
  (target <= 1.2), and the whole backlog's time without the model (<= 20 s);
- 1,000 people, 50 with new entries, a model that sleeps 0.2 s per call:
  the model's share of the run (target >= 0.7);
- the gardener's prompt at 10 vs 5,000 people (target <= 1.2).
--quick runs smaller sizes (for a look, not for the targets)."""

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

from heartcompass.memory.consolidation import State  # noqa: E402
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt  # noqa: E402
from heartcompass.formats import profile as profile_fmt  # noqa: E402
from heartcompass.memory.gardener import Gardener  # noqa: E402
from heartcompass.store.people import create, list_people  # noqa: E402
from heartcompass.memory.proposal.model import Compressed, Proposal  # noqa: E402
from heartcompass.tokens import estimate_tokens  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402

TOPICS = ("work", "the move", "her cat", "hiking", "a new café", "her sister", "a film", "the weather", "夜市", "工作")


class RecordingModel:
    """Answers like a diligent gardener, and records each prompt's size."""

    def __init__(self, sleep: float = 0.0):
        self.prompt_tokens: list[int] = []
        self.prompt_chars: list[int] = []
        self.calls = 0
        self.sleep = sleep
        self.spans: list[tuple[float, float]] = []  # (start, end) of each call

    def with_structured_output(self, schema, **kwargs):
        def run(messages):
            start = time.perf_counter()
            try:
                time.sleep(self.sleep)
                return answer(messages)
            finally:
                self.spans.append((start, time.perf_counter()))

        def answer(messages):
            self.calls += 1
            text = "\n".join(str(m.content) for m in messages)
            name = getattr(schema, "__name__", "") or (schema.get("title", "") if isinstance(schema, dict) else "")
            if "Compressed" in name:  # the class, or the JSON schema sent for it
                lines = re.findall(r"(?m)^(F\d+) - (.+?)(?: \((?:log [\d-]+|told|import)\))?$", text)
                return Compressed(facts=[{"text": line, "lines": [ident]} for ident, line in lines[-8:]],
                                  chat_notes=[], threads=[])
            self.prompt_tokens.append(estimate_tokens(text))
            self.prompt_chars.append(len(text))
            first, day, said = re.search(r"(L\d+) \[(\d{4}-\d{2}-\d{2})[^\]]*\] (.+)", text).groups()
            topics = " & ".join(t for t in TOPICS if t in said) or "small talk"  # supported by the entry
            return Proposal(summary=f"day {day}",
                            new_events=[{"date": day, "text": f"A long talk touching on {topics}",
                                         "weight": round(random.random(), 2), "evidence": [first]}],
                            new_facts=[{"text": f"Keeps coming back to {topics}", "evidence": [first]}])
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
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
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
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        for n in range(people):
            person = create(ws, f"Person {n:03d}", "friend")
            state = State(ws, person)
            for d in range(30):  # a month of logs, all consolidated already
                day = dt.date(2026, 11, 1) + dt.timedelta(days=d)
                path = dailylog.log_path(person.dir, day)
                for i in range(6):
                    dailylog.append(path, dailylog.Entry(f"10:0{i}:00", "me", "hello there"), day)
                state.set(day.isoformat(), 6, dailylog.load(path))
            state.save()
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


def quick_people(ws, names: list[str], related: dict[str, list[str]] | None = None) -> None:
    """Many people, written directly (no fsync per file): setup, not what is measured."""
    for name in names:
        slug = name.lower().replace(" ", "-")
        folder = ws.people_dir / slug
        folder.mkdir(parents=True)
        links = [{"person": other, "as": "friend"} for other in (related or {}).get(slug, [])]
        prof = profile_fmt.new(folder / profile_fmt.FILENAME, name, "friend", related=links)
        (folder / profile_fmt.FILENAME).write_text(profile_fmt.render(prof), encoding="utf-8")
        (folder / memory_fmt.FILENAME).write_text(memory_fmt.render(memory_fmt.new(folder / "MEMORY.md", name)),
                                                  encoding="utf-8")
        (folder / events_fmt.FILENAME).write_text(events_fmt.render(events_fmt.new(folder / "EVENTS.md", name)),
                                                  encoding="utf-8")


def commit_all(ws, subject: str) -> None:
    import subprocess

    subprocess.run(["git", "add", "-A"], cwd=ws.root, check=True)
    ws.git._git("commit", "-q", "--no-verify", "-m", subject)
    # Files written this very second are "racily clean" to git, which would then
    # re-read all of them on every command: a workspace's files are older than that.
    time.sleep(1.1)
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=ws.root)


def write_log(person, day: dt.date, entries: list[dailylog.Entry]) -> None:
    path = dailylog.log_path(person.dir, day)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dailylog.header(day) + "".join(e.render() for e in entries), encoding="utf-8")


def big_import(messages: int) -> tuple[float, float, float, int]:
    """One person, `messages` imported messages (30 a day), gardened at once.
    Returns (our overhead per chunk: first 10%, last 10%, our total s, chunks)."""
    random.seed(11)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        quick_people(ws, ["Alice"])
        person = list_people(ws)[0]
        start, per_day = dt.date(2016, 1, 1), 30
        for d in range(messages // per_day):
            write_log(person, start + dt.timedelta(days=d),
                      [dailylog.Entry(f"{8 + i // 4:02d}:{i % 60:02d}:00", "import:Alice",
                                      f"about {random.choice(TOPICS)} and {random.choice(TOPICS)}")
                       for i in range(per_day)])
        commit_all(ws, "import(alice): messages")
        model = RecordingModel()
        t0 = time.perf_counter()
        results = Gardener(ws, lambda: model, today=dt.date(2026, 12, 1)).run([person])
        total = time.perf_counter() - t0
        assert results[0].status == "gardened", (results[0].status, results[0].message)
        gaps = [b[0] - a[1] for a, b in zip(model.spans, model.spans[1:])]  # ours, between two calls
        tenth = max(1, len(gaps) // 10)
        first, last = sum(gaps[:tenth]) / tenth, sum(gaps[-tenth:]) / tenth
        model_time = sum(b - a for a, b in model.spans)
        return first, last, total - model_time, len(model.spans)


def fleet(people: int, active: int, sleep: float) -> tuple[float, float, int]:
    """`people` people, `active` of them with new entries; a model that takes
    `sleep` s per call. Returns (model time, whole run, calls)."""
    random.seed(5)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        quick_people(ws, [f"Person {n:04d}" for n in range(people)])
        everyone = list_people(ws)
        for person in everyone:  # some history each: a month of consolidated logs
            for d in range(3):
                write_log(person, dt.date(2026, 11, 1) + dt.timedelta(days=d),
                          [dailylog.Entry("10:00:00", "me", "hello there")])
        commit_all(ws, "import: history")
        for person in everyone:
            state = State(ws, person)
            for d in range(3):
                day = dt.date(2026, 11, 1) + dt.timedelta(days=d)
                state.set(day.isoformat(), 1, dailylog.load(dailylog.log_path(person.dir, day)))
            state.save()
        Gardener(ws, lambda: RecordingModel()).run()  # last night: nothing new (fills the log-count cache)
        for person in random.sample(everyone, active):
            write_log(person, dt.date(2026, 12, 1),
                      [dailylog.Entry(f"20:0{i}:00", "me", f"we talked about {random.choice(TOPICS)}")
                       for i in range(4)])
        commit_all(ws, "chat: new entries")
        model = RecordingModel(sleep=sleep)
        t0 = time.perf_counter()
        results = Gardener(ws, lambda: model, today=dt.date(2026, 12, 1)).run()
        whole = time.perf_counter() - t0
        assert sum(r.status == "gardened" for r in results) == active, {r.status for r in results}
        return sum(b - a for a, b in model.spans), whole, model.calls


def prompt_with_people(people: int) -> int:
    """Chars of the gardener's prompt for one person whose entries mention two others."""
    random.seed(3)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        names = ["Alice", "Bob Lee", "小明"] + [f"Person {n:04d}" for n in range(people - 3)]
        quick_people(ws, names, related={"alice": ["bob-lee"]})
        alice = next(p for p in list_people(ws) if p.slug == "alice")
        write_log(alice, dt.date(2026, 12, 1), [dailylog.Entry("20:00:00", "me", "Bob Lee and 小明 came to dinner"),
                                                dailylog.Entry("20:01:00", "me", "we talked about the move")])
        commit_all(ws, "add: people")
        model = RecordingModel()
        Gardener(ws, lambda: model, today=dt.date(2026, 12, 1)).run([alice])
        return model.prompt_chars[0]


def quiet_big_events(people: int, events: int) -> float:
    """A quiet night over people with big EVENTS.md: seconds (nothing must be parsed)."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        quick_people(ws, [f"Person {n}" for n in range(people)])
        for person in list_people(ws):
            lines = "".join(f"- {dt.date(2000, 1, 1) + dt.timedelta(days=i % 9000)} · w0.5 · event {i} (import)\n"
                            for i in range(events))
            person.events_path.write_text(f"\n# Events\n\n{lines}", encoding="utf-8")
            write_log(person, dt.date(2026, 11, 1), [dailylog.Entry("10:00:00", "me", "hello")])
            state = State(ws, person)
            state.set("2026-11-01", 1, dailylog.load(dailylog.log_path(person.dir, dt.date(2026, 11, 1))))
            state.save()
        commit_all(ws, "import: events")
        model = RecordingModel()
        Gardener(ws, lambda: model).run()  # the first run fills the log-count cache
        t0 = time.perf_counter()
        Gardener(ws, lambda: model).run()
        return time.perf_counter() - t0


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    days = int(args[0]) if args else (60 if quick else 365)
    first, last = year_of_logs(days)
    print(f"prompt tokens, day 1: {first}; day {days}: {last}; ratio {last / first:.2f} (target near 1)")
    cold, warm, calls = quiet_night(100)
    print(f"100 people, nothing new: {calls} model calls; {cold:.2f} s first run (cold cache), "
          f"{warm:.2f} s next ({warm / 2:.2f}x of the 2 s target)")
    n_people, n_events = (5, 20_000) if quick else (5, 111_000)
    quiet = quiet_big_events(n_people, n_events)
    print(f"quiet night, {n_people} people with {n_events} events each: {quiet:.3f} s")
    messages = 10_000 if quick else 100_000
    head, tail, ours, chunks = big_import(messages)
    print(f"{messages} imported messages gardened in {chunks} chunks: our overhead per chunk {head * 1000:.1f} ms "
          f"(first 10%) vs {tail * 1000:.1f} ms (last 10%), ratio {tail / head:.2f} (target <= 1.2); "
          f"our time in all {ours:.1f} s (target <= 20 s)")
    people, active = (200, 10) if quick else (1000, 50)
    model_time, whole, calls = fleet(people, active, 0.2)
    print(f"{people} people, {active} with new entries, model 0.2 s per call: {calls} calls, run {whole:.1f} s, "
          f"model share {model_time / whole:.2f} (target >= 0.7)")
    small, large = prompt_with_people(10), prompt_with_people(500 if quick else 5000)
    print(f"prompt chars with 10 people: {small}; with {500 if quick else 5000}: {large}; "
          f"ratio {large / small:.2f} (target <= 1.2)")


if __name__ == "__main__":
    main()
