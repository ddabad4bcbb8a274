"""git as a plain subprocess, without GitPython: what a command asks before
it knows it has anything to commit (a chat's start: is anything of this
person's uncommitted, is git mid-operation?). GitPython's import is a few
percent of a chat's start, paid only once there is something to commit.

The options and environment are gitrepo.WorkspaceGit's own (it imports them
from here): paths printed as they are, no fsmonitor, none of the user's
filter or diff programs run by a reading command, no optional index lock,
and no variable pointing git at another repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Sequence

from heartcompass.errors import GitError

# Paths printed as they are (小明, not "\345\260\217"); and never the user's core.fsmonitor program: a
# speed-up for big trees, and a command set in .git/config that even `log` would run.
BASE_OPTIONS = ("-c", "core.quotepath=false", "-c", "core.fsmonitor=false")
# The config keys that name a program git would run while reading (a filter's clean or smudge, a diff
# driver's textconv or external command).
PROGRAM_KEYS = r"^(filter|diff)\..+\.(clean|smudge|process|textconv|command)$"
# Variables that point git at another repository, index or object store (set
# when a command runs from a git hook or an editor's terminal): every git call
# of ours is about this workspace's own repository, whatever they say.
REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
               "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_PREFIX",
               "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_SHALLOW_FILE", "GIT_NAMESPACE",
               "GIT_INTERNAL_SUPER_PREFIX", "GIT_QUARANTINE_PATH")
SYNC_MARK = "heartcompass-sync"  # in .git/: the rebase in progress is an unfinished `heartcompass sync`
UNDO_MARK = "heartcompass-undo"  # in .git/: the revert in progress is a `heartcompass undo` that was killed
# What in .git/ says git is mid-operation (or a command of ours was killed mid-way); gitstate says which.
IN_PROGRESS = ("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "index.lock",
               SYNC_MARK, UNDO_MARK)


def program_options(configured: str) -> tuple[str, ...]:
    """git's options setting each program `git config -z --name-only --get-regexp PROGRAM_KEYS`
    named to nothing (a required filter set to nothing would fail the read, so it is not required),
    and hooks looked for where there are none: `git diff` refreshes the index it finds stale (a
    workspace copied or restored, a file touched) and writes it, whatever GIT_OPTIONAL_LOCKS says,
    which runs a post-index-change hook."""
    options: list[str] = ["-c", f"core.hooksPath={os.devnull}"]
    for key in sorted({k for k in configured.split("\0") if k and "=" not in k}):
        options += ["-c", f"{key}="]
        if key.startswith("filter."):
            options += ["-c", key.rsplit(".", 1)[0] + ".required=false"]
    return tuple(options)


def parse_status(out: str) -> list[tuple[str, str]]:
    """(code, path) from `git status --porcelain=v1 -z`: a rename or a `git mv`
    is its new path, and its old path as deleted."""
    items, parts = [], out.split("\0")
    i = 0
    while i < len(parts):
        entry = parts[i]
        if len(entry) > 3:
            code, path = entry[:2], entry[3:]
            items.append((code.strip() or code, path))
            if code[0] in "RC":
                i += 1  # porcelain -z puts the rename source next
                if code[0] == "R" and i < len(parts) and parts[i]:
                    items.append(("D", parts[i]))
        i += 1
    return items


class PlainGit:
    """The workspace's repository through the git command alone (reading only)."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.git_dir = self.root / ".git"  # a linked worktree's is elsewhere: at_rest() says no, ask WorkspaceGit

    def run(self, *args: str, options: tuple[str, ...] = ()) -> str:
        env = {k: v for k, v in os.environ.items() if k not in REDIRECTING}
        env["GIT_OPTIONAL_LOCKS"] = "0"  # a status never holds index.lock when a commit needs it
        done = subprocess.run(["git", *BASE_OPTIONS, *options, *args], cwd=self.root, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, encoding="utf-8",
                              errors="surrogateescape")
        if done.returncode:
            raise GitError(f"git {args[0]} failed: {(done.stderr or done.stdout).strip()}")
        return done.stdout

    def at_rest(self) -> bool:
        """Plainly a repository a commit may be made in: its own .git folder,
        on a branch with commits, nothing in progress (no rebase, merge,
        cherry-pick, revert, interrupted sync or undo, no index.lock). False
        also when unsure: WorkspaceGit.check_writable then says what, or takes
        an interrupted undo back."""
        if not self.git_dir.is_dir() or any((self.git_dir / name).exists() for name in IN_PROGRESS):
            return False
        try:
            head = (self.git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return False
        ref = head.removeprefix("ref:").strip()
        if not head.startswith("ref:") or not ref.startswith("refs/heads/") or ".." in ref:
            return False
        if (self.git_dir / ref).is_file():
            return True
        try:
            packed = (self.git_dir / "packed-refs").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        return any(line.endswith(f" {ref}") for line in packed.splitlines() if not line.startswith("#"))

    def status(self, paths: Sequence[Path]) -> list[tuple[str, str]]:
        """(code, path) for uncommitted changes under paths, untracked files included."""
        try:
            configured = self.run("config", "-z", "--name-only", "--get-regexp", PROGRAM_KEYS)
        except GitError:  # none is set (git config exits 1)
            configured = ""
        rels = [Path(os.path.relpath(p, self.root)).as_posix() for p in paths]
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *rels,
                       options=program_options(configured))
        return parse_status(out)
