"""Names from data (issue 27 §3): in a group, a display name shared by two
ids, or an alias of someone's taken by an id they do not list, files no one:
the import names both ids and how to route them, and never merges them or
files them under the person."""

from __future__ import annotations

import json

import pytest

from conftest import Runner, log_entries


@pytest.fixture
def utc(example_cli: Runner) -> Runner:
    example_cli("config", "set", "user.timezone", "UTC")
    example_cli("person", "add", "Bob", "--relation", "friend", "--yes")
    return example_cli


def _write(tmp_path, name, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def _said(cli: Runner, slug: str):
    return [(e.speaker, e.text) for e in log_entries(cli.ws, slug)
            if e.speaker.startswith("import:") and e.speaker != "import:me"]


def _tg(n: int, who: str, uid: str, text: str) -> dict:
    return {"id": n, "type": "message", "date": f"2024-02-10T09:0{n}:00", "date_unixtime": str(1707555600 + 60 * n),
            "from": who, "from_id": uid, "text": text}


GROUP = {"name": "Trip", "type": "private_group", "id": 5, "messages": [
    _tg(1, "Alice Chen", "user111", "I booked the train"),
    _tg(2, "Alice Chen", "user222", "I am the other Alice Chen"),
    _tg(3, "Bob", "user333", "see you at the station"),
    _tg(4, "Lei", "user777", "great")]}


def test_two_senders_sharing_a_display_name_are_filed_under_no_one(utc: Runner, tmp_path):
    result = utc("import", _write(tmp_path, "result.json", GROUP), "--me", "Lei")
    out = " ".join(result.output.split())
    assert _said(utc, "alice") == []
    assert _said(utc, "bob") == [("import:Bob", "see you at the station")]
    assert "'Alice Chen' (id 111) and 'Alice Chen' (id 222) answer to the name of people/alice" in out
    assert "heartcompass edit alice" in out


def test_the_id_the_person_lists_is_theirs_and_the_other_is_not(utc: Runner, tmp_path):
    path = utc.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", "relation: friend\nhandles:\n- '111'"))
    result = utc("import", _write(tmp_path, "result.json", GROUP), "--json", "--me", "Lei")
    assert _said(utc, "alice") == [("import:Alice_Chen", "I booked the train")]
    summary = json.loads(result.stdout)
    assert summary["not_sure_members"] == [{"name": "Alice Chen", "handle": "222", "not_filed_under": "alice"}]


def _discord(i: int, author: dict, text: str) -> dict:
    return {"id": str(i), "type": "Default", "timestamp": f"2023-06-0{i}T12:00:00+00:00", "content": text,
            "author": author}


def test_a_discord_author_using_someones_nickname_is_not_them(utc: Runner, tmp_path):
    path = utc.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", "relation: friend\nhandles:\n- discord:100"))
    group = {"guild": {"id": "9", "name": "games"}, "channel": {"id": "7", "type": "GuildTextChat", "name": "games"},
             "messages": [_discord(1, {"id": "100", "name": "alicec", "nickname": "Alice Chen"}, "gg"),
                          _discord(2, {"id": "999", "name": "imposter", "nickname": "小爱"}, "send me money"),
                          _discord(3, {"id": "333", "name": "bob", "nickname": "Bob"}, "rematch?"),
                          _discord(4, {"id": "888", "name": "lei", "nickname": "Lei"}, "ok")]}
    result = utc("import", _write(tmp_path, "games.json", group), "--me", "Lei")
    assert _said(utc, "alice") == [("import:Alice_Chen", "gg")]
    assert "'小爱' (id discord:999) answer to the name of people/alice" in " ".join(result.output.split())
