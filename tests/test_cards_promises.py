"""Character cards' promises on the core (intake/cards.py, card_png.py),
no CLI: a card is read from V1, V2 or a PNG, or refused saying why with
nothing imported; its text never becomes our structure; what {{user}} says
stays out of how they talk; an export is a V2 card another app reads, and
it comes back whole."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from heartcompass.intake import card_png, cards
from heartcompass.intake.card_png import CardError


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(*middle: bytes) -> bytes:
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    return (b"\x89PNG\r\n\x1a\n" + ihdr + b"".join(middle) + _chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
            + _chunk(b"IEND", b""))


def _write(tmp_path, content, name="card.json"):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content, ensure_ascii=False).encode())
    return path


def _refused(tmp_path, content, name="card.json") -> CardError:
    path = _write(tmp_path, content, name)
    with pytest.raises(CardError) as refused:
        cards.read_card(path)
    assert refused.value.message.startswith(f"{path}")  # the file named first
    return refused.value


# -- reading a card ------------------------------------------------------------------------------------------------

def test_a_v1_card_is_its_fields_at_the_top_level(tmp_path):
    v1 = {"name": "Kaito", "description": "A barista.", "personality": "Dry."}
    assert cards.read_card(_write(tmp_path, v1)) == v1


@pytest.mark.parametrize("spec", ["chara_card_v2", "chara_card_v3"])
def test_a_v2_or_v3_card_is_its_data_object(tmp_path, spec):
    data = {"name": "Rin", "description": ""}
    assert cards.read_card(_write(tmp_path, {"spec": spec, "data": data})) == data


def test_a_card_file_with_a_bom_is_read(tmp_path):
    path = _write(tmp_path, b"\xef\xbb\xbf" + json.dumps({"name": "Kai", "description": "x"}).encode())
    assert cards.read_card(path)["name"] == "Kai"


@pytest.mark.parametrize("content, message, hint", [
    (b"{nope", ":1: not valid JSON (Expecting property name enclosed in double quotes).",
     "A character card is a JSON file (or a PNG with one inside)."),
    (b"[1, 2]", ": a character card is a JSON object.", None),
    (b'{"spec": "chara_card_v9", "data": {}}', ": unknown card spec 'chara_card_v9'.",
     "Supported: V1 and chara_card_v2 (and v3)."),
    (b'{"spec": "chara_card_v2"}', ": a chara_card_v2 card needs a 'data' object.", None),
    (b'{"spec": "chara_card_v2", "data": []}', ": a chara_card_v2 card needs a 'data' object.", None),
    (b'{"spec": "chara_card_v2", "data": {"name": "  "}}', ": the card has no 'name'.", None),
    (b'{"spec": "chara_card_v2", "data": {"name": 5}}', ": the card has no 'name'.", None),
    (b'{"name": "X", "personality": ["a"]}', ": 'personality' must be text.", None),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "mes_example": 3}}', ": 'mes_example' must be text.", None),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "character_book": [1]}}',
     ": 'character_book' must be an object with an 'entries' list, not a list.", card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "character_book": "b"}}',
     ": 'character_book' must be an object with an 'entries' list, not str.", card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "character_book": {"entries": {}}}}',
     ": 'character_book.entries' must be a list.", card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "extensions": []}}', ": 'extensions' must be an object.",
     card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "extensions": {"heartcompass": 1}}}',
     ": 'extensions.heartcompass' must be an object.", card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "tags": 1}}', ": 'tags' must be a list of text.",
     card_png.FIX),
    (b'{"spec": "chara_card_v2", "data": {"name": "X", "alternate_greetings": {}}}',
     ": 'alternate_greetings' must be a list of text.", card_png.FIX),
    (b'{"name": "My settings", "theme": "dark"}',
     ": not a character card: a card has 'spec': 'chara_card_v2' with a 'data' object, or (V1) some of "
     "description, personality, scenario, first_mes, mes_example beside its 'name'; this file has none of them. "
     "Nothing was imported.", card_png.FIX),
])
def test_what_is_not_a_card_is_refused_saying_why_and_how_to_fix_it(tmp_path, content, message, hint):
    refused = _refused(tmp_path, content)
    assert refused.message == f"{tmp_path / 'card.json'}{message}"
    assert refused.hint == hint


def test_a_card_nested_too_deeply_is_refused_not_a_crash(tmp_path):
    refused = _refused(tmp_path, b"[" * 100000 + b"]" * 100000)
    assert refused.message.endswith(": the card's JSON is nested too deeply.") and refused.hint == card_png.FIX


@pytest.mark.parametrize("export", [{"name": "A", "chats": {}}, {"name": "A", "chats": []},
                                    {"name": "A", "messages": []}])
def test_a_chat_export_is_refused_pointing_to_import(tmp_path, export):
    refused = _refused(tmp_path, export, "result.json")
    assert "this is a chat export" in refused.message
    assert refused.hint == "Import a chat with: heartcompass import NAME result.json"


def test_a_v1_card_with_text_not_a_list_of_messages_is_a_card(tmp_path):
    card = {"name": "A", "messages": "hello there", "chats": 3, "scenario": "at sea"}
    assert cards.read_card(_write(tmp_path, card))["scenario"] == "at sea"


@pytest.mark.parametrize("field", ["description", "personality", "scenario", "first_mes", "mes_example"])
def test_any_one_character_field_makes_a_v1_card(tmp_path, field):
    assert cards.read_card(_write(tmp_path, {"name": "A", field: "x"}))[field] == "x"


def test_shapes_that_fit_are_read(tmp_path):
    data = {"name": "X", "character_book": {"entries": []}, "extensions": {"heartcompass": {}},
            "tags": "a, b", "alternate_greetings": ["hi"], "personality": None}
    assert cards.read_card(_write(tmp_path, {"spec": "chara_card_v2", "data": data})) == data
    data = {"name": "X", "character_book": {}, "extensions": {}, "tags": ["a"], "alternate_greetings": "hi"}
    assert cards.read_card(_write(tmp_path, {"spec": "chara_card_v2", "data": data})) == data


# -- PNG cards -----------------------------------------------------------------------------------------------------

def _b64(card: dict) -> bytes:
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode())


V2 = {"spec": "chara_card_v2", "data": {"name": "小雪", "personality": "温柔"}}


@pytest.mark.parametrize("middle", [
    _chunk(b"tEXt", b"chara\0" + _b64(V2)),
    _chunk(b"tEXt", b"CHARA\0" + _b64(V2)),
    _chunk(b"tEXt", b"ccv3\0" + _b64(V2)),
    _chunk(b"tEXt", b"chara\0" + json.dumps(V2, ensure_ascii=False).encode()),  # the JSON itself
    _chunk(b"tEXt", b"chara\0  " + _b64(V2) + b"\n"),
    _chunk(b"zTXt", b"chara\0\0" + zlib.compress(_b64(V2))),
    _chunk(b"iTXt", b"chara\0\1\0\0\0" + zlib.compress(_b64(V2))),
    _chunk(b"iTXt", b"chara\0\0\0en\0chara\0" + _b64(V2)),
    _chunk(b"tEXt", b"Comment\0hello") + _chunk(b"tEXt", b"chara\0" + _b64(V2)),
])
def test_a_png_card_is_read_from_any_text_chunk_apps_write(tmp_path, middle):
    assert cards.read_card(_write(tmp_path, _png(middle), "card.png")) == V2["data"]


@pytest.mark.parametrize("middle, words", [
    (_chunk(b"tEXt", b"other\0x"), ": this PNG has no character card inside (no 'chara' text chunk)."),
    (_chunk(b"zTXt", b"chara\0\0not zlib"), ": the PNG's card chunk is damaged ("),
    (_chunk(b"iTXt", b"chara\0\1"), ": the PNG's iTXt card chunk is truncated; nothing was imported."),
    (_chunk(b"iTXt", b"chara\0\0\0en"), ": the PNG's iTXt card chunk is malformed; nothing was imported."),
    (_chunk(b"iTXt", b"chara\0\0\0en\0chara"), ": the PNG's iTXt card chunk is malformed; nothing was imported."),
    (_chunk(b"tEXt", b"chara\0" + base64.b64encode(b"\xff\xfe")), ": the PNG's 'chara' chunk is not base64 JSON."),
    (_chunk(b"tEXt", b"chara\0abcde"), ": the PNG's 'chara' chunk is not base64 JSON."),  # bad padding
])
def test_a_damaged_png_card_is_refused_saying_what_is_wrong(tmp_path, middle, words):
    refused = _refused(tmp_path, _png(middle), "card.png")
    assert refused.message.startswith(f"{tmp_path / 'card.png'}{words}")


def test_a_card_chunk_that_inflates_past_the_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(card_png, "MAX_CARD_TEXT", 1000)
    big = _chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"A" * 1001))
    refused = _refused(tmp_path, _png(big), "card.png")
    assert "expands past 0 MiB; refusing it" in refused.message and refused.hint == card_png.FIX
    just = _chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"{" + b" " * 998 + b"}"))
    with pytest.raises(CardError) as refused_json:  # 1000 bytes: inflated, then read as the JSON it is
        cards.read_card(_write(tmp_path, _png(just), "card.png"))
    assert "has no 'name'" in refused_json.value.message or "not a character card" in refused_json.value.message


def test_the_cap_on_a_card_chunk_is_8_mib():
    assert card_png.MAX_CARD_TEXT == 8 << 20 and card_png.MAX_CARD_FILE == 32 << 20


def test_the_avatar_of_a_png_card_is_its_image_without_the_card(tmp_path):
    gama = _chunk(b"gAMA", struct.pack(">I", 45455))
    png = _png(_chunk(b"tEXt", b"chara\0" + _b64(V2)), gama, _chunk(b"zTXt", b"ccv3\0\0" + zlib.compress(b"x")))
    assert card_png.card_avatar(_write(tmp_path, png, "card.png")) == _png(gama)
    assert card_png.card_avatar(_write(tmp_path, {"name": "A", "description": "x"})) is None  # a JSON card


@pytest.mark.parametrize("data", [
    b"\x89PNG\r\n\x1a\n",  # no chunks
    b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", b"\0" * 13),  # no IEND
    b"\x89PNG\r\n\x1a\n" + _chunk(b"gAMA", b"\0" * 4) + _chunk(b"IEND", b""),  # IEND, no IHDR
])
def test_a_partial_image_is_no_avatar(data):
    assert card_png.image_without_card(data) is None


def test_chunks_stop_at_iend_and_at_a_cut_off_chunk():
    png = _png() + b"trailing garbage after IEND"
    assert [kind for kind, _, _ in card_png.chunks(png)] == [b"IHDR", b"IDAT", b"IEND"]
    cut = _png()[:-12]  # IEND gone
    assert [kind for kind, _, _ in card_png.chunks(cut + b"\0\0\0")] == [b"IHDR", b"IDAT"]
    whole = list(card_png.chunks(_png()))
    assert b"".join(raw for _, _, raw in whole) == _png()[8:] and whole[0][1] == struct.pack(">IIBBBBB", 1, 1, 8, 2,
                                                                                              0, 0, 0)


def test_a_card_written_into_a_painted_avatar_goes_right_after_its_ihdr():
    gama = _chunk(b"gAMA", struct.pack(">I", 45455))
    image = _png(gama)
    out = card_png.card_png({"data": {"name": "A"}}, image)
    kinds = [kind for kind, _, _ in card_png.chunks(out)]
    assert kinds == [b"IHDR", b"tEXt", b"gAMA", b"IDAT", b"IEND"]
    assert card_png.image_without_card(out) == image
    plain = card_png.card_png({"data": {"name": "A"}}, b"not a png at all")
    assert [kind for kind, _, _ in card_png.chunks(plain)] == [b"IHDR", b"tEXt", b"IDAT", b"IEND"]


# -- the card's text in our files: person_fields -------------------------------------------------------------------

def test_placeholders_become_the_names_in_either_spelling():
    assert cards.resolve("{{char}} <BOT> {{Char}} met {{user}} <User>", "Rin", "Lei") == "Rin Rin Rin met Lei Lei"
    assert cards.resolve("\\1 {{char}}", "a\\1", "b") == "\\1 a\\1"  # names taken as they are, never as patterns


def test_what_user_says_in_an_example_dialogue_runs_to_the_next_speaker():
    dialogue = ("<START>\n{{user}}: so tired\nwork was endless\n{{char}}: 又加班了?\n*pours*\n<START>\n"
                "<USER>: a latte?\n\n{{char}}: 当然。\n{{user}}: bye\n<START>\nnarration")
    assert cards.without_user_turns(dialogue, dialogue=True) == (
        "<START>\n{{char}}: 又加班了?\n*pours*\n<START>\n\n{{char}}: 当然。\n<START>\nnarration")


def test_in_a_greeting_only_the_user_line_itself_goes():
    assert cards.without_user_turns("{{user}}: hi?\n*looks up* coming!\n\n\n\nok", dialogue=False) == (
        "*looks up* coming!\n\nok")


def test_example_lines_are_the_characters_own_whole_once_each():
    data = {"name": "Rin", "first_mes": '{{user}}: hi\n"Hello, {{user}}."\n\n*{{char}} waves*\r\n\r\n<START>',
            "mes_example": "<START>\n{{user}}: yo\n{{char}}: Fine,\u2028thanks.\n<BOT>: Yes.\n<bot>: hello, lei.\n"
                           "{{CHAR}}: Hello, Lei."}
    assert cards.example_lines(data, "Lei") == ["Hello, Lei.", "*Rin waves*", "Fine,", "Yes."]
    assert cards.example_lines({"name": "Rin"}) == []
    assert cards.example_lines({"first_mes": "{{user}} and {{char}}"}) == ["me and"]


def _fields(**data):
    return cards.person_fields({"name": "Rin", **data}, "Lei")


def test_a_plain_v1_card_makes_a_stranger_with_its_text_in_background_and_talk():
    fields = _fields(description="A barista.\n\nFrom Osaka.", personality="Dry. {{char}} likes {{user}}.",
                     scenario="{{char}} works mornings.",
                     mes_example="<START>\n{{user}}: hi\n{{char}}: You're late.\n*wipes*")
    assert fields["name"] == "Rin" and fields["relation"] == "stranger"
    assert fields["sections"] == {"Personality": "Dry. Rin likes Lei.", "How they talk": '"You\'re late."\n*wipes*',
                                  "Background": "A barista.\n\nFrom Osaka.\n\nRin works mornings."}
    assert fields["facts"] == [] and fields["events"] == [] and fields["extensions"] == {} and fields["card"] == {}
    assert fields["mbti"] is None and fields["gender"] is None and fields["birthday"] is None
    assert fields["aliases"] == [] and fields["tags"] == [] and fields["voice"] == ["You're late."]


def test_our_own_export_puts_each_section_back_in_its_place():
    ours = {"heartcompass": {"relation": "dating", "mbti": " enfp ", "aliases": "小雪, Yuki；Snow",
                             "gender": "female", "birthday": "1996-04-12"}, "fav": 1}
    fields = _fields(description="How they talk: Short.\n\nSecond para.\n\nLikes: tea\n\nBackground: Kyoto.",
                     personality="Warm.", scenario="Rin and {{user}} are dating. Rin is chatting.",
                     extensions=ours, mes_example="<START>\n{{char}}: hey")
    assert fields["sections"] == {"Personality": "Warm.", "How they talk": "Short.\n\nSecond para.",
                                  "Background": "Kyoto.", "Likes": "tea"}
    assert fields["relation"] == "dating" and fields["mbti"] == "enfp" and fields["gender"] == "female"
    assert fields["aliases"] == ["小雪", "Yuki", "Snow"] and fields["birthday"] == "1996-04-12"
    assert fields["extensions"] == {"fav": 1}  # unknown extensions kept, ours taken out


def test_a_paragraph_after_a_label_of_someone_elses_card_is_background():
    fields = _fields(description="Likes: tea\n\nA second paragraph.")
    assert fields["sections"]["Likes"] == "tea" and fields["sections"]["Background"] == "A second paragraph."


@pytest.mark.parametrize("relation, kept", [("dating", "dating"), ("lover", "stranger"), (3, "stranger"),
                                            (None, "stranger")])
def test_only_a_relation_we_know_is_taken(relation, kept):
    assert _fields(extensions={"heartcompass": {"relation": relation}})["relation"] == kept


@pytest.mark.parametrize("birthday, kept", [("1996-04-12", "1996-04-12"), ("04-12", "04-12"), (" 04-12 ", "04-12"),
                                            ("April 12", None), ("1996-4-12", None), ("1996-04-12x", None),
                                            (19960412, None), ("", None)])
def test_a_birthday_is_kept_only_as_profile_writes_it(birthday, kept):
    assert _fields(extensions={"heartcompass": {"birthday": birthday}})["birthday"] == kept


@pytest.mark.parametrize("value, names", [(["a", " b ", 3, "", "  "], ["a", "b"]), ("a,b，c、d;e；f", list("abcdef")),
                                          ("Rin", ["Rin"]), (5, []), (None, [])])
def test_aliases_and_tags_are_a_list_or_text_with_commas_never_letters(value, names):
    fields = _fields(tags=value, extensions={"heartcompass": {"aliases": value}})
    assert fields["aliases"] == names and fields["tags"] == names


def test_the_lorebook_gives_facts_and_dated_events_whole():
    book = {"entries": [
        {"content": "{{char}} fears {{user}}'s dog.\u2028## Facts", "enabled": True},
        {"content": "2024-03: Moved to Berlin", "comment": "event w0.8"},
        {"content": "~2019: Met Lei", "comment": "w1"},
        {"content": "2020-01-02: New year", "comment": "w1.0 and w0.3"},
        {"content": "1000: Founded the city", "comment": "w0.5"},
        {"content": "2021: weight", "comment": "w2"},
        {"content": "off", "enabled": False},
        {"content": "   "}, "not an entry", {"content": 7},
    ]}
    fields = _fields(character_book=book)
    assert fields["facts"] == ["Rin fears Lei's dog. ## Facts", "1000: Founded the city", "7"]
    assert fields["events"] == [("2024-03", "Moved to Berlin", 0.8), ("~2019", "Met Lei", 1.0),
                                ("2020-01-02", "New year", 1.0), ("2021", "weight", None)]


def test_card_text_never_becomes_our_structure():
    fields = _fields(description="A guardian.\u2028## Facts\u2028- owes me (hand)\n\n  ## Boundaries\nnone",
                     personality="kind\u2029# How they talk", tags=["ok\u2028## Facts", "#x"],
                     character_book={"entries": [{"content": "# Loves tea (hand)\r\n- claim (told)"}]})
    assert fields["sections"]["Background"] == "A guardian.\nFacts\n- owes me\n\nBoundaries\nnone"
    assert fields["sections"]["Personality"] == "kind\nHow they talk"
    assert fields["facts"] == ["Loves tea - claim"]
    assert fields["tags"] == ["ok ## Facts", "x"]


def test_creator_fields_are_kept_as_text():
    fields = _fields(creator=" Otis ", creator_notes="Best\nlong.", character_version="1.2", other="x",
                     tags=None)
    assert fields["card"] == {"creator": "Otis", "creator_notes": "Best\nlong.", "character_version": "1.2"}
    assert _fields(creator="  ", character_version=3)["card"] == {}


def test_with_no_user_name_the_user_is_me():
    assert cards.person_fields({"name": "Rin", "personality": "likes {{user}}"}, "")["sections"]["Personality"] == (
        "likes me")


# -- lorebook keys ---------------------------------------------------------------------------------------------------

def test_lorebook_keys_are_the_name_and_three_keywords_proper_nouns_first():
    assert cards._keys("Moves to Kyoto in January for the design studio job (told)", "Alice") == [
        "Alice", "January", "Kyoto", "design"]  # capitals first, then the longest
    assert cards._keys("Kyoto trip in spring", "Alice") == ["Alice", "spring", "Kyoto", "trip"]  # the first word is no name
    assert cards._keys("alice said alice would travel", "Alice") == ["Alice", "travel"]
    assert cards._keys("Travel, travel, TRAVEL everywhere", "X") == ["X", "everywhere", "Travel"]
    assert cards._keys("", "X") == ["X"]
    assert cards._keys("after before being doing together", "X") == ["X"]


def test_lorebook_keys_in_chinese_are_short_pieces_not_clauses():
    assert cards._keys("她下个月要去京都的设计工作室上班，很紧张", "小艾") == ["小艾", "京都", "设计工作", "紧张"]
    assert cards._keys("小艾和小艾", "小艾") == ["小艾"]
    assert cards._keys("京都和京都，大阪", "X") == ["X", "京都", "大阪"]


# -- more of the card's reading ------------------------------------------------------------------------------------

def test_quotes_in_any_of_the_usual_marks_are_their_lines():
    assert cards._quotes('say "a" and “b” or 「c」, "  " and "d”') == ["a", "b", "c", "d"]


def test_a_card_with_a_broken_byte_is_read_with_a_replacement_character(tmp_path):
    path = _write(tmp_path, b'{"name": "Kai", "description": "caf\xe9"}')
    assert cards.read_card(path)["description"] == "caf\ufffd"


def test_base64_wrapped_over_lines_is_read(tmp_path):
    text = _b64(V2)
    wrapped = b"\n".join(text[i:i + 76] for i in range(0, len(text), 76))
    assert cards.read_card(_write(tmp_path, _png(_chunk(b"tEXt", b"chara\0" + wrapped)), "card.png")) == V2["data"]


def test_an_itxt_chunk_of_two_bytes_is_malformed_not_truncated(tmp_path):
    refused = _refused(tmp_path, _png(_chunk(b"iTXt", b"chara\0\0\0")), "card.png")
    assert refused.message.endswith(": the PNG's iTXt card chunk is malformed; nothing was imported.")


def test_a_card_chunk_past_the_cap_says_the_cap_in_mib(tmp_path, monkeypatch):
    monkeypatch.setattr(card_png, "MAX_CARD_TEXT", 3 << 20)
    bomb = zlib.compress(b"\0" * ((3 << 20) + 1), 9)
    refused = _refused(tmp_path, _png(_chunk(b"zTXt", b"chara\0\0" + bomb)), "card.png")
    assert refused.message.endswith(": the card inside this PNG expands past 3 MiB; refusing it (a real card is "
                                    "far smaller).")
