"""A year no chat can have (issue 31): WhatsApp's 01/01/0001 was filed under
2001 and LoCoMo's "May, 99999" under 9999. The import is refused at the
line's number, before anything is written."""

from __future__ import annotations

import pytest
from conftest import Runner, git, subjects


@pytest.mark.parametrize("stamp, year", [
    ("01/01/0001, 10:00", "year 1 "),           # four digits: the year 1, never 2001
    ("9999-05-08, 13:56:00", "year 9999 "),     # what LoCoMo's "8 May, 99999" became
    ("08/05/2999, 13:56", "year 2999 "),
])
def test_a_whatsapp_line_dated_outside_the_sane_years_refuses_the_import_at_its_line(example_cli: Runner, tmp_path,
                                                                                      stamp, year):
    export = tmp_path / "chat.txt"
    export.write_text("31/12/2023, 23:58 - Alice Chen: 新年快乐!!\n"
                      "31/12/2023, 23:59 - 王磊: happy new year\n"
                      f"{stamp} - Alice Chen: from the distant past\n", encoding="utf-8")
    before = subjects(example_cli.ws)
    result = example_cli("import", "alice", str(export), "--me", "王磊", ok=False)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"chat.txt:3: the {year}is not a real date of a chat" in result.output
    assert "nothing was imported" in result.output
    assert subjects(example_cli.ws) == before
    assert not (example_cli.ws.people_dir / "alice" / "logs").exists() or \
        not list((example_cli.ws.people_dir / "alice" / "logs").glob("*.md"))
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_a_telegram_export_message_in_the_year_one_is_refused_too(example_cli: Runner, tmp_path):
    import json

    export = tmp_path / "result.json"
    export.write_text(json.dumps({"name": "Alice Chen", "type": "personal_chat", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2024-02-10T09:01:00", "from": "Alice Chen", "text": "早安"},
        {"id": 2, "type": "message", "date": "0001-01-01T09:02:10", "from": "Alice Chen", "text": "from year one"},
    ]}, ensure_ascii=False), encoding="utf-8")
    before = subjects(example_cli.ws)
    result = example_cli("import", "alice", str(export), "--me", "王磊", ok=False)
    assert result.exit_code != 0 and "the year 1 is not a real date of a chat" in result.output
    assert subjects(example_cli.ws) == before
