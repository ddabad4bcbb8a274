"""serve's own state between runs (gateway/state.py): written after every
message without an fsync, made durable once per quiet moment. A crash of
the process right after a message keeps it handled once; the fsyncs are not
one per message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import textwrap

from fakes import FakeChat
from serve_helpers import Recording, log_entries, wait_until
from waits import DEADLINE

from heartcompass.gateway.core import DURABLE_EVERY, Gateway, Incoming
from heartcompass.gateway.state import state_for
from heartcompass.store.config_edit import set_config


QUIET = 0.05


def _gateway(ws, model=None, **kwargs):
    state = state_for(ws.state_dir, "telegram")
    state.chats.setdefault("42", "alice")
    channel = Recording()
    gw = Gateway(ws, {"telegram": channel}, {"telegram": state}, make_model=lambda: model or FakeChat(),
                 quiet=QUIET, delays=(0.0, 0.0), **kwargs)
    return gw, state, channel


CRASH = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from heartcompass.gateway.core import Gateway, Incoming
    from heartcompass.gateway.state import state_for
    from heartcompass.store.workspace import Workspace

    ws = Workspace(Path(sys.argv[1]))
    state = state_for(ws.state_dir, "telegram")
    state.chats["42"] = "alice"

    class Nowhere:
        name = "telegram"
        def send(self, chat, text): pass
        def ask(self, chat, text, choices): pass
        def typing(self, chat): pass

    gw = Gateway(ws, {"telegram": Nowhere()}, {"telegram": state}, make_model=lambda: None, quiet=60)
    state.offset = 778                      # what the Telegram channel does before handing the update over
    gw.receive(Incoming("telegram", "42", "42", "42:7", text="before the crash 崩溃之前"))
    state.offset = 779
    gw.receive(Incoming("telegram", "42", "42", "42:8", text="just before"))
    os.kill(os.getpid(), signal.SIGKILL)    # no worker ran: no fsync, no reply, no clean stop
""")


def test_a_crash_right_after_a_message_keeps_it_handled_once(example_ws):
    set_config(example_ws, "telegram.allowed_users", "42")
    done = subprocess.run([sys.executable, "-c", CRASH, str(example_ws.root)], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert [e.text for e in log_entries(example_ws, "alice") if e.speaker == "me"] == [
        "before the crash 崩溃之前", "just before"]

    gw, state, channel = _gateway(example_ws)   # the next serve: the updates come again
    assert state.offset == 779 and state.is_seen("42:7") and state.is_seen("42:8")
    gw.receive(Incoming("telegram", "42", "42", "42:7", text="before the crash 崩溃之前"))
    gw.receive(Incoming("telegram", "42", "42", "42:8", text="just before"))
    gw.receive(Incoming("telegram", "42", "42", "42:9", text="after it"))
    assert [e.text for e in log_entries(example_ws, "alice") if e.speaker == "me"] == [
        "before the crash 崩溃之前", "just before", "after it"]


def test_the_state_is_fsynced_once_per_quiet_moment_not_per_message(example_ws, monkeypatch):
    """Twelve messages cost no fsync; the answer and one quiet moment later, the state is durable. The clock is
    the test's: on a busy machine a pause between two messages is not taken for the owner's quiet."""
    set_config(example_ws, "telegram.allowed_users", "42")
    fsynced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        name = os.readlink(f"/proc/self/fd/{fd}")
        if "/serve/" in name:
            fsynced.append(name)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    clock = [1000.0]
    gw, state, channel = _gateway(example_ws, FakeChat().enqueue("got them all"), monotonic=lambda: clock[0])
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,))
    worker.start()
    try:
        for n in range(12):
            gw.receive(Incoming("telegram", "42", "42", f"42:{n}", text=f"message {n} 第{n}条"))
        assert fsynced == [] and state.not_durable()   # 12 messages handled and saved, none fsynced
        clock[0] += QUIET                               # the owner is quiet: the burst is answered
        gw.wake()
        wait_until(lambda: channel.sent == ["got them all"] and gw.idle())
        assert len(fsynced) <= 1, fsynced
        clock[0] += DURABLE_EVERY                       # a quiet moment after the answer
        gw.wake()
        wait_until(lambda: not state.not_durable())
        assert 1 <= len(fsynced) <= 2, fsynced
    finally:
        stop.set()
        gw.wake()
        worker.join(DEADLINE)
    assert not state.not_durable()
    reloaded = state_for(example_ws.state_dir, "telegram")
    assert all(reloaded.is_seen(f"42:{n}") for n in range(12))


def test_the_tail_is_replayed_a_torn_last_line_skipped_and_its_length_bounded(tmp_path, monkeypatch):
    from heartcompass.gateway import state as state_mod

    monkeypatch.setattr(state_mod, "TAIL_KEEP", 5)
    path = tmp_path / "serve" / "telegram.json"
    state = state_mod.ChannelState(path)
    for n in range(12):
        state.offset = 100 + n
        state.mark_seen(f"42:{n}")
        state.save()
        lines = state.tail.read_text(encoding="utf-8").splitlines() if state.tail.exists() else []
        assert len(lines) <= 5                          # then the json takes them all, and it starts afresh
    with open(state.tail, "a", encoding="utf-8") as f:
        f.write('{"id": "42:99", "off')                  # killed mid-line
    again = state_mod.ChannelState(path)
    assert all(again.is_seen(f"42:{n}") for n in range(12)) and not again.is_seen("42:99")
    assert again.offset == 111 and again.not_durable()
    again.make_durable()                                 # all in the json, for good; the tail gone
    assert not again.tail.exists() and not again.not_durable()
    assert state_mod.ChannelState(path).offset == 111


def test_a_tail_left_under_its_old_name_by_a_killed_serve_is_replayed(tmp_path):
    """Ids an older serve appended to <channel>.journal are not handled twice after an upgrade."""
    from heartcompass.gateway import state as state_mod

    path = tmp_path / "serve" / "telegram.json"
    path.parent.mkdir()
    path.with_suffix(".journal").write_text('{"id": "42:7", "offset": 7}\n', encoding="utf-8")
    state = state_mod.ChannelState(path)
    assert state.is_seen("42:7") and state.offset == 7 and not state.is_seen("42:8")
    state.make_durable()
    assert not path.with_suffix(".journal").exists()
    assert state_mod.ChannelState(path).is_seen("42:7")


def test_the_dedup_memory_stops_growing_once_it_is_full(tmp_path):
    """serve's memory is flat over many messages: the handled ids kept are the
    newest SEEN_KEEP, and once their table has taken its last step (in the
    thousand ids after it fills, as the oldest start to be dropped) marking
    more ids, with the state saved as serve saves it, grows nothing."""
    import tracemalloc

    from heartcompass.gateway.state import SEEN_KEEP

    state = state_for(tmp_path, "telegram")
    heap = {}
    tracemalloc.start()
    try:
        for n in range(1, 2 * SEEN_KEEP + 1):
            state.mark_seen(f"42:{n}")
            if n % 50 == 0:
                state.save()
            if n in (SEEN_KEEP // 2, SEEN_KEEP + 1_000, 2 * SEEN_KEEP):
                heap[n] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(state.seen) == SEEN_KEEP and state.is_seen(f"42:{2 * SEEN_KEEP}") and not state.is_seen("42:1")
    assert heap[SEEN_KEEP + 1_000] > heap[SEEN_KEEP // 2]  # it did grow while filling: the measure sees ids
    assert heap[2 * SEEN_KEEP] - heap[SEEN_KEEP + 1_000] < 20_000  # then flat: bytes, not a step per id
    assert state_for(tmp_path, "telegram").seen == state.seen  # what was saved is what is kept
