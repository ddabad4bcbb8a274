"""The chat's write transactions, with no terminal: the terminal chat and the
phone gateway share them (lock, repository check, commit).

Logging never waits for git: ChatSession appends every message as it
happens. These two only commit what was logged, and say why when they
cannot; the logs stay on disk for the next command that can commit."""

from __future__ import annotations

from heartcompass.errors import GitError, HeartCompassError
from heartcompass.store import audit
from heartcompass.store.lock import LockBusy
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace
from heartcompass.talk.chat import ChatSession


def commit_before(ws: Workspace, person: Person, purpose: str = "chat", wait: float = 5) -> HeartCompassError | None:
    """Before a chat: a crashed chat's log and the person's hand edits get
    their own commits. A courtesy (a short wait, not an error): returns why
    it could not, and the chat goes on."""
    try:
        audit.commit_earlier(ws, [person], purpose, wait=wait)
    except (GitError, LockBusy) as exc:
        return exc
    return None


def commit_session(ws: Workspace, session: ChatSession, purpose: str = "chat") -> str | None:
    """Commit what the session logged since its last commit (one commit,
    apart from any hand edit); then start counting afresh. When git or the
    lock refuses, the error says where the messages are and nothing is
    forgotten: the next call commits them too."""
    if not session.logged:
        return None
    logged, count = set(session.logged), session.count  # a message may arrive meanwhile (the gateway)
    try:
        with audit.write_transaction(ws, purpose):
            sha = audit.commit_chat(ws, session.person, logged, count, session.tag)
    except (GitError, LockBusy) as exc:
        logs = ", ".join(sorted(ws.rel(p) for p in session.logged))
        raise type(exc)(exc.message, f"Your messages are saved in {logs}; the next HeartCompass command "
                                     "that can commit will commit them.") from None
    session.count -= count
    if not session.count:
        session.logged -= logged
    return sha
