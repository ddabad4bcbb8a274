"""Where the gardener's waiting questions are counted: chat's start, today
(and today --json, the phone's digest), doctor (with a store that does not
read back)."""

from __future__ import annotations

import datetime as dt
import json

from conftest import Runner
from test_review import relation

from heartcompass.store import clock


def test_chat_counts_the_questions_at_its_start_only_when_there_are_any(example_cli: Runner, fake_llm):
    fake_llm.enqueue("hey!", "hey again!")
    assert "wait" not in example_cli("chat", "alice", "-m", "hi").output
    relation(example_cli.ws)
    said = example_cli("chat", "alice", "-m", "hi again").output
    assert "1 question waits for your answer: heartcompass review" in said


def test_chat_does_not_count_expired_questions(example_cli: Runner, fake_llm):
    relation(example_cli.ws, on=clock.today(example_cli.ws) - dt.timedelta(days=15))
    fake_llm.enqueue("hey!")
    output = example_cli("chat", "alice", "-m", "hi").output
    assert "hey!" in output and "question" not in output  # the chat answered, and counted none


def test_the_count_imports_nothing_heavy(example_cli: Runner):
    import subprocess
    import sys

    relation(example_cli.ws)
    code = ("import sys; from heartcompass.store.workspace import discover; from heartcompass.memory import review; "
            f"print(review.reminder(discover({str(example_cli.ws.root)!r}))); "
            "print(sorted(m for m in ('langchain_core', 'questionary', 'watchdog', 'git') if m in sys.modules))")
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert printed.splitlines() == ["1 question waits for your answer: heartcompass review", "[]"]


def test_today_lists_the_questions_and_its_json_too(example_cli: Runner):
    relation(example_cli.ws)
    shown = example_cli("today").output
    assert "Waiting for your answer (heartcompass review" in shown and "alice: relation: friend → dating (q1)" in shown
    listed = json.loads(example_cli("today", "--json").output)
    assert {"kind": "question", "person": "alice", "name": "alice", "text": "alice: relation: friend → dating (q1)"} \
        in listed


def test_doctor_counts_what_waits_and_says_what_expired_once(example_cli: Runner, monkeypatch):
    ws = example_cli.ws
    relation(ws)
    assert "1 waits for your answer: heartcompass review" in example_cli("doctor", ok=False).output
    later = clock.now(ws) + dt.timedelta(days=15)
    monkeypatch.setattr(clock, "now", lambda _ws: later)
    first = example_cli("doctor", ok=False).output
    assert "1 expired unanswered after 14 days: alice: relation: friend → dating" in first
    second = example_cli("doctor", ok=False).output
    assert "expired" not in second and "questions: none waiting" in second


def test_doctor_says_the_store_is_broken_and_sets_it_aside(example_cli: Runner):
    ws = example_cli.ws
    (ws.state_dir / "questions.json").write_text("{not json", encoding="utf-8")
    said = example_cli("doctor", ok=False).output
    assert "questions.json does not read back" in said and "Traceback" not in said
    assert (ws.state_dir / "questions.broken").exists()
    assert "does not read back" not in example_cli("doctor", ok=False).output
