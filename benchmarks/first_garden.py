"""The first garden on a second device: `init --from` of a workspace whose
people are all gardened (nothing new), then `garden` there, against an idle
`garden` on the first device, in CPU seconds of the whole process (its
start-up and every git it runs included), median of RUNS interleaved pairs.

    python benchmarks/first_garden.py [PEOPLE ...] [--runs N]     (default: 150 2000, 3 runs)

Each workspace is built with git fast-import (one process for the whole
history) as HeartCompass writes it: per person an `add(...)` commit, then on
each of DAYS days a `chat(...)` commit of that day's log and a `garden(...)`
commit of EVENTS.md and MEMORY.md with its `Consolidated:` trailer, the days
interleaved across people as a real year is. The first device has the
consolidation state a garden leaves (.heartcompass/consolidated/) and a warm
entry-count cache; a clone has neither: its first garden rebuilds them from
git. Target (issue 32): the clone's first garden within 3x the idle garden on
the original, at 150 and at 2,000 people. Each timed clone is fresh (its
`init --from` is not timed)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.formats import dailylog  # noqa: E402
from heartcompass.memory.consolidation import prefix_sum, trailer  # noqa: E402
from heartcompass.memory.hand_lines import blob_id  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402
from heartcompass.store.subjects import Verb, subject  # noqa: E402

DAYS = ["2026-10-01", "2026-10-15", "2026-11-01"]  # a chat and its garden on each: 7 commits per person
GOAL = 3.0
START = 1_790_000_000  # commit times, one second apart


def _log(day: str, i: int) -> str:
    return (f"---\ndate: {day}\n---\n\n- 10:00:00 · me · hello {i}, how was the trip?\n"
            f"- 10:00:05 · import:P{i} · great, we went hiking near the lake\n"
            f"- 10:01:00 · me · send me the photos\n- 10:02:00 · note · P{i} starts a new job in January\n")


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def build(root: Path, people: int) -> None:
    """A workspace at root with PEOPLE gardened people and their history, and
    the consolidation state on disk as the gardener leaves it."""
    ws, _ = create_workspace(root, example=True)
    alice = root / "people" / "alice"
    texts = {name: (alice / name).read_text(encoding="utf-8") for name in ("PROFILE.md", "EVENTS.md", "MEMORY.md")}
    slugs = [f"p{i:05d}" for i in range(people)]
    stream, when = [], START
    states: dict[str, dict] = {slug: {} for slug in slugs}

    def commit(message: str, files: dict[str, str]) -> None:
        nonlocal when
        when += 1
        stream.append(f"commit refs/heads/main\ncommitter bench <b@x> {when} +0000\n".encode())
        stream.append(_data(message))
        if len(stream) == 2:
            stream.append(f"from {ws.git.head()}\n".encode())
        for path, text in files.items():
            stream.append(f"M 100644 inline {path}\n".encode() + _data(text))
        stream.append(b"\n")

    for i, slug in enumerate(slugs):
        profile = texts["PROFILE.md"].replace("name: Alice Chen", f"name: Person {i}").replace("- Alice\n", f"- P{i}\n")
        commit(subject(Verb.ADD, slug, "new person"), {f"people/{slug}/PROFILE.md": profile,
                                                       f"people/{slug}/EVENTS.md": texts["EVENTS.md"],
                                                       f"people/{slug}/MEMORY.md": texts["MEMORY.md"]})
    for n, day in enumerate(DAYS, 1):
        for i, slug in enumerate(slugs):
            log = _log(day, i)
            commit(subject(Verb.CHAT, slug, f"4 messages on {day}"), {f"people/{slug}/logs/{day}.md": log})
            entries = dailylog.parse(log, f"{day}.md")
            consumed = {day: [len(entries), prefix_sum(entries, len(entries))]}
            states[slug].update(consumed)
            events = texts["EVENTS.md"].rstrip("\n") + "".join(
                f"\n- {d} · P{i} went hiking near the lake (#{k})" for k, d in enumerate(DAYS[:n], 1)) + "\n"
            memory = texts["MEMORY.md"].rstrip("\n") + f"\n\nGardened {n} times.\n"
            body = f"P{i} went hiking.\n\n{trailer(consumed, {day: blob_id(log.encode())})}"
            commit(subject(Verb.GARDEN, slug, f"1 new event, memory updated from {day} log") + "\n\n" + body,
                   {f"people/{slug}/EVENTS.md": events, f"people/{slug}/MEMORY.md": memory})
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)
    folder = root / ".heartcompass" / "consolidated"
    folder.mkdir(parents=True, exist_ok=True)
    for slug, days in states.items():
        (folder / f"{slug}.json").write_text(json.dumps({"days": days}, separators=(",", ":")), encoding="utf-8")


def cpu(args: list[str], home: Path) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HEARTCOMPASS_HOME"] = str(home)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "heartcompass", *args], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def clone(original: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    cpu(["init", str(dest), "--from", str(original)], original)
    return dest


def measure(people: int, runs: int, tmp: Path) -> float:
    original = tmp / f"original-{people}"
    build(original, people)
    cpu(["garden"], original)  # warm-up: byte-code, the people index, the entry counts
    pairs = []
    for run in range(runs):
        idle = cpu(["garden"], original)
        copy = clone(original, tmp / f"clone-{people}")
        first = cpu(["garden"], copy)
        again = cpu(["garden"], copy)
        pairs.append((idle, first, again))
    idle = statistics.median(p[0] for p in pairs)
    first = statistics.median(p[1] for p in pairs)
    again = statistics.median(p[2] for p in pairs)
    ratio = statistics.median(p[1] / p[0] for p in pairs)
    print(f"{people} people ({len(DAYS) * 2 + 1} commits each): idle garden on the original {idle:.2f} s CPU; "
          f"first garden on a clone {first:.2f} s, its second {again:.2f} s; ratio {ratio:.2f} "
          f"(goal <= {GOAL:g}: {'met' if ratio <= GOAL else 'NOT met'})", flush=True)
    return ratio


def main() -> None:
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        at = args.index("--runs")
        runs = int(args[at + 1])
        del args[at:at + 2]
    sizes = [int(a) for a in args] or [150, 2000]
    with tempfile.TemporaryDirectory() as tmp:
        for people in sizes:
            measure(people, runs, Path(tmp))


if __name__ == "__main__":
    main()
