"""What the workspace's history says: the log, diffs, a file as it was,
blame, the status of the working tree. A part of gitrepo.WorkspaceGit (a
mixin) that only reads, through WorkspaceGit._git (the git command line),
so this module imports no git; only gitrepo.py imports it, and the rest of
the code reaches it as ws.git (the Commit record may be imported anywhere)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from heartcompass.errors import GitError
from heartcompass.store.gitbase import GitBase
from heartcompass.store.gitplain import parse_status

_SHA = re.compile(r"[0-9a-f]{40}")
# A diff as git stores the files: no textconv or external diff program of the user's runs to show it.
SHOWN_AS_STORED = ("--no-textconv", "--no-ext-diff")


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


class History(GitBase):
    """Read-only history queries; needs _git, _rel and head from WorkspaceGit (see GitBase)."""

    def commit_before(self, when: str) -> str:
        """The last commit at or before a date or datetime (for --as-of)."""
        sha = self._git("rev-list", "-1", f"--before={when}", "HEAD").strip()
        if not sha:
            first = self._git("log", "--reverse", "--format=%ad", "--date=short", "HEAD").split()
            raise GitError(f"The workspace has no commit from {when} or before.",
                           f"Its history starts on {first[0]}: pick that day or later (YYYY-MM-DD), or a commit "
                           "from 'heartcompass log'." if first else None)
        return sha

    def ignored(self, paths: Sequence[Path | str]) -> list[str]:
        """Files under paths that git ignores (by any rule, the user's global
        ones included) and does not track: a hand edit there is never seen."""
        out = self._git("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--",
                        *[self._rel(p) for p in paths], strip_newline_in_stdout=False)
        return [p for p in out.split("\0") if p]

    def status(self, paths: Sequence[Path | str] | None = None) -> list[tuple[str, str]]:
        """(code, path) for uncommitted changes, untracked files included."""
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        return parse_status(self._git(*args, options=self.reading_options(), strip_newline_in_stdout=False))

    def get(self, sha: str) -> Commit:
        return self.log(None, 1, rev=sha)[0]

    def log(self, paths: Sequence[Path | str] | None = None, limit: int = 50, rev: str = "HEAD") -> list[Commit]:
        if self.head() is None:
            return []
        args = ["log", f"-n{limit}", "-z", "--name-only", _LOG_FORMAT, rev]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        return _log_records(self._git(*args))  # it ends in a NUL: no newline of git's to keep

    def messages(self, grep: str, rev: str = "HEAD") -> list[tuple[str, str, str]]:
        """(sha, subject, body) of the commits whose message matches the
        extended regex `grep`, newest first: no file lists, so it stays fast."""
        if self.head() is None:
            return []
        out = self._git("log", "--format=%H%x1f%s%x1f%b%x1e", "-E", f"--grep={grep}", rev)
        found = []
        for chunk in out.split("\x1e"):
            sha, _, rest = chunk.strip().partition("\x1f")
            if sha:
                subject, _, body = rest.partition("\x1f")
                found.append((sha, subject, body))
        return found

    def file_messages(self, path: Path | str) -> list[tuple[str, int, str]]:
        """(sha, commit time in seconds, whole message) of every commit that
        touched the file, across its renames (--follow), newest first."""
        sep = "\x1e"
        out = self._git("log", "--follow", f"--format={sep}%H %ct%n%B", "--", self._rel(path))
        found = []
        for chunk in out.split(sep)[1:]:
            head, _, message = chunk.partition("\n")
            sha, when = head.split()
            found.append((sha, int(when), message))
        return found

    def has_merges(self) -> bool:
        """Whether any commit reachable from HEAD has more than one parent."""
        return self.head() is not None and bool(self._git("rev-list", "--min-parents=2", "-n1", "HEAD").strip())

    def changes_under(self, folder: Path | str) -> list[tuple[str, int, str, list[tuple[str, str, str]]]]:
        """(sha, commit time in seconds, whole message, [(status letter, path,
        the path it was renamed from or "")]) of every commit that changed a
        file under folder, newest first: one `git log` for many files, renames
        found (-M) as `--follow` finds them one file at a time. A listing it
        cannot read whole (a message holding its separators) is a GitError."""
        if self.head() is None:
            return []
        return _changes(self._git("log", *_CHANGES, "--", self._rel(folder), strip_newline_in_stdout=False))

    def commit_messages(self) -> list[tuple[str, int, str]]:
        """(sha, commit time in seconds, whole message) of every commit from
        HEAD, newest first: no diff, so it stays fast on a long history."""
        if self.head() is None:
            return []
        found = []
        for chunk in self._git("log", "--format=%x1e%H %ct%n%B", strip_newline_in_stdout=False).split("\x1e")[1:]:
            head, _, message = chunk.partition("\n")
            sha, _, when = head.partition(" ")
            if not (_SHA.fullmatch(sha) and when.isdigit()):
                raise GitError(f"git log could not be read at {sha[:12]!r}.")
            found.append((sha, int(when), message))
        return found

    def changes_of(self, shas: list[str]) -> dict[str, list[tuple[str, str, str]]]:
        """sha -> [(status letter, path, the path it was renamed from or "")]
        of these commits, each against its parent, renames found (-M) in the
        whole tree as `--follow` finds them: one `git log --no-walk` per 500."""
        found: dict[str, list[tuple[str, str, str]]] = {}
        for start in range(0, len(shas), 500):
            out = self._git("log", "--no-walk=unsorted", *_CHANGES, *shas[start:start + 500],
                            strip_newline_in_stdout=False)
            found.update((sha, changes) for sha, _, _, changes in _changes(out))
        return found

    def tree_blobs(self, folder: Path | str, rev: str = "HEAD") -> dict[str, str]:
        """{path: blob id} of every file under folder at rev: one ls-tree."""
        if self.head() is None:
            return {}
        out = self._git("ls-tree", "-r", "-z", rev, "--", self._rel(folder), strip_newline_in_stdout=False)
        blobs = {}
        for item in out.split("\0"):
            meta, _, path = item.partition("\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == "blob":
                blobs[path] = fields[2]
        return blobs

    def changed_from_head(self, folder: Path | str) -> set[str]:
        """Paths under folder whose working file may differ from HEAD's (by
        git's index and its stat data, reading no unchanged file): one
        diff-index, which refreshes nothing, so a file merely touched is listed too."""
        if self.head() is None:
            return set()
        out = self._git("diff-index", "--name-only", "-z", "HEAD", "--", self._rel(folder),
                        options=self.reading_options(), strip_newline_in_stdout=False)
        return {p for p in out.split("\0") if p}

    def file_commits(self, path: Path | str, limit: int) -> list[str]:
        """The last `limit` commits that changed the file, newest first."""
        return self._git("log", f"-n{limit}", "--format=%H", "--", self._rel(path)).split()

    def messages_before(self, sha: str, paths: list[Path | str]) -> list[str]:
        """The whole messages of the commits before sha that touched these
        files, newest first (what a commit's undo goes back to)."""
        sep = "\x1e"
        out = self._git("log", f"--format={sep}%B", f"{sha}~1", "--", *[self._rel(p) for p in paths])
        return out.split(sep)[1:]

    def touched(self, pathspecs: list[str]) -> list[tuple[str, str, list[str], list[str]]]:
        """(sha, subject, files it changed among the pathspecs, which may be
        globs like `:(glob)people/*/PROFILE.md`, those of them it renamed
        from another of the pathspecs' files) for every commit, newest first:
        one `git log` for many files."""
        sep, end = "\x1f", "\x1e"
        out = self._git("log", "-M", f"--format={end}%H{sep}%s", "--name-status", "--", *pathspecs)
        found = []
        for chunk in out.split(end)[1:]:
            head, *changes = chunk.strip("\n").split("\n")
            sha, subject = head.split(sep, 1)
            files, moved = [], []
            for change in changes:
                status, *paths = change.split("\t")
                if paths:
                    files.append(paths[-1])
                    if status[:1] in ("R", "C"):
                        moved.append(paths[-1])
            found.append((sha, subject, files, moved))
        return found

    def lines_added(self, pathspecs: list[str], pattern: str) -> list[tuple[str, int, str, str, str]]:
        """(sha, commit time in seconds, subject, file, line) for each line
        matching the regex `pattern` that a commit added to one of the files,
        oldest first: one `git log -G` for many files (a relation's stages)."""
        if self.head() is None:
            return []
        sep, end = "\x1f", "\x1e"
        out = self._git("log", "--reverse", "-G", pattern, "-p", "-U0", "--no-renames", "--no-color",
                        f"--format={end}%H{sep}%ct{sep}%s", "--", *pathspecs)
        found, line_re = [], re.compile(pattern)
        for chunk in out.split(end)[1:]:
            head, _, diff = chunk.partition("\n")
            sha, when, subject = head.split(sep, 2)
            current = ""
            for line in diff.split("\n"):
                if line.startswith("+++ "):
                    current = _unquoted(line[4:])[2:] if line[4:].lstrip('"').startswith("b/") else ""
                elif line.startswith("+") and current and line_re.search(line[1:]):
                    found.append((sha, int(when), subject, current, line[1:]))
        return found

    def is_ancestor(self, older: str, newer: str) -> bool:
        try:
            self._git("merge-base", "--is-ancestor", older, newer)
            return True
        except GitError:
            return False

    def rev_list(self, rev: str = "HEAD") -> list[str]:
        """Every commit reachable from rev, newest first."""
        return self._git("rev-list", rev).split()

    def diff(self, rev: str | None, paths: Sequence[Path | str]) -> str:
        rels = [self._rel(p) for p in paths]
        if rev is None:
            return self._git("diff", *SHOWN_AS_STORED, "HEAD", "--", *rels, options=self.reading_options()) \
                if self.head() else ""
        return self._git("diff", *SHOWN_AS_STORED, rev, "--", *rels, options=self.reading_options())

    def show(self, rev: str, paths: Sequence[Path | str] | None = None) -> str:
        args = ["show", *SHOWN_AS_STORED, "--format=%h %s%n", rev]
        if paths:
            args += ["--", *[self._rel(p) for p in paths]]
        return self._git(*args, options=self.reading_options())

    def file_at(self, rev: str, path: Path | str) -> str | None:
        try:
            return self._git("show", f"{rev}:{self._rel(path)}", strip_newline_in_stdout=False)
        except GitError:
            return None

    def files_at(self, rev: str, folder: Path | str) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", rev, "--", self._rel(folder))
        return [line for line in out.splitlines() if line]

    def working_blob_ids(self, paths: Sequence[Path | str]) -> dict[str, str]:
        """{path: blob id} of these files as they are in the working tree."""
        rels = [self._rel(p) for p in paths]
        if not rels:
            return {}
        return dict(zip(rels, self._git("hash-object", "--", *rels).split()))

    def blame(self, path: Path | str) -> list[tuple[str, str]]:
        """(subject of the commit that last changed it, text) for each line
        of the committed file; [] when it is not committed."""
        if self.head() is None:
            return []
        try:
            out = self._git("blame", "--porcelain", "--no-textconv", "HEAD", "--", self._rel(path),
                            options=self.reading_options(), strip_newline_in_stdout=False)
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


def _unquoted(path: str) -> str:
    """A path as git's diff header quotes it ("b/people/\\346\\235\\216/PROFILE.md")."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    import codecs

    # git's escapes (\t, \", octal) read; UTF-8 is left whole by core.quotepath=false, so it is not escaped.
    return codecs.escape_decode(path[1:-1].encode("utf-8"))[0].decode("utf-8", "replace")


# NUL around every field: git refuses a NUL in a message, a name or a path, so a hand commit's message may hold
# any other character (\x1f, \x1e, newlines) and is still read as itself, never as the start of its file list.
_LOG_FORMAT = "--format=%x00%H%x00%aI%x00%an%x00%s%x00%b%x00"


def _log_records(out: str) -> list[Commit]:
    """`git log -z --name-only` in _LOG_FORMAT: each record is an empty field, the five fields, an empty
    field, then its files (the first after a newline), up to the next record's empty field."""
    fields, at, commits = out.split("\0"), 0, []
    while at + 1 < len(fields):
        if fields[at] or not _SHA.fullmatch(fields[at + 1]) or len(fields) < at + 7 or fields[at + 6]:
            raise GitError("git log could not be read.", "Run 'git log' in the workspace to see what it says.")
        sha, date, author, subject, body = fields[at + 1:at + 6]
        at += 7
        files = []
        while at < len(fields) and fields[at]:
            files.append(fields[at].removeprefix("\n"))
            at += 1
        commits.append(Commit(sha, date, author, subject, body.strip(), files))
    return commits


_CHANGES = ("-M", "--name-status", "-z", "--format=%x1e%H %ct%n%B%x1f")


def _changes(out: str) -> list[tuple[str, int, str, list[tuple[str, str, str]]]]:
    """`git log` in the _CHANGES format, read: see History.changes_under."""
    found = []
    for chunk in out.split("\x1e")[1:]:
        head, _, rest = chunk.partition("\n")
        message, _, listing = rest.rpartition("\x1f")
        sha, _, when = head.partition(" ")
        if not (_SHA.fullmatch(sha) and when.isdigit()):
            raise GitError(f"git log could not be read at {sha[:12]!r}.")
        parts, changes = listing.lstrip("\0\n").split("\0"), []
        i = 0
        while i < len(parts) and parts[i]:
            status = parts[i]
            if status[0] in "RC" and i + 2 < len(parts):
                changes.append((status[0], parts[i + 2], parts[i + 1]))
                i += 3
            elif status[0] in "AMDT" and i + 1 < len(parts):
                changes.append((status[0], parts[i + 1], ""))
                i += 2
            else:
                raise GitError(f"git log could not be read at {sha[:12]}.")
        found.append((sha, int(when), message, changes))
    return found
