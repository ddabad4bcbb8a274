"""What a serve killed mid-burst (kill -9, a power cut, a SIGKILL after a
slow SIGTERM) leaves to the next one: messages in the logs that were
neither committed nor answered. Each app chat with such a burst is in the
state's `unanswered` (chat -> person) from its first message until the
answer; the next serve commits those logs (as a crashed chat's, through
`commit_before`) and answers them, or says in the chat that it could not.

And the one message it was logging when killed (`hold`: the state says so
first): the app delivers it again, so `settle`, before any delivery, looks
for its line in that log after the size it had. There: marked handled, not
logged twice, and answered with its chat's burst. Not there: its redelivery
logs it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from heartcompass.errors import HeartCompassError
from heartcompass.formats import dailylog
from heartcompass.gateway import replies
from heartcompass.gateway.jobs import Conversation, Job
from heartcompass.gateway.state import ChannelState, Held, fingerprint

if TYPE_CHECKING:
    from heartcompass.gateway.core import Gateway
    from heartcompass.talk.chat import ChatSession


def hold(gw: Gateway, state: ChannelState, message_id: str, chat: str, session: ChatSession, text: str) -> None:
    """Log the owner's message, the state saying first that it is being held."""
    at = session.now()
    path = session.log_file(at)  # the one hold() appends to: `at` fixes the day
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        size = 0
    try:
        state.hold(Held(message_id, chat, session.person.slug, gw.ws.rel(path), size,
                        fingerprint(dailylog.as_logged(text))))
    except (HeartCompassError, OSError) as exc:  # logged all the same: a kill now may log it twice, never lose it
        gw.report(f"{session.person.slug}: state not saved before logging a message: {exc}")
    session.hold(text, at)


def settle(gw: Gateway) -> None:
    """Before any delivery: the message the last serve was logging when killed."""
    for name, state in gw.states.items():
        held = state.interrupted()
        if held is None:
            continue
        log = gw.ws.root / held.log
        if not _a_day_log_of(gw, held.slug, log):  # a state file edited or broken by hand: read nothing it names
            state.let_go()
            continue
        entries = dailylog.entries_after(log, held.size)
        mine = next((i for i, e in enumerate(entries)
                     if e.speaker == "me" and fingerprint(e.text) == held.fingerprint), None)
        if mine is None:
            state.let_go()  # never logged: its redelivery logs it
            continue
        if not any(e.speaker == "persona" for e in entries[mine + 1:]):  # else its burst was answered
            state.await_answer(held.chat, held.slug)
        state.mark_seen(held.id)
        gw.report(f"{name}: a message the last serve logged and did not mark handled is not logged twice")
        try:
            state.save()
        except (HeartCompassError, OSError) as exc:  # kept in memory: the next save writes it
            gw.report(f"{name}: state not saved: {exc}")


def _a_day_log_of(gw: Gateway, slug: str, log: Path) -> bool:
    """log is a day log in that person's own logs folder, inside the workspace: the slug one folder's name (not
    '', '.', '..' or a path; '/' is the only separator where serve runs, its locks being fcntl's), the log right
    in its logs/ (paths compared as written: a '..' in the log's path never matches)."""
    if slug in ("", ".", "..") or "/" in slug:
        return False
    return log.parent == gw.ws.people_dir / slug / "logs" and log.suffix == ".md"


def recover(gw: Gateway) -> None:
    """At the start of serve: commit and queue an answer for each burst the last serve left."""
    from heartcompass.store.people import resolve

    for name, state in gw.states.items():
        if name not in gw.channels:
            continue
        for chat, slug in state.unanswered_chats():
            conv = gw.conversation(name, chat)
            if gw.burst_pending(conv):  # a message came first (channels start before the worker): its answer covers all
                continue
            try:
                gw.open(conv, resolve(gw.ws, slug))  # commits what was logged, as a crashed chat's
            except HeartCompassError as exc:
                gw.report(f"{name}: the last serve's unanswered messages to {slug} cannot be answered: {exc.message}")
                gw.send(name, chat, replies.not_answered(slug, exc))
                forget(gw, conv)
                continue
            except Exception as exc:  # serve never dies of it: the logs stay for the next command to commit
                gw.report(f"{name}: the last serve's unanswered messages to {slug}: {type(exc).__name__}: {exc}")
                continue
            gw.report(f"{name}: answering what the last serve logged for {slug} but did not answer")
            gw.enqueue(Job("reply", conv, conv.session))


def answered(gw: Gateway, conv: Conversation) -> None:
    """After a burst's answer (or the line saying there is none): nothing is left for the next serve."""
    if not gw.burst_pending(conv):  # else more came meanwhile: still unanswered
        forget(gw, conv)


def forget(gw: Gateway, conv: Conversation) -> None:
    state = gw.states[conv.channel]
    if not state.answered(conv.chat):
        return
    try:
        state.save()
    except (HeartCompassError, OSError) as exc:  # kept in memory: the next save writes it
        gw.report(f"{conv.channel}: state not saved: {exc}")
