"""The one module that owns LLM providers.

Which provider and model, and its key, are `settings` ([llm] in
heartcompass.toml, HEARTCOMPASS_LLM_* variables, --model; keys from the
environment or the workspace's git-ignored .env). Every provider is a
LangChain chat model, so the rest of the code (and the tests, with fake
models) sees one interface. langchain and the Ark SDK are imported only
when a model is actually made. Asking one for a schema-shaped answer is
`structured`; what went wrong with a call, in words, and the retries are
`failures`. Their names a model's user calls are importable from here too."""

from __future__ import annotations

from heartcompass.llm.failures import (BAD_OUTPUT_FIX, CONNECT_TIMEOUT, TruncatedOutput, bad_output,  # noqa: F401
                                       describe_error, is_retryable, never_connected, retrying, timed_out)
from heartcompass.llm.settings import (ARK_BASE_URL, KEY_VARS, LLMSettings, api_key, check_ready,  # noqa: F401
                                       read_dotenv, settings)
from heartcompass.llm.structured import ask_structured, structured_invoke  # noqa: F401 (what a model's user calls)
from heartcompass.store.workspace import Workspace


def make_chat_model(ws: Workspace, s: LLMSettings):
    """A LangChain chat model for these settings (network only when used)."""
    key = check_ready(ws, s)
    if s.provider == "ark" and s.reasoning:
        from heartcompass.llm.ark_reasoning import ArkReasoningChat

        return ArkReasoningChat(model=s.model, api_key=key, base_url=s.base_url or ARK_BASE_URL,
                                temperature=s.temperature, timeout=s.timeout)
    from langchain_openai import ChatOpenAI

    from openai import Timeout

    base_url = s.base_url or (ARK_BASE_URL if s.provider == "ark" else None)
    # Retries are ours (retrying() below), so the client must not retry too. llm.timeout is for a slow
    # answer; an endpoint that does not even accept the connection is given CONNECT_TIMEOUT seconds.
    return ChatOpenAI(model=s.model, api_key=key or "not-needed", base_url=base_url, temperature=s.temperature,
                      timeout=Timeout(s.timeout, connect=min(s.timeout, CONNECT_TIMEOUT)), max_retries=0)
