"""What a serve killed mid-burst (kill -9, a power cut, a SIGKILL after a
slow SIGTERM) leaves to the next one: messages in the logs that were
neither committed nor answered. Each app chat with such a burst is in the
state's `unanswered` (chat -> person) from its first message until the
answer; the next serve commits those logs (as a crashed chat's, through
`commit_before`) and answers them, or says in the chat that it could not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heartcompass.errors import HeartCompassError
from heartcompass.gateway import replies
from heartcompass.gateway.jobs import Conversation, Job

if TYPE_CHECKING:
    from heartcompass.gateway.core import Gateway


def recover(gw: Gateway) -> None:
    """At the start of serve: commit and queue an answer for each burst the last serve left."""
    from heartcompass.store.people import resolve

    for name, state in gw.states.items():
        if name not in gw.channels:
            continue
        for chat, slug in state.unanswered_chats():
            conv = gw.conversation(name, chat)
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
