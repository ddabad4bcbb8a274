"""The one module that owns git (through GitPython).

Every change HeartCompass makes is one commit of exactly the files it
touched. Commits carry the user's identity when git has one, else a
HeartCompass identity, so they work on fresh machines and in CI.

WorkspaceGit is this module's class plus four parts, each its own module
that imports no git: gitstate.py (may a commit be made now?),
gitremote.py (pull, push, a sync's rebase), githistory.py (log, diff,
blame, status: what the history says) and gitrollback.py (files put back
after a failed commit; revert). gittree.py reads and writes tree objects.
gitplain.py asks git alone (no GitPython) what a chat's start needs, with
the options and environment used here."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Sequence

import git
from git.exc import BadName, GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from heartcompass.errors import GitError
from heartcompass.store import gittree
from heartcompass.store.githistory import History
from heartcompass.store.gitindex import HeldIndex
from heartcompass.store.gitplain import BASE_OPTIONS, PROGRAM_KEYS, REDIRECTING, program_options
from heartcompass.store.gitremote import Remote
from heartcompass.store.gitrollback import RevertConflict, RollBack  # noqa: F401 (RevertConflict: audit's)
from heartcompass.store.gitstate import RepoState

FALLBACK_NAME = "HeartCompass"


class _HelperGit(git.Git):
    """GitPython's long-lived helpers (`git cat-file --batch...`, reused
    for every object read) run in a session of their own: a Ctrl-C at the
    terminal reaches its whole foreground group, and a helper it killed
    would fail the next commit with a broken pipe (a chat interrupted once
    could then not commit its log). Ctrl-C still stops HeartCompass itself."""

    def execute(self, command, *args, **kwargs):
        if kwargs.get("as_process"):
            kwargs.setdefault("start_new_session", True)
        return super().execute(command, *args, **kwargs)


class _Repo(git.Repo):
    GitCommandWrapperType = _HelperGit
FALLBACK_EMAIL = "heartcompass@localhost"
GIT_ERRORS = (GitCommandError, BadName, InvalidGitRepositoryError, NoSuchPathError, ValueError)
# The user's global ignore file (core.excludesFile) is not read when we add our
# own files: a rule such as "*.md" there must not leave a person uncommitted.
OWN_IGNORES = ("-c", "core.excludesFile=")


class WorkspaceGit(RepoState, Remote, History, RollBack):
    def __init__(self, root: Path, hooks: Callable[[], bool] = lambda: True):
        self.root = Path(root).resolve()
        for name in REDIRECTING:  # GitPython's own helpers read os.environ too, so not only our env= calls
            os.environ.pop(name, None)
        self._repo: git.Repo | None = None
        self._reading: tuple[str, ...] | None = None
        self._identity_known: bool | None = None
        self.hooks = hooks  # run the user's commit hooks? (the git.hooks setting)

    # -- setup ------------------------------------------------------------
    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            try:
                self._repo = _Repo(self.root)
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
            self._repo = _Repo.init(self.root, initial_branch="main")
        except TypeError:  # very old git
            self._repo = _Repo.init(self.root)

    def _env(self) -> dict[str, str]:
        reader = self.repo.config_reader()
        env: dict[str, str] = {}
        name = os.environ.get("GIT_AUTHOR_NAME") or reader.get_value("user", "name", default="")
        email = os.environ.get("GIT_AUTHOR_EMAIL") or reader.get_value("user", "email", default="")
        if name and email and not self._git_finds_identity():
            name = email = ""  # GitPython read a config git itself does not (HOME unset: ~ from the passwd entry)
        # Where a name is missing, ours stands in, but never for one the environment gives (an author
        # set in GIT_AUTHOR_* stays the author when only the committer is unknown).
        for part, have, fallback in (("NAME", name, FALLBACK_NAME), ("EMAIL", email, FALLBACK_EMAIL)):
            if not have:
                for who in ("AUTHOR", "COMMITTER"):
                    env[f"GIT_{who}_{part}"] = os.environ.get(f"GIT_{who}_{part}") or fallback
        return env

    def _git_finds_identity(self) -> bool:
        """Whether git, as it runs for us, knows who commits (asked once)."""
        if self._identity_known is None:
            try:
                for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
                    self.repo.git.execute(["git", "var", var], env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
                self._identity_known = True
            except GitCommandError:
                self._identity_known = False
        return self._identity_known

    def _git(self, *args: str, options: tuple[str, ...] = (), **kwargs) -> str:
        # No optional index refresh by read-only commands (status): they never hold index.lock when a commit needs it.
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

    def reading_options(self) -> tuple[str, ...]:
        """git's options for a command that only reads (log, diff, doctor...):
        each program the user's config names (filters, textconv, external
        diff) set to nothing. Read once per process. (No reading command runs
        a hook: doctor names them, and only commits run them, as git.hooks says.)"""
        if self._reading is None:
            try:
                out = self._git("config", "-z", "--name-only", "--get-regexp", PROGRAM_KEYS,
                                strip_newline_in_stdout=False)
            except GitError:  # none is set (git config exits 1)
                out = ""
            self._reading = program_options(out)
        return self._reading

    @property
    def git_dir(self) -> Path:
        return Path(self.repo.git_dir)

    @property
    def common_dir(self) -> Path:
        """Where the objects, branches and hooks are: the git dir, or for a
        workspace that is a `git worktree`, the main repository's."""
        return Path(self.repo.common_dir).resolve()

    # -- writing ----------------------------------------------------------
    def commit(self, paths: Sequence[Path | str], subject: str, body: str = "") -> str | None:
        """Commit exactly `paths` (additions, changes, deletions). Returns the
        new sha, or None when those paths had nothing to commit."""
        rels = sorted({self._rel(p) for p in paths})
        if not rels:
            return None
        present = [r for r in rels if os.path.lexists(self.root / r)]  # a link to nothing is a link all the same
        gone = [r for r in rels if r not in present]
        if present:  # the workspace's own .gitignore decides, not a global rule such as "*.md"
            self._git("add", "-A", "--", *present, options=OWN_IGNORES)
        if gone:  # deleted or moved away: stage the removal
            self._git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *gone)
        self._refuse_links(rels)
        staged = self._git("diff", "--cached", "--name-only", "--", *rels)
        if not staged.strip():
            return None
        message = _message(subject, body)
        import tempfile

        # From a file, not -m: an import of years of days has a body longer than one argument may be.
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", prefix="heartcompass-msg.", dir=self.git_dir) as f:
            f.write(message)
            f.flush()
            try:
                # Only these paths, the first commit too: what the user staged by hand stays staged.
                self._git("commit", *self._verify(), "-q", "-F", f.name, "--", *rels)
            except GitError:
                self.unstage(rels)  # the files stay as they are, the index as it was
                raise
        return self.head()

    def commit_contents(self, contents: dict[Path | str, str], subject: str, body: str = "") -> str | None:
        """Commit exactly these texts for these paths, whatever the working
        files hold now (a hand edit saved meanwhile stays pending, for its own
        commit). Built from objects (or, when a commit hook of the user's must
        run, in a temporary index), so nothing else staged goes in. Returns
        the new sha, or None when HEAD already holds these texts."""
        import tempfile

        from gitdb.base import IStream

        rels = {self._rel(p): text.encode("utf-8") for p, text in contents.items()}
        if not rels:
            return None
        fd, tmp_index = tempfile.mkstemp(prefix="heartcompass-index.", dir=self.repo.git_dir)
        os.close(fd)
        os.unlink(tmp_index)  # git wants to create it
        env = {**os.environ, **self._env(), "GIT_OPTIONAL_LOCKS": "0", "GIT_INDEX_FILE": tmp_index}

        def git_(*args: str, stdin: str | None = None, index: str | None = tmp_index) -> str:
            run_env = {**env, "GIT_INDEX_FILE": index} if index else {k: v for k, v in env.items()
                                                                       if k != "GIT_INDEX_FILE"}
            done = subprocess.run(["git", *BASE_OPTIONS, *args], cwd=self.root, env=run_env, input=stdin,
                                  capture_output=True, text=True, encoding="utf-8")
            if done.returncode:
                # git's own words (a hook's among them), never "a stale index.lock": these gits use indexes
                # of their own, and the real index's lock is ours (_held_index) while a hook runs.
                detail = (done.stderr or done.stdout).strip()
                raise GitError(f"git {args[0]} failed: {detail}")
            return done.stdout

        head = self.head()
        if head is not None and not self._commit_hooks() and not self._signs():
            return self._commit_tree_with(head, rels, subject, body, git_)
        try:
            has_head = head is not None
            modes: dict[str, str] = {}
            before: dict[str, str] = {}
            if has_head:
                # HEAD's tree, with the real index's stat data where it matches (else
                # the commit would re-read every file of the workspace)
                real_index = Path(self.repo.git_dir) / "index"
                if real_index.exists():
                    shutil.copyfile(real_index, tmp_index)
                git_("read-tree", "-m", "HEAD")
                for line in git_("ls-files", "-s", "-z", "--", *rels).split("\0"):
                    if "\t" in line:
                        info, rel = line.split("\t", 1)
                        modes[rel], before[rel] = info.split()[0], info.split()[1]
            entries = {}
            for rel, data in sorted(rels.items()):  # the blobs, written by us: no subprocess per file
                sha = self.repo.odb.store(IStream("blob", len(data), io.BytesIO(data))).hexsha
                sha = sha.decode() if isinstance(sha, bytes) else sha
                entries[rel] = (modes.get(rel, "100644"), sha)
            if has_head and all(before.get(rel) == sha for rel, (_, sha) in entries.items()):
                return None
            info = "".join(f"{mode} {sha}\t{rel}\n" for rel, (mode, sha) in entries.items())
            git_("update-index", "--add", "--index-info", stdin=info)
            message = _message(subject, body)
            with self._held_index() as held:  # the real index follows HEAD for these paths, not the working file
                git_("update-index", "--add", "--index-info", stdin=info, index=str(held.copy))
                # stdin, not -m: a long trailer must not hit the argument limit
                git_("commit", *self._verify(), "-q", "-F", "-", stdin=message)
        finally:
            if os.path.exists(tmp_index):
                os.unlink(tmp_index)
        return self.head()

    def _held_index(self) -> HeldIndex:
        """index.lock taken before HEAD moves, so the real index takes the
        committed blobs with it (else it would hold the old ones, and a plain
        `git commit` would take the change back): see gitindex.py."""
        return HeldIndex(self.git_dir, self.index_lock_error)

    def _commit_hooks(self) -> bool:
        """Would `git commit` run a hook of the user's here?"""
        return bool(self.commit_hooks())

    def commit_hooks(self) -> list[str]:
        """The user's hooks our commits run (none when git.hooks is false); nothing is run to know."""
        if not self.hooks():
            return []
        custom = self.repo.config_reader().get_value("core", "hooksPath", default="")
        folder = (self.root / os.path.expanduser(str(custom))) if custom else self.common_dir / "hooks"
        return [name for name in ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
                if os.access(folder / name, os.X_OK)]

    def _signs(self) -> bool:
        """Does the user sign every commit (commit.gpgsign)? Then `git commit`
        makes ours too: commit-tree would leave them unsigned, or a key that
        is missing unreported."""
        value = self.repo.config_reader().get_value("commit", "gpgsign", default=False)
        # GitPython reads true/yes/on as True and a number as an int; git takes any number but 0 for true
        return value is True or (type(value) is int and value != 0)

    def _commit_tree_with(self, head: str, rels: dict[str, bytes], subject: str, body: str, git_) -> str | None:
        """commit_contents without an index (no hook to run): HEAD's tree with
        these blobs replaced, written as objects; cost independent of the
        workspace's size. The branch moves only if it is still at `head`."""
        from gitdb.base import IStream

        from gitdb import LooseObjectDB

        loose = LooseObjectDB(str(self.common_dir / "objects"))  # in-process: no git per object

        def store(kind: str, data: bytes) -> bytes:
            return loose.store(IStream(kind, len(data), io.BytesIO(data))).binsha

        changes = {tuple(rel.split("/")): store("blob", data) for rel, data in rels.items()}
        old_root = self.repo.commit(head).tree.binsha
        new_root, blobs = gittree.tree_with(self._read_tree, old_root, changes, store)
        if new_root == old_root:
            return None
        message = _message(subject, body)
        new = git_("commit-tree", new_root.hex(), "-p", head, "-F", "-", stdin=message, index=None).strip()
        info = "".join(f"{mode:o} {sha.hex()}\t{rel}\n" for rel, (mode, sha) in blobs.items())
        with self._held_index() as held:
            git_("update-index", "--add", "--index-info", stdin=info, index=str(held.copy))
            git_("update-ref", "-m", f"commit: {subject}", "HEAD", new, head, index=None)
        return new

    def _verify(self) -> list[str]:
        return [] if self.hooks() else ["--no-verify"]

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

    # -- reading ----------------------------------------------------------
    def _read_tree(self, tree: bytes) -> gittree.Entries:
        """{name: (mode, id)} of a tree object (read through git's object stream)."""
        return gittree.entries(self.repo.odb.stream(tree).read())

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

    def blob_ids(self, paths: Sequence[Path | str]) -> dict[str, str]:
        """{path: blob id} of these files at HEAD (absent ones left out), read
        in-process: no git command per call."""
        head = self.head()
        if head is None:
            return {}
        root = self.repo.commit(head).tree.binsha
        trees: dict[str, dict[str, tuple[int, bytes]]] = {}
        ids = {}
        for rel in (self._rel(p) for p in paths):
            *folders, name = rel.split("/")
            entries, key = None, ""
            try:
                entries = trees.get(key) or trees.setdefault(key, self._read_tree(root))
                for folder in folders:
                    mode, sha = entries[folder]
                    key = f"{key}{folder}/"
                    entries = trees.get(key) or trees.setdefault(key, self._read_tree(sha))
                mode, sha = entries[name]
            except (KeyError, ValueError):
                continue
            if mode != 0o040000:
                ids[rel] = sha.hex()
        return ids

    def parents(self, sha: str) -> int:
        return len(self.repo.commit(sha).parents)

    def _rel(self, path: Path | str) -> str:
        p = Path(path)
        return Path(os.path.relpath(p, self.root)).as_posix() if p.is_absolute() else p.as_posix()


def _message(subject: str, body: str) -> str:
    """A commit message as `git commit` writes one: the subject's line, then a blank line and the body if any."""
    return subject + "\n" + (f"\n{body.strip()}\n" if body.strip() else "")
