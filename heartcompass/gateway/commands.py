"""The slash commands of an app chat, and /tell with its Yes/No buttons.

Quick commands run in the receiving thread; those that call the model
(/retry, /tell) and the answer to a proposal go to the worker."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from heartcompass.errors import HeartCompassError, LLMError
from heartcompass.gateway import replies

if TYPE_CHECKING:
    from heartcompass.gateway.core import Gateway
    from heartcompass.gateway.jobs import Conversation

KEEP_PROPOSALS = 20  # unanswered proposals kept waiting for a button
DIFF_LIMIT = 3000  # characters of diff in one app message (Telegram takes 4096)


def run(gw: "Gateway", conv: "Conversation", text: str, image: bytes | None) -> None:
    from heartcompass.gateway.jobs import Job
    from heartcompass.store.people import resolve

    cmd, _, arg = text.partition(" ")
    cmd = cmd.split("@", 1)[0].lower()  # Telegram adds the bot's name in groups: /who@my_bot
    arg = arg.strip()
    say = lambda t: gw.send(conv.channel, conv.chat, t)  # noqa: E731
    if cmd in ("/help", "/start"):
        say(replies.HELP)
    elif cmd == "/list":
        say(replies.listing(_people(gw), gw.states[conv.channel].chats.get(conv.chat)))
    elif cmd == "/who":
        slug = gw.states[conv.channel].chats.get(conv.chat)
        say(replies.who(_name_of(gw, slug), slug) if slug else replies.NOBODY)
    elif cmd == "/switch":
        if not arg:
            raise HeartCompassError("/switch needs a name, e.g. /switch alice.")
        person = resolve(gw.ws, arg)
        gw.flush_burst(conv)  # what was gathered is answered by the person it was sent to
        if conv.session is not None:
            gw._queue(Job("commit", conv, conv.session))
        gw.open(conv, person)
        say(replies.who(_name_of(gw, person.slug), person.slug))
    elif cmd in ("/yes", "/no"):
        gw._queue(Job("answer", conv, arg=f"{gw.proposals.latest(conv.chat) or '-'}:{cmd[1:]}"))
    else:
        session = gw.session(conv) if cmd in ("/new", "/retry", "/note", "/quote", "/tell") else None
        if cmd in ("/new", "/retry", "/note", "/quote", "/tell") and session is None:
            return
        if cmd == "/new":
            gw.flush_burst(conv)
            session.new_topic()
            say("Fresh start: recent turns are forgotten; memory stays.")
        elif cmd == "/retry":
            gw.flush_burst(conv)
            gw._queue(Job("retry", conv, session))
        elif cmd == "/note":
            session.note(arg)
            say("Noted: it goes into memory at the next garden.")
        elif cmd == "/quote":
            from heartcompass.memory.voice import quote_and_commit

            if not arg:
                raise HeartCompassError("/quote needs their words, e.g. /quote see you there!")
            say("Kept in VOICE.md: an example of how they write." if quote_and_commit(gw.ws, session.person, arg)
                else "Already kept.")
        elif cmd == "/tell":
            if not arg and image is None:
                raise HeartCompassError("/tell needs what happened, e.g. /tell She moved to Berlin.")
            gw.flush_burst(conv)
            gw._queue(Job("tell", conv, session, arg=(session.person, arg, image)))
        else:
            say(f"Unknown command {cmd[:40]}. /help lists them.")


def _people(gw: "Gateway") -> list[tuple[str, str, str]]:
    from heartcompass.store.people import list_people, summarize

    user = gw.ws.config.get("user.name")
    return [(s.slug, s.name, s.relation) for s in (summarize(p, user) for p in list_people(gw.ws))]


def _name_of(gw: "Gateway", slug: str) -> str:
    return next((name for s, name, _ in _people(gw) if s == slug), slug)


@dataclass
class Pending:
    chat: str
    plan: Any
    note: Any


class Proposals:
    """Proposals waiting for Yes or No, by key (in memory: after a restart
    the buttons answer that it expired; the note stays for the gardener)."""

    def __init__(self):
        self._mu = threading.Lock()
        self._next = itertools.count(1)
        self.waiting: dict[str, Pending] = {}

    def add(self, chat: str, plan: Any, note: Any) -> str:
        with self._mu:
            key = f"t{next(self._next)}"
            self.waiting[key] = Pending(chat, plan, note)
            while len(self.waiting) > KEEP_PROPOSALS:  # never answered: the note stays in the log anyway
                self.waiting.pop(next(iter(self.waiting)))
            return key

    def take(self, key: str) -> Pending | None:
        with self._mu:
            return self.waiting.pop(key, None)

    def latest(self, chat: str) -> str | None:
        with self._mu:
            return next((k for k, p in reversed(self.waiting.items()) if p.chat == chat), None)


def tell(gw: "Gateway", conv: "Conversation", person: Any, narrative: str, image: bytes | None) -> None:
    """Like `heartcompass tell`: the narrative is logged as a note first,
    then the model's proposal is shown as a diff with Yes/No; nothing is
    written to the person's files until Yes."""
    from heartcompass.intake import tell as tell_mod
    from heartcompass.store import clock

    say = lambda t: gw.send(conv.channel, conv.chat, t)  # noqa: E731
    images = [_image_url(gw, image)] if image is not None else []
    now = clock.now(gw.ws)
    note = tell_mod.log_note(person, narrative, now)
    try:
        plan = tell_mod.plan(gw.ws, gw.model(), person, narrative, now, images)
    except HeartCompassError as exc:
        _keep(gw, tell_mod, note, "no proposal (model error)")
        say(replies.model_down(exc) if isinstance(exc, LLMError) else replies.error(exc))
        return
    if not plan.has_changes:
        _keep(gw, tell_mod, note, "nothing to change")
        say("Nothing to change in the files; what you told stays in the log as a note for the next garden.")
        return
    diff = "\n".join(d for p in plan.plans for d in p.diffs.values())
    if len(diff) > DIFF_LIMIT:
        diff = diff[:DIFF_LIMIT] + "\n… (more; `heartcompass log` shows all once written)"
    key = gw.proposals.add(conv.chat, plan, note)
    gw.channels[conv.channel].ask(conv.chat, f"{diff}\n\nWrite these changes?", [("Yes", f"{key}:yes"),
                                                                                  ("No", f"{key}:no")])


def answer(gw: "Gateway", conv: "Conversation", data: str) -> None:
    from heartcompass.intake import tell as tell_mod
    from heartcompass.store import audit, clock

    key, _, choice = data.partition(":")
    pending = gw.proposals.take(key)
    say = lambda t: gw.send(conv.channel, conv.chat, t)  # noqa: E731
    if pending is None or pending.chat != conv.chat:
        say(replies.NO_PROPOSAL)
        return
    if choice != "yes":
        _keep(gw, tell_mod, pending.note, "proposal declined")
        say("Not applied. What you told is kept in the log as a note for the gardener.")
        return
    try:
        with audit.writing(gw.ws, "serve"):
            sha = tell_mod.apply_plan(gw.ws, pending.plan, pending.note, clock.now(gw.ws))
    except HeartCompassError as exc:
        _keep(gw, tell_mod, pending.note, "not applied")
        say(f"Not written: {replies.error(exc)} What you told is kept in the log as a note.")
        return
    say(f"Written and committed ({sha[:8] if sha else '-'}).")


def _keep(gw: "Gateway", tell_mod: Any, note: Any, why: str) -> None:
    """Commit the note if git lets us; if not, it is on disk and the next commit takes it."""
    from heartcompass.store import audit

    try:
        with audit.writing(gw.ws, "serve"):
            tell_mod.keep_note(gw.ws, note, why)
    except HeartCompassError as exc:
        gw.report(f"tell: the note is not committed yet: {exc.message}")


def _image_url(gw: "Gateway", image: bytes) -> str:
    """A photo from the app, checked like a screenshot given to `tell --image`."""
    from heartcompass.atomic import write_atomic
    from heartcompass.intake.tell import image_url

    scratch = gw.ws.state_dir / "serve" / "photo"
    write_atomic(scratch, image)
    try:
        return image_url(scratch)
    finally:
        scratch.unlink(missing_ok=True)
