from __future__ import annotations

import json

import pytest

from conftest import Runner, log_entries, subjects, tree_snapshot

WHATSAPP_24H = """31/12/2023, 23:57 - Messages and calls are end-to-end encrypted. No one outside of this chat can read them.
31/12/2023, 23:58 - Alice Chen: 新年快乐!! 🎉
31/12/2023, 23:59 - 王磊: happy new year!!
still at the party
01/01/2024, 00:01 - Alice Chen: <Media omitted>
"""

WHATSAPP_12H = """[12/31/23, 11:58:01\u202fPM] Alice Chen: are you coming?? 😅
[12/31/23, 11:59:30\u202fPM] Lei: on my way
[1/1/24, 12:03:00\u202fAM] Alice Chen: 🎆
"""

TELEGRAM = {
    "name": "Alice Chen", "type": "personal_chat", "id": 1,
    "messages": [
        {"id": 1, "type": "service", "date": "2024-02-10T09:00:00", "action": "phone_call"},
        {"id": 2, "type": "message", "date": "2024-02-10T09:01:00", "from": "Alice Chen", "text": "早安 ☀️"},
        {"id": 3, "type": "message", "date": "2024-02-10T09:02:10", "from": "Lei",
         "text": ["look at ", {"type": "link", "text": "https://example.com"}, " !"]},
        {"id": 4, "type": "message", "date": "2024-02-11T20:00:00", "from": "Alice Chen", "text": "",
         "photo": "photos/1.jpg"},
    ],
}

PLAIN = """[2024-03-01 21:04] Alice: did you book the train?
Me: yes, the 9am one
  window seat
[2024-03-02 08:00] Alice: 👍
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_whatsapp_24_hour_export(example_cli: Runner, tmp_path):
    result = example_cli("import", "alice", _write(tmp_path, "chat.txt", WHATSAPP_24H), "--me", "王磊")
    assert "2023-12-31" in result.output and "Imported 3 messages" in result.output
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.time, e.speaker, e.text) for e in entries] == [
        ("23:58:00", "import:Alice_Chen", "新年快乐!! 🎉"),
        ("23:59:00", "import:me", "happy new year!!\nstill at the party"),
        ("00:01:00", "import:Alice_Chen", "<Media omitted>")]
    assert all(e.trusted for e in entries)
    assert subjects(example_cli.ws)[0] == "import(alice): 3 messages from a whatsapp export"


def test_whatsapp_12_hour_ios_export_and_me_guessed(example_cli: Runner, tmp_path):
    example_cli("import", "alice", _write(tmp_path, "chat.txt", WHATSAPP_12H))
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.time, e.speaker) for e in entries] == [("23:58:01", "import:Alice_Chen"), ("23:59:30", "import:me"),
                                                      ("00:03:00", "import:Alice_Chen")]
    assert (example_cli.ws.people_dir / "alice" / "logs" / "2024-01-01.md").is_file()


def test_telegram_export(example_cli: Runner, tmp_path):
    example_cli("import", "alice", _write(tmp_path, "result.json", json.dumps(TELEGRAM, ensure_ascii=False)),
                "--format", "telegram", "--me", "Lei")
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.speaker, e.text) for e in entries] == [("import:Alice_Chen", "早安 ☀️"),
                                                      ("import:me", "look at https://example.com !"),
                                                      ("import:Alice_Chen", "[photo]")]


def test_plain_transcript(example_cli: Runner, tmp_path):
    example_cli("import", "alice", _write(tmp_path, "t.txt", PLAIN), "--format", "plain", "--me", "Me")
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.time, e.speaker, e.text) for e in entries] == [
        ("21:04:00", "import:Alice", "did you book the train?"), ("21:04:00", "import:me", "yes, the 9am one\nwindow seat"),
        ("08:00:00", "import:Alice", "👍")]


def test_reimport_and_overlap_add_no_duplicates(example_cli: Runner, tmp_path):
    path = _write(tmp_path, "chat.txt", WHATSAPP_24H)
    example_cli("import", "alice", path, "--me", "王磊")
    again = example_cli("import", "alice", path, "--me", "王磊")
    assert "Nothing new" in again.output
    longer = _write(tmp_path, "chat2.txt", WHATSAPP_24H + "01/01/2024, 00:05 - 王磊: 🎉 you too\n")
    result = example_cli("import", "alice", longer, "--me", "王磊")
    assert "Imported 1 messages (3 already there)" in result.output
    assert len(log_entries(example_cli.ws, "alice")) == 4


@pytest.mark.parametrize("fmt, text, words", [
    ("whatsapp", "hello there\n31/12/2023, 23:58 - A: hi\n", "bad.txt:1: not a WhatsApp export line"),
    ("whatsapp", "31/02/2023, 23:58 - A: hi\n", "no real date"),
    ("telegram", "{not json", "not valid JSON"),
    ("telegram", "[]", "no 'messages' list"),
    ("plain", "Alice: hi\nthis line has no speaker\n", "expected 'Name: message'"),
    ("plain", "[2024-13-01 10:00] Alice: hi\n", "not a real date"),
])
def test_malformed_exports_are_refused_with_the_line(example_cli: Runner, tmp_path, fmt, text, words):
    before = tree_snapshot(example_cli.ws.root)
    result = example_cli("import", "alice", _write(tmp_path, "bad.txt", text), "--format", fmt, "--me", "A",
                         ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert words in result.output, result.output
    assert tree_snapshot(example_cli.ws.root) == before


def test_unknown_me_and_ambiguous_speakers(example_cli: Runner, tmp_path):
    path = _write(tmp_path, "t.txt", "Bob: hi\nCarol: hello\nDan: hey\n")
    result = example_cli("import", "alice", path, "--format", "plain", ok=False)
    assert result.exit_code == 1 and "--me" in result.output and "Bob" in result.output
    result = example_cli("import", "alice", path, "--format", "plain", "--me", "Zed", ok=False)
    assert "does not appear" in result.output


def test_imported_entries_are_gardened_even_with_old_dates(example_cli: Runner, tmp_path, fake_llm):
    example_cli("import", "alice", _write(tmp_path, "t.txt", PLAIN), "--format", "plain", "--me", "Me")
    fake_llm.enqueue({"summary": "train trip", "new_events": [
        {"date": "2024-03-01", "text": "Booked the 9am train together", "weight": 0.4, "evidence": ["L2"]}]})
    example_cli("garden")
    assert "L1 [2024-03-01 21:04 · import:Alice · trusted]" in str(fake_llm.calls[0][-1].content)
    assert "Booked the 9am train together" in (example_cli.ws.people_dir / "alice" / "EVENTS.md").read_text()
