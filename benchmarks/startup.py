"""Startup time of `heartcompass --help` and `person list`, as ratios to a
bare three-command typer app's --help (the floor any typer CLI pays).

    python benchmarks/startup.py [RUNS]

The bare app is built like ours (rich_markup_mode=None, no pretty
exceptions), so both render help the same way: like for like. Each run is
timed as CPU time (user + system of the child process), which a busy
machine disturbs far less than wall time; the wall-time minimum is shown
too. Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, even when
PYTHONDONTWRITEBYTECODE is set) for both apps, as an installed package has
its .pyc files, and one untimed run warms every cache first. The commands
take turns. Targets: --help at most 1.3x the bare app; `person list` of
200 people at most 1.5x (with its people index warm; the first, cold
listing is shown too).

To compare with another version: PYTHONPATH=/path/to/its/checkout
python benchmarks/startup.py"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BARE_APP = '''
import typer
app = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})
@app.command()
def one(): pass
@app.command()
def two(): pass
@app.command()
def three(): pass
app()
'''


# Drops the people index, then runs heartcompass in this process (it builds the index again).
COLD = """
import os, runpy, sys
try:
    os.remove(os.path.join(os.environ["HEARTCOMPASS_HOME"], ".heartcompass", "people-index.json"))
except FileNotFoundError:
    pass
sys.argv = sys.argv[2:]
runpy.run_module("heartcompass", run_name="__main__")
"""


def cpu_and_wall(cmd: list[str], env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # run outside the checkout, so $PYTHONPATH can point at another version to compare
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env,
                   cwd=env["PYTHONPYCACHEPREFIX"])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def timed(cmds: dict[str, tuple[list[str], dict]], runs: int) -> dict[str, tuple[float, float]]:
    """(median CPU seconds, minimum wall seconds) of each command. The
    commands take turns, so a change in the machine's load hits all alike."""
    for cmd, env in cmds.values():
        cpu_and_wall(cmd, env)  # warm-up: bytecode and file caches
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in cmds}
    for _ in range(runs):
        for label, (cmd, env) in cmds.items():
            samples[label].append(cpu_and_wall(cmd, env))
    return {label: (statistics.median(c for c, _ in s), min(w for _, w in s)) for label, s in samples.items()}


def make_workspace(root: Path, people: int) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from heartcompass.store.people import create
    from heartcompass.store.workspace import Workspace
    from heartcompass.store.creation import copy_template

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
        env0 = {k: v for k, v in os.environ.items() if k not in ("HEARTCOMPASS_HOME", "PYTHONDONTWRITEBYTECODE")}
        env0["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        (tmp / "pycache").mkdir()
        (tmp / "bare.py").write_text(BARE_APP)
        cmds = {"bare": ([sys.executable, str(tmp / "bare.py"), "--help"], env0),
                "heartcompass --help": ([*hc, "--help"], env0)}
        for n in (1, 200):
            env = {**env0, "HEARTCOMPASS_HOME": str(make_workspace(tmp / f"ws{n}", n))}
            cmds[f"person list ({n} people)"] = ([*hc, "person", "list"], env)
        # the same 200 people without the index (.heartcompass/ is not committed: a fresh clone lists cold)
        cmds["person list (200, cold index)"] = ([sys.executable, "-c", COLD, *hc[1:], "person", "list"], env)
        time.sleep(2.1)  # only files unchanged for two seconds are cached
        times = timed(cmds, runs)
    bare = times.pop("bare")
    targets = {"heartcompass --help": 1.3, "person list (200 people)": 1.5}
    rows = [(label, t, targets.get(label)) for label, t in times.items()]
    print(f"bare typer app --help (same settings as ours): {bare[0] * 1000:.0f} ms CPU (median of {runs}), "
          f"{bare[1] * 1000:.0f} ms wall (min)")
    for label, (cpu, wall), target in rows:
        ratio = cpu / bare[0]
        verdict = "" if target is None else ("  ok" if ratio <= target else f"  OVER target {target}x")
        print(f"{label:28s} {cpu * 1000:6.0f} ms CPU {ratio:4.2f}x bare   "
              f"{wall * 1000:6.0f} ms wall {wall / bare[1]:4.2f}x{verdict}")


if __name__ == "__main__":
    main()
