"""The reply coach: advice for answering the real person, grounded in their
files. Core only: the CLI renders it. Advice is structured output, validated;
a bad answer gets one corrected try, then a clear error."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, Field

from heartcompass.memory import context as context_mod
from heartcompass.store import clock
from heartcompass.errors import LLMError
from heartcompass.formats import dailylog
from heartcompass.llm.providers import BAD_OUTPUT_FIX, ask_structured, bad_output
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace
from heartcompass.wording import counted


class Candidate(BaseModel):
    reply: str = Field(description="the message the user could send")
    tone: str = Field(description="e.g. warm, playful, direct, reassuring")
    why: str = Field(description="why it fits this person now")


class Advice(BaseModel):
    reading: str = Field(description="what they most likely mean or feel")
    candidates: list[Candidate] = Field(description="2 to 4 reply candidates")
    risks: list[str] = Field(description="boundaries touched, misreadings, what could go wrong")
    suggestions: list[str] = Field(description="one or two pieces of advice")


ADVICE_MAX_TOKENS = 1024


def advice_schema() -> dict:
    """Advice's JSON schema with its sizes in it, so a grammar-constrained
    model gives 2 to 4 candidates and one or two suggestions."""
    from heartcompass.llm.structured import inline_schema

    spec = inline_schema(Advice)
    props = spec["properties"]
    props["reading"].update(minLength=1, maxLength=500)
    props["candidates"].update(minItems=2, maxItems=4)
    for name, most in (("reply", 500), ("tone", 40), ("why", 300)):
        props["candidates"]["items"]["properties"][name].update(minLength=1, maxLength=most)
    props["risks"].update(maxItems=4, items={"type": "string", "minLength": 1, "maxLength": 300})
    props["suggestions"].update(minItems=1, maxItems=2, items={"type": "string", "minLength": 1, "maxLength": 300})
    return spec


def problems(advice: Advice) -> list[str]:
    out = []
    if not 2 <= len(advice.candidates) <= 4:
        out.append(f"give 2 to 4 candidates, not {len(advice.candidates)}")
    if not advice.reading.strip():
        out.append("the reading is empty")
    for n, c in enumerate(advice.candidates, 1):
        if not (c.reply.strip() and c.tone.strip() and c.why.strip()):
            out.append(f"candidate {n} needs a reply, a tone and a why")
    if not 1 <= len([s for s in advice.suggestions if s.strip()]) <= 2:
        out.append("give one or two suggestions")
    return out


@dataclass
class CoachSession:
    """One coaching conversation; --follow keeps adding to it."""
    ws: Workspace
    person: Person
    model: Any                     # a chat model; None: make_model() before the first request
    now: dt.datetime
    turns: list[tuple[str, str]] = field(default_factory=list)   # (role, text) after the system prompt
    exchange: list[tuple[str, str]] = field(default_factory=list)  # (who, text) for saving to the log

    built: context_mod.Context | None = field(default=None, repr=False)  # this turn's context
    make_model: Callable[[], Any] | None = field(default=None, repr=False)
    last: Advice | None = field(default=None, repr=False)                # the advice shown last

    def context(self, about: str | None = None) -> context_mod.Context:
        """about: their message: what it names is chosen first from the files."""
        self.built = context_mod.build(self.ws, self.person, self.now, rules="coach.md", voice="about",
                                       about=about)
        return self.built

    @property
    def name(self) -> str:
        return (self.built or self.context()).name

    def advise(self, their_message: str, my_reply: str | None = None) -> Advice:
        """Advice on their (new) message; my_reply is what the user actually
        sent after the previous advice, so the advice follows the conversation.
        The context is built once per turn, from the files as they are now."""
        ctx = self.context(their_message)
        system, name = ctx.system, ctx.name
        if my_reply:
            self.exchange.append(("me", my_reply))
        self.exchange.append(("them", their_message))
        text = (f"I replied: {my_reply}\n\n" if my_reply else "") + f"{name} wrote:\n{their_message}"
        self.turns.append(("user", text))
        advice = self.last = self._ask(system)
        self.turns.append(("assistant", advice.model_dump_json()))
        return advice

    def chosen(self, typed: str) -> str:
        """What the user replied: a shown candidate's number ("2") stands for
        that candidate's text; anything else is their own words."""
        typed = typed.strip()
        if self.last and typed.isdigit() and 1 <= int(typed) <= len(self.last.candidates):
            return self.last.candidates[int(typed) - 1].reply.strip()
        return typed

    def _ask(self, system: str) -> Advice:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        kinds = {"user": HumanMessage, "assistant": AIMessage}
        messages = [SystemMessage(content=system),
                    *[kinds[r](content=t) for r, t in self.turns]]
        last = ""
        for _ in range(2):
            if self.model is None:  # the provider is imported only now, once the files have been read
                self.model = self.make_model()
            raw = ask_structured(self.model, Advice, messages, ws=self.ws, spec=advice_schema(),
                                 max_tokens=ADVICE_MAX_TOKENS)
            if isinstance(raw, Exception):
                last = bad_output(raw)
            else:
                advice = raw if isinstance(raw, Advice) else Advice.model_validate(raw)
                issues = problems(advice)
                if not issues:
                    return advice
                last = "; ".join(issues)
            messages = [*messages, HumanMessage(content=f"That answer was not usable: {last}. Answer again.")]
        raise LLMError(f"The model's coaching advice was unusable twice ({last}).", BAD_OUTPUT_FIX)

    def save(self) -> int:
        """Append the exchange to today's log as trusted notes, for the gardener."""
        name = self.name
        day = self.now.date()
        path = dailylog.log_path(self.person.dir, day)
        for who, text in self.exchange:
            line = f"{name} wrote to me: {text}" if who == "them" else f"I replied to {name}: {text}"
            dailylog.append(path, dailylog.Entry(clock.now(self.ws).strftime("%H:%M:%S"), "note",
                                                 line, [dailylog.COACH_TAG]), day)
        return len(self.exchange)

    def save_and_commit(self) -> int:
        """save(), then one commit of the day's log. A commit that cannot be
        made now loses nothing: the log has the exchange, the next command commits it."""
        from heartcompass.store import audit
        from heartcompass.errors import GitError
        from heartcompass.store.lock import LockBusy

        count = self.save()
        paths = list(self.person.logs_dir.glob(f"{self.now.date().isoformat()}.md"))
        try:
            with audit.writing(self.ws, "coach"):
                audit.commit_or_roll_back(self.ws, [], audit.subject(audit.Verb.COACH, self.person.slug,
                                                                     f"{counted(count, 'message')} of a real conversation"),
                                          keep=paths)
        except (GitError, LockBusy) as exc:
            raise type(exc)(exc.message, f"The exchange is saved in people/{self.person.slug}/logs/; the next "
                                         "HeartCompass command that can commit will commit it.") from None
        return count

