"""What a setting's value may be: one parser per kind (text, true/false, a
number in a range, a URL, a time zone...). Each takes a TOML value or the
text given to `config set` and returns the typed value or raises
ValueError saying what is allowed; config.KEYS pairs every key with one."""

from __future__ import annotations

import math
import re
from typing import Any, Callable

PROVIDERS = ("auto", "openai", "ark", "openai-compatible")


def text(max_len: int = 200) -> Callable[[Any], str]:
    def parse(v: Any) -> str:
        if not isinstance(v, str):
            raise ValueError("expected text (in quotes)")
        if len(v) > max_len:
            raise ValueError(f"at most {max_len} characters")
        from heartcompass.sanitize import clean_text

        # user.name reaches every persona's prompt: nothing in it may hide (Unicode tags, zero-width)
        if re.search(r"[\x00-\x1f\x7f]", v) or clean_text(v, nfkc=False) != v:
            raise ValueError("one line, without control characters or invisible ones")
        return v
    return parse


def boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        low = v.strip().lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
    raise ValueError("expected true or false")


def number(low: float, high: float, *, whole: bool = False, above: bool = False) -> Callable[[Any], Any]:
    """A finite number in [low, high] ((low, high] when `above`)."""
    def parse(v: Any) -> Any:
        if isinstance(v, bool):
            raise ValueError("expected a number, not true/false")
        if isinstance(v, str):
            s = v.strip()
            if whole:
                if not re.fullmatch(r"[+-]?\d{1,12}", s):
                    raise ValueError("expected a whole number")
                v = int(s)
            else:
                try:
                    v = float(s)
                except ValueError:
                    raise ValueError("expected a number") from None
        if whole and not isinstance(v, int):
            raise ValueError("expected a whole number")
        if not isinstance(v, (int, float)):
            raise ValueError("expected a number")
        if not math.isfinite(v):
            raise ValueError("expected a finite number")
        if (v <= low if above else v < low) or v > high:
            raise ValueError("out of range")
        return v if whole else float(v)
    return parse


MAX_DELAY = 60.0


def delay(v: Any) -> list[float]:
    if isinstance(v, str):
        v = [p for p in re.split(r"[,\s]+", v.strip()) if p]
    if not isinstance(v, list):
        raise ValueError("expected two numbers")
    try:
        parts = [number(0, MAX_DELAY)(p) for p in v]
    except ValueError:
        raise ValueError(f"expected numbers of seconds from 0 to {MAX_DELAY:g}") from None
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or parts[1] < parts[0]:
        raise ValueError("expected MIN,MAX with MIN <= MAX")
    return parts


def provider(v: Any) -> str:
    if v not in PROVIDERS:
        raise ValueError("one of " + ", ".join(PROVIDERS))
    return v


def timezone(v: Any) -> str:
    v = text(64)(v)
    if v:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("an IANA time zone such as Asia/Shanghai or Europe/Berlin, or empty") from None
    return v


def url(v: Any) -> str:
    v = text(500)(v).strip()
    if v and not re.fullmatch(r"https?://[^\s/?#]+[^\s]*", v):
        raise ValueError("expected an http:// or https:// URL, or empty")
    if v:
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(v)
            parts.port  # noqa: B018 - a bad port (or an unclosed [ of an IPv6 address) raises here
        except ValueError:
            raise ValueError("expected an http:// or https:// URL with a valid host and port, "
                             "e.g. http://[::1]:8080/v1, or empty") from None
        if not parts.hostname:
            raise ValueError("expected an http:// or https:// URL with a host, or empty")
    return v


def remote(v: Any) -> str:
    v = text(100)(v)
    # git reads a name starting with "-" as an option (e.g. --upload-pack=<command>)
    if not re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*", v) or ".." in v:
        raise ValueError("a git remote name such as origin (letters, digits, '.', '_', '-', '/'; "
                         "not starting with '-')")
    return v


def ids(v: Any) -> list[str]:
    """Chat-app sender ids (Telegram's numbers, Feishu's open_id): a list, or comma-separated text."""
    if isinstance(v, str):
        v = [p for p in re.split(r"[,\s]+", v.strip()) if p]
    if not isinstance(v, list):
        raise ValueError("expected a list of sender ids")
    ids = [str(i).strip() for i in v if not isinstance(i, bool)]
    if len(ids) != len(v) or len(ids) > 50 or any(not re.fullmatch(r"[A-Za-z0-9_:.-]{1,100}", i) for i in ids):
        raise ValueError("sender ids such as 123456789 or ou_abc123, at most 50")
    return ids


def clock_time(v: Any) -> str:
    v = text(16)(v).strip()  # " 08:30" as typed is 08:30: the length is the shape's to say
    if v and not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", v):
        raise ValueError("a time of day as HH:MM (24 h), e.g. 08:30, or empty for off")
    return v
