"""What the CLI prints for people to read (tables) and for programs (--json)."""

from __future__ import annotations

import datetime as dt

from conftest import Runner
from heartcompass.formats import dailylog


def _columns(output: str, slug: str) -> list[str]:
    line = next(line for line in output.splitlines() if line.split()[:1] == [slug])
    return line.split("  ")


def test_garden_table_shows_a_dash_for_people_with_nothing_new(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    day = dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(ws.people_dir / "alice", day),
                    dailylog.Entry("20:00:00", "note", "She adopted a cat called Miso", []), day)
    fake_llm.enqueue({"summary": "a cat", "new_facts": [{"text": "Has a cat called Miso", "evidence": ["L1"]}]})
    output = example_cli("garden").output
    me = [cell.strip() for cell in _columns(output, "me") if cell.strip()]
    assert me == ["me", "up to date", "0", "—", "—", "—", "—", "—"], output  # events, memory; kept refused asked
    alice = [cell.strip() for cell in _columns(output, "alice") if cell.strip()]
    assert alice[:4] == ["alice", "gardened", "1", "+0 ~0"] and "→" in alice[4], output
    assert alice[5:8] == ["1", "0", "0"], output
    assert "0 → 0" not in output


C1_REPLY = "好的\x9b2J, \x9d0;pwned\x9c see you\x85 \u202eevil"


def test_json_output_escapes_c1_controls_and_keeps_chinese_readable(example_cli: Runner, fake_llm):
    import json

    fake_llm.enqueue(C1_REPLY)
    output = example_cli("chat", "alice", "-m", "小明 says hi", "--json").output
    assert not any("\x7f" <= ch <= "\x9f" or ch == "\u202e" for ch in output), ascii(output)
    assert "\\u009b2J" in output and "\\u202e" in output and "好的" in output and "小明" in output
    assert json.loads(output)["replies"] == [C1_REPLY]  # the same text, only escaped
    context = example_cli("context", "alice", "--json").output  # the log holds the reply verbatim; the prompt
    assert not any("\x7f" <= ch <= "\x9f" for ch in context) and "\\u009d" not in context  # holds no control
