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
    it could not, and the chat goes on. With nothing to commit (most
    starts) no GitPython and no lock: the model is reached sooner."""
    try:
        if not audit.nothing_to_commit(ws, [person]):
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


def keep_unanswered(ws: Workspace, person: Person, lines: list[str], why: HeartCompassError,
                    aside: bool = False) -> HeartCompassError:
    """Messages typed for a persona that cannot answer now (one of its files
    in conflict or broken): the persona may decline, the log may not. Each is
    logged (a /note as a note); where its log cannot take it (the log itself
    in conflict, a full or read-only disk) it is kept under
    .heartcompass/rejected/ and given back (all of them, with `aside`).
    Returns `why`, its hint saying what happened."""
    from heartcompass.formats import dailylog
    from heartcompass.formats.text import conflict_line
    from heartcompass.store.workspace import keep_rejected

    session = ChatSession(ws, person, None)
    typed = [(("note", line.strip()[5:].strip()) if line.strip().startswith("/note ") else ("me", line.strip()))
             for line in lines if line.strip() and (not line.strip().startswith("/") or
                                                    line.strip().startswith("/note "))]
    if not typed:
        return why
    path = dailylog.log_path(person.dir, session.now().date())
    try:
        if aside or path.is_file() and conflict_line(path.read_text(encoding="utf-8", errors="replace")):
            raise HeartCompassError(f"{ws.rel(path)} cannot take them")
        for speaker, text in typed:
            session.log(speaker, text)
    except HeartCompassError:
        left = [text for _, text in typed[session.count:]]
        try:
            where = f"it is kept in {ws.rel(keep_rejected(ws, person.slug, 'typed.md', chr(10).join(left) + chr(10)))}"
        except (HeartCompassError, OSError):  # a read-only disk: the screen is the only place left
            where = "nor kept, so here it is to copy"
        said = f"Your message could not be logged; {where}: {' / '.join(left)}"
    else:
        try:
            commit_session(ws, session)
        except HeartCompassError:
            pass  # a stopped sync or a busy lock: the log keeps them, the next command that can commit commits them
        said = (f"Your {'message is' if len(typed) == 1 else 'messages are'} logged in {ws.rel(path)}; "
                "the persona answers once the file is fixed.")
    why.hint = f"{why.hint} {said}" if why.hint else said
    return why
