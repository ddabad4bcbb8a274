"""A big workspace: the everyday commands at many people, as CPU seconds
against their targets and as a ratio to the same command at few people.

    python benchmarks/scale.py [PEOPLE]      (default 10000)

Builds two workspaces (PEOPLE people and 10 people, each with a profile,
events and memory, one shared alias among all of them as a worst case for
name lookups), commits them, then times each command as a whole process
(CPU time of the child: user + system, which a busy machine disturbs far less
than wall time; the minimum of three runs). Targets at 10,000 people, from
the hostile tour: `person list` at most 2 s (its people index warm), an idle
`garden` at most 10 s, `chat` start independent of how many people there are
(ratio to 10 people at most 1.5), `doctor` growing at most linearly (it
parses every file). Each person has one chat log, already gardened (its
consolidation state written as a garden leaves it), so an idle garden reads
what a real one reads. No model is called: chat sends a /note, which the
persona does not answer."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 3


def build(root: Path, people: int) -> None:
    env = {**os.environ, "HEARTCOMPASS_HOME": str(root)}
    subprocess.run([sys.executable, "-m", "heartcompass", "init", "--example", str(root)], env=env, check=True,
                   capture_output=True)
    alice = root / "people" / "alice"
    texts = {name: (alice / name).read_text(encoding="utf-8") for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")}
    log = "---\ndate: 2026-11-01\n---\n\n- 10:00:00 · me · hello there\n"  # one chat each, gardened before (its state below)
    state = '{"days":{"2026-11-01":[1,null]}}'
    (root / ".heartcompass" / "consolidated").mkdir(parents=True, exist_ok=True)
    for i in range(people):
        folder = root / "people" / f"p{i:05d}"
        folder.mkdir()
        for name, text in texts.items():
            if name == "PROFILE.md":
                text = text.replace("name: Alice Chen", f"name: Person {i}").replace("- Alice\n", f"- P{i}\n")
            (folder / name).write_text(text, encoding="utf-8")
        (folder / "logs").mkdir()
        (folder / "logs" / "2026-11-01.md").write_text(log, encoding="utf-8")
        (root / ".heartcompass" / "consolidated" / f"p{i:05d}.json").write_text(state, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-qm", "people"], cwd=root,
                   check=True, capture_output=True)


def cpu(root: Path, *args: str) -> float:
    """The least CPU time of RUNS runs of `heartcompass ARGS` (one untimed run first)."""
    env = {**os.environ, "HEARTCOMPASS_HOME": str(root)}
    best = float("inf")
    for run in range(RUNS + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "heartcompass", *args], env=env, capture_output=True,
                       stdin=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run:
            best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def main() -> None:
    many = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    # the idle garden before chat: chat's /note is a new entry for alice, and a garden with new entries is not idle
    commands = {"person list": (["person", "list"], 2.0), "idle garden": (["garden", "--quiet"], 10.0),
                "chat start": (["chat", "alice", "-m", "/note hi"], None), "doctor": (["doctor"], None)}
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "small", Path(tmp) / "big"
        build(small, 10)
        build(big, many)
        print(f"{'command':<12} {'10 people':>10} {f'{many} people':>14} {'ratio':>7}  target")
        for name, (args, limit) in commands.items():
            few, lots = cpu(small, *args), cpu(big, *args)
            ratio = lots / few if few else float("inf")
            target = (f"≤ {limit:g} s: {'ok' if lots <= limit else 'OVER'}" if limit else
                      f"ratio ≤ 1.5: {'ok' if ratio <= 1.5 else 'OVER'}" if name == "chat start" else
                      f"linear: {lots / many * 1000:.2f} ms a person")
            print(f"{name:<12} {few:>9.2f}s {lots:>13.2f}s {ratio:>6.1f}x  {target}")


if __name__ == "__main__":
    main()
