"""store/git's promises about sync's git (gitremote), tested against a remote
that is a folder here (no network): commits go both ways, a day's log two
devices appended to is merged, a real conflict is left marked as ours, a
remote that never answers is named, and nothing is lost."""

from __future__ import annotations


import pytest
from git_helpers import (bare_remote, commit_files, day_log, new_repo, user_git,
                         write_file)

from heartcompass.errors import GitError
from heartcompass.store.gitrepo import WorkspaceGit


@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return new_repo(tmp_path)


# -- sync's git (gitremote.py) --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, seconds", [
    (None, 120.0), ("", 120.0), ("5", 5.0), ("0.5", 0.5), ("abc", 120.0), ("0", 120.0), ("-3", 120.0),
    ("86400", 120.0), ("86399", 86399.0),
])
def test_the_network_timeout_is_the_variable_when_it_is_a_sane_number(monkeypatch, value, seconds):
    from heartcompass.store.gitremote import network_timeout

    if value is None:
        monkeypatch.delenv("HEARTCOMPASS_GIT_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("HEARTCOMPASS_GIT_TIMEOUT", value)
    assert network_timeout() == seconds


def test_push_then_pull_with_rebase_carries_commits_between_two_clones(tmp_path):
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    assert one.remotes() == ["origin"] and one.branch() == "main"
    assert one.pull_rebase("origin", "main") == []  # the remote has no main yet: nothing to pull
    one.push("origin", "main")
    # a plain `git init --bare` remote's HEAD named master, which it does not have: now the branch pushed
    assert user_git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    two = new_repo(tmp_path / "two")
    assert two.adopt("origin", str(bare)) == "main"
    assert (two.root / "a.md").read_text() == "1\n" and two.branch() == "main"
    commit_files(two, {"b.md": "from two\n"}, "two")
    two.push("origin", "main")
    commit_files(one, {"c.md": "from one\n"}, "three")
    assert one.pull_rebase("origin", "main") == []
    assert [c.subject for c in one.log()] == ["three", "two", "one"]
    assert (one.root / "b.md").read_text() == "from two\n"


def test_a_remotes_head_on_a_branch_it_has_is_left_alone(tmp_path):
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", f"file://{bare}")
    one.push("origin", "main")
    assert user_git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"  # file:// too
    user_git(one.root, "checkout", "-q", "-b", "other")
    one.push("origin", "other")
    assert user_git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_the_same_days_log_from_two_devices_is_merged_and_a_real_conflict_is_left_marked_as_ours(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    one, two, log, start = _a_log_the_other_device_appended_to(tmp_path, {"people/a/MEMORY.md": "m\n"})
    commit_files(one, {log: start + "- 12:00:00 · me · from one\n"}, "one's chat")
    assert one.pull_rebase("origin", "main") == []
    merged = (one.root / log).read_text(encoding="utf-8")
    assert "from two" in merged and "from one" in merged and "<<<<<<<" not in merged
    assert not one.rebase_in_progress()
    one.push("origin", "main")
    two.pull_rebase("origin", "main")
    commit_files(two, {"people/a/MEMORY.md": "two's edit\n"}, "two's edit")
    two.push("origin", "main")
    commit_files(one, {"people/a/MEMORY.md": "one's edit\n"}, "one's edit")
    assert one.pull_rebase("origin", "main") == ["people/a/MEMORY.md"]
    assert (one.git_dir / SYNC_MARK).read_text() == "origin main\n"
    assert "heartcompass sync --continue" in one.state_problem()
    write_file(one, "people/a/MEMORY.md", "both\n")
    write_file(one, "people/a/logs/2024-01-02.md", day_log("2024-01-02", "09:00:00 · me · typed meanwhile"))
    changed, new = one.changed_in_worktree()
    assert set(changed) == {"people/a/MEMORY.md"} and new == ["people/a/logs/2024-01-02.md"]
    one.stage(["people/a/MEMORY.md"])
    assert one.rebase_continue() == []
    assert (one.root / "people/a/MEMORY.md").read_text() == "both\n" and not one.rebase_in_progress()


def test_a_stopped_rebase_can_be_abandoned_and_the_mark_goes_with_it(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {"a.md": "two\n"}, "two")
    two.push("origin", "main")
    mine = commit_files(one, {"a.md": "one\n"}, "mine")
    assert one.pull_rebase("origin", "main") == ["a.md"]
    assert one.rebase_continue() == ["a.md"]  # not fixed yet: still in conflict
    one.rebase_abort()
    assert not one.rebase_in_progress() and not (one.git_dir / SYNC_MARK).exists()
    assert one.head() == mine and (one.root / "a.md").read_text() == "one\n"


def test_adopting_a_remote_takes_its_heads_branch_else_main_else_its_only_one(tmp_path):
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    user_git(one.root, "push", "-q", "origin", "main:work", "main:other")
    user_git(bare, "symbolic-ref", "HEAD", "refs/heads/work")
    assert new_repo(tmp_path / "a").adopt("origin", str(bare)) == "work"
    user_git(bare, "symbolic-ref", "HEAD", "refs/heads/gone")
    with pytest.raises(GitError) as none:
        new_repo(tmp_path / "b").adopt("origin", str(bare))
    assert none.value.message == f"{bare} has no HeartCompass workspace to copy: its branches are other, work, and none is main."
    assert none.value.hint == "Run 'heartcompass sync' on the device that has the workspace first."
    user_git(one.root, "push", "-q", "origin", "main:master")
    assert new_repo(tmp_path / "c").adopt("origin", str(bare)) == "master"
    user_git(one.root, "push", "-q", "origin", "main:main")
    assert new_repo(tmp_path / "d").adopt("origin", str(bare)) == "main"
    only = bare_remote(tmp_path, "only.git")
    user_git(one.root, "push", "-q", str(only), "main:solo")
    assert new_repo(tmp_path / "e").adopt("origin", str(only)) == "solo"
    empty = bare_remote(tmp_path, "empty.git")
    with pytest.raises(GitError) as nothing:
        new_repo(tmp_path / "f").adopt("origin", str(empty))
    assert nothing.value.message.endswith("has no HeartCompass workspace to copy: it has no commits yet.")


@pytest.mark.parametrize("said", ["Timeout: kill_after_timeout=7 s", "git fetch did not complete in 7 s"])
def test_a_remote_that_does_not_answer_in_time_is_named_and_nothing_is_lost(tmp_path, monkeypatch, said):
    """A fetch or push killed at the timeout: one line with the time, and
    what to check; the commits are all still here."""
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    monkeypatch.setenv("HEARTCOMPASS_GIT_TIMEOUT", "7")
    seen = {}

    def timing_out(*args, options=(), **kwargs):
        seen.update(options=options, kwargs=kwargs)
        raise GitError(f"git ls-remote failed: {said}")

    monkeypatch.setattr(one, "_git", timing_out)
    with pytest.raises(GitError) as gave_up:
        one.pull_rebase("origin", "main")
    assert gave_up.value.message == "git ls-remote gave up: the remote did not answer within 7 s."
    assert gave_up.value.hint == ("Check the remote's address and your connection (git remote -v), then sync "
                                  "again. Nothing was lost: your commits are all here.")
    assert seen == {"options": ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30"),
                    "kwargs": {"kill_after_timeout": 7.0}}

    def refusing(*args, **kwargs):
        raise GitError("git push failed: rejected")

    monkeypatch.setattr(one, "_git", refusing)
    with pytest.raises(GitError) as other:
        one.push("origin", "main")
    assert other.value.message == "git push failed: rejected"


def test_a_remote_named_relative_to_the_workspace_gets_its_head_on_our_branch(tmp_path, monkeypatch):
    """`git remote add origin ../remote.git` is relative to the workspace,
    wherever the command is run from: a clone of it must check out our branch."""
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")  # tmp_path/one/repo
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", "../../remote.git")
    elsewhere = tmp_path / "elsewhere"  # not as deep as the workspace: "../.." from here is not the remote
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    one.push("origin", "main")
    assert user_git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_a_hosted_remote_is_left_to_choose_its_own_head(tmp_path, monkeypatch):
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", "git@example.com:me/brain.git")
    calls: list[tuple] = []
    real = one._git

    def recording(*args, options=(), **kwargs):
        calls.append(args)
        if args[0] == "push":
            return ""
        return real(*args, options=options, **kwargs)

    monkeypatch.setattr(one, "_git", recording)
    one.push("origin", "main")
    assert [c[0] for c in calls] == ["push", "remote"]  # no symbolic-ref on a remote that is not a folder here


def test_each_replayed_commit_that_stops_on_a_days_log_is_merged_in_turn(tmp_path):
    """Two commits of this device appended to a log the other device also
    appended to: the rebase stops on each, and each is merged as a union."""
    one, _, log, start = _a_log_the_other_device_appended_to(tmp_path)
    commit_files(one, {log: start + "- 12:00:00 · me · first here\n"}, "chat 1")
    commit_files(one, {log: start + "- 12:00:00 · me · first here\n- 13:00:00 · me · second here\n"}, "chat 2")
    assert one.pull_rebase("origin", "main") == []
    assert not one.rebase_in_progress()
    assert [c.subject for c in one.log()] == ["chat 2", "chat 1", "two's chat", "one"]
    from heartcompass.formats import dailylog

    texts = [e.text for e in dailylog.parse(user_git(one.root, "show", f"HEAD:{log}"), log)]
    assert texts == ["hello", "from two", "first here", "second here"]


def _a_log_the_other_device_appended_to(tmp_path, more: dict | None = None):
    """Device one committed a day's log (and `more`) and pushed it; device two
    appended to that log and pushed: (one, two, the log's path, its first text)."""
    bare = bare_remote(tmp_path)
    log = "people/a/logs/2024-01-01.md"
    start = day_log("2024-01-01", "10:00:00 · me · hello")
    one = new_repo(tmp_path / "one")
    commit_files(one, {log: start, **(more or {})}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {log: start + "- 11:00:00 · me · from two\n"}, "two's chat")
    two.push("origin", "main")
    return one, two, log, start


def test_adopting_a_remote_of_any_name_takes_a_branch_with_a_slash_and_tracks_it(tmp_path):
    """A remote called "backup" (not origin), its only branch "team/brain",
    a tag beside it: the branch is found whole, checked out, and tracks the
    remote's (a plain `git pull` of the user's works), whatever the user's
    branch.autoSetupMerge says."""
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "tag", "v1")
    user_git(one.root, "push", "-q", str(bare), "main:team/brain", "v1")
    fresh = new_repo(tmp_path / "fresh")
    user_git(fresh.root, "config", "branch.autoSetupMerge", "false")
    assert fresh.adopt("backup", str(bare)) == "team/brain"
    assert user_git(fresh.root, "rev-parse", "--abbrev-ref", "@{u}").strip() == "backup/team/brain"
    assert (fresh.root / "a.md").read_text() == "1\n" and fresh.branch() == "team/brain"


def test_a_real_conflict_listed_first_still_lets_each_days_log_after_it_be_merged(tmp_path):
    """a.md in conflict (sorted before people/), and a day's log both
    devices appended to: the log is merged, only a.md is left to the user."""
    one, two, log, start = _a_log_the_other_device_appended_to(tmp_path, {"a.md": "1\n"})
    two.pull_rebase("origin", "main")
    commit_files(two, {"a.md": "two\n"}, "two's a")
    two.push("origin", "main")
    commit_files(one, {log: start + "- 12:00:00 · me · from one\n", "a.md": "one\n"}, "one's chat and a")
    assert one.pull_rebase("origin", "main") == ["a.md"]
    assert one.conflicted() == ["a.md"]
    merged = (one.root / log).read_text(encoding="utf-8")
    assert "from two" in merged and "from one" in merged and "<<<<<<<" not in merged


def test_a_days_log_deleted_here_and_appended_there_is_left_to_the_user(tmp_path):
    one, _, log, _ = _a_log_the_other_device_appended_to(tmp_path)
    (one.root / log).unlink()
    one.commit([log], "deleted by hand")
    assert one.pull_rebase("origin", "main") == [log]
    assert one.rebase_in_progress()


def test_going_on_with_a_sync_whose_next_commit_conflicts_too_names_that_commits_files(tmp_path):
    """The user fixed the first stop; the next replayed commit stops on
    another file: that file is named, not an error."""
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n", "b.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {"a.md": "two\n", "b.md": "two\n"}, "two")
    two.push("origin", "main")
    commit_files(one, {"a.md": "one\n"}, "one's a")
    commit_files(one, {"b.md": "one\n"}, "one's b")
    assert one.pull_rebase("origin", "main") == ["a.md"]
    write_file(one, "a.md", "both\n")
    one.stage(["a.md"])
    assert one.rebase_continue() == ["b.md"]


def test_what_changed_during_a_stopped_sync_leaves_ignored_files_out_and_a_dash_name_is_staged(wg):
    commit_files(wg, {".gitignore": "*.tmp\n", "a.md": "1\n"}, "one")
    write_file(wg, "a.md", "2\n")
    write_file(wg, "scratch.tmp", "t\n")
    write_file(wg, "-new.md", "n\n")
    assert wg.changed_in_worktree() == (["a.md"], ["-new.md"])
    wg.stage(["-new.md"])
    assert user_git(wg.root, "diff", "--cached", "--name-only") == "-new.md\n"


def test_a_push_sets_the_upstream_and_a_remote_head_on_a_branch_only_it_has_is_left_alone(tmp_path):
    """After sync's push the branch tracks the remote's (the user's plain
    `git pull` and `git status` know it); a remote whose HEAD names a branch
    it has, that this device never had, keeps it."""
    bare = bare_remote(tmp_path)
    other = new_repo(tmp_path / "other")
    commit_files(other, {"w.md": "w\n"}, "work")
    user_git(other.root, "push", "-q", str(bare), "main:work")
    user_git(bare, "symbolic-ref", "HEAD", "refs/heads/work")
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    assert user_git(one.root, "rev-parse", "--abbrev-ref", "@{u}").strip() == "origin/main"
    assert user_git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/work"
    assert user_git(bare, "rev-parse", "main").strip() == one.head()


def test_a_git_that_records_the_remotes_head_at_fetch_adds_no_branch_named_head(tmp_path, monkeypatch):
    """git 2.48 and later write refs/remotes/<remote>/HEAD when fetching:
    it is no branch, so a remote's only branch is still its only one."""
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "push", "-q", str(bare), "main:solo")
    fresh = new_repo(tmp_path / "fresh")
    fetch = fresh._network

    def fetching_as_newer_git_does(*args: str) -> str:
        out = fetch(*args)
        if args[0] == "fetch":
            user_git(fresh.root, "remote", "set-head", "origin", "solo")
        return out

    monkeypatch.setattr(fresh, "_network", fetching_as_newer_git_does)
    assert fresh.adopt("origin", str(bare)) == "solo"
    assert user_git(fresh.root, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/").split() == [
        "refs/remotes/origin/HEAD", "refs/remotes/origin/solo"]
