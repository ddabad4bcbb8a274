"""store/sync's promises that only the CLI's tests checked before (sync.py,
gitremote.py), on the core with a remote that is a folder here: a sync
holds the workspace lock as "sync" and never runs beside a gardener;
messages typed while a sync is stopped survive its --abort and --continue
and are committed; a hand edit made meanwhile stops both, with a copy of
it kept; --abort needs no remote; the user's own files beside people/ are
not checked against our formats."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess

import pytest
from conftest import git
from git_helpers import bare_remote, commit_files, new_repo, user_git

from heartcompass.errors import FormatError, HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.store import sync
from heartcompass.store.workspace import Workspace

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
    tries: list[float] = []
    with lock_mod.FileLock(ws.state_dir / "lock", "gardener"):
        clock = iter(range(0, 10_000))
        monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
        monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
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
    bare = bare_remote(tmp_path)
    one = new_repo(tmp_path / "one")
    commit_files(one, {"a.md": "base\n"}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {"a.md": "theirs\n\n"}, "two")
    two.push("origin", "main")
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
    bare = bare_remote(tmp_path)
    start = _day("2024-01-01", "10:00:00 · me · hello")
    one = new_repo(tmp_path / "one")
    commit_files(one, {LOG: start}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {LOG: _day("2024-01-01", "10:00:00 · me · hello, said otherwise", "11:00:00 · me · two")},
                 "two's chat")
    two.push("origin", "main")
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
    bare = bare_remote(tmp_path)
    start = _day("2024-01-01", "10:00:00 · me · hello")
    one = new_repo(tmp_path / "one")
    commit_files(one, {LOG: start}, "one")
    user_git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = new_repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    commit_files(two, {LOG: start + "just a line by hand\n"}, "two's edit")
    two.push("origin", "main")
    commit_files(one, {LOG: start + "- 12:00:00 · me · from one\n"}, "one's chat")
    assert one.pull_rebase("origin", "main") == [LOG]
    assert one.rebase_in_progress()
