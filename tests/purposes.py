"""What each request to the fake model was for, so that a test asks for
"the gardener's correction" or "chat's second reply", never "the last call"
(which silently becomes another request when the code asks once more).

A request is recognised by the shipped prompt file it was built from (the
longest literal run of the file, placeholders aside, is in the request), else
by the title of the structured-output schema it asked for. The gardener and
`tell` send the same prompt and schema: which of the two asked is read off
the caller (heartcompass/intake/tell.py on the stack is a tell).

Purposes: garden, tell (each with .retry after an unreadable or rejected
answer and .correction for the refused lines), compress, mentions (tell's
new people), chat (persona or reflection), coach (.retry), judge, answer
(LoCoMo's question turn), doctor (its ping); unknown for anything else.

The HTTP fakes (tests/stub_server.py, the fake Ark client) keep the JSON
bodies a client sent; request_of reads them the same way. A body carries no
caller: there a tell's request reads as garden's."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"

# The prompt file a request was built from, and the purpose it names; the first found wins,
# so the question turn and the judge (user messages) come before the system prompts.
BY_PROMPT = (("locomo/judge.md", "judge"), ("locomo/answer.md", "answer"), ("garden_compress.md", "compress"),
             ("garden.md", "garden"), ("coach.md", "coach"), ("persona.md", "chat"), ("reflection.md", "chat"),
             ("locomo/full_context.md", "answer"))
BY_SCHEMA = {"Proposal": "garden", "Compressed": "compress", "Advice": "coach", "Mentions": "mentions"}

# What the second message after a garden or tell request says (memory/proposal/propose.py).
CORRECTION = "Your proposal on these entries was applied except"
RETRIES = ("That output could not be read", "That proposal was rejected", "That answer was cut off",
           "That answer was not usable")


@lru_cache(maxsize=None)
def fingerprint(filename: str) -> str:
    """The longest run of the shipped prompt's text that no placeholder breaks."""
    text = (PROMPTS / filename).read_text(encoding="utf-8").strip()
    runs = [run.strip() for run in re.split(r"\$\{?\w+\}?", text)]
    return max(runs, key=len)


def text_of(message: Any) -> str:
    content = message.content
    if isinstance(content, list):  # text and images (a proposal on screenshots)
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


@dataclass
class Request:
    """One call to the fake model: its messages, the schema it asked for
    (None for plain text), and what it was for."""

    purpose: str
    messages: list
    schema: Any = None

    @property
    def system(self) -> str:
        """The system prompt ('' when the request has none)."""
        first = self.messages[0] if self.messages else None
        return text_of(first) if first is not None and first.type == "system" else ""

    @property
    def prompt(self) -> str:
        """The request's last message: the entries shown to the gardener, the user's newest turn..."""
        return text_of(self.messages[-1])

    @property
    def turns(self) -> list[str]:
        """Every message after the system prompt, in order."""
        return [text_of(m) for m in self.messages if m.type != "system"]

    @property
    def text(self) -> str:
        return "\n".join(text_of(m) for m in self.messages)


def purpose_of(messages: list, schema: Any = None) -> str:
    texts = [text_of(m) for m in messages]
    purpose = next((p for name, p in BY_PROMPT if any(fingerprint(name) in t for t in texts)), None)
    if purpose is None and isinstance(schema, dict):
        purpose = BY_SCHEMA.get(schema.get("title", ""))
    if purpose is None and isinstance(schema, type):
        purpose = BY_SCHEMA.get(schema.__name__)
    if purpose is None:
        purpose = "doctor" if texts and "single word: pong" in texts[-1] else "unknown"
    if purpose == "garden" and _called_from("heartcompass.intake.tell"):
        purpose = "tell"
    if purpose in ("garden", "tell", "coach") and len(messages) > 2 and messages[-1].type == "human":
        last = texts[-1]
        if last.startswith(CORRECTION):
            purpose += ".correction"
        elif last.startswith(RETRIES):
            purpose += ".retry"
    return purpose


def _called_from(module: str) -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == module:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class Sent:
    """A message as an HTTP client sent it ({"role": ..., "content": ...}), read like LangChain's."""

    TYPES = {"system": "system", "user": "human", "assistant": "ai", "tool": "tool"}

    def __init__(self, message: dict) -> None:
        self.content = message.get("content") or ""
        self.type = self.TYPES.get(message.get("role", ""), message.get("role", ""))


def structured_mode(body: dict) -> tuple[str | None, str]:
    """Which way a request body asked for structured output, and the schema's name."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return "json_schema", fmt["json_schema"].get("name", "")
    if fmt.get("type") == "json_object":
        return "json_object", (fmt.get("schema") or {}).get("title", "")
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return "tool_call", body["tool_choice"]["function"]["name"]
    return None, ""


def purpose_of_body(body: dict) -> str:
    """What a request an HTTP fake received was for (purpose_of, from its JSON)."""
    title = structured_mode(body)[1]
    return purpose_of([Sent(m) for m in body.get("messages", [])], {"title": title} if title else None)


def pick(found: list, purposes: list[str], purpose: str, nth: int | None) -> Any:
    """The one request found for this purpose (nth=None: there must be exactly
    one), or the nth of them (0 the first, -1 the latest)."""
    if nth is None:
        assert len(found) == 1, f"expected one {purpose!r} request, got {len(found)}: {purposes}"
        return found[0]
    assert -len(found) <= nth < len(found), f"no {purpose!r} request #{nth}: {purposes}"
    return found[nth]


def request_of(bodies: list[dict], purpose: str, nth: int | None = None) -> dict:
    """The JSON body an HTTP fake received for this purpose, as Recorder.request picks it."""
    purposes = [purpose_of_body(b) for b in bodies]
    return pick([b for b, p in zip(bodies, purposes) if p == purpose], purposes, purpose, nth)


class Recorder:
    """The requests a fake model received, asked for by purpose."""

    def __init__(self) -> None:
        self._requests: list[Request] = []

    def record(self, messages: list, schema: Any = None) -> Request:
        request = Request(purpose_of(messages, schema), list(messages), schema)
        self._requests.append(request)
        return request

    @property
    def purposes(self) -> list[str]:
        """What each request was for, in the order they came."""
        return [r.purpose for r in self._requests]

    def requests(self, purpose: str) -> list[Request]:
        """Every request made for this purpose, in order."""
        return [r for r in self._requests if r.purpose == purpose]

    def request(self, purpose: str, nth: int | None = None) -> Request:
        """The one request made for this purpose (nth=None: there must be
        exactly one), or the nth of them (0 the first, -1 the latest)."""
        return pick(self.requests(purpose), self.purposes, purpose, nth)

    def sent(self) -> str:
        """Everything sent to the model, all requests together (for "never sent" checks)."""
        return "\n".join(r.text for r in self._requests)
