"""`watch` on the core (intake/watcher.py), no observer thread of watchdog's
own: which saves are hand edits of a person's file; a burst of saves is one
`edit(<slug>): by hand` commit per person, made holding the workspace lock;
an invalid file is reported once and never committed; while another
command holds the lock the watcher waits, and while git cannot take a
commit (mid-merge) the edits wait, said once."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import git, subjects
from heartcompass.intake.watcher import EditWatcher, relevant


def _ws(root: Path) -> SimpleNamespace:
    """All relevant() reads of a workspace: where people/ is."""
    (root / "people").mkdir(parents=True)
    return SimpleNamespace(people_dir=root / "people")


@pytest.mark.parametrize("name", ["alice/.PROFILE.md.swp", "alice/PROFILE.md~", "alice/#PROFILE.md#", "alice/4913",
                                  "alice/.PROFILE.md.abc.tmp", "alice/MEMORY.md.tmp", "alice/PROFILE.md.bak",
                                  "alice/PROFILE.md.orig", "alice/PROFILE.md.swo", "alice/notes.txt",
                                  "alice/logs/2026-12-02.md", ".archive/bob/PROFILE.md", ".alice/PROFILE.md",
                                  "PROFILE.md", "alice", "alice/avatar.png", "alice/x.swp"])
def test_editor_swap_backup_temp_files_logs_and_the_archive_are_no_hand_edits(tmp_path, name):
    ws = _ws(tmp_path)
    assert relevant(ws, str(ws.people_dir / name)) is None
    assert relevant(ws, str(ws.people_dir / "alice" / "MEMORY.md")) == "alice"


@pytest.mark.parametrize("name", ["PROFILE.md", "EVENTS.md", "MEMORY.md", "VOICE.md", "notes.md", "a.swz.md",
                                  "4913.md", "x~y.md"])
def test_any_markdown_file_in_a_persons_folder_is_theirs(tmp_path, name):
    ws = _ws(tmp_path)
    assert relevant(ws, str(ws.people_dir / "小爱" / name)) == "小爱"


def test_a_path_outside_people_is_nobodys(tmp_path):
    ws = _ws(tmp_path / "brain")
    assert relevant(ws, str(ws.people_dir.parent / "heartcompass.toml")) is None
    assert relevant(ws, str(tmp_path / "alice" / "PROFILE.md")) is None
    assert relevant(ws, str(ws.people_dir / "alice" / ".." / "me" / "PROFILE.md")) == "me"


def _edit(ws, slug="alice", name="MEMORY.md", line="- typed by hand"):
    path = ws.people_dir / slug / name
    path.write_text(path.read_text(encoding="utf-8").replace("## Facts\n\n", f"## Facts\n\n{line}\n", 1)
                    if name == "MEMORY.md" else path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    return path


def test_a_burst_of_saves_is_one_commit_per_person_made_holding_the_lock(example_ws, monkeypatch):
    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    commits, seen = [], []
    real = audit.commit_valid_edits
    monkeypatch.setattr(audit, "commit_valid_edits",
                        lambda ws, person: seen.append(holder(ws.state_dir / "lock")) or real(ws, person))
    watcher = EditWatcher(example_ws, on_commit=lambda slug, sha: commits.append((slug, sha)))
    _edit(example_ws, "alice")
    _edit(example_ws, "me", "PROFILE.md", "Likes long walks.")
    watcher.process({"me", "alice", "gone"})  # sorted; a folder removed meanwhile is skipped
    assert [slug for slug, _ in commits] == ["alice", "me"]
    assert subjects(example_ws)[:2] == ["edit(me): by hand", "edit(alice): by hand"]
    assert commits[1][1] == git(example_ws, "rev-parse", "HEAD").strip()
    assert seen and all(s["pid"] == os.getpid() and s["purpose"] == "watch" for s in seen)
    assert git(example_ws, "status", "--porcelain") == ""
    watcher.process({"alice"})  # nothing new: no commit, nothing said
    assert len(commits) == 2


def test_an_invalid_file_is_reported_once_not_committed_and_committed_once_fixed(example_ws):
    commits, invalid = [], []
    watcher = EditWatcher(example_ws, on_commit=lambda slug, sha: commits.append(slug), on_invalid=invalid.append)
    path = example_ws.people_dir / "alice" / "EVENTS.md"
    before = subjects(example_ws)
    path.write_text(path.read_text(encoding="utf-8") + "- 2026-02-30 · impossible\n", encoding="utf-8")
    watcher.process({"alice"})
    watcher.process({"alice"})  # the same content: said once
    assert len(invalid) == 1 and "not a real date" in invalid[0].message and subjects(example_ws) == before
    assert commits == []
    path.write_text(path.read_text(encoding="utf-8") + "- 2026-02-31 · still impossible\n", encoding="utf-8")
    watcher.process({"alice"})
    assert len(invalid) == 2  # changed, still invalid: said again
    path.write_text(path.read_text(encoding="utf-8").replace("- 2026-02-30 · impossible\n", "")
                    .replace("2026-02-31", "2026-02-28"), encoding="utf-8")
    watcher.process({"alice"})
    assert commits == ["alice"] and subjects(example_ws)[0] == "edit(alice): by hand"


def test_an_invalid_file_removed_since_is_reported_without_its_text(example_ws, monkeypatch):
    from heartcompass.errors import FormatError
    from heartcompass.store import audit

    gone = example_ws.people_dir / "alice" / "GONE.md"
    monkeypatch.setattr(audit, "commit_valid_edits", lambda ws, person: (None, [FormatError(gone, "bad")]))
    invalid = []
    watcher = EditWatcher(example_ws, on_invalid=invalid.append)
    watcher.process({"alice"})
    watcher.process({"alice"})
    assert len(invalid) == 1 and watcher.reported == {gone: ""}


def test_while_another_command_holds_the_lock_it_waits_then_commits(example_ws):
    from heartcompass.store.lock import FileLock

    lock = FileLock(example_ws.state_dir / "lock", "gardener")  # held long: a waiter gives up soon
    lock.acquire()
    waited, commits = [], []

    def on_wait(owner):
        waited.append(owner)
        lock.release()  # the gardener is done

    watcher = EditWatcher(example_ws, on_commit=lambda slug, sha: commits.append(slug), on_wait=on_wait)
    _edit(example_ws)
    watcher.process({"alice"})
    assert len(waited) == 1 and waited[0]["purpose"] == "gardener" and commits == ["alice"]


def test_stopped_while_waiting_for_the_lock_it_commits_nothing(example_ws):
    from heartcompass.store.lock import FileLock

    lock = FileLock(example_ws.state_dir / "lock", "gardener")  # held long: a waiter gives up soon
    lock.acquire()
    watcher = EditWatcher(example_ws, on_wait=lambda owner: watcher.stop.set())
    _edit(example_ws)
    before = subjects(example_ws)
    try:
        watcher.process({"alice"})
    finally:
        lock.release()
    assert watcher.stop.is_set() and subjects(example_ws) == before


def test_while_git_cannot_take_a_commit_the_edits_wait_said_once(example_ws):
    blocked, commits = [], []
    watcher = EditWatcher(example_ws, on_commit=lambda slug, sha: commits.append(slug), on_blocked=blocked.append)
    merge_head = Path(example_ws.root) / ".git" / "MERGE_HEAD"
    merge_head.write_text(git(example_ws, "rev-parse", "HEAD"), encoding="utf-8")
    _edit(example_ws)
    watcher.process({"alice"})
    _edit(example_ws, "me", "PROFILE.md", "Likes rain.")
    watcher.process({"me"})
    assert len(blocked) == 1 and watcher.deferred == {"alice", "me"} and commits == []
    assert watcher.blocked_by == blocked[0].message
    merge_head.unlink()
    watcher.process(set())  # the next burst takes the ones that waited
    assert sorted(commits) == ["alice", "me"] and watcher.deferred == set() and watcher.blocked_by is None
    merge_head.write_text(git(example_ws, "rev-parse", "HEAD"), encoding="utf-8")
    _edit(example_ws, line="- again")
    watcher.process({"alice"})
    assert len(blocked) == 2  # blocked again after it cleared: said again


# -- the loop: events from watchdog, a burst ended by a quiet moment ---------------------------------------------------

class _Observer:
    """watchdog's Observer without its thread: the handler is kept for the test to call."""

    made: list["_Observer"] = []

    def __init__(self):
        self.scheduled, self.started, self.stopped, self.joined = None, False, False, False
        _Observer.made.append(self)

    def schedule(self, handler, path, recursive):
        self.scheduled = (handler, path, recursive)

    def start(self):
        self.started = True

    def stop(self):
        self.stopped = True

    def join(self):
        self.joined = True


def test_the_loop_turns_watchdogs_events_into_one_batch_per_burst(example_ws, monkeypatch):
    import watchdog.observers

    monkeypatch.setattr(watchdog.observers, "Observer", _Observer)
    _Observer.made.clear()
    watcher = EditWatcher(example_ws, debounce=0.05)
    batches = []

    def process(slugs):
        batches.append(set(slugs))
        watcher.stop.set()

    monkeypatch.setattr(watcher, "process", process)
    people = str(example_ws.people_dir)
    for slug in ("alice", "me", "alice"):
        watcher.events.put(slug)
    watcher.run()
    (observer,) = _Observer.made
    handler, path, recursive = observer.scheduled
    assert path == people and recursive is True and observer.started and observer.stopped and observer.joined
    assert watcher.ready.is_set() and batches == [{"alice", "me"}]

    def event(kind, src, dest=""):
        return SimpleNamespace(event_type=kind, src_path=src, dest_path=dest)

    handler.on_any_event(event("modified", f"{people}/alice/PROFILE.md"))
    handler.on_any_event(event("opened", f"{people}/me/PROFILE.md"))  # a read is no save
    handler.on_any_event(event("closed_no_write", f"{people}/me/PROFILE.md"))
    handler.on_any_event(event("moved", f"{people}/me/.PROFILE.md.tmp", f"{people}/me/PROFILE.md"))
    handler.on_any_event(event("created", f"{people}/alice/logs/2026-12-01.md"))
    handler.on_any_event(SimpleNamespace(event_type="deleted", src_path=f"{people}/bob/EVENTS.md"))
    got = []
    while not watcher.events.empty():
        got.append(watcher.events.get())
    assert got == ["alice", "me", "bob"]


def test_the_loop_stops_between_bursts_and_stops_its_observer(example_ws, monkeypatch):
    import watchdog.observers

    monkeypatch.setattr(watchdog.observers, "Observer", _Observer)
    _Observer.made.clear()
    watcher = EditWatcher(example_ws)
    called = []
    monkeypatch.setattr(watcher, "process", called.append)
    watcher.stop.set()
    watcher.run()
    assert called == [] and _Observer.made[0].stopped and _Observer.made[0].joined


def test_a_watcher_starts_with_nothing_waiting_and_callbacks_that_do_nothing(example_ws):
    watcher = EditWatcher(example_ws)
    assert watcher.debounce == 1.0 and watcher.deferred == set() and watcher.blocked_by is None
    assert watcher.reported == {} and not watcher.ready.is_set() and not watcher.stop.is_set()
    assert watcher.on_commit("a", "b") is None and watcher.on_invalid(None) is None
    assert watcher.on_wait({}) is None and watcher.on_blocked(None) is None
