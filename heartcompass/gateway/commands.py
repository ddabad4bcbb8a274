"""The slash commands of an app chat, and /tell with its Yes/No buttons.

Quick commands run in the receiving thread; those that call the model
(/retry, /tell) and the answer to an offer or a question go to the worker."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heartcompass.errors import AmbiguousPerson, HeartCompassError, LLMError
from heartcompass.gateway import replies

if TYPE_CHECKING:
    from heartcompass.gateway.core import Gateway
    from heartcompass.gateway.jobs import Conversation

REVIEW_AT_ONCE = 5  # questions sent by one /review (each a message with its buttons)
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
        try:
            person = resolve(gw.ws, arg)
        except AmbiguousPerson as exc:  # nothing switched: which one, as buttons
            _which(gw, conv, exc)
            return
        gw.flush_burst(conv)  # what was gathered is answered by the person it was sent to
        if conv.session is not None:
            gw.enqueue(Job("commit", conv, conv.session))
        gw.open(conv, person)
        say(replies.who(_name_of(gw, person.slug), person.slug))
    elif cmd == "/review":  # on the worker: it may wait for the lock to drop expired questions
        gw.enqueue(Job("review", conv))
    elif cmd in ("/yes", "/no"):  # the text answer (Feishu without card buttons): the newest offer, or /yes t3
        gw.enqueue(Job("answer", conv, arg=f"{arg or gw.offers.latest(conv.chat) or '-'}:{cmd[1:]}"))
    else:
        session = gw.session(conv) if cmd in ("/new", "/retry", "/note", "/quote", "/tell") else None
        if session is None:
            if cmd not in ("/new", "/retry", "/note", "/quote", "/tell"):
                say(f"Unknown command {cmd[:40]}. /help lists them.")
            return
        if cmd == "/new":
            gw.flush_burst(conv)
            session.new_topic()
            say("Fresh start: recent turns are forgotten; memory stays.")
        elif cmd == "/retry":
            gw.flush_burst(conv)
            gw.enqueue(Job("retry", conv, session))
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
            gw.enqueue(Job("tell", conv, session, arg=(session.person, arg, image)))


def _people(gw: "Gateway") -> list[tuple[str, str, str]]:
    from heartcompass.store.people import list_people, summarize

    user = gw.ws.config.get("user.name")
    return [(s.slug, s.name, s.relation) for s in (summarize(p, user) for p in list_people(gw.ws))]


def _name_of(gw: "Gateway", slug: str) -> str:
    return next((name for s, name, _ in _people(gw) if s == slug), slug)


def tell(gw: "Gateway", conv: "Conversation", person: Any, narrative: str, image: bytes | None) -> None:
    """Like `heartcompass tell`: the narrative is logged as a note first,
    then the model's proposal is shown as a diff with Yes/No; nothing is
    written to the person's files until Yes. People it names who are not in
    the workspace are offered too, each with its own Yes/No."""
    from heartcompass.gateway.tell_offers import tell_record
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
    refused = "".join(f"\nRefused, not written: {line}" for line in plan.refused_lines())
    if not plan.has_changes:
        _keep(gw, tell_mod, note, "nothing to change")
        say("Nothing to change in the files; what you told stays in the log as a note for the next garden."
            + refused)
    else:
        diff = "\n".join(d for p in plan.plans for d in p.diffs.values())
        if len(diff) > DIFF_LIMIT:
            diff = diff[:DIFF_LIMIT] + "\n… (more; `heartcompass log` shows all once written)"
        diff += refused
        key = gw.offers.add(conv.chat, tell_record(gw.ws, plan, note))
        _ask(gw, conv, f"{diff}\n\nWrite these changes?", key)
    for new in plan.unknown:
        key = gw.offers.add(conv.chat, {"kind": "person", "name": new.name, "relation": new.relation,
                                           "about": new.about})
        _ask(gw, conv, replies.offer_person(new.name, new.relation, new.about), key)


SWITCH_BUTTON = "switch:"  # a button's data: switch to the slug after it
BUTTON_DATA_LIMIT = 64  # bytes of a Telegram button's data


def _which(gw: "Gateway", conv: "Conversation", exc: AmbiguousPerson) -> None:
    """The candidates of an ambiguous /switch: a button each where the app
    takes them, and always the slug to type (/switch SLUG) in the text."""
    text = f"{exc.name!r} could be several people: which one?\n" + "\n".join(
        f"{name}: /switch {slug}" for slug, name in exc.candidates)
    buttons = [(name, SWITCH_BUTTON + slug) for slug, name in exc.candidates]
    if all(len(data.encode()) <= BUTTON_DATA_LIMIT for _, data in buttons):
        try:
            gw.channels[conv.channel].ask(conv.chat, text, buttons)
            return
        except Exception as problem:  # the app took no buttons: the list with the slugs still answers
            gw.report(f"{conv.channel}: could not ask: {type(problem).__name__}: {problem}")
    gw.send(conv.channel, conv.chat, text)


def _ask(gw: "Gateway", conv: "Conversation", text: str, key: str) -> None:
    try:
        gw.channels[conv.channel].ask(conv.chat, text, [("Yes", f"{key}:yes"), ("No", f"{key}:no")])
    except Exception as exc:  # the app is unreachable: the offer or question waits; /yes or /no still answers it
        gw.report(f"{conv.channel}: could not ask: {type(exc).__name__}: {exc}")


def review(gw: "Gateway", conv: "Conversation") -> None:
    """`heartcompass review` on the phone: each waiting question with Yes/No
    buttons (a few at a time); those just expired are said once."""
    from heartcompass.memory.review import waiting
    from heartcompass.store import clock

    found = waiting(gw.ws, clock.today(gw.ws), "serve")
    if found.expired:
        gw.send(conv.channel, conv.chat, replies.expired(found.expired, gw.ws.config.get("review.expire_days")))
    if not found.questions:
        gw.send(conv.channel, conv.chat, "No questions wait for your answer.")
    for q in found.questions[:REVIEW_AT_ONCE]:
        _ask(gw, conv, replies.question(q), q.id)
    if len(found.questions) > REVIEW_AT_ONCE:
        gw.send(conv.channel, conv.chat, f"{len(found.questions) - REVIEW_AT_ONCE} more wait: /review again "
                "once these are answered.")


def answer(gw: "Gateway", conv: "Conversation", data: str) -> None:
    # KEY:CHOICE, and a typed answer is "/yes ARG" with ARG:yes: the key is before the first colon, the choice
    # after the last, so "/yes t1:yes" (the button's data typed) or "/yes t1:" is a Yes, never a No.
    key, choice = data.partition(":")[0], data.rpartition(":")[2]
    if re.fullmatch(r"q\d+", key):  # one of the gardener's questions: as `review yes/no ID`
        _answer_question(gw, conv, key, choice == "yes")
        return
    record = gw.offers.take(key, conv.chat)
    if record is None:
        gw.send(conv.channel, conv.chat, replies.NO_OFFER)
    elif record.get("kind") == "person":
        _answer_person(gw, conv, record, choice == "yes")
    else:
        _answer_tell(gw, conv, record, choice == "yes")


def _answer_tell(gw: "Gateway", conv: "Conversation", record: dict, yes: bool) -> None:
    from heartcompass.gateway.tell_offers import tell_note, tell_plan
    from heartcompass.intake import tell as tell_mod
    from heartcompass.store import clock

    say = lambda t: gw.send(conv.channel, conv.chat, t)  # noqa: E731
    try:
        note = tell_note(gw.ws, record)
    except (KeyError, TypeError, ValueError) as exc:  # a hand-edited or foreign tell_offers.json
        gw.report(f"{conv.channel}: a kept proposal does not read back: {type(exc).__name__}: {exc}")
        say("Not written: that proposal could not be read back. What you told is in the log as a note.")
        return
    if not yes:
        _keep(gw, tell_mod, note, "proposal declined")
        say("Not applied. What you told is kept in the log as a note for the gardener.")
        return
    try:
        plan = tell_plan(gw.ws, record, note)  # files changed meanwhile: refused, nothing written
        sha = tell_mod.apply_plan(gw.ws, plan, note, clock.now(gw.ws), purpose="serve")
    except HeartCompassError as exc:
        _keep(gw, tell_mod, note, "not applied")
        say(f"Not written: {replies.error(exc)} What you told is kept in the log as a note.")
        return
    except (KeyError, TypeError, ValueError) as exc:
        gw.report(f"{conv.channel}: a kept proposal does not read back: {type(exc).__name__}: {exc}")
        say("Not written: that proposal could not be read back. What you told is in the log as a note.")
        return
    say(f"Written and committed ({sha[:8] if sha else '-'}).")


def _answer_question(gw: "Gateway", conv: "Conversation", ident: str, yes: bool) -> None:
    from heartcompass.errors import ReviewError
    from heartcompass.memory.review import refuse
    from heartcompass.memory.review_apply import accept
    from heartcompass.store import clock

    say = lambda t: gw.send(conv.channel, conv.chat, t)  # noqa: E731
    try:
        if not yes:
            q = refuse(gw.ws, ident, "serve")
            say(f"Not applied: {q.person}: {q.what}. Not asked again on this evidence.")
            return
        done = accept(gw.ws, ident, clock.now(gw.ws), purpose="serve")
    except ReviewError as exc:  # answered (here or on the terminal) or expired: the button is old
        say(f"{exc.message} /review lists the questions that wait.")
        return
    except HeartCompassError as exc:
        say(f"Not applied: {replies.error(exc)}")
        return
    say(f"Applied and committed ({done.sha[:8] if done.sha else '-'}): {done.message}" if done.applied
        else done.message)


def _answer_person(gw: "Gateway", conv: "Conversation", record: dict, yes: bool) -> None:
    from heartcompass.formats.profile import RELATIONS
    from heartcompass.store import lifecycle

    name = str(record.get("name", ""))
    if not yes:
        gw.send(conv.channel, conv.chat, f"Not added: {name}.")
        return
    relation = str(record.get("relation", ""))
    try:
        added = lifecycle.add_person(gw.ws, name, relation if relation in RELATIONS and relation != "self"
                                     else "friend", about=str(record.get("about", "")))
    except HeartCompassError as exc:
        gw.send(conv.channel, conv.chat, f"Not added: {replies.error(exc)}")
        return
    gw.send(conv.channel, conv.chat, f"Added {name} in people/{added.slug}/. /switch {added.slug} talks to them.")


def _keep(gw: "Gateway", tell_mod: Any, note: Any, why: str) -> None:
    """Commit the note if git lets us; if not, it is on disk and the next commit takes it."""
    try:
        tell_mod.keep_note(gw.ws, note, why, purpose="serve")
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
