"""heartcompass.toml: the workspace settings.

Reading uses tomllib (fast, stdlib); `config set` edits with tomlkit so the
file's comments and layout survive. Every key is declared once, in KEYS,
with its type and range: the same parser checks `config set` text and the
values read from the file, so every reader gets a typed, validated value
from Config.get. Anything else is refused. Secrets never go in this file
(it is committed).

Why not pydantic for this model: `heartcompass --help` and `person list`
load the config, and importing pydantic costs ~85 ms there (measured with
`python -X importtime`), five times the startup budget (benchmarks/startup.py).
The typed parsers (config_values) are the model: one place, explicit types and ranges."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from heartcompass.errors import ConfigError, FormatError
from heartcompass.store import config_values as kinds

FILENAME = "heartcompass.toml"
PROVIDERS = kinds.PROVIDERS


class Key(NamedTuple):  # not a dataclass: config loads on every command's start
    default: Any
    parse: Callable[[Any], Any]
    kind: str  # the allowed values, as shown in errors
    doc: str


_TOKENS = "a whole number from 1 to 1000000"
KEYS: dict[str, Key] = {
    "user.name": Key("", kinds.text(100), "text", "your name, as personas call you (empty: 'the user')"),
    "user.timezone": Key("", kinds.timezone, "an IANA time zone or empty", "IANA zone; empty means this machine's"),
    "llm.provider": Key("auto", kinds.provider, "|".join(PROVIDERS),
                        "auto: base_url set -> openai-compatible, else ARK_API_KEY -> ark, else openai"),
    "llm.model": Key("gpt-4o-mini", kinds.text(200), "text", "model name"),
    "llm.base_url": Key("", kinds.url, "an http(s) URL or empty",
                        "endpoint for openai-compatible (e.g. http://localhost:11434/v1)"),
    "llm.temperature": Key(0.8, kinds.number(0, 2), "a number from 0 to 2", "sampling temperature"),
    "llm.timeout": Key(60.0, kinds.number(0, 3600, above=True), "seconds, above 0 and at most 3600",
                       "request timeout"),
    "llm.max_retries": Key(3, kinds.number(0, 20, whole=True), "a whole number from 0 to 20",
                           "retries on timeouts, 429 and 5xx"),
    "llm.reasoning": Key(False, kinds.boolean, "true|false", "ark: stream reasoning content via the Ark SDK"),
    "chat.reply_delay": Key([0.8, 2.2], kinds.delay, f"MIN,MAX seconds (0 to {kinds.MAX_DELAY:g}), e.g. 0.8,2.2",
                            "typing delay between persona messages"),
    "chat.burst": Key(False, kinds.boolean, "true|false", "IM-like chat: reply after you have been quiet (see below)"),
    "chat.burst_quiet_seconds": Key(8.0, kinds.number(0, 3600, above=True), "seconds, above 0 and at most 3600",
                                    "quiet time before the persona replies in burst mode; each new message "
                                    "restarts it"),
    "chat.history_budget_tokens": Key(1500, kinds.number(1, 1_000_000, whole=True), _TOKENS,
                                      "recent turns kept in a chat"),
    "memory.context_budget_tokens": Key(3000, kinds.number(1, 1_000_000, whole=True), _TOKENS,
                                        "budget of the persona's system prompt"),
    "memory.memory_budget_tokens": Key(6000, kinds.number(1, 1_000_000, whole=True), _TOKENS,
                                       "size bound of a new person's MEMORY.md (years of a relationship: the "
                                       "prompt takes what the conversation needs)"),
    "memory.half_life_days": Key(90.0, kinds.number(0, 36500, above=True), "days, above 0 and at most 36500",
                                 "how fast old events fade in the prompt"),
    "relations.half_life_days": Key(69.0, kinds.number(0, 36500, above=True), "days, above 0 and at most 36500",
                                    "how fast a relationship's strength fades without evidence (69: about 1% a "
                                    "day)"),
    "review.expire_days": Key(14, kinds.number(1, 3650, whole=True), "a whole number of days from 1 to 3650",
                              "a question the gardener asks (heartcompass review) is dropped unanswered after this "
                              "many days"),
    "serve.quiet_seconds": Key(15.0, kinds.number(0, 3600, above=True), "seconds, above 0 and at most 3600",
                               "serve: the persona answers after you have been quiet this long in the chat app"),
    "serve.digest_at": Key("", kinds.clock_time, "HH:MM or empty", "serve: send `heartcompass today` to you each "
                           "morning at this time (empty: off)"),
    "telegram.allowed_users": Key([], kinds.ids, "sender ids, comma-separated", "who may talk to the Telegram bot "
                                  "(heartcompass serve --pair adds you)"),
    "telegram.api_base": Key("https://api.telegram.org", kinds.url, "an http(s) URL",
                             "Telegram Bot API server (a local one for tests)"),
    "lark.allowed_users": Key([], kinds.ids, "sender open_ids, comma-separated", "who may talk to the Feishu/Lark bot "
                              "(heartcompass serve --pair adds you)"),
    "lark.domain": Key("https://open.feishu.cn", kinds.url, "an http(s) URL",
                       "Feishu/Lark open platform (https://open.larksuite.com for Lark; a local one for tests)"),
    "sync.remote": Key("origin", kinds.remote, "a remote name", "git remote for heartcompass sync"),
    "git.hooks": Key(True, kinds.boolean, "true|false",
                     "run the repository's git hooks (e.g. a secret scanner) on our commits"),
}
# Variables that override a setting for one shell or one run (keys stay out of this file;
# these are settings, checked by the same parsers as the file's values).
ENV_OVERRIDES = {"llm.provider": "HEARTCOMPASS_LLM_PROVIDER", "llm.model": "HEARTCOMPASS_LLM_MODEL",
                 "llm.base_url": "HEARTCOMPASS_LLM_BASE_URL"}
_SECRET_NAME = re.compile(r"(api_?key|secret|token(?!s)|password|passwd)", re.I)


class Config:
    """The validated settings: get(key) returns the typed value (or the default).
    strict=False (config set/unset, which may be the fix): a bad value is kept
    aside in `invalid` (key -> the raw value) and its default applies."""

    def __init__(self, data: dict[str, Any], path: Path | None = None, text: str | None = None,
                 strict: bool = True):
        self.path = path
        self.invalid: dict[str, Any] = {}
        self._values = _validate(data, path, text, None if strict else self.invalid)

    def get(self, key: str) -> Any:
        value = self._values.get(key, KEYS[key].default)
        return list(value) if isinstance(value, list) else value

    def is_set(self, key: str) -> bool:
        """Whether the file sets this key (otherwise the default applies)."""
        return key in self._values

    def as_dict(self) -> dict[str, Any]:
        return {key: self.get(key) for key in KEYS}


def _validate(data: dict[str, Any], path: Path | None, text: str | None,
              invalid: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each known key present in the file, parsed by its typed parser.
    Unknown keys are left alone for forward compatibility. A bad value
    raises, or with `invalid` given, is put there (key -> raw value)."""
    where = path or FILENAME
    values: dict[str, Any] = {}
    for key, spec in KEYS.items():
        section, name = key.split(".", 1)
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise FormatError(where, f"[{section}] must be a table of settings, not {table!r}",
                              _line_of(text, section, None), "Fix the line; see 'heartcompass config show'.")
        if name not in table:
            continue
        try:
            values[key] = spec.parse(table[name])
        except (ValueError, TypeError) as exc:
            if invalid is not None:
                invalid[key] = table[name]
                continue
            from heartcompass.store.credentials import redact  # lazily: regexes cost startup time

            shown = redact(repr(table[name]))
            raise FormatError(where, f"{key} = {shown} is not valid ({exc}); allowed: {spec.kind}",
                              _line_of(text, section, name),
                              f"Fix the line, or run 'heartcompass config set {key} VALUE'.") from None
    return values


def env_overrides(environ: Mapping[str, str] | None = None) -> dict[str, tuple[str, Any]]:
    """key -> (variable, typed value) for each override set in the environment,
    validated like the file's values; a bad one is a ConfigError naming it."""
    environ = os.environ if environ is None else environ
    found: dict[str, tuple[str, Any]] = {}
    for key, var in ENV_OVERRIDES.items():
        raw = environ.get(var)
        if not raw:
            continue
        spec = KEYS[key]
        try:
            found[key] = (var, spec.parse(raw))
        except (ValueError, TypeError) as exc:
            from heartcompass.store.credentials import redact

            raise ConfigError(f"${var} = {redact(repr(raw))} is not valid ({exc}); allowed for {key}: {spec.kind}.",
                              f"Fix the variable, or unset it ('unset {var}') to use {key} from {FILENAME}."
                              ) from None
    return found


def load(path: Path, strict: bool = True) -> Config:
    """The settings in path; strict=False lets bad values through (see Config),
    while a file that is not TOML is refused either way."""
    from heartcompass.formats import read_text

    try:
        text = read_text(path)  # not UTF-8, a folder, a link: named, never a traceback
    except FileNotFoundError:
        return Config({}, path, strict=strict)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # arrays or tables nested thousands deep: not a settings file
        raise FormatError(path, "not valid settings: values nested too deeply", None,
                          "Fix the file, or take back the last committed version: "
                          f"git -C {_quoted(path.parent)} checkout -- {FILENAME}") from None
    except tomllib.TOMLDecodeError as exc:
        import shlex

        m = re.search(r"at line (\d+)", str(exc))
        raise FormatError(path, f"not valid TOML ({str(exc).split(' (at')[0]})",
                          int(m.group(1)) if m else None,
                          "Fix the line, or take back the last committed version: "
                          f"git -C {shlex.quote(str(path.parent))} checkout -- {FILENAME}") from None
    return Config(data, path, text, strict)  # with the text, so errors name the line


def _quoted(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


def secrets_in(cfg: Config) -> list[tuple[str, str]]:
    """(key, what) for each value that carries a credential (put there by hand)."""
    from heartcompass.store.credentials import secret_problem

    found = []
    for key in KEYS:
        value = cfg.invalid.get(key, cfg.get(key))  # a bad value may carry a key too
        problem = secret_problem(value) if isinstance(value, str) and value else None
        if problem:
            found.append((key, problem))
    return found


def load_for_commit(path: Path, strict: bool = True) -> Config:
    """load(), and refuse to commit (or push) a file that carries a credential."""
    cfg = load(path, strict)
    found = secrets_in(cfg)
    if found:
        key, problem = found[0]
        raise ConfigError(
            f"{path}: {key}: {problem}; not committing it (the file is committed and pushed by sync).",
            f"Move the key to .env (git-ignored), e.g. HEARTCOMPASS_LLM_API_KEY=..., and remove it from the "
            f"file (by hand, or with 'heartcompass config set {key} ...').")
    return cfg


def check_committable(root: Path, rel: str) -> None:
    """For any path that commits files it did not write itself (a sync conflict
    resolved by hand): when rel is this file, load_for_commit's checks."""
    if rel == FILENAME:
        load_for_commit(root / rel)


def _line_of(text: str | None, section: str, name: str | None) -> int | None:
    if text is None:
        return None
    current = None
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("[") and "]" in s:
            current = s[1:s.index("]")].lstrip("[").strip()  # [[chat]] too: an array of tables where one belongs
            if name is None and current == section:
                return i
        elif name is None and current is None and re.match(rf"{re.escape(section)}\s*=", s):
            return i
        elif name is not None and current == section and re.match(rf"[\"']?{re.escape(name)}[\"']?\s*=", s):
            return i
        elif name is not None and current is None and re.match(rf"{re.escape(section)}\.{re.escape(name)}\s*=", s):
            return i
    return None


def valid_keys_text(key: str | None = None) -> str:
    """The hint for an unknown setting: the close ones when it looks mistyped, else every key."""
    import difflib

    close = difflib.get_close_matches(key, list(KEYS), n=3, cutoff=0.7) if key else []
    if close:
        return f"Did you mean {' or '.join(close)}? ('heartcompass config show' lists every setting.)"
    return "Valid keys: " + ", ".join(KEYS) + "."


def _refuse_secret(problem: str) -> ConfigError:
    return ConfigError(
        f"Refusing to store this in {FILENAME}: {problem}, and that file is committed to git.",
        "Put API keys in the environment or in the workspace's .env file (git-ignored), "
        "e.g. OPENAI_API_KEY=..., ARK_API_KEY=... or HEARTCOMPASS_LLM_API_KEY=... for llm.base_url's endpoint; "
        "keep the URL itself without user:password@ or ?key=.",
    )


def parse_value(key: str, raw: str) -> Any:
    if _SECRET_NAME.search(key):
        raise _refuse_secret(f"{key!r} is a name for a secret")
    from heartcompass.store.credentials import secret_problem

    problem = secret_problem(raw)
    if problem:
        raise _refuse_secret(problem)
    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text(key))
    spec = KEYS[key]
    try:
        return spec.parse(raw)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{key} expects {spec.kind}; {raw!r} is not valid ({exc}).") from None


def unset_value(path: Path, key: str) -> bool:
    """Remove one key from the file, keeping comments and layout. Whether it was there."""
    if key not in KEYS:
        raise ConfigError(f"Unknown setting {key!r}.", valid_keys_text(key))
    load(path, strict=False)  # refuse to edit a file that is not TOML; a bad value may be the one unset
    if not path.exists():
        return False
    import tomlkit

    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    section, name = key.split(".", 1)
    if section not in doc or name not in doc[section]:
        return False
    del doc[section][name]
    from heartcompass.atomic import write_atomic

    write_atomic(path, tomlkit.dumps(doc))
    return True


def set_value(path: Path, key: str, raw: str) -> Any:
    """Set one key in the file, keeping comments and layout."""
    value = parse_value(key, raw)
    import tomlkit  # only this command needs the style-preserving parser

    load(path, strict=False)  # refuse to edit a file that is not TOML; a bad value may be the one set
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    doc = tomlkit.parse(text)
    section, name = key.split(".", 1)
    if section not in doc:
        doc.add(section, tomlkit.table())
    doc[section][name] = value
    from heartcompass.atomic import write_atomic

    write_atomic(path, tomlkit.dumps(doc))
    return value
