"""Volcengine Ark (Doubao) through its native SDK, for reasoning models.

langchain-openai drops Ark's `reasoning_content`; the Ark SDK streams it. This
small LangChain chat model puts it in each chunk's additional_kwargs, where
the chat code reads reasoning from any provider. Structured output (garden,
tell, coach) goes through Ark's `response_format`, bounded by max_tokens like
every structured call (llm.structured_invoke sets it on a copy)."""

from __future__ import annotations

import re
from typing import Any, Iterator, Optional

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


class LengthFinishReasonError(ValueError):
    """The answer stopped at max_tokens (named like openai's, which
    llm.structured_invoke reports as a cut-off answer)."""


class ArkReasoningChat(BaseChatModel):
    model: str
    api_key: str
    base_url: str
    temperature: float = 0.8
    timeout: float = 60.0
    max_tokens: Optional[int] = None  # the answer's bound; a chat reply is not cut

    @property
    def _llm_type(self) -> str:
        return "volcengine-ark"

    def _client(self):
        from volcenginesdkarkruntime import Ark

        return Ark(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0)

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any
                ) -> Iterator[ChatGenerationChunk]:
        payload = [{"role": _ROLES.get(m.type, "user"), "content": m.content} for m in messages]
        request: dict[str, Any] = {"model": self.model, "messages": payload, "stream": True,
                                   "temperature": self.temperature, "stop": stop}
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if kwargs.get("response_format"):
            request["response_format"] = kwargs["response_format"]
        finish = None
        for chunk in self._client().chat.completions.create(**request):
            if not chunk.choices:
                continue
            finish = getattr(chunk.choices[0], "finish_reason", None) or finish
            delta = chunk.choices[0].delta
            reasoning = getattr(delta, "reasoning_content", None)
            extra = {"reasoning_content": reasoning} if reasoning else {}
            piece = ChatGenerationChunk(message=AIMessageChunk(content=delta.content or "", additional_kwargs=extra))
            if run_manager and delta.content:
                run_manager.on_llm_new_token(delta.content, chunk=piece)
            yield piece
        if finish:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata={"finish_reason": finish}))

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                  run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any) -> ChatResult:
        total: Optional[ChatGenerationChunk] = None
        for piece in self._stream(messages, stop, run_manager, **kwargs):
            total = piece if total is None else total + piece
        message = total.message if total else AIMessageChunk(content="")
        return ChatResult(generations=[ChatGeneration(message=message)])

    def with_structured_output(self, schema: Any, *, method: str = "json_schema", include_raw: bool = False,
                               **kwargs: Any):
        """The answer as a dict, asked for with Ark's response_format json_schema
        (a JSON schema dict or a pydantic class). Ark's SDK is not asked for
        tool calls here: llm.structured_invoke's json_object mode (a plain
        bind of response_format) is the fallback."""
        from langchain_core.runnables import RunnableLambda

        if method != "json_schema" or include_raw:
            raise NotImplementedError(f"ArkReasoningChat asks for structured output by json_schema only, not {method}")
        spec = schema if isinstance(schema, dict) else schema.model_json_schema()
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(spec.get("title") or "answer"))[:64]
        response_format = {"type": "json_schema", "json_schema": {"name": name, "schema": spec, "strict": False}}
        return self.bind(response_format=response_format) | RunnableLambda(_json_answer)


def _json_answer(message: BaseMessage) -> Any:
    from heartcompass.llm.structured import json_answer

    if (getattr(message, "response_metadata", None) or {}).get("finish_reason") == "length":
        raise LengthFinishReasonError("the answer stopped at its max_tokens bound")
    return json_answer(str(message.content))
