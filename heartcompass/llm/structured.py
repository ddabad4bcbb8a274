"""Structured output: a schema-shaped answer from any chat model.

Three ways to ask for one, best first. Servers that refuse json_schema
(llama-cpp-python's, for one) still constrain their output by a grammar when
sent json_object with the schema attached, or a forced tool call. Which one
an endpoint takes is decided once and remembered per endpoint (base_url and
model) in .heartcompass/structured-output.json. Apart from `providers` (which
makes the models) so that `ark_reasoning`, a model itself, can read a JSON
answer the same way without importing the module that makes it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heartcompass.errors import LLMError
from heartcompass.llm.failures import TruncatedOutput, describe_error, retrying

if TYPE_CHECKING:
    from heartcompass.store.workspace import Workspace

MODES = ("json_schema", "json_object", "tool_call")
MODES_FILE = "structured-output.json"
DEFAULT_MAX_TOKENS = 2048


_INLINED: dict[Any, dict] = {}  # pydantic builds a schema in ~18 ms; a garden asks for one per request


def inline_schema(schema: Any) -> dict:
    """The pydantic class's JSON schema with every $ref resolved in place, so
    callers can tighten each property (enums, sizes) where it is used. Built
    once per class; each caller gets its own copy to change."""
    import copy

    if schema not in _INLINED:
        _INLINED[schema] = _inlined(schema)
    return copy.deepcopy(_INLINED[schema])


def _inlined(schema: Any) -> dict:
    import copy

    raw = schema.model_json_schema()
    defs = raw.pop("$defs", {})

    def resolve(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]]))
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(raw)


def endpoint_key(model: Any) -> str | None:
    """base_url and model name of a real client (langchain-openai's, or the
    Ark SDK's in ark_reasoning); None for anything else."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    if not isinstance(name, str):
        return None
    if hasattr(model, "openai_api_base"):
        return f"{model.openai_api_base or 'https://api.openai.com/v1'} {name}"
    base = getattr(model, "base_url", None)
    return f"{base} {name}" if isinstance(base, str) and base else None


class ModeMemory:
    """The structured-output mode each endpoint accepted, kept across runs."""

    def __init__(self, ws: Workspace | None):
        self.path = ws.state_dir / MODES_FILE if ws is not None else None

    def _load(self) -> dict[str, str]:
        import json

        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str | None) -> str | None:
        mode = self._load().get(key) if key else None
        return mode if mode in MODES else None

    def remember(self, key: str | None, mode: str) -> None:
        if key is None or self.path is None or self.get(key) == mode:
            return
        data = self._load()
        data[key] = mode
        self._save(data)

    def forget(self, key: str | None) -> None:
        data = self._load()
        if key is not None and self.path is not None and data.pop(key, None) is not None:
            self._save(data)

    def _save(self, data: dict[str, str]) -> None:
        import json

        from heartcompass.atomic import write_atomic

        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def _bounded(model: Any, max_tokens: int) -> Any:
    """A copy of the client that stops after max_tokens: a runaway answer must
    end, not hold a one-request-at-a-time local server after we gave up.
    OpenAI itself takes max_completion_tokens (langchain renames max_tokens to
    it); other OpenAI-compatible servers know max_tokens. The Ark SDK's model
    (ark_reasoning) has a max_tokens field of its own."""
    if not hasattr(model, "openai_api_base") or not hasattr(model, "model_copy"):
        if "max_tokens" in (getattr(type(model), "model_fields", None) or {}):
            return model.model_copy(update={"max_tokens": max_tokens})
        return model
    if model.openai_api_base is None:
        return model.model_copy(update={"max_tokens": max_tokens})
    return model.model_copy(update={"extra_body": {**(model.extra_body or {}), "max_tokens": max_tokens}})


def _refuses(exc: BaseException) -> bool:
    """An endpoint saying it does not support this way of asking (as opposed
    to being down, or the answer being bad)."""
    if isinstance(exc, ValueError):
        return False
    status = getattr(exc, "status_code", None)
    text = str(exc).lower()
    if status not in (400, 415, 422, 500, 501):
        return False
    return status == 422 or any(w in text for w in ("response_format", "json_schema", "json_object", "schema",
                                                     "tool", "function"))


def _ask_json_schema(model: Any, spec: dict, messages: list) -> Any:
    return model.with_structured_output(spec, method="json_schema").invoke(messages)


def _ask_json_object(model: Any, spec: dict, messages: list) -> Any:
    import json

    from langchain_core.messages import SystemMessage

    def untitled(node):  # property titles only repeat their names: fewer tokens for a small local model
        if isinstance(node, dict):
            return {k: untitled(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        return [untitled(v) for v in node] if isinstance(node, list) else node

    hint = SystemMessage(content="Answer with one JSON object, and nothing else, that follows this JSON schema:\n"
                                 + json.dumps(untitled(spec), ensure_ascii=False, separators=(",", ":")))
    reply = model.bind(response_format={"type": "json_object", "schema": spec}).invoke([*messages, hint])
    return json_answer(str(reply.content))


def json_answer(text: str) -> Any:
    """A model's JSON answer, parsed (a JSONDecodeError is a ValueError: bad output)."""
    import json

    text = text.strip()
    if text.startswith("```"):  # some servers fence JSON even in JSON mode
        text = re.sub(r"^```\w*\s*|\s*```$", "", text)
    return json.loads(text, strict=False)  # a raw control character inside a string is still readable


def _ask_tool_call(model: Any, spec: dict, messages: list) -> Any:
    answer = model.with_structured_output(spec, method="function_calling").invoke(messages)
    if answer is None:
        raise ValueError("the answer had no tool call")
    return answer


_ASK = {"json_schema": _ask_json_schema, "json_object": _ask_json_object, "tool_call": _ask_tool_call}


def structured_invoke(model: Any, schema: Any, messages: list, *, ws: Workspace | None = None,
                      spec: dict | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> Any:
    """A schema-shaped answer, validated into `schema` (a pydantic class).
    spec is the JSON schema sent (default: schema's own; callers tighten it
    per request). Tries the modes in order from the one remembered for this
    endpoint; an answer that does not fit raises ValueError."""
    spec = spec or inline_schema(schema)
    spec.setdefault("title", schema.__name__)
    key = endpoint_key(model)
    memory = ModeMemory(ws)
    remembered = memory.get(key)
    bounded = _bounded(model, max_tokens)
    refusal: BaseException | None = None
    for mode in MODES[MODES.index(remembered or MODES[0]):]:
        try:
            raw = _ASK[mode](bounded, spec, messages)
        except Exception as exc:
            if "LengthFinishReason" in type(exc).__name__:
                memory.remember(key, mode)
                raise TruncatedOutput(f"the answer hit its {max_tokens}-token limit before it was complete") from None
            if not _refuses(exc):
                raise
            refusal = exc
            if mode != MODES[-1]:  # known now, whatever happens to the next try (a timeout, a retry)
                memory.remember(key, MODES[MODES.index(mode) + 1])
            continue
        memory.remember(key, mode)
        return raw if isinstance(raw, schema) else schema.model_validate(raw)
    memory.forget(key)  # refused every way: decide afresh next time (the server may change)
    raise LLMError("The model endpoint refused every way of asking for structured output "
                   f"(json_schema, json_object with a schema, a tool call): {describe_error(refusal)}",
                   "Use a server that supports one of them (llama-cpp-python's server, Ollama, vLLM, "
                   "OpenAI, DeepSeek, Ark), or another model with --model.")


def ask_structured(model: Any, schema: Any, messages: list, retries: int = 2, **kwargs: Any) -> Any:
    """structured_invoke with provider retries. Output that does not fit the
    schema is returned as its ValueError, for the caller's corrected try:
    bad output is not a provider failure."""
    def attempt():
        try:
            yield structured_invoke(model, schema, messages, **kwargs)
        except ValueError as exc:  # pydantic, JSON or output-parser errors, a cut-off answer
            yield exc

    return next(retrying(attempt, retries))
