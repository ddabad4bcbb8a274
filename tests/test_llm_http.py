"""The providers and structured output at the HTTP layer: the real
langchain-openai client that llm/providers.py makes, its HTTP answered by a
MockTransport (the httpx flavour the openai SDK is built on). What is sent
(model, messages, response_format, tools, max_tokens) and what becomes of
each answer (JSON, not JSON, a refusal then the next way of asking, a
timeout, an answer cut at its bound), without a server or the network."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from heartcompass.errors import LLMError
from heartcompass.llm import providers as llm
from heartcompass.llm.structured import MODES_FILE, TruncatedOutput

BASE = "http://llm.test/v1"  # never resolved: every request ends at the mock transport


class Fact(BaseModel):
    text: str
    weight: float


ASKED = [SystemMessage(content="You note facts."), HumanMessage(content="她下个月搬去柏林, and it matters")]


class Endpoint:
    """The model endpoint: answers each POST with the next scripted answer
    (a dict: a chat completion's message; an int: that HTTP status; an
    exception: raised as the transport's), recording every request's body."""

    def __init__(self, *answers):
        self.answers, self.bodies, self.headers = list(answers), [], []

    def __call__(self, request):
        from langchain_openai._compat import httpx

        self.bodies.append(json.loads(request.content))
        self.headers.append(dict(request.headers))
        assert request.url.path.endswith("/chat/completions"), request.url
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, tuple):  # (status, message)
            return httpx.Response(answer[0], json={"error": {"message": answer[1], "type": "server_error"}})
        finish = answer.pop("finish_reason", "stop")
        return httpx.Response(200, json={
            "id": "x", "object": "chat.completion", "created": 0, "model": self.bodies[-1]["model"],
            "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **answer}}]})


@pytest.fixture
def endpoint(monkeypatch):
    """Every client langchain-openai builds sends its HTTP to `endpoint` (script it with .answers)."""
    from langchain_openai._compat import httpx
    from langchain_openai.chat_models import base

    ep = Endpoint()
    monkeypatch.setattr(base, "_get_default_httpx_client", lambda base_url, timeout, *rest: httpx.Client(
        base_url=base_url or "", timeout=timeout, transport=httpx.MockTransport(ep)))
    return ep


def model(ws, base_url: str | None = BASE, provider: str = "openai-compatible", name: str = "qwen-local"):
    return llm.make_chat_model(ws, llm.LLMSettings(provider, name, base_url or "", 0.2, 30.0, 0, False))


def said(text: str) -> dict:
    return {"content": text}


def remembered(ws) -> dict:
    path = ws.state_dir / MODES_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_a_plain_request_carries_the_model_the_messages_and_the_settings(example_ws, endpoint):
    endpoint.answers = [said("hi there")]
    reply = model(example_ws).invoke(ASKED)
    assert reply.content == "hi there"
    body = endpoint.bodies[0]
    assert body["model"] == "qwen-local" and body["temperature"] == 0.2
    assert body["messages"] == [{"role": "system", "content": "You note facts."},
                                {"role": "user", "content": "她下个月搬去柏林, and it matters"}]
    assert "response_format" not in body and "tools" not in body


def test_structured_output_asks_with_a_json_schema_and_a_bound(example_ws, endpoint):
    endpoint.answers = [said('{"text": "Moves to Berlin next month", "weight": 0.8}')]
    fact = llm.structured_invoke(model(example_ws), Fact, ASKED, ws=example_ws, max_tokens=700)
    assert fact == Fact(text="Moves to Berlin next month", weight=0.8)
    body = endpoint.bodies[0]
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "Fact" and set(schema["schema"]["properties"]) == {"text", "weight"}
    assert body["max_tokens"] == 700  # an OpenAI-compatible server's own name for the bound
    assert body["messages"][-1]["content"] == "她下个月搬去柏林, and it matters"
    assert remembered(example_ws) == {f"{BASE} qwen-local": "json_schema"}


def test_openai_itself_is_bounded_by_max_completion_tokens(example_ws, endpoint, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    endpoint.answers = [said('{"text": "x", "weight": 0.1}')]
    assert llm.structured_invoke(model(example_ws, None, "openai", "gpt-4o-mini"), Fact, ASKED,
                                 ws=example_ws, max_tokens=600).text == "x"
    body = endpoint.bodies[0]
    assert body["model"] == "gpt-4o-mini" and body["max_completion_tokens"] == 600 and "max_tokens" not in body
    assert endpoint.headers[0]["authorization"] == "Bearer sk-test-key"


def test_an_answer_that_is_not_json_or_not_the_shape_is_bad_output_not_a_provider_failure(example_ws, endpoint):
    endpoint.answers = [said("Sure! She moves to Berlin."), said('{"text": "no weight"}')]
    asked = model(example_ws)
    first = llm.ask_structured(asked, Fact, ASKED, ws=example_ws)
    second = llm.ask_structured(asked, Fact, ASKED, ws=example_ws)
    assert isinstance(first, ValueError) and llm.bad_output(first) == "the model's answer was not the JSON asked for"
    assert isinstance(second, ValueError) and "not in the shape asked for" in llm.bad_output(second)
    assert len(endpoint.bodies) == 2  # each asked once: bad output is not retried as if the server failed


def test_a_server_refusing_json_schema_is_asked_with_json_object_then_remembered(example_ws, endpoint):
    """llama-cpp-python's server answers json_schema with HTTP 500: the next way is json_object with
    the schema attached (and said in a system message), and the endpoint is asked that way from then on."""
    endpoint.answers = [(500, "json_schema is not supported (response_format)"),
                        said('```json\n{"text": "Moves to Berlin", "weight": 0.7}\n```'),
                        said('{"text": "Again", "weight": 0.1}')]
    asked = model(example_ws)
    assert llm.structured_invoke(asked, Fact, ASKED, ws=example_ws).text == "Moves to Berlin"
    refused, fallback = endpoint.bodies
    assert refused["response_format"]["type"] == "json_schema"
    assert fallback["response_format"]["type"] == "json_object"
    assert set(fallback["response_format"]["schema"]["properties"]) == {"text", "weight"}
    hint = fallback["messages"][-1]
    assert hint["role"] == "system" and hint["content"].startswith("Answer with one JSON object")
    assert remembered(example_ws) == {f"{BASE} qwen-local": "json_object"}
    llm.structured_invoke(asked, Fact, ASKED, ws=example_ws)
    assert endpoint.bodies[2]["response_format"]["type"] == "json_object"  # not json_schema first again


def test_a_server_refusing_both_json_modes_is_asked_with_a_forced_tool_call(example_ws, endpoint):
    endpoint.answers = [(500, "json_schema unsupported"), (400, "response_format json_object unsupported"),
                        {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                            "name": "Fact", "arguments": '{"text": "Tool answer", "weight": 0.5}'}}]}]
    assert llm.structured_invoke(model(example_ws), Fact, ASKED, ws=example_ws).text == "Tool answer"
    body = endpoint.bodies[2]
    assert "response_format" not in body
    assert body["tools"][0]["function"]["name"] == "Fact"
    assert set(body["tools"][0]["function"]["parameters"]["properties"]) == {"text", "weight"}
    assert body["tool_choice"]["function"]["name"] == "Fact"
    assert remembered(example_ws) == {f"{BASE} qwen-local": "tool_call"}


def test_a_server_refusing_every_way_is_one_clear_error_and_forgotten(example_ws, endpoint):
    endpoint.answers = [(500, "json_schema unsupported"), (500, "json_object unsupported"),
                        (500, "tools unsupported")]
    with pytest.raises(LLMError, match="refused every way of asking for structured output"):
        llm.structured_invoke(model(example_ws), Fact, ASKED, ws=example_ws)
    assert len(endpoint.bodies) == 3 and remembered(example_ws) == {}  # decided afresh next time


def test_a_server_error_that_is_no_refusal_is_raised_not_taken_for_one(example_ws, endpoint):
    endpoint.answers = [(500, "out of memory")]
    with pytest.raises(Exception) as raised:
        llm.structured_invoke(model(example_ws), Fact, ASKED, ws=example_ws)
    assert getattr(raised.value, "status_code", None) == 500 and len(endpoint.bodies) == 1
    assert "server error (500)" in llm.describe_error(raised.value) and llm.is_retryable(raised.value)
    assert remembered(example_ws) == {}


def test_an_answer_cut_at_its_bound_is_a_truncated_output(example_ws, endpoint):
    endpoint.answers = [said('{"text": "Moves to Ber') | {"finish_reason": "length"}]
    with pytest.raises(TruncatedOutput, match="hit its 300-token limit"):
        llm.structured_invoke(model(example_ws), Fact, ASKED, ws=example_ws, max_tokens=300)
    assert endpoint.bodies[0]["max_tokens"] == 300


def test_a_read_timeout_is_named_as_one_and_retried(example_ws, endpoint, monkeypatch):
    from langchain_openai._compat import httpx

    endpoint.answers = [httpx.ReadTimeout("timed out"), said('{"text": "late but here", "weight": 0.3}')]
    settings = llm.LLMSettings("openai-compatible", "qwen-local", BASE, 0.2, 30.0, 1, False)
    asked = llm.make_chat_model(example_ws, settings)
    with pytest.raises(Exception) as raised:
        llm.structured_invoke(asked, Fact, ASKED, ws=example_ws)
    assert llm.timed_out(raised.value) and llm.is_retryable(raised.value)
    assert "timed out" in llm.describe_error(raised.value, settings) and "llm.timeout, 30 s" in \
        llm.describe_error(raised.value, settings)
    # ask_structured retries a timeout (the provider's failure), and the second answer is read
    endpoint.answers = [httpx.ReadTimeout("timed out"), said('{"text": "late but here", "weight": 0.3}')]
    slept: list[float] = []
    monkeypatch.setattr("heartcompass.llm.failures.time.sleep", slept.append)
    assert llm.ask_structured(asked, Fact, ASKED, retries=1, ws=example_ws).text == "late but here"
    assert len(endpoint.bodies) == 3 and len(slept) == 1
