"""Is the repository in a state where a commit may be made? No rebase,
merge, cherry-pick or revert in progress, no detached HEAD, no index.lock
left by a killed git: else one line naming the problem and its fix.

A part of gitrepo.WorkspaceGit (a mixin): these read .git/ and /proc, and
ask git which files are in conflict through WorkspaceGit._git, so this
module imports no git. Only gitrepo.py (and gitremote.py) import it."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path

from heartcompass.errors import GitError
from heartcompass.store.gitbase import GitBase
from heartcompass.store.gitplain import SYNC_MARK, UNDO_MARK  # (plain git's quick look knows them too)


class RepoState(GitBase):
    """Needs `root`, `git_dir`, `common_dir`, `hooks` and `_git` from WorkspaceGit (see GitBase)."""

    def state_problem(self) -> str | None:
        """A rebase, merge, cherry-pick or revert in progress, or a detached
        HEAD: one line naming it and the fix; None when commits may be made."""
        gd = self.git_dir
        if not self.rebase_in_progress():
            self.clear_sync_mark()  # the user finished or dropped that sync's rebase with git itself
        if (gd / "rebase-merge").is_dir() or (gd / "rebase-apply").is_dir():
            if (gd / SYNC_MARK).exists():
                return ("A 'heartcompass sync' conflict is still being resolved: fix the marked files, then run "
                        "'heartcompass sync --continue' (or 'heartcompass sync --abort' to go back).")
            return ("git is in the middle of a rebase: finish it with 'git rebase --continue' "
                    "or go back with 'git rebase --abort'.")
        if (gd / "MERGE_HEAD").exists():
            return ("git is in the middle of a merge: finish it with 'git commit' "
                    "or go back with 'git merge --abort'.")
        if (gd / "CHERRY_PICK_HEAD").exists():
            return ("git is in the middle of a cherry-pick: finish it with 'git cherry-pick --continue' "
                    "or go back with 'git cherry-pick --abort'.")
        if self._undo_under_way():
            return ("A 'heartcompass undo' was interrupted; the next command that writes takes it back "
                    "(nothing was committed), or run: heartcompass undo again.")
        if (gd / "REVERT_HEAD").exists():
            return ("git is in the middle of a revert: finish it with 'git revert --continue' "
                    "or go back with 'git revert --abort'.")
        try:
            head = (gd / "HEAD").read_text(encoding="utf-8").strip()
        except OSError as exc:  # git finds no repository here either: no branch to name, no commit to make
            return (f"git cannot read {gd / 'HEAD'} ({exc.strerror or exc}), which names the branch: it should hold "
                    f"one line, such as: ref: refs/heads/{self._home_branch()}")
        if not head.startswith("ref:"):
            return (f"git is on a detached HEAD (commit {head[:8]}), not a branch: "
                    f"go back with: git checkout {shlex.quote(self._home_branch())}")
        branch = head.removeprefix("ref:").strip()
        if not self._has_ref(branch) and self._branches():
            # `git checkout --orphan`: a first commit here would hold every file as the user's hand edit,
            # so every line the gardener wrote would count as hand-written.
            return (f"git is on branch {branch.removeprefix('refs/heads/')!r}, which has no commits and none "
                    "of this workspace's history (git checkout --orphan?): go back with: "
                    f"git checkout {shlex.quote(self._home_branch())}")
        return None

    def _packed_refs(self) -> list[str]:
        try:
            text = (self.common_dir / "packed-refs").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return [line.split(" ", 1)[1] for line in text.splitlines() if " " in line and not line.startswith("#")]

    def _has_ref(self, ref: str) -> bool:
        return (self.common_dir / ref).is_file() or ref in self._packed_refs()

    def _branches(self) -> bool:
        """Has the repository any branch with commits (a fresh `init` has none)?"""
        heads = self.common_dir / "refs" / "heads"
        loose = heads.is_dir() and any(p.is_file() for p in heads.rglob("*"))
        return loose or any(r.startswith("refs/heads/") for r in self._packed_refs())

    def _home_branch(self) -> str:
        heads = self.common_dir / "refs" / "heads"
        names = sorted(p.name for p in heads.iterdir()) if heads.is_dir() else []
        return names[0] if len(names) == 1 else "main"  # the only branch there is, else main as the guess

    def index_lock_problem(self, settle: float = 2.0) -> str | None:
        """An index.lock that stays: a running git command's, or a stale one
        left by a killed commit. None when there is none."""
        path = self.git_dir / "index.lock"
        deadline = time.monotonic() + settle
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # a git command of the user's may be finishing
        if not path.exists():
            return None
        running = git_processes(self.root)
        if running:
            return (f"git is busy in this workspace (git process {running[0]} holds {path}): "
                    "wait for it to finish and try again.")
        return (f"A stale {path} is left by a git command that was killed (no git process is running): "
                f"remove it with: rm {shlex.quote(str(path))}")

    def index_lock_error(self) -> GitError:
        return GitError(self.index_lock_problem(settle=0.5) or "git found an index.lock; try again.")

    def _undo_under_way(self) -> bool:
        """git's revert in progress is a `heartcompass undo`'s (killed, or at work right now)."""
        return (self.git_dir / "REVERT_HEAD").exists() and (self.git_dir / UNDO_MARK).exists()

    def check_writable_ahead(self) -> None:
        """Refuse (GitError, one line) what check_writable would, said early,
        before the workspace lock is taken (`tell`, before the user types):
        reads only. An undo under way and an index.lock may be another
        command's work at this very moment (it holds the lock): left to the
        check under the lock."""
        if self._undo_under_way():
            return
        problem = self.state_problem()
        if problem:
            raise GitError(problem)

    def check_writable(self) -> None:
        """Refuse (GitError, one line) when a commit now would be wrong or fail."""
        self._take_back_interrupted_undo()
        problem = self.state_problem() or self.index_lock_problem()
        if problem:
            raise GitError(problem)

    def _take_back_interrupted_undo(self) -> None:
        """A `heartcompass undo` killed between git's revert and its commit
        leaves a revert in progress: ours, so taken back (the user's own
        edits since stay: reset --merge keeps changes git did not make)."""
        if not self._undo_under_way():
            (self.git_dir / UNDO_MARK).unlink(missing_ok=True)
            return
        try:
            self._git("revert", "--abort")
        except GitError:  # REVERT_HEAD unreadable: git has no revert to abort, and would leave that file behind
            self._git("reset", "-q", "--merge")
            (self.git_dir / "REVERT_HEAD").unlink(missing_ok=True)
        (self.git_dir / UNDO_MARK).unlink(missing_ok=True)

    def rebase_in_progress(self) -> bool:
        return (self.git_dir / "rebase-merge").is_dir() or (self.git_dir / "rebase-apply").is_dir()

    def clear_sync_mark(self) -> None:
        (self.git_dir / SYNC_MARK).unlink(missing_ok=True)

    def rebased_branch(self) -> str:
        """The branch a rebase in progress works on ("main" when unknown)."""
        for name in ("rebase-merge", "rebase-apply"):
            head = self.git_dir / name / "head-name"
            if head.exists():
                return head.read_text(encoding="utf-8").strip().removeprefix("refs/heads/")
        return "main"

    def commit_problem(self) -> str | None:
        """Would a commit be refused now because signing fails (commit.gpgsign
        with a key that is not there, or a repository that cannot be written)? Tried without making one (a dangling
        signed object at most). The user's hooks are not run: doctor only
        reads, and only commits run them (commit_hooks names them). None when
        a commit can be made."""
        try:  # a read-only repository (a backup, a mounted snapshot): no commit can be made
            import tempfile

            with tempfile.NamedTemporaryFile(prefix="doctor-", dir=self.git_dir):
                pass
        except OSError as exc:
            return f"the repository cannot be written ({exc.strerror or exc})"
        head = self._git("rev-parse", "-q", "--verify", "HEAD^{tree}") if self._has_head() else ""
        if head and self._git("config", "--bool", "--default", "false", "commit.gpgsign").strip() == "true":
            try:
                self._git("commit-tree", "-S", head.strip(), "-m", "heartcompass doctor: can we sign?")
            except GitError as exc:
                return f"commit.gpgsign is on and signing fails ({exc.message.splitlines()[-1]})"
        return None

    def _has_head(self) -> bool:
        try:
            self._git("rev-parse", "-q", "--verify", "HEAD")
            return True
        except GitError:
            return False

    def conflicted(self) -> list[str]:
        out = self._git("diff", "--name-only", "-z", "--diff-filter=U", strip_newline_in_stdout=False)
        return [p for p in out.split("\0") if p]


def git_processes(root: Path) -> list[int]:
    """Pids of git processes working in this repository (Linux: by their
    working directory); elsewhere, any git process, to be safe."""
    root = Path(root).resolve()
    proc = Path("/proc")
    if proc.is_dir():
        found = []
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if (entry / "comm").read_text().strip() != "git":
                    continue
                cwd = Path(os.readlink(entry / "cwd"))
                args = (entry / "cmdline").read_bytes().split(b"\0")
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == os.getpid() or b"cat-file" in args:
                continue  # GitPython's own long-lived readers never hold index.lock
            if cwd == root or root in cwd.parents:
                found.append(int(entry.name))
        return found
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,comm="], capture_output=True, text=True,
                             timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and Path(parts[2].strip()).name == "git" \
                and parts[1] != str(os.getpid()):
            found.append(int(parts[0]))
    return found
