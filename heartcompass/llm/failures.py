"""What went wrong with a model call, in words, and asking again: a part of
llm/providers.py (which re-exports every name here), split off along its
seam. The endpoint that never took the connection is told apart from a slow
one (a timeout names llm.timeout), and an answer that is not the JSON asked
for is said so, without the parser's internals."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

from heartcompass.errors import LLMError

if TYPE_CHECKING:
    from heartcompass.llm.settings import LLMSettings


class TruncatedOutput(ValueError):
    """The answer hit its max_tokens bound before it was complete."""


CONNECT_TIMEOUT = 10.0
_RETRYABLE_NAMES = ("Timeout", "ConnectionError", "APIConnectionError", "RateLimit", "InternalServerError",
                    "ServiceUnavailable", "RemoteProtocolError", "ReadError")
_NO_CONNECTION_NAMES = ("ConnectError", "ConnectTimeout")  # httpx's: the request never reached the server


def never_connected(exc: BaseException) -> bool:
    """The endpoint did not take the connection (refused, unreachable, no
    such host): asking again at once finds it the same, and each try of an
    unreachable host would wait the whole connect timeout again."""
    import socket

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (ConnectionRefusedError, socket.gaierror)) or type(exc).__name__ in _NO_CONNECTION_NAMES:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _root_cause(exc: BaseException) -> str:
    """The innermost error's words ("[Errno 111] Connection refused")."""
    while (exc.__cause__ or exc.__context__) is not None and (exc.__cause__ or exc.__context__) is not exc:
        exc = exc.__cause__ or exc.__context__
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def timed_out(exc: BaseException) -> bool:
    """The endpoint took the request and did not answer in time (httpx's
    ReadTimeout, openai's APITimeoutError): slow, not absent."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def bad_output(exc: BaseException) -> str:
    """An answer that could not be read, in words (no parser internals or web addresses)."""
    if isinstance(exc, TruncatedOutput):
        return str(exc)
    if type(exc).__name__ == "ValidationError":  # pydantic: valid JSON in the wrong shape
        return "the model's answer was JSON, but not in the shape asked for"
    return "the model's answer was not the JSON asked for"


BAD_OUTPUT_FIX = ("Try again; if it keeps happening, use a model that follows JSON instructions better "
                  "(llm.model, or --model).")


def is_retryable(exc: BaseException) -> bool:
    if never_connected(exc):
        return False
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status == 429 or status >= 500
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(n in type(exc).__name__ for n in _RETRYABLE_NAMES)


def describe_error(exc: BaseException, s: LLMSettings | None = None) -> str:
    """What went wrong, in words for any command; each command adds its own
    way to try again (chat: /retry)."""
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
        return f"The model endpoint is rate limiting requests{target}; wait a moment and try again."
    if isinstance(status, int) and status >= 500:
        return f"The model endpoint had a server error ({status}){target}; try again later."
    if never_connected(exc):
        return f"Could not connect to the model endpoint{target}: {_root_cause(exc)}. Is it running?"
    if timed_out(exc):
        wait = f"llm.timeout, {s.timeout:g} s" if s else "llm.timeout"
        return (f"The model endpoint timed out{target}: no answer within {wait}. A slow (local) model needs "
                "a longer wait: heartcompass config set llm.timeout 300")
    if is_retryable(exc):
        return f"Could not reach the model endpoint{target}: {type(exc).__name__}. Is it running?"
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
