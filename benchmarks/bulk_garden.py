"""The first garden of people that came in by the user's own plain commit (a
bulk commit, a migration): no commit of ours ever touched their files, so
every line is the user's and none needs `git blame` to say so (issue 32).

    python benchmarks/bulk_garden.py [PEOPLE] [--active N] [--sleep S]   (default: 300 people, 30 active, 0.2 s)

PEOPLE people are written and committed at once under a plain subject, then
a month of chat commits of ours (five people's logs a day: the history blame
would walk, and new entries of theirs), then new entries of ACTIVE more; all
gardened at once by a model that sleeps S s per call. Prints the people
gardened, the run's time, the model's share of it (target >= 0.7, as
benchmarks/garden.py's fleet) and how many `git blame` ran.

Measured on a shared, busy 2-core machine (300 people, 131 gardened, 146
calls; two runs each, interleaved): before, 390 blames, our time 27.8 and
39.8 s, model share 0.51 and 0.42; after, no blame, our time 11.0 and
15.7 s, model share 0.73 and 0.65.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from garden import TOPICS, RecordingModel, commit_all, quick_people, write_log  # noqa: E402
from heartcompass.formats import dailylog  # noqa: E402
from heartcompass.memory.gardener import Gardener  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402
from heartcompass.store.gitrepo import WorkspaceGit  # noqa: E402
from heartcompass.store.people import list_people  # noqa: E402

HISTORY_DAYS = 30


def run(people: int, active: int, sleep: float) -> tuple[float, float, int, int, int]:
    """(model time, whole run, model calls, blames, people gardened) of the first garden."""
    random.seed(5)
    blames = 0
    real_blame = WorkspaceGit.blame

    def counted(self, path):
        nonlocal blames
        blames += 1
        return real_blame(self, path)

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        ws, _ = create_workspace(Path(tmp) / "ws")
        quick_people(ws, [f"Person {n:04d}" for n in range(people)])
        commit_all(ws, "Move my notes over from Obsidian")  # the user's own commit: not one of ours
        everyone = list_people(ws)
        chosen = random.sample(everyone, active)
        for d in range(HISTORY_DAYS):  # our chat commits since, one a day
            day = dt.date(2026, 11, 1) + dt.timedelta(days=d)
            for person in random.sample(everyone, 5):
                write_log(person, day, [dailylog.Entry("10:00:00", "me", f"we talked about {random.choice(TOPICS)}")])
            ws.git._git("add", "-A")
            ws.git._git("commit", "-q", "--no-verify", "-m", f"chat(p{d}): 1 message on {day}")
        for person in chosen:
            write_log(person, dt.date(2026, 12, 1),
                      [dailylog.Entry(f"20:0{i}:00", "me", f"we talked about {random.choice(TOPICS)}")
                       for i in range(4)])
        commit_all(ws, "chat: new entries")
        model = RecordingModel(sleep=sleep)
        WorkspaceGit.blame = counted  # type: ignore[method-assign]
        try:
            t0 = time.perf_counter()
            results = Gardener(ws, lambda: model, today=dt.date(2026, 12, 1)).run()
            whole = time.perf_counter() - t0
        finally:
            WorkspaceGit.blame = real_blame  # type: ignore[method-assign]
        gardened = sum(r.status == "gardened" for r in results)
        return sum(b - a for a, b in model.spans), whole, model.calls, blames, gardened


def main() -> None:
    args = sys.argv[1:]
    options = {"--active": "30", "--sleep": "0.2"}
    for name in options:
        if name in args:
            at = args.index(name)
            options[name] = args[at + 1]
            del args[at:at + 2]
    people = int(args[0]) if args else 300
    active, sleep = int(options["--active"]), float(options["--sleep"])
    model_time, whole, calls, blames, gardened = run(people, active, sleep)
    print(f"{people} people from one plain commit, {gardened} gardened, model {sleep:g} s per call: "
          f"{calls} calls, run {whole:.1f} s, ours {whole - model_time:.1f} s, model share {model_time / whole:.2f} "
          f"(target >= 0.7); {blames} git blame")


if __name__ == "__main__":
    main()
