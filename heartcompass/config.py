"""heartcompass.toml: the workspace settings.

Reading uses tomllib (fast, stdlib); `config set` edits with tomlkit so the
file's comments and layout survive. Every key is declared here with its type;
anything else is refused. Secrets never go in this file (it is committed)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from heartcompass.errors import ConfigError, FormatError

FILENAME = "heartcompass.toml"
PROVIDERS = ("auto", "openai", "ark", "openai-compatible")


def _str(v: str) -> str:
    return v


def _float(v: str) -> float:
    return float(v)


def _int(v: str) -> int:
    return int(v)


def _bool(v: str) -> bool:
    low = v.strip().lower()
    if low in ("true", "yes", "on", "1"):
        return True
    if low in ("false", "no", "off", "0"):
        return False
    raise ValueError("expected true or false")


def _delay(v: str) -> list[float]:
    parts = [float(p) for p in re.split(r"[,\s]+", v.strip()) if p]
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or parts[0] < 0 or parts[1] < parts[0]:
        raise ValueError("expected 'MIN,MAX' seconds, e.g. 0.8,2.2")
    return parts


def _provider(v: str) -> str:
    if v not in PROVIDERS:
        raise ValueError("one of " + ", ".join(PROVIDERS))
    return v


def _timezone(v: str) -> str:
    if v:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("an IANA time zone such as Asia/Shanghai or Europe/Berlin, or empty") from None
    return v


def _positive(conv: Callable[[str], Any]) -> Callable[[str], Any]:
    def check(v: str) -> Any:
        value = conv(v)
        if value <= 0:
            raise ValueError("a number above 0")
        return value
    return check


@dataclass(frozen=True)
class Key:
    default: Any
    parse: Callable[[str], Any]
    kind: str
    doc: str


KEYS: dict[str, Key] = {
    "user.name": Key("", _str, "text", "your name, as personas call you (empty: 'the user')"),
    "user.timezone": Key("", _timezone, "time zone", "IANA zone; empty means this machine's"),
    "llm.provider": Key("auto", _provider, "|".join(PROVIDERS),
                        "auto: base_url set -> openai-compatible, else ARK_API_KEY -> ark, else openai"),
    "llm.model": Key("gpt-4o-mini", _str, "text", "model name"),
    "llm.base_url": Key("", _str, "URL", "endpoint for openai-compatible (e.g. http://localhost:11434/v1)"),
    "llm.temperature": Key(0.8, _float, "number", "sampling temperature"),
    "llm.timeout": Key(60.0, _positive(_float), "seconds", "request timeout"),
    "llm.max_retries": Key(3, _int, "whole number", "retries on timeouts, 429 and 5xx"),
    "llm.reasoning": Key(False, _bool, "true|false", "ark: stream reasoning content via the Ark SDK"),
    "chat.reply_delay": Key([0.8, 2.2], _delay, "MIN,MAX seconds", "typing delay between persona messages"),
    "chat.burst": Key(False, _bool, "true|false", "IM-like chat: reply after you have been quiet (see below)"),
    "chat.burst_quiet_seconds": Key(8.0, _positive(_float), "seconds", "quiet time before the persona replies "
                                    "in burst mode; each new message restarts it"),
    "chat.history_budget_tokens": Key(1500, _positive(_int), "whole number", "recent turns kept in a chat"),
    "memory.context_budget_tokens": Key(3000, _positive(_int), "whole number", "budget of the persona's system prompt"),
    "memory.memory_budget_tokens": Key(1200, _positive(_int), "whole number", "size bound of MEMORY.md"),
    "memory.half_life_days": Key(90.0, _positive(_float), "days", "how fast old events fade in the prompt"),
    "sync.remote": Key("origin", _str, "text", "git remote for heartcompass sync"),
    "git.hooks": Key(True, _bool, "true|false", "run the repository's git hooks (e.g. a secret scanner) on our commits"),
}
_SECRET_NAME = re.compile(r"(api_?key|secret|token(?!s)|password|passwd)", re.I)
_SECRET_VALUE = re.compile(r"^(sk-|ark-|Bearer\s)|^[A-Za-z0-9_\-]{32,}$")


class Config:
    def __init__(self, data: dict[str, Any], path: Path | None = None):
        self.path = path
        self._data = data

    def get(self, key: str) -> Any:
        section, name = key.split(".", 1)
        value = self._data.get(section, {}).get(name, KEYS[key].default)
        return value

    def as_dict(self) -> dict[str, Any]:
        return {key: self.get(key) for key in KEYS}


def load(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config({}, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise FormatError(path, f"not valid TOML ({str(exc).split(' (at')[0]})",
                          int(m.group(1)) if m else None,
                          "Fix the line, or restore it with 'heartcompass restore'.") from None
    # Validate known keys; unknown ones are left alone for forward compatibility.
    for key, spec in KEYS.items():
        section, name = key.split(".", 1)
        if name in data.get(section, {}):
            value = data[section][name]
            try:
                spec.parse(_as_text(value))
            except (ValueError, TypeError) as exc:
                raise FormatError(path, f"{key} = {value!r} is not valid: {exc}",
                                  _line_of(text, section, name)) from None
    return Config(data, path)


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _line_of(text: str, section: str, name: str) -> int | None:
    current = None
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            current = s.strip("[] ")
        elif current == section and re.match(rf"{re.escape(name)}\s*=", s):
            return i
    return None


def valid_keys_text() -> str:
    return "Valid keys: " + ", ".join(KEYS) + "."


def parse_value(key: str, raw: str) -> Any:
    if _SECRET_NAME.search(key) or _SECRET_VALUE.search(raw.strip()):
        raise ConfigError(
            f"Refusing to store what looks like a secret in {FILENAME} (it is committed to git).",
            "Put API keys in the environment or in the workspace's .env file "
            "(git-ignored), e.g. OPENAI_API_KEY=... or ARK_API_KEY=...",
        )
    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text())
    spec = KEYS[key]
    try:
        return spec.parse(raw)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{key} expects {spec.kind}; {raw!r} is not valid ({exc}).",
                          valid_keys_text()) from None


def set_value(path: Path, key: str, raw: str) -> Any:
    """Set one key in the file, keeping comments and layout."""
    value = parse_value(key, raw)
    import tomlkit  # only this command needs the style-preserving parser

    text = path.read_text(encoding="utf-8") if path.exists() else ""
    load(path)  # refuse to edit a file that does not parse
    doc = tomlkit.parse(text)
    section, name = key.split(".", 1)
    if section not in doc:
        doc.add(section, tomlkit.table())
    doc[section][name] = value
    from heartcompass.atomic import write_atomic

    write_atomic(path, tomlkit.dumps(doc))
    return value
