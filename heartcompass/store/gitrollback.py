"""Putting files back, a part of WorkspaceGit (see gitrepo.py): after a
commit of ours failed (`roll_back`: tracked files as they are at HEAD,
files we created removed, logs never touched; `unstage`), and as a new
commit that takes an old one back (`revert`, for undo). Imports no git."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from heartcompass.errors import GitError
from heartcompass.store.gitbase import GitBase
from heartcompass.store.gitstate import UNDO_MARK


class RevertConflict(GitError):
    """Taking a commit back would conflict with later changes to these
    files; the revert was abandoned, nothing changed."""

    def __init__(self, files: list[str]):
        super().__init__(f"later changes touch the same lines of {', '.join(files)}")
        self.files = files


class RollBack(GitBase):
    """Needs `root`, `git_dir`, `_git`, `head`, `file_at`, `_rel`, `_verify` and `conflicted` from WorkspaceGit
    (see GitBase)."""

    def roll_back(self, paths: Sequence[Path | str]) -> None:
        """Put paths back as they are at HEAD, after a commit of ours failed:
        tracked files are checked out, files we created are removed."""
        rels = sorted({self._rel(p) for p in paths})
        if not rels:
            return
        self.unstage(rels)
        has_head = self.head() is not None
        tracked = [f for f in self._git("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *rels,
                                        strip_newline_in_stdout=False).split("\0") if f] if has_head else []
        # Files not in HEAD are ours (staged or not: the index may be locked); an editor's swap or
        # temp file is not, and a log is never taken back (a chat may have appended to it meanwhile).
        known = set(tracked)
        created = [r for rel in rels for p in self._files_under(self.root / rel)
                   if (r := p.relative_to(self.root).as_posix()) not in known and not _kept(r)]
        for rel in created:
            (self.root / rel).unlink(missing_ok=True)
        from heartcompass.atomic import write_atomic

        for rel in tracked:  # from the commit itself, not through the index (it may be locked)
            path = self.root / rel
            if _kept(rel) and path.exists():
                continue
            text = self.file_at("HEAD", rel)
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

    @staticmethod
    def _files_under(path: Path) -> list[Path]:
        if path.is_file():
            return [path]
        return [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else []

    def unstage(self, rels: list[str]) -> None:
        try:
            if self.head() is not None:
                self._git("reset", "-q", "HEAD", "--", *rels)
            else:
                self._git("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rels)
        except GitError:
            pass

    def revert(self, sha: str, subject: str, body: str) -> str:
        """A new commit taking sha back. Later changes to the same lines:
        RevertConflict, with the working tree and index as they were. Refused
        while the user has files staged by hand: the commit would take them
        in, and git's abort would delete a new one."""
        staged = [f for f in self._git("diff", "--cached", "--name-only", "-z",
                                       strip_newline_in_stdout=False).split("\0") if f]
        if staged:
            raise GitError(f"That change cannot be undone while files are staged by hand: {', '.join(staged)}; "
                           "nothing was changed.", "Commit them, or unstage them with 'git restore --staged "
                           "-- <file>', then undo again.")
        (self.git_dir / UNDO_MARK).write_text(sha + "\n", encoding="utf-8")  # a kill from here on is ours to clear
        try:
            self._git("revert", "--no-commit", sha)
        except GitError as exc:
            conflicted = self.conflicted()
            self._abort_revert()
            if conflicted:
                raise RevertConflict(conflicted) from None
            raise GitError(f"That change cannot be undone: {exc.message}") from None
        try:
            self._git("commit", *self._verify(), "-q", "-m", f"{subject}\n\n{body.strip()}\n")
        except GitError:
            self._abort_revert()
            raise
        (self.git_dir / UNDO_MARK).unlink(missing_ok=True)
        return self.head() or ""

    def _abort_revert(self) -> None:
        """Nothing half-done: the files and the index go back to how they were."""
        try:
            self._git("revert", "--abort")
        except GitError:
            self._git("reset", "-q", "--merge")
        (self.git_dir / UNDO_MARK).unlink(missing_ok=True)


def _kept(rel: str) -> bool:
    """Never deleted or reverted by a roll back: logs (append-only) and dot files."""
    parts = Path(rel).parts
    return "logs" in parts[:-1] or parts[-1].startswith(".")
