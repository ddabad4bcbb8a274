"""The workspace lock's promises (store/lock.py) and a folder moved back
after a refused commit (store/move_back.py): one writer at a time, who holds
it said, waits counted on a clock the test moves; nothing a chat logged by
the old path meanwhile is lost."""

from __future__ import annotations


import pytest
from git_helpers import (day_log, new_repo)

from heartcompass.store.gitrepo import WorkspaceGit


@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return new_repo(tmp_path)


# -- the lock (lock.py) ---------------------------------------------------------------------------------------------

def test_a_lock_says_who_holds_it_and_is_gone_once_released(tmp_path):
    import os
    import socket

    from heartcompass.store.lock import FileLock, holder

    path = tmp_path / "state" / "lock"
    assert holder(path) is None
    with FileLock(path, "chat") as lock:
        assert lock.held
        owner = holder(path)
        assert owner["pid"] == os.getpid() and owner["purpose"] == "chat" and owner["host"] == socket.gethostname()
        assert len(owner["since"]) == 19
        assert not lock.waited()
    assert not lock.held and not path.exists() and holder(path) is None
    lock.release()  # twice: harmless


def test_a_lock_file_left_by_a_killed_holder_is_a_free_lock(tmp_path):
    """kill -9 leaves the file (with who held it) but the kernel let go of
    the lock: nobody holds it, and it can be taken."""
    import json

    from heartcompass.store.lock import FileLock, holder

    path = tmp_path / "lock"
    path.write_text(json.dumps({"pid": 1, "host": "h", "since": "2024-01-01 10:00:00", "purpose": "chat"}))
    assert holder(path) is None
    with FileLock(path, "undo") as lock:
        assert lock.held and holder(path)["purpose"] == "undo"


def test_the_busy_error_names_what_holds_the_lock_who_where_and_since_when(tmp_path):
    from heartcompass.store.lock import busy_error

    said = busy_error(tmp_path / "lock", {"pid": 42, "host": "laptop", "since": "2024-01-01 10:00:00",
                                          "purpose": "gardener"})
    assert said.message == "Another HeartCompass gardener is running (pid 42 on laptop, since 2024-01-01 10:00:00)."
    assert busy_error(tmp_path / "lock", None).message == "Another HeartCompass command is running (pid ? on ?, since ?)."


def test_a_second_gardener_fails_fast_naming_the_first_and_the_first_sees_it_waited(tmp_path):
    from heartcompass.store.lock import FileLock, LockBusy

    path = tmp_path / "garden.lock"
    with FileLock(path, "gardener") as first:
        with pytest.raises(LockBusy) as busy:
            FileLock(path, "gardener", wait=0).acquire()
        assert busy.value.message.startswith("Another HeartCompass gardener is running (pid ")
        assert busy.value.hint == ("Wait for it to finish and try again. The lock is released by the system when "
                                   f"that process ends, so there is no lock file ({path}) to delete.")
        assert first.waited()
    with FileLock(path, "gardener", wait=0) as second:  # free again
        assert second.held


def test_a_lock_held_without_a_word_of_who_is_still_busy(tmp_path):
    import fcntl
    import os

    from heartcompass.store.lock import busy_error, holder

    path = tmp_path / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert holder(path) == {"pid": "?", "host": "?", "since": "?", "purpose": "command"}
        os.write(fd, b"[1, 2]")
        assert holder(path) == {"pid": "?", "host": "?", "since": "?", "purpose": "command"}
    finally:
        os.close(fd)
    assert busy_error(path, None).message == "Another HeartCompass command is running (pid ? on ?, since ?)."


def test_a_lock_where_no_file_can_be_made_says_so(tmp_path):
    from heartcompass.errors import HeartCompassError
    from heartcompass.store.lock import FileLock

    (tmp_path / "state").write_text("a file where a folder should be")
    path = tmp_path / "state" / "lock"
    with pytest.raises(HeartCompassError) as refused:
        FileLock(path, "chat").acquire()
    assert refused.value.message.startswith(f"{path}: cannot be written (")
    assert refused.value.hint == ("HeartCompass needs to write in the workspace: check its permissions "
                                  "(and that the disk is not full or read-only).")


def test_a_short_commands_holder_is_waited_for_longer_than_a_gardeners(tmp_path, monkeypatch):
    """wait=0 fails fast only against a gardener (or a sync); a chat's commit
    is waited for up to SHORT_WAIT, then named. (A clock that moves one
    second per look: the number of looks is the time waited.)"""
    from heartcompass.store import lock as lock_mod

    tries: list[float] = []
    clock = iter(range(0, 10_000))
    monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
    path = tmp_path / "lock"
    with lock_mod.FileLock(path, "chat"):
        with pytest.raises(lock_mod.LockBusy) as busy:
            lock_mod.FileLock(path, "gardener", wait=0).acquire()
    assert "Another HeartCompass chat is running" in busy.value.message
    assert tries == [lock_mod.POLL] * 29  # SHORT_WAIT (30 s): looks at 1, 2 ... 30
    tries.clear()
    with lock_mod.FileLock(path, "sync"):
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path, "gardener", wait=0).acquire()
    assert tries == []  # a sync or a gardener: failed at the first look
    with lock_mod.FileLock(path, "gardener"):
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path, "chat", wait=5).acquire()
    assert tries == [lock_mod.POLL] * 4


def test_a_lock_made_with_no_purpose_is_a_gardeners_that_fails_fast(tmp_path, monkeypatch):
    from heartcompass.store import lock as lock_mod

    tries: list[float] = []
    monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
    path = tmp_path / "deep" / "er" / "garden.lock"  # folders made as needed
    with lock_mod.FileLock(path) as first:
        assert lock_mod.holder(path)["purpose"] == "gardener" and first.wait == 0.0
        clock = iter(range(0, 10_000))
        monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path).acquire()
        assert tries == []
    with lock_mod.FileLock(path):  # the folders are there now
        pass


def test_a_lock_file_left_by_a_killed_holder_is_taken_and_rewritten(tmp_path):
    from heartcompass.store.lock import FileLock, holder

    path = tmp_path / "lock"
    path.write_text('{"pid": 1, "host": "old", "since": "long ago", "purpose": "a very long purpose" }' * 3)
    with FileLock(path, "chat"):
        owner = holder(path)
        assert owner["purpose"] == "chat" and owner["host"] != "old"


def test_a_lock_file_removed_under_a_waiter_is_taken_anew(tmp_path, monkeypatch):
    """The previous holder removed the file the waiter opened: the waiter
    locks the file that is there now, so two never hold it at once."""
    import os

    from heartcompass.store import lock as lock_mod

    path = tmp_path / "lock"
    real_open = lock_mod.paths.open_regular
    opened = []

    def swapped(where, flags):
        fd = real_open(where, flags)
        if flags == os.O_RDONLY:  # holder()'s peek
            return fd
        opened.append(fd)
        if len(opened) == 2:  # the first try: its file is replaced before it checks
            path.unlink()
            path.write_text("")
        if len(opened) == 5:  # the next holder's first try: its file is removed
            path.unlink()
        return fd

    monkeypatch.setattr(lock_mod.paths, "open_regular", swapped)
    with lock_mod.FileLock(path, "chat") as first:
        assert lock_mod.holder(path)["purpose"] == "chat"
    assert len(opened) == 3 and not first.held
    with lock_mod.FileLock(path, "sync"):
        assert path.exists() and lock_mod.holder(path)["purpose"] == "sync"
    assert len(opened) == 6


def test_a_lock_file_removed_by_hand_while_held_is_let_go_quietly(tmp_path):
    from heartcompass.store.lock import FileLock

    path = tmp_path / "lock"
    lock = FileLock(path, "chat")
    lock.acquire()
    path.unlink()
    lock.release()
    assert not lock.held and not lock.waited()
    with FileLock(path, "chat") as again:
        assert again.held


# -- a folder moved back after a refused commit (move_back.py) -------------------------------------------------------

def test_a_folder_goes_back_with_what_a_chat_logged_by_the_old_path_meanwhile(tmp_path):
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "people/bob", tmp_path / "people/robert"
    (away / "logs").mkdir(parents=True)
    (away / "PROFILE.md").write_text("p\n")
    (away / "logs/2024-01-01.md").write_text(day_log("2024-01-01", "10:00:00 · me · first"))
    (home / "logs").mkdir(parents=True)
    (home / "logs/2024-01-01.md").write_text(day_log("2024-01-01", "10:05:00 · me · typed meanwhile"))
    (home / "logs/2024-01-02.md").write_text(day_log("2024-01-02", "09:00:00 · me · a new day"))
    move_back(away, home)
    assert not away.exists() and (home / "PROFILE.md").read_text() == "p\n"
    assert [e.text for e in dailylog.load(home / "logs/2024-01-01.md")] == ["first", "typed meanwhile"]
    assert [e.text for e in dailylog.load(home / "logs/2024-01-02.md")] == ["a new day"]


def test_a_folder_goes_back_where_nothing_was_made_meanwhile(tmp_path):
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    away.mkdir()
    (away / "PROFILE.md").write_text("p\n")
    move_back(away, home)
    assert (home / "PROFILE.md").read_text() == "p\n" and not away.exists()


def test_something_other_than_a_log_made_by_the_old_path_keeps_both_folders(tmp_path):
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    (away / "logs").mkdir(parents=True)
    (away / "PROFILE.md").write_text("p\n")
    (home / "logs").mkdir(parents=True)
    (home / "notes.txt").write_text("the user's\n")
    (home / "logs/not-a-day.md").write_text("x\n")
    (home / "logs/2024-01-03.md").write_text("not a log at all\n- ??\n")
    move_back(away, home)
    assert (away / "PROFILE.md").exists() and (home / "notes.txt").read_text() == "the user's\n"
    assert (home / "logs/not-a-day.md").exists() and (home / "logs/2024-01-03.md").exists()


def test_a_move_back_refused_for_another_reason_is_raised(tmp_path):
    from heartcompass.store.move_back import move_back

    away = tmp_path / "robert"
    away.mkdir()
    with pytest.raises(OSError):
        move_back(away, tmp_path / "no-such-folder" / "bob")
    assert away.exists()


def test_what_was_gathered_back_keeps_its_markers_pointing_at_the_right_entries(tmp_path):
    """A chat's marker ("supersedes 1") names an entry by its place: once
    the entries join the log that goes back, after the ones it holds, the
    marker still names the same entry. Odd files that sort first are passed
    over, not taken as the end."""
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "people/bob", tmp_path / "people/robert"
    (away / "logs").mkdir(parents=True)
    (away / "logs/2024-01-01.md").write_text(day_log("2024-01-01", "09:00:00 · me · kept", "09:01:00 · me · kept too"))
    (home / "logs").mkdir(parents=True)
    (home / "logs/0-notes.md").unlink(missing_ok=True)
    (home / "logs/2024-01-01.md").write_text(day_log("2024-01-01", "10:05:00 · me · tpyo", "10:06:00 · mark [supersedes 1] · fixed",
                                                  "10:06:01 · me · typo"))
    (home / "logs/2024-01-02.md").write_text(day_log("2024-01-02", "10:05:00 · me · new day", "10:06:00 · mark [supersedes 1] · x",
                                                  "10:06:01 · me · new day!"))
    (home / "logs/0000-00-00.md").write_text("not a day\n")  # sorts first, and is no date
    move_back(away, home)
    assert away.exists() and (home / "logs/0000-00-00.md").exists()  # both stay: something else was made there
    merged = (away / "logs/2024-01-01.md").read_text(encoding="utf-8")
    assert "- 10:06:00 · mark [supersedes 3] · fixed" in merged
    assert [e.text for e in dailylog.effective_entries(dailylog.load(away / "logs/2024-01-01.md"))] == [
        "kept", "kept too", "typo"]
    new_day = (away / "logs/2024-01-02.md").read_text(encoding="utf-8")
    assert "- 10:06:00 · mark [supersedes 1] · x" in new_day


def test_a_log_that_cannot_be_read_is_left_and_the_next_one_still_goes_back(tmp_path):
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    (away / "logs").mkdir(parents=True)
    (home / "logs").mkdir(parents=True)
    (home / "logs/2024-01-01.md").write_text("# broken by hand\n")
    (home / "logs/2024-01-02.md").write_text(day_log("2024-01-02", "10:00:00 · me · typed meanwhile"))
    move_back(away, home)
    assert [e.text for e in dailylog.load(away / "logs/2024-01-02.md")] == ["typed meanwhile"]
    assert not (home / "logs/2024-01-02.md").exists() and (home / "logs/2024-01-01.md").exists()
