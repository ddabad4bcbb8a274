"""The gateway's promises, tested on its core with a recording channel and a
clock the test moves (no chat app, no wall-clock timing): a burst is always
answered, even when serve stops during its quiet wait."""

from __future__ import annotations

import threading

import pytest

from fakes import FakeChat
from serve_helpers import Recording, log_entries, wait_until
from waits import DEADLINE

from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import state_for
from heartcompass.store.config_edit import set_config


class FrozenClock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _gateway(ws, model, clock, quiet=60.0):
    set_config(ws, "telegram.allowed_users", "42")
    state = state_for(ws.state_dir, "telegram")
    state.chats["42"] = "alice"
    channel = Recording()
    gw = Gateway(ws, {"telegram": channel}, {"telegram": state}, make_model=lambda: model, quiet=quiet,
                 delays=(0.0, 0.0), sleep=lambda s: None, monotonic=clock)
    return gw, state, channel


def test_stopping_serve_during_a_bursts_quiet_wait_still_answers_the_burst(example_ws):
    """SIGTERM while the owner's burst waits for quiet: the burst is answered
    before serve exits (not left for the next serve), its answer logged."""
    clock = FrozenClock()  # never advances: the burst's quiet wait never ends on its own
    gw, state, channel = _gateway(example_ws, FakeChat().enqueue("我在，怎么了？"), clock)
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,), daemon=True)
    worker.start()
    gw.receive(Incoming("telegram", "42", "42", "42:1", text="在吗"))
    gw.receive(Incoming("telegram", "42", "42", "42:2", text="有件事想问你"))
    assert gw.burst_pending(gw.conversation("telegram", "42"))  # waiting for quiet, not answered yet
    assert channel.sent == []
    stop.set()
    gw.wake()
    worker.join(DEADLINE)
    assert not worker.is_alive(), "serve did not stop"
    assert channel.sent == ["我在，怎么了？"]
    texts = [(e.speaker, e.text) for e in log_entries(example_ws, "alice")]
    assert texts[-3:] == [("me", "在吗"), ("me", "有件事想问你"), ("persona", "我在，怎么了？")]
    assert state.unanswered_chats() == []  # nothing left for the next serve to answer again


def test_a_burst_waits_for_quiet_then_is_answered_once(example_ws):
    """The owner's messages are gathered while the clock is within
    serve.quiet_seconds of the last one, and answered together once it passes."""
    clock = FrozenClock()
    model = FakeChat().enqueue("both at once")
    gw, state, channel = _gateway(example_ws, model, clock, quiet=30.0)
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,), daemon=True)
    worker.start()
    try:
        gw.receive(Incoming("telegram", "42", "42", "42:1", text="first"))
        clock.now += 29.0
        gw.receive(Incoming("telegram", "42", "42", "42:2", text="second"))  # restarts the wait
        clock.now += 29.0
        gw.wake()
        conv = gw.conversation("telegram", "42")
        assert gw.burst_pending(conv) and channel.sent == []  # 29 s after the last: still gathering
        clock.now += 1.0
        gw.wake()
        wait_until(lambda: channel.sent == ["both at once"] and gw.idle())
    finally:
        stop.set()
        gw.wake()
        worker.join(DEADLINE)
    assert model.purposes == ["chat"]  # one request answers the whole burst
    last_user = [m.content for m in model.request("chat").messages if m.type == "human"][-1]
    assert "first" in last_user and "second" in last_user


# -- the serve state (gateway/state.py): handled once, across restarts ---------------------------------------------

def _state(tmp_path):
    from heartcompass.gateway.state import ChannelState

    return ChannelState(tmp_path / "serve" / "telegram.json")


def test_every_field_of_the_serve_state_survives_a_restart(tmp_path):
    """What serve keeps between runs comes back whole: the offset, handled ids,
    who each chat talks to, the owner's chats, refused strangers, the digest
    day and the bursts not answered yet."""
    state = _state(tmp_path)
    state.offset = 778
    state.mark_seen("42:1")
    state.chats["42"] = "alice"
    state.owner_chats["7"] = "42"
    assert state.refuse_once("stranger")
    state.digest_day = "2026-12-01"
    state.await_answer("42", "小明")
    state.save()
    again = _state(tmp_path)
    assert (again.offset, again.chats, again.owner_chats, again.digest_day) == (
        778, {"42": "alice"}, {"7": "42"}, "2026-12-01")
    assert again.is_seen("42:1") and not again.is_seen("42:2")
    assert again.unanswered_chats() == [("42", "小明")]
    assert not again.refuse_once("stranger") and again.refuse_once("another")


def test_a_message_handled_before_a_restart_is_seen_after_it_from_the_tail_alone(tmp_path):
    """A handled id costs one tail line (no rewrite of the json), and a
    restart replays it: the message is not handled twice."""
    state = _state(tmp_path)
    state.chats["42"] = "alice"
    state.save()                       # the json, once
    json_before = state.path.read_text(encoding="utf-8")
    state.offset = 5
    state.mark_seen("42:1")
    state.save()
    assert state.path.read_text(encoding="utf-8") == json_before  # not rewritten for a message
    assert state.tail.read_text(encoding="utf-8").splitlines() == ['{"id": "42:1", "offset": 5}']
    again = _state(tmp_path)
    assert again.is_seen("42:1") and again.offset == 5


def test_an_offset_moved_without_a_message_is_added_to_the_tail_too(tmp_path):
    """Telegram's offset moves past an update that carried nothing of ours: kept all the same."""
    state = _state(tmp_path)
    state.offset = 9
    state.save()
    assert state.tail.read_text(encoding="utf-8").splitlines() == ['{"offset": 9}']
    assert _state(tmp_path).offset == 9
    state.save()  # nothing new: nothing written
    assert state.tail.read_text(encoding="utf-8").splitlines() == ['{"offset": 9}']


def test_making_durable_makes_the_state_durable_and_starts_the_tail_afresh(tmp_path):
    state = _state(tmp_path)
    assert not state.not_durable()          # nothing yet: nothing to make durable
    state.mark_seen("42:1")
    assert state.not_durable()              # handled, not even written yet
    state.save()
    assert state.not_durable() and state.tail.exists()
    state.make_durable()
    assert not state.not_durable() and not state.tail.exists()
    assert _state(tmp_path).is_seen("42:1")
    state.chats["42"] = "bob"            # a change beside the ids: the json is replaced, not yet fsynced
    state.save()
    assert state.not_durable() and _state(tmp_path).chats == {"42": "bob"}


def test_a_state_left_by_a_killed_serve_is_made_durable_once_to_be_sure(tmp_path):
    state = _state(tmp_path)
    state.chats["42"] = "alice"
    state.make_durable()
    assert _state(tmp_path).not_durable()  # a json found at start may never have been fsynced
    assert not _state(tmp_path / "elsewhere").not_durable()  # no state at all: nothing to make durable


def test_a_broken_state_file_is_set_aside_and_serve_starts_afresh(tmp_path):
    path = tmp_path / "serve" / "telegram.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"offset": "not a number"', encoding="utf-8")
    state = _state(tmp_path)
    assert state.offset == 0 and state.chats == {} and state.digest_day == "" and not state.is_seen("42:1")
    assert path.with_suffix(".broken").read_text(encoding="utf-8") == '{"offset": "not a number"'
    assert not path.exists()


def test_a_state_whose_fields_have_the_wrong_shape_is_set_aside(tmp_path):
    path = tmp_path / "serve" / "telegram.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"offset": 3, "chats": ["not", "a", "map"]}', encoding="utf-8")
    state = _state(tmp_path)
    assert state.offset == 0 and state.chats == {}
    assert path.with_suffix(".broken").exists()


def test_a_tail_line_that_is_not_ours_is_skipped_and_the_rest_replayed(tmp_path):
    state = _state(tmp_path)
    state.tail.parent.mkdir(parents=True)
    state.tail.write_text('{"id": "42:1", "offset": 3}\n[1, 2]\n{"id": "42:2", "offset": "x"}\n'
                             '{"id": "42:3", "offset": 4}\n', encoding="utf-8")
    again = _state(tmp_path)
    assert again.is_seen("42:1") and again.is_seen("42:3") and again.offset == 4
    assert not again.is_seen("42:2")


def test_handled_ids_and_refused_strangers_are_bounded_oldest_first(tmp_path, monkeypatch):
    from heartcompass.gateway import state as state_mod

    monkeypatch.setattr(state_mod, "SEEN_KEEP", 3)
    monkeypatch.setattr(state_mod, "REFUSED_KEEP", 2)
    state = _state(tmp_path)
    for n in range(5):
        state.mark_seen(f"42:{n}")
        state.refuse_once(f"s{n}")
    assert list(state.seen) == ["42:2", "42:3", "42:4"]
    assert list(state.refused) == ["s3", "s4"]
    state.make_durable()
    again = _state(tmp_path)
    assert list(again.seen) == ["42:2", "42:3", "42:4"] and list(again.refused) == ["s3", "s4"]


def test_an_answered_burst_is_no_longer_left_for_the_next_serve(tmp_path):
    state = _state(tmp_path)
    state.await_answer("42", "alice")
    assert state.answered("42")          # it was waiting
    assert not state.answered("42")      # answered once only
    state.save()
    assert _state(tmp_path).unanswered_chats() == []


def test_a_failed_write_keeps_the_handled_ids_for_the_next_save(tmp_path, monkeypatch):
    """The disk refuses the tail's append: the ids stay in memory and the next save writes them."""
    state = _state(tmp_path)
    state.mark_seen("42:1")
    real = state._append

    def refuse(lines):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(state, "_append", refuse)
    with pytest.raises(OSError):
        state.save()
    monkeypatch.setattr(state, "_append", real)
    state.save()
    assert _state(tmp_path).is_seen("42:1")


def test_the_serve_state_lives_in_the_workspaces_local_state_folder(tmp_path):
    """.heartcompass/serve/<channel>.json and .tail, as ARCHITECTURE says (never committed)."""
    from heartcompass.gateway.state import state_for

    state = state_for(tmp_path / ".heartcompass", "lark")
    state.mark_seen("m1")
    state.save()
    assert state.path == tmp_path / ".heartcompass" / "serve" / "lark.json"
    assert sorted(p.name for p in (tmp_path / ".heartcompass" / "serve").iterdir()) == ["lark.tail"]


def test_a_fresh_state_is_empty(tmp_path):
    state = _state(tmp_path)
    assert (state.offset, state.chats, state.owner_chats, state.digest_day) == (0, {}, {}, "")
    assert not state.seen and not state.refused and state.unanswered_chats() == []


def test_a_state_written_by_an_older_serve_without_the_newer_fields_loads(tmp_path):
    """Only the ids (no offset, chats, owners, refusals, digest day or
    unanswered bursts): what is there is kept, the rest starts empty, and the
    file is not set aside as broken."""
    path = tmp_path / "serve" / "telegram.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"seen": ["42:1"]}', encoding="utf-8")
    state = _state(tmp_path)
    assert state.is_seen("42:1") and path.exists() and not path.with_suffix(".broken").exists()
    assert (state.offset, state.chats, state.owner_chats, state.digest_day) == (0, {}, {}, "")
    assert not state.refused and state.unanswered_chats() == []
    path.write_text('{"offset": 7}', encoding="utf-8")
    again = _state(tmp_path)
    assert again.offset == 7 and not again.seen and not path.with_suffix(".broken").exists()


def test_a_tail_torn_inside_a_chinese_id_is_read_up_to_the_tear(tmp_path):
    """Killed mid-write inside a multi-byte character: the whole lines before
    it are replayed, and serve starts (no decoding error)."""
    state = _state(tmp_path)
    state.tail.parent.mkdir(parents=True)
    whole = '{"id": "飞书:1", "offset": 3}\n'.encode()
    torn = '{"id": "飞书:2", "offset": 4}\n'.encode()[:12]
    state.tail.write_bytes(whole + torn)
    again = _state(tmp_path)
    assert again.is_seen("飞书:1") and again.offset == 3 and not again.is_seen("飞书:2")


def test_a_tail_line_without_an_offset_still_marks_its_id(tmp_path):
    state = _state(tmp_path)
    state.tail.parent.mkdir(parents=True)
    state.tail.write_text('{"id": "42:1", "offset": 5}\n{"id": "42:2"}\n', encoding="utf-8")
    again = _state(tmp_path)
    assert again.is_seen("42:1") and again.is_seen("42:2") and again.offset == 5


def test_a_tail_found_at_start_is_made_durable_even_without_a_json(tmp_path):
    state = _state(tmp_path)
    state.mark_seen("42:1")
    state.save()
    assert not state.path.exists() and state.tail.exists()
    again = _state(tmp_path)
    assert again.not_durable()  # the first make_durable puts it in the json, for good
    again.make_durable()
    assert again.path.exists() and not again.tail.exists() and not again.not_durable()


def test_the_tail_holds_at_most_tail_keep_lines_then_the_json_takes_them(tmp_path, monkeypatch):
    """Exactly TAIL_KEEP lines are appended (several ids of one save,
    one line each; after a restart the lines already there count); the next
    id replaces the json and starts the tail afresh."""
    from heartcompass.gateway import state as state_mod

    monkeypatch.setattr(state_mod, "TAIL_KEEP", 3)
    state = _state(tmp_path)
    state.mark_seen("42:1")
    state.mark_seen("42:2")
    state.save()
    assert len(state.tail.read_text(encoding="utf-8").splitlines()) == 2 and not state.path.exists()
    again = _state(tmp_path)             # a restart: two lines there already
    again.mark_seen("42:3")
    again.save()
    assert len(again.tail.read_text(encoding="utf-8").splitlines()) == 3 and not again.path.exists()
    again.mark_seen("42:4")
    again.save()                         # a fourth line would pass TAIL_KEEP: the json instead
    assert again.path.exists() and not again.tail.exists()
    for n in (5, 6, 7):
        again.mark_seen(f"42:{n}")
        again.save()
    assert len(again.tail.read_text(encoding="utf-8").splitlines()) == 3
    again.mark_seen("42:8")
    again.save()
    assert not again.tail.exists()
    assert all(_state(tmp_path).is_seen(f"42:{n}") for n in range(1, 9))


def test_making_durable_fsyncs_the_json_only_when_something_changed(tmp_path, monkeypatch):
    """make_durable() is the once-per-quiet-moment fsync: what was handled since the
    last one (new ids, an offset moved) is written and fsynced; one with
    nothing new writes nothing."""
    import os

    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    state = _state(tmp_path)
    state.chats["42"] = "alice"
    state.make_durable()
    monkeypatch.setattr(os, "fsync", fsync)
    inode = state.path.stat().st_ino
    state.make_durable()                         # nothing new
    assert synced == [] and state.path.stat().st_ino == inode
    state.mark_seen("42:1")              # a new id, the offset unchanged
    state.make_durable()
    assert any(name.endswith("telegram.json") or "/serve" in name for name in synced), synced
    assert not state.tail.exists() and '"42:1"' in state.path.read_text(encoding="utf-8")
    synced.clear()
    state.offset = 12                    # only the offset moved
    state.make_durable()
    assert synced and '"offset": 12' in state.path.read_text(encoding="utf-8")
    synced.clear()
    state.chats["43"] = "bob"            # an ordinary save, even of the whole json: no fsync
    state.save()
    assert synced == [] and state.not_durable() and _state(tmp_path).chats == {"42": "alice", "43": "bob"}


def test_the_tail_is_private_and_its_folder_made_when_missing(tmp_path):
    from heartcompass.gateway.state import ChannelState

    state = ChannelState(tmp_path / "not" / "yet" / "serve" / "telegram.json")
    state.mark_seen("42:1")
    state.save()
    assert state.tail.stat().st_mode & 0o777 == 0o600
    assert ChannelState(state.path).is_seen("42:1")


def test_a_tail_that_is_a_link_is_never_written_through(tmp_path):
    from heartcompass.errors import HeartCompassError

    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours\n", encoding="utf-8")
    state = _state(tmp_path)
    state.tail.parent.mkdir(parents=True)
    state.tail.symlink_to(elsewhere)
    state.mark_seen("42:1")
    with pytest.raises(HeartCompassError):
        state.save()
    assert elsewhere.read_text(encoding="utf-8") == "not yours\n"


def test_a_journal_left_by_a_serve_before_the_rename_is_replayed_once(tmp_path):
    """<channel>.journal was the tail's name before 2026-12: its ids are still
    handled once after the upgrade, and it goes once all is in the json."""
    state = _state(tmp_path)
    old = state.path.with_suffix(".journal")
    old.parent.mkdir(parents=True)
    old.write_text('{"id": "42:1", "offset": 3}\n', encoding="utf-8")
    again = _state(tmp_path)
    assert again.is_seen("42:1") and again.offset == 3 and again.not_durable()
    again.make_durable()
    assert not old.exists() and _state(tmp_path).is_seen("42:1")


def test_a_full_disk_under_the_tail_is_said_with_the_files_name(tmp_path, monkeypatch):
    import errno
    import os

    from heartcompass.errors import WriteError

    state = _state(tmp_path)
    state.mark_seen("42:1")

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(WriteError) as refused:
        state.save()
    assert refused.value.path == state.tail and "the disk is full" in refused.value.message
