"""The serve state's promises (gateway/state.py) that the gateway's own
tests do not reach: the held message (<channel>.held), read back whole or
not at all, and the fingerprint a held record shares with the next serve.
Temporary folders only, no gateway, no threads."""

from __future__ import annotations

import json

from heartcompass.gateway.state import HELD_BYTES, ChannelState, Held, fingerprint

HELD = Held("42:2", "42", "小明", "people/xiao-ming/logs/2026-12-07.md", 20, "e" * 32)


def _state(tmp_path) -> ChannelState:
    return ChannelState(tmp_path / "serve" / "telegram.json")


def test_a_messages_fingerprint_is_the_one_an_older_serve_wrote():
    """A held record written before an upgrade still matches its log line
    after it: the fingerprint is sha256's first 32 hex digits of the UTF-8 text."""
    assert fingerprint("see you") == "10c91675b679b066d96198158df6c563"
    assert fingerprint("今晚八点见") == "6dae3af4384a736ec2b65063e44586ed"


def test_a_held_message_is_read_back_by_the_next_serve_field_for_field(tmp_path):
    """What the killed serve was logging comes back whole: id, chat, person, log, size and fingerprint."""
    _state(tmp_path).hold(HELD)
    again = _state(tmp_path)
    assert again.interrupted() == HELD
    assert isinstance(again.interrupted().size, int)


def test_a_held_record_with_its_size_as_text_is_read_as_a_number(tmp_path):
    """settle reads the log from that size: a record whose size came back as text is still a number."""
    state = _state(tmp_path)
    state.held_path.parent.mkdir(parents=True)
    state.held_path.write_text(json.dumps({**HELD.__dict__, "size": "20", "id": 7}), encoding="utf-8")
    held = state.interrupted()
    assert held is not None and held.size == 20 and held.id == "7"


def test_the_held_file_is_one_private_block_padded_in_place(tmp_path):
    """<channel>.held is HELD_BYTES, padded with spaces (so each message
    overwrites it without a truncation), private to the user, its folder made
    when missing; a longer record makes it longer and a shorter one never shorter."""
    state = ChannelState(tmp_path / "not" / "yet" / "serve" / "telegram.json")
    state.hold(HELD)
    data = state.held_path.read_bytes()
    assert len(data) == HELD_BYTES and data.rstrip(b" ") == json.dumps(HELD.__dict__, ensure_ascii=False).encode()
    assert state.held_path.stat().st_mode & 0o777 == 0o600
    long = Held("42:3", "42" * 800, "alice", "people/alice/logs/2026-12-07.md", 10, "f" * 32)
    state.hold(long)
    grown = state.held_path.stat().st_size
    assert grown > HELD_BYTES
    state.hold(HELD)
    assert state.held_path.stat().st_size == grown and state.interrupted() == HELD


def test_no_held_file_means_nothing_was_being_logged(tmp_path):
    state = _state(tmp_path)
    assert state.interrupted() is None
    state.hold(HELD)
    assert state.interrupted() == HELD  # the same state reads one once it is there


def test_a_torn_or_foreign_held_file_is_not_read_as_a_message(tmp_path):
    """Killed mid-write (a torn record, a torn Chinese character), or a file
    that is not ours: nothing held, and serve starts (no error)."""
    state = _state(tmp_path)
    state.held_path.parent.mkdir(parents=True)
    whole = json.dumps(HELD.__dict__, ensure_ascii=False).encode("utf-8")
    for broken in (whole[:30], whole[:whole.index("明".encode()) + 1], b"[1, 2]", b'"text"', b"7",
                   json.dumps({**HELD.__dict__, "size": "twenty"}).encode(),
                   json.dumps({k: v for k, v in HELD.__dict__.items() if k != "fingerprint"}).encode()):
        state.held_path.write_bytes(broken)
        assert state.interrupted() is None, broken
    state.held_path.write_bytes(whole)
    assert state.interrupted() == HELD


def test_letting_a_held_message_go_forgets_it_and_may_be_done_twice(tmp_path):
    state = _state(tmp_path)
    state.hold(HELD)
    state.let_go()
    assert not state.held_path.exists() and _state(tmp_path).interrupted() is None
    state.let_go()  # nothing held: nothing to do, no error
    assert not state.held_path.exists()


def test_the_held_record_is_the_channels_held_file_beside_its_state(tmp_path):
    """A serve upgraded between the kill and the restart still finds <channel>.held where the old one wrote it."""
    held = tmp_path / "serve" / "telegram.held"
    held.parent.mkdir(parents=True)
    held.write_text(json.dumps(HELD.__dict__, ensure_ascii=False), encoding="utf-8")
    assert _state(tmp_path).interrupted() == HELD
    _state(tmp_path).let_go()
    assert not held.exists()


def test_a_held_message_marked_handled_is_not_interrupted_any_more(tmp_path):
    """Logged and marked handled before the kill: nothing for the next serve to settle."""
    state = _state(tmp_path)
    state.hold(HELD)
    state.mark_seen(HELD.id)
    state.save()
    assert state.interrupted() is None and _state(tmp_path).interrupted() is None
    other = _state(tmp_path)
    other.hold(Held("42:3", "42", "alice", "people/alice/logs/2026-12-07.md", 0, "a" * 32))
    assert other.interrupted().id == "42:3"   # another id, not handled: still held


def test_a_full_disk_under_the_held_file_is_said_with_its_name(tmp_path, monkeypatch):
    import errno
    import os

    import pytest

    from heartcompass.errors import WriteError

    state = _state(tmp_path)

    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(WriteError) as refused:
        state.hold(HELD)
    assert refused.value.path == state.held_path and "the disk is full" in refused.value.message
