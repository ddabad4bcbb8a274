"""Hostile-user attacks on git states and concurrent writers (issue 10),
each run against a fresh workspace with the real CLI in subprocesses and
the stub model server; prints one line per case, exits 1 if any is not
handled.

    python benchmarks/attacks_git.py

Cases: a rebase, a merge, a cherry-pick, a revert in progress, a detached
HEAD, a stale index.lock, a hook that rejects the commit, a Chinese name
(undo, diff), 20 `chat -m` at once, `watch` while the gardener holds the
lock, `sync` to a remote that never answers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from heartcompass.formats import dailylog  # noqa: E402
from heartcompass.workspace import create_workspace  # noqa: E402
from stub_server import start  # noqa: E402

WHO = ["-c", "user.name=Attacker", "-c", "user.email=a@example.com"]
RESULTS: list[tuple[bool, str, str]] = []
MADE: list[Path] = []
SERVER, STATE = start()
ENV = {**os.environ, "HEARTCOMPASS_LLM_API_KEY": "none", "HEARTCOMPASS_LLM_BASE_URL": "",
       "GIT_CONFIG_NOSYSTEM": "1"}


def hc(ws: Path, *args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "heartcompass", "--workspace", str(ws), *args],
                          capture_output=True, text=True, env=env or ENV, cwd=ROOT, timeout=300, **kw)


def git(ws: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *WHO, *args], cwd=ws, capture_output=True, text=True)
    if check and proc.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr}")
    return proc.stdout


def fresh() -> Path:
    MADE.append(Path(tempfile.mkdtemp(prefix="attack-")))
    ws, _ = create_workspace(MADE[-1] / "brain", example=True)
    hc(ws.root, "config", "set", "llm.base_url", f"http://127.0.0.1:{SERVER.server_port}/v1")
    return ws.root


def case(name: str):
    def run(fn):
        try:
            detail = fn()
            RESULTS.append((True, name, detail or ""))
        except AssertionError as exc:
            RESULTS.append((False, name, str(exc)))
        except Exception as exc:  # an attack that breaks the script is not handled either
            RESULTS.append((False, name, f"{type(exc).__name__}: {exc}"))
        ok, _, detail = RESULTS[-1]
        print(f"{'✓' if ok else '✗'} {name}" + (f": {detail}" if detail else ""), flush=True)
    return run


def conflict(ws: Path) -> None:
    prof = ws / "people" / "alice" / "PROFILE.md"
    text = prof.read_text()
    git(ws, "checkout", "-q", "-b", "other")
    prof.write_text(text.replace("oolong tea", "hojicha"))
    git(ws, "commit", "-qam", "other")
    git(ws, "checkout", "-q", "main")
    prof.write_text(text.replace("oolong tea", "matcha"))
    git(ws, "commit", "-qam", "main")


def refused(proc: subprocess.CompletedProcess, *needles: str) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"exit 0: {out[-200:]}"
    assert "Traceback" not in out, out[-400:]
    for needle in needles:
        assert needle in out, f"{needle!r} not in {out[-300:]!r}"


def today_log(ws: Path) -> list[str]:
    return [e.text for day in dailylog.log_dates(ws / "people" / "alice")
            for e in dailylog.load(ws / "people" / "alice" / "logs" / f"{day}.md")]


@case("rebase in progress: chat logs then refuses, writing commands refuse, next chat commits it")
def _rebase():
    ws = fresh()
    conflict(ws)
    git(ws, "rebase", "other", check=False)
    head = git(ws, "rev-parse", "HEAD")
    refused(hc(ws, "chat", "alice", "-m", "typed mid-rebase", "--no-delay"), "middle of a rebase", "--abort")
    assert "typed mid-rebase" in today_log(ws), "the chat message was not logged"
    refused(hc(ws, "person", "add", "Bob", "-y"), "git rebase --continue")
    assert git(ws, "rev-parse", "HEAD") == head and not (ws / "people" / "bob").exists()
    git(ws, "rebase", "--abort")
    assert hc(ws, "chat", "alice", "-m", "after", "--no-delay").returncode == 0
    assert "typed mid-rebase" in git(ws, "log", "-p", "-3") and git(ws, "status", "--porcelain") == ""


@case("merge in progress: nothing staged into the user's merge")
def _merge():
    ws = fresh()
    conflict(ws)
    git(ws, "merge", "other", check=False)
    staged = git(ws, "diff", "--cached", "--name-only")
    refused(hc(ws, "person", "add", "Bob", "-y"), "middle of a merge", "git merge --abort")
    assert git(ws, "diff", "--cached", "--name-only") == staged


@case("cherry-pick in progress: garden refuses")
def _cherry():
    ws = fresh()
    conflict(ws)
    git(ws, "cherry-pick", "other", check=False)
    refused(hc(ws, "garden"), "cherry-pick --continue")


@case("revert in progress: undo refuses")
def _revert():
    ws = fresh()
    conflict(ws)
    prof = ws / "people" / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text().replace("matcha", "jasmine"))
    git(ws, "commit", "-qam", "jasmine")
    git(ws, "revert", "--no-edit", "HEAD~1", check=False)
    refused(hc(ws, "undo"), "middle of a revert")


@case("detached HEAD: config set refuses, heartcompass.toml untouched")
def _detached():
    ws = fresh()
    git(ws, "checkout", "-q", "--detach")
    toml = (ws / "heartcompass.toml").read_text()
    refused(hc(ws, "config", "set", "user.name", "Sam"), "detached HEAD", "git checkout main")
    assert (ws / "heartcompass.toml").read_text() == toml


@case("stale index.lock: named with its fix, doctor reports it")
def _index_lock():
    ws = fresh()
    (ws / ".git" / "index.lock").write_text("")
    refused(hc(ws, "person", "add", "Bob", "-y"), "stale", "rm ")
    doctor = hc(ws, "doctor")
    assert "✗ git" in doctor.stdout and "stale" in doctor.stdout, doctor.stdout


@case("a hook rejects the commit: person add and config set roll back and say so")
def _hook():
    ws = fresh()
    hook = ws / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'secret found' >&2\nexit 1\n")
    hook.chmod(0o755)
    refused(hc(ws, "person", "add", "Bob", "-y"), "secret found", "rolled back")
    refused(hc(ws, "config", "set", "user.name", "Sam"), "rolled back")
    assert not (ws / "people" / "bob").exists() and git(ws, "status", "--porcelain") == ""


@case("小明: diff shows the name, undo of a change to them works")
def _chinese():
    ws = fresh()
    assert hc(ws, "person", "add", "小明", "-y").returncode == 0
    slug = next(p.name for p in (ws / "people").iterdir() if p.name not in ("me", "alice", ".archive"))
    prof = ws / "people" / slug / "PROFILE.md"
    prof.write_text(prof.read_text() + "\nLikes dumplings.\n")
    diff = hc(ws, "diff", slug).stdout
    assert f"people/{slug}/" in diff and "\\345" not in diff, diff[:300]
    assert hc(ws, "person", "rename", slug, "小明明").returncode == 0
    undo = hc(ws, "undo")
    assert undo.returncode == 0, undo.stderr
    assert prof.exists() and git(ws, "status", "--porcelain") == ""


@case("20 chat -m at once: every message logged and committed, no command fails")
def _twenty():
    ws = fresh()
    procs = [subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(ws), "chat", "alice",
                               "-m", f"parallel {n}", "--no-delay"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT) for n in range(20)]
    errors = [err for proc in procs for err in [proc.communicate(timeout=600)[1]] if proc.returncode]
    logged = sum(f"parallel {n}" in today_log(ws) for n in range(20))
    assert not errors, f"{len(errors)} failed: {errors[0][-200:]}"
    assert logged == 20, f"{logged} of 20 logged"
    assert git(ws, "status", "--porcelain") == "", "left uncommitted"
    return "20 of 20 logged and committed"


HOLD = ("import sys, time\nfrom heartcompass.lock import WorkspaceLock\n"
        "with WorkspaceLock(sys.argv[1], 'gardener'):\n    print('held', flush=True)\n    time.sleep(4)\n")


@case("watch while the gardener holds the lock: no commit until it is released")
def _watch():
    ws = fresh()
    watch = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(ws), "watch",
                              "--debounce", "0.3"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=ENV, cwd=ROOT)
    try:
        time.sleep(3)
        holder = subprocess.Popen([sys.executable, "-c", HOLD, str(ws / ".heartcompass" / "lock")],
                                  stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert holder.stdout.readline().strip() == "held"
        before = git(ws, "rev-parse", "HEAD")
        mem = ws / "people" / "alice" / "MEMORY.md"
        mem.write_text(mem.read_text().replace("## Facts\n\n", "## Facts\n\n- typed during the garden\n"))
        time.sleep(2)
        assert git(ws, "rev-parse", "HEAD") == before, "watch committed while the gardener held the lock"
        holder.wait(timeout=30)
        deadline = time.monotonic() + 20
        while git(ws, "rev-parse", "HEAD") == before and time.monotonic() < deadline:
            time.sleep(0.2)
        assert git(ws, "log", "-1", "--format=%s").strip() == "edit(alice): by hand", "not committed after"
    finally:
        watch.terminate()
        watch.wait(timeout=10)


@case("sync to a remote that accepts and never answers: gives up, lock released")
def _silent_remote():
    ws = fresh()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    conns = []
    threading.Thread(target=lambda: [conns.append(server.accept()) for _ in range(8)], daemon=True).start()
    git(ws, "remote", "add", "origin", f"http://127.0.0.1:{server.getsockname()[1]}/brain.git")
    started = time.monotonic()
    proc = hc(ws, "sync", env={**ENV, "HEARTCOMPASS_GIT_TIMEOUT": "3"})
    took = time.monotonic() - started
    server.close()
    refused(proc, "did not answer")
    assert took < 30, f"took {took:.0f} s"
    assert hc(ws, "person", "add", "Bob", "-y").returncode == 0, "the lock was not released"
    return f"gave up after {took:.1f} s"


if __name__ == "__main__":
    SERVER.shutdown()
    for folder in MADE:
        shutil.rmtree(folder, ignore_errors=True)
    bad = [r for r in RESULTS if not r[0]]
    print(f"\n{len(RESULTS) - len(bad)} of {len(RESULTS)} attacks handled.")
    sys.exit(1 if bad else 0)
