"""An import writes exactly what it wrote before it was made faster: the day
logs, VOICE.md and the commit of a WhatsApp export (English, then the same
chat exported later with more), a Chinese WhatsApp export, a Telegram group,
a MemoTrace (WeChat) CSV, a WhatsApp group and a MemoTrace group (Chinese
nicknames), compared with golden files written by the import as it was
(tests/golden/imports.json).

The voice pools and runs are bounded low here (POOL_LIMIT, MAX_RUNS,
TRIM_EVERY) so a few hundred messages already go through the pruning a big
export does.

To rewrite the golden file on purpose (a change of the log format, say):
HC_WRITE_GOLDEN=1 pytest tests/test_import_golden.py"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from pathlib import Path

import pytest

from conftest import Runner, git, tree_snapshot

GOLDEN = Path(__file__).parent / "golden" / "imports.json"

SHORT = ["ok", "ok", "haha", "see you", "好呀", "嗯嗯", "晚安～", "sure!", "OK!", "收到", "lol"]
WORDS = "the walk was long but the river was lovely and we should go again next week maybe".split()



def _text(rng: random.Random, i: int, zh: bool) -> str:
    pick = rng.random()
    if pick < 0.25:
        return rng.choice(SHORT)
    if pick < 0.30:
        return "<Media omitted>"
    if pick < 0.33:
        return f"call me at 555-{1000 + i} or see https://example.com/{i}"
    if pick < 0.36:
        return " ".join(rng.choice(WORDS) for _ in range(30))  # too long for a voice line
    if pick < 0.40:
        return f"line one {i}\nline two 第二行"
    if pick < 0.42:
        return f'she said "{i}" <This message was edited>'
    if zh or pick < 0.6:
        chars = "今天下班以后我们去吃火锅吧顺便看看那家新开的书店好不好"
        return "".join(rng.choice(chars) for _ in range(rng.randint(2, 14))) + str(i % 7)
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))) + f" {i % 13}"


def _stream(n: int, seed: int, zh: bool = False, start=dt.datetime(2023, 3, 1, 8, 0)):
    rng = random.Random(seed)
    when = start
    for i in range(n):
        when += dt.timedelta(minutes=rng.choice([0, 0, 1, 2, 4, 9, 12, 45, 300, 1000]))
        yield when, rng.random() < 0.55, _text(rng, i, zh)


def _whatsapp(n: int, seed: int, her: str, me: str, zh: bool = False) -> str:
    out = ["01/03/2023, 07:59 - Messages and calls are end-to-end encrypted. No one outside of this chat can "
           "read them. Tap to learn more.\n"]
    for when, hers, text in _stream(n, seed, zh):
        if zh:
            half = "上午" if when.hour < 12 else "下午"
            stamp = f"{when:%Y/%m/%d} {half}{(when.hour % 12) or 12}:{when:%M}"
        else:
            stamp = f"{when:%d/%m/%Y}, {when:%H:%M}"
        out.append(f"{stamp} - {her if hers else me}: {text}\n")
    return "".join(out)


def _whatsapp_group(n: int, seed: int) -> str:
    """Android's group export: members by name (one by an alias, one by number), joins and renames as notices."""
    rng = random.Random(seed + 1)
    who = ["Alice Chen", "林美", "Lei", "+1 555 0100"]
    out = ["01/03/2023, 07:58 - Lei created group \"Hikers 🥾\"\n", "01/03/2023, 07:59 - Lei added Alice Chen\n"]
    for i, (when, _, text) in enumerate(_stream(n, seed, zh=seed % 2 == 0)):
        if i % 90 == 45:
            out.append(f"{when:%d/%m/%Y}, {when:%H:%M} - Lei changed the subject to \"Hikers {i}\"\n")
        out.append(f"{when:%d/%m/%Y}, {when:%H:%M} - {rng.choice(who)}: {text}\n")
    return "".join(out)


def _telegram_group(n: int, seed: int) -> str:
    rng = random.Random(seed + 1)
    who = [("Alice Chen", "user1"), ("Mei Lin", "user2"), ("Lei", "user3"), ("Stranger Danger", "user4")]
    msgs: list[dict] = [{"id": 0, "type": "service", "date": "2023-03-01T07:00:00", "action": "create_group"}]
    for i, (when, _, text) in enumerate(_stream(n, seed), 1):
        name, uid = rng.choice(who)
        msg = {"id": i, "type": "message", "date": when.isoformat(), "from": name, "from_id": uid,
               "text": "" if text == "<Media omitted>" else text}
        if text == "<Media omitted>":
            msg["photo"] = f"photos/{i}.jpg"
        msgs.append(msg)
    return json.dumps({"name": "Hiking 🥾 club", "type": "private_supergroup", "id": 9, "messages": msgs},
                      ensure_ascii=False)


def _memotrace(n: int, seed: int) -> str:
    rows = ["localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime"]
    for i, (when, hers, text) in enumerate(_stream(n, seed, start=dt.datetime(2023, 3, 20, 9, 0)), 1):
        kind = "3" if text == "<Media omitted>" else "10000" if i % 97 == 0 else "1"
        stamp = int(when.replace(tzinfo=dt.timezone.utc).timestamp())
        cell = '"' + text.replace('"', '""') + '"'
        rows.append(f"{i},7,{kind},0,{0 if hers else 1},{stamp},2,{cell},{when:%Y-%m-%d %H:%M:%S}")
    return "\n".join(rows) + "\n"


def _memotrace_group(n: int, seed: int) -> str:
    """A MemoTrace group CSV (Remark, NickName, Sender): members by nickname (one by a Chinese alias), the user,
    a stranger; notices and media rows."""
    rng = random.Random(seed + 1)
    who = [("", "林美", "wxid_mei"), ("Alice Chen", "小爱", "wxid_alice"), ("", "王磊", ""), ("", "陌生人", "wxid_x")]
    rows = ["localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender"]
    for i, (when, _, text) in enumerate(_stream(n, seed, zh=True, start=dt.datetime(2023, 4, 2, 9, 0)), 1):
        remark, nick, sender = rng.choice(who)
        kind = "3" if text == "<Media omitted>" else "10000" if i % 61 == 0 else "1"
        stamp = int(when.replace(tzinfo=dt.timezone.utc).timestamp())
        cell = '"' + text.replace('"', '""') + '"'
        rows.append(f"{i},12345@chatroom,{kind},0,{0 if sender else 1},{stamp},2,{cell},{when:%Y-%m-%d %H:%M:%S},"
                    f"{remark},{nick},{sender}")
    return "\n".join(rows) + "\n"


STEPS = [  # (name, export file, what it holds, import arguments)
    ("whatsapp-en", "chat.txt", lambda: _whatsapp(400, 1, "Alice Chen", "Lei"), ["alice", "--me", "Lei"]),
    ("whatsapp-en-later", "chat.txt", lambda: _whatsapp(480, 1, "Alice Chen", "Lei"), ["alice", "--me", "Lei"]),
    ("whatsapp-zh", "chat.txt", lambda: _whatsapp(300, 2, "林美", "王磊", zh=True), ["mei-lin", "--me", "王磊"]),
    ("telegram-group", "result.json", lambda: _telegram_group(300, 3), ["--me", "Lei"]),
    ("wechat-csv", "小爱.csv", lambda: _memotrace(300, 4), ["alice"]),
    ("wechat-csv-again", "小爱.csv", lambda: _memotrace(300, 4), ["alice"]),
    ("whatsapp-group", "WhatsApp Chat with Hikers.txt", lambda: _whatsapp_group(400, 6), ["--me", "Lei"]),
    ("wechat-csv-group", "徒步群.csv", lambda: _memotrace_group(300, 7), ["--format", "wechat"]),
]


def _people_files(root: Path) -> dict[str, str]:
    return {path: data.decode("utf-8") for path, data in tree_snapshot(root).items() if path.startswith("people/")}


def _run(cli: Runner, tmp_path: Path) -> dict[str, dict]:
    """Each step's summary, commit and the people's files it changed."""
    cli("config", "set", "user.timezone", "UTC")
    cli("person", "add", "Mei Lin", "--alias", "林美", "--relation", "friend", "--yes")
    out: dict[str, dict] = {}
    before = _people_files(cli.ws.root)
    for name, filename, make, args in STEPS:
        export = tmp_path / name / filename
        export.parent.mkdir()
        export.write_text(make(), encoding="utf-8")
        *who, = args[:1] if not args[0].startswith("--") else []
        summary = json.loads(cli("import", *who, str(export), *args[len(who):], "--json").stdout)
        summary.pop("commit")
        files = _people_files(cli.ws.root)
        changed = {path: text for path, text in files.items() if before.get(path) != text}
        head = git(cli.ws, "log", "-1", "--format=%B%n--files--", "--name-only").strip()
        out[name] = {"summary": summary, "commit": head, "changed": changed}
        before = files
    return out


def test_imports_write_what_they_wrote_before(example_cli: Runner, tmp_path, monkeypatch):
    """Day logs, VOICE.md, commits and summaries of eight imports equal the golden
    ones, byte for byte: nothing lost, misattributed or reworded by a faster path."""
    from heartcompass.memory import voice_tally

    monkeypatch.setattr(voice_tally, "POOL_LIMIT", 40)
    monkeypatch.setattr(voice_tally, "MAX_RUNS", 30)
    monkeypatch.setattr(voice_tally, "TRIM_EVERY", 2)  # runs trimmed as an import goes, as a big one does
    got = _run(example_cli, tmp_path)
    if os.environ.get("HC_WRITE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("golden file written")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert got["whatsapp-en"]["summary"]["added"] > 300  # the scenario ran: real imports, real files
    assert any(p.endswith("VOICE.md") for p in got["whatsapp-en"]["changed"])
    assert got["wechat-csv-again"]["summary"]["added"] == 0  # a re-import adds nothing
    assert sorted(got) == sorted(want)
    for step in got:  # a group's days count every member's messages: they add up to what was added
        assert sum(got[step]["summary"]["days"].values()) == got[step]["summary"]["added"], step
    for step in want:
        assert got[step]["summary"] == want[step]["summary"], step
        assert got[step]["commit"] == want[step]["commit"], step
        assert sorted(got[step]["changed"]) == sorted(want[step]["changed"]), step
        for path, text in want[step]["changed"].items():
            assert got[step]["changed"][path] == text, (step, path)


def test_a_groups_people_are_listed_in_the_order_of_their_first_line(example_cli: Runner, tmp_path):
    """The summary and the commit list the members in the order their first
    lines come in the export, as before days were written whole: Mei's
    first message (already imported) comes before Alice's, her new one after."""
    example_cli("person", "add", "Mei Lin", "--relation", "friend", "--yes")

    def group(*messages: tuple[str, str, str]) -> str:
        path = tmp_path / f"result{len(messages)}.json"
        path.write_text(json.dumps({"name": "Club", "type": "private_group", "id": 9, "messages": [
            {"id": i, "type": "message", "date": when, "from": who, "from_id": f"user{len(who)}", "text": text}
            for i, (when, who, text) in enumerate(messages, 1)]}, ensure_ascii=False), encoding="utf-8")
        return str(path)

    first = ("2024-05-01T09:00:00", "Mei Lin", "早")
    example_cli("import", group(first, ("2024-05-01T09:01:00", "Lei", "hi")), "--me", "Lei")
    summary = json.loads(example_cli("import", group(first, ("2024-05-02T10:00:00", "Alice Chen", "hello"),
                                                     ("2024-05-03T11:00:00", "Mei Lin", "晚安"),
                                                     ("2024-05-03T11:05:00", "Lei", "see you")),
                                     "--me", "Lei", "--json").stdout)
    assert summary["added"] == 2 and list(summary["people"]) == ["mei-lin", "alice"]
    body = git(example_cli.ws, "log", "-1", "--format=%b").split()
    assert body.index("mei-lin") < body.index("alice")
