from __future__ import annotations

import json

import pytest

from conftest import Runner, git, log_entries, subjects, tree_snapshot
from heartcompass.memory.proposal import trust

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
    assert "2023-12-31" in result.output and "Imported 2 messages" in result.output
    assert "skipped 1 media placeholder." in result.output
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.time, e.speaker, e.text) for e in entries] == [
        ("23:58:00", "import:Alice_Chen", "新年快乐!! 🎉"),
        ("23:59:00", "import:me", "happy new year!!\nstill at the party")]
    assert [trust.source_of(e) for e in entries] == [trust.Source.OTHER_IMPORT, trust.Source.USER_IMPORT]
    assert subjects(example_cli.ws)[0] == "import(alice): 2 messages from a whatsapp export"


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
                                                      ("import:me", "look at https://example.com !")]


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
    assert "Imported 1 message into people/alice/logs/ (1 day, 2024-01-01); 2 already there" in result.output
    assert len(log_entries(example_cli.ws, "alice")) == 3


@pytest.mark.parametrize("fmt, text, words", [
    ("whatsapp", "31/02/2023, 23:58 - A: hi\n", "bad.txt:1: no message could be read: 23:58 on 31/2/2023 is no real date"),
    ("telegram", "{not json", "not valid JSON"),
    ("telegram", "[]", "no 'messages' list"),
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
    assert "L1 [2024-03-01 21:04 · import:Alice · trusted]" in fake_llm.request("garden").prompt
    assert "Booked the 9am train together" in (example_cli.ws.people_dir / "alice" / "EVENTS.md").read_text()


# -- issue 12: placeholders, speakers, undated lines, duplicates across phones, summary, one flush --------
ANDROID = """12/03/2024, 09:00 - Alice Chen: morning!
12/03/2024, 09:01 - Alice Chen: <Media omitted>
12/03/2024, 09:01 - Lei: This message was deleted
12/03/2024, 09:02 - Lei: You deleted this message
12/03/2024, 09:02 - Alice Chen: ok
12/03/2024, 09:02 - Alice Chen: ok
12/03/2024, 09:03 - Alice Chen: 此消息已删除
12/03/2024, 09:03 - Alice Chen: <省略影音内容>
12/03/2024, 09:04 - Lei: see you at  8 <This message was edited>
"""
IOS = """[12/03/2024, 09:00:12] Alice Chen: morning!
[12/03/2024, 09:01:40] Alice Chen: \u200eimage omitted
[12/03/2024, 09:02:03] Alice Chen: ok
[12/03/2024, 09:02:30] Alice Chen: ok
[12/03/2024, 09:03:01] Alice Chen: \u200e<attached: 00000012-PHOTO-2024-03-12-09-03-01.jpg>
[12/03/2024, 09:04:59] Lei: see you at 8
[12/03/2024, 09:05:10] Lei: ok
"""


def test_placeholders_are_skipped_and_counted(example_cli: Runner, tmp_path):
    result = example_cli("import", "alice", _write(tmp_path, "android.txt", ANDROID), "--me", "Lei")
    texts = [e.text for e in log_entries(example_cli.ws, "alice")]
    assert texts == ["morning!", "ok", "ok", "see you at  8"]
    assert "skipped 3 deleted messages, 2 media placeholders." in result.output


def test_the_same_chat_from_ios_and_android_imports_once(example_cli: Runner, tmp_path):
    example_cli("import", "alice", _write(tmp_path, "android.txt", ANDROID), "--me", "Lei")
    result = example_cli("import", "alice", _write(tmp_path, "ios.txt", IOS), "--me", "Lei")
    entries = log_entries(example_cli.ws, "alice")
    assert [e.text for e in entries] == ["morning!", "ok", "ok", "see you at  8", "ok"]
    assert "Imported 1 message into" in result.output and "4 already there" in result.output


def test_repeated_messages_in_one_minute_are_all_kept(example_cli: Runner, tmp_path):
    two = "12/03/2024, 09:02 - Alice Chen: ok\n12/03/2024, 09:02 - Alice Chen: ok\n12/03/2024, 09:02 - Lei: hm\n"
    example_cli("import", "alice", _write(tmp_path, "a.txt", two), "--me", "Lei")
    assert [e.text for e in log_entries(example_cli.ws, "alice")] == ["ok", "ok", "hm"]
    assert "Nothing new" in example_cli("import", "alice", _write(tmp_path, "a.txt", two), "--me", "Lei").output
    three = two + "12/03/2024, 09:02 - Alice Chen: ok\n"
    example_cli("import", "alice", _write(tmp_path, "b.txt", three), "--me", "Lei")
    assert [e.text for e in log_entries(example_cli.ws, "alice")] == ["ok", "ok", "hm", "ok"]


def test_warns_when_no_speaker_is_the_person(example_cli: Runner, tmp_path):
    chat = "12/03/2024, 09:00 - Bob: hi\n12/03/2024, 09:01 - Lei: hey\n"
    result = example_cli("import", "alice", _write(tmp_path, "bob.txt", chat), "--me", "Lei")
    assert "none of the speakers (Bob) is Alice Chen" in result.output and "alias" in result.output
    for speaker in ("Alice Chen", "alice_chen", "小爱", "Alice"):
        chat = f"12/03/2024, 09:00 - {speaker}: hi\n12/03/2024, 09:01 - Lei: hey\n"
        result = example_cli("import", "alice", _write(tmp_path, "ok.txt", chat), "--me", "Lei")
        assert "none of the speakers" not in result.output, speaker


def test_an_undated_transcript_says_it_is_filed_under_today(example_cli: Runner, tmp_path):
    import datetime as dt

    result = example_cli("import", "alice", _write(tmp_path, "t.txt", "Alice: hi\nMe: hello\n"), "--format", "plain",
                         "--me", "Me")
    today = dt.date.today().isoformat()
    assert f"2 messages have no date stamp and are filed under today ({today})" in result.output
    assert "[YYYY-MM-DD HH:MM]" in result.output
    result = example_cli("import", "alice", _write(tmp_path, "p.txt", PLAIN), "--format", "plain", "--me", "Me")
    assert "no date stamp" not in result.output


def _month(days: int = 30) -> str:
    return "".join(f"{d:02d}/01/2024, 10:{m:02d} - {who}: message {d}-{m}\n"
                   for d in range(1, days + 1) for m, who in ((0, "Alice Chen"), (1, "Lei")))


def test_import_prints_one_summary_line_and_a_table_with_verbose(example_cli: Runner, tmp_path):
    result = example_cli("import", "alice", _write(tmp_path, "m.txt", _month()), "--me", "Lei")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Imported 60 messages into people/alice/logs/ (30 days, 2024-01-01 to 2024-01-30)")
    result = example_cli("import", "alice", _write(tmp_path, "m2.txt", _month(31)), "--me", "Lei", "--verbose")
    assert "messages added" in result.output and "2024-01-31" in result.output and "60 already there" in result.output


def test_import_is_made_durable_once_not_once_per_day(example_cli: Runner, tmp_path, monkeypatch):
    import os as os_module

    calls = {"fsync": 0, "sync": 0}
    real_fsync, real_sync = os_module.fsync, os_module.sync
    monkeypatch.setattr(os_module, "fsync", lambda fd: (calls.__setitem__("fsync", calls["fsync"] + 1),
                                                        real_fsync(fd))[1])
    monkeypatch.setattr(os_module, "sync", lambda: (calls.__setitem__("sync", calls["sync"] + 1), real_sync())[1])
    example_cli("import", "alice", _write(tmp_path, "m.txt", _month()), "--me", "Lei")
    assert calls["sync"] == 1 and calls["fsync"] < 5, calls
    assert len(log_entries(example_cli.ws, "alice")) == 60


def test_a_crash_mid_import_is_finished_by_a_rerun(example_cli: Runner, tmp_path, monkeypatch):
    from heartcompass.formats import dailylog

    real, written = dailylog.append_many, []

    def dies_after_ten_days(path, entries, day, durable=True, rendered=None):
        if len(written) == 10:
            raise KeyboardInterrupt  # the user's Ctrl-C, or a kill, mid-import
        written.append(day)
        real(path, entries, day, durable, rendered)

    monkeypatch.setattr(dailylog, "append_many", dies_after_ten_days)
    path = _write(tmp_path, "m.txt", _month())
    example_cli("import", "alice", path, "--me", "Lei", ok=False)
    assert len(log_entries(example_cli.ws, "alice")) == 20
    monkeypatch.setattr(dailylog, "append_many", real)
    result = example_cli("import", "alice", path, "--me", "Lei")
    assert "Imported 40 messages" in result.output and "20 already there" in result.output
    texts = [e.text for e in log_entries(example_cli.ws, "alice")]
    assert len(texts) == 60 == len(set(texts))
    assert "Nothing new" in example_cli("import", "alice", path, "--me", "Lei").output


def test_import_json_summary(example_cli: Runner, tmp_path):
    result = example_cli("import", "alice", _write(tmp_path, "android.txt", ANDROID), "--me", "Lei", "--json")
    summary = json.loads(result.stdout)
    assert summary["person"] == "alice" and summary["added"] == 4 and summary["already_there"] == 0
    assert summary["days"] == {"2024-03-12": 4} and summary["skipped"] == {"media": 2, "deleted": 3}
    assert summary["speaker_is_person"] is True and summary["commit"] and "Alice Chen" in summary["speakers"]
    again = json.loads(example_cli("import", "alice", _write(tmp_path, "ios.txt", IOS), "--me", "Lei",
                                   "--json").stdout)
    assert again["added"] == 1 and again["already_there"] == 4
    assert json.loads(example_cli("import", "alice", _write(tmp_path, "ios.txt", IOS), "--me", "Lei",
                                  "--json").stdout)["commit"] is None


def test_a_damaged_day_log_stops_the_import_before_any_write(example_cli: Runner, tmp_path):
    logs = example_cli.ws.people_dir / "alice" / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "2024-01-20.md").write_text("---\ndate: 2024-01-20\n---\n\nnot a log line\n")
    git(example_cli.ws, "add", "-A")
    git(example_cli.ws, "commit", "-q", "-m", "a damaged log, committed")
    before = tree_snapshot(example_cli.ws.root)
    result = example_cli("import", "alice", _write(tmp_path, "m.txt", _month()), "--me", "Lei", ok=False)
    assert result.exit_code == 1 and "2024-01-20.md:5" in result.output and "Traceback" not in result.output
    assert tree_snapshot(example_cli.ws.root) == before


def test_chinese_whatsapp_export_with_am_pm_words_and_placeholders(example_cli: Runner, tmp_path):
    chat = ("2023/4/6 上午12:05 - 小爱: 还没睡？\n"
            "2023/4/6 下午1:54 - 小爱: <省略影音内容>\n"
            "2023/4/6 下午1:55 - 王磊: 这条消息已删除\n"
            "2023/4/6 下午1:56 - 小爱: 圖片已略去\n"
            "2023/4/6 晚上9:30 - 王磊: IMG-20230406-WA0014.jpg (file attached)\n"
            "2023/4/6 晚上9:31 - 王磊: 晚安\n")
    result = example_cli("import", "alice", _write(tmp_path, "与小爱的 WhatsApp 聊天.txt", chat), "--me", "王磊")
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.time, e.speaker, e.text) for e in entries] == [("00:05:00", "import:小爱", "还没睡？"),
                                                              ("21:31:00", "import:me", "晚安")]
    assert "skipped 3 media placeholders, 1 deleted message" in result.output


def test_the_format_is_detected_from_the_content(example_cli: Runner, tmp_path):
    from heartcompass.intake.exports.sniff import detect

    assert detect(WHATSAPP_24H) == "whatsapp" and detect(WHATSAPP_12H) == "whatsapp"
    assert detect(json.dumps(TELEGRAM)) == "telegram" and detect(PLAIN) == "plain"
    path = _write(tmp_path, "transcript.txt", PLAIN)
    result = example_cli("import", "alice", str(path), "--me", "Me")   # no --format: a plain transcript
    entries = [(e.speaker, e.text) for e in log_entries(example_cli.ws, "alice")]
    assert ("import:me", "yes, the 9am one\nwindow seat") in entries
    assert ("import:Alice", "did you book the train?") in entries
    assert "plain export" in subjects(example_cli.ws)[0] and "Imported" in result.output


def test_ambiguous_whatsapp_dates_never_land_in_the_future_and_12_hour_clocks_are_month_first(tmp_path):
    import datetime as dt

    from heartcompass.intake.exports import Context, Report, Source, whatsapp

    def parse_whatsapp(text, path, today):
        (tmp_path / path).write_text(text, encoding="utf-8")
        return list(whatsapp.messages(Source(tmp_path / path), Context(today), Report()))

    android_us = "11/12/26, 8:01 PM - Kaito: hi\n11/12/26, 8:02 PM - Me: hey\n"
    ios_us = "[11/12/26, 8:01:05 PM] Kaito: hi\n"
    today = dt.date(2026, 12, 3)
    assert parse_whatsapp(android_us, "a.txt", today)[0].when.date() == dt.date(2026, 11, 12)
    assert parse_whatsapp(ios_us, "i.txt", today)[0].when.date() == dt.date(2026, 11, 12)
    day_first = "11/12/25, 20:01 - Kaito: hi\n"                       # 24-hour: day first
    assert parse_whatsapp(day_first, "d.txt", today)[0].when.date() == dt.date(2025, 12, 11)
    # A 12-hour clock suggests month first, but 1 May and 3 May would be in the future: day first.
    future = "03/01/26, 8:01 PM - Kaito: hi\n05/01/26, 8:01 PM - Kaito: later\n"
    assert parse_whatsapp(future, "f.txt", dt.date(2026, 1, 6))[1].when.date() == dt.date(2026, 1, 5)


def test_ctrl_c_at_which_speaker_is_you_cancels_the_import(example_cli: Runner, tmp_path, monkeypatch):
    from fakes import CTRL_C, Questions
    from heartcompass.cli import import_cmd

    monkeypatch.setattr(import_cmd, "interactive", lambda: True)
    questions = Questions(monkeypatch, CTRL_C)
    head = git(example_cli.ws, "rev-parse", "HEAD")
    path = _write(tmp_path, "t.txt", "Bob: hi\nCarol: hello\nDan: hey\n")
    result = example_cli("import", "alice", path, "--format", "plain", ok=False)
    assert questions.asked == ["Which speaker is you?"]
    assert result.exit_code == 130 and "Cancelled; nothing was imported." in result.output
    assert git(example_cli.ws, "rev-parse", "HEAD") == head and git(example_cli.ws, "status", "--porcelain") == ""


def test_one_imported_message_is_one_message(example_cli: Runner, tmp_path):
    example_cli("import", "alice", _write(tmp_path, "one.txt", "[2024-03-01 21:04] Alice: 👍\n"), "--format", "plain")
    assert subjects(example_cli.ws)[0] == "import(alice): 1 message from a plain export"
