"""Startup time of `heartcompass --help` and `person list`, as ratios to a
bare three-command typer app's --help (the floor any typer CLI pays).

    python benchmarks/startup.py [RUNS]

Targets: --help at most 1.3x the bare app; `person list` of 200 people at
most 1.5x."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE_APP = '''
import typer
app = typer.Typer()
@app.command()
def one(): pass
@app.command()
def two(): pass
@app.command()
def three(): pass
app()
'''


def median_time(cmd: list[str], runs: int, env=None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def make_workspace(root: Path, people: int) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from heartcompass.people import create
    from heartcompass.workspace import Workspace, copy_template

    root.mkdir()
    copy_template(root)  # no git needed for listing
    ws = Workspace(root)
    for i in range(people - 1):  # people/me is there already
        create(ws, f"Person {i:03d}", "friend", mbti="ENFP", aliases=[f"p{i}"], about="Met somewhere. " * 5)
    return root


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    hc = [sys.executable, "-m", "heartcompass"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "bare.py").write_text(BARE_APP)
        bare = median_time([sys.executable, str(tmp / "bare.py"), "--help"], runs)
        rows = [("heartcompass --help", median_time([*hc, "--help"], runs), 1.3)]
        for n in (1, 200):
            ws = make_workspace(tmp / f"ws{n}", n)
            env = {**os.environ, "HEARTCOMPASS_HOME": str(ws)}
            rows.append((f"person list ({n} people)", median_time([*hc, "person", "list"], runs, env),
                         1.5 if n == 200 else None))
    print(f"bare typer app --help: {bare * 1000:.0f} ms (median of {runs})")
    for label, t, target in rows:
        verdict = "" if target is None else ("  ok" if t / bare <= target else f"  OVER target {target}x")
        print(f"{label:28s} {t * 1000:6.0f} ms  {t / bare:4.2f}x bare{verdict}")


if __name__ == "__main__":
    main()
