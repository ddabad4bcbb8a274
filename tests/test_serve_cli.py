"""`heartcompass serve` as a real process (the real langchain-openai client
against the stub model server, the real python-telegram-bot against the
fake Bot API server): pairing from the printed code, and SIGTERM in the
middle of a reply. And `heartcompass today`."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import Runner, git, subjects
from fake_telegram import TOKEN, FakeTelegram
from serve_helpers import log_entries, wait_until
from stub_server import start

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


def test_serve_pairs_from_the_printed_code_and_sigterm_mid_reply_finishes_it(example_cli: Runner, fake):
    ws = example_cli.ws
    stub_server, stub = start()
    try:
        for key, value in (("llm.base_url", f"http://127.0.0.1:{stub_server.server_port}/v1"),
                           ("llm.model", "stub"), ("telegram.api_base", fake.base), ("serve.quiet_seconds", "0.3"),
                           ("chat.reply_delay", "0,0")):
            example_cli("config", "set", key, value)
        (ws.root / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")
        stub.delay = 1.5  # the model thinks: SIGTERM arrives while the reply is in flight
        proc = subprocess.Popen([sys.executable, "-m", "heartcompass", "-w", str(ws.root), "serve", "--pair"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        try:
            line = proc.stdout.readline()
            code = line.split("account: ", 1)[1].split()[0]
            fake.message(code, user=77)
            assert fake.wait_texts(1, chat=77)[0].startswith("Paired")
            fake.message("/switch 小爱", user=77)
            fake.message("are you packing? 你好", user=77)
            wait_until(lambda: len(stub.requests) == 1)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(60) == 0, proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        stub_server.shutdown()
    texts = fake.texts(chat=77)
    assert texts[2:] == ["hey, it's Alice Chen!", "you said: are you packing? 你好",
                         "I know: Moves to Kyoto in January for the design studio job (told)"]
    assert [e.speaker for e in log_entries(ws, "alice")][-4:] == ["me", "persona", "persona", "persona"]
    # SIGTERM committed the logged message at once; the reply that finished after it, at the end
    assert subjects(ws)[0].startswith("chat(alice): 3 messages") and subjects(ws)[1].startswith("chat(alice): 1 message")
    assert not git(ws, "status", "--porcelain")
    ws.reload_config()
    assert ws.config.get("telegram.allowed_users") == ["77"]
    assert TOKEN not in git(ws, "log", "-p", "--all")  # the token never enters git


def test_serve_without_credentials_or_its_extra_says_what_to_do(example_cli: Runner, monkeypatch):
    result = example_cli("serve", ok=False)
    assert result.exit_code == 1 and "TELEGRAM_BOT_TOKEN" in result.output and "Traceback" not in result.output
    (example_cli.ws.root / ".env").write_text("LARK_APP_ID=cli_x\n", encoding="utf-8")
    result = example_cli("serve", "--channel", "lark", ok=False)
    assert result.exit_code == 1 and "LARK_APP_SECRET" in result.output
    (example_cli.ws.root / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "telegram" else real(name, *a))
    result = example_cli("serve", ok=False)
    assert result.exit_code == 1 and "pip install 'heartcompass[telegram]'" in result.output


def test_today_lists_birthdays_open_threads_and_people_gone_quiet(example_cli: Runner):
    from heartcompass.store import clock

    ws = example_cli.ws
    today = clock.today(ws)
    soon = today + dt.timedelta(days=3)
    example_cli("person", "add", "王小明", "--relation", "friend")
    slug = next(p.name for p in ws.people_dir.iterdir() if p.name not in ("alice", "me", ".archive"))
    profile = ws.people_dir / slug / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace(
        "relation: friend", f"relation: friend\nbirthday: 1990-{soon.month:02d}-{soon.day:02d}"), encoding="utf-8")
    logs = ws.people_dir / slug / "logs"
    logs.mkdir(exist_ok=True)
    for back in (40, 38, 36, 34, 32, 30):  # every other day, then a month of silence
        day = today - dt.timedelta(days=back)
        (logs / f"{day.isoformat()}.md").write_text(f"# {day.isoformat()}\n\n- 10:00:00 · me · 你好\n",
                                                    encoding="utf-8")
    result = example_cli("today")
    assert "王小明's birthday is in 3 days" in result.output
    assert "Ask how the farewell party" in result.output
    assert "no chat with 王小明 for 30 days (usually every 2)" in result.output
    data = json.loads(example_cli("today", "--json").output)
    assert {d["kind"] for d in data} == {"birthday", "thread", "quiet"}


def test_doctor_ping_checks_the_chat_apps_tokens_without_printing_them(example_cli: Runner, fake):
    from fake_lark import FakeLark

    lark = FakeLark()
    stub_server, _ = start()
    try:
        example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{stub_server.server_port}/v1")
        example_cli("config", "set", "telegram.api_base", fake.base)
        example_cli("config", "set", "lark.domain", lark.base)
        env = example_cli.ws.root / ".env"
        env.write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\nLARK_APP_ID=cli_test\nLARK_APP_SECRET=secret-test\n",
                       encoding="utf-8")
        result = example_cli("doctor", "--ping")
        assert "telegram: credentials accepted (@hc_test_bot)" in result.output
        assert "lark: credentials accepted (cli_test)" in result.output
        env.write_text("TELEGRAM_BOT_TOKEN=999:wrong\nLARK_APP_ID=cli_test\nLARK_APP_SECRET=wrong-secret\n",
                       encoding="utf-8")
        result = example_cli("doctor", "--ping", ok=False)
        assert result.exit_code == 1
        assert "Telegram refuses TELEGRAM_BOT_TOKEN" in result.output and "999:wrong" not in result.output
        assert "Feishu/Lark refuses LARK_APP_ID/LARK_APP_SECRET" in result.output
        assert "wrong-secret" not in result.output and "Traceback" not in result.output
    finally:
        stub_server.shutdown()
        lark.close()
