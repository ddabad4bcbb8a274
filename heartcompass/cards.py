"""Character cards (the V2 spec SillyTavern and similar persona-chat apps
use, and the older flat V1): export a person as one, create a person from
one. JSON files, and PNG cards with the JSON in a `chara` text chunk."""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

from heartcompass.errors import HeartCompassError
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats.profile import RELATIONS
from heartcompass.people import Person

V2 = "chara_card_v2"
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")


class CardError(HeartCompassError):
    pass


def _quotes(text: str) -> list[str]:
    return [q.strip() for q in re.findall(r"[\"“「](.+?)[\"”」]", text) if q.strip()]


def _keys(text: str, name: str) -> list[str]:
    words = sorted({w for w in re.findall(r"[\w']{4,}", text)}, key=len, reverse=True)
    return [name, *words[:3]]


def export_card(person: Person) -> dict[str, Any]:
    prof, evs, mem = person.load_profile(), person.load_events(), person.load_memory()
    sec = prof.sections()
    name = prof.name
    talk = sec.get("How they talk", "")
    lines = _voice_lines(person) or _quotes(talk)  # their real words first (VOICE.md)
    description = "\n\n".join(f"{h}: {t}" for h, t in sec.items() if t and h not in ("Personality", "How they talk"))
    book = []
    for i, line in enumerate(mem.items(memory_fmt.FACTS)):
        content = line[2:] if line.startswith("- ") else line
        book.append({"keys": _keys(content, name), "content": content, "enabled": True, "insertion_order": i,
                     "id": i, "comment": "fact", "extensions": {}})
    for j, event in enumerate(evs.sorted_events()[:50]):
        book.append({"keys": _keys(event.text, name), "content": f"{event.date}: {event.text}", "enabled": True,
                     "insertion_order": len(book), "id": len(book), "comment": f"event w{event.effective_weight}",
                     "extensions": {}})
    extensions = dict(prof.doc.meta.get("card_extensions") or {})
    extensions["heartcompass"] = {"slug": person.slug, "relation": prof.relation, "mbti": prof.mbti,
                                  "aliases": prof.aliases, "gender": prof.gender, "birthday": prof.birthday}
    return {"spec": V2, "spec_version": "2.0", "data": {
        "name": name,
        "description": description,
        "personality": sec.get("Personality", ""),
        "scenario": f"{name} is {{{{user}}}}'s {prof.relation.replace('_', ' ')} and is chatting with {{{{user}}}} "
                    "by text.",
        "first_mes": next((line for line in lines if len(line.split()) >= 3), lines[0] if lines else "Hey {{user}}!"),
        "mes_example": ("<START>\n" + "".join(f"{{{{char}}}}: {line}\n" for line in lines)) if lines else (
            f"<START>\n{{{{char}}}}: {talk}\n" if talk else ""),
        "creator_notes": "Exported from HeartCompass. Facts and events are in the character book.",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": lines[1:4],
        "character_book": {"name": f"{name} — HeartCompass", "entries": book, "extensions": {}},
        "tags": prof.tags, "creator": "HeartCompass", "character_version": "1", "extensions": extensions,
    }}


def _png_text(data: bytes, path: Path) -> str:
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            key, _, value = body.partition(b"\0")
            if key.lower() not in (b"chara", b"ccv3"):
                continue
            if kind == b"zTXt":
                value = zlib.decompress(value[1:])
            elif kind == b"iTXt":
                flag, rest = value[0], value[2:]  # value[1] is the compression method
                _lang, _, rest = rest.partition(b"\0")
                _tkey, _, value = rest.partition(b"\0")
                if flag:
                    value = zlib.decompress(value)
            try:
                return base64.b64decode(value).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                raise CardError(f"{path}: the PNG's 'chara' chunk is not base64 JSON.") from None
    raise CardError(f"{path}: this PNG has no character card inside (no 'chara' text chunk).")


def read_card(path: Path) -> dict[str, Any]:
    """The card's fields as V2 `data`, from a V1 or V2 card (JSON or PNG)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise CardError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    text = _png_text(raw, path) if raw.startswith(b"\x89PNG\r\n\x1a\n") else raw.decode("utf-8-sig", "replace")
    try:
        card = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}).",
                        "A character card is a JSON file (or a PNG with one inside).") from None
    if not isinstance(card, dict):
        raise CardError(f"{path}: a character card is a JSON object.")
    if card.get("spec") in (V2, "chara_card_v3"):
        data = card.get("data")
        if not isinstance(data, dict):
            raise CardError(f"{path}: a {card['spec']} card needs a 'data' object.")
    elif "spec" in card:
        raise CardError(f"{path}: unknown card spec {card['spec']!r}.", "Supported: V1 and chara_card_v2 (and v3).")
    else:
        data = card  # V1: the fields at the top level
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CardError(f"{path}: the card has no 'name'.")
    for key in V1_FIELDS[1:]:
        if data.get(key) is not None and not isinstance(data.get(key), str):
            raise CardError(f"{path}: '{key}' must be text.")
    return data


def _voice_lines(person: Person) -> list[str]:
    from heartcompass.formats import voice as voice_fmt

    path = person.dir / voice_fmt.FILENAME
    return [line.text for line in voice_fmt.load(path).lines(voice_fmt.THEIRS)] if path.exists() else []


def example_lines(data: dict[str, Any]) -> list[str]:
    """The character's own lines in first_mes and mes_example: VOICE.md material."""
    name, lines = str(data.get("name") or ""), []
    first = str(data.get("first_mes") or "").strip()
    if first and "\n" not in first:
        lines.append(first)
    for m in re.finditer(r"(?m)^\{\{char\}\}:\s*(.+)$", str(data.get("mes_example") or "")):
        lines.append(m.group(1).strip())
    seen, out = set(), []
    for line in lines:
        line = line.replace("{{char}}", name).strip().strip('"“”')
        if line and len(line) <= 200 and "{{user}}" not in line and line.casefold() not in seen:
            seen.add(line.casefold())
            out.append(line)
    return out


def person_fields(data: dict[str, Any], user_name: str) -> dict[str, Any]:
    """What `person add` needs, from card data; unknown extensions are kept."""
    ext = dict(data.get("extensions") or {})
    ours = ext.pop("heartcompass", {}) or {}

    user = user_name or "me"

    def clean(text: str | None) -> str:
        text = (text or "").replace("<START>", "")
        text = re.sub(r"(?m)^\{\{char\}\}:\s*(.+)$", r'"\1"', text)  # example lines become quoted lines
        return text.replace("{{user}}", user).replace("{{char}}", data["name"]).strip()

    relation = ours.get("relation") if ours.get("relation") in RELATIONS else "stranger"
    facts, events = [], []
    book = data.get("character_book") or {}
    for entry in book.get("entries", []) if isinstance(book, dict) else []:
        if not (isinstance(entry, dict) and str(entry.get("content", "")).strip() and entry.get("enabled", True)):
            continue
        content = " ".join(str(entry["content"]).split())[:200]
        dated = re.match(r"^(\d{4}-\d{2}-\d{2}): (.+)$", content)
        weight = re.search(r"w(0(?:\.\d+)?|1(?:\.0+)?)\b", str(entry.get("comment", "")))
        if dated:
            events.append((dated.group(1), dated.group(2), float(weight.group(1)) if weight else None))
        else:
            facts.append(content)
    sections = {"Personality": clean(data.get("personality")), "How they talk": "", "Background": ""}
    background = []
    for para in re.split(r"\n\s*\n", clean(data.get("description"))):
        labelled = re.match(r"^(Personality|How they talk|Likes|Dislikes|Boundaries|Background): (.*)$", para, re.S)
        if labelled:  # a card HeartCompass exported: each section back in its place
            sections[labelled.group(1)] = labelled.group(2).strip()
        elif para.strip():
            background.append(para.strip())
    if not ours and clean(data.get("scenario")):  # our own scenario line is generated, not knowledge
        background.append(clean(data.get("scenario")))
    sections["Background"] = "\n\n".join([sections["Background"], *background]).strip()
    first, example = clean(data.get("first_mes")), clean(data.get("mes_example"))
    sections["How they talk"] = "\n".join(t for t in (first if f'"{first}"' not in example else "", example) if t)
    return {
        "name": data["name"].strip(), "relation": relation, "mbti": ours.get("mbti"),
        "aliases": [a for a in ours.get("aliases") or [] if isinstance(a, str)],
        "gender": ours.get("gender"),
        "sections": sections,
        "facts": facts,
        "events": events,
        "extensions": ext,
        "tags": [t for t in data.get("tags") or [] if isinstance(t, str)],
        "voice": example_lines(data),
    }
