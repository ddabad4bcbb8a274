"""Which model HeartCompass talks to, and with which key: [llm] in
heartcompass.toml, overridden by HEARTCOMPASS_LLM_* variables and --model
(`settings`); keys from the environment or the workspace's git-ignored
.env, never from the toml (`api_key`, `check_ready`: a missing one is a
clear error naming the fix). No model is made here (`providers`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heartcompass.errors import MissingKeyError
from heartcompass.store.config import env_overrides
from heartcompass.store.workspace import Workspace

ARK_BASE_URL = "https://ark.cn-beijing.volces.com/api/v3"
KEY_VARS = {"openai": "OPENAI_API_KEY", "ark": "ARK_API_KEY", "openai-compatible": "HEARTCOMPASS_LLM_API_KEY"}


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
        from heartcompass.store.credentials import redact  # a hand-edited URL may carry a key: never print it

        where = self.base_url or (ARK_BASE_URL if self.provider == "ark" else "api.openai.com")
        return redact(f"{self.provider} · {self.model} · {where}")


def settings(ws: Workspace, model: str | None = None) -> LLMSettings:
    cfg = ws.config
    values: dict[str, Any] = {name: cfg.get(f"llm.{name}") for name in
                              ("provider", "model", "base_url", "temperature", "timeout", "max_retries", "reasoning")}
    for key, (_var, value) in env_overrides().items():  # HEARTCOMPASS_LLM_*, checked like the file's values
        values[key.removeprefix("llm.")] = value
    if model:
        values["model"] = model
    if values["provider"] == "auto":
        values["provider"] = _auto_provider(ws, str(values["base_url"] or ""))
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
