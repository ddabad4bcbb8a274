"""What the parts of gitrepo.WorkspaceGit (gitstate, gitremote, githistory,
gitrollback: mixins) use of it and of each other, declared once. Each part subclasses
GitBase, so its uses of `self` are checked, and a WorkspaceGit that lost one
of these would fail the type check. Imports no git."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol


class GitBase(Protocol):
    root: Path
    hooks: Callable[[], bool]  # run the user's commit hooks? (the git.hooks setting)

    @property
    def git_dir(self) -> Path: ...

    @property
    def common_dir(self) -> Path: ...

    def _git(self, *args: str, options: tuple[str, ...] = (), **kwargs: Any) -> str:
        """The git command line in the workspace; a failure is a GitError."""
        ...

    def _rel(self, path: Path | str) -> str: ...

    def reading_options(self) -> tuple[str, ...]:
        """git's options for a command that only reads: none of the user's programs run."""
        ...

    def head(self) -> str | None: ...

    def _verify(self) -> list[str]:
        """git commit's options for the git.hooks setting."""
        ...

    # gitstate's, used by gitremote and gitrollback
    def conflicted(self) -> list[str]: ...

    def clear_sync_mark(self) -> None: ...

    # githistory's, used by gitrollback
    def file_at(self, rev: str, path: Path | str) -> str | None: ...
