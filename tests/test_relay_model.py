"""benchmarks/relay_model.py: a request reaches its file, and the answer file
written by hand comes back to the real langchain-openai client, as plain text
and as the structured output the gardener asks for."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from pydantic import BaseModel

from waits import wait_until

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from relay_model import start  # noqa: E402


class Fact(BaseModel):
    text: str


def wait_for(path: Path) -> None:
    wait_until(path.exists, what=f"{path} to appear")


def client(port: int):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="relay", base_url=f"http://127.0.0.1:{port}/v1", api_key="dummy",
                      timeout=60, max_retries=0)


def test_request_is_written_and_the_answer_file_is_the_reply(tmp_path):
    server = start(tmp_path, poll=0.05)
    got: dict = {}
    ask = threading.Thread(target=lambda: got.update(reply=client(server.server_port).invoke("你好, Evan?")))
    try:
        ask.start()
        wait_for(tmp_path / "0001.request.json")
        body = json.loads((tmp_path / "0001.request.json").read_text(encoding="utf-8"))
        assert body["messages"][-1]["content"] == "你好, Evan?" and body["model"] == "relay"
        assert ask.is_alive(), "the server answered before the answer file was written"
        (tmp_path / "0001.answer.json").write_text("Hi! 我在。", encoding="utf-8")
        ask.join(60)
        assert got["reply"].content == "Hi! 我在。"
    finally:
        server.shutdown()


def test_structured_output_comes_back_as_the_schema_asked(tmp_path):
    server = start(tmp_path, poll=0.05)
    got: dict = {}
    model = client(server.server_port).with_structured_output(Fact, method="json_schema")
    ask = threading.Thread(target=lambda: got.update(reply=model.invoke("a fact, please")))
    try:
        ask.start()
        wait_for(tmp_path / "0001.request.json")
        body = json.loads((tmp_path / "0001.request.json").read_text(encoding="utf-8"))
        assert body["response_format"]["type"] == "json_schema"
        (tmp_path / "0001.answer.json").write_text(json.dumps({"text": "Sam lives in Seattle"}), encoding="utf-8")
        ask.join(60)
        assert got["reply"] == Fact(text="Sam lives in Seattle")
    finally:
        server.shutdown()


def conversation(path: Path) -> Path:
    """A locomo10_v2-shaped conversation: no 'conversation' wrapper, no qa, three sessions."""
    path.write_text(json.dumps({
        "speaker_a": "Evan", "speaker_b": "Sam",
        "session_1_date_time": "1:47 pm on 18 May, 2023",
        "session_1": [{"speaker": "Evan", "text": "I just got a new Prius."},
                      {"speaker": "Sam", "text": "Nice! I want to try painting."}],
        "session_2_date_time": "7:11 pm on 24 May, 2023",
        "session_2": [{"speaker": "Evan", "text": "Last weekend we drove to Jasper."}],
        "session_3_date_time": "3:55 pm on 6 June, 2023",
        "session_3": [{"speaker": "Evan", "text": "This session is past the ones asked for."}],
    }), encoding="utf-8")
    return path


def test_a_conversation_gardened_through_the_relay_keeps_the_answer_written_by_hand(tmp_path):
    import subprocess

    from relay_garden import build

    root, added = build(conversation(tmp_path / "49.json"), tmp_path / "out", sessions=2, port=0)
    logs = "".join(p.read_text(encoding="utf-8") for p in (root / "people" / "evan" / "logs").glob("*.md"))
    assert added == 3 and "drove to Jasper" in logs and "past the ones asked for" not in logs
    server = start(tmp_path / "requests", poll=0.05)
    subprocess.run([sys.executable, "-m", "heartcompass", "--workspace", str(root), "config", "set", "llm.base_url",
                    f"http://127.0.0.1:{server.server_port}/v1"], check=True, capture_output=True)
    garden = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(root), "garden"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "OPENAI_API_KEY": "dummy"})
    try:
        wait_for(tmp_path / "requests" / "0001.request.json")
        body = json.loads((tmp_path / "requests" / "0001.request.json").read_text(encoding="utf-8"))
        assert body["model"] == "relay" and body["response_format"]["json_schema"]["name"] == "Proposal"
        entries = body["messages"][-1]["content"]
        jasper = next(line.split()[0] for line in entries.splitlines() if "drove to Jasper" in line)
        (tmp_path / "requests" / "0001.answer.json").write_text(json.dumps({
            "summary": "a trip",
            "new_events": [{"date": "2023-05-20", "text": "Evan drove to Jasper with his family.", "weight": 0.5,
                            "evidence": [jasper]}]}), encoding="utf-8")
        out, err = garden.communicate(timeout=300)
    finally:
        garden.kill()
        server.shutdown()
    assert garden.returncode == 0, err
    assert "2023-05-20 · w0.5 · Evan drove to Jasper" in (root / "people" / "evan" / "EVENTS.md").read_text("utf-8")
