"""Where an import's CPU goes, stage by stage, next to the bare streaming parser (issue 32).

    python benchmarks/import_stages.py [MESSAGES] [--repeat R] [--only whatsapp,wechat]

For each format, the best of R rounds (default 3; the formats take turns in
each round) of the CPU seconds, in this process, of each stage of importing
MESSAGES (default 100,000) synthetic messages into a fresh workspace (the
exports of benchmarks/imports.py): reading the export into its temporary
file (and of that, the app's parser alone), reading it back, routing, the
day writes, the voice tally fed from the written lines, the VOICE.md
refresh, the commit (ours and the git it runs), and the rest; then, as whole
processes, a 20-message import (what any import costs: Python, the CLI, git)
and the bare parser. Each stage's own floor is what the printout shows:
what is left once nothing else is done."""

from __future__ import annotations

import datetime as dt
import functools
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import imports as bench  # noqa: E402

from heartcompass.intake import importers, routing  # noqa: E402
from heartcompass.intake.exports import Context, Report  # noqa: E402
from heartcompass.memory import voice, voice_tally  # noqa: E402
from heartcompass.store import audit  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402

NOW = dt.datetime(2026, 12, 3, 12, 0)
TIMED = [(voice_tally.Feed, "day", "voice tally fed"), (importers, "write_day", "day writes"),
         (voice, "refresh", "VOICE.md refresh"), (audit, "commit_or_roll_back", "commit (ours)")]


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timers(spent: dict[str, float]) -> None:
    """Each stage's function wrapped to add its CPU seconds to `spent` (the git it runs, for the commit)."""
    for owner, attr, label in TIMED:
        real = getattr(owner, attr)

        def timed(*args, _real=real, _label=label, **kwargs):
            start, git = time.process_time(), _children()
            try:
                return _real(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.process_time() - start
                if _label.startswith("commit"):
                    spent["commit (git)"] = spent.get("commit (git)", 0.0) + _children() - git
        setattr(owner, attr, functools.wraps(real)(timed))


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def stages(fmt: str, export: Path, tmp: Path, n: int, tag: str) -> dict[str, float]:
    make, me = bench.FORMATS[fmt]
    ctx = Context(NOW.date(), dt.timezone.utc, None, "Alice Chen")
    module = __import__(f"heartcompass.intake.exports.{fmt}", fromlist=["messages"])
    row = {"the app's parser alone": _cpu(lambda: [None for _ in module.messages(
        importers.open_export(export), ctx, Report())])}
    parsed = None

    def read() -> None:
        nonlocal parsed
        parsed = importers.parse(fmt, importers.open_export(export), ctx)
    row["read (parser, counts, temporary file)"] = _cpu(read)
    assert parsed is not None
    row["read back"] = _cpu(lambda: [None for _ in parsed.messages()])
    ws, _ = create_workspace(tmp / f"ws-{fmt}-{tag}", example=True)
    router = importers.Router(parsed, me, routing.directory(ws, parsed.aka), NOW, "alice")
    row["routing"] = _cpu(lambda: [None for msg in parsed.messages() for _ in router.lines(msg)])
    router = importers.Router(parsed, me, routing.directory(ws, parsed.aka), NOW, "alice")
    spent: dict[str, float] = {}
    _timers(spent)
    try:
        write = _cpu(lambda: importers.import_and_commit(ws, parsed, router, fmt))
    finally:
        for owner, attr, _ in TIMED:
            setattr(owner, attr, getattr(owner, attr).__wrapped__)
    row.update(spent)
    row["the rest of the write"] = write - sum(v for k, v in spent.items() if k != "commit (git)") \
        - row["read back"] - row["routing"]
    return row


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args and args[0].isdigit() else 100_000
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    only = args[args.index("--only") + 1].split(",") if "--only" in args else list(bench.WHOLE)
    best: dict[str, dict[str, float]] = {fmt: {} for fmt in only}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        exports, smalls = {}, {}
        for fmt in only:
            exports[fmt], smalls[fmt] = tmp / f"{fmt}.txt", tmp / f"{fmt}-20.txt"
            exports[fmt].write_text(bench.WHOLE[fmt][1](n), encoding="utf-8")
            smalls[fmt].write_text(bench.WHOLE[fmt][1](20), encoding="utf-8")
        for r in range(repeat):
            for fmt in only:
                row = stages(fmt, exports[fmt], tmp, n, str(r))
                row["whole process, 20 messages"] = bench.whole_import(fmt, smalls[fmt], tmp, 20, f"s{r}")[0]
                row["bare parser, whole process"] = bench.bare(fmt, exports[fmt], tmp, str(r))[0]
                for stage, cpu in row.items():
                    best[fmt][stage] = min(best[fmt].get(stage, cpu), cpu)
    for fmt, row in best.items():
        print(f"{bench.WHOLE[fmt][0]}, {n:,} messages: CPU seconds per stage (best of {repeat})")
        for stage, cpu in row.items():
            print(f"  {stage:40} {cpu:6.2f}")


if __name__ == "__main__":
    main()
