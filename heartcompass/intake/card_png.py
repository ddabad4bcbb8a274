"""PNG character cards: the card is base64 JSON in a `chara` (V2) or
`ccv3` (V3) text chunk of an ordinary image, the character's avatar. We
read the card out, keep the image (without the card) as the person's
avatar, and write a card back into that same image on export. No imaging
library: PNG chunks are length, type, body and CRC."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heartcompass.errors import HeartCompassError

if TYPE_CHECKING:
    from heartcompass.store.people import Person

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYS = (b"chara", b"ccv3")
TEXT_KINDS = (b"tEXt", b"zTXt", b"iTXt")
MAX_CARD_TEXT = 8 << 20  # decompressed: a zTXt "bomb" of 1 GiB must not be inflated
MAX_CARD_FILE = 32 << 20  # a card with a large lorebook is a few MiB; a PNG with art maybe 20
AVATAR = "avatar.png"  # the image of a PNG card, kept in the person's folder and written back on export
FIX = "Export the card again from the app it came from, or use its JSON version."


class CardError(HeartCompassError):
    pass


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def chunks(data: bytes):
    """(kind, body, raw bytes of the whole chunk) for each chunk, stopping at IEND or a cut-off one."""
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        yield kind, data[pos + 8:pos + 8 + length], data[pos:end]
        pos = end
        if kind == b"IEND":
            break


def _is_card_chunk(kind: bytes, body: bytes) -> bool:
    return kind in TEXT_KINDS and body.partition(b"\0")[0].lower() in CARD_KEYS


def image_without_card(data: bytes) -> bytes | None:
    """The PNG with every card chunk taken out: the avatar as an image alone
    (None when it is not a whole PNG)."""
    parts = [raw for kind, body, raw in chunks(data) if not _is_card_chunk(kind, body)]
    if not parts or not parts[-1][4:8] == b"IEND" or parts[0][4:8] != b"IHDR":
        return None
    return SIGNATURE + b"".join(parts)


def card_png(card: dict[str, Any], image: bytes | None = None) -> bytes:
    """A PNG card: the card as base64 JSON in a `chara` tEXt chunk, as
    SillyTavern and other apps read it, inside image (the person's avatar,
    its own card chunks dropped) or else a plain 400x600 image."""
    chara = chunk(b"tEXt", b"chara\0" + base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8")))
    base = image_without_card(image) if image else None
    if base:
        ihdr_end = len(SIGNATURE) + 12 + struct.unpack(">I", base[8:12])[0]
        return base[:ihdr_end] + chara + base[ihdr_end:]
    width, height = 400, 600
    shade = zlib.crc32(str(card.get("data", {}).get("name", "")).encode("utf-8"))
    rgb = bytes(((shade >> s) & 0x7F) + 64 for s in (0, 8, 16))  # a muted colour per name
    row = b"\x00" + rgb * width  # filter byte 0, then the pixels
    return (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chara
            + chunk(b"IDAT", zlib.compress(row * height, 9)) + chunk(b"IEND", b""))


def _inflate(data: bytes, path: Path) -> bytes:
    """zlib data, refusing to expand past MAX_CARD_TEXT."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, MAX_CARD_TEXT + 1)
    except zlib.error as exc:
        raise CardError(f"{path}: the PNG's card chunk is damaged ({exc}); nothing was imported.", FIX) from None
    if len(out) > MAX_CARD_TEXT or inflater.unconsumed_tail:
        raise CardError(f"{path}: the card inside this PNG expands past {MAX_CARD_TEXT >> 20} MiB; "
                        "refusing it (a real card is far smaller).", FIX)
    return out


def _chunk_text(kind: bytes, value: bytes, path: Path) -> bytes:
    """The text of a tEXt/zTXt/iTXt chunk's value (after its keyword)."""
    if kind == b"tEXt":
        return value
    if kind == b"zTXt":  # compression method, then zlib data
        return _inflate(value[1:], path)
    # iTXt: compression flag, compression method, language\0, translated keyword\0, text
    if len(value) < 2:
        raise CardError(f"{path}: the PNG's iTXt card chunk is truncated; nothing was imported.", FIX)
    flag, rest = value[0], value[2:]
    _lang, sep1, rest = rest.partition(b"\0")
    _tkey, sep2, text = rest.partition(b"\0")
    if not (sep1 and sep2):
        raise CardError(f"{path}: the PNG's iTXt card chunk is malformed; nothing was imported.", FIX)
    return _inflate(text, path) if flag else text


def png_text(data: bytes, path: Path) -> str:
    """The card JSON inside a PNG card."""
    for kind, body, _raw in chunks(data):
        if not _is_card_chunk(kind, body):
            continue
        value = _chunk_text(kind, body.partition(b"\0")[2], path).strip()
        if value.startswith(b"{"):  # some tools store the JSON itself
            text = value
        else:
            try:
                text = base64.b64decode(value, validate=False)
            except ValueError:
                raise CardError(f"{path}: the PNG's 'chara' chunk is not base64 JSON.", FIX) from None
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            raise CardError(f"{path}: the PNG's 'chara' chunk is not base64 JSON.", FIX) from None
    raise CardError(f"{path}: this PNG has no character card inside (no 'chara' text chunk).")


def card_avatar(path: Path) -> bytes | None:
    """The image of a PNG card, without the card inside it."""
    from heartcompass.intake.limits import read_limited

    raw = read_limited(path, MAX_CARD_FILE, "character card")
    return image_without_card(raw) if raw.startswith(SIGNATURE) else None


def avatar_of(person: "Person") -> bytes | None:
    """The person's avatar (from the card they came from), for a PNG export."""
    from heartcompass.intake.limits import read_limited
    from heartcompass.paths import check

    path = check(person.dir / AVATAR)
    return read_limited(path, MAX_CARD_FILE, "avatar") if path.is_file() else None
