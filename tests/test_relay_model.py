"""benchmarks/relay_model.py: a request reaches its file, and the answer file
written by hand comes back to the real langchain-openai client, as plain text
and as the structured output the gardener asks for."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from relay_model import start  # noqa: E402


class Fact(BaseModel):
    text: str


def wait_for(path: Path, deadline: float = 60.0) -> None:
    end = time.monotonic() + deadline
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


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
