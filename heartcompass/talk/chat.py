"""A chat session with one persona: the core, with no terminal code.

The day's log is the source of truth: each message is appended as it
happens (the user's before the model is called, each persona message as it
completes, a reply cut off by an error marked as such), and the short-term
history sent to the model is read back from the log. So a crash loses
nothing and /retry simply asks again."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from heartcompass.memory import context as context_mod
from heartcompass.memory.history import tag_of
from heartcompass.store import clock
from heartcompass.errors import HeartCompassError, LLMError, WriteError
from heartcompass.formats import dailylog
from heartcompass.llm.providers import LLMSettings, retrying
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace

SEPARATOR = context_mod.SEPARATOR


@dataclass
class Event:
    kind: str   # "delta" (streamed text), "message" (one finished message), "reasoning"
    text: str


class Splitter:
    """Cuts a streamed reply into messages at SEPARATOR, holding back only
    the few characters that might be the start of a separator."""

    def __init__(self, sep: str = SEPARATOR):
        self.sep = sep
        self.pending = ""
        self.current = ""

    def feed(self, text: str) -> Iterator[Event]:
        self.pending += text
        while self.sep in self.pending:
            before, self.pending = self.pending.split(self.sep, 1)
            yield from self._emit(before.rstrip())
            yield from self._finish()
        hold = next((n for n in range(len(self.sep) - 1, 0, -1) if self.pending.endswith(self.sep[:n])), 0)
        ready = self.pending[: len(self.pending) - hold]
        ready = ready.rstrip()  # trailing whitespace waits: it may end the message
        self.pending = self.pending[len(ready):]
        yield from self._emit(ready)

    def close(self) -> Iterator[Event]:
        yield from self._emit(self.pending.rstrip())
        self.pending = ""
        yield from self._finish()

    def partial(self) -> str:
        return (self.current + self.pending).strip()

    def _emit(self, text: str) -> Iterator[Event]:
        if not self.current.strip():
            text = text.lstrip()
        if text:
            self.current += text
            yield Event("delta", text)

    def _finish(self) -> Iterator[Event]:
        message = self.current.strip()
        self.current = ""
        if message:
            yield Event("message", message)


def _text_of(chunk: Any) -> str:
    content = getattr(chunk, "content", chunk)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


@dataclass
class ChatSession:
    ws: Workspace
    person: Person
    model: Any                                   # a LangChain chat model; None: make_model() when first needed
    settings: LLMSettings | None = None
    time_source: Callable[[], dt.datetime] | None = None  # for replays; default: the user's clock
    rev: str | None = None                       # time travel: files as of this commit
    tag: str | None = None                       # "as-of ..." on every log entry
    sleep: Callable[[float], None] | None = None  # backoff between retries
    fresh_after: int | None = None               # /new: today's log entries before this are forgotten
    make_model: Callable[[], Any] | None = None  # the provider is imported only when a reply is asked for
    logged: set = field(default_factory=set)
    count: int = 0

    def now(self) -> dt.datetime:
        return self.time_source() if self.time_source else clock.now(self.ws)

    def context(self) -> context_mod.Context:
        return context_mod.build(self.ws, self.person, self.now(), rev=self.rev, history_tag=self.tag,
                                 fresh_after=self.fresh_after)

    def log(self, speaker: str, text: str, tags: list[str] | None = None, at: dt.datetime | None = None) -> None:
        now = at or self.now()
        day = now.date()
        all_tags = [*(tags or []), *([self.tag] if self.tag else [])]
        path = dailylog.log_path(self.person.dir, day)
        try:
            dailylog.append(path, dailylog.Entry(now.strftime("%H:%M:%S"), speaker, text, all_tags), day)
        except WriteError as exc:
            if speaker == "persona":
                raise
            # The user typed it and it is nowhere on disk: give it back, to copy once there is room.
            exc.hint = f"{exc.hint or ''} Not saved, so here it is to copy: {text}".strip()
            raise
        self.logged.add(path)
        self.count += 1

    def send(self, text: str) -> Iterator[Event]:
        text = text.strip()
        if not text:
            return
        self.log("me", text)
        yield from self.reply()

    def hold(self, text: str, at: dt.datetime | None = None) -> None:
        """Burst mode: log the user's message now; reply() later answers the
        whole burst (the history joins consecutive messages into one turn).
        `at`: the time (and so the day log) the caller already looked at."""
        if text.strip():
            self.log("me", text.strip(), at=at)

    def log_file(self, at: dt.datetime) -> Path:
        """The day log a message at `at` goes to."""
        return dailylog.log_path(self.person.dir, at.date())

    def note(self, text: str) -> None:
        if not text.strip():
            raise HeartCompassError("/note needs the fact to remember, e.g. /note She moved to Berlin.")
        self.log("note", text.strip())

    def new_topic(self) -> None:
        """/new: the persona starts with a fresh short-term history."""
        path = dailylog.log_path(self.person.dir, self.now().date())
        self.fresh_after = len(dailylog.load(path)) if path.exists() else 0

    def retry(self) -> Iterator[Event]:
        """/retry: a new reply to the user's last message. Once its first
        message is complete, the replies it replaces (whole or cut off) are
        marked superseded in the log, so neither the next request nor the
        gardener sees them; the log itself stays append-only."""
        yield from self.reply(supersede=self._last_replies())

    def _last_replies(self) -> list[tuple[Path, dt.date, list[int]]]:
        """Persona entries after the user's last message: (log, day, positions)
        per log file, newest file first (a reply may cross midnight)."""
        today = self.now().date()
        found: list[tuple[Path, dt.date, list[int]]] = []
        dates = [d for d in dailylog.log_dates(self.person.dir) if d <= today.isoformat()][-2:]
        for day_s in reversed(dates):
            day = dt.date.fromisoformat(day_s)
            path = dailylog.log_path(self.person.dir, day)
            entries = dailylog.load(path)
            gone = dailylog.dropped(entries)
            start = (self.fresh_after or 0) if day == today else 0
            mine: list[int] = []
            for i in range(len(entries) - 1, start - 1, -1):
                e = entries[i]
                if i in gone or tag_of(e) != self.tag:
                    continue
                if e.speaker == "me":
                    if mine:
                        found.append((path, day, sorted(mine)))
                    return found
                if e.speaker == "persona":
                    mine.append(i)
            if mine:
                found.append((path, day, sorted(mine)))
            if self.fresh_after is not None:
                break
        return found

    def _supersede(self, stale: list[tuple[Path, dt.date, list[int]]]) -> None:
        now = self.now().strftime("%H:%M:%S")
        for path, day, positions in stale:
            dailylog.append(path, dailylog.marker(now, "supersedes", positions, "replaced by /retry"), day)
            self.logged.add(path)

    def reply(self, supersede: list[tuple[Path, dt.date, list[int]]] | None = None) -> Iterator[Event]:
        """Ask the model for a reply to the user's last message, as logged.
        The replies it already got are left out of the request; `supersede`
        (from retry) names them, to be marked once the new reply arrives."""
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        ctx = self.context()
        turns = list(ctx.history)
        while turns and turns[-1][0] != "user":
            turns.pop()
        if not turns:
            raise HeartCompassError("There is no message of yours to reply to yet.", "Type a message first.")
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        messages = [kinds[role](content=text) for role, text in [("system", ctx.system), *turns]]
        splitter = Splitter()
        retries = self.settings.max_retries if self.settings else 2
        if self.model is None:
            if self.make_model is None:  # the caller's mistake: say which, not "'NoneType' is not callable"
                raise TypeError("ChatSession needs a model or make_model")
            self.model = self.make_model()
        try:
            for chunk in retrying(lambda: self.model.stream(messages), retries, sleep=self.sleep or time.sleep,
                                  settings=self.settings):
                reasoning = (getattr(chunk, "additional_kwargs", None) or {}).get("reasoning_content")
                if reasoning:
                    yield Event("reasoning", reasoning)
                for event in splitter.feed(_text_of(chunk)):
                    if event.kind == "message":
                        if supersede:
                            self._supersede(supersede)
                            supersede = None
                        self.log("persona", event.text)
                    yield event
            for event in splitter.close():
                if supersede:
                    self._supersede(supersede)
                    supersede = None
                self.log("persona", event.text)
                yield event
        except (LLMError, KeyboardInterrupt, GeneratorExit):
            partial = splitter.partial()
            if partial:
                self.log("persona", partial, ["cut off"])
            raise
