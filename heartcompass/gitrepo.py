"""The one module that owns git (through GitPython).

Every change HeartCompass makes is one commit of exactly the files it
touched. Commits carry the user's identity when git has one, else a
HeartCompass identity, so they work on fresh machines and in CI."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import git
from git.exc import BadName, GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from heartcompass.errors import GitError

FALLBACK_NAME = "HeartCompass"
FALLBACK_EMAIL = "heartcompass@localhost"
GIT_ERRORS = (GitCommandError, BadName, InvalidGitRepositoryError, NoSuchPathError, ValueError)


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
    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self._repo: git.Repo | None = None

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

    def _git(self, *args: str, **kwargs) -> str:
        try:
            return self.repo.git.execute(["git", *args], env={**os.environ, **self._env()}, **kwargs)
        except GitCommandError as exc:
            detail = (exc.stderr or exc.stdout or "").strip().replace("stderr: ", "").strip("'\n ")
            raise GitError(f"git {args[0]} failed: {detail or exc}") from None

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
        self._git("commit", "--no-verify", "-q", "-m", message, *(["--"] + rels if has_head else []))
        return self.head()

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
        self._git("commit", "--no-verify", "-q", "-m", f"{subject}\n\n{body.strip()}\n")
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

    def pull_rebase(self, remote: str, branch: str) -> list[str]:
        """Pull with rebase. Returns the conflicted files ([] when clean); on a
        conflict the rebase is left in progress for the user to resolve."""
        if not self._git("ls-remote", "--heads", remote, branch).strip():
            return []  # the remote has no such branch yet: nothing to pull
        try:
            self._git("pull", "--rebase", "--no-edit", remote, branch)
        except GitError:
            conflicted = self._git("diff", "--name-only", "--diff-filter=U").split()
            if conflicted:
                return conflicted
            raise
        return []

    def push(self, remote: str, branch: str) -> None:
        self._git("push", "-u", remote, f"HEAD:{branch}")

    def parents(self, sha: str) -> int:
        return len(self.repo.commit(sha).parents)

    def _rel(self, path: Path | str) -> str:
        p = Path(path)
        return Path(os.path.relpath(p, self.root)).as_posix() if p.is_absolute() else p.as_posix()
