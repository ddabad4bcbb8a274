"""Helpers for store/git's promise tests: a small repository of the test's
own, commits made through WorkspaceGit, git run by hand as the user would."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

from heartcompass.store.gitrepo import WorkspaceGit


def user_git(root: Path, *args: str, stdin: str | None = None, env: dict | None = None) -> str:
    """git as the user runs it by hand."""
    who = ["-c", "user.name=The User", "-c", "user.email=user@example.com"]
    return subprocess.run(["git", *who, *args], cwd=root, capture_output=True, text=True, check=True, input=stdin,
                          env={**os.environ, **(env or {})}).stdout


def new_repo(tmp_path: Path) -> WorkspaceGit:
    root = tmp_path / "repo"
    root.mkdir(parents=True)
    wg = WorkspaceGit(root)
    wg.init()
    return wg


def write_file(wg: WorkspaceGit, rel: str, text: str) -> Path:
    path = wg.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def commit_files(wg: WorkspaceGit, files: dict[str, str], subject: str, body: str = "") -> str:
    paths = [write_file(wg, rel, text) for rel, text in files.items()]
    sha = wg.commit(paths, subject, body)
    assert sha
    return sha


def day_log(day: str, *entries: str) -> str:
    """A day's log as HeartCompass writes it; each entry "HH:MM · speaker · text"."""
    return f"---\ndate: {day}\n---\n\n" + "".join(f"- {e}\n" for e in entries)


def plain_tree(tmp_path: Path, files: dict[str, str], name: str = "plain") -> str:
    """The tree id git itself makes of these files (git add, write-tree)."""
    root = tmp_path / name
    root.mkdir()
    user_git(root, "init", "-q")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    user_git(root, "add", "-A")
    return user_git(root, "write-tree").strip()


def add_hook(wg: WorkspaceGit, name: str, script: str, folder: Path | None = None) -> Path:
    hooks = folder or wg.root / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / name
    hook.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    hook.chmod(0o755)
    return hook


def committed_repo(tmp_path: Path) -> WorkspaceGit:
    wg = new_repo(tmp_path)
    commit_files(wg, {"a.md": "1\n"}, "one")
    return wg


def bare_remote(tmp_path: Path, name: str = "remote.git") -> Path:
    bare = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(bare)], check=True)
    return bare


def users_git(cwd: Path, command: str = "git hash-object --stdin") -> subprocess.Popen:
    """A git the user started in another terminal: not a child of this process."""
    return subprocess.Popen(["sh", "-c", f"{command}; true"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)


@contextlib.contextmanager
def held_by_a_gardener(ws, monkeypatch):
    """The workspace's lock held by a gardener, with a clock that moves one
    second per look: yields the list of the waits asked for meanwhile."""
    from heartcompass.store import lock as lock_mod

    tries: list[float] = []
    with lock_mod.FileLock(ws.state_dir / "lock", "gardener"):
        clock = iter(range(0, 10_000))
        monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
        monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
        yield tries
