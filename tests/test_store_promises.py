"""The store's promises, tested on its parts: what HeartCompass wrote and
could not commit (a killed tell's or garden's files) is never the user's
hand edit; a workspace that is a git worktree is a repository."""

from __future__ import annotations

from conftest import git

from heartcompass.atomic import file_checksum
from heartcompass.store import audit, unfinished
from heartcompass.store.gitrepo import WorkspaceGit


def _journaled_write(ws, journal, rel: str, text: str) -> None:
    """What tell (or the gardener) does before its commit: the journal, then the file."""
    path = ws.root / rel
    unfinished.save(ws, journal, {path: (file_checksum(path), text)}, "tell(alice): 1 fact", "")
    path.write_text(text, encoding="utf-8")


def test_a_killed_tells_files_are_not_counted_as_hand_edits(example_ws):
    """A tell killed between its write and its commit: its file is not a
    pending hand edit; the user's own edit beside it still is."""
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    told = (ws.root / memory).read_text(encoding="utf-8") + "\n- She is moving to Berlin (told)\n"
    _journaled_write(ws, unfinished.told_path(ws, "alice"), memory, told)
    profile = ws.root / "people/alice/PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    pending = [(p.path, p.kind) for p in audit.pending(ws)]
    assert pending == [("people/alice/PROFILE.md", "hand edit")]
    assert unfinished.gardener_writes(ws) == {memory}
    assert unfinished.told_unfinished(ws)


def test_a_killed_gardens_files_are_not_counted_as_hand_edits(example_ws):
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    gardened = (ws.root / memory).read_text(encoding="utf-8") + "\n- Keeps a tortoise\n"
    _journaled_write(ws, unfinished.journal_path(ws, "alice"), memory, gardened)
    assert unfinished.gardener_writes(ws) == {memory}
    assert audit.pending(ws) == []
    assert git(ws, "status", "--porcelain").strip() == f"M {memory}"  # it is there, uncommitted
    assert not unfinished.told_unfinished(ws)  # a garden's journal is not a tell's


def test_a_file_changed_by_hand_after_the_killed_tell_is_the_users_edit(example_ws):
    """The journal claims only the exact text it wrote: the user's edit on top is theirs."""
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    told = (ws.root / memory).read_text(encoding="utf-8") + "\n- She is moving to Berlin (told)\n"
    _journaled_write(ws, unfinished.told_path(ws, "alice"), memory, told)
    (ws.root / memory).write_text(told + "- and I wrote this myself\n", encoding="utf-8")
    assert unfinished.gardener_writes(ws) == set()
    assert [(p.path, p.kind) for p in audit.pending(ws)] == [(memory, "hand edit")]


def test_a_workspace_that_is_a_git_worktree_is_a_repository(example_ws, tmp_path):
    """`git worktree add`: the workspace's .git is a file pointing at the
    main repository, and it is a repository all the same (init keeps it)."""
    other = tmp_path / "second"
    git(example_ws, "worktree", "add", "-q", "-b", "second", str(other))
    assert (other / ".git").is_file()
    wt = WorkspaceGit(other)
    assert wt.is_repo()
    head = wt.head()
    wt.init()  # a no-op on a repository: never a second repository inside the worktree
    assert (other / ".git").is_file() and wt.head() == head
    assert not WorkspaceGit(tmp_path / "nowhere").is_repo()
