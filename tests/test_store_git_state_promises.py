"""store/git's promises about the repository's state (gitstate, gitindex,
gitrollback): a commit is refused, with the fix in one line, whenever git
is mid-operation, detached, on an orphan branch or locked; the index is held
as git holds it while HEAD moves; what a refused commit wrote is put back."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from git_helpers import (add_hook, commit_files, committed_repo, new_repo, user_git,
                         users_git, write_file)

from heartcompass.errors import GitError
from heartcompass.store.gitrepo import WorkspaceGit


@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return new_repo(tmp_path)


@pytest.mark.parametrize("made, words", [
    ("rebase-merge/", "git is in the middle of a rebase: finish it with 'git rebase --continue' or go back with "
                      "'git rebase --abort'."),
    ("rebase-apply/", "git is in the middle of a rebase"),
    ("MERGE_HEAD", "git is in the middle of a merge: finish it with 'git commit' or go back with 'git merge --abort'."),
    ("CHERRY_PICK_HEAD", "git is in the middle of a cherry-pick: finish it with 'git cherry-pick --continue' or go "
                         "back with 'git cherry-pick --abort'."),
    ("REVERT_HEAD", "git is in the middle of a revert: finish it with 'git revert --continue' or go back with "
                    "'git revert --abort'."),
])
def test_each_unfinished_git_operation_is_named_with_its_fix(tmp_path, made, words):
    wg = committed_repo(tmp_path)
    assert wg.state_problem() is None
    where = wg.git_dir / made.rstrip("/")
    where.mkdir() if made.endswith("/") else where.write_text(wg.head() + "\n")
    assert words in wg.state_problem()
    with pytest.raises(GitError) as refused:
        wg.check_writable()
    assert words in refused.value.message


def test_a_stopped_sync_is_named_as_ours_and_the_mark_goes_once_the_rebase_does(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    wg = committed_repo(tmp_path)
    (wg.git_dir / "rebase-merge").mkdir()
    (wg.git_dir / "rebase-merge/head-name").write_text("refs/heads/work\n")
    (wg.git_dir / SYNC_MARK).write_text("origin main\n")
    assert wg.rebase_in_progress() and wg.rebased_branch() == "work"
    assert wg.state_problem() == ("A 'heartcompass sync' conflict is still being resolved: fix the marked files, "
                                  "then run 'heartcompass sync --continue' (or 'heartcompass sync --abort' to go back).")
    (wg.git_dir / "rebase-merge/head-name").unlink()
    (wg.git_dir / "rebase-merge").rmdir()
    (wg.git_dir / "rebase-apply").mkdir()
    (wg.git_dir / "rebase-apply/head-name").write_text("refs/heads/other\n")
    assert wg.rebased_branch() == "other" and "heartcompass sync" in wg.state_problem()
    (wg.git_dir / "rebase-apply/head-name").unlink()
    assert wg.rebased_branch() == "main"
    (wg.git_dir / "rebase-apply").rmdir()
    assert not wg.rebase_in_progress()
    assert wg.state_problem() is None and not (wg.git_dir / SYNC_MARK).exists()


def test_an_undo_killed_mid_revert_is_ours_and_taken_back_by_the_next_writer(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    commit_files(wg, {"a.md": "2\n", "b.md": "b\n"}, "two")
    write_file(wg, "mine.md", "the user's own file\n")
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    assert wg.state_problem() == ("A 'heartcompass undo' was interrupted; the next command that writes takes it back "
                                  "(nothing was committed), or run: heartcompass undo again.")
    wg.check_writable()
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "b.md").exists()
    assert (wg.root / "mine.md").read_text() == "the user's own file\n"


def test_an_undo_killed_mid_revert_with_an_unreadable_revert_head_is_taken_back_all_the_same(tmp_path):
    """git cannot abort a revert whose REVERT_HEAD it cannot read: the files go back all the same, and no revert
    stays "in progress" for the next command to refuse on (nor for a `git revert --abort` that fails)."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    head = commit_files(wg, {"a.md": "2\n", "b.md": "b\n"}, "two")
    write_file(wg, "mine.md", "the user's own file\n")
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    (wg.git_dir / "REVERT_HEAD").write_text("not an object id\n")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    wg.check_writable()
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert wg.state_problem() is None and wg.head() == head
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "b.md").exists()
    assert (wg.root / "mine.md").read_text() == "the user's own file\n"


def test_the_early_check_leaves_an_undo_at_work_and_an_index_lock_to_the_check_under_the_lock(tmp_path):
    """`tell` checks before the user types, without the workspace lock: an
    undo another command is making right now (its revert and mark in .git/)
    is not taken back under it, nor is a commit's index.lock refused; what
    no command is making (a rebase, a revert of the user's) is refused."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    commit_files(wg, {"a.md": "2\n"}, "two")
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    wg.check_writable_ahead()
    assert (wg.git_dir / "REVERT_HEAD").exists() and (wg.git_dir / UNDO_MARK).exists()
    assert (wg.root / "a.md").read_text() == "1\n"  # the undo's work, untouched
    (wg.git_dir / UNDO_MARK).unlink()  # the same revert, the user's own
    with pytest.raises(GitError) as refused:
        wg.check_writable_ahead()
    assert "git is in the middle of a revert" in refused.value.message
    user_git(wg.root, "revert", "--abort")
    (wg.git_dir / "index.lock").write_text("")
    wg.check_writable_ahead()  # a commit at work, or a stale lock: said under the lock, with the wait
    with pytest.raises(GitError):
        wg.check_writable()


def test_a_revert_the_user_started_is_theirs_and_a_stray_undo_mark_is_cleared(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    commit_files(wg, {"a.md": "2\n"}, "two")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    wg.check_writable()  # no revert in progress: the mark alone is stale
    assert not (wg.git_dir / UNDO_MARK).exists()
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    with pytest.raises(GitError) as refused:
        wg.check_writable()
    assert "git is in the middle of a revert" in refused.value.message
    assert (wg.git_dir / "REVERT_HEAD").exists()  # left to the user


def test_a_detached_head_names_the_branch_to_go_back_to(tmp_path):
    wg = committed_repo(tmp_path)
    sha = wg.head()
    user_git(wg.root, "checkout", "-q", "--detach")
    assert wg.state_problem() == (f"git is on a detached HEAD (commit {sha[:8]}), not a branch: "
                                  "go back with: git checkout main")
    user_git(wg.root, "branch", "-m", "main", "mine")
    assert wg.state_problem().endswith("go back with: git checkout mine")  # the only branch there is
    user_git(wg.root, "branch", "other")
    assert wg.state_problem().endswith("go back with: git checkout main")  # several: main is the guess


def test_an_orphan_branch_without_our_history_is_refused_but_a_fresh_repository_is_not(tmp_path):
    fresh = new_repo(tmp_path / "fresh")
    assert fresh.state_problem() is None
    wg = committed_repo(tmp_path)
    user_git(wg.root, "checkout", "-q", "--orphan", "empty")
    assert wg.state_problem() == ("git is on branch 'empty', which has no commits and none of this workspace's "
                                  "history (git checkout --orphan?): go back with: git checkout main")


def test_a_branch_whose_commits_are_in_packed_refs_is_a_branch(tmp_path):
    wg = committed_repo(tmp_path)
    user_git(wg.root, "tag", "-a", "v1", "-m", "an annotated tag: packed with a peeled line of its own")
    user_git(wg.root, "pack-refs", "--all")
    assert not (wg.git_dir / "refs/heads/main").exists()
    assert wg.state_problem() is None
    user_git(wg.root, "checkout", "-q", "--orphan", "empty")
    assert "which has no commits" in wg.state_problem()
    assert wg._packed_refs() == ["refs/heads/main", "refs/tags/v1"]


def test_a_packed_branch_name_that_is_not_utf8_is_read_not_fatal(tmp_path):
    """packed-refs holding a branch named in Latin-1 by another tool: the
    state is still read (the odd byte replaced), never a crash."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "pack-refs", "--all")
    with open(wg.git_dir / "packed-refs", "ab") as packed:
        packed.write(wg.head().encode() + b" refs/heads/caf\xe9\n")
    assert wg.state_problem() is None
    assert wg._packed_refs() == ["refs/heads/main", "refs/heads/caf\ufffd"]


def test_a_detached_head_in_a_repository_without_a_branch_folder_names_main(tmp_path):
    """Every branch packed and refs/heads/ gone (a pruned or copied
    repository): the way back is still named."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "checkout", "-q", "--detach")
    user_git(wg.root, "pack-refs", "--all")
    import shutil

    shutil.rmtree(wg.git_dir / "refs/heads")
    assert wg.state_problem().endswith("go back with: git checkout main")


def test_a_head_git_cannot_read_is_named_as_such_never_as_a_detached_head_or_a_nameless_branch(tmp_path):
    """.git/HEAD damaged while a serve or a watch runs (here a folder in its
    place): the problem says HEAD cannot be read and what it should hold,
    not a detached HEAD nor an orphan branch named '' to check out of; and
    no commit is tried."""
    import errno

    wg = committed_repo(tmp_path)
    head = wg.git_dir / "HEAD"
    head.unlink()
    head.mkdir()
    said = (f"git cannot read {head} ({os.strerror(errno.EISDIR)}), which names the branch: it should hold one "
            "line, such as: ref: refs/heads/main")
    assert wg.state_problem() == said
    with pytest.raises(GitError) as refused:
        wg.check_writable()
    assert refused.value.message == said


def test_a_stale_index_lock_is_named_with_the_command_that_removes_it(tmp_path):
    wg = committed_repo(tmp_path)
    assert wg.index_lock_problem(settle=0) is None
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    problem = wg.index_lock_problem(settle=0)
    assert problem == (f"A stale {lock} is left by a git command that was killed (no git process is running): "
                       f"remove it with: rm {lock}")
    assert wg.index_lock_error().message == problem
    with pytest.raises(GitError) as refused:
        wg._git("add", "a.md")
    assert refused.value.message == problem
    lock.unlink()
    assert wg.index_lock_error().message == "git found an index.lock; try again."


def test_doctor_can_tell_when_no_commit_can_be_made(tmp_path):
    wg = committed_repo(tmp_path)
    assert wg.commit_problem() is None
    user_git(wg.root, "config", "commit.gpgsign", "true")
    user_git(wg.root, "config", "gpg.program", "false")
    problem = WorkspaceGit(wg.root).commit_problem()
    assert problem and problem.startswith("commit.gpgsign is on and signing fails (")
    fresh = new_repo(tmp_path / "fresh")
    user_git(fresh.root, "config", "commit.gpgsign", "true")
    user_git(fresh.root, "config", "gpg.program", "false")
    assert fresh.commit_problem() is None  # nothing to sign yet: the first commit will say


def _signing_program(tmp_path: Path) -> Path:
    """A stand-in for gpg that signs anything, answering git as gpg does."""
    program = tmp_path / "fake-gpg"
    program.write_text("#!/bin/sh\ncat >/dev/null\n"
                       "printf '\\n[GNUPG:] SIG_CREATED D 1 8 00 1700000000 0123456789ABCDEF\\n' >&2\n"
                       "printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'\n",
                       encoding="utf-8")
    program.chmod(0o755)
    return program


def test_doctor_finds_no_problem_when_signing_works_and_names_it_when_it_fails(tmp_path):
    """commit.gpgsign spelled any way git accepts ("yes"): a key that signs
    is no problem, a signing program that fails is named."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "config", "commit.gpgsign", "yes")
    user_git(wg.root, "config", "gpg.program", str(_signing_program(tmp_path)))
    assert WorkspaceGit(wg.root).commit_problem() is None
    user_git(wg.root, "config", "gpg.program", "false")
    problem = WorkspaceGit(wg.root).commit_problem()
    assert problem and problem.startswith("commit.gpgsign is on and signing fails (")


def test_a_user_who_signs_every_commit_gets_ours_signed_too(tmp_path):
    """commit.gpgsign=2 is true to git: our commits go through `git commit`,
    which signs them, as the user's own are."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "config", "commit.gpgsign", "2")
    user_git(wg.root, "config", "gpg.program", str(_signing_program(tmp_path)))
    signer = WorkspaceGit(wg.root)
    assert signer.commit_contents({"a.md": "2\n"}, "garden(a): 1 fact")
    assert "\ngpgsig -----BEGIN PGP SIGNATURE-----" in user_git(wg.root, "cat-file", "commit", "HEAD")


def test_a_repository_whose_own_folder_cannot_be_written_is_named_though_the_temp_folder_can(tmp_path, monkeypatch):
    """A mounted snapshot of a workspace: the system's temp folder takes
    files, the repository does not. The check writes in .git itself."""
    import tempfile

    wg = committed_repo(tmp_path)
    real = tempfile.NamedTemporaryFile

    def read_only_repository(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).resolve() == wg.git_dir.resolve():
            raise OSError(30, "Read-only file system")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", read_only_repository)
    assert wg.commit_problem() == "the repository cannot be written (Read-only file system)"
    monkeypatch.undo()
    assert wg.commit_problem() is None


def test_a_repository_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    """A backup or a mounted snapshot: doctor says no commit can be made, and why."""
    wg = committed_repo(tmp_path)

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("tempfile.NamedTemporaryFile", read_only)
    assert wg.commit_problem() == "the repository cannot be written (Read-only file system)"


def test_conflicted_files_are_listed_by_name(tmp_path):
    wg = committed_repo(tmp_path)
    user_git(wg.root, "checkout", "-q", "-b", "side")
    commit_files(wg, {"a.md": "side\n", "小明.md": "side\n"}, "side")
    user_git(wg.root, "checkout", "-q", "main")
    commit_files(wg, {"a.md": "main\n", "小明.md": "main\n"}, "main")
    subprocess.run(["git", "-c", "user.name=U", "-c", "user.email=u@x", "merge", "-q", "side"], cwd=wg.root,
                   capture_output=True)
    assert wg.conflicted() == ["a.md", "小明.md"]
    assert "merge" in wg.state_problem()


# -- the real index, held while HEAD moves (gitindex.py) -------------------------------------------------------------

def test_a_held_index_replaces_the_index_only_on_a_clean_exit_and_always_lets_go_of_the_lock(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").write_bytes(b"old")
    busy = GitError("busy")
    with HeldIndex(tmp_path, lambda: busy, settle=0) as held:
        assert (tmp_path / "index.lock").exists() and held.copy.read_bytes() == b"old"
        held.copy.write_bytes(b"new")
    assert (tmp_path / "index").read_bytes() == b"new"
    assert not (tmp_path / "index.lock").exists() and not held.copy.exists()
    with pytest.raises(RuntimeError):
        with HeldIndex(tmp_path, lambda: busy, settle=0) as held:
            held.copy.write_bytes(b"half")
            raise RuntimeError("git failed")
    assert (tmp_path / "index").read_bytes() == b"new"
    assert not (tmp_path / "index.lock").exists() and not held.copy.exists()


def test_an_index_lock_someone_else_holds_refuses_before_anything_moves(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").write_bytes(b"theirs")
    (tmp_path / "index.lock").write_bytes(b"held")
    with pytest.raises(GitError) as refused:
        with HeldIndex(tmp_path, lambda: GitError("busy here"), settle=0):
            raise AssertionError("entered")
    assert refused.value.message == "busy here"
    assert (tmp_path / "index.lock").read_bytes() == b"held" and (tmp_path / "index").read_bytes() == b"theirs"


def test_a_held_index_without_an_index_yet_makes_none_unless_written(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    with HeldIndex(tmp_path, lambda: GitError("busy"), settle=0) as held:
        assert not held.copy.exists()
    assert not (tmp_path / "index").exists() and not (tmp_path / "index.lock").exists()


# -- putting files back (gitrollback.py) ----------------------------------------------------------------------------

def test_a_roll_back_puts_tracked_files_back_removes_ours_and_never_touches_logs_or_dot_files(tmp_path):
    wg = committed_repo(tmp_path)
    commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n"}, "two")
    write_file(wg, "people/a/PROFILE.md", "changed\n")
    write_file(wg, "people/a/logs/2024-01-01.md", "l\nappended by a chat\n")
    write_file(wg, "people/a/logs/2024-01-02.md", "a new day's log\n")
    write_file(wg, "people/a/.PROFILE.md.swp", "an editor's\n")
    write_file(wg, "people/b/PROFILE.md", "a new person\n")
    write_file(wg, "people/b/sub/deeper/x.md", "x\n")
    user_git(wg.root, "add", "people/b/PROFILE.md")
    (wg.root / "people/a/gone-folder").mkdir()
    wg.roll_back([wg.root / "people/a", "people/b"])
    assert (wg.root / "people/a/PROFILE.md").read_text() == "p\n"
    assert (wg.root / "people/a/logs/2024-01-01.md").read_text() == "l\nappended by a chat\n"
    assert (wg.root / "people/a/logs/2024-01-02.md").exists() and (wg.root / "people/a/.PROFILE.md.swp").exists()
    assert not (wg.root / "people/b").exists() and not (wg.root / "people/a/gone-folder").exists()
    assert user_git(wg.root, "diff", "--cached", "--name-only") == ""
    wg.roll_back([])


def test_a_roll_back_brings_back_a_deleted_file_and_its_folder(tmp_path):
    wg = committed_repo(tmp_path)
    commit_files(wg, {"people/a/PROFILE.md": "p\n\n"}, "two")
    (wg.root / "people/a/PROFILE.md").unlink()
    (wg.root / "people/a").rmdir()
    wg.roll_back(["people/a/PROFILE.md"])
    assert (wg.root / "people/a/PROFILE.md").read_text() == "p\n\n"


def test_a_roll_back_before_the_first_commit_removes_what_we_made(tmp_path):
    wg = new_repo(tmp_path)
    write_file(wg, "people/a/PROFILE.md", "p\n")
    user_git(wg.root, "add", "-A")
    wg.roll_back(["people/a"])
    assert not (wg.root / "people").exists() or not any((wg.root / "people").iterdir())
    assert user_git(wg.root, "status", "--porcelain") == ""


def test_a_roll_back_touches_only_the_paths_given_even_named_with_a_dash_given_twice_or_gone_two_deep(tmp_path):
    """Put back: a dash-named file (a path, not an option), a file two
    folders deep whose folders are gone, a file of ours named twice (its
    folder and itself). Left alone: the user's hand edit elsewhere, and
    what the user staged by hand."""
    import shutil

    wg = committed_repo(tmp_path)
    commit_files(wg, {"-d/-a.md": "one\n", "people/a/notes/deep/x.md": "x\n", "people/a/PROFILE.md": "p\n",
                      "b.md": "b\n", "staged.md": "s\n"}, "two")
    write_file(wg, "-d/-a.md", "ours\n")
    user_git(wg.root, "add", "--", "-d/-a.md")  # as a refused commit leaves it
    shutil.rmtree(wg.root / "people/a/notes")
    write_file(wg, "people/a/new.md", "ours\n")
    write_file(wg, "b.md", "the user's hand edit\n")
    write_file(wg, "staged.md", "staged by the user\n")
    user_git(wg.root, "add", "staged.md")
    wg.roll_back(["-d/-a.md", "people/a", "people/a/new.md", "people/a/notes/deep/x.md"])
    assert (wg.root / "-d/-a.md").read_text() == "one\n"
    assert (wg.root / "people/a/notes/deep/x.md").read_text() == "x\n"
    assert not (wg.root / "people/a/new.md").exists() and (wg.root / "people/a/PROFILE.md").read_text() == "p\n"
    assert (wg.root / "b.md").read_text() == "the user's hand edit\n"
    assert user_git(wg.root, "diff", "--cached", "--name-only") == "staged.md\n"  # ours unstaged, theirs kept


def test_a_first_commit_git_refuses_leaves_nothing_of_ours_staged(tmp_path):
    """No HEAD yet: a refused first commit unstages every path it named,
    one that does not exist among them, and the user's own staging stays."""
    wg = new_repo(tmp_path)
    add_hook(wg, "pre-commit", "exit 1\n")
    write_file(wg, "a.md", "1\n")
    write_file(wg, "-b.md", "1\n")
    write_file(wg, "mine.md", "m\n")
    user_git(wg.root, "add", "mine.md")
    with pytest.raises(GitError):
        wg.commit(["a.md", "-b.md", "gone.md"], "first")
    assert user_git(wg.root, "diff", "--cached", "--name-only") == "mine.md\n"
    assert (wg.root / "a.md").read_text() == "1\n"


def test_an_undo_runs_no_hook_of_the_users_when_git_hooks_is_off(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    wg = WorkspaceGit(root, hooks=lambda: False)
    wg.init()
    commit_files(wg, {"a.md": "1\n"}, "one")
    sha = commit_files(wg, {"a.md": "2\n"}, "two")
    add_hook(wg, "pre-commit", "exit 1\n")
    assert wg.revert(sha, "undo: two", "This reverts commit x.") == wg.head()
    assert (root / "a.md").read_text() == "1\n" and not (wg.git_dir / "heartcompass-undo").exists()


def test_a_revert_conflict_names_every_file_it_touches(tmp_path):
    from heartcompass.store.gitrollback import RevertConflict

    wg = committed_repo(tmp_path)
    sha = commit_files(wg, {"a.md": "x\n", "b.md": "x\n"}, "two")
    commit_files(wg, {"a.md": "y\n", "b.md": "y\n"}, "three")
    with pytest.raises(RevertConflict) as conflict:
        wg.revert(sha, "undo: two", "")
    assert conflict.value.message == "later changes touch the same lines of a.md, b.md"
    assert conflict.value.files == ["a.md", "b.md"] and (wg.root / "a.md").read_text() == "y\n"


@pytest.mark.parametrize("rel, kept", [
    ("people/a/logs/2024-01-01.md", True), ("people/a/.x.swp", True), (".gitignore", True),
    ("people/a/MEMORY.md", False), ("people/a/logs", False), ("logs", False),
])
def test_logs_and_dot_files_are_never_taken_back(rel, kept):
    from heartcompass.store.gitrollback import _kept

    assert _kept(rel) is kept


def test_revert_takes_a_commit_back_as_a_new_commit(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    target = commit_files(wg, {"a.md": "2\n"}, "two")
    sha = wg.revert(target, "undo: two", "  This reverts commit x.  ")
    assert sha == wg.head() and (wg.root / "a.md").read_text() == "1\n"
    assert user_git(wg.root, "log", "-1", "--format=%B") == "undo: two\n\nThis reverts commit x.\n\n"
    assert not (wg.git_dir / UNDO_MARK).exists()


def test_a_revert_that_conflicts_is_abandoned_and_names_the_files(tmp_path):
    from heartcompass.store.gitrollback import RevertConflict
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    target = commit_files(wg, {"a.md": "2\n"}, "two")
    head = commit_files(wg, {"a.md": "3\n"}, "three")
    with pytest.raises(RevertConflict) as conflict:
        wg.revert(target, "undo: two", "")
    assert conflict.value.files == ["a.md"]
    assert conflict.value.message == "later changes touch the same lines of a.md"
    assert wg.head() == head and (wg.root / "a.md").read_text() == "3\n"
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert user_git(wg.root, "status", "--porcelain") == ""


def test_a_revert_git_cannot_make_says_so_and_leaves_nothing_half_done(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    commit_files(wg, {"a.md": "2\n"}, "two")
    with pytest.raises(GitError) as refused:
        wg.revert("0" * 40, "undo", "")
    assert refused.value.message.startswith("That change cannot be undone: git revert failed")
    assert not (wg.git_dir / UNDO_MARK).exists()
    target = wg.head()
    add_hook(wg, "pre-commit", "exit 1\n")
    with pytest.raises(GitError) as hooked:
        wg.revert(target, "undo: two", "")
    assert hooked.value.message.startswith("git commit failed")
    assert wg.head() == target and (wg.root / "a.md").read_text() == "2\n"
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()


def test_a_git_running_in_the_workspace_or_below_is_found_and_named_in_the_lock_problem(tmp_path):
    from waits import wait_until

    from heartcompass.store.gitstate import git_processes

    wg = committed_repo(tmp_path)
    (wg.root / "people").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = users_git(elsewhere)
    below = users_git(wg.root / "people")
    try:
        found = wait_until(lambda: git_processes(wg.root), what="the user's git to start")
        assert len(found) == 1 and all(isinstance(pid, int) for pid in found)
        (wg.git_dir / "index.lock").write_text("")
        problem = wg.index_lock_problem(settle=0)
        assert problem == (f"git is busy in this workspace (git process {found[0]} holds {wg.git_dir / 'index.lock'}): "
                           "wait for it to finish and try again.")
    finally:
        for running in (other, below):
            running.communicate(b"x")
    assert git_processes(wg.root) == []


def test_gitpythons_own_readers_and_our_children_are_never_taken_for_the_users_git(tmp_path):
    from waits import wait_until

    from heartcompass.store.gitstate import git_processes

    wg = committed_repo(tmp_path)
    reader = users_git(wg.root, "git cat-file --batch")
    child = subprocess.Popen(["git", "hash-object", "--stdin"], cwd=wg.root, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)
    users = users_git(wg.root)
    try:
        found = wait_until(lambda: git_processes(wg.root), what="the user's git to start")
        assert child.pid not in found and len(found) == 1
    finally:
        for running in (reader, child, users):
            running.communicate(b"x")


def _gits_under(root: Path) -> dict[int, bytes]:
    """{pid: its command line} of every live git process working in root that is no child of this
    process (GitPython's own readers are), read from /proc by the test itself."""
    import os

    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "git" \
                    and Path(os.readlink(entry / "cwd")) == root \
                    and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) != os.getpid():
                found[int(entry.name)] = (entry / "cmdline").read_bytes()
        except OSError:
            continue
    return found


def test_a_git_that_just_exited_or_a_batch_reader_hides_no_running_git_of_the_users(tmp_path):
    """A git that exited and is not yet reaped (its /proc entry half gone),
    a `git cat-file --batch` reader a program of the user's runs: neither
    is the user's git at work, and neither stops the scan before it."""
    from waits import wait_until

    from heartcompass.store.gitstate import git_processes

    wg = committed_repo(tmp_path)
    exited = subprocess.Popen(["git", "--version"], cwd=wg.root, stdout=subprocess.DEVNULL)
    wait_until(lambda: Path(f"/proc/{exited.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z",
               what="the short git to exit")
    reader = users_git(wg.root, "git cat-file --batch")
    users = users_git(wg.root)
    try:
        running = wait_until(lambda: (lambda g: g if len(g) == 2 else None)(_gits_under(wg.root)),
                             what="the reader and the user's git to start")
        mine = [pid for pid, args in running.items() if b"hash-object" in args]
        assert len(mine) == 1 and git_processes(wg.root) == mine
    finally:
        for proc in (reader, users):
            proc.communicate(b"x")
        exited.wait()


def test_without_proc_any_git_but_our_children_counts(tmp_path, monkeypatch):
    """Elsewhere than Linux: any git process found by ps, to be safe."""
    from waits import wait_until

    from heartcompass.store import gitstate

    class NoProc(type(Path())):
        def is_dir(self):
            return False if str(self) == "/proc" else super().is_dir()

    wg = committed_repo(tmp_path)
    monkeypatch.setattr(gitstate, "Path", NoProc)
    child = subprocess.Popen(["git", "hash-object", "--stdin"], cwd=tmp_path, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)
    users = users_git(tmp_path)
    try:
        def users_git_pid() -> int | None:
            ps = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,comm="], capture_output=True, text=True).stdout
            return next((int(p[0]) for p in (line.split() for line in ps.splitlines())
                         if len(p) == 3 and p[1] == str(users.pid) and p[2] == "git"), None)

        pid = wait_until(users_git_pid, what="the user's git to start")
        found = gitstate.git_processes(wg.root)
        assert pid in found and child.pid not in found and all(isinstance(p, int) for p in found)
    finally:
        for running in (child, users):
            running.communicate(b"x")

    def no_ps(*args, **kwargs):
        raise OSError("no ps here")

    monkeypatch.setattr(gitstate.subprocess, "run", no_ps)
    assert gitstate.git_processes(wg.root) == []


def test_a_held_index_waits_for_a_git_of_the_users_to_let_go(tmp_path, monkeypatch):
    """index.lock taken by the user's git for a moment: the commit waits
    for it (up to the settle time), then goes on."""
    from heartcompass.store import gitindex

    (tmp_path / "index").write_bytes(b"old")
    lock = tmp_path / "index.lock"
    lock.write_bytes(b"the user's")
    waits: list[float] = []

    def users_git_finishes(seconds: float) -> None:
        waits.append(seconds + 0)  # a number, as time.sleep needs
        lock.unlink()

    monkeypatch.setattr(gitindex.time, "sleep", users_git_finishes)
    with gitindex.HeldIndex(tmp_path, lambda: GitError("busy")) as held:
        held.copy.write_bytes(b"new")
    assert waits and (tmp_path / "index").read_bytes() == b"new" and not lock.exists()


def test_a_held_index_that_cannot_copy_the_index_lets_go_of_the_lock(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").mkdir()  # not a file: the copy fails
    with pytest.raises(OSError):
        with HeldIndex(tmp_path, lambda: GitError("busy"), settle=0):
            raise AssertionError("entered")
    assert not (tmp_path / "index.lock").exists()


def test_an_index_lock_a_git_of_the_users_lets_go_of_meanwhile_is_no_problem(tmp_path, monkeypatch):
    from heartcompass.store import gitstate

    wg = committed_repo(tmp_path)
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    waits: list[float] = []

    def users_git_finishes(seconds: float) -> None:
        waits.append(seconds + 0)
        lock.unlink()

    monkeypatch.setattr(gitstate.time, "sleep", users_git_finishes)
    assert wg.index_lock_problem() is None and len(waits) == 1


# -- plain git: a chat's quick look, before GitPython is needed (gitplain) --------------------------------------------

from heartcompass.store.gitplain import PlainGit, parse_status, program_options  # noqa: E402


def test_program_options_set_each_named_program_to_nothing_and_a_filter_to_not_required():
    listed = "filter.crypt.clean\0diff.pdf.textconv\0filter.crypt.smudge\0diff.pdf.textconv\0not=a key\0\0"
    no_hooks = ("-c", f"core.hooksPath={os.devnull}")
    assert program_options(listed) == (*no_hooks, "-c", "diff.pdf.textconv=", "-c", "filter.crypt.clean=",
                                       "-c", "filter.crypt.required=false", "-c", "filter.crypt.smudge=",
                                       "-c", "filter.crypt.required=false")
    assert program_options("") == no_hooks


def test_a_diff_of_a_copied_workspace_runs_no_hook_though_git_rewrites_its_stale_index(tmp_path):
    """A workspace copied or restored from a backup has an index whose file times are all stale: `git diff`
    refreshes and writes it, and git then runs a post-index-change hook (GIT_OPTIONAL_LOCKS does not stop it).
    Reading never runs a program of the user's."""
    import shutil

    wg = committed_repo(tmp_path / "first")
    commit_files(wg, {"alice/a.md": "1\n", "alice/b.md": "b\n"}, "two")
    hooks, mark = tmp_path / "hooks", tmp_path / "ran"
    hooks.mkdir()
    (hooks / "post-index-change").write_text(f'#!/bin/sh\ntouch "{mark}"\n')
    (hooks / "post-index-change").chmod(0o755)

    def copied(name: str) -> WorkspaceGit:
        copy = WorkspaceGit(shutil.copytree(wg.root, tmp_path / name, symlinks=True))
        user_git(copy.root, "config", "core.hooksPath", str(hooks))
        write_file(copy, "alice/a.md", "2\n")  # alice/b.md unchanged: its stale index entry is what git refreshes
        return copy

    assert "+2" in copied("ours").diff(None, ["alice"])
    assert not mark.exists()
    user_git(copied("theirs").root, "diff", "HEAD", "--", "alice")  # the user's own git runs it: planted right
    assert mark.exists()


@pytest.mark.parametrize("out, items", [
    (" M a.md\0?? people/小明/new.md\0", [("M", "a.md"), ("??", "people/小明/new.md")]),
    ("R  new.md\0old.md\0 D gone.md\0", [("R", "new.md"), ("D", "old.md"), ("D", "gone.md")]),
    ("C  copy.md\0src.md\0A  added.md\0", [("C", "copy.md"), ("A", "added.md")]),  # a copy's source stays
    ("RM new.md\0old.md\0", [("RM", "new.md"), ("D", "old.md")]),
    ("R  new.md\0", [("R", "new.md")]),  # its source cut off: the new path all the same
    ("R  new.md", [("R", "new.md")]),
    ("?? x\0\0M  b.md\0", [("??", "x"), ("M", "b.md")]),
    ("", []),
])
def test_a_status_listing_is_read_entry_by_entry_a_rename_as_its_new_path_and_its_old_one_deleted(out, items):
    assert parse_status(out) == items


def _plain_repo(tmp_path: Path) -> WorkspaceGit:
    wg = committed_repo(tmp_path)
    return wg


def test_plain_git_is_at_rest_only_on_a_branch_with_commits_with_nothing_in_progress(tmp_path):
    wg = _plain_repo(tmp_path)
    plain = PlainGit(wg.root)
    assert plain.at_rest()
    gd = wg.root / ".git"
    for name in ("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "index.lock",
                 "heartcompass-sync", "heartcompass-undo"):
        (gd / name).write_text("")
        assert not plain.at_rest(), name
        (gd / name).unlink()
    assert plain.at_rest()
    head = (gd / "HEAD").read_text(encoding="utf-8")
    user_git(wg.root, "tag", "v1")  # refs/tags/v1 is a file: still no branch
    for odd in ("0123456789012345678901234567890123456789\n", "ref: refs/tags/v1\n", "ref: refs/heads/../x\n",
                "ref: refs/heads/../heads/main\n", "ref: refs/heads/orphan\n"):
        (gd / "HEAD").write_text(odd, encoding="utf-8")
        assert not plain.at_rest(), odd
    (gd / "HEAD").write_text(head, encoding="utf-8")
    user_git(wg.root, "pack-refs", "--all")
    with open(gd / "packed-refs", "ab") as packed:  # a branch named in Latin-1 by another tool: read, not fatal
        packed.write(wg.head().encode() + b" refs/heads/caf\xe9\n")
    assert not (gd / "refs/heads/main").exists() and PlainGit(wg.root).at_rest()  # packed: a branch all the same
    (gd / "HEAD").write_text("ref: refs/heads/mai\n", encoding="utf-8")
    assert not plain.at_rest()  # not a prefix of a packed branch's name
    (gd / "packed-refs").unlink()
    (gd / "HEAD").write_text(head, encoding="utf-8")
    assert not plain.at_rest()  # the branch is nowhere
    assert not PlainGit(tmp_path).at_rest()  # no repository here


def test_plain_git_at_rest_says_no_when_head_cannot_be_read(tmp_path):
    wg = _plain_repo(tmp_path)
    head = wg.root / ".git/HEAD"
    head.unlink()
    head.mkdir()
    assert not PlainGit(wg.root).at_rest()


def test_plain_status_lists_the_changes_under_the_paths_asked_whatever_the_environment_says(tmp_path, monkeypatch):
    """A hand edit, a new file (every untracked file, a Chinese name as it
    is, one whose name is not UTF-8 too), a deletion: listed under the paths
    asked only, from this repository whatever GIT_DIR or GIT_INDEX_FILE say,
    without running the user's filter, without rewriting the index, and
    read as UTF-8 whatever the locale."""
    import os

    wg = _plain_repo(tmp_path)
    commit_files(wg, {".gitattributes": "*.md filter=crypt\n", "people/a/MEMORY.md": "m\n",
                      "people/a/EVENTS.md": "e\n", "other/x.md": "x\n", "people/b/PROFILE.md": "b\n"}, "two")
    touched = wg.root / "people/b/PROFILE.md"
    os.utime(touched, ns=(touched.stat().st_mtime_ns + 10**9, touched.stat().st_mtime_ns + 10**9))  # same text
    ran = tmp_path / "CLEAN-RAN"
    user_git(wg.root, "config", "filter.crypt.clean", f"touch {ran} && cat")
    write_file(wg, "people/a/MEMORY.md", "M\n")  # the same size: git reads it through the filter to compare
    write_file(wg, "people/a/new/小明.md", "n\n")
    with open(os.fsencode(str(wg.root / "people/a")) + b"/caf\xe9.md", "wb") as f:
        f.write(b"odd name\n")
    (wg.root / "people/a/EVENTS.md").unlink()
    write_file(wg, "other/x.md", "y\n")
    index = (wg.root / ".git/index").read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", str(elsewhere))
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / "index"))
    monkeypatch.setattr(subprocess, "_text_encoding", lambda: "latin-1")
    found = PlainGit(wg.root).status([wg.root / "people"])
    assert sorted(found) == [("??", "people/a/caf\udce9.md"), ("??", "people/a/new/小明.md"),
                             ("D", "people/a/EVENTS.md"), ("M", "people/a/MEMORY.md")]
    assert not ran.exists() and (wg.root / ".git/index").read_bytes() == index


def test_a_plain_git_command_that_fails_is_one_line_naming_it(tmp_path):
    wg = _plain_repo(tmp_path)
    (wg.root / ".git/index").write_bytes(b"not an index")
    with pytest.raises(GitError) as failed:
        PlainGit(wg.root).status([wg.root])
    assert failed.value.message.startswith("git status failed: ") and "index" in failed.value.message


# -- what only the CLI tests said before (issue 29): plain git, a roll back, an undo, on the core API ----------------

def _latin1_locale(monkeypatch) -> None:
    """A locale whose encoding is Latin-1: a file opened without naming its encoding is read as Latin-1."""
    import io

    real = io.text_encoding
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: real(encoding) if encoding else "latin-1")


def test_a_branch_with_a_chinese_name_is_a_branch_whatever_the_locale(tmp_path, monkeypatch):
    """HEAD, packed-refs and a rebase's head-name are UTF-8 whatever the
    locale says: a branch named 小明 is at rest for a chat's quick look, a
    branch for the state, and named as itself while a sync rebases it."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "branch", "-m", "小明")
    user_git(wg.root, "pack-refs", "--all")
    assert not (wg.git_dir / "refs/heads/小明").exists()
    _latin1_locale(monkeypatch)
    assert PlainGit(wg.root).at_rest()
    assert wg._packed_refs() == ["refs/heads/小明"] and wg.state_problem() is None
    (wg.git_dir / "rebase-merge").mkdir()
    (wg.git_dir / "rebase-merge/head-name").write_text("refs/heads/小明\n", encoding="utf-8")
    assert wg.rebased_branch() == "小明"


def test_a_comment_in_packed_refs_that_names_a_branch_is_no_branch(tmp_path):
    """Only a ref line of packed-refs makes a branch: HEAD on a branch its
    comment names (and git does not know) is not at rest."""
    wg = committed_repo(tmp_path)
    user_git(wg.root, "pack-refs", "--all")
    packed = wg.git_dir / "packed-refs"
    packed.write_text("# pack-refs with: peeled refs/heads/orphan\n" + packed.read_text(encoding="utf-8"),
                      encoding="utf-8")
    assert PlainGit(wg.root).at_rest()  # on main, packed
    (wg.git_dir / "HEAD").write_text("ref: refs/heads/orphan\n", encoding="utf-8")
    assert not PlainGit(wg.root).at_rest()


def test_plain_status_of_a_folder_named_like_an_option_lists_that_folder(tmp_path):
    """A person's folder named "-uno" is a path to git, not an option that
    would hide its new files (and show the whole workspace's)."""
    wg = committed_repo(tmp_path)
    write_file(wg, "-uno/new.md", "n\n")
    write_file(wg, "other.md", "o\n")
    assert PlainGit(wg.root).status([wg.root / "-uno"]) == [("??", "-uno/new.md")]
    assert ("??", "other.md") in PlainGit(wg.root).status([wg.root])


def test_plain_git_never_reads_what_the_user_types(tmp_path):
    """A chat's quick look runs git with no input: what waits at the
    terminal is left for the chat (and a git asking for input would get none, never hang)."""
    import os

    wg = committed_repo(tmp_path)
    typed, writer = os.pipe()
    os.write(writer, b"typed at the terminal\n")
    os.close(writer)
    saved = os.dup(0)
    os.dup2(typed, 0)
    try:
        out = PlainGit(wg.root).run("hash-object", "--stdin")
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    try:
        assert out.strip() == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty blob: it read nothing
        assert os.read(typed, 100) == b"typed at the terminal\n"
    finally:
        os.close(typed)


def test_a_roll_back_rewrites_only_the_files_that_changed_whatever_comes_first_or_the_locale(tmp_path, monkeypatch):
    """A dot file first in git's order is skipped, not the end: the changed
    file after it is put back; a file as it is at HEAD (a Chinese text read
    as UTF-8 whatever the locale) is left untouched, the same inode."""
    wg = committed_repo(tmp_path)
    commit_files(wg, {".notes.md": "mine\n", "b.md": "b\n", "people/a/小明.md": "同\n"}, "two")
    write_file(wg, ".notes.md", "edited\n")
    write_file(wg, "b.md", "changed\n")
    same = wg.root / "people/a/小明.md"
    inode = same.stat().st_ino
    _latin1_locale(monkeypatch)
    wg.roll_back([".notes.md", "b.md", "people/a/小明.md"])
    assert (wg.root / "b.md").read_text(encoding="utf-8") == "b\n"
    assert (wg.root / ".notes.md").read_text(encoding="utf-8") == "edited\n"
    assert same.stat().st_ino == inode and same.read_text(encoding="utf-8") == "同\n"


def test_an_undo_is_refused_while_files_are_staged_by_hand_and_they_stay_staged(tmp_path):
    """Else the undo's commit would take them in, and a refused undo (git's
    abort) would delete a new one. The refusal names every staged file, and
    its hint is the command that unstages one, word for word: following it,
    the undo is made."""
    wg = committed_repo(tmp_path)
    target = commit_files(wg, {"a.md": "2\n"}, "two")
    write_file(wg, "mine.md", "the user's own\n")
    write_file(wg, "people/小明/-notes.md", "also mine\n")
    user_git(wg.root, "add", "mine.md", "people/小明/-notes.md")
    with pytest.raises(GitError) as refused:
        wg.revert(target, "undo: two", "")
    assert refused.value.message == ("That change cannot be undone while files are staged by hand: mine.md, "
                                     "people/小明/-notes.md; nothing was changed.")
    assert refused.value.hint == ("Commit them, or unstage them with 'git restore --staged -- <file>', "
                                  "then undo again.")
    assert wg.head() == target and (wg.root / "a.md").read_text() == "2\n"
    assert user_git(wg.root, "diff", "--cached", "--name-only", "-z").split("\0") == [
        "mine.md", "people/小明/-notes.md", ""]
    for staged in ("mine.md", "people/小明/-notes.md"):  # the hint's command, as the user types it
        user_git(wg.root, *refused.value.hint.split("'")[1].replace("<file>", staged).split()[1:])
    sha = wg.revert(target, "undo: two", "")
    assert user_git(wg.root, "show", "--name-only", "--format=", sha) == "a.md\n"
    assert (wg.root / "a.md").read_text() == "1\n" and (wg.root / "mine.md").read_text() == "the user's own\n"
    assert (wg.root / "people/小明/-notes.md").read_text() == "also mine\n"


def test_an_undo_whose_commit_is_made_says_so_even_when_its_mark_was_cleared_meanwhile(tmp_path):
    """The mark of an undo at work can be cleared by someone else once git's
    REVERT_HEAD is gone (another command's check_writable, which `tell` runs
    before it takes the lock; a post-commit hook of the user's): the undo
    was committed all the same, and says so with its sha, never an error
    that would have the user undo again."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    target = commit_files(wg, {"a.md": "2\n"}, "two")
    add_hook(wg, "post-commit", f'rm "$(git rev-parse --git-dir)/{UNDO_MARK}" && echo cleared > cleared.txt\n')
    sha = wg.revert(target, "undo: two", "This reverts commit x.")
    assert (wg.root / "cleared.txt").read_text() == "cleared\n"  # the mark was there, and gone before we looked
    assert sha == wg.head() and [c.subject for c in wg.log()] == ["undo: two", "two", "one"]
    assert (wg.root / "a.md").read_text() == "1\n" and not (wg.git_dir / UNDO_MARK).exists()


def test_a_refused_undo_puts_the_files_back_even_when_git_forgot_the_revert(tmp_path):
    """A hook that refuses the undo's commit after removing git's REVERT_HEAD
    (so `git revert --abort` has nothing to abort): the files are still as
    they were, nothing half-done."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    target = commit_files(wg, {"a.md": "2\n"}, "two")
    add_hook(wg, "pre-commit", 'rm -f "$(git rev-parse --git-dir)/REVERT_HEAD"\nexit 1\n')
    with pytest.raises(GitError) as refused:
        wg.revert(target, "undo: two", "")
    assert refused.value.message.startswith("git commit failed")
    assert wg.head() == target and (wg.root / "a.md").read_text() == "2\n"
    assert user_git(wg.root, "status", "--porcelain") == "" and not (wg.git_dir / UNDO_MARK).exists()


def test_a_link_replaced_by_a_text_is_written_with_a_plain_files_mode(wg):
    """commit_contents without an index writes the tree itself: a link that
    becomes a text gets mode 100644 in the tree's own bytes,
    as git writes it (git reads an odd mode as 100644, fsck calls it bad)."""
    commit_files(wg, {"target.md": "t\n"}, "one")
    (wg.root / "link.md").symlink_to("target.md")
    user_git(wg.root, "add", "link.md")
    user_git(wg.root, "commit", "-q", "-m", "a link by hand")
    assert wg.commit_contents({"link.md": "now a text\n"}, "two")
    raw = subprocess.run(["git", "cat-file", "tree", "HEAD^{tree}"], cwd=wg.root, capture_output=True,
                         check=True).stdout
    assert b"100644 link.md\0" in raw and b"100644 target.md\0" in raw
    assert user_git(wg.root, "show", "HEAD:link.md") == "now a text\n"


def test_an_interrupted_undo_is_taken_back_even_when_git_cannot_abort_it_itself(tmp_path):
    """The undo was killed and git's own `revert --abort` refuses (REVERT_HEAD
    unreadable): the next writer still puts the files and the index back as
    they were."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    head = commit_files(wg, {"a.md": "2\n"}, "two")
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    assert (wg.root / "a.md").read_text() == "1\n"
    (wg.git_dir / "REVERT_HEAD").write_text("not a commit\n")
    (wg.git_dir / UNDO_MARK).write_text(head + "\n")
    wg._take_back_interrupted_undo()  # what check_writable does first
    assert (wg.root / "a.md").read_text() == "2\n" and wg.head() == head
    assert user_git(wg.root, "status", "--porcelain") == "" and not (wg.git_dir / UNDO_MARK).exists()


def test_an_interrupted_undo_is_taken_back_when_git_refuses_to_abort_for_a_reason_of_its_own(tmp_path):
    """git's `revert --abort` can refuse with REVERT_HEAD sound (here over
    the state of a `git cherry-pick A B` of the user's, killed while git
    wrote it): the reset that takes the undo back then removes REVERT_HEAD
    itself, and the next writer goes on, the files as they were and the
    user's own file kept, never failing on a REVERT_HEAD already gone."""
    from heartcompass.store.gitstate import UNDO_MARK

    wg = committed_repo(tmp_path)
    head = commit_files(wg, {"a.md": "2\n"}, "two")
    write_file(wg, "mine.md", "the user's own\n")
    user_git(wg.root, "revert", "--no-commit", "HEAD")
    (wg.git_dir / "sequencer").mkdir()
    (wg.git_dir / "sequencer/head").write_text("")
    (wg.git_dir / UNDO_MARK).write_text(head + "\n")
    wg.check_writable()
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert wg.head() == head and wg.state_problem() is None
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "mine.md").read_text() == "the user's own\n"
    assert user_git(wg.root, "status", "--porcelain") == "?? mine.md\n"


def test_without_proc_a_ps_that_never_answers_is_given_up_on_not_waited_for(tmp_path, monkeypatch):
    """Elsewhere than Linux, a ps that hangs: the lock's problem is still
    named (as stale: no git found), after seconds, never a wait forever."""
    from heartcompass.store import gitstate

    class NoProc(type(Path())):
        def is_dir(self):
            return False if str(self) == "/proc" else super().is_dir()

    asked = []

    def hung_ps(command, **kwargs):
        asked.append(command)
        if kwargs.get("timeout") is None:
            raise AssertionError("ps never answers: without a timeout this waits forever")
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])

    wg = committed_repo(tmp_path)
    (wg.git_dir / "index.lock").write_text("")
    monkeypatch.setattr(gitstate, "Path", NoProc)
    monkeypatch.setattr(gitstate.subprocess, "run", hung_ps)
    assert wg.index_lock_problem(settle=0).startswith("A stale ")
    assert asked and asked[0][0] == "ps"


def test_without_proc_a_git_whose_path_holds_spaces_is_found_busy(tmp_path, monkeypatch):
    """Elsewhere than Linux, ps names a command by its whole path (macOS), and
    an app's own git may live under a folder with spaces (GitHub Desktop's):
    that git is found, so its index.lock is named as busy, never as stale to
    remove by hand while it works. A program that only has "git" in its path,
    and a git of our own, are not."""
    from heartcompass.store import gitstate

    class NoProc(type(Path())):
        def is_dir(self):
            return False if str(self) == "/proc" else super().is_dir()

    me = os.getpid()
    table = (f"  4242     1 /Applications/GitHub Desktop.app/Contents/Resources/app/git/bin/git\n"
             f"  4343     1 /Applications/My git tools/gitk\n"
             f"  4444 {me:5d} /usr/bin/git\n"
             f"   517     1 /usr/bin/git\n")

    def ps(command, **kwargs):
        assert command[0] == "ps"
        return subprocess.CompletedProcess(command, 0, stdout=table, stderr="")

    wg = committed_repo(tmp_path)
    monkeypatch.setattr(gitstate, "Path", NoProc)
    monkeypatch.setattr(gitstate.subprocess, "run", ps)
    assert gitstate.git_processes(wg.root) == [4242, 517]
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    assert wg.index_lock_problem(settle=0) == (
        f"git is busy in this workspace (git process 4242 holds {lock}): wait for it to finish and try again.")
