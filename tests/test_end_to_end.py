"""The real langchain-openai client against a scripted server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from conftest import Runner, log_entries
from stub_server import start


@pytest.fixture
def stub(example_cli: Runner):
    server, state = start()
    state.port = server.server_port
    example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    example_cli("config", "set", "llm.model", "stub")
    yield state
    server.shutdown()


def test_chat_over_http_streams_and_logs(example_cli: Runner, stub):
    result = example_cli("chat", "alice", "-m", "are you packing yet?", "--json")
    data = json.loads(result.output)
    assert data["replies"] == ["hey, it's Alice Chen!", "you said: are you packing yet?",
                               "I know: Moves to Kyoto in January for the design studio job (told)"]
    request = stub.request("chat")
    assert request["stream"] is True and request["model"] == "stub"
    assert request["messages"][0]["role"] == "system" and request["messages"][-1]["content"] == "are you packing yet?"
    assert len([e for e in log_entries(example_cli.ws, "alice") if e.speaker == "persona"]) == 3


def test_server_errors_are_retried_over_http(example_cli: Runner, stub, monkeypatch):
    monkeypatch.setattr("heartcompass.talk.chat.time.sleep", lambda s: None)
    stub.fail_next = [503, 429]
    stub.replies = ["back again"]
    assert "back again" in example_cli("chat", "alice", "-m", "hello").output
    assert len(stub.requests) == 3


def test_doctor_ping_over_http(example_cli: Runner, stub):
    stub.replies = ["pong"]
    assert "✓ ping" in example_cli("doctor", "--ping").output


def test_unreachable_endpoint_is_a_clear_error_at_once(example_cli: Runner, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr("heartcompass.talk.chat.time.sleep", slept.append)
    example_cli("config", "set", "llm.base_url", "http://127.0.0.1:9/v1")
    result = example_cli("chat", "alice", "-m", "hello", ok=False)
    assert result.exit_code == 1 and "Could not connect to the model endpoint" in result.output
    assert "Connection refused" in result.output and "Traceback" not in result.output
    assert slept == []  # a refused connection is not retried: asking again at once finds nobody either


def test_a_connect_timeout_is_bounded_and_not_retried(example_ws):
    from heartcompass.llm import providers as llm

    model = llm.make_chat_model(example_ws, llm.LLMSettings("openai-compatible", "m", "http://127.0.0.1:9/v1",
                                                            0.7, 300.0, 3, False))
    assert model.request_timeout.connect == llm.CONNECT_TIMEOUT and model.request_timeout.read == 300.0

    class ConnectTimeout(Exception):  # as httpx names it, under the provider's own timeout error
        pass

    try:
        raise TimeoutError("Request timed out.") from ConnectTimeout("timed out")
    except TimeoutError as exc:
        assert not llm.is_retryable(exc)
    assert llm.is_retryable(TimeoutError("read timed out"))  # a slow answer is still asked again


def _note(ws, text, day=None, time="20:00:00"):
    import datetime as dt

    from heartcompass.formats import dailylog

    day = day or dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(ws.people_dir / "alice", day), dailylog.Entry(time, "note", text), day)


def _facts(ws):
    from heartcompass.formats import memory as memory_fmt

    return memory_fmt.load(ws.people_dir / "alice" / "MEMORY.md").items(memory_fmt.FACTS)


def _modes(stub):
    from purposes import structured_mode

    return [structured_mode(r)[0] for r in stub.requests]


def test_refused_json_schema_falls_back_to_json_object_with_the_schema_and_is_remembered(example_cli: Runner,
                                                                                          stub):
    """llama-cpp-python's server answers json_schema with HTTP 500, but constrains
    its output by a grammar when the schema comes with json_object."""
    ws = example_cli.ws
    stub.refuse = {"json_schema"}
    _note(ws, "She starts in Kyoto on January 6")
    example_cli("garden")
    assert _modes(stub) == ["json_schema", "json_object"]
    sent = stub.request("garden", 1)  # the same request again, as json_object
    schema = sent["response_format"]["schema"]
    assert schema["title"] == "Proposal"
    # the new entries, and the thread a new fact may carry forward once its time has passed
    assert schema["properties"]["new_facts"]["items"]["properties"]["evidence"]["items"]["enum"] == ["L1", "T1"]
    assert sent["max_tokens"] == 2048 and "max_completion_tokens" not in sent
    assert "- She starts in Kyoto on January 6 (log 2026-12-01)" in _facts(ws)
    remembered = json.loads((ws.state_dir / "structured-output.json").read_text())
    assert remembered == {f"http://127.0.0.1:{stub.port}/v1 stub": "json_object"}
    # the next run (a new process would read the same file) asks the right way at once
    stub.requests.clear()
    _note(ws, "Her sister Mei visits in February", time="21:00:00")
    example_cli("garden")
    assert _modes(stub) == ["json_object"]
    assert any("Mei visits in February" in f for f in _facts(ws))


def test_tool_calls_are_the_last_fallback_for_garden_and_coach(example_cli: Runner, stub):
    ws = example_cli.ws
    stub.refuse = {"json_schema", "json_object"}
    _note(ws, "She starts in Kyoto on January 6")
    example_cli("garden")
    assert _modes(stub) == ["json_schema", "json_object", "tool_call"]
    tool = stub.request("garden", -1)["tools"][0]["function"]
    assert tool["name"] == "Proposal" and tool["parameters"]["properties"]["new_events"]["items"]["properties"][
        "weight"]["enum"][-1] == 1.0
    assert "- She starts in Kyoto on January 6 (log 2026-12-01)" in _facts(ws)
    stub.requests.clear()
    data = json.loads(example_cli("coach", "alice", "I'm so tired of packing", "--json").output)
    assert len(data["candidates"]) == 2 and _modes(stub) == ["tool_call"]
    advice = stub.request("coach")["tools"][0]["function"]["parameters"]["properties"]
    assert (advice["candidates"]["minItems"], advice["candidates"]["maxItems"]) == (2, 4)
    assert (advice["suggestions"]["minItems"], advice["suggestions"]["maxItems"]) == (1, 2)
    assert stub.request("coach")["max_tokens"] == 1024


def test_an_endpoint_that_refuses_every_mode_is_a_clear_error(example_cli: Runner, stub):
    stub.refuse = {"json_schema", "json_object", "tool_call"}
    _note(example_cli.ws, "She starts in Kyoto on January 6")
    result = example_cli("garden", ok=False)
    assert result.exit_code == 1 and "refused every way of asking for structured output" in result.output
    assert "Traceback" not in result.output
    remembered = example_cli.ws.state_dir / "structured-output.json"
    assert json.loads(remembered.read_text()) == {}  # nothing kept: the next run decides afresh


def test_json_schema_endpoints_get_the_constrained_schema(example_cli: Runner, stub):
    from heartcompass.formats import dailylog
    import datetime as dt

    ws = example_cli.ws
    day = dt.date(2026, 12, 1)
    path = dailylog.log_path(ws.people_dir / "alice", day)
    dailylog.append(path, dailylog.Entry("20:00:00", "me", "did you book the flight?"), day)
    dailylog.append(path, dailylog.Entry("20:00:05", "persona", "yes, for the 6th!"), day)
    _note(ws, "She starts in Kyoto on January 6", time="20:01:00")
    n_facts = len(_facts(ws))
    example_cli("garden")
    sent = stub.request("garden")["response_format"]["json_schema"]["schema"]["properties"]
    evidence = lambda key: sent[key]["items"]["properties"]["evidence"]["items"]["enum"]  # noqa: E731
    assert evidence("new_facts") == ["L1", "L3", "T1"] and evidence("new_events") == ["L1", "L3"]  # T: a past plan
    assert evidence("new_chat_notes") == ["L2"] and evidence("new_threads") == ["L1", "L2", "L3"]
    assert sent["rewritten_facts"]["items"]["properties"]["id"]["enum"] == [f"F{n + 1}" for n in range(n_facts)]
    # a rewrite rests on the new entries and on the lines it carries forward or merges, of its own kind
    assert evidence("rewritten_facts") == ["F1", "F2", "F3", "L1", "L3", "T1"]
    assert evidence("rewritten_chat_notes") == ["C1", "L2"]
    notes = evidence("rewritten_profile_notes")
    assert {"L1", "L3", "P1", "F1"} <= set(notes) and not {"L2", "C1", "T1"} & set(notes)
    assert sent["new_links"]["items"]["properties"]["person"]["enum"] == ["me"]
    # a day, a month or a year, ~ about then; a changed event's date (a correction) alike, or none
    assert sent["new_events"]["items"]["properties"]["date"]["pattern"] == "^~?[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"
    changed_date = sent["changed_events"]["items"]["properties"]["date"]["anyOf"]
    assert changed_date == [{"type": "string", "pattern": "^~?[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"}, {"type": "null"}]
    assert stub.request("garden")["max_tokens"] == 2048
    # a profile field's value has the shape of its field: a grammar cannot write mbti '}\n{'
    import re

    shapes = {v["properties"]["field"]["enum"][0]: v["properties"]["value"]
              for v in sent["profile_fields"]["items"]["anyOf"]}
    assert set(shapes) == {"relation", "mbti", "gender", "birthday", "alias", "tag"}
    assert "friend" in shapes["relation"]["enum"] and "L3\n}}," not in shapes["relation"]["enum"]
    assert re.match(shapes["mbti"]["pattern"], "ENFP-A") and not re.match(shapes["mbti"]["pattern"], "}\n{")
    assert re.match(shapes["birthday"]["pattern"], "03-14") and not re.match(shapes["birthday"]["pattern"], "March")
    assert shapes["gender"]["maxLength"] > 0


@pytest.mark.parametrize("refuse", [set(), {"json_schema"}])
def test_an_answer_cut_off_by_max_tokens_is_rejected_clearly(example_cli: Runner, stub, refuse):
    stub.refuse, stub.cut_off = refuse, True
    _note(example_cli.ws, "She starts in Kyoto on January 6")
    before = _facts(example_cli.ws)
    result = example_cli("garden", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "invalid twice" in out and "2048-token limit" in out, out
    assert all(r["max_tokens"] == 2048 for r in stub.requests)
    assert _facts(example_cli.ws) == before


def test_a_refusal_is_remembered_even_when_the_next_mode_then_fails(example_cli: Runner, stub, monkeypatch):
    """A local server that times out or errs on its first JSON-mode answer is
    not asked with json_schema again on the retry."""
    monkeypatch.setattr("heartcompass.llm.failures.time.sleep", lambda s: None)
    stub.refuse, stub.fail_next = {"json_schema"}, [503]
    _note(example_cli.ws, "She starts in Kyoto on January 6")
    example_cli("garden")
    assert _modes(stub) == ["json_schema", "json_object", "json_object"]


def test_json_mode_reads_raw_control_characters_in_strings():
    from langchain_core.messages import AIMessage

    from heartcompass.llm.structured import _ask_json_object

    class Model:
        def bind(self, **kw):
            return self

        def invoke(self, messages):
            return AIMessage(content='{"summary": "line one\nline two", "nothing_worth_keeping": true}')

    assert _ask_json_object(Model(), {"type": "object"}, [])["summary"] == "line one\nline two"


def test_one_line_the_stub_gets_refused_keeps_the_others(example_cli: Runner, stub, tmp_path):
    """README sends a new user to the stub server to try garden: one
    imported message it cannot make a fact of ("are we still on for?" is all
    stopwords) must not make the whole garden keep nothing: the good lines are
    kept, and only the refused one goes back to the model."""
    export = tmp_path / "chat.txt"
    export.write_text("[2026-12-01 19:00] Alice Chen: are we still on for it?\n"
                      "[2026-12-01 19:01] Alice Chen: 我下周去杭州出差\n", encoding="utf-8")
    example_cli("import", "alice", str(export), "--format", "plain")
    _note(example_cli.ws, "Alice is allergic to peanuts")
    result = example_cli("garden", "--person", "alice")
    assert "gardened" in result.output, result.output
    facts = _facts(example_cli.ws)
    assert any("allergic to peanuts" in f for f in facts), facts
    assert any("杭州" in f for f in facts), facts
    assert not any("still on for" in f for f in facts), facts
    correction = json.dumps(stub.request("garden.correction")["messages"][-1], ensure_ascii=False)  # the refused line alone, once
    assert "applied except 1 line(s), rejected" in correction and "still on for" in correction
