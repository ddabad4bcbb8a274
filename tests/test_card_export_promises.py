"""A person exported as a character card, and a person made from one
(intake/cards.py export_card and import_card), on the core: the export is a
V2 card other apps read, with their facts and events as a lorebook; an
import makes one person in one commit, nothing of the card lost."""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from pathlib import Path

import pytest

from heartcompass.intake import card_png, cards
from heartcompass.store.people import Person

EXAMPLE = Path(cards.__file__).resolve().parents[1] / "examples" / "alice"


@pytest.fixture
def alice(tmp_path) -> Person:
    shutil.copytree(EXAMPLE, tmp_path / "alice")
    return Person("alice", tmp_path / "alice")


def _edit(person: Person, name: str, old: str, new: str) -> None:
    path = person.dir / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_export_is_a_v2_card_with_every_field_apps_read(alice):
    card = cards.export_card(alice)
    assert card["spec"] == "chara_card_v2" and card["spec_version"] == "2.0"
    data = card["data"]
    assert data["name"] == "Alice Chen"
    assert data["personality"].startswith("Warm, restless, curious.") and "Personality:" not in data["description"]
    assert data["description"].startswith('How they talk: Short bursts of messages, lots of "haha"')
    assert "\n\nLikes: Mountains, bad puns" in data["description"] and data["description"].endswith(
        "Background: Grew up in Taipei, moved to Tokyo in 2022 for work as a UX designer.")
    assert data["scenario"] == "Alice Chen is {{user}}'s friend. Alice Chen is chatting with {{user}} by text."
    # No VOICE.md: the quotes of How they talk are their lines
    assert data["first_mes"] == "ok but hear me out"  # the first of three words or more
    assert data["mes_example"] == ("<START>\n{{char}}: haha\n{{char}}: wait—\n{{char}}: ok but hear me out\n"
                                   "{{char}}: 你又熬夜了吧?\n{{char}}: send me a picture!!\n")
    assert data["alternate_greetings"] == ["wait—", "ok but hear me out", "你又熬夜了吧?"]
    assert data["creator_notes"] == "Exported from HeartCompass. Facts and events are in the character book."
    assert data["system_prompt"] == "" and data["post_history_instructions"] == ""
    assert data["tags"] == ["university", "hiking"] and data["creator"] == "HeartCompass"
    assert data["character_version"] == "1"
    assert data["extensions"] == {"heartcompass": {"slug": "alice", "relation": "friend", "mbti": "ENFP",
                                                   "aliases": ["Alice", "小爱"], "gender": "female",
                                                   "birthday": "1996-04-12"}}


def test_facts_then_events_are_the_lorebook_each_with_its_keys(alice):
    book = cards.export_card(alice)["data"]["character_book"]
    assert book["name"] == "Alice Chen — HeartCompass" and book["extensions"] == {}
    entries = book["entries"]
    assert entries[0] == {"keys": ["Alice Chen", "January", "Kyoto", "design"],
                          "content": "Moves to Kyoto in January for the design studio job (told)", "enabled": True,
                          "insertion_order": 0, "id": 0, "comment": "fact", "extensions": {}}
    assert entries[3] == {"keys": ["Alice Chen", "Mount", "Takao", "nervous"],
                          "content": "2026-11-28: Hiked Mount Takao together; she was nervous about the new job",
                          "enabled": True, "insertion_order": 3, "id": 3, "comment": "event w0.8", "extensions": {}}
    assert [e["id"] for e in entries] == [e["insertion_order"] for e in entries] == list(range(8))
    assert [e["comment"] for e in entries] == ["fact"] * 3 + ["event w0.8", "event w0.9", "event w0.4",
                                                              "event w0.6", "event w0.3"]


def test_at_most_50_events_go_in_the_lorebook_the_weightiest(alice):
    lines = "".join(f"- 2020-01-{d:02d} · w0.{d % 9 + 1} · Event {d}\n" for d in range(1, 29))
    lines += "".join(f"- 2021-02-{d:02d} · w0.1 · Later {d}\n" for d in range(1, 29))
    _edit(alice, "EVENTS.md", "- 2026-11-28", lines + "- 2026-11-28")
    entries = cards.export_card(alice)["data"]["character_book"]["entries"]
    events = [e for e in entries if e["comment"].startswith("event")]
    assert len(events) == 50 and len(entries) == 53
    assert entries[3]["content"] == cards.export_card(alice)["data"]["character_book"]["entries"][3]["content"]


def test_their_real_words_from_voice_md_come_before_the_profiles_quotes(alice):
    from heartcompass.memory.voice import add_line

    for line in ("嗯", "see you at the station tomorrow", "haha ok then", "wait what", "last one"):
        add_line(alice.dir, "Alice Chen", line, "hand")
    data = cards.export_card(alice)["data"]
    assert data["first_mes"] == "see you at the station tomorrow"
    assert data["alternate_greetings"] == ["see you at the station tomorrow", "haha ok then", "wait what"]
    assert data["mes_example"].startswith("<START>\n{{char}}: 嗯\n{{char}}: see you at")


def test_one_short_line_is_still_the_greeting(alice):
    from heartcompass.memory.voice import add_line

    add_line(alice.dir, "Alice Chen", "嗯", "hand")
    data = cards.export_card(alice)["data"]
    assert data["first_mes"] == "嗯" and data["alternate_greetings"] == []


def test_how_they_talk_without_quotes_is_the_example_and_without_it_a_greeting(alice):
    _edit(alice, "PROFILE.md", 'Short bursts of messages, lots of "haha" and "wait—". Switches to Chinese\n'
          'when excited. Typical lines: "ok but hear me out", "你又熬夜了吧?",\n"send me a picture!!".',
          "Short bursts, no quotes.")
    data = cards.export_card(alice)["data"]
    assert data["mes_example"] == "<START>\n{{char}}: Short bursts, no quotes.\n"
    assert data["first_mes"] == "Hey {{user}}!" and data["alternate_greetings"] == []
    _edit(alice, "PROFILE.md", "Short bursts, no quotes.", "")
    assert cards.export_card(alice)["data"]["mes_example"] == ""


@pytest.mark.parametrize("relation", ["self", "family", "friend", "dating", "ambiguous", "tension", "broken_up",
                                      "failed", "stranger"])
def test_the_scenario_has_a_phrase_per_relation(alice, relation):
    _edit(alice, "PROFILE.md", "relation: friend", f"relation: {relation}")
    scenario = cards.export_card(alice)["data"]["scenario"]
    phrase = cards.RELATION_PHRASES[relation].format(name="Alice Chen")
    assert scenario == f"{phrase}. Alice Chen is chatting with {{{{user}}}} by text."
    assert "{{user}}" in phrase and "Alice Chen" in phrase and "{" not in phrase.replace("{{user}}", "")


def test_the_card_they_came_from_is_written_back(alice):
    _edit(alice, "PROFILE.md", "related:", "card:\n  creator: Otis\n  creator_notes: Best long.\n"
          "  character_version: '1.2'\n  other: x\n  tags: ''\ncard_extensions:\n  fav: 1\nrelated:")
    data = cards.export_card(alice)["data"]
    assert data["creator"] == "Otis" and data["creator_notes"] == "Best long." and data["character_version"] == "1.2"
    assert data["extensions"]["fav"] == 1 and data["extensions"]["heartcompass"]["slug"] == "alice"
    assert "other" not in data and data["tags"] == ["university", "hiking"]


def test_an_export_read_back_gives_the_same_sections_and_facts(alice, tmp_path):
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(cards.export_card(alice), ensure_ascii=False), encoding="utf-8")
    fields = cards.person_fields(cards.read_card(path), "Lei")
    prof = alice.load_profile()
    assert fields["sections"] == {h: t for h, t in prof.sections().items() if t}
    assert fields["relation"] == "friend" and fields["mbti"] == "ENFP" and fields["birthday"] == "1996-04-12"
    assert fields["aliases"] == ["Alice", "小爱"] and fields["tags"] == ["university", "hiking"]
    assert fields["facts"][0] == "Moves to Kyoto in January for the design studio job"  # a card's text is no source
    assert fields["events"][0] == ("2026-11-28", "Hiked Mount Takao together; she was nervous about the new job", 0.8)


# -- a new person from a card: import_card ---------------------------------------------------------------------------

def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _avatar() -> bytes:
    rows = b"".join(b"\x00" + bytes((x * 30, y * 30, 7)) * 1 for x in range(2) for y in range(1))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 2, 8, 2, 0, 0, 0))
            + _chunk(b"gAMA", struct.pack(">I", 45455)) + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b""))


CARD = {"spec": "chara_card_v2", "data": {
    "name": "Seraphina", "description": "{{char}} guards the forest.", "personality": "caring",
    "scenario": "{{char}} found {{user}} hurt.", "first_mes": '"Easy now, {{user}}."',
    "mes_example": "<START>\n{{user}}: Who are you?\n{{char}}: I am {{char}}.", "creator": "Otis",
    "tags": ["fantasy"],
    "character_book": {"entries": [{"content": "{{char}}'s glade hides {{user}}.", "enabled": True},
                                   {"content": "2023-02-30: no such day", "comment": "w0.5"},
                                   {"content": "2023-05: Found the glade", "comment": "event w0.7"}]},
    "extensions": {"talkativeness": "0.5",
                   "heartcompass": {"mbti": "XYZW", "birthday": "03-02", "relation": "friend"}}}}


def test_a_png_card_makes_one_person_in_one_commit_with_their_voice_and_picture(ws, tmp_path):
    from conftest import git, subjects

    from heartcompass.formats import events as events_fmt, memory as memory_fmt, voice as voice_fmt

    image = _avatar()
    path = tmp_path / "Seraphina.png"
    path.write_bytes(card_png.card_png(CARD, image))
    person = cards.import_card(ws, path)
    assert person.slug == "seraphina" and subjects(ws)[0] == "add(seraphina): from character card Seraphina.png"
    prof = person.load_profile()
    assert prof.name == "Seraphina" and prof.relation == "friend" and prof.mbti is None  # an odd type dropped
    assert prof.birthday == "03-02" and prof.tags == ["fantasy"]
    assert prof.doc.meta["card"] == {"creator": "Otis"}
    assert prof.doc.meta["card_extensions"] == {"talkativeness": "0.5"}
    assert prof.sections()["Personality"] == "caring"
    facts = memory_fmt.load(person.dir / "MEMORY.md").items(memory_fmt.FACTS)
    assert facts[0].startswith("- Seraphina's glade hides ") and facts[0].endswith(". (import)")
    assert facts[1] == "- 2023-02-30: no such day (import)"  # not a real date: kept as a fact
    events = events_fmt.load(person.dir / "EVENTS.md").events
    assert [(e.when, e.text, e.weight) for e in events] == [("2023-05", "Found the glade", 0.7)]
    theirs = [line.text for line in voice_fmt.load(person.dir / "VOICE.md").lines(voice_fmt.THEIRS)]
    assert theirs[-1] == "I am Seraphina." and "Easy now, me." in theirs
    assert not any("Who are you" in t for t in theirs)
    assert (person.dir / card_png.AVATAR).read_bytes() == image  # their picture, the card taken out
    assert git(ws, "status", "--porcelain") == "" and "people/seraphina/avatar.png" in git(ws, "ls-files")


def test_a_json_card_imported_under_another_name_uses_it_everywhere(ws, tmp_path):
    from heartcompass.formats import voice as voice_fmt

    path = tmp_path / "card.json"
    data = {**CARD["data"], "extensions": {}, "character_book": {}}
    path.write_text(json.dumps(data), encoding="utf-8")
    person = cards.import_card(ws, path, name="  Sera ")
    assert person.slug == "sera" and person.load_profile().name == "Sera"
    assert person.load_profile().sections()["Background"].startswith("Sera guards the forest.")
    assert "card_extensions" not in person.load_profile().doc.meta and "birthday" not in person.load_profile().doc.meta
    theirs = [line.text for line in voice_fmt.load(person.dir / "VOICE.md").lines(voice_fmt.THEIRS)]
    assert "I am Sera." in theirs
    assert not (person.dir / card_png.AVATAR).exists()  # a JSON card has no picture


def test_a_name_already_taken_is_refused_before_anything_is_written(ws, tmp_path):
    from conftest import tree_snapshot

    from heartcompass.errors import HeartCompassError

    path = tmp_path / "card.json"
    path.write_text(json.dumps({"name": "Rin", "description": "x"}), encoding="utf-8")
    cards.import_card(ws, path)
    before = tree_snapshot(ws.root)
    with pytest.raises(HeartCompassError):
        cards.import_card(ws, path, name="Rin")
    with pytest.raises(HeartCompassError):
        cards.import_card(ws, path)
    assert tree_snapshot(ws.root) == before


def test_a_card_inside_an_exported_png_reads_back_as_itself(alice, tmp_path):
    card = cards.export_card(alice)
    path = tmp_path / "alice.png"
    path.write_bytes(card_png.card_png(card, card_png.avatar_of(alice)))
    assert cards.read_card(path) == card["data"]


# -- what the export takes from the profile ------------------------------------------------------------------------

def test_a_card_field_that_is_not_a_dict_is_no_card_info(alice):
    _edit(alice, "PROFILE.md", "related:", "card: some text\nrelated:")
    data = cards.export_card(alice)["data"]
    assert data["creator"] == "HeartCompass" and data["character_version"] == "1"


def test_an_empty_creator_is_ours(alice):
    _edit(alice, "PROFILE.md", "related:", "card:\n  creator: ''\n  creator_notes: ''\nrelated:")
    data = cards.export_card(alice)["data"]
    assert data["creator"] == "HeartCompass"
    assert data["creator_notes"] == "Exported from HeartCompass. Facts and events are in the character book."


def test_the_greeting_is_their_first_line_of_three_words_or_more(alice):
    from heartcompass.memory.voice import add_line

    for line in ("two words", "one two three", "four five six seven"):
        add_line(alice.dir, "Alice Chen", line, "hand")
    assert cards.export_card(alice)["data"]["first_mes"] == "one two three"
