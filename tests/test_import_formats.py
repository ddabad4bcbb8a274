"""Every app's export in its real shape (fixtures written for these tests),
routed to each sender's person; group chats split by member."""

from __future__ import annotations

import json

import pytest

from conftest import Runner, log_entries, subjects, tree_snapshot

MEMOTRACE_CSV = (
    "\ufefflocalId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime\n"
    "1,12,1,0,0,1704067080,2,新年快乐呀！,2024-01-01 08:38:00\n"
    "2,12,3,0,0,1704067090,2,<img src=\"x\"/>,2024-01-01 08:38:10\n"
    "3,12,1,0,1,1704067200,2,你也是！今年一起去爬山,2024-01-01 08:40:00\n"
    "4,12,10000,0,0,1704067300,2,你撤回了一条消息,2024-01-01 08:41:40\n"
    "5,12,1,0,0,1704067400,2,\"好呀\n周六见\",2024-01-01 08:43:20\n"
)
MEMOTRACE_GROUP = (
    "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender\n"
    "1,777@chatroom,1,0,0,1704067080,2,周末谁去爬山？,2024-01-01 08:38:00,,老王,wxid_wang\n"
    "2,777@chatroom,1,0,0,1704067090,2,我去！,2024-01-01 08:38:10,小爱,爱丽丝,wxid_alice\n"
    "3,777@chatroom,1,0,1,1704067100,2,算我一个,2024-01-01 08:38:20,,磊,wxid_me\n"
    "4,777@chatroom,47,0,0,1704067110,2,,2024-01-01 08:38:30,,老王,wxid_wang\n"
    "5,777@chatroom,1,0,0,1704067120,2,那就周六早上八点,2024-01-01 08:38:40,,老王,wxid_wang\n"
    "6,777@chatroom,1,0,0,1704067130,2,好的 记得带水,2024-01-01 08:38:50,小爱,爱丽丝,wxid_alice\n"
)
MEMOTRACE_TXT = """2024-01-01 08:38:00 小爱
新年快乐呀！

2024-01-01 08:38:10 小爱
[图片]

2024-01-01 08:40:00 磊
你也是！
引用:小爱:新年快乐呀！

2024-01-01 08:41:40
你撤回了一条消息

2024-01-01 08:43:20 小爱
好呀
周六见
"""
PYWXDUMP = (
    "id,MsgSvrID,type_name,is_sender,talker,room_name,msg,src,CreateTime\n"
    "1,9001,文本,0,wxid_alice,wxid_alice,早呀,,2024-01-02 09:00:00\n"
    "2,9002,图片,0,wxid_alice,wxid_alice,,img/1.jpg,2024-01-02 09:00:05\n"
    "3,9003,文本,1,wxid_me,wxid_alice,早！,,2024-01-02 09:01:00\n"
    "4,9004,系统通知,0,wxid_alice,wxid_alice,你已添加了小爱,,2024-01-02 09:01:10\n"
)
QQ_TXT = """消息记录（此消息记录为文本格式，不支持重新导入）

================================================================
消息分组:我的好友
================================================================
消息对象:小爱
================================================================

2019-05-01 20:00:00 小爱(12345678)
在吗

2019-05-01 20:00:30 磊(87654321)
在的
[图片]

2019-05-01 20:01:00 小爱(12345678)
[表情]

2019-05-01 20:01:10 小爱(12345678)
明天一起吃饭吧
"""
LINE_TXT = """[LINE] Chat history with Alice Chen
Saved on: 2018/04/20 10:00

2018/04/16(月)
上午10:05\tAlice Chen\tおはよう！
下午1:30\tLei\t"lunch?
I'm starving"
下午1:31\tAlice Chen\t[Sticker]
下午1:32\tAlice Chen\tsure, the usual place
下午1:33\tAlice Chen unsent a message.

2018.04.17 Tuesday
09:00\tAlice Chen\tthanks for lunch
"""
SIGNAL_MD = """[2022-03-01 19:00] Alice Chen: are you home?
[2022-03-01 19:01] Me: almost
> are you home?
ten minutes
(- Alice Chen: 👍 -)
[2022-03-01 19:02] Alice Chen: ![IMG_1.jpg](./media/IMG_1.jpg)
[2022-03-01 19:03] Alice Chen: (This message was deleted)
[2022-03-01 19:04] Alice Chen: ok see you soon
"""
DISCORD = {
    "guild": {"id": "0", "name": "Direct Messages"},
    "channel": {"id": "42", "type": "DirectTextChat", "name": "alicec"},
    "messages": [
        {"id": "1", "type": "Default", "timestamp": "2023-06-01T12:00:00+00:00", "content": "gg last night",
         "author": {"id": "100", "name": "alicec", "nickname": "Alice Chen"}, "attachments": [], "reactions": []},
        {"id": "2", "type": "Default", "timestamp": "2023-06-01T12:01:00+00:00", "content": "",
         "author": {"id": "100", "name": "alicec", "nickname": "Alice Chen"},
         "attachments": [{"url": "x.png", "fileName": "x.png"}], "reactions": []},
        {"id": "3", "type": "RecipientAdd", "timestamp": "2023-06-01T12:02:00+00:00", "content": "",
         "author": {"id": "200", "name": "lei", "nickname": "Lei"}},
        {"id": "4", "type": "Reply", "timestamp": "2023-06-01T12:03:00+00:00", "content": "rematch tonight?",
         "author": {"id": "200", "name": "lei", "nickname": "Lei"}, "attachments": [],
         "reactions": [{"emoji": {"name": "👍"}, "count": 1}]},
    ],
}
IMESSAGE = """May 17, 2022  5:29:42 PM
+15558675309
are we still on for dinner?

May 17, 2022  5:30:12 PM (Read by you after 1 minute)
Me
yes! 7pm

May 17, 2022  5:31:00 PM
+15558675309
/Users/lei/Library/Messages/Attachments/ab/IMG_0001.HEIC

May 17, 2022  5:32:00 PM
+15558675309
see you there
"""


def _mojibake(text: str) -> str:
    return text.encode("utf-8").decode("latin-1")


MESSENGER = {
    "participants": [{"name": _mojibake("J❤️hn Ørsted")}, {"name": "Lei Wang"}],
    "messages": [
        {"sender_name": "Lei Wang", "timestamp_ms": 1672531320000, "content": "you too!", "type": "Generic"},
        {"sender_name": _mojibake("J❤️hn Ørsted"), "timestamp_ms": 1672531260000,
         "content": _mojibake("Happy new year 🎉 à bientôt"), "type": "Generic"},
        {"sender_name": _mojibake("J❤️hn Ørsted"), "timestamp_ms": 1672531200000,
         "photos": [{"uri": "photos/1.jpg"}], "type": "Generic"},
    ],
    "title": _mojibake("J❤️hn Ørsted"), "thread_type": "Regular",
}
CHATLAB_GROUP = {
    "chatlab": {"version": "0.0.2", "exportedAt": 1703001600},
    "meta": {"name": "家人群", "platform": "wechat", "type": "group", "ownerId": "me1"},
    "members": [{"platformId": "a1", "accountName": "小爱"}, {"platformId": "b2", "accountName": "老王"},
                {"platformId": "me1", "accountName": "磊"}],
    "messages": [
        {"sender": "b2", "accountName": "老王", "timestamp": 1703001600, "type": 0, "content": "今晚谁做饭"},
        {"sender": "me1", "accountName": "磊", "timestamp": 1703001610, "type": 0, "content": "我来"},
        {"sender": "a1", "accountName": "小爱", "timestamp": 1703001620, "type": 0, "content": "我买菜！"},
        {"sender": "a1", "accountName": "小爱", "timestamp": 1703001630, "type": 1, "content": None},
        {"sender": "b2", "accountName": "老王", "timestamp": 1703001640, "type": 80, "content": "老王修改群名"},
    ],
}


def _write(tmp_path, name, text) -> str:
    path = tmp_path / name
    path.write_text(text if isinstance(text, str) else json.dumps(text, ensure_ascii=False), encoding="utf-8")
    return str(path)


def _said(cli: Runner, slug: str = "alice"):
    return [(e.speaker, e.text) for e in log_entries(cli.ws, slug)]


@pytest.fixture
def utc(example_cli: Runner) -> Runner:
    example_cli("config", "set", "user.timezone", "UTC")
    return example_cli


@pytest.mark.parametrize("fmt, filename, text, expected", [
    ("wechat", "小爱.csv", MEMOTRACE_CSV, [("import:Alice_Chen", "新年快乐呀！"), ("import:me", "你也是！今年一起去爬山"),
                                          ("import:Alice_Chen", "好呀\n周六见")]),
    ("wechat", "小爱.txt", MEMOTRACE_TXT, [("import:小爱", "新年快乐呀！"), ("import:me", "你也是！"),
                                          ("import:小爱", "好呀\n周六见")]),
    ("wechat", "msg.csv", PYWXDUMP, [("import:Alice_Chen", "早呀"), ("import:me", "早！")]),
    ("qq", "小爱.txt", QQ_TXT, [("import:小爱", "在吗"), ("import:me", "在的"), ("import:小爱", "明天一起吃饭吧")]),
    ("line", "line.txt", LINE_TXT, [("import:Alice_Chen", "おはよう！"), ("import:me", "lunch?\nI'm starving"),
                                    ("import:Alice_Chen", "sure, the usual place"),
                                    ("import:Alice_Chen", "thanks for lunch")]),
    ("signal", "chat.md", SIGNAL_MD, [("import:Alice_Chen", "are you home?"), ("import:me", "almost\nten minutes"),
                                      ("import:Alice_Chen", "ok see you soon")]),
    ("discord", "dm.json", DISCORD, [("import:Alice_Chen", "gg last night"), ("import:me", "rematch tonight?")]),
    ("imessage", "+15558675309.txt", IMESSAGE, [("import:+15558675309", "are we still on for dinner?"),
                                                ("import:me", "yes! 7pm"), ("import:+15558675309", "see you there")]),
    ("messenger", "message_1.json", MESSENGER, [("import:J❤️hn_Ørsted", "Happy new year 🎉 à bientôt"),
                                                ("import:me", "you too!")]),
])
def test_each_app_is_detected_and_imported(utc: Runner, tmp_path, fmt, filename, text, expected):
    me = ["--me", "Lei Wang"] if fmt == "messenger" else []
    result = utc("import", "alice", _write(tmp_path, filename, text), "--json", *me)
    summary = json.loads(result.stdout)
    assert summary["format"] == fmt, summary
    assert _said(utc) == expected
    assert summary["skipped"], summary  # each fixture holds a media stand-in, skipped and counted
    a = "an" if fmt == "imessage" else "a"
    assert subjects(utc.ws)[0] == f"import(alice): {len(expected)} message{'s' * (len(expected) > 1)} from {a} {fmt} export"
    again = json.loads(utc("import", "alice", _write(tmp_path, filename, text), "--json", *me).stdout)
    assert again["added"] == 0 and again["commit"] is None  # a re-import adds nothing twice


def test_unix_times_are_the_users_clock(example_cli: Runner, tmp_path):
    example_cli("config", "set", "user.timezone", "Asia/Shanghai")
    example_cli("import", "alice", _write(tmp_path, "小爱.csv", MEMOTRACE_CSV))
    entries = log_entries(example_cli.ws, "alice")
    assert entries[0].time == "07:58:00"  # 1704067080 is 23:58 UTC, 07:58 the next day in Shanghai
    example_cli("config", "set", "user.timezone", "UTC")
    tg = {"name": "Alice Chen", "type": "personal_chat", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2024-02-10T17:01:00", "date_unixtime": "1707584460",
         "from": "Alice Chen", "from_id": "user1", "text": "早安"}]}
    example_cli("import", "alice", _write(tmp_path, "result.json", tg))
    assert log_entries(example_cli.ws, "alice")[-1].time == "17:01:00"
    assert (example_cli.ws.people_dir / "alice" / "logs" / "2024-02-10.md").is_file()


def test_messenger_mojibake_is_repaired_in_names_and_text(utc: Runner, tmp_path):
    utc("person", "add", "J❤️hn Ørsted", "--relation", "friend", "--yes")
    utc("import", _write(tmp_path, "message_1.json", MESSENGER), "--me", "Lei Wang")
    text = "\n".join(e.text for e in log_entries(utc.ws, "j-hn-rsted" if (utc.ws.people_dir / "j-hn-rsted").is_dir()
                                                 else next(p.name for p in utc.ws.people_dir.iterdir()
                                                           if p.name.startswith("j"))))
    assert "Happy new year 🎉 à bientôt" in text and "Ã" not in text


def test_a_group_chat_goes_to_each_members_own_log(utc: Runner, tmp_path):
    utc("person", "add", "老王", "--relation", "family", "--handle", "wxid_wang", "--yes")
    result = utc("import", _write(tmp_path, "群.csv", MEMOTRACE_GROUP), "--json")
    summary = json.loads(result.stdout)
    assert set(summary["people"]) == {"alice", "lao-wang"} or len(summary["people"]) == 2, summary
    alice = _said(utc, "alice")
    assert ("import:小爱", "我去！") in alice and ("import:小爱", "好的 记得带水") in alice
    # what others said around her lines is context, never her words
    assert ("context:老王", "周末谁去爬山？") in alice and ("context:me", "算我一个") in alice
    assert all(not s.startswith("import:") or s == "import:小爱" for s, _ in alice)
    assert all("group 777@chatroom" in e.tags for e in log_entries(utc.ws, "alice"))
    wang = next(s for s in summary["people"] if s != "alice")
    assert ("import:老王", "那就周六早上八点") in _said(utc, wang)
    assert not (utc.ws.people_dir / "me" / "logs").exists()  # the user's lines are context only
    voice = (utc.ws.people_dir / "alice" / "VOICE.md").read_text()
    assert "我去" in voice and "周末谁去爬山" not in voice and "算我一个" not in voice
    assert subjects(utc.ws)[0].startswith("import: 4 messages from a wechat export of 777@chatroom")


def test_a_group_with_unknown_members_lists_the_add_command(utc: Runner, tmp_path):
    result = utc("import", _write(tmp_path, "family.json", CHATLAB_GROUP), "--me", "磊")
    assert "Not imported:" in result.output and "heartcompass person add '老王' --handle b2" in result.output
    assert _said(utc) == [("context:老王", "今晚谁做饭"), ("context:me", "我来"), ("import:小爱", "我买菜！")]
    before = tree_snapshot(utc.ws.root)
    nobody = dict(CHATLAB_GROUP, messages=CHATLAB_GROUP["messages"][:2])
    result = utc("import", _write(tmp_path, "none.json", nobody), ok=False)
    assert result.exit_code == 1 and "No member of this group chat" in result.output
    assert "person add '老王'" in result.output and tree_snapshot(utc.ws.root) == before


def test_a_group_is_never_filed_under_someone_who_took_no_part(utc: Runner, tmp_path):
    utc("person", "add", "Bob", "--relation", "friend", "--yes")
    before = tree_snapshot(utc.ws.root)
    result = utc("import", "bob", _write(tmp_path, "family.json", CHATLAB_GROUP), ok=False)
    assert result.exit_code == 1 and "wrote nothing in this group" in result.output
    assert tree_snapshot(utc.ws.root) == before
    utc("import", "alice", _write(tmp_path, "family.json", CHATLAB_GROUP))
    assert ("import:小爱", "我买菜！") in _said(utc)


def test_senders_route_by_handle_and_the_users_own_handles(utc: Runner, tmp_path):
    utc("person", "add", "Carol", "--relation", "friend", "--handle", "@carol_x", "--yes")
    me = utc.ws.people_dir / "me" / "PROFILE.md"
    me.write_text(me.read_text().replace("relation: self", "relation: self\nhandles:\n- lei-42"))
    dm = dict(DISCORD, messages=[
        {"id": "1", "type": "Default", "timestamp": "2023-06-01T12:00:00+00:00", "content": "hi from carol",
         "author": {"id": "1", "name": "carol_x", "nickname": "C"}},
        {"id": "2", "type": "Default", "timestamp": "2023-06-01T12:01:00+00:00", "content": "hi carol",
         "author": {"id": "2", "name": "lei-42", "nickname": "Lei"}}])
    utc("import", _write(tmp_path, "dm.json", dm))  # no NAME, no --me: both come from handles
    assert _said(utc, "carol") == [("import:C", "hi from carol"), ("import:me", "hi carol")]
    result = utc("person", "show", "carol")
    assert "@carol_x" in result.output


def _discord_message(i: int, author: dict, text: str) -> dict:
    return {"id": str(i), "type": "Default", "timestamp": f"2023-06-0{i}T12:00:00+00:00", "content": text,
            "author": author}


@pytest.mark.parametrize("handle", ["discord:555", "xiaoai_88"])
def test_discord_routes_by_id_or_username_when_the_display_name_changed(utc: Runner, tmp_path, handle):
    """A handle `discord:<id>` or the username reaches the person through a new display name."""
    utc("person", "add", "王小爱", "--relation", "friend", "--handle", handle, "--yes")
    group = {"guild": {"id": "9", "name": "桌游"}, "channel": {"id": "7", "type": "GuildTextChat", "name": "桌游群"},
             "messages": [
                 _discord_message(1, {"id": "555", "name": "xiaoai_88", "nickname": "小爱"}, "今晚玩什么？"),
                 _discord_message(2, {"id": "777", "name": "bob", "nickname": "Bob"}, "catan again"),
                 _discord_message(3, {"id": "555", "name": "xiaoai_88", "nickname": "爱丽丝 ✨"}, "我改名啦"),
                 _discord_message(4, {"id": "888", "name": "lei", "nickname": "Lei"}, "好名字")]}
    utc("import", _write(tmp_path, "game.json", group), "--me", "Lei")
    said = [(s, t) for s, t in _said(utc, "王小爱") if s.startswith("import:")]
    assert said == [("import:小爱", "今晚玩什么？"), ("import:爱丽丝_✨", "我改名啦")]


def test_a_discord_id_of_my_own_marks_my_lines(utc: Runner, tmp_path):
    me = utc.ws.people_dir / "me" / "PROFILE.md"
    me.write_text(me.read_text().replace("relation: self", "relation: self\nhandles:\n- discord:200"))
    dm = dict(DISCORD, messages=[
        _discord_message(1, {"id": "100", "name": "alicec", "nickname": "Alice Chen"}, "hi"),
        _discord_message(2, {"id": "200", "name": "new_name_for_lei", "nickname": "L"}, "你好")])
    utc("import", "alice", _write(tmp_path, "dm.json", dm))  # no --me: my id says which lines are mine
    assert _said(utc) == [("import:Alice_Chen", "hi"), ("import:me", "你好")]


def test_a_handle_claimed_twice_is_refused_and_doctor_names_it(utc: Runner, tmp_path):
    utc("person", "add", "Carol", "--relation", "friend", "--handle", "12345678", "--yes")
    result = utc("person", "add", "Dora", "--relation", "friend", "--handle", " 12345678", "--yes", ok=False)
    assert result.exit_code == 1 and "already belongs to carol" in result.output
    utc("person", "add", "Dora", "--relation", "friend", "--handle", "12345678", "--yes", "--force")
    result = utc("doctor", ok=False)
    assert "the handle '12345678' is listed by 2 people (carol, dora)" in result.output


def test_a_contact_named_me_is_not_the_user(utc: Runner, tmp_path):
    chat = "12/03/2024, 09:00 - me: I'm the contact, not you\n12/03/2024, 09:01 - Lei: hi\n"
    utc("import", "alice", _write(tmp_path, "chat.txt", chat), "--me", "Lei")
    assert _said(utc) == [("import:contact_me", "I'm the contact, not you"), ("import:me", "hi")]
    assert not log_entries(utc.ws, "alice")[0].speaker == "import:me"


def test_telegram_whole_account_export_needs_chat(utc: Runner, tmp_path):
    account = {"about": "", "chats": {"about": "", "list": [
        {"name": "Alice Chen", "type": "personal_chat", "id": 1, "messages": [
            {"id": 1, "type": "message", "date": "2024-02-10T09:01:00", "date_unixtime": "1707555660",
             "from": "Alice Chen", "from_id": "user1", "text": "hello"}]},
        {"name": "Bob", "type": "personal_chat", "id": 2, "messages": []}]}}
    path = _write(tmp_path, "result.json", account)
    result = utc("import", "alice", path, ok=False)
    assert result.exit_code == 1 and "--chat NAME" in result.output and "Alice Chen, Bob" in result.output
    result = utc("import", "alice", path, "--chat", "alice chen")
    assert _said(utc) == [("import:Alice_Chen", "hello")]
    result = utc("import", "alice", path, "--chat", "Nobody", ok=False)
    assert "not one of the 2 chats" in result.output


def test_whatsapp_notices_locales_and_bad_lines(utc: Runner, tmp_path):
    chat = ("[3/12/24, 00:08:01 a. m.] Alice Chen: \u200eMessages and calls are end-to-end encrypted. No one "
            "outside of this chat, not even WhatsApp, can read or listen to them.\n"
            "[3/12/24, 00:09:00 a. m.] Alice Chen: Messages and calls are end-to-end encrypted.\n"
            "[3/12/24, 00:10:00 a. m.] Alice Chen: .\n"
            "[3/12/24, 1:15:00 p. m.] Alice Chen: ¿comemos?\n"
            "[3/14/24, 25:99:00 p. m.] Alice Chen: broken\n"
            "[3/12/24, 1:16:00 p. m.] Lei: sí\n")
    result = utc("import", "alice", _write(tmp_path, "es.txt", chat), "--me", "Lei")
    assert _said(utc) == [("import:Alice_Chen", "."), ("import:Alice_Chen", "¿comemos?"), ("import:me", "sí")]
    assert [e.time for e in log_entries(utc.ws, "alice")] == ["00:10:00", "13:15:00", "13:16:00"]
    assert "Imported 3 messages" in result.output
    assert "Skipped 1 line that did not parse (line 5)" in result.output
    voice = utc.ws.people_dir / "alice" / "VOICE.md"
    assert "end-to-end" not in (voice.read_text() if voice.exists() else "")


@pytest.mark.parametrize("line, when", [
    ("12.03.24, 9:05 nachm. - Anna: hallo", "2024-03-12 21:05"),
    ("12/03/2024, 9:05 p. m. - Ana: hola", "2024-03-12 21:05"),
    ("2024/3/12 오후 1:05 - 민수: 안녕", "2024-03-12 13:05"),
    ("2024/3/12 午後1:06 - 花子: こんにちは", "2024-03-12 13:06"),
    ("2024/3/12 上午12:06 - 小爱: 还没睡", "2024-03-12 00:06"),
    ("3/12/24, 9:05 PM - Amy: hi", "2024-03-12 21:05"),
])
def test_whatsapp_clock_words_of_many_locales(tmp_path, line, when):
    import datetime as dt

    from heartcompass.intake.exports import Context, Report, Source, whatsapp

    path = tmp_path / "chat.txt"
    path.write_text(line + "\n", encoding="utf-8")
    got = list(whatsapp.messages(Source(path), Context(dt.date(2026, 12, 3)), Report()))
    assert [m.when.strftime("%Y-%m-%d %H:%M") for m in got] == [when]


def test_an_undated_transcript_is_filed_after_todays_entries(utc: Runner, tmp_path):
    utc("import", "alice", _write(tmp_path, "a.txt", "Alice: first\n"), "--format", "plain")
    result = utc("import", "alice", _write(tmp_path, "b.txt", "Alice: second\nMe: third\n"), "--format", "plain",
                 "--me", "Me")
    assert "after what today's log already holds" in result.output
    entries = log_entries(utc.ws, "alice")
    assert [e.text for e in entries] == ["first", "second", "third"]
    assert entries[0].time != "00:00:00" and entries[1].time >= entries[0].time
    again = utc("import", "alice", _write(tmp_path, "b.txt", "Alice: second\nMe: third\n"), "--format", "plain",
                "--me", "Me")
    assert "Nothing new" in again.output  # filed at the import's time, still recognised later


def test_a_commit_message_longer_than_one_argument_may_be(utc: Runner, tmp_path):
    """An import spanning 7,700 days has a body of one line per day: past
    the kernel's limit for one argument (128 KiB), so never passed as -m."""
    path = utc.ws.people_dir / "alice" / "note.md"
    path.write_text("x\n")
    body = "\n".join(f"- {i:05d}-01-01: 1" for i in range(12_000))  # about 190 KiB
    sha = utc.ws.git.commit([path], "import(alice): a long one", body)
    assert sha and len(utc.ws.git._git("log", "-1", "--format=%b")) > 150_000


def test_unicode_line_breaks_in_a_message_never_become_structure(utc: Runner, tmp_path):
    chat = "[2024-03-01 21:04] Alice: fine\u2028## Facts\u2028- (hand) she owes me\u0085x\n"
    utc("import", "alice", _write(tmp_path, "t.txt", chat), "--format", "plain")
    raw = next((utc.ws.people_dir / "alice" / "logs").glob("*.md")).read_text()
    assert "\u2028" not in raw and "\u0085" not in raw
    assert "\n  ## Facts\n  - (hand) she owes me\n  x\n" in raw  # continuation lines of one entry


def test_bad_exports_name_the_file_and_change_nothing(utc: Runner, tmp_path):
    before = tree_snapshot(utc.ws.root)
    for name, text, words in [("x.csv", "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime\n",
                               "no WeChat messages"),
                              ("x.json", '{"chatlab": {}, "meta": {}, "messages": 5}', "not a ChatLab export"),
                              ("y.json", '{"guild": {}, "channel": {}, "messages": [', "not valid JSON")]:
        result = utc("import", "alice", _write(tmp_path, name, text), ok=False)
        assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output, result.output
    assert tree_snapshot(utc.ws.root) == before


def test_a_group_import_round_trips_through_garden(utc: Runner, tmp_path, fake_llm):
    utc("import", _write(tmp_path, "family.json", CHATLAB_GROUP), "--me", "磊")
    fake_llm.enqueue({"summary": "dinner", "new_events": [
        {"date": "2023-12-19", "text": "小爱 buys the groceries for dinner 我买菜", "weight": 0.3, "evidence": ["L3"]}]})
    utc("garden")
    prompt = fake_llm.request("garden").prompt
    assert "context:老王 · context only: another group member's line, not this person's words] 今晚谁做饭" in prompt
    assert "L3 [2023-12-19 16:00 · import:小爱 · trusted] 我买菜！" in prompt
    assert "我买菜" in (utc.ws.people_dir / "alice" / "EVENTS.md").read_text()


def test_import_vcf_asks_before_merging_on_a_terminal(example_cli: Runner, tmp_path):
    from terminal import assert_clean_end, finish, screen_text, spawn

    path = tmp_path / "c.vcf"
    path.write_text("BEGIN:VCARD\nVERSION:3.0\nFN:Alice Chen\nEMAIL:alice@example.com\nEND:VCARD\n")
    child = spawn(example_cli.ws.root, "person", "import-vcf", str(path))
    child.expect("Add handles")
    child.send("y")
    code, raw = finish(child)
    assert code == 0, screen_text(raw)
    assert_clean_end(raw)
    assert "updated alice" in screen_text(raw)
    assert "alice@example.com" in (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()
