"""One writer at a time, and no message lost: the workspace lock (flock,
released by the kernel), the log's append lock, 20 chats at once."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Runner, git, log_entries
from heartcompass.store.lock import LockBusy, FileLock, holder

ROOT = Path(__file__).resolve().parent.parent

HOLD = """
import sys, time
from heartcompass.store.lock import FileLock
lock = FileLock(sys.argv[1], sys.argv[2])
lock.acquire()
print("held", flush=True)
time.sleep(float(sys.argv[3]))
lock.release()
"""


def _hold(path, purpose="gardener", seconds=30.0) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), purpose, str(seconds)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_killed_holder_frees_the_lock_at_once(tmp_path):
    path = tmp_path / "lock"
    proc = _hold(path)
    assert holder(path)["pid"] == proc.pid and holder(path)["purpose"] == "gardener"
    with pytest.raises(LockBusy, match=f"gardener is running \\(pid {proc.pid} "):
        FileLock(path, "chat").acquire()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert path.exists()  # the dead holder's file is still there, and means nothing
    assert holder(path) is None
    with FileLock(path, "chat") as lock:
        assert lock.held
    assert not path.exists()


HOLD_UNTIL_TOLD = """
import sys
from heartcompass.store.lock import FileLock
with FileLock(sys.argv[1], "gardener"):
    print("held", flush=True)
    sys.stdin.readline()
    print("letting go", flush=True)
"""


def test_a_waiting_command_gets_the_lock_when_the_holder_finishes(tmp_path):
    """Ordered by events, not by the clock: the holder keeps the lock until told."""
    import threading

    path = tmp_path / "lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLD_UNTIL_TOLD, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout.readline().strip() == "held"
    with pytest.raises(LockBusy):
        FileLock(path, "gardener").acquire()  # a second gardener fails fast: no wait at all
    let_go, order = threading.Event(), []

    def waiter():
        with FileLock(path, "chat", wait=120):
            order.append(("got it", let_go.is_set(), holder(path)["pid"]))

    thread = threading.Thread(target=waiter)
    thread.start()
    let_go.set()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "letting go"
    thread.join(120)
    assert order == [("got it", True, os.getpid())]  # only once the holder had let go
    assert proc.wait(timeout=60) == 0


def test_a_bounded_wait_ends_with_who_holds_it(tmp_path):
    path = tmp_path / "lock"
    proc = _hold(path, "gardener")
    try:
        started = time.monotonic()
        with pytest.raises(LockBusy, match=f"Another HeartCompass gardener is running \\(pid {proc.pid}"):
            FileLock(path, "chat", wait=1.0).acquire()
        assert time.monotonic() - started >= 1.0  # it waited its second (no upper bound: a loaded machine is slow)
    finally:
        proc.kill()
        proc.wait()


COUNT = """
import fcntl, sys, time
from pathlib import Path
from heartcompass.store.lock import FileLock
real_flock = fcntl.flock
def slow_flock(fd, op):  # as if the scheduler paused us between open() and flock()
    time.sleep(0.003)
    return real_flock(fd, op)
fcntl.flock = slow_flock
lock_path, counter = sys.argv[1], Path(sys.argv[2])
for _ in range(int(sys.argv[3])):
    with FileLock(lock_path, "count", wait=60):
        n = int(counter.read_text())
        time.sleep(0.002)  # a read-modify-write that loses counts if two hold the lock at once
        counter.write_text(str(n + 1))
"""


def test_never_two_holders_at_once(tmp_path):
    """Many processes take and release the lock (which removes its file)
    over and over: every increment survives, so no two ever held it."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    procs = [subprocess.Popen([sys.executable, "-c", COUNT, str(tmp_path / "lock"), str(counter), "40"], cwd=ROOT)
             for _ in range(6)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    assert counter.read_text() == str(6 * 40)


def test_a_log_append_waits_for_the_logs_lock(tmp_path):
    """Appends to one log take its flock: while someone holds it, an append
    from another process waits, then lands whole."""
    import datetime as dt

    from heartcompass.formats import dailylog

    path = tmp_path / "logs" / "2026-12-01.md"
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "first"), dt.date(2026, 12, 1))
    code = ("import datetime as dt, sys\nfrom pathlib import Path\nfrom heartcompass.formats import dailylog\n"
            "dailylog.append(Path(sys.argv[1]), dailylog.Entry('10:00:01', 'me', 'second'), dt.date(2026, 12, 1))\n")
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=ROOT)
        # Not "still running after a while" (also true before it has even started): it is queued on the lock.
        assert _waits_on_a_lock(proc), "the append did not wait for the log's lock"
        assert proc.poll() is None and [e.text for e in dailylog.load(path)] == ["first"]
    finally:
        os.close(fd)
    assert proc.wait(timeout=30) == 0
    assert [e.text for e in dailylog.load(path)] == ["first", "second"]


def _waits_on_a_lock(proc: subprocess.Popen, deadline: float = 120.0) -> bool:
    """Is proc blocked on a file lock? Linux lists each waiter in /proc/locks
    ("-> FLOCK ... <pid> ..."); polled until the deadline or proc ends."""
    if not os.path.exists("/proc/locks"):
        pytest.skip("needs /proc/locks")
    end = time.monotonic() + deadline
    while time.monotonic() < end and proc.poll() is None:
        with open("/proc/locks") as fh:
            if any(parts[1:2] == ["->"] and parts[5:6] == [str(proc.pid)] for parts in map(str.split, fh)):
                return True
        time.sleep(0.05)
    return False


FORKED_CHATS = """
import os, sys
from heartcompass.cli.app import main
import langchain_openai, git  # imported once, before the fork: 20 cold starts cost minutes on a busy machine
from heartcompass.store import audit
audit.WAIT = 120  # 20 commits in a row on a loaded test machine may take longer than a user's 30 s

workspace, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
children = []
for n in range(count):
    pid = os.fork()
    if pid == 0:  # a separate process, as if started from its own terminal
        fd = os.open(os.path.join(out, f"{n}.err"), os.O_WRONLY | os.O_CREAT, 0o644)
        os.dup2(fd, 2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.argv = ["heartcompass", "--workspace", workspace, "chat", "alice", "-m", f"hi number {n}", "--no-delay"]
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            code = 99
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
print("CODES:" + " ".join(map(str, codes)))
"""


def test_twenty_chats_at_once_lose_nothing_and_commit_one_at_a_time(example_cli: Runner, tmp_path):
    """20 `chat -m` processes to one person at once (over HTTP to the stub
    server): every message logged, every command succeeds (none trips on
    index.lock), nothing left uncommitted."""
    from stub_server import start

    ws = example_cli.ws
    server, state = start()
    errs = tmp_path / "errs"
    errs.mkdir()
    try:
        example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
        env = {**os.environ, "HEARTCOMPASS_LLM_API_KEY": "none"}
        proc = subprocess.run([sys.executable, "-c", FORKED_CHATS, str(ws.root), "20", str(errs)],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr
    codes = [line for line in proc.stdout.splitlines() if line.startswith("CODES:")][0][6:].split()
    failed = {n: (errs / f"{n}.err").read_text() for n, code in enumerate(codes) if code != "0"}
    assert len(codes) == 20 and failed == {}, failed
    mine = sorted(e.text for e in log_entries(ws, "alice") if e.speaker == "me" and e.text.startswith("hi number"))
    assert mine == sorted(f"hi number {n}" for n in range(20))
    assert git(ws, "status", "--porcelain") == ""
    committed = "".join(git(ws, "show", f"HEAD:{p}") for p in
                        git(ws, "ls-files", "people/alice/logs").split())
    assert all(f"hi number {n}" in committed for n in range(20))
    assert len(state.requests) == 20


def test_a_fail_fast_gardener_still_waits_out_a_short_commit(tmp_path):
    path = tmp_path / "lock"
    proc = _hold(path, "chat", seconds=1.0)
    with FileLock(path, "gardener"):  # not "Another HeartCompass chat is running"
        pass
    proc.wait()
    proc = _hold(path, "sync")
    try:
        with pytest.raises(LockBusy, match="sync is running"):
            FileLock(path, "gardener").acquire()
    finally:
        proc.kill()
        proc.wait()


def test_a_lock_that_cannot_be_created_is_one_clear_error(tmp_path):
    from heartcompass.errors import HeartCompassError

    (tmp_path / "state").write_text("a file where the state folder should be")
    with pytest.raises(HeartCompassError, match="cannot be written"):
        FileLock(tmp_path / "state" / "lock", "chat").acquire()
