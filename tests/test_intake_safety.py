"""Hostile imports and cards: clear errors, bounded memory, nothing written."""

from __future__ import annotations

import base64
import json
import os
import struct
import tracemalloc
import zlib

import pytest

from conftest import Runner, finishes, log_entries, tree_snapshot
from heartcompass.intake import cards, importers
from heartcompass.errors import HeartCompassError


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(*chunks: bytes) -> bytes:
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + b"".join(chunks)
            + _chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00")) + _chunk(b"IEND", b""))


def _card(**data) -> dict:
    base = {"name": "Rin", "description": "", "personality": "", "scenario": "", "first_mes": "", "mes_example": ""}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {**base, **data}}


def _refused(cli: Runner, *args: str, words: str):
    before = tree_snapshot(cli.ws.root)
    result = cli(*args, ok=False)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and words in result.output, result.output
    assert tree_snapshot(cli.ws.root) == before
    return result


# -- imports -------------------------------------------------------------------------------------------
def test_telegram_text_list_with_null_parts(example_cli: Runner, tmp_path):
    export = {"messages": [{"id": 1, "type": "message", "date": "2024-02-10T09:01:00", "from": "Alice Chen",
                            "text": ["see ", None, {"type": "bold", "text": "you"}, {"type": "x"}, " soon"]},
                           {"id": 2, "type": "message", "date": "2024-02-10T09:02:00", "from": None,
                            "text": [None]}]}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(export))
    example_cli("import", "alice", str(path), "--format", "telegram")
    assert [e.text for e in log_entries(example_cli.ws, "alice")] == ["see you soon"]


def test_dev_zero_and_fifos_are_refused_at_once(example_cli: Runner, tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)

    def refused_all():  # reading /dev/zero or opening the FIFO would hang: caught by the deadline
        _refused(example_cli, "import", "alice", "/dev/zero", words="not a regular file")
        _refused(example_cli, "import", "alice", str(fifo), words="not a regular file")
        _refused(example_cli, "import", "alice", str(tmp_path), words="a folder")
        _refused(example_cli, "person", "import-card", "/dev/zero", words="not a regular file")
        return True

    assert finishes(refused_all)


def test_a_huge_export_is_refused_without_reading_it(example_cli: Runner, tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as fh:  # sparse: costs no disk
        fh.truncate(importers.MAX_EXPORT_BYTES + 1)
    tracemalloc.start()
    _refused(example_cli, "import", "alice", str(path), words="MiB")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 << 20


def test_the_size_cap_holds_while_reading(tmp_path, monkeypatch):
    """A file that grows after the size check is still cut off at the cap."""
    from heartcompass.intake import limits

    path = tmp_path / "chat.txt"
    path.write_bytes(b"x" * 5000)
    real_fstat = os.fstat
    monkeypatch.setattr(limits.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    with pytest.raises(HeartCompassError, match="more than"):
        limits.read_limited(path, 1000, "chat export")
    assert len(limits.read_limited(path, 5000, "chat export")) == 5000


def test_non_utf8_export_names_the_line(example_cli: Runner, tmp_path):
    path = tmp_path / "chat.txt"
    path.write_bytes("31/12/2023, 23:58 - Alice Chen: hi\n31/12/2023, 23:59 - Lei: caf\xe9\n".encode("latin-1"))
    _refused(example_cli, "import", "alice", str(path), words="chat.txt:2: not UTF-8")


# -- cards ---------------------------------------------------------------------------------------------
def test_a_damaged_itxt_or_ztxt_chunk_is_a_clear_error(cli: Runner, tmp_path):
    path = tmp_path / "card.png"
    path.write_bytes(png(_chunk(b"iTXt", b"chara\0\x01\x00\0\0" + b"not zlib at all")))
    _refused(cli, "person", "import-card", str(path), words="damaged")
    path.write_bytes(png(_chunk(b"zTXt", b"chara\0\x00" + b"\x78\x9c garbage")))
    _refused(cli, "person", "import-card", str(path), words="damaged")
    path.write_bytes(png(_chunk(b"iTXt", b"chara\0\x01")))
    _refused(cli, "person", "import-card", str(path), words="truncated")
    path.write_bytes(png(_chunk(b"iTXt", b"chara\0\x00\x00no separators")))
    _refused(cli, "person", "import-card", str(path), words="malformed")


def test_an_uncompressed_itxt_card_still_imports(cli: Runner, tmp_path):
    path = tmp_path / "card.png"
    value = base64.b64encode(json.dumps(_card(personality="calm")).encode())
    path.write_bytes(png(_chunk(b"iTXt", b"chara\0\x00\x00\0\0" + value)))
    cli("person", "import-card", str(path))
    assert "calm" in (cli.ws.people_dir / "rin" / "PROFILE.md").read_text()


def _bomb(size: int) -> bytes:
    """A zlib stream of `size` zero bytes, built without ever holding them."""
    packer, zeros = zlib.compressobj(9), bytes(1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(size >> 20)) + packer.flush()


def test_a_ztxt_decompression_bomb_is_refused_in_bounded_memory(cli: Runner, tmp_path):
    bomb = _bomb(256 << 20)
    assert len(bomb) < 1 << 20
    path = tmp_path / "bomb.png"
    path.write_bytes(png(_chunk(b"zTXt", b"chara\0\x00" + bomb)))
    tracemalloc.start()
    with pytest.raises(cards.CardError, match="expands past"):
        cards.read_card(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * cards.MAX_CARD_TEXT  # stopped early: it never held the 256 MB
    path.write_bytes(png(_chunk(b"iTXt", b"chara\0\x01\x00\0\0" + bomb)))
    _refused(cli, "person", "import-card", str(path), words="expands past")


def test_character_book_as_a_list_is_a_clear_error(cli: Runner, tmp_path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps(_card(character_book=[{"keys": ["x"], "content": "likes tea"}])))
    _refused(cli, "person", "import-card", str(path), words="'character_book' must be an object")
    path.write_text(json.dumps(_card(character_book={"entries": {"a": 1}})))
    _refused(cli, "person", "import-card", str(path), words="entries' must be a list")
    path.write_text(json.dumps(_card(extensions=["x"])))
    _refused(cli, "person", "import-card", str(path), words="'extensions' must be an object")


def test_aliases_given_as_a_string_are_not_split_into_letters(cli: Runner, tmp_path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps(_card(tags="calm, tea", extensions={"heartcompass": {
        "aliases": "小林, Rinny", "mbti": 7, "gender": ["x"], "relation": ["friend"]}}), ensure_ascii=False))
    cli("person", "import-card", str(path))
    from heartcompass.store.people import resolve

    prof = resolve(cli.ws, "rin").load_profile()
    assert prof.aliases == ["小林", "Rinny"] and prof.tags == ["calm", "tea"]
    assert prof.relation == "stranger" and prof.mbti is None
