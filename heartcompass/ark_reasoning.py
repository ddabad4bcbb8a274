"""Volcengine Ark (Doubao) through its native SDK, for reasoning models.

langchain-openai drops Ark's `reasoning_content`; the Ark SDK streams it. This
small LangChain chat model puts it in each chunk's additional_kwargs, where
the chat code reads reasoning from any provider."""

from __future__ import annotations

from typing import Any, Iterator, Optional

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


class ArkReasoningChat(BaseChatModel):
    model: str
    api_key: str
    base_url: str
    temperature: float = 0.8
    timeout: float = 60.0

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
        stream = self._client().chat.completions.create(model=self.model, messages=payload, stream=True,
                                                       temperature=self.temperature, stop=stop)
        for chunk in stream:
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            reasoning = getattr(delta, "reasoning_content", None)
            extra = {"reasoning_content": reasoning} if reasoning else {}
            piece = ChatGenerationChunk(message=AIMessageChunk(content=delta.content or "", additional_kwargs=extra))
            if run_manager and delta.content:
                run_manager.on_llm_new_token(delta.content, chunk=piece)
            yield piece

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                  run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any) -> ChatResult:
        total: Optional[ChatGenerationChunk] = None
        for piece in self._stream(messages, stop, run_manager, **kwargs):
            total = piece if total is None else total + piece
        message = total.message if total else AIMessageChunk(content="")
        return ChatResult(generations=[ChatGeneration(message=message)])
