"""An idle `garden` (101 people, nobody with new entries) against `person
list` on the same workspace, in CPU seconds of the whole process (its
start-up included), median of RUNS pairs run in turn.

    python benchmarks/idle_garden.py [RUNS]

Prints the ratio (target: at most 2). Before issue 21 it was 3.8: an idle
run imported pydantic and the proposal machinery, and rich's console, before
it knew that nobody had anything new. Byte-code is written on the warm-up
run (PYTHONDONTWRITEBYTECODE would make both pay for compiling every module)."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.store.people import create  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402


def cpu(args: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "heartcompass", *args], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        folders = [create(ws, f"Person {i}" if i % 2 else f"朋友{i}", "friend").dir for i in range(100)]
        ws.git.commit(folders, "add(people): 100 people")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["HEARTCOMPASS_HOME"] = str(ws.root)
        cpu(["garden"], env), cpu(["person", "list"], env)  # warm-up: byte-code, caches, the people index
        pairs = [(cpu(["garden"], env), cpu(["person", "list"], env)) for _ in range(runs)]
    ratio = statistics.median(g / p for g, p in pairs)
    print(f"idle garden over 101 people: {statistics.median(g for g, _ in pairs):.3f} s CPU; person list "
          f"{statistics.median(p for _, p in pairs):.3f} s; ratio {ratio:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
