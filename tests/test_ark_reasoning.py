"""The Ark SDK model (llm.reasoning = true): structured calls go through Ark's
response_format with a max_tokens bound; chat replies stream unbounded.
A fake Ark client stands in for the SDK's: no network."""

from __future__ import annotations

import datetime as dt
import json
from types import SimpleNamespace as NS

import pytest
from pydantic import BaseModel

from conftest import Runner
from purposes import request_of
from heartcompass.llm import providers as llm
from heartcompass.formats import dailylog


class FakeArk:
    """Records each request; answers with the next scripted (text, finish_reason)."""

    requests: list[dict] = []
    answers: list[tuple[str, str]] = []

    def __init__(self, **client):
        self.chat = NS(completions=NS(create=self.create))

    def create(self, **request):
        FakeArk.requests.append(request)
        text, finish = FakeArk.answers.pop(0)
        return iter([NS(choices=[NS(delta=NS(content=text, reasoning_content="thinking…"), finish_reason=None)]),
                     NS(choices=[NS(delta=NS(content="", reasoning_content=None), finish_reason=finish)])])


@pytest.fixture
def ark(monkeypatch):
    FakeArk.requests, FakeArk.answers = [], []
    monkeypatch.setattr("volcenginesdkarkruntime.Ark", FakeArk)
    return FakeArk


class Answer(BaseModel):
    mood: str
    score: int


def _model():
    from heartcompass.llm.ark_reasoning import ArkReasoningChat

    return ArkReasoningChat(model="doubao-seed", api_key="k", base_url=llm.ARK_BASE_URL)


def test_a_structured_call_sends_a_schema_and_a_max_tokens_bound(ark):
    ark.answers.append(('{"mood": "开心", "score": 3}', "stop"))
    answer = llm.structured_invoke(_model(), Answer, [("human", "how is she?")], max_tokens=300)
    assert answer == Answer(mood="开心", score=3)
    request = request_of(ark.requests, "unknown")  # the one request, for a schema no prompt names
    assert request["max_tokens"] == 300
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"]["required"] == ["mood", "score"]


def test_an_answer_cut_at_the_bound_is_reported_as_cut_off(ark):
    ark.answers.append(('{"mood": "开', "length"))
    with pytest.raises(llm.TruncatedOutput) as info:
        llm.structured_invoke(_model(), Answer, [("human", "how is she?")], max_tokens=50)
    assert "50-token limit" in str(info.value)


def test_garden_through_the_ark_sdk_is_bounded_and_chat_is_not(example_cli: Runner, ark, monkeypatch):
    monkeypatch.setenv("ARK_API_KEY", "ark-test-key")
    monkeypatch.setattr("heartcompass.talk.chat.time.sleep", lambda s: None)
    example_cli("config", "set", "llm.provider", "ark")
    example_cli("config", "set", "llm.reasoning", "true")
    ws, day = example_cli.ws, dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(ws.people_dir / "alice", day),
                    dailylog.Entry("20:00:00", "note", "She adopted a cat called Miso", []), day)
    ark.answers.append((json.dumps({"summary": "a cat", "new_facts": [{"text": "Has a cat called Miso",
                                                                          "evidence": ["L1"]}]}), "stop"))
    example_cli("garden")
    assert "- Has a cat called Miso" in (ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    garden = request_of(ark.requests, "garden")
    assert 0 < garden["max_tokens"] <= 8192  # the proposal's bound
    assert garden["response_format"]["type"] == "json_schema"
    ark.answers.append(("hi!", "stop"))
    example_cli("chat", "alice", "-m", "hello", "--no-delay")
    chat = request_of(ark.requests, "chat")
    assert "max_tokens" not in chat and "response_format" not in chat


class ArkRefusal(Exception):
    status_code = 400


def test_a_model_that_refuses_json_schema_falls_back_and_is_remembered(ark, example_ws, monkeypatch):
    def create(self, **request):
        ark.requests.append(request)
        if request.get("response_format", {}).get("type") == "json_schema":
            raise ArkRefusal("InvalidParameter: response_format.type json_schema is not supported by this model")
        return iter([NS(choices=[NS(delta=NS(content='{"mood": "ok", "score": 1}', reasoning_content=None),
                                    finish_reason="stop")])])

    monkeypatch.setattr(FakeArk, "create", create)
    for _ in range(2):
        assert llm.structured_invoke(_model(), Answer, [("human", "?")], ws=example_ws, max_tokens=64).score == 1
    kinds = [r["response_format"]["type"] for r in ark.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]  # the second call asks the way that worked
    assert all(r["max_tokens"] == 64 for r in ark.requests)
