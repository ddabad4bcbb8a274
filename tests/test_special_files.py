"""Never open anything but a regular file or folder where ours should be: a
FIFO would hang the command forever, a device would be read or written. Each
is named with what it is and the fix, and nothing is written. Run as real
processes with a deadline: a hang is a failure, not a stuck suite."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

from conftest import Runner, subjects


def run(ws, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", "heartcompass", "--workspace", str(ws.root), *args],
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"heartcompass {' '.join(args)} hung on a special file")


def _fifo(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize("where, args, named", [
    ("people/alice/logs/TODAY.md", ["chat", "alice", "-m", "/note she keeps a tortoise"], "logs/TODAY.md"),
    (".heartcompass/lock", ["person", "add", "Zed", "--yes"], ".heartcompass/lock"),
    (".env", ["chat", "alice", "-m", "hi"], ".env"),
    ("people/alice/PROFILE.md", ["person", "show", "alice"], "people/alice/PROFILE.md"),
])
def test_a_fifo_in_place_of_our_file_is_named_and_nothing_is_written(example_ws, where, args, named):
    today = dt.date.today().isoformat()
    _fifo(example_ws.root / where.replace("TODAY", today))
    before = subjects(example_ws)
    result = run(example_ws, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    text = result.stdout + result.stderr
    assert named.replace("TODAY", today) in text and "named pipe (FIFO)" in text and "Traceback" not in text
    assert subjects(example_ws) == before


def test_doctor_does_not_hang_on_a_fifo_lock(example_ws):
    _fifo(example_ws.state_dir / "lock")
    result = run(example_ws, "doctor")
    assert "Traceback" not in result.stderr and "workspace" in result.stdout


def test_fifos_in_place_of_local_state_are_rebuilt(example_cli: Runner, fake_llm):
    state = example_cli.ws.state_dir
    for path in (state / "consolidated" / "alice.json", state / "people-index.json", state / "garden" / "alice.json"):
        _fifo(path)
    result = run(example_cli.ws, "garden", "--dry-run")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert run(example_cli.ws, "person", "list").returncode == 0


def test_a_device_in_place_of_the_state_folder_is_named(example_ws):
    import shutil

    shutil.rmtree(example_ws.root / ".heartcompass", ignore_errors=True)
    os.symlink("/dev/null", example_ws.root / ".heartcompass")  # a device reached by a link: refused as a link
    result = run(example_ws, "person", "add", "Zed", "--yes")
    assert result.returncode == 1 and ".heartcompass" in result.stderr and "Traceback" not in result.stderr
    os.unlink(example_ws.root / ".heartcompass")
    (example_ws.root / ".heartcompass").write_text("not a folder")
    result = run(example_ws, "person", "add", "Zed", "--yes")
    assert result.returncode == 1 and "where HeartCompass keeps a folder" in result.stderr
