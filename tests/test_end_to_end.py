"""The real langchain-openai client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from conftest import Runner, log_entries
from stub_server import start


@pytest.fixture
def stub(example_cli: Runner):
    server, state = start()
    example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    example_cli("config", "set", "llm.model", "stub")
    yield state
    server.shutdown()


def test_chat_over_http_streams_and_logs(example_cli: Runner, stub):
    result = example_cli("chat", "alice", "-m", "are you packing yet?", "--json")
    data = json.loads(result.output)
    assert data["replies"] == ["hey, it's Alice Chen!", "you said: are you packing yet?",
                               "I know: Moves to Kyoto in January for the design studio job (told)"]
    request = stub.requests[0]
    assert request["stream"] is True and request["model"] == "stub"
    assert request["messages"][0]["role"] == "system" and request["messages"][-1]["content"] == "are you packing yet?"
    assert len([e for e in log_entries(example_cli.ws, "alice") if e.speaker == "persona"]) == 3


def test_server_errors_are_retried_over_http(example_cli: Runner, stub, monkeypatch):
    monkeypatch.setattr("heartcompass.chat.time.sleep", lambda s: None)
    stub.fail_next = [503, 429]
    stub.replies = ["back again"]
    assert "back again" in example_cli("chat", "alice", "-m", "hello").output
    assert len(stub.requests) == 3


def test_doctor_ping_over_http(example_cli: Runner, stub):
    stub.replies = ["pong"]
    assert "✓ ping" in example_cli("doctor", "--ping").output


def test_unreachable_endpoint_is_a_clear_error(example_cli: Runner, monkeypatch):
    monkeypatch.setattr("heartcompass.chat.time.sleep", lambda s: None)
    example_cli("config", "set", "llm.base_url", "http://127.0.0.1:9/v1")
    result = example_cli("chat", "alice", "-m", "hello", ok=False)
    assert result.exit_code == 1 and "Could not reach the model endpoint" in result.output
    assert "Traceback" not in result.output


def test_gardener_falls_back_to_json_mode_where_json_schema_is_refused(example_cli: Runner, stub):
    """llama-cpp-python's server accepts only response_format json_object."""
    from heartcompass.formats import dailylog, memory as memory_fmt
    import datetime as dt

    stub.json_object_only = True
    day = dt.date(2026, 12, 1)
    path = dailylog.log_path(example_cli.ws.people_dir / "alice", day)
    dailylog.append(path, dailylog.Entry("20:00:00", "note", "She starts in Kyoto on January 6"), day)
    example_cli("garden")
    formats = [(r.get("response_format") or {}).get("type") for r in stub.requests]
    assert formats == ["json_schema", "json_object"]
    assert "follows this JSON schema" in stub.requests[1]["messages"][-1]["content"]
    facts = memory_fmt.load(example_cli.ws.people_dir / "alice" / "MEMORY.md").items(memory_fmt.FACTS)
    assert "- She starts in Kyoto on January 6 (log 2026-12-01)" in facts
