"""store/git's promises about sync's git (gitremote), tested against a remote
that is a folder here (no network): commits go both ways, a day's log two
devices appended to is merged, a real conflict is left marked as ours, a
remote that never answers is named, and nothing is lost."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess

import pytest
from conftest import git
from git_helpers import (bare_remote, commit_files, day_log, held_by_a_gardener, new_repo,
                         user_git, write_file)

from heartcompass.errors import FormatError, GitError, HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.store import sync
from heartcompass.store.gitrepo import WorkspaceGit
from heartcompass.store.workspace import Workspace


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


def _behind_the_other_device(tmp_path, base: dict[str, str], theirs: dict[str, str], subject: str = "two"
                             ) -> WorkspaceGit:
    """Device one committed `base` and pushed it; device two, its clone,
    committed `theirs` over it and pushed: device one, not pulled yet."""
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, base, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, theirs, subject)
    two.push("origin", "main")
    return one


def test_a_stopped_rebase_can_be_abandoned_and_the_mark_goes_with_it(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    one = _behind_the_other_device(tmp_path, {"a.md": "1\n"}, {"a.md": "two\n"})
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
    one = _behind_the_other_device(tmp_path, {"a.md": "1\n", "b.md": "1\n"}, {"a.md": "two\n", "b.md": "two\n"})
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


# == store sync promises (kept in this file: a new file in a part's test list makes mutmut start the part over)
# store/sync's promises that only the CLI's tests checked before (sync.py,
# gitremote.py), on the core with a remote that is a folder here: a sync
# holds the workspace lock as "sync" and never runs beside a gardener;
# messages typed while a sync is stopped survive its --abort and --continue
# and are committed; a hand edit made meanwhile stops both, with a copy of
# it kept; --abort needs no remote; the user's own files beside people/ are
# not checked against our formats.

LOG = "people/alice/logs/2024-01-01.md"
NEW_DAY = "people/alice/logs/2024-01-02.md"


def _day(day: str, *entries: str) -> str:
    return f"---\ndate: {day}\n---\n\n" + "".join(f"- {e}\n" for e in entries)


def _append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _synced(ws, tmp_path) -> Workspace:
    """ws with alice's first day log, synced to a remote; another device's clone of it."""
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(ws, "remote", "add", "origin", str(bare))
    log = ws.root / LOG
    log.parent.mkdir()
    log.write_text(_day("2024-01-01", "10:00:00 · me · before"), encoding="utf-8")
    ws.git.commit([log], "log(alice): chat log 2024-01-01")
    assert sync.sync(ws).pushed
    other = Workspace(tmp_path / "other")
    subprocess.run(["git", "clone", "-q", str(bare), str(other.root)], check=True)
    return other


def _stopped(ws, tmp_path) -> Workspace:
    """Both devices append to alice's MEMORY.md: ws's sync stops on it."""
    other = _synced(ws, tmp_path)
    for each, line in ((other, "- from the other device\n"), (ws, "- from here\n")):
        _append(each.people_dir / "alice/MEMORY.md", line)
    assert sync.sync(other).pushed
    stopped = sync.sync(ws)
    assert stopped.conflicts == ["people/alice/MEMORY.md"] and stopped.pushed is False
    return other


def _chat_meanwhile(ws) -> None:
    """A chat with alice while the sync is stopped: to the day's log git knows, and a new day's."""
    dailylog.append(ws.root / LOG, dailylog.Entry("10:05:00", "me", "typed meanwhile 小林"), dt.date(2024, 1, 1))
    dailylog.append(ws.root / NEW_DAY, dailylog.Entry("09:00:00", "me", "a new day"), dt.date(2024, 1, 2))


def _texts(root, rel: str) -> list[str]:
    return [e.text for e in dailylog.load(root / rel)]


def _resolve(ws) -> None:
    memory = ws.people_dir / "alice/MEMORY.md"
    memory.write_text(re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2",
                             memory.read_text(encoding="utf-8"), flags=re.S), encoding="utf-8")


# -- what is typed while a sync is stopped ---------------------------------------------------------------------------

def test_messages_typed_while_a_sync_is_stopped_survive_its_abort_and_are_committed(example_ws, tmp_path):
    """--abort needs no remote (heartcompass.toml may be the very file in
    conflict): it goes back to this device's commits, and what was typed
    meanwhile is back in its logs, committed."""
    ws = example_ws
    _stopped(ws, tmp_path)
    _chat_meanwhile(ws)
    git(ws, "remote", "remove", "origin")
    done = sync.sync(ws, "abort")
    assert (done.remote, done.branch, done.committed, done.conflicts, done.pushed) == ("", "main", 0, [], False)
    assert done.kept == "kept 2 messages typed during the sync; committed"
    assert _texts(ws.root, LOG) == ["before", "typed meanwhile 小林"] and _texts(ws.root, NEW_DAY) == ["a new day"]
    assert "typed meanwhile 小林" in git(ws, "show", f"HEAD:{LOG}") and "a new day" in git(ws, "show", f"HEAD:{NEW_DAY}")
    assert git(ws, "status", "--porcelain") == "" and not ws.git.rebase_in_progress()
    assert not (ws.state_dir / sync.KEPT).exists()
    memory = (ws.people_dir / "alice/MEMORY.md").read_text(encoding="utf-8")
    assert "- from here" in memory and "- from the other device" not in memory


def test_messages_typed_while_a_sync_is_stopped_go_on_with_it_and_reach_the_other_device(example_ws, tmp_path):
    ws = example_ws
    other = _stopped(ws, tmp_path)
    _chat_meanwhile(ws)
    _resolve(ws)
    done = sync.sync(ws, "continue")
    assert (done.remote, done.branch, done.committed, done.conflicts, done.pushed) == ("origin", "main", 0, [], True)
    assert done.kept == "kept 2 messages typed during the sync; committed"
    assert git(ws, "status", "--porcelain") == "" and not ws.git.rebase_in_progress()
    assert sync.sync(other).pushed
    assert _texts(other.root, LOG) == ["before", "typed meanwhile 小林"] and _texts(other.root, NEW_DAY) == ["a new day"]
    assert "- from here" in (other.people_dir / "alice/MEMORY.md").read_text(encoding="utf-8")


def test_messages_a_crashed_sync_kept_aside_are_put_back_by_the_next_sync_and_pushed(example_ws, tmp_path):
    ws = example_ws
    other = _synced(ws, tmp_path)
    kept = [{"log": LOG, "base": 1, "text": "- 10:05:00 · me · kept by a crashed sync\n"}]
    (ws.state_dir / sync.KEPT).write_text(json.dumps(kept), encoding="utf-8")
    done = sync.sync(ws)
    assert done.kept == "kept 1 message typed during the sync; committed" and done.pushed is True
    assert not (ws.state_dir / sync.KEPT).exists()
    assert sync.sync(other).pushed
    assert _texts(other.root, LOG) == ["before", "kept by a crashed sync"]


@pytest.mark.parametrize("action, lost", [
    ("abort", "--abort would throw that change away"),
    ("continue", "git would put it into a commit replayed from elsewhere"),
])
def test_a_hand_edit_made_while_a_sync_is_stopped_stops_it_and_a_copy_is_kept(example_ws, tmp_path, action, lost):
    """The printed fix is a checkout: a copy of the file as it is now keeps
    the change whatever the user does next; nothing else was done."""
    ws = example_ws
    _stopped(ws, tmp_path)
    _resolve(ws)
    _chat_meanwhile(ws)
    profile = ws.people_dir / "alice/PROFILE.md"
    _append(profile, "\n喜欢下雨。\n")
    edited = profile.read_text(encoding="utf-8")
    with pytest.raises(HeartCompassError) as refused:
        sync.sync(ws, action)
    copies = sorted((ws.state_dir / "rejected").glob("alice-people-alice-PROFILE.md.*"))
    assert len(copies) == 1 and copies[0].read_text(encoding="utf-8") == edited
    assert refused.value.message == (f"people/alice/PROFILE.md was changed while the sync was stopped; {lost}. Nothing "
                                     f"was done; a copy of it as it is now is in {ws.rel(copies[0])}.")
    assert refused.value.hint == (f"Undo the change (git -C {ws.root} checkout -- people/alice/PROFILE.md), run "
                                  f"'heartcompass sync --{action}', then make it again from the copy.")
    assert ws.git.rebase_in_progress() and profile.read_text(encoding="utf-8") == edited
    assert _texts(ws.root, LOG)[-1] == "typed meanwhile 小林" and not (ws.state_dir / sync.KEPT).exists()


def test_a_hand_edit_that_is_not_text_stops_a_stopped_sync_without_a_copy(example_ws, tmp_path):
    ws = example_ws
    _stopped(ws, tmp_path)
    profile = ws.people_dir / "alice/PROFILE.md"
    profile.write_bytes(profile.read_bytes() + b"\xff\xfe not UTF-8\n")
    with pytest.raises(HeartCompassError) as refused:
        sync.sync(ws, "abort")
    assert refused.value.message == ("people/alice/PROFILE.md was changed while the sync was stopped; --abort would "
                                     "throw that change away. Nothing was done.")
    assert ws.git.rebase_in_progress() and not list((ws.state_dir / "rejected").glob("alice-*"))


# -- one writer at a time --------------------------------------------------------------------------------------------

def test_a_sync_holds_the_workspace_lock_as_a_sync(example_ws, tmp_path, monkeypatch):
    """Another command that finds the workspace busy is told a sync runs
    (and a gardener fails fast against it rather than waiting)."""
    from heartcompass.store.lock import holder

    ws = example_ws
    monkeypatch.chdir(tmp_path)
    bare = bare_remote(tmp_path)
    git(ws, "remote", "add", "origin", str(bare))
    seen = []
    real = sync.put_back

    def looking(ws_):
        seen.append((holder(ws.state_dir / "lock") or {}).get("purpose"))
        return real(ws_)

    monkeypatch.setattr(sync, "put_back", looking)
    assert sync.sync(ws).pushed and seen == ["sync"]
    assert holder(ws.state_dir / "lock") is None and not (tmp_path / "sync").exists()


def test_a_sync_never_runs_while_the_gardener_holds_the_workspace(example_ws, tmp_path, monkeypatch):
    from heartcompass.store import lock as lock_mod

    ws = example_ws
    monkeypatch.chdir(tmp_path)
    bare = bare_remote(tmp_path)
    git(ws, "remote", "add", "origin", str(bare))
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    head = ws.git.head()
    with held_by_a_gardener(ws, monkeypatch) as tries:
        with pytest.raises(lock_mod.LockBusy) as busy:
            sync.sync(ws)
    assert busy.value.message.startswith("Another HeartCompass gardener is running")
    assert tries == [] and ws.git.head() == head  # failed at the first look, nothing committed
    monkeypatch.undo()
    assert sync.sync(ws).committed == 1  # free again


# -- going on with a stopped sync -------------------------------------------------------------------------------------

def test_the_users_own_files_beside_people_are_not_checked_against_a_persons_formats(example_ws, tmp_path):
    """journal/logs/2024-01-01.md is the user's own file, not a person's
    day log: fixed in free prose, the sync goes on with it."""
    ws = example_ws
    rel = "journal/logs/2024-01-01.md"
    (ws.root / "journal/logs").mkdir(parents=True)
    (ws.root / rel).write_text("went hiking\n", encoding="utf-8")
    git(ws, "add", "--", rel)
    git(ws, "commit", "-q", "-m", "my journal, by hand")
    other = _synced(ws, tmp_path)
    (other.root / rel).write_text("went hiking\nrain there\n", encoding="utf-8")
    git(other, "commit", "-q", "-am", "there")
    git(other, "push", "-q", "origin", "main")
    (ws.root / rel).write_text("went hiking\nsun here\n", encoding="utf-8")
    git(ws, "commit", "-q", "-am", "here")
    assert sync.sync(ws).conflicts == [rel]
    (ws.root / rel).write_text("went hiking\nrain there, sun here\n", encoding="utf-8")
    done = sync.sync(ws, "continue")
    assert done.pushed is True and git(ws, "show", f"HEAD:{rel}") == "went hiking\nrain there, sun here\n"


def test_a_conflicted_files_three_versions_are_read_byte_for_byte(tmp_path):
    """The common version and each side's, as git holds them (a day's log
    is merged from these: a lost final newline would change the file)."""
    one = _behind_the_other_device(tmp_path, {"a.md": "base\n"}, {"a.md": "theirs\n\n"})
    commit_files(one, {"a.md": "mine\n"}, "mine")
    assert one.pull_rebase("origin", "main") == ["a.md"]
    assert [one._stage(n, "a.md") for n in (1, 2, 3)] == ["base\n", "theirs\n\n", "mine\n"]
    assert one._stage(2, "not-there.md") is None


def test_what_was_typed_is_kept_durably_before_git_runs_and_goes_back_once(example_ws, tmp_path, monkeypatch):
    """A crash right after git's --abort (before the entries went back):
    they wait in .heartcompass/typed-during-sync.json, readable and
    repairable by hand, the logs are as git expects them; put back later,
    they are in their logs once."""
    ws = example_ws
    _stopped(ws, tmp_path)
    _chat_meanwhile(ws)
    with monkeypatch.context() as crash:
        crash.setattr(sync, "put_back", lambda ws_: "")
        done = sync.sync(ws, "abort")
    assert done.kept == "" and not ws.git.rebase_in_progress()
    kept = (ws.state_dir / sync.KEPT).read_text(encoding="utf-8")
    assert json.loads(kept) == [
        {"log": LOG, "base": 1, "text": "- 10:05:00 · me · typed meanwhile 小林\n"},
        {"log": NEW_DAY, "base": 0, "text": "- 09:00:00 · me · a new day\n"},
    ]
    assert "小林" in kept and kept.startswith('[\n {\n  "log": ')  # as written, one key a line
    assert _texts(ws.root, LOG) == ["before"] and not (ws.root / NEW_DAY).exists()
    assert sync.put_back(ws) == "kept 2 messages typed during the sync; committed"
    assert sync.put_back(ws) == ""
    assert _texts(ws.root, LOG) == ["before", "typed meanwhile 小林"] and _texts(ws.root, NEW_DAY) == ["a new day"]


@pytest.mark.parametrize("change", ["rewritten", "deleted", "not a log"])
def test_a_day_log_changed_otherwise_than_appended_to_while_a_sync_is_stopped_stops_it(example_ws, tmp_path, change):
    """A log is append-only: one rewritten, deleted or given a line that is
    no entry while the sync was stopped is the user's change, and stops
    --abort as any hand edit does; nothing is cut from the other logs."""
    ws = example_ws
    _stopped(ws, tmp_path)
    dailylog.append(ws.root / NEW_DAY, dailylog.Entry("09:00:00", "me", "a new day"), dt.date(2024, 1, 2))
    log = ws.root / LOG
    if change == "rewritten":
        log.write_text(_day("2024-01-01", "10:00:00 · me · before, said otherwise"), encoding="utf-8")
    elif change == "deleted":
        log.unlink()
    else:
        _append(log, "just a line\n")
    with pytest.raises(HeartCompassError) as refused:
        sync.sync(ws, "abort")
    assert refused.value.message.startswith(f"{LOG} was changed while the sync was stopped; --abort would throw "
                                            "that change away. Nothing was done")
    copies = list((ws.state_dir / "rejected").glob("alice-people-alice-logs-2024-01-01.md.*"))
    if change == "deleted":
        assert refused.value.message.endswith("Nothing was done.") and copies == []
    else:
        assert [c.read_text(encoding="utf-8") for c in copies] == [log.read_text(encoding="utf-8")]
    assert ws.git.rebase_in_progress() and _texts(ws.root, NEW_DAY) == ["a new day"]
    assert not (ws.state_dir / sync.KEPT).exists()


# -- putting kept messages back ---------------------------------------------------------------------------------------

def _keep(ws, *items: tuple[str, int, str]) -> None:
    kept = [{"log": log, "base": base, "text": text} for log, base, text in items]
    (ws.state_dir / sync.KEPT).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")


def test_what_is_said_put_back_counts_the_users_messages_of_every_log_else_every_entry(example_ws):
    """The count is of what the user typed ("me", notes), over all logs;
    when only the persona's lines were kept, every entry counts."""
    ws = example_ws
    _keep(ws, (LOG, 0, "- 10:00:00 · me · one\n- 10:00:05 · persona · two\n- 10:00:09 · persona · three\n"),
          (NEW_DAY, 0, "- 10:00:00 · persona · four\n"))
    assert sync.put_back(ws) == "kept 1 message typed during the sync; committed"
    _keep(ws, ("people/alice/logs/2024-01-03.md", 0, "- 10:00:00 · persona · five\n- 10:00:05 · persona · six\n"),
          ("people/alice/logs/2024-01-04.md", 0, "- 10:00:00 · persona · seven\n"))
    assert sync.put_back(ws) == "kept 3 messages typed during the sync; committed"
    assert _texts(ws.root, "people/alice/logs/2024-01-04.md") == ["seven"] and _texts(ws.root, NEW_DAY) == ["four"]


def test_a_correction_kept_aside_still_takes_back_its_own_message_once_others_came_before_it(example_ws):
    """The sync stopped when the log had one entry; the user typed a line and
    took it back (a marker naming entry 2); meanwhile the log got another
    entry. Put back after it, the marker names the line it took back (3),
    not the other device's line."""
    ws = example_ws
    log = ws.root / LOG
    log.parent.mkdir()
    log.write_text(_day("2024-01-01", "10:00:00 · me · before", "10:01:00 · me · from the other device"),
                   encoding="utf-8")
    taken_back = dailylog.marker("10:06:00", "discards", [1], "taken back")
    _keep(ws, (LOG, 1, "- 10:05:00 · me · a typo\n" + taken_back.render()))
    assert sync.put_back(ws) == "kept 1 message typed during the sync; committed"
    entries = dailylog.load(log)
    assert [e.text for e in entries] == ["before", "from the other device", "a typo", "taken back"]
    assert entries[3].tags == ["discards 3"]
    assert [e.text for e in dailylog.effective_entries(entries)] == ["before", "from the other device"]


def test_kept_messages_waiting_for_their_log_stay_readable_in_their_file(example_ws, monkeypatch):
    """.heartcompass/typed-during-sync.json is repaired by hand when it must
    be: what waits is written as the user typed it (小林, not \\u escapes), a
    key a line."""
    ws = example_ws
    in_conflict = "people/alice/logs/2024-01-05.md"
    waiting = {"log": in_conflict, "base": 1, "text": "- 09:55:06 · me · 小林 typed while stopped\n"}
    _keep(ws, (in_conflict, 1, waiting["text"]), (NEW_DAY, 0, "- 10:00:00 · me · back now\n"))
    monkeypatch.setattr(type(ws.git), "rebase_in_progress", lambda self: True)
    monkeypatch.setattr(type(ws.git), "conflicted", lambda self: [in_conflict])
    assert sync.put_back(ws) == ("kept 1 message typed during the sync; back in the logs, committed once the "
                                 "sync is done")
    assert (ws.state_dir / sync.KEPT).read_text(encoding="utf-8") == (
        '[\n {\n  "log": "people/alice/logs/2024-01-05.md",\n  "base": 1,\n'
        '  "text": "- 09:55:06 · me · 小林 typed while stopped\\n"\n }\n]')
    assert _texts(ws.root, NEW_DAY) == ["back now"]


def test_kept_text_that_is_no_log_entry_is_named_in_the_kept_file(example_ws):
    ws = example_ws
    _keep(ws, (LOG, 0, "not an entry\n"))
    with pytest.raises(FormatError) as bad:
        sync.put_back(ws)
    assert bad.value.path == ws.state_dir / sync.KEPT and "not a log entry" in bad.value.message
    assert (ws.state_dir / sync.KEPT).exists() and not (ws.root / LOG).exists()


def test_a_days_log_whose_common_line_one_device_rewrote_is_left_to_the_user(tmp_path):
    """Two devices appended to a day's log, and one also changed a line they
    shared: not a union of appends, so not merged; the user decides."""
    start = _day("2024-01-01", "10:00:00 · me · hello")
    one = _behind_the_other_device(tmp_path, {LOG: start}, {LOG: _day("2024-01-01", "10:00:00 · me · hello, said otherwise", "11:00:00 · me · two")}, "two's chat")
    commit_files(one, {LOG: start + "- 12:00:00 · me · from one\n"}, "one's chat")
    assert one.pull_rebase("origin", "main") == [LOG]
    assert one.rebase_in_progress() and "<<<<<<<" in (one.root / LOG).read_text(encoding="utf-8")


def _two_devices(tmp_path):
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "1\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    return bare, one


def test_a_remote_without_our_branch_has_nothing_to_pull_even_with_a_tag_of_that_name(tmp_path):
    bare, one = _two_devices(tmp_path)
    stranger = new_repo(tmp_path / "stranger")
    commit_files(stranger, {"b.md": "not ours\n"}, "someone else's")
    user_git(stranger.root, "tag", "main")
    user_git(stranger.root, "push", "-q", str(bare), "refs/heads/main:refs/heads/other", "refs/tags/main:refs/tags/main")
    head = one.head()
    assert one.pull_rebase("origin", "main") == []
    assert one.head() == head and not (one.root / "b.md").exists()


def test_a_pull_takes_our_branch_of_the_remote_not_another(tmp_path):
    """The remote has "a-side" (listed first) and main: this device's main
    is rebased onto the remote's main only."""
    bare, one = _two_devices(tmp_path)
    user_git(one.root, "push", "-q", "origin", "main")  # by hand: our main tracks nothing yet
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {"b.md": "on main\n"}, "two's main")
    two.push("origin", "main")
    user_git(two.root, "checkout", "-q", "-b", "a-side")
    commit_files(two, {"c.md": "a side\n"}, "two's side")
    user_git(two.root, "push", "-q", "origin", "a-side")
    commit_files(one, {"d.md": "mine\n"}, "mine")
    assert one.pull_rebase("origin", "main") == []
    assert [c.subject for c in one.log()] == ["mine", "two's main", "one"] and not (one.root / "c.md").exists()


def test_a_days_log_rewritten_by_hand_into_no_log_is_left_to_the_user(tmp_path):
    """One device's copy of a shared day log holds a line that is no entry:
    not merged, not a crash; the user decides."""
    start = _day("2024-01-01", "10:00:00 · me · hello")
    one = _behind_the_other_device(tmp_path, {LOG: start}, {LOG: start + "just a line by hand\n"}, "two's edit")
    commit_files(one, {LOG: start + "- 12:00:00 · me · from one\n"}, "one's chat")
    assert one.pull_rebase("origin", "main") == [LOG]
    assert one.rebase_in_progress()
