"""A scripted, recording fake chat model built on langchain_core's fakes,
and scripted terminal questions (questionary)."""

from __future__ import annotations

import re
from typing import Any, Iterator

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from purposes import Recorder


class Partial:
    """Stream `text`, then fail with `error` (a reply cut off mid-way)."""

    def __init__(self, text: str, error: BaseException):
        self.text, self.error = text, error


class FakeChat(GenericFakeChatModel):
    """Each call takes the next item of `script`: a reply string (streamed
    word by word, like GenericFakeChatModel), an AIMessage, an exception to
    raise, or a Partial. Every call is recorded with what it was for
    (tests/purposes.py): a test reads `request("garden")`, `requests("chat")`
    or `purposes`, never an anonymous last call."""

    messages: Iterator[Any] = Field(default_factory=lambda: iter(()))
    script: list[Any] = Field(default_factory=list)
    recorder: Recorder = Field(default_factory=Recorder)
    slept: list[float] = Field(default_factory=list)  # what time.sleep was asked for meanwhile (conftest: not slept)

    def enqueue(self, *items: Any) -> "FakeChat":
        self.script.extend(items)
        return self

    model_config = {"arbitrary_types_allowed": True}

    def _next(self, messages: list[BaseMessage], schema: Any = None) -> Any:
        request = self.recorder.record(messages, schema)
        if not self.script:
            raise AssertionError(f"FakeChat was called more often than scripted (a {request.purpose!r} request)")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        item = self._next(messages)
        text = item.text if isinstance(item, Partial) else item
        message = text if isinstance(text, AIMessage) else AIMessage(content=text)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        item = self._next(messages)
        if isinstance(item, AIMessage):
            reasoning = item.additional_kwargs.get("reasoning_content")
            if reasoning:
                yield ChatGenerationChunk(message=AIMessageChunk(
                    content="", additional_kwargs={"reasoning_content": reasoning}))
            item = str(item.content)
        text = item.text if isinstance(item, Partial) else item
        for token in re.split(r"(\s)", text):
            if token:
                yield ChatGenerationChunk(message=AIMessageChunk(content=token))
        if isinstance(item, Partial):
            raise item.error

    def with_structured_output(self, schema, **kwargs):
        """Scripted structured output: a dict (validated into schema, or kept
        as a dict when the schema is a JSON schema), a JSON string, an
        exception to raise."""
        import json

        from langchain_core.runnables import RunnableLambda

        def run(messages):
            item = self._next(list(messages), schema)
            if isinstance(item, str):
                item = json.loads(item)
            if isinstance(item, dict) and not isinstance(schema, dict):
                return schema.model_validate(item)
            return item

        return RunnableLambda(run)

    @property
    def purposes(self) -> list[str]:
        """What each call was for, in order ([] when the model was never asked)."""
        return self.recorder.purposes

    def requests(self, purpose: str) -> list[Any]:
        return self.recorder.requests(purpose)

    def request(self, purpose: str, nth: int | None = None) -> Any:
        return self.recorder.request(purpose, nth)

    def sent(self) -> str:
        return self.recorder.sent()


class FakeStatusError(Exception):
    """Looks like an HTTP error from a provider SDK."""

    def __init__(self, status_code: int):
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


CTRL_C = object()  # an answer to Questions: the user presses Ctrl-C at that question


class Questions:
    """Stands in for questionary's confirm, select and text: each question
    asked takes the next scripted answer and is recorded in `asked`. Like
    questionary, .ask() turns Ctrl-C into a printed "Cancelled by user" and
    None, while .unsafe_ask() lets the KeyboardInterrupt through."""

    def __init__(self, monkeypatch, *answers: Any):
        import questionary

        self.answers, self.asked = list(answers), []
        for kind in ("confirm", "select", "text"):
            monkeypatch.setattr(questionary, kind, self._question)

    def _question(self, message: str, *args: Any, **kwargs: Any) -> "Questions._Question":
        self.asked.append(message)
        if not self.answers:
            raise AssertionError(f"unexpected question: {message!r}")
        return Questions._Question(self.answers.pop(0))

    class _Question:
        def __init__(self, answer: Any):
            self.answer = answer

        def unsafe_ask(self) -> Any:
            if self.answer is CTRL_C:
                raise KeyboardInterrupt
            return self.answer

        def ask(self) -> Any:
            if self.answer is CTRL_C:
                print("Cancelled by user")
                return None
            return self.answer
