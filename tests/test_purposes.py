"""The fake model's record of requests by purpose (tests/purposes.py), and a
guard: no test reads an anonymous last call again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from fakes import FakeChat
from purposes import BY_PROMPT, PROMPTS, fingerprint, purpose_of
from heartcompass.llm import prompts

TESTS = Path(__file__).resolve().parent
# Prompt files that are only a part of chat's prompt, never a request's own.
PARTS = {"mbti.md"}


def _render(name: str) -> str:
    return prompts.render(None, name, name="Alice", user_name="Lei", user="Lei", budget=900, separator="|||",
                          question="Where?", gold="Paris", answer="Paris", transcript="(none)")


@pytest.mark.parametrize("name,purpose", BY_PROMPT)
def test_each_shipped_prompt_is_recognised_as_its_purpose(name, purpose):
    """A request built from a shipped prompt file is named by it, whichever the role it rides in."""
    role = HumanMessage if name.startswith("locomo/") and name != "locomo/full_context.md" else SystemMessage
    assert purpose_of([role(content=_render(name)), HumanMessage(content="hi")]) == purpose


def test_every_request_prompt_file_has_a_purpose():
    """A new prompt file must be given a purpose here, or its requests would all be 'unknown'."""
    shipped = {p.relative_to(PROMPTS).as_posix() for p in PROMPTS.rglob("*.md")}
    requests = {p for p in shipped if not p.startswith("relation/") and p not in PARTS}
    assert requests == {name for name, _ in BY_PROMPT}


def test_a_fingerprint_is_in_its_own_prompt_only():
    """Each prompt's fingerprint appears in no other prompt file: purposes cannot be confused."""
    texts = {p.relative_to(PROMPTS).as_posix(): p.read_text(encoding="utf-8") for p in PROMPTS.rglob("*.md")}
    for name, _ in BY_PROMPT:
        assert len(fingerprint(name)) >= 40, name
        assert [other for other, text in texts.items() if fingerprint(name) in text] == [name]


def test_retries_and_corrections_are_told_from_the_first_try():
    system, entries = SystemMessage(content=_render("garden.md")), HumanMessage(content="## New log entries\nL1 ...")
    assert purpose_of([system, entries]) == "garden"
    assert purpose_of([system, entries, HumanMessage(content="That output could not be read (ValueError).")]) \
        == "garden.retry"
    assert purpose_of([system, entries, HumanMessage(
        content="Your proposal on these entries was applied except 1 line(s), rejected ...")]) == "garden.correction"
    coach = SystemMessage(content=_render("coach.md"))
    assert purpose_of([coach, HumanMessage(content="hi")]) == "coach"
    assert purpose_of([coach, HumanMessage(content="hi"), HumanMessage(content="That answer was not usable: x.")]) \
        == "coach.retry"
    # a chat whose user happens to type the words is still a chat
    persona = SystemMessage(content=_render("persona.md"))
    assert purpose_of([persona, HumanMessage(content="a"), AIMessage(content="b"),
                       HumanMessage(content="That answer was not usable")]) == "chat"


def test_a_structured_request_without_a_known_prompt_is_named_by_its_schema():
    asked = [SystemMessage(content="List the people this narrative mentions"), HumanMessage(content="Bo came")]
    assert purpose_of(asked, {"title": "Mentions"}) == "mentions"
    assert purpose_of(asked, {"title": "Compressed"}) == "compress"
    assert purpose_of(asked) == "unknown"


def test_the_fake_is_asked_by_purpose_and_says_what_it_holds():
    fake = FakeChat().enqueue("hi", "hello again")
    persona = SystemMessage(content=_render("persona.md"))
    fake.invoke([persona, HumanMessage(content="first")])
    fake.invoke([persona, HumanMessage(content="second")])
    assert fake.purposes == ["chat", "chat"]
    assert fake.request("chat", 1).turns == ["second"] and fake.request("chat", 0).prompt == "first"
    with pytest.raises(AssertionError, match=r"expected one 'chat' request, got 2: \['chat', 'chat'\]"):
        fake.request("chat")
    with pytest.raises(AssertionError, match="no 'garden' request #0"):
        fake.request("garden", 0)
    with pytest.raises(AssertionError, match="more often than scripted .a 'chat' request"):
        fake.invoke([persona, HumanMessage(content="third")])


def test_the_fake_has_no_anonymous_last_call():
    """What made 19 tests pass for the wrong reason: reading whatever call came last."""
    fake = FakeChat()
    for name in ("calls", "system_prompts", "schemas", "last"):
        assert not hasattr(fake, name), name
    assert fake.purposes == [] and fake.sent() == ""


def _reads_anonymous_calls(tree: ast.AST) -> list[int]:
    """Lines that index a model's call list (x.calls[...], x.system_prompts[...], x.schemas[...]), an
    HTTP fake's list of bodies (stub.requests[...]: stub.request("garden") says which), or reach past
    the recorder into its list: the telegram fake's calls("sendMessage")[...] is a method."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("_requests", "system_prompts", "schemas"):
            found.append(node.lineno)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr in ("calls", "requests"):
            found.append(node.lineno)
    return found


def test_no_test_reads_an_anonymous_call():
    """A test asks for the request it means by purpose (fake.request("garden")), never "the last call"."""
    checked = 0
    offenders = {}
    for path in sorted(TESTS.glob("*.py")):
        if path.name == "purposes.py":
            continue
        lines = _reads_anonymous_calls(ast.parse(path.read_text(encoding="utf-8")))
        checked += 1
        if lines:
            offenders[path.name] = lines
    assert checked > 50 and offenders == {}
    # the check itself catches the old way
    assert _reads_anonymous_calls(ast.parse("x = fake_llm.calls[-1][0].content")) == [1]
    assert _reads_anonymous_calls(ast.parse("x = fake_llm.system_prompts")) == [1]
    assert _reads_anonymous_calls(ast.parse("x = stub.requests[0]['messages']")) == [1]
    assert _reads_anonymous_calls(ast.parse('x = fake.calls("sendMessage")[-1]')) == []
    assert _reads_anonymous_calls(ast.parse('x = stub.request("chat", -1)')) == []


def test_an_http_fakes_bodies_are_read_by_purpose_too():
    """The stub server and the fake Ark keep the JSON a client sent: a test asks
    for "the coach's request" there as well, whatever came before or after it."""
    from purposes import request_of
    from stub_server import StubState

    chat = {"messages": [{"role": "system", "content": _render("persona.md")}, {"role": "user", "content": "hi"}]}
    coach = {"messages": [{"role": "user", "content": "tired"}], "tools": [{"type": "function"}],
             "tool_choice": {"type": "function", "function": {"name": "Advice"}}}
    garden = {"messages": [{"role": "user", "content": "entries"}],
              "response_format": {"type": "json_schema", "json_schema": {"name": "Proposal", "schema": {}}}}
    retried = {**garden, "response_format": {"type": "json_object", "schema": {"title": "Proposal"}}}
    state = StubState()
    state.requests += [chat, garden, coach, retried]
    assert state.request("coach") is coach and state.request("chat") is chat
    assert state.request("garden", 0) is garden and state.request("garden", -1) is retried
    with pytest.raises(AssertionError, match="expected one 'garden' request, got 2"):
        state.request("garden")
    with pytest.raises(AssertionError, match="no 'compress' request #0"):
        request_of(state.requests, "compress", 0)
