"""Time until the first model request leaves, for `chat -m`, `coach` and
`tell`, in workspaces of 200 and 2,000 people.

    python benchmarks/request.py [RUNS]

Each command runs as a real process against tests/stub_server.py. Two
times until the request arrives at the server: the CPU time the process
(and the git it waited for) had used by then, read from /proc when the
request arrives (steady on a busy machine), and the wall time from the
start (the minimum of RUNS, default 5; the commands take turns). Printed
as ratios to a floor, a bare script that imports langchain_openai and sends
the same kind of request (what any implementation pays), and 2,000 people
against 200 (targets: at most 1.5x the floor; at most 1.2x for ten times
the people, so the wait does not grow with the workspace)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from stub_server import start  # noqa: E402

FLOOR = """
import sys
from langchain_openai import ChatOpenAI
model = ChatOpenAI(model="stub", api_key="not-needed", base_url=sys.argv[1], max_retries=0)
for _ in model.stream([("system", "You are Alice."), ("user", "hi")]):
    pass
"""


def cpu_seconds(pid: int) -> float:
    """CPU used so far by pid and the children it waited for (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class ArrivalLog(list):
    """The stub's request list, noting for each request when it arrived and
    how much CPU the client process had used by then."""

    def __init__(self, pid: int | None = None):
        super().__init__()
        self.pid = pid
        self.times: list[tuple[float, float]] = []

    def append(self, item):
        self.times.append((time.perf_counter(), cpu_seconds(self.pid) if self.pid else float("nan")))
        super().append(item)


def make_workspace(root: Path, people: int) -> Path:
    import datetime as dt

    from heartcompass.formats import events as events_fmt
    from heartcompass.store.people import create
    from heartcompass.store.creation import create_workspace

    rnd = random.Random(people)
    ws, _ = create_workspace(root)
    alice = create(ws, "Alice", "friend", mbti="ENFP", about="Grew up in Taipei.")
    ef = events_fmt.load(alice.events_path)
    ef.events = [events_fmt.Event(dt.date(2026, 12, 1) - dt.timedelta(days=rnd.randint(0, 3650)),
                                  f"Something that happened, number {i}", round(rnd.random(), 2), "told")
                 for i in range(1_000)]
    alice.events_path.write_text(events_fmt.render(ef), encoding="utf-8")
    slugs = ["alice"]
    for i in range(people - 2):  # people/me and Alice are there already
        links = [{"person": s, "as": "a friend"} for s in rnd.sample(slugs, min(2, len(slugs)))]
        slugs.append(create(ws, f"Person {i:04d}", "friend", aliases=[f"p{i}"], related=links,
                            about="Met somewhere. " * 5).slug)
    ws.git.commit([ws.people_dir], "add: people")
    return root


def first_request(cmd: list[str], env: dict, stub, cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) until the first request arrived."""
    start_at = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    stub.requests = ArrivalLog(proc.pid)
    _, errors = proc.communicate(timeout=300)
    if proc.returncode != 0 or not stub.requests:
        raise SystemExit(f"{' '.join(cmd[2:])} failed ({proc.returncode}): {errors.strip()[-500:]}")
    arrived, cpu = stub.requests.times[0]
    return cpu, arrived - start_at


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    server, stub = start()
    url = f"http://127.0.0.1:{server.server_port}/v1"
    env0 = {k: v for k, v in os.environ.items() if k not in ("HEARTCOMPASS_HOME", "PYTHONDONTWRITEBYTECODE")}
    hc = [sys.executable, "-m", "heartcompass"]
    commands = {"chat -m": ["chat", "alice", "-m", "hi", "--no-delay"],
                "coach": ["coach", "alice", "Are you free on Saturday?", "--json"],
                "tell --dry-run": ["tell", "alice", "She moved to Berlin in March.", "--dry-run"]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env0["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")  # .pyc cached, as when installed
        runs_of = {"floor": ([sys.executable, "-c", FLOOR, url], env0)}
        for n in (200, 2_000):
            ws = make_workspace(tmp / f"ws{n}", n)
            env = {**env0, "HEARTCOMPASS_HOME": str(ws), "HEARTCOMPASS_LLM_BASE_URL": url,
                   "HEARTCOMPASS_LLM_MODEL": "stub"}
            for label, args in commands.items():
                runs_of[(label, n)] = ([*hc, *args], env)
        time.sleep(2.5)  # files settle: the people index caches only files older than two seconds
        samples: dict = {key: [] for key in runs_of}
        for i in range(runs + 1):  # the first round warms caches and is not counted
            for key, (cmd, env) in runs_of.items():
                sample = first_request(cmd, env, stub, tmp)  # not run from the checkout: $PYTHONPATH decides
                if i:
                    samples[key].append(sample)
    server.shutdown()
    best = {key: (min(c for c, _ in s), min(w for _, w in s)) for key, s in samples.items()}
    floor = best.pop("floor")
    print(f"floor (import langchain_openai, one request): {floor[0] * 1000:.0f} ms CPU, {floor[1] * 1000:.0f} ms "
          f"wall (min of {runs})")
    print(f"{'':16s} {'200 people (CPU, wall)':>30s} {'2,000 people (CPU, wall)':>30s} {'2,000 / 200 CPU':>16s}")
    for label in commands:
        (c1, w1), (c2, w2) = best[(label, 200)], best[(label, 2_000)]
        print(f"{label:16s} {c1 * 1000:6.0f} ms {c1 / floor[0]:4.2f}x {w1 * 1000:6.0f} ms {w1 / floor[1]:4.2f}x  "
              f"{c2 * 1000:6.0f} ms {c2 / floor[0]:4.2f}x {w2 * 1000:6.0f} ms {w2 / floor[1]:4.2f}x  "
              f"{c2 / c1:12.2f}x")


if __name__ == "__main__":
    main()
