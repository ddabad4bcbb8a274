"""Recognise credentials so they never land in heartcompass.toml (committed,
pushed by sync) and are never printed.

Precise on purpose: credentials in URLs (user:password@, ?api_key=...) and the
well-known key shapes. A long id alone is not a secret: model and endpoint ids
such as `ep-20250101123456-abcde` or `ft:gpt-4o-mini-2024-07-18:org:x:AbCd12`
must pass."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

# Well-known key shapes; the prefix must start a word, so 'task-...' is not 'sk-'.
_KEY_SHAPES = re.compile(
    r"""(?x)
    (?<![A-Za-z0-9])(?:
        sk-(?:proj-|ant-|or-v1-|svcacct-)?[A-Za-z0-9_-]{16,}   # OpenAI, Anthropic, OpenRouter, DeepSeek
      | [sr]k_(?:live|test)_[A-Za-z0-9]{10,}                  # Stripe
      | (?:AKIA|ASIA)[0-9A-Z]{16}                             # AWS access key id
      | xox[abposr]-[A-Za-z0-9-]{10,}                         # Slack
      | gh[pousr]_[A-Za-z0-9]{30,}                            # GitHub
      | github_pat_[A-Za-z0-9_]{20,}
      | glpat-[A-Za-z0-9_-]{20,}                              # GitLab
      | AIza[0-9A-Za-z_-]{35}                                 # Google
      | hf_[A-Za-z0-9]{30,}                                   # Hugging Face
      | ark-[A-Za-z0-9-]{16,}                                 # Volcengine Ark
      | eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*   # a JWT
    )
    | ^\s*Bearer\s+\S+
    | -----BEGIN[A-Z ]*PRIVATE\ KEY-----
    """)
# Query parameters that carry credentials (compared lower-case, '-' as '_').
_SECRET_PARAMS = {"key", "api_key", "apikey", "token", "access_token", "auth_token", "id_token",
                  "refresh_token", "secret", "client_secret", "sig", "signature", "password", "passwd",
                  "pwd", "auth", "authorization", "credential", "credentials", "x_api_key",
                  "x_amz_signature", "x_amz_credential", "x_amz_security_token"}
_SECRET_PARAM_SUFFIX = re.compile(r"(?:^|_)(?:key|token|secret|signature|password|credentials?)$")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


def _secret_param(name: str) -> bool:
    name = name.strip().lower().replace("-", "_")
    return name in _SECRET_PARAMS or bool(_SECRET_PARAM_SUFFIX.search(name))


def url_problem(url: str) -> str | None:
    """What credential this URL carries, or None."""
    try:
        parts = urlsplit(url.strip())
        netloc = parts.netloc
    except ValueError:
        return None
    if "@" in netloc:
        return "the URL carries a user name or password (user:password@host)"
    for name, _ in parse_qsl(parts.query):  # a blank value carries nothing: parse_qsl leaves it out
        if _secret_param(name):
            return f"the URL carries a credential in its query (?{name}=...)"
    return None


def secret_problem(value: str) -> str | None:
    """Why this value looks like a credential, or None."""
    for url in _URL.findall(value):
        problem = url_problem(url)
        if problem:
            return problem
    if _KEY_SHAPES.search(value):
        return "the value looks like an API key or token"
    return None


def _redact_url(match: re.Match) -> str:
    url = match.group(0)
    url = re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@", r"\1***@", url)

    def param(m: re.Match) -> str:
        return m.group(1) + m.group(2) + "=" + ("***" if _secret_param(m.group(2)) and m.group(3) else m.group(3))

    return re.sub(r"([?&;])([^=&;#]+)=([^&;#]*)", param, url)


def redact(text: str) -> str:
    """The text with URL credentials and key-shaped values replaced by ***."""
    text = _URL.sub(_redact_url, text)
    return _KEY_SHAPES.sub(lambda m: m.group(0)[:3] + "***" if m.group(0)[:1].isalnum() else "***", text)
