"""The one module that owns git (through GitPython).

Every change HeartCompass makes is one commit of exactly the files it
touched. Commits carry the user's identity when git has one, else a
HeartCompass identity, so they work on fresh machines and in CI."""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import git
from git.exc import BadName, GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from heartcompass.errors import GitError

FALLBACK_NAME = "HeartCompass"
FALLBACK_EMAIL = "heartcompass@localhost"
GIT_ERRORS = (GitCommandError, BadName, InvalidGitRepositoryError, NoSuchPathError, ValueError)
# Paths printed as they are (小明, not "\345\260\217"); no optional index refresh
# by read-only commands, so they never hold index.lock while a commit needs it.
BASE_OPTIONS = ("-c", "core.quotepath=false")
NETWORK_TIMEOUT = 120.0  # seconds a fetch or push may take before it is killed
NETWORK_OPTIONS = ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30")
SYNC_MARK = "heartcompass-sync"  # in .git/: the rebase in progress is an unfinished `heartcompass sync`


@dataclass
class Commit:
    sha: str
    date: str          # ISO 8601 with offset
    author: str
    subject: str
    body: str
    files: list[str]

    @property
    def short(self) -> str:
        return self.sha[:8]


class WorkspaceGit:
    def __init__(self, root: Path, hooks: Callable[[], bool] = lambda: True):
        self.root = Path(root).resolve()
        self._repo: git.Repo | None = None
        self.hooks = hooks  # run the user's commit hooks? (the git.hooks setting)

    # -- setup ------------------------------------------------------------
    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            try:
                self._repo = git.Repo(self.root)
            except GIT_ERRORS:
                raise GitError(f"{self.root} is not a git repository.",
                               "Run 'heartcompass init' in it: that sets up git and keeps existing files.") from None
        return self._repo

    def is_repo(self) -> bool:
        return (self.root / ".git").exists()

    def init(self) -> None:
        if self.is_repo():
            return
        try:
            self._repo = git.Repo.init(self.root, initial_branch="main")
        except TypeError:  # very old git
            self._repo = git.Repo.init(self.root)

    def _env(self) -> dict[str, str]:
        reader = self.repo.config_reader()
        env: dict[str, str] = {}
        name = os.environ.get("GIT_AUTHOR_NAME") or reader.get_value("user", "name", default="")
        email = os.environ.get("GIT_AUTHOR_EMAIL") or reader.get_value("user", "email", default="")
        if not name:
            env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = FALLBACK_NAME
        if not email:
            env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = FALLBACK_EMAIL
        return env

    def _git(self, *args: str, options: tuple[str, ...] = (), **kwargs) -> str:
        env = {**os.environ, **self._env(), "GIT_OPTIONAL_LOCKS": "0"}
        if not os.isatty(0):
            env["GIT_TERMINAL_PROMPT"] = "0"  # from cron, a password prompt would wait for nobody
        try:
            return self.repo.git.execute(["git", *BASE_OPTIONS, *options, *args], env=env, **kwargs)
        except GitCommandError as exc:
            detail = (exc.stderr or exc.stdout or "").strip().replace("stderr: ", "").strip("'\n ")
            if "index.lock" in detail:
                raise self.index_lock_error() from None
            raise GitError(f"git {args[0]} failed: {detail or exc}") from None

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    # -- repository state -----------------------------------------------------
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
        if (gd / "REVERT_HEAD").exists():
            return ("git is in the middle of a revert: finish it with 'git revert --continue' "
                    "or go back with 'git revert --abort'.")
        try:
            head = (gd / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            head = "ref:"
        if not head.startswith("ref:"):
            return f"git is on a detached HEAD (commit {head[:8]}), not a branch: go back with 'git checkout {self._home_branch()}'."
        return None

    def _home_branch(self) -> str:
        heads = self.git_dir / "refs" / "heads"
        names = sorted(p.name for p in heads.iterdir()) if heads.is_dir() else []
        return "main" if "main" in names or not names else names[0] if len(names) == 1 else "main"

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
                f"remove it with: rm '{path}'")

    def index_lock_error(self) -> GitError:
        return GitError(self.index_lock_problem(settle=0.5) or "git found an index.lock; try again.")

    def check_writable(self) -> None:
        """Refuse (GitError, one line) when a commit now would be wrong or fail."""
        problem = self.state_problem() or self.index_lock_problem()
        if problem:
            raise GitError(problem)

    # -- writing ----------------------------------------------------------
    def commit(self, paths: list[Path | str], subject: str, body: str = "") -> str | None:
        """Commit exactly `paths` (additions, changes, deletions). Returns the
        new sha, or None when those paths had nothing to commit."""
        rels = sorted({self._rel(p) for p in paths})
        if not rels:
            return None
        present = [r for r in rels if (self.root / r).exists()]
        gone = [r for r in rels if r not in present]
        if present:
            self._git("add", "-A", "--", *present)
        if gone:  # deleted or moved away: stage the removal
            self._git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *gone)
        self._refuse_links(rels)
        staged = self._git("diff", "--cached", "--name-only", "--", *rels)
        if not staged.strip():
            return None
        message = subject + (f"\n\n{body.strip()}\n" if body.strip() else "")
        has_head = self.head() is not None
        try:
            self._git("commit", *self._verify(), "-q", "-m", message, *(["--"] + rels if has_head else []))
        except GitError:
            self.unstage(rels)  # the files stay as they are, the index as it was
            raise
        return self.head()

    def commit_contents(self, contents: dict[Path | str, str], subject: str, body: str = "") -> str | None:
        """Commit exactly these texts for these paths, whatever the working
        files hold now (a hand edit saved meanwhile stays pending, for its own
        commit). Built in a temporary index, so nothing else staged goes in."""
        import tempfile

        rels = {self._rel(p): text for p, text in contents.items()}
        if not rels:
            return None
        fd, tmp_index = tempfile.mkstemp(prefix="heartcompass-index.", dir=self.repo.git_dir)
        os.close(fd)
        os.unlink(tmp_index)  # git wants to create it
        env = {**os.environ, **self._env(), "GIT_OPTIONAL_LOCKS": "0", "GIT_INDEX_FILE": tmp_index}
        try:
            git_ = lambda *args, **kw: self.repo.git.execute(["git", *BASE_OPTIONS, *args], env=env, **kw)  # noqa: E731
            has_head = self.head() is not None
            if has_head:
                git_("read-tree", "HEAD")
            for rel, text in sorted(rels.items()):
                sha = subprocess.run(["git", "hash-object", "-w", "--no-filters", "--stdin"], cwd=self.root,
                                     env=env, input=text.encode("utf-8"), capture_output=True,
                                     check=True).stdout.decode().strip()
                mode = (git_("ls-files", "-s", "--", rel).split(" ", 1)[0] or "100644") if has_head else "100644"
                git_("update-index", "--add", "--cacheinfo", f"{mode},{sha},{rel}")
            if has_head and not git_("diff", "--cached", "--name-only", "HEAD", "--", *rels).strip():
                return None
            message = subject + (f"\n\n{body.strip()}\n" if body.strip() else "")
            msg_fd, msg_path = tempfile.mkstemp(prefix="heartcompass-msg.", dir=self.repo.git_dir)
            with os.fdopen(msg_fd, "w", encoding="utf-8") as fh:
                fh.write(message)  # a file, not -m: a long trailer must not hit the argument limit
            try:
                git_("commit", *self._verify(), "-q", "-F", msg_path)
            finally:
                os.unlink(msg_path)
            for rel in rels:  # the real index follows HEAD for these paths, not the working file
                entry = git_("ls-files", "-s", "--", rel).split()
                self._git("update-index", "--add", "--cacheinfo", f"{entry[0]},{entry[1]},{rel}")
        except (GitCommandError, subprocess.CalledProcessError) as exc:
            detail = str(exc.stderr or "").strip().replace("stderr: ", "").strip("'\n ")
            raise GitError(f"git commit failed: {detail or exc}") from None
        finally:
            if os.path.exists(tmp_index):
                os.unlink(tmp_index)
        return self.head()

    def roll_back(self, paths: list[Path | str]) -> None:
        """Put paths back as they are at HEAD, after a commit of ours failed:
        tracked files are checked out, files we created are removed."""
        rels = sorted({self._rel(p) for p in paths})
        if not rels:
            return
        self.unstage(rels)
        has_head = self.head() is not None
        tracked = [f for f in self._git("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *rels,
                                        strip_newline_in_stdout=False).split("\0") if f] if has_head else []
        created = [f for f in self._git("ls-files", "-z", "--others", "--exclude-standard", "--", *rels,
                                        strip_newline_in_stdout=False).split("\0")
                   if f and not Path(f).name.startswith(".")]  # an editor's swap file is not ours
        for rel in created:
            (self.root / rel).unlink(missing_ok=True)
        from heartcompass.atomic import write_atomic

        for rel in tracked:  # from the commit itself, not through the index (it may be locked)
            text = self.file_at("HEAD", rel)
            path = self.root / rel
            if text is not None and (not path.is_file() or path.read_text(encoding="utf-8") != text):
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, text)
        for rel in sorted(rels, key=len, reverse=True):  # folders we created and emptied
            path = self.root / rel
            for folder in sorted((p for p in path.rglob("*") if p.is_dir()), key=lambda p: len(p.parts),
                                 reverse=True) if path.is_dir() else []:
                if not any(folder.iterdir()):
                    folder.rmdir()
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()

    def _verify(self) -> list[str]:
        return [] if self.hooks() else ["--no-verify"]

    def unstage(self, rels: list[str]) -> None:
        try:
            if self.head() is not None:
                self._git("reset", "-q", "HEAD", "--", *rels)
            else:
                self._git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rels)
        except GitError:
            pass

    def _refuse_links(self, rels: list[str]) -> None:
        """A symbolic link is never committed (see paths.py): sync would
        spread a link to outside the workspace. Unstage it and say why."""
        raw = self._git("diff", "--cached", "--raw", "-z", "--no-renames", "--", *rels,
                        strip_newline_in_stdout=False)
        parts = raw.split("\0")
        links = [parts[i + 1] for i in range(0, len(parts) - 1, 2)
                 if parts[i].startswith(":") and parts[i].split()[1] == "120000"]
        if links:
            from heartcompass import paths
            from heartcompass.errors import UnsafePathError

            self._git("reset", "-q", "--", *links)
            target, outside = paths.describe_link(self.root / links[0], self.root)
            where = "outside the workspace" if outside else "inside the workspace"
            raise UnsafePathError(self.root / links[0], f"is a symbolic link to {target} ({where}); HeartCompass "
                                  "commits no link (sync would spread it), so nothing was committed",
                                  hint=paths.FIX)

    def move(self, src: Path, dst: Path) -> None:
        self._git("mv", self._rel(src), self._rel(dst))

    def revert(self, sha: str, subject: str, body: str) -> str:
        try:
            self._git("revert", "--no-commit", sha)
        except GitError as exc:
            try:
                self._git("revert", "--abort")
            except GitError:
                pass
            raise GitError(f"That change cannot be undone cleanly: later changes touch the same lines ({exc}).",
                           "Edit the files by hand instead; 'heartcompass restore' brings back one file.") from None
        try:
            self._git("commit", *self._verify(), "-q", "-m", f"{subject}\n\n{body.strip()}\n")
        except GitError:
            try:  # nothing half-done: the files go back to how they were
                self._git("revert", "--abort")
            except GitError:
                self._git("reset", "-q", "--merge")
            raise
        return self.head() or ""

    # -- reading ----------------------------------------------------------
    def head(self) -> str | None:
        try:
            return self.repo.head.commit.hexsha
        except GIT_ERRORS:
            return None

    def resolve(self, rev: str) -> str:
        try:
            return self.repo.commit(rev).hexsha
        except GIT_ERRORS:
            raise GitError(f"No commit {rev!r} in this workspace.", "See 'heartcompass log' for commit ids.") from None

    def commit_before(self, when: str) -> str:
        """The last commit at or before a date or datetime (for --as-of)."""
        sha = self._git("rev-list", "-1", f"--before={when}", "HEAD").strip()
        if not sha:
            raise GitError(f"The workspace has no commit from {when} or before.")
        return sha

    def status(self, paths: list[Path | str] | None = None) -> list[tuple[str, str]]:
        """(code, path) for uncommitted changes, untracked files included."""
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        out = self._git(*args, strip_newline_in_stdout=False)
        items, parts = [], out.split("\0")
        i = 0
        while i < len(parts):
            entry = parts[i]
            if len(entry) > 3:
                code, path = entry[:2], entry[3:]
                items.append((code.strip() or code, path))
                if code[0] in "RC":
                    i += 1  # porcelain -z puts the rename source next
            i += 1
        return items

    def get(self, sha: str) -> Commit:
        return self.log(None, 1, rev=sha)[0]

    def log(self, paths: list[Path | str] | None = None, limit: int = 50, rev: str = "HEAD") -> list[Commit]:
        if self.head() is None:
            return []
        sep, end = "\x1f", "\x1e"
        args = ["log", f"-n{limit}", "--name-only", f"--format={end}%H{sep}%aI{sep}%an{sep}%s{sep}%b{sep}", rev]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        out = self._git(*args)
        commits = []
        for chunk in out.split(end)[1:]:
            sha, date, author, subject, body, files = chunk.split(sep, 5)
            commits.append(Commit(sha, date, author, subject, body.strip(),
                                  [f for f in files.strip().splitlines() if f]))
        return commits

    def diff(self, rev: str | None, paths: list[Path | str]) -> str:
        rels = [self._rel(p) for p in paths]
        if rev is None:
            return self._git("diff", "HEAD", "--", *rels) if self.head() else ""
        return self._git("diff", rev, "--", *rels)

    def show(self, rev: str, paths: list[Path | str] | None = None) -> str:
        args = ["show", "--format=%h %s%n", rev]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        return self._git(*args)

    def file_at(self, rev: str, path: Path | str) -> str | None:
        try:
            return self._git("show", f"{rev}:{self._rel(path)}", strip_newline_in_stdout=False)
        except GitError:
            return None

    def files_at(self, rev: str, folder: Path | str) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", rev, "--", self._rel(folder))
        return [line for line in out.splitlines() if line]

    def blob_ids(self, paths: list[Path | str]) -> dict[str, str]:
        """{path: blob id} of these files at HEAD (absent ones left out)."""
        if self.head() is None:
            return {}
        out = self._git("ls-tree", "-z", "HEAD", "--", *[self._rel(p) for p in paths], strip_newline_in_stdout=False)
        ids = {}
        for item in out.split("\0"):
            if "\t" in item:
                info, rel = item.split("\t", 1)
                ids[rel] = info.split()[2]
        return ids

    def last_commit(self, paths: list[Path | str]) -> str | None:
        """The newest commit that touched any of these paths."""
        if self.head() is None:
            return None
        return self._git("log", "-1", "--format=%H", "--", *[self._rel(p) for p in paths]).strip() or None

    def blame(self, path: Path | str) -> list[tuple[str, str]]:
        """(subject of the commit that last changed it, text) for each line
        of the committed file; [] when it is not committed."""
        if self.head() is None:
            return []
        try:
            out = self._git("blame", "--porcelain", "HEAD", "--", self._rel(path), strip_newline_in_stdout=False)
        except GitError:
            return []
        subjects: dict[str, str] = {}
        lines: list[tuple[str, str]] = []
        sha = ""
        for line in out.splitlines():
            if line.startswith("\t"):
                lines.append((subjects.get(sha, ""), line[1:]))
            elif re.match(r"^[0-9a-f]{40} \d+ \d+", line):
                sha = line[:40]
            elif line.startswith("summary "):
                subjects[sha] = line[len("summary "):]
        return lines

    # -- remotes ------------------------------------------------------------
    def branch(self) -> str:
        return self._git("rev-parse", "--abbrev-ref", "HEAD").strip()

    def remotes(self) -> list[str]:
        return self._git("remote").split()

    def _network(self, *args: str) -> str:
        """A fetch or push: bounded in time, so a remote that never answers
        cannot hang the command (and the workspace lock with it)."""
        try:
            return self._git(*args, options=NETWORK_OPTIONS, kill_after_timeout=NETWORK_TIMEOUT)
        except GitError as exc:
            if "did not complete in" in exc.message or "Timeout" in exc.message:
                raise GitError(f"git {args[0]} gave up: the remote did not answer within {NETWORK_TIMEOUT:g} s.",
                               "Check the remote's address and your connection (git remote -v), then sync again. "
                               "Nothing was lost: your commits are all here.") from None
            raise

    def pull_rebase(self, remote: str, branch: str) -> list[str]:
        """Fetch, then rebase onto what was fetched. Returns the conflicted
        files ([] when clean); on a conflict the rebase is left in progress
        for the user to resolve (marked as ours, for `sync --continue`)."""
        if not self._network("ls-remote", "--heads", remote, branch).strip():
            return []  # the remote has no such branch yet: nothing to pull
        self._network("fetch", "-q", remote, branch)
        try:
            self._git("rebase", "-q", "FETCH_HEAD")
        except GitError:
            conflicted = self.conflicted()
            if conflicted:
                (self.git_dir / SYNC_MARK).write_text(f"{remote} {branch}\n", encoding="utf-8")
                return conflicted
            raise
        return []

    def conflicted(self) -> list[str]:
        out = self._git("diff", "--name-only", "-z", "--diff-filter=U", strip_newline_in_stdout=False)
        return [p for p in out.split("\0") if p]

    def stage(self, rels: list[str]) -> None:
        self._git("add", "--", *rels)

    def rebase_in_progress(self) -> bool:
        return (self.git_dir / "rebase-merge").is_dir() or (self.git_dir / "rebase-apply").is_dir()

    def rebase_continue(self) -> list[str]:
        """`git rebase --continue` after the user fixed the files: [] when done,
        else the files still (or newly) in conflict."""
        left = self.conflicted()
        if left:
            return left
        try:
            self._git("rebase", "--continue", options=("-c", "core.editor=true"))
        except GitError:
            left = self.conflicted()
            if left:
                return left
            raise
        return []

    def rebase_abort(self) -> None:
        self._git("rebase", "--abort")
        self.clear_sync_mark()

    def clear_sync_mark(self) -> None:
        (self.git_dir / SYNC_MARK).unlink(missing_ok=True)

    def push(self, remote: str, branch: str) -> None:
        self._network("push", "-u", remote, f"HEAD:{branch}")

    def parents(self, sha: str) -> int:
        return len(self.repo.commit(sha).parents)

    def _rel(self, path: Path | str) -> str:
        p = Path(path)
        return Path(os.path.relpath(p, self.root)).as_posix() if p.is_absolute() else p.as_posix()


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
