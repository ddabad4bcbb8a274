"""The one module that owns LLM providers.

Settings come from [llm] in heartcompass.toml, overridden by
HEARTCOMPASS_LLM_* variables and --model. Keys come from the environment or
the workspace's git-ignored .env, never from the toml. Every provider is a
LangChain chat model, so the rest of the code (and the tests, with fake
models) sees one interface. langchain and the Ark SDK are imported only
when a model is actually made."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from heartcompass.errors import ConfigError, LLMError, MissingKeyError
from heartcompass.workspace import Workspace

ARK_BASE_URL = "https://ark.cn-beijing.volces.com/api/v3"
KEY_VARS = {"openai": "OPENAI_API_KEY", "ark": "ARK_API_KEY", "openai-compatible": "HEARTCOMPASS_LLM_API_KEY"}
ENV_OVERRIDES = {"provider": "HEARTCOMPASS_LLM_PROVIDER", "model": "HEARTCOMPASS_LLM_MODEL",
                 "base_url": "HEARTCOMPASS_LLM_BASE_URL"}


@dataclass(frozen=True)
class LLMSettings:
    provider: str
    model: str
    base_url: str
    temperature: float
    timeout: float
    max_retries: int
    reasoning: bool

    @property
    def key_var(self) -> str:
        return KEY_VARS[self.provider]

    def describe(self) -> str:
        from heartcompass.credentials import redact  # a hand-edited URL may carry a key: never print it

        where = self.base_url or (ARK_BASE_URL if self.provider == "ark" else "api.openai.com")
        return redact(f"{self.provider} · {self.model} · {where}")


def settings(ws: Workspace, model: str | None = None) -> LLMSettings:
    cfg = ws.config
    values: dict[str, Any] = {name: cfg.get(f"llm.{name}") for name in
                              ("provider", "model", "base_url", "temperature", "timeout", "max_retries", "reasoning")}
    for name, var in ENV_OVERRIDES.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
    if model:
        values["model"] = model
    if values["provider"] == "auto":
        values["provider"] = _auto_provider(ws, str(values["base_url"] or ""))
    if values["provider"] not in KEY_VARS:
        raise ConfigError(f"Unknown LLM provider {values['provider']!r}.",
                          "Use openai, ark or openai-compatible (llm.provider or $HEARTCOMPASS_LLM_PROVIDER).")
    return LLMSettings(str(values["provider"]), str(values["model"]), str(values["base_url"] or ""),
                       float(values["temperature"]), float(values["timeout"]), int(values["max_retries"]),
                       bool(values["reasoning"]))


def _auto_provider(ws: Workspace, base_url: str) -> str:
    if base_url:
        return "openai-compatible"
    env = read_dotenv(ws.root / ".env")
    if os.environ.get(KEY_VARS["ark"]) or env.get(KEY_VARS["ark"]):
        return "ark"
    return "openai"


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; comments, blank lines and `export ` are allowed."""
    out: dict[str, str] = {}
    from heartcompass.formats import read_text

    try:
        text = read_text(path)  # not UTF-8, a folder, a link: named, never a traceback
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def api_key(ws: Workspace, s: LLMSettings) -> str | None:
    return os.environ.get(s.key_var) or read_dotenv(ws.root / ".env").get(s.key_var) or None


def check_ready(ws: Workspace, s: LLMSettings) -> str | None:
    """Everything needed before a request, or a clear error. Returns the key."""
    key = api_key(ws, s)
    if s.provider == "openai-compatible":
        if not s.base_url:
            raise MissingKeyError(
                "No model endpoint is configured (llm.base_url is empty).",
                "Set one, e.g. 'heartcompass config set llm.base_url http://localhost:11434/v1' (Ollama), "
                "or use OpenAI with 'heartcompass config set llm.provider openai' and OPENAI_API_KEY in .env.")
        return key
    if not key:
        other = ("" if s.provider != "openai" else
                 " Or chat with a local model: 'heartcompass config set llm.base_url http://localhost:11434/v1'.")
        raise MissingKeyError(
            f"{s.key_var} is not set, so HeartCompass cannot call {s.provider}.",
            f"Put '{s.key_var}=...' in {ws.root / '.env'} (git-ignored), or export it in your shell.{other}")
    return key


def make_chat_model(ws: Workspace, s: LLMSettings):
    """A LangChain chat model for these settings (network only when used)."""
    key = check_ready(ws, s)
    if s.provider == "ark" and s.reasoning:
        from heartcompass.ark_reasoning import ArkReasoningChat

        return ArkReasoningChat(model=s.model, api_key=key, base_url=s.base_url or ARK_BASE_URL,
                                temperature=s.temperature, timeout=s.timeout)
    from langchain_openai import ChatOpenAI

    base_url = s.base_url or (ARK_BASE_URL if s.provider == "ark" else None)
    # Retries are ours (retrying() below), so the client must not retry too.
    return ChatOpenAI(model=s.model, api_key=key or "not-needed", base_url=base_url,
                      temperature=s.temperature, timeout=s.timeout, max_retries=0)


# -- errors and retries --------------------------------------------------
_RETRYABLE_NAMES = ("Timeout", "ConnectionError", "APIConnectionError", "RateLimit", "InternalServerError",
                    "ServiceUnavailable", "RemoteProtocolError", "ReadError", "ConnectError")


def is_retryable(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status == 429 or status >= 500
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(n in type(exc).__name__ for n in _RETRYABLE_NAMES)


def describe_error(exc: BaseException, s: LLMSettings | None = None) -> str:
    status = getattr(exc, "status_code", None)
    target = f" ({s.describe()})" if s else ""
    if status in (401, 403):
        return f"The model endpoint refused the API key{target}: check {s.key_var if s else 'the key'}."
    if status == 400 and "image" in str(exc).lower():
        model = s.model if s else "this model"
        return (f"{model} does not accept images{target}: use a vision-capable model for --image "
                "(set llm.model, or pass --model).")
    if status == 404:
        return f"The endpoint does not know model {s.model if s else ''!r}{target}: check llm.model."
    if status == 429:
        return f"The model endpoint is rate limiting requests{target}; wait a moment and /retry."
    if isinstance(status, int) and status >= 500:
        return f"The model endpoint had a server error ({status}){target}; /retry later."
    if is_retryable(exc):
        return f"Could not reach the model endpoint{target}: {type(exc).__name__}. Is it running? /retry sends again."
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"The model call failed{target}: {text}"


def retrying(attempt: Callable[[], Iterator[Any]], max_retries: int, *,
             sleep: Callable[[float], None] = time.sleep, base_delay: float = 0.5,
             settings: LLMSettings | None = None) -> Iterator[Any]:
    """Iterate attempt(), retrying retryable errors with exponential backoff
    as long as nothing has been yielded yet (a half-shown reply is never
    silently repeated). Gives up with an LLMError that says what to do."""
    tries = 0
    while True:
        started = False
        try:
            for item in attempt():
                started = True
                yield item
            return
        except LLMError:
            raise
        except Exception as exc:  # provider errors come in many classes
            if started or not is_retryable(exc) or tries >= max_retries:
                raise LLMError(describe_error(exc, settings)) from exc
            sleep(base_delay * (2 ** tries))
            tries += 1


# -- structured output ------------------------------------------------------
_NO_JSON_SCHEMA: set[int] = set()  # models (by id) that refused response_format json_schema


def _refuses_json_schema(exc: BaseException) -> bool:
    text = str(exc)
    return ("json_schema" in text or "response_format" in text) and not isinstance(exc, ValueError)


def structured_invoke(model: Any, schema: Any, messages: list) -> Any:
    """A schema-shaped answer. JSON schema mode first; endpoints that refuse it
    (llama-cpp-python's server accepts only json_object, for one) get JSON
    mode with the schema spelled out in the prompt, for the rest of the run."""
    if id(model) not in _NO_JSON_SCHEMA:
        try:
            return model.with_structured_output(schema, method="json_schema").invoke(messages)
        except Exception as exc:
            if not _refuses_json_schema(exc):
                raise
            _NO_JSON_SCHEMA.add(id(model))
    import json

    from langchain_core.messages import SystemMessage

    spec = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    hint = SystemMessage(content="Answer with one JSON object, and nothing else, that follows this JSON schema:\n"
                                 + spec)
    return model.with_structured_output(schema, method="json_mode").invoke([*messages, hint])


def ask_structured(model: Any, schema: Any, messages: list, retries: int = 2) -> Any:
    """structured_invoke with provider retries. Output that does not fit the
    schema is returned as its ValueError, for the caller's corrected try:
    bad output is not a provider failure."""
    def attempt():
        try:
            yield structured_invoke(model, schema, messages)
        except ValueError as exc:  # pydantic, JSON or output-parser errors
            yield exc

    return next(retrying(attempt, retries))
