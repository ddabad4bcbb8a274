"""A real-world V2 card (SillyTavern's default Seraphina has this shape): a
painted avatar with the card inside, a long greeting, a lorebook of long
entries with {{user}}/{{char}}, creator fields. Nothing of it bent or lost,
and nothing in it taken for our own structure (issues 21 and 23)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from conftest import Runner, tree_snapshot

GREETING = ("*You wake with a start, the scent of pine and herbs around you. A woman with pink hair kneels "
            "beside the bed.* \"Easy now, {{user}}. You were hurt in the forest, but you are safe in my glade.\"\n\n"
            "*{{char}} smiles and offers you a cup of warm tea.* \"Drink this. It will help with the pain.\"")
LORE = ("The Shadowfangs are wolves twisted by dark magic that roam the Eldoria forest at night. {{char}} has "
        "fought them for years to keep travellers safe, and she warns {{user}} never to walk the old road after "
        "dusk, because the Shadowfangs hunt in packs of six or more and fear only the light of her glade, which "
        "she keeps burning through the longest winter nights with a spell her mother taught her long ago.")


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def avatar() -> bytes:
    """A small painted image (every pixel its own colour), with a gamma chunk apps keep."""
    width, height = 8, 8
    pixel = lambda x, y: bytes((x * 30, y * 30, (x + y) * 15))  # noqa: E731
    rows = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(width)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def idat(png: bytes) -> bytes:
    pos, out = 8, b""
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            out += png[pos + 8:pos + 8 + length]
        pos += 12 + length
    return out


def seraphina(**changes) -> dict:
    data = {"name": "Seraphina", "description": "{{char}} is a guardian of the Eldoria forest, gentle and wise.",
            "personality": "caring, protective, patient", "scenario": "{{char}} found {{user}} hurt in the forest.",
            "first_mes": GREETING, "mes_example": "<START>\n{{user}}: Who are you?\n{{char}}: I am Seraphina, "
            "keeper of this glade.", "creator": "OtisAlejandro", "creator_notes": "Seraphina, the default "
            "character.\nWorks best with a long context.", "character_version": "1.2", "tags": ["fantasy"],
            "character_book": {"name": "Eldoria", "entries": [
                {"keys": ["Shadowfang"], "content": LORE, "enabled": True, "insertion_order": 0, "id": 0},
                {"keys": ["glade"], "content": "{{char}}'s glade is hidden by a spell only {{user}} can now pass.",
                 "enabled": True, "insertion_order": 1, "id": 1}]},
            "extensions": {"talkativeness": "0.5"}}
    data.update(changes)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def card_png(card: dict) -> bytes:
    image = avatar()
    text = chunk(b"tEXt", b"chara\0" + base64.b64encode(json.dumps(card).encode()))
    return image[:33] + text + image[33:]  # after IHDR, as SillyTavern writes it


@pytest.fixture
def imported(cli: Runner, tmp_path):
    cli("config", "set", "user.name", "王磊")
    path = tmp_path / "default_Seraphina.png"
    path.write_bytes(card_png(seraphina()))
    cli("person", "import-card", str(path))
    return cli, cli.ws.people_dir / "seraphina"


def test_the_greeting_goes_to_voice_not_how_they_talk(imported):
    cli, folder = imported
    voice = (folder / "VOICE.md").read_text(encoding="utf-8")
    assert "Easy now, 王磊. You were hurt in the forest" in voice and "{{user}}" not in voice
    assert "*Seraphina smiles and offers you a cup of warm tea.*" in voice
    talk = (folder / "PROFILE.md").read_text(encoding="utf-8").split("## How they talk")[1]
    assert "Easy now" not in talk and "keeper of this glade" in talk and "Who are you" not in talk


def test_lorebook_entries_are_whole_with_the_names_resolved(imported):
    cli, folder = imported
    memory = (folder / "MEMORY.md").read_text(encoding="utf-8")
    whole = LORE.replace("{{char}}", "Seraphina").replace("{{user}}", "王磊")
    assert f"- {whole} (import)" in memory
    assert "- Seraphina's glade is hidden by a spell only 王磊 can now pass. (import)" in memory
    assert "{{" not in memory


def test_creator_fields_are_kept_and_written_back(imported, tmp_path):
    cli, folder = imported
    profile = (folder / "PROFILE.md").read_text(encoding="utf-8")
    assert "OtisAlejandro" in profile and "Works best with a long context." in profile
    data = json.loads(cli("person", "export", "seraphina").output)["data"]
    assert data["creator"] == "OtisAlejandro" and data["character_version"] == "1.2"
    assert data["creator_notes"] == "Seraphina, the default character.\nWorks best with a long context."


def test_the_avatar_is_kept_and_exported_back_with_the_card_inside(imported, tmp_path):
    cli, folder = imported
    kept = (folder / "avatar.png").read_bytes()
    assert idat(kept) == idat(avatar()) and b"chara" not in kept  # the picture alone, the card taken out
    out = tmp_path / "x.png"
    cli("person", "export", "seraphina", "-o", str(out))
    png = out.read_bytes()
    assert idat(png) == idat(avatar()) and b"gAMA" in png  # their picture, not a plain rectangle
    again = tmp_path / "again.png"
    again.write_bytes(png)
    cli("person", "import-card", str(again), "--name", "Sera")
    assert idat((cli.ws.people_dir / "sera" / "avatar.png").read_bytes()) == idat(avatar())
    from conftest import git

    assert "people/seraphina/avatar.png" in git(cli.ws, "ls-files")  # committed with the person


@pytest.mark.parametrize("content, words", [
    ({"name": "Personal chat", "type": "personal_chat", "id": 1, "messages": [{"id": 1, "text": "hi"}]},
     "chat export"),
    ({"name": "My settings", "version": 3, "theme": "dark"}, "not a character card"),
])
def test_what_is_not_a_card_is_refused_saying_why(cli: Runner, tmp_path, content, words):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    before = tree_snapshot(cli.ws.root)
    result = cli("person", "import-card", str(path), ok=False)
    assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output
    assert tree_snapshot(cli.ws.root) == before


def test_card_text_never_becomes_our_structure(cli: Runner, tmp_path):
    """'(hand)' markers, '## Facts' headings and Unicode line breaks in a card stay text."""
    hostile = seraphina(
        description="A guardian.\u2028## Facts\u2028- She owes me 9000 dollars (hand)\n\n## Boundaries\nnone",
        personality="kind ((hand)hand)\u2029## How they talk",
        character_book={"entries": [{"content": "Loves tea ((hand)hand)\u2028## Facts\u2028- claim (told)",
                                     "enabled": True}]},
        tags=["ok\u2028## Facts"])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(hostile, ensure_ascii=False), encoding="utf-8")
    cli("person", "import-card", str(path))
    folder = cli.ws.people_dir / "seraphina"
    profile = (folder / "PROFILE.md").read_text(encoding="utf-8")
    memory = (folder / "MEMORY.md").read_text(encoding="utf-8")
    for text in (profile, memory):
        assert "\u2028" not in text and "\u2029" not in text and "(hand)" not in text and "(told)" not in text
    headings = [line for line in profile.splitlines() if line.startswith("#")]
    assert len(headings) == len(set(headings)) and "## Facts" not in headings
    lines = memory.splitlines()
    facts = [line for line in lines[lines.index("## Facts") + 1:lines.index("## From our chats")] if line]
    assert len(facts) == 1 and facts[0].startswith("- Loves tea") and facts[0].endswith("claim (import)")
    assert [line for line in lines if line.startswith("#")][:4] == ["# Memory — Seraphina", "## Facts",
                                                                    "## From our chats", "## Open threads"]
    assert set(line for line in lines if line.startswith("#")) <= {"# Memory — Seraphina", "## Facts",
                                                                   "## From our chats", "## Open threads",
                                                                   "## About me"}  # the format's own only
    from heartcompass.formats import memory as memory_fmt, profile as profile_fmt

    assert memory_fmt.load(folder / "MEMORY.md").items(memory_fmt.FACTS) == facts
    assert set(profile_fmt.load(folder / "PROFILE.md").sections()) <= {"Personality", "How they talk", "Likes",
                                                                       "Dislikes", "Boundaries", "Background"}
