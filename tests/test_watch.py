from __future__ import annotations

import threading
import time

import pytest

from conftest import git, subjects
from waits import DEADLINE, wait_until
from heartcompass.store.lock import FileLock
from heartcompass.intake.watcher import EditWatcher, relevant


@pytest.fixture
def watching(example_ws):
    commits, invalid = [], []
    watcher = EditWatcher(example_ws, debounce=0.4, on_commit=lambda s, sha: commits.append(s),
                          on_invalid=invalid.append)
    thread = threading.Thread(target=watcher.run, daemon=True)
    thread.start()
    assert watcher.ready.wait(DEADLINE), "the observer never started"
    yield example_ws, commits, invalid, watcher
    watcher.stop.set()
    thread.join(timeout=DEADLINE)
    assert not thread.is_alive(), "the watcher did not stop"


def test_a_burst_of_saves_is_one_commit(watching):
    ws, commits, invalid, _ = watching
    path = ws.people_dir / "alice" / "PROFILE.md"
    for drink in ("matcha", "hojicha", "jasmine tea"):
        path.write_text(path.read_text().replace("oolong tea", drink).replace("matcha", drink)
                        .replace("hojicha", drink))
        time.sleep(0.05)
    wait_until(lambda: commits == ["alice"])
    assert subjects(ws)[0] == "edit(alice): by hand"
    assert "jasmine tea" in git(ws, "show", "HEAD:people/alice/PROFILE.md")
    # Another save after it, then: a second commit of the burst would come before this one's.
    me = ws.people_dir / "me" / "PROFILE.md"
    me.write_text(me.read_text() + "\nLikes long walks.\n")
    wait_until(lambda: "me" in commits)
    assert commits == ["alice", "me"]


def test_editor_swap_and_temp_files_are_ignored(example_ws):
    for name in ("alice/.PROFILE.md.swp", "alice/PROFILE.md~", "alice/#PROFILE.md#", "alice/4913",
                 "alice/.PROFILE.md.abc.tmp", "alice/logs/2026-12-02.md", ".archive/bob/PROFILE.md"):
        assert relevant(example_ws, str(example_ws.people_dir / name)) is None, name
    assert relevant(example_ws, str(example_ws.people_dir / "alice" / "MEMORY.md")) == "alice"


def test_an_invalid_file_is_reported_not_committed(watching):
    ws, commits, invalid, _ = watching
    path = ws.people_dir / "alice" / "EVENTS.md"
    before = subjects(ws)
    path.write_text(path.read_text() + "- 2026-02-30 · impossible\n")
    wait_until(lambda: len(invalid) == 1)
    assert "not a real date" in invalid[0].message and subjects(ws) == before
    path.write_text(path.read_text().replace("2026-02-30", "2026-02-28"))
    wait_until(lambda: commits == ["alice"])


def test_it_waits_while_the_gardener_holds_the_lock(watching):
    ws, commits, invalid, watcher = watching
    lock = FileLock(ws.state_dir / "lock")
    lock.acquire()
    path = ws.people_dir / "alice" / "MEMORY.md"
    waited = threading.Event()
    watcher.on_wait = lambda owner: waited.set()
    path.write_text(path.read_text().replace("## Facts\n\n", "## Facts\n\n- typed during the garden\n"))
    wait_until(waited.is_set, what="the watcher to try to commit the edit")  # it saw it, and waits
    assert commits == [] and subjects(ws)[0] != "edit(alice): by hand"
    lock.release()
    wait_until(lambda: commits == ["alice"])


def test_the_watchers_commit_holds_the_workspace_lock(watching, monkeypatch):
    """Not a peek then a commit (the gardener could start in between): the
    commit is made holding the lock, so no gardener can run meanwhile."""
    import os

    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    ws, commits, invalid, _ = watching
    seen = []
    real = audit.commit_valid_edits

    def spy(ws_, person):
        seen.append(holder(ws_.state_dir / "lock"))
        return real(ws_, person)

    monkeypatch.setattr(audit, "commit_valid_edits", spy)
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text().replace("## Facts\n\n", "## Facts\n\n- typed by hand\n"))
    wait_until(lambda: commits == ["alice"])
    assert seen and seen[0]["pid"] == os.getpid() and seen[0]["purpose"] == "watch"
