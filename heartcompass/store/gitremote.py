"""`heartcompass sync`'s git: pull with rebase and push to the user's own
remote, bounded in time, and a rebase stopped on a conflict carried on or
abandoned. A part of gitrepo.WorkspaceGit (a mixin) that runs git through
WorkspaceGit._git, so this module imports no git. Only gitrepo.py imports it."""

from __future__ import annotations

import os
import re

from heartcompass.errors import GitError
from heartcompass.store.gitbase import GitBase
from heartcompass.store.gitstate import SYNC_MARK

NETWORK_TIMEOUT = 120.0  # seconds a fetch or push may take before it is killed ($HEARTCOMPASS_GIT_TIMEOUT)
NETWORK_OPTIONS = ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30")
_LOG = re.compile(r"people/[^/.][^/]*/logs/\d{4}-\d{2}-\d{2}\.md")  # a day's log: merged as a union


class Remote(GitBase):
    """Needs `git_dir`, `_git`, `conflicted` and `clear_sync_mark` from WorkspaceGit (see GitBase)."""

    def branch(self) -> str:
        return self._git("rev-parse", "--abbrev-ref", "HEAD").strip()

    def remotes(self) -> list[str]:
        return self._git("remote").split()

    def _network(self, *args: str) -> str:
        """A fetch or push: bounded in time, so a remote that never answers
        cannot hang the command (and the workspace lock with it)."""
        timeout = network_timeout()
        try:
            return self._git(*args, options=NETWORK_OPTIONS, kill_after_timeout=timeout)
        except GitError as exc:
            if "did not complete in" in exc.message or "Timeout" in exc.message:
                raise GitError(f"git {args[0]} gave up: the remote did not answer within {timeout:g} s.",
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
            if not self.conflicted():
                raise
            conflicted = self._merge_logs()
            if conflicted:
                (self.git_dir / SYNC_MARK).write_text(f"{remote} {branch}\n", encoding="utf-8")
                return conflicted
        return []

    def _merge_logs(self) -> list[str]:
        """A rebase stopped on conflicts: each day's log both devices appended
        to is merged as a union of entries (formats/logmerge) and the rebase
        goes on. Returns what is left for the user (a real edit, other files);
        raises when the rebase stopped for another reason."""
        from heartcompass.atomic import write_atomic
        from heartcompass.formats.logmerge import union

        while True:
            conflicted, left = self.conflicted(), []
            for rel in conflicted:
                merged = None
                if _LOG.fullmatch(rel):
                    ours, theirs = self._stage(2, rel), self._stage(3, rel)  # rebasing: 2 is the remote's
                    if ours is not None and theirs is not None:
                        merged = union(self._stage(1, rel), ours, theirs, rel)
                if merged is None:
                    left.append(rel)
                    continue
                write_atomic(self.root / rel, merged)
                self._git("add", "--", rel)
            if left:
                return left
            try:
                self._git("rebase", "--continue", options=("-c", "core.editor=true"))
                return []
            except GitError:
                if not self.conflicted():
                    raise
                # the next commit stopped too: merge its logs the same way

    def _stage(self, n: int, rel: str) -> str | None:
        """A conflicted file's version in the index: 1 the common one, 2 and 3 the two sides."""
        try:
            return self._git("show", f":{n}:{rel}", strip_newline_in_stdout=False)
        except GitError:
            return None

    def changed_in_worktree(self) -> tuple[list[str], list[str]]:
        """(tracked files whose working copy differs from the index, untracked
        files): what was changed since a rebase stopped, conflicted files included."""
        changed = self._git("diff", "--name-only", "-z", strip_newline_in_stdout=False)
        new = self._git("ls-files", "--others", "--exclude-standard", "-z", strip_newline_in_stdout=False)
        return [p for p in changed.split("\0") if p], [p for p in new.split("\0") if p]

    def stage(self, rels: list[str]) -> None:
        self._git("add", "--", *rels)

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

    def push(self, remote: str, branch: str) -> None:
        self._network("push", "-u", remote, f"HEAD:{branch}")
        self._point_head(remote, branch)

    def _point_head(self, remote: str, branch: str) -> None:
        """A bare remote made with plain `git init --bare` has HEAD on
        `master` while we push `main`: a `git clone` of it then checks out
        nothing. A remote that is a folder here gets HEAD on the branch we
        push when its own HEAD names no branch it has (a hosted remote, e.g.
        GitHub, takes the first branch pushed to it by itself)."""
        url = self._git("remote", "get-url", remote).strip()
        folder = url[len("file://"):] if url.startswith("file://") else url
        if not (os.path.isabs(folder) or folder.startswith(".")):
            return
        folder = os.path.join(self.root, folder)  # a relative one is relative to the workspace, as git reads it
        if not os.path.isfile(os.path.join(folder, "HEAD")):
            return
        there = ("--git-dir", folder)
        try:
            head = self._git("symbolic-ref", "-q", "HEAD", options=there).strip()
            self._git("rev-parse", "--verify", "-q", head, options=there)
        except GitError:  # HEAD names a branch the remote does not have
            self._git("symbolic-ref", "HEAD", f"refs/heads/{branch}", options=there)

    def adopt(self, remote: str, url: str) -> str:
        """This new, empty repository takes remote's history and checks out
        its branch (its HEAD's, else main, else the only one). Returns it."""
        self._git("remote", "add", "--", remote, url)
        self._network("fetch", "-q", remote)
        branches = [ref.split("/", 3)[3] for ref in
                    self._git("for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/").split()
                    if not ref.endswith("/HEAD")]
        listed = self._network("ls-remote", "--symref", remote, "HEAD")
        named = re.match(r"ref: refs/heads/(\S+)\s+HEAD", listed)
        branch = next((b for b in ([named[1]] if named else []) + ["main", "master"] if b in branches),
                      branches[0] if len(branches) == 1 else None)
        if branch is None:
            raise GitError(f"{url} has no HeartCompass workspace to copy: "
                           + (f"its branches are {', '.join(branches)}, and none is main." if branches
                              else "it has no commits yet."),
                           "Run 'heartcompass sync' on the device that has the workspace first.")
        self._git("checkout", "-q", "-B", branch, "--track", f"{remote}/{branch}")
        return branch


def network_timeout() -> float:
    try:
        value = float(os.environ.get("HEARTCOMPASS_GIT_TIMEOUT") or NETWORK_TIMEOUT)
    except ValueError:
        value = NETWORK_TIMEOUT
    return value if 0 < value < 86400 else NETWORK_TIMEOUT
