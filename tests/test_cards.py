from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from conftest import Runner, subjects, tree_snapshot


def png_with_text(key: bytes, value: bytes) -> bytes:
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\x00\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"tEXt", key + b"\0" + value) + \
        chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_export_is_a_v2_card_with_a_character_book(example_cli: Runner):
    card = json.loads(example_cli("person", "export", "alice", "--format", "card").output)
    assert card["spec"] == "chara_card_v2" and card["spec_version"] == "2.0"
    data = card["data"]
    for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
                "system_prompt", "post_history_instructions", "alternate_greetings", "character_book", "tags",
                "creator", "character_version", "extensions"):
        assert key in data, key
    assert data["name"] == "Alice Chen" and "Warm, restless" in data["personality"]
    assert data["mes_example"].startswith("<START>\n{{char}}: ") and "你又熬夜了吧?" in data["mes_example"]
    contents = [e["content"] for e in data["character_book"]["entries"]]
    assert any("Kyoto in January" in c for c in contents) and any(c.startswith("2026-11-28: Hiked") for c in contents)
    assert data["extensions"]["heartcompass"]["relation"] == "friend"


def test_export_then_import_round_trips(example_cli: Runner, tmp_path):
    out = tmp_path / "alice.json"
    example_cli("person", "export", "alice", "-o", str(out))
    data = json.loads(out.read_text())
    data["data"]["name"] = "Alice Copy"
    out.write_text(json.dumps(data, ensure_ascii=False))
    example_cli("person", "import-card", str(out), "--force")  # same aliases, on purpose
    folder = example_cli.ws.people_dir / "alice-copy"
    prof = (folder / "PROFILE.md").read_text()
    assert "mbti: ENFP" in prof and "relation: friend" in prof and "- 小爱" in prof
    assert "## Likes\n\nMountains, bad puns" in prof and '"ok but hear me out"' in prof
    assert "Hiked Mount Takao" in (folder / "EVENTS.md").read_text()
    # a card is a file from outside: its facts come back as imported (unverified), never as told or by hand
    assert "- Moves to Kyoto in January for the design studio job (import)" in (folder / "MEMORY.md").read_text()
    assert subjects(example_cli.ws)[0] == "add(alice-copy): from character card alice.json"


def test_import_a_v1_card_and_keep_unknown_extensions(cli: Runner, tmp_path):
    v1 = {"name": "Kaito", "description": "A barista in Osaka.", "personality": "Dry humour.",
          "scenario": "{{char}} works the morning shift.", "first_mes": "Usual, {{user}}?",
          "mes_example": "<START>\n{{user}}: hi\n{{char}}: You're late."}
    path = tmp_path / "kaito.json"
    path.write_text(json.dumps(v1))
    cli("person", "import-card", str(path))
    prof = (cli.ws.people_dir / "kaito" / "PROFILE.md").read_text()
    assert "relation: stranger" in prof and "Dry humour." in prof and '"You\'re late."' in prof
    assert "A barista in Osaka." in prof and "Kaito works the morning shift." in prof
    v2 = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Rin", "description": "", "personality": "", "scenario": "", "first_mes": "", "mes_example": "",
        "extensions": {"depth_prompt": {"depth": 4, "prompt": "stay calm"}, "fav": 1}}}
    path.write_text(json.dumps(v2))
    cli("person", "import-card", str(path))
    assert "card_extensions:\n  depth_prompt:" in (cli.ws.people_dir / "rin" / "PROFILE.md").read_text()


def test_import_a_png_card(cli: Runner, tmp_path):
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "小雪", "personality": "温柔",
                                                                     "description": "", "scenario": "",
                                                                     "first_mes": "你好", "mes_example": ""}}
    path = tmp_path / "card.png"
    path.write_bytes(png_with_text(b"chara", base64.b64encode(json.dumps(card).encode())))
    cli("person", "import-card", str(path))
    assert "温柔" in (cli.ws.people_dir / "小雪" / "PROFILE.md").read_text()


@pytest.mark.parametrize("content, words", [
    (b"{nope", "not valid JSON"),
    (b'{"description": "no name"}', "no 'name'"),
    (b'{"spec": "chara_card_v9", "data": {}}', "unknown card spec"),
    (b'{"spec": "chara_card_v2"}', "needs a 'data' object"),
    (b'{"name": "X", "personality": ["a"]}', "must be text"),
    (b'{"name": "../evil", "description": "x"}', "outside the workspace"),
    (png_with_text(b"other", b"x"), "no character card inside"),
])
def test_invalid_cards_create_nothing(cli: Runner, tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    before = tree_snapshot(cli.ws.root)
    result = cli("person", "import-card", str(path), ok=False)
    assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output
    assert tree_snapshot(cli.ws.root) == before


def test_export_to_png_writes_a_real_png_card_that_imports_back(example_cli: Runner, tmp_path):
    out = tmp_path / "alice.png"
    example_cli("person", "export", "alice", "-o", str(out))
    raw = out.read_bytes()
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    chunks, pos = {}, 8
    while pos < len(raw):  # every chunk well-formed, with a correct CRC
        length, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", raw[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        chunks.setdefault(kind, []).append(body)
        pos += 12 + length
    assert list(chunks)[0] == b"IHDR" and list(chunks)[-1] == b"IEND" and pos == len(raw)
    width, height = struct.unpack(">II", chunks[b"IHDR"][0][:8])
    assert len(zlib.decompress(b"".join(chunks[b"IDAT"]))) == height * (1 + 3 * width)
    key, _, value = chunks[b"tEXt"][0].partition(b"\0")
    assert key == b"chara" and json.loads(base64.b64decode(value))["data"]["name"] == "Alice Chen"
    from heartcompass.intake import cards

    assert cards.read_card(out)["name"] == "Alice Chen"
    bad = example_cli("person", "export", "alice", "-o", str(tmp_path / "alice.jpg"), ok=False)
    assert bad.exit_code == 1 and "alice.png" in bad.output and not (tmp_path / "alice.jpg").exists()


@pytest.mark.parametrize("relation, phrase", [
    ("dating", "Alice Chen and {{user}} are dating"), ("friend", "Alice Chen is {{user}}'s friend"),
    ("broken_up", "Alice Chen is {{user}}'s ex"), ("family", "Alice Chen is family to {{user}}"),
    ("tension", "Alice Chen and {{user}} are on tense terms"),
])
def test_scenario_has_a_phrase_per_relation(example_cli: Runner, relation, phrase):
    path = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", f"relation: {relation}"))
    scenario = json.loads(example_cli("person", "export", "alice").output)["data"]["scenario"]
    assert scenario.startswith(phrase) and scenario.endswith(". Alice Chen is chatting with {{user}} by text.")
    assert "{{user}}'s dating" not in scenario


def test_round_trip_keeps_how_they_talk_and_the_birthday(example_cli: Runner, tmp_path):
    out = tmp_path / "alice.png"
    example_cli("person", "export", "alice", "-o", str(out))
    example_cli("person", "archive", "alice")
    example_cli("person", "import-card", str(out))
    from heartcompass.formats import profile
    from heartcompass.store.people import resolve

    old = profile.load(next((example_cli.ws.people_dir / ".archive").glob("alice*/PROFILE.md")))
    prof = resolve(example_cli.ws, "Alice Chen").load_profile()
    assert prof.birthday == "1996-04-12"
    talk = prof.sections()["How they talk"]
    assert talk.startswith('Short bursts of messages, lots of "haha" and "wait—".') and "你又熬夜了吧?" in talk
    assert talk == old.sections()["How they talk"]
    assert prof.sections()["Likes"].startswith("Mountains, bad puns")


def test_lorebook_keys_are_keywords_not_clauses(example_cli: Runner):
    path = example_cli.ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text().replace("- Prefers calls after 21:00 on weekdays (hand)",
                                             "- 她下个月要去京都的设计工作室上班，很紧张 (told)"))
    book = json.loads(example_cli("person", "export", "alice").output)["data"]["character_book"]["entries"]
    for entry in book:
        assert entry["keys"][0] == "Alice Chen"
        for key in entry["keys"][1:]:
            assert 2 <= len(key) <= 20 and " " not in key and "，" not in key, entry
    kyoto = next(e for e in book if "Kyoto in January" in e["content"])
    assert "Kyoto" in kyoto["keys"] and "told" not in kyoto["keys"]
    chinese = next(e for e in book if "京都" in e["content"])
    assert any(k.startswith("京都") or k == "京都" for k in chinese["keys"]), chinese["keys"]
    assert all(len(k) <= 4 for k in chinese["keys"][1:])


def test_lines_the_card_gives_user_stay_out_of_how_they_talk(cli: Runner, tmp_path):
    card = {"name": "小林", "description": "A barista.", "personality": "", "scenario": "",
            "first_mes": "{{user}}: 有人吗?\n*小林 looks up* 来了来了!",
            "mes_example": "<START>\n{{user}}: I'm so tired today,\nwork was endless\n{{char}}: 又加班了?\n"
                           "*pours a coffee*\n<START>\n<USER>: can I get a latte?\n{{char}}: 当然。"}
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    cli("person", "import-card", str(path))
    folder = cli.ws.people_dir / "小林"
    talk = (folder / "PROFILE.md").read_text(encoding="utf-8").split("## How they talk")[1].split("## Likes")[0]
    for theirs in ('"又加班了?"', "*pours a coffee*", '"当然。"'):
        assert theirs in talk, talk
    for users in ("有人吗", "so tired", "work was endless", "latte", "me:"):
        assert users not in talk, talk
    voice = (folder / "VOICE.md").read_text(encoding="utf-8")
    assert "又加班了?" in voice and "tired" not in voice and "latte" not in voice
    assert "来了来了!" in voice and "来了来了!" not in talk  # their greeting (first_mes) is their words: VOICE.md
