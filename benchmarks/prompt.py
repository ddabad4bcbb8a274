"""The prompt for a message at 100, 10,000 and 100,000 events (issue 32).

    python benchmarks/prompt.py [RUNS]

A person whose EVENTS.md holds N events, in English and Chinese (at
100,000: about 11 MB), and `heartcompass context NAME --for MESSAGE`, the
prompt a chat message gets. Goals: the whole process at 100,000 events at
most 1.5x the same at 100 (CPU of the child, user + system, medians of
interleaved runs: a busy machine disturbs CPU time far less than wall
time), and at most 100 ms of building (memory/context.build in this
process, median). Both with the events' cache warm (memory/event_cache.py:
it is built by the first prompt after EVENTS.md changes, shown as "first").
Two messages, each against the goals: one naming a rare event, and one
naming words in a third of the events each (the costliest: before, every
third line was scored).

To measure another version on the same data: PYTHONPATH=/its/checkout python benchmarks/prompt.py"""

from __future__ import annotations

import datetime as dt
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(len(sys.path) if os.environ.get("PYTHONPATH") else 0, str(Path(__file__).resolve().parents[1]))

from heartcompass.formats import events as events_fmt  # noqa: E402
from heartcompass.memory import context  # noqa: E402
from heartcompass.store.creation import copy_template  # noqa: E402
from heartcompass.store.people import Person, create  # noqa: E402
from heartcompass.store.workspace import Workspace  # noqa: E402

NOW = dt.datetime(2026, 12, 2, 20, 0, tzinfo=dt.timezone.utc)
WORDS = ("hiked", "dinner", "called", "moved", "夜市", "聊天", "birthday", "Kyoto", "her cat", "a long talk about work",
         "一起散步", "她的猫")
TOPICS = ("pottery class", "sunflowers", "糖葫芦")  # each in a third of the events
MESSAGES = {"rare": "remember the rainbow sidewalk? 彩虹人行道", "third": "how was the pottery class? 还想吃糖葫芦吗"}
SIZES = (100, 10_000, 100_000)
PROCESS_GOAL, BUILD_GOAL = 1.5, 0.100


def person_with_events(root: Path, n: int) -> tuple[Workspace, Person]:
    root.mkdir()
    copy_template(root)  # no git: `context` reads the files only
    ws = Workspace(root)
    person = create(ws, "Alice", "friend", mbti="ENFP", about="Grew up in Taipei.")
    rnd = random.Random(n)
    ef = events_fmt.load(person.events_path)
    ef.events = [events_fmt.Event(NOW.date() - dt.timedelta(days=rnd.randint(0, 3650)),
                                  " ".join(rnd.choices(WORDS, k=8)) + ", " + rnd.choice(TOPICS)
                                  + (", the rainbow sidewalk 彩虹人行道" if i % 1000 == 999 else ""),
                                  round(rnd.random(), 2), "told")
                 for i in range(n)]
    person.events_path.write_text(events_fmt.render(ef), encoding="utf-8")
    return ws, person


def child_cpu(cmd: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env,
                   cwd=env["PYTHONPYCACHEPREFIX"])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def build_cpu(ws: Workspace, person: Person, message: str) -> float:
    start = time.process_time()
    context.build(ws, person, NOW, about=message)
    return time.process_time() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env0 = {k: v for k, v in os.environ.items() if k not in ("HEARTCOMPASS_HOME", "PYTHONDONTWRITEBYTECODE")}
        env0["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        (root / "pycache").mkdir()
        people = {n: person_with_events(root / f"ws{n}", n) for n in SIZES}
        sizes = {n: person.events_path.stat().st_size for n, (_, person) in people.items()}
        first = {n: build_cpu(ws, person, MESSAGES["rare"]) for n, (ws, person) in people.items()}  # builds caches
        cmds = {(n, m): ([sys.executable, "-m", "heartcompass", "context", "alice", "--for", text],
                         {**env0, "HEARTCOMPASS_HOME": str(people[n][0].root)})
                for n in SIZES for m, text in MESSAGES.items()}
        for cmd, env in cmds.values():
            child_cpu(cmd, env)  # warm-up: bytecode, file caches
        process: dict[tuple[int, str], list[float]] = {key: [] for key in cmds}
        build: dict[tuple[int, str], list[float]] = {key: [] for key in cmds}
        for _ in range(runs):  # taking turns: a change in the machine's load hits all alike
            for key, (cmd, env) in cmds.items():
                process[key].append(child_cpu(cmd, env))
                build[key].append(build_cpu(*people[key[0]], MESSAGES[key[1]]))
    med = {key: (statistics.median(process[key]), statistics.median(build[key])) for key in cmds}
    print(f"{'events':>8} {'EVENTS.md':>10} {'message':>7} {'process':>9} {'vs 100':>7} {'building':>9} {'first':>8}")
    for (n, m), (proc, built) in med.items():
        ratio = proc / med[(SIZES[0], m)][0]
        print(f"{n:>8} {sizes[n] / 1e6:>8.2f}MB {m:>7} {proc * 1000:>7.0f}ms {ratio:>6.2f}x {built * 1000:>7.1f}ms "
              f"{first[n] * 1000 if m == 'rare' else float('nan'):>6.0f}ms")
    for m, what in (("rare", "a message naming a rare event"), ("third", "a message naming words in a third")):
        proc_ratio = med[(SIZES[-1], m)][0] / med[(SIZES[0], m)][0]
        built = med[(SIZES[-1], m)][1]
        ok = proc_ratio <= PROCESS_GOAL and built <= BUILD_GOAL
        print(f"at {SIZES[-1]:,} events, {what}: the whole process {proc_ratio:.2f}x the same at {SIZES[0]} "
              f"({proc_ratio / PROCESS_GOAL:.2f} of the {PROCESS_GOAL}x goal), building {built * 1000:.0f} ms "
              f"({built / BUILD_GOAL:.2f} of the {BUILD_GOAL * 1000:.0f} ms goal): {'ok' if ok else 'OVER'}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (over one minute, on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
