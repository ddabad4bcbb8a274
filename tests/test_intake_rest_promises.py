"""The rest of intake's promises, tested on their parts: a PNG card we write
is a valid image any viewer opens (its colour the person's own, the card
inside in readable UTF-8); a file the user points at is refused with its
size said plainly; a screenshot is taken only when it is an image; a tell
put back after a failed write never overwrites a hand edit; a discarded
tell says so in the log and in its commit."""

from __future__ import annotations

import base64
import datetime as dt
import json
import struct
import zlib

import pytest

from heartcompass.errors import HeartCompassError
from heartcompass.intake import card_png, limits, tell


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(kind, body) of every chunk, each one's CRC checked, as an image viewer reads them."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, pos = [], 8
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        out.append((kind, body))
        pos += 12 + length
    return out


def _pixels(png: bytes) -> tuple[tuple[int, ...], set[bytes]]:
    chunks = dict(_chunks(png))
    ihdr = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    raw = zlib.decompress(chunks[b"IDAT"])
    width, height = ihdr[:2]
    rows = [raw[i * (1 + 3 * width):(i + 1) * (1 + 3 * width)] for i in range(height)]
    return ihdr, {bytes(row) for row in rows}


def test_a_plain_card_image_is_a_400_by_600_rgb_png_any_viewer_opens():
    """IHDR: 400x600, 8-bit RGB, no interlace; one IDAT of 600 whole rows
    (filter byte 0); the card's tEXt between them; an empty IEND last."""
    png = card_png.card_png({"spec": "chara_card_v2", "data": {"name": "Alice"}})
    ihdr, rows = _pixels(png)
    assert ihdr == (400, 600, 8, 2, 0, 0, 0)
    assert len(rows) == 1 and len(next(iter(rows))) == 1 + 3 * 400 and next(iter(rows))[0] == 0
    assert [kind for kind, _ in _chunks(png)] == [b"IHDR", b"tEXt", b"IDAT", b"IEND"]
    assert _chunks(png)[-1] == (b"IEND", b"") and png.endswith(b"IEND\xaeB`\x82")
    assert len(dict(_chunks(png))[b"IDAT"]) < 1600  # compressed hard: 600 same rows are 1.5 KB (2 KB at zlib's default)


def _colour(card: dict) -> bytes:
    _, rows = _pixels(card_png.card_png(card))
    return next(iter(rows))[1:4]


def test_a_cards_colour_is_the_persons_own_muted_and_the_same_every_export():
    """The colour comes from the name alone: the same card looks the same
    each time it is exported; each channel is muted (64 to 191); a card with
    no name (or no data) is plain grey."""
    alice = _colour({"data": {"name": "Alice"}})
    assert alice == _colour({"data": {"name": "Alice", "description": "other text"}})
    assert alice == bytes([0x83, 0x53, 0x8F])  # crc32("Alice") = 0xE64F9343: low 7 bits of its low 3 bytes, + 64
    assert _colour({"data": {"name": "小艾"}}) == bytes(((zlib.crc32("小艾".encode()) >> s) & 0x7F) + 64
                                                       for s in (0, 8, 16))
    for name in ("Alice", "Bob", "小艾", "Zoë"):
        assert all(64 <= c <= 191 for c in _colour({"data": {"name": name}}))
    assert _colour({"data": {}}) == _colour({}) == bytes([64, 64, 64])


def test_the_card_inside_a_png_is_readable_utf8_json():
    """Apps read the chara chunk as base64 of UTF-8 JSON: a Chinese name is
    there as itself, not as \\u escapes some apps show verbatim."""
    png = card_png.card_png({"spec": "chara_card_v2", "data": {"name": "小艾"}})
    body = dict(_chunks(png))[b"tEXt"]
    keyword, _, value = body.partition(b"\0")
    assert keyword == b"chara"
    text = base64.b64decode(value)
    assert "小艾".encode("utf-8") in text and b"\\u" not in text
    assert json.loads(text) == {"spec": "chara_card_v2", "data": {"name": "小艾"}}


def test_a_card_written_into_the_persons_own_picture_keeps_the_picture():
    """The avatar's own chunks stay, in order, the card put right after its
    IHDR; an old card inside the picture is replaced, not kept twice."""
    old = card_png.card_png({"data": {"name": "Old"}})
    png = card_png.card_png({"data": {"name": "New"}}, old)
    kinds = [kind for kind, _ in _chunks(png)]
    assert kinds == [b"IHDR", b"tEXt", b"IDAT", b"IEND"]
    assert json.loads(base64.b64decode(dict(_chunks(png))[b"tEXt"].partition(b"\0")[2]))["data"]["name"] == "New"
    assert dict(_chunks(png))[b"IDAT"] == dict(_chunks(old))[b"IDAT"]  # Old's picture, New's card


def test_an_avatar_too_big_to_read_is_refused_by_its_name(tmp_path, monkeypatch):
    from heartcompass.store.people import Person

    monkeypatch.setattr(card_png, "MAX_CARD_FILE", 10)
    (tmp_path / card_png.AVATAR).write_bytes(b"x" * 20)
    with pytest.raises(HeartCompassError) as refused:
        card_png.avatar_of(Person("alice", tmp_path))
    assert "avatar may be" in refused.value.message and "Split a very large avatar" in str(refused.value)
    (tmp_path / card_png.AVATAR).write_bytes(b"x" * 5)
    assert card_png.avatar_of(Person("alice", tmp_path)) == b"x" * 5


def test_a_chat_export_given_as_a_card_is_refused_with_the_command_that_imports_it(tmp_path):
    from heartcompass.intake.cards import read_card

    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"name": "Alice", "messages": [{"text": "hi"}]}), encoding="utf-8")
    with pytest.raises(HeartCompassError) as refused:
        read_card(path)
    assert refused.value.message == (f"{path}: this is a chat export (it has 'messages'), not a character card; "
                                     "nothing was imported.")
    assert refused.value.hint == "Import a chat with: heartcompass import NAME chat.json"


# -- a file the user points at: intake/limits ------------------------------------------------------------------------

@pytest.mark.parametrize("size, said", [(5, "5 bytes"), ((1 << 20) - 1, "1048575 bytes"), (1 << 20, "1 MiB"),
                                        (3 << 19, "2 MiB"), (3 << 20, "3 MiB")])
def test_a_file_too_big_is_refused_with_its_size_said_plainly(tmp_path, size, said):
    """Under a MiB in bytes, from a MiB up in whole MiB (rounded)."""
    path = tmp_path / "export.txt"
    with open(path, "wb") as f:
        f.truncate(size)  # sparse: the size without writing it
    with pytest.raises(HeartCompassError) as refused:
        limits.check_regular(path, size - 1, "chat export")
    assert refused.value.message.startswith(f"{path}: {said}, more than the ")
    assert limits.check_regular(path, size, "chat export") == size  # at the limit: taken


# -- a screenshot for tell: tell.image_url ---------------------------------------------------------------------------

def test_a_webp_screenshot_is_taken_as_webp(tmp_path):
    path = tmp_path / "shot.webp"
    data = b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8 " + b"\0" * 22
    path.write_bytes(data)
    assert tell.image_url(path) == "data:image/webp;base64," + base64.b64encode(data).decode("ascii")


@pytest.mark.parametrize("data", [b"RIFF" + b"\0" * 4 + b"WAVEfmt " + b"\0" * 20,  # a sound, not a picture
                                  b"JUNKJUNKWEBP" + b"\0" * 20,  # WEBP where it would be, without RIFF
                                  b"riff\0\0\0\0WEBP" + b"\0" * 20, b"RIFF\0\0\0\0webp" + b"\0" * 20])
def test_a_file_that_only_looks_like_webp_is_refused(tmp_path, data):
    path = tmp_path / "shot.bin"
    path.write_bytes(data)
    with pytest.raises(HeartCompassError) as refused:
        tell.image_url(path)
    assert "is not a PNG, JPEG, GIF or WebP image" in refused.value.message
    png = tmp_path / "shot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nWEBP")  # ... while a PNG is a PNG, whatever follows its signature
    assert tell.image_url(png).startswith("data:image/png;base64,")


def test_a_screenshot_over_20_mb_is_refused_with_its_size(tmp_path):
    path = tmp_path / "huge.png"
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.truncate(21 * 1024 * 1024)
    with pytest.raises(HeartCompassError) as refused:
        tell.image_url(path)
    assert refused.value.message == f"{path} is 21 MB; images go up to 20 MB."


# -- a tell's files put back after a failed write: tell._put_back ---------------------------------------------------

def test_a_file_the_tell_wrote_goes_back_to_what_it_was(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("told\n", encoding="utf-8")
    tell._put_back(path, "before\n", "told\n")
    assert path.read_text(encoding="utf-8") == "before\n"


def test_a_file_edited_by_hand_after_the_tells_write_is_left_as_the_user_made_it(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("told, then my own words\n", encoding="utf-8")
    tell._put_back(path, "before\n", "told\n")
    assert path.read_text(encoding="utf-8") == "told, then my own words\n"
    new = tmp_path / "EVENTS.md"  # a file the tell made, edited by hand since: theirs now
    new.write_text("my own\n", encoding="utf-8")
    tell._put_back(new, None, "told\n")
    assert new.read_text(encoding="utf-8") == "my own\n"


def test_a_file_the_tell_made_is_removed_again(tmp_path):
    path = tmp_path / "EVENTS.md"
    path.write_text("told\n", encoding="utf-8")
    tell._put_back(path, None, "told\n")
    assert not path.exists()
    kept = tmp_path / "VOICE.md"
    kept.write_text("kept\n", encoding="utf-8")
    assert kept.exists()  # ... and only that file


# -- a tell discarded: tell.discard_note ----------------------------------------------------------------------------

def test_a_discarded_tell_is_marked_for_the_gardener_and_committed_as_a_tells(ws, monkeypatch):
    """The note stays in the log with a `discards` marker saying why; the
    commit is the tell's (holding the lock as `tell`), the log in it."""
    from conftest import git

    from heartcompass.formats import dailylog
    from heartcompass.store import audit
    from heartcompass.store.lock import holder
    from heartcompass.store.people import Person

    now = dt.datetime(2026, 12, 1, 9, 30)
    note = tell.log_note(Person("me", ws.people_dir / "me"), "我搬到柏林了", now)
    held = []
    real = audit.commit_or_roll_back
    monkeypatch.setattr(audit, "commit_or_roll_back",
                        lambda *a, **kw: held.append((holder(ws.state_dir / "lock") or {}).get("purpose")) or real(*a, **kw))
    sha = tell.discard_note(ws, note, now)
    assert held == ["tell"]
    entries = dailylog.load(note.path)
    assert [(e.speaker, e.tags, e.text) for e in entries] == [
        ("note", [], "我搬到柏林了"), ("mark", ["discards 1"], "tell declined; not for the gardener")]
    assert sha and git(ws, "log", "-1", "--format=%s%n%b").strip() == "tell(me): discarded\nDiscarded: 我搬到柏林了"
    assert git(ws, "status", "--porcelain") == ""  # the log is in the commit


# -- reading a file the user points at: intake/limits -----------------------------------------------------------------

def test_a_file_within_its_limit_is_read_whole_even_past_a_mib(tmp_path):
    path = tmp_path / "export.txt"
    data = bytes(range(256)) * (3 * 4096 + 7)  # 3 MiB and a bit: read in several chunks
    path.write_bytes(data)
    assert limits.read_limited(path, len(data), "chat export") == data
    assert limits.read_limited(str(path), len(data) + 1, "chat export") == data
    (tmp_path / "empty.txt").write_bytes(b"")
    assert limits.read_limited(tmp_path / "empty.txt", 0, "chat export") == b""


def test_a_file_over_its_limit_is_refused_unread_saying_both_sizes(tmp_path):
    path = tmp_path / "card.json"
    path.write_bytes(b"x" * 11)
    with pytest.raises(HeartCompassError) as refused:
        limits.read_limited(path, 10, "character card")
    assert refused.value.message == (f"{path}: 11 bytes, more than the 10 bytes a character card may be; "
                                     "nothing was read.")
    assert refused.value.hint == "Is this the right file? Split a very large character card."
    with pytest.raises(HeartCompassError) as refused:
        limits.check_regular(path, 10, "contacts file")
    assert refused.value.message == (f"{path}: 11 bytes, more than the 10 bytes a contacts file may be; "
                                     "nothing was read.")
    assert refused.value.hint == "Is this the right file? Split a very large contacts file."
    assert limits.check_regular(path, 11, "contacts file") == 11


def test_a_file_that_grows_while_read_is_cut_off_at_the_cap(tmp_path, monkeypatch):
    """The size said by fstat may be old: the read itself stops past the cap."""
    import os

    path = tmp_path / "chat.txt"
    path.write_bytes(b"x" * 5000)
    real_fstat = os.fstat
    monkeypatch.setattr(limits.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    with pytest.raises(HeartCompassError) as refused:
        limits.read_limited(path, 1000, "chat export")
    assert refused.value.message == f"{path}: more than the 1000 bytes a chat export may be; nothing was read."
    assert refused.value.hint == "Is this the right file? Split a very large chat export."
    assert limits.read_limited(path, 5000, "chat export") == b"x" * 5000  # exactly the cap: taken


def test_a_missing_file_is_refused_naming_it_and_what_it_should_be(tmp_path):
    path = tmp_path / "nope.json"
    for call in (lambda: limits.read_limited(path, 10, "character card"),
                 lambda: limits.check_regular(path, 10, "character card"),
                 lambda: limits.open_regular(path, "character card")):
        with pytest.raises(HeartCompassError) as refused:
            call()
        assert refused.value.message == f"{path}: cannot read it (No such file or directory)."
        assert refused.value.hint == "Check the path of the character card."


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_folder_a_pipe_or_a_device_is_refused_at_once_never_waited_on(tmp_path, kind):
    import os

    from conftest import finishes

    if kind == "folder":
        path, said = tmp_path, f"{tmp_path}: a folder."
    elif kind == "fifo":
        path = tmp_path / "pipe.txt"
        os.mkfifo(path)  # opening it for reading would wait for a writer
        said = f"{path}: not a regular file (a device, pipe or socket)."
    else:
        path, said = "/dev/zero", "/dev/zero: not a regular file (a device, pipe or socket)."  # never ends

    def refused_everywhere():
        for call in (lambda: limits.read_limited(path, 10, "chat export"),
                     lambda: limits.check_regular(path, 10, "chat export"),
                     lambda: limits.open_regular(path, "chat export")):
            with pytest.raises(HeartCompassError) as refused:
                call()
            assert refused.value.message == said
            assert refused.value.hint == "Give the path of the chat export file itself."
        return True

    assert finishes(refused_everywhere)


def test_a_regular_file_opens_for_an_ordinary_blocking_read(tmp_path):
    import os

    path = tmp_path / "chat.txt"
    path.write_bytes(b"line one\nline two\n")
    with limits.open_regular(path, "chat export") as f:
        assert os.get_blocking(f.fileno()) and f.mode == "rb"
        assert f.read() == b"line one\nline two\n"


def test_an_unreadable_file_is_refused_with_the_reason(tmp_path, monkeypatch):

    path = tmp_path / "chat.txt"
    path.write_bytes(b"x")

    def failing(fd, n):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(limits.os, "read", failing)
    with pytest.raises(HeartCompassError) as refused:
        limits.read_limited(path, 10, "chat export")
    assert refused.value.message == f"{path}: cannot read it (Input/output error)."
    monkeypatch.undo()
    assert limits.read_limited(path, 10, "chat export") == b"x"


@pytest.mark.parametrize("size, said", [(0, "0 bytes"), (1 << 20, "1 MiB"), ((1 << 20) + (1 << 19) - 1, "1 MiB"),
                                        (20 << 20, "20 MiB")])
def test_sizes_are_said_in_bytes_under_a_mib_and_in_whole_mib_from_one(size, said):
    assert limits._size(size) == said
