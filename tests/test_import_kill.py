"""An import killed (SIGKILL: no cleanup, no finally) while it writes the
day logs leaves every log whole and parseable, and a rerun finishes it: the
logs and VOICE.md end as one uninterrupted import writes them, and nothing
is left uncommitted. The kill comes from inside the import process, at its
Nth opening of a day log for writing (an audit hook), so the test waits on
no clock and does not depend on how the import writes."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest

from conftest import Runner, git, tree_snapshot

# Run as `python -c KILLER N ARGS...`: heartcompass ARGS, killed at its Nth open of a day log for writing.
KILLER = r"""
import os, re, runpy, signal, sys
limit, opened = int(sys.argv[1]), [0]
log = re.compile(r"/people/[^/]+/logs/\d{4}-\d\d-\d\d\.md$")
def hook(event, args):
    if event != "open" or not log.search(str(args[0])):
        return
    mode, flags = args[1], args[2]
    writing = any(c in (mode or "") for c in "wax+") or (flags or 0) & (os.O_WRONLY | os.O_RDWR)
    if writing:
        opened[0] += 1
        if opened[0] >= limit:
            os.kill(os.getpid(), signal.SIGKILL)
sys.addaudithook(hook)
sys.argv = ["heartcompass", *sys.argv[2:]]
runpy.run_module("heartcompass", run_name="__main__")
"""


def _export() -> str:
    """Two people over 47 days, English and Chinese, a multi-line message every so often."""
    out, when = [], dt.datetime(2024, 1, 1, 9, 0)
    for i in range(600):
        when += dt.timedelta(minutes=[3, 40, 290][i % 3])
        text = f"line {i} of the day\ncontinued 第{i}行" if i % 17 == 0 else f"message {i} 你好" if i % 2 else "ok"
        out.append(f"{when:%d/%m/%Y}, {when:%H:%M} - {'Alice Chen' if i % 2 else 'Lei'}: {text}\n")
    return "".join(out)


def _people(root) -> dict[str, bytes]:
    return {p: b for p, b in tree_snapshot(root).items() if p.startswith("people/alice/")}


@pytest.mark.parametrize("kill_at", [1, 25])
def test_a_killed_import_leaves_whole_logs_and_a_rerun_finishes_it(example_cli: Runner, tmp_path, kill_at):
    from heartcompass.formats import dailylog
    from heartcompass.store.creation import create_workspace

    export = tmp_path / "chat.txt"
    export.write_text(_export(), encoding="utf-8")
    args = ["-w", str(example_cli.ws.root), "import", "alice", str(export), "--me", "Lei"]
    killed = subprocess.run([sys.executable, "-c", KILLER, str(kill_at), *args], capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr  # it was killed, not finished
    logs = example_cli.ws.people_dir / "alice" / "logs"
    days = dailylog.log_dates(example_cli.ws.people_dir / "alice")
    assert len(days) == kill_at - 1  # the kill came where it was meant to: after kill_at - 1 days written
    for day in days:
        dailylog.load(logs / f"{day}.md")  # every day written is whole: it parses

    rerun = example_cli("import", "alice", str(export), "--me", "Lei")
    assert "Imported" in rerun.output
    assert git(example_cli.ws, "status", "--porcelain") == ""  # nothing left uncommitted

    clean_ws, _ = create_workspace(tmp_path / "clean", example=True)
    Runner(clean_ws)("import", "alice", str(export), "--me", "Lei")
    got, want = _people(example_cli.ws.root), _people(clean_ws.root)
    assert len([p for p in want if "/logs/" in p]) == 47 and "people/alice/VOICE.md" in want
    assert got == want  # every day log and VOICE.md as one uninterrupted import writes them
    again = example_cli("import", "alice", str(export), "--me", "Lei")
    assert "Nothing new" in again.output  # and a third run adds nothing
