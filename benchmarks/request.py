"""Time until the first model request leaves, for `chat -m`, `coach` and
`tell`, in workspaces of 200 and 2,000 people.

    python benchmarks/request.py [RUNS]

Each command runs as a real process against tests/stub_server.py; the time
is from starting the process to the request arriving at the server (the
minimum of RUNS, default 5: a busy machine only ever adds time). Printed as
ratios to a floor, a bare script that imports langchain_openai and sends
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


class ArrivalLog(list):
    """The stub's request list, remembering when each request arrived."""

    def __init__(self):
        super().__init__()
        self.times: list[float] = []

    def append(self, item):
        self.times.append(time.perf_counter())
        super().append(item)


def make_workspace(root: Path, people: int) -> Path:
    import datetime as dt

    from heartcompass.formats import events as events_fmt
    from heartcompass.people import create
    from heartcompass.workspace import create_workspace

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


def first_request(cmd: list[str], env: dict, stub, runs: int, stdin: str | None = None) -> float:
    best = float("inf")
    for _ in range(runs + 1):  # one warm-up run
        stub.requests = ArrivalLog()
        start_at = time.perf_counter()
        proc = subprocess.run(cmd, env=env, input=stdin, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0 or not stub.requests:
            raise SystemExit(f"{' '.join(cmd[2:])} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
        best = min(best, stub.requests.times[0] - start_at)
    return best


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    server, stub = start()
    url = f"http://127.0.0.1:{server.server_port}/v1"
    env0 = {k: v for k, v in os.environ.items() if k not in ("HEARTCOMPASS_HOME", "PYTHONDONTWRITEBYTECODE")}
    hc = [sys.executable, "-m", "heartcompass"]
    commands = {"chat -m": (["chat", "alice", "-m", "hi", "--no-delay"], None),
                "coach": (["coach", "alice", "Are you free on Saturday?", "--json"], None),
                "tell --dry-run": (["tell", "alice", "She moved to Berlin in March.", "--dry-run"], None)}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env0["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")  # .pyc cached, as when installed
        floor = first_request([sys.executable, "-c", FLOOR, url], env0, stub, runs)
        results: dict[int, dict[str, float]] = {}
        for n in (200, 2_000):
            ws = make_workspace(tmp / f"ws{n}", n)
            env = {**env0, "HEARTCOMPASS_HOME": str(ws), "HEARTCOMPASS_LLM_BASE_URL": url,
                   "HEARTCOMPASS_LLM_MODEL": "stub"}
            results[n] = {label: first_request([*hc, *args], env, stub, runs, stdin)
                          for label, (args, stdin) in commands.items()}
    server.shutdown()
    print(f"floor (import langchain_openai, one request): {floor * 1000:.0f} ms (min of {runs})")
    print(f"{'':16s} {'200 people':>18s} {'2,000 people':>18s} {'2,000 / 200':>12s}")
    for label in commands:
        small, big = results[200][label], results[2_000][label]
        print(f"{label:16s} {small * 1000:6.0f} ms {small / floor:5.2f}x  {big * 1000:6.0f} ms "
              f"{big / floor:5.2f}x  {big / small:10.2f}x")


if __name__ == "__main__":
    main()
