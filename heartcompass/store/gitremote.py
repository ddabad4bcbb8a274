"""`heartcompass sync`'s git: pull with rebase and push to the user's own
remote, bounded in time, and a rebase stopped on a conflict carried on or
abandoned. A part of gitrepo.WorkspaceGit (a mixin) that runs git through
WorkspaceGit._git, so this module imports no git. Only gitrepo.py imports it."""

from __future__ import annotations

import os

from heartcompass.errors import GitError
from heartcompass.store.gitstate import SYNC_MARK

NETWORK_TIMEOUT = 120.0  # seconds a fetch or push may take before it is killed ($HEARTCOMPASS_GIT_TIMEOUT)
NETWORK_OPTIONS = ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30")


class Remote:
    """Needs `git_dir`, `_git`, `conflicted` and `clear_sync_mark` from WorkspaceGit."""

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
            conflicted = self.conflicted()
            if conflicted:
                (self.git_dir / SYNC_MARK).write_text(f"{remote} {branch}\n", encoding="utf-8")
                return conflicted
            raise
        return []

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


def network_timeout() -> float:
    try:
        value = float(os.environ.get("HEARTCOMPASS_GIT_TIMEOUT") or NETWORK_TIMEOUT)
    except ValueError:
        value = NETWORK_TIMEOUT
    return value if 0 < value < 86400 else NETWORK_TIMEOUT
