"""The gateway's core, the same for every chat app: who may talk, which
person each app chat talks to, the slash commands, burst gathering and the
replies. A channel (telegram.py, lark.py) only turns the app's updates into
`Incoming` and sends text; nothing here knows an app or a terminal.

Two threads meet here. A channel's receiving thread calls `receive()`,
which is quick: it refuses strangers, logs the owner's message to the
person's daily log at once (before any model call, as terminal chat does)
and starts or extends the burst. One worker thread, `run()`, answers a
burst once the owner has been quiet for serve.quiet_seconds, runs /retry
and /tell, and commits. A model error, a bad file or a git state is said in
one line to the chat; none of them stops the process. The worker waits on
`_cv`: it is held for moments, never around git work (deliveries take turns
on `_receiving` for that)."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from heartcompass.errors import GitError, HeartCompassError, LLMError
from heartcompass.gateway import commands, recovery, replies, strangers, tell_offers
from heartcompass.gateway.jobs import Conversation, Job
from heartcompass.gateway.pairing import Pairing
from heartcompass.gateway.state import ChannelState
from heartcompass.store.lock import LockBusy
from heartcompass.store.workspace import Workspace
from heartcompass.talk.burst import Burst
from heartcompass.talk.chat import ChatSession
from heartcompass.talk.session import commit_before, commit_session

COMMIT_RETRY = 30.0  # seconds between tries to commit logs that git refused (a stopped sync)
DURABLE_EVERY = 2.0  # seconds between fsyncs of the serve state (state.py: what a power cut costs)


@dataclass
class Incoming:
    """One thing the app delivered: a message, a photo, or a pressed button."""
    channel: str
    chat: str      # where to answer
    sender: str    # who sent it: the id in <channel>.allowed_users
    id: str        # unique within the channel: a message delivered again is not handled twice
    text: str = ""
    image: bytes | None = None
    button: str | None = None  # the data of a pressed button (Yes/No under an offer or a question)
    private: bool = True       # a one-to-one chat with the sender (not a group, a channel, a supergroup)


class Channel(Protocol):
    name: str

    def send(self, chat: str, text: str) -> None: ...

    def ask(self, chat: str, text: str, choices: list[tuple[str, str]]) -> None: ...  # (label, data) buttons

    def typing(self, chat: str) -> None: ...


MAKE_DURABLE = Job("durable", Conversation("", ""))  # the worker's fsync of the serve state, when quiet


class Gateway:
    def __init__(self, ws: Workspace, channels: dict[str, Channel], states: dict[str, ChannelState], *,
                 make_model: Callable[[], Any], settings: Any = None, quiet: float | None = None,
                 delays: tuple[float, float] | None = None, sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic, report: Callable[[str], None] = lambda s: None,
                 pair_code: str | None = None, digest: Callable[[], str | None] | None = None,
                 commit_retry: float | None = None):
        self.ws, self.channels, self.states = ws, channels, states
        self.settings, self.report, self.sleep, self.monotonic = settings, report, sleep, monotonic
        self.quiet = float(quiet if quiet is not None else ws.config.get("serve.quiet_seconds"))
        low, high = delays if delays is not None else ws.config.get("chat.reply_delay")
        self.delays = (float(low), float(high))
        self.pairing = Pairing(pair_code, monotonic)
        self.digest = digest
        self.commit_retry = commit_retry if commit_retry is not None else COMMIT_RETRY
        self._durable_at = monotonic()
        self._make_model, self._model = make_model, None
        self._model_mu = threading.Lock()
        self._commit_mu = threading.RLock()  # the worker's commits and the one SIGTERM makes at once (commit_all)
        self._cv = threading.Condition()  # the jobs and bursts the worker waits on: never held around git work
        self._receiving = threading.RLock()  # one delivery at a time (a commit, a 30 s wait for the lock too)
        self._delivering = 0  # deliveries being handled now: the gateway is not idle
        self._jobs: list[Job] = []
        self._convs: dict[tuple[str, str], Conversation] = {}
        self.offers = tell_offers.for_workspace(ws)
        self.busy = False  # the worker is answering (benchmarks and tests wait on it)
        recovery.settle(self)  # before any delivery: the message a killed serve was logging

    # -- receiving (a channel's thread) ---------------------------------------
    def receive(self, msg: Incoming) -> None:
        """Handle one delivery, at most once across restarts (by its id)."""
        state = self.states[msg.channel]
        with self._cv:
            self._delivering += 1
        try:
            with self._receiving:
                if not state.is_seen(msg.id):
                    self._handle(msg, state)
        finally:
            with self._cv:
                self._delivering -= 1
                self._cv.notify_all()

    def _handle(self, msg: Incoming, state: ChannelState) -> None:
        try:
            self._receive(msg, state)
        except HeartCompassError as exc:
            self.send(msg.channel, msg.chat, replies.error(exc))
        except Exception as exc:  # never die on one message; the operator sees what it was
            self.report(f"{msg.channel}: could not handle a message: {type(exc).__name__}: {exc}")
            self.send(msg.channel, msg.chat, replies.BROKEN)
        finally:
            state.mark_seen(msg.id)
            try:
                state.save()
            except HeartCompassError as exc:
                self.report(f"{msg.channel}: state not saved: {exc.message}")
            except OSError as exc:  # kept in memory: the next save writes it
                self.report(f"{msg.channel}: state not saved: {exc}")

    def allowed(self, channel: str, sender: str) -> bool:
        return sender in self.ws.config.get(f"{channel}.allowed_users")

    def _receive(self, msg: Incoming, state: ChannelState) -> None:
        if msg.button is not None and msg.chat != state.owner_chats.get(msg.sender):
            msg.private = False  # a button answers only in the presser's own private chat (Lark's say no chat type)
        if not msg.private:  # a group sees nothing of the workspace, not even for the owner
            strangers.group(self, msg, state)
            return
        if not self.allowed(msg.channel, msg.sender):
            strangers.stranger(self, msg, state)
            return
        state.owner_chats[msg.sender] = msg.chat
        conv = self.conversation(msg.channel, msg.chat)
        text = msg.text.strip()
        if msg.button and msg.button.startswith(commands.SWITCH_BUTTON):  # a pick after an ambiguous /switch
            commands.run(self, conv, "/switch " + msg.button[len(commands.SWITCH_BUTTON):], None)
        elif msg.button:
            self.enqueue(Job("answer", conv, arg=msg.button))
        elif text.startswith("/"):
            commands.run(self, conv, text, msg.image)
        elif msg.image is not None:
            self.send(conv.channel, conv.chat, replies.PHOTO)
        elif text:
            session = self.session(conv)
            if session is None:
                return
            recovery.hold(self, state, msg.id, conv.chat, session, text)  # in the log before any model call
            state.await_answer(conv.chat, session.person.slug)  # killed before the answer: the next serve answers
            with self._cv:
                if conv.burst is None:
                    conv.burst = Burst(self.quiet, self.monotonic)
                conv.burst.add(text)

    def conversation(self, channel: str, chat: str) -> Conversation:
        with self._cv:
            key = (channel, chat)
            if key not in self._convs:
                self._convs[key] = Conversation(channel, chat)
            return self._convs[key]

    def burst_pending(self, conv: Conversation) -> bool:
        with self._cv:
            return conv.burst is not None and bool(conv.burst.pending)

    def session(self, conv: Conversation) -> ChatSession | None:
        """The chat's session with its person (None, and a hint, when no one is chosen yet)."""
        if conv.session is None:
            slug = self.states[conv.channel].chats.get(conv.chat)
            if not slug:
                self.send(conv.channel, conv.chat, replies.NOBODY)
                return None
            from heartcompass.store.people import resolve

            self.open(conv, resolve(self.ws, slug))
        return conv.session

    def open(self, conv: Conversation, person) -> None:
        problem = commit_before(self.ws, person, "serve")
        if problem:
            self.report(f"{conv.channel}: {problem.message}")
        conv.session = ChatSession(self.ws, person, None, settings=self.settings, make_model=self.model,
                                   sleep=self.sleep)
        self.states[conv.channel].chats[conv.chat] = person.slug

    def model(self) -> Any:
        with self._model_mu:  # made once, on the first reply: the provider's import takes a second
            if self._model is None:
                self._model = self._make_model()
            return self._model

    def enqueue(self, job: Job) -> None:
        """For the one worker thread: replies, commits, tells and answers, in order."""
        with self._cv:
            self._jobs.append(job)
            self._cv.notify_all()

    def flush_burst(self, conv: Conversation) -> None:
        """Answer what was gathered now (before /switch, /retry, /tell)."""
        with self._cv:
            if conv.burst and conv.burst.take():
                self.enqueue(Job("reply", conv, conv.session))

    def send(self, channel: str, chat: str, text: str) -> None:
        try:
            self.channels[channel].send(chat, text)
        except Exception as exc:  # the app is unreachable: the log has the message, the operator is told
            self.report(f"{channel}: could not send a message: {type(exc).__name__}: {exc}")

    # -- the worker --------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Answer bursts and run jobs until `stop` is set; then answer what
        was already received, commit, and return. What the last serve
        logged and did not answer (it was killed) is committed and answered first."""
        recovery.recover(self)
        committed_at_stop = False
        while True:
            job = self._next(stop)
            if job is None:
                break
            if stop.is_set() and not committed_at_stop:  # before any more answers: they may be slow
                committed_at_stop = True
                self.commit_all()
            if job is MAKE_DURABLE:
                self.make_durable()
                continue
            self.busy = True
            try:
                self._do(job)
            except Exception as exc:  # the process never dies on one job
                self.report(f"{job.conv.channel}: {job.kind} failed: {type(exc).__name__}: {exc}")
                self.send(job.conv.channel, job.conv.chat, replies.BROKEN)
            finally:
                self.busy = False
        self.commit_all()
        self.make_durable()

    def commit_all(self) -> None:
        """Commit what every chat logged (at SIGTERM, from any thread, whatever the app's API is doing)."""
        with self._cv:
            convs = list(self._convs.values())
        for conv in convs:
            self.commit(conv)

    def idle(self) -> bool:
        with self._cv:
            return not self._jobs and not self.busy and not self._delivering and not any(c.burst and c.burst.pending
                                                                for c in self._convs.values())

    def _next(self, stop: threading.Event) -> Job | None:
        with self._cv:
            while True:
                now = self.monotonic()
                for conv in self._convs.values():
                    if conv.burst and conv.burst.pending and (conv.burst.due() or stop.is_set()):
                        conv.burst.take()
                        self._jobs.append(Job("reply", conv, conv.session))
                    if conv.refused_commit and conv.retry_at <= now and not stop.is_set():
                        conv.retry_at = now + self.commit_retry
                        self._jobs.append(Job("commit", conv))
                durable_at = self._durable_at + DURABLE_EVERY
                if durable_at <= now and not stop.is_set() and any(s.not_durable() for s in self.states.values()):
                    return MAKE_DURABLE  # before the jobs too: a worker that never rests still fsyncs
                if self._jobs:
                    return self._jobs.pop(0)
                if stop.is_set():
                    return None
                if self.digest:
                    self._digest()
                waits = [c.burst.remaining() for c in self._convs.values() if c.burst and c.burst.pending]
                waits += [max(0.0, c.retry_at - now) for c in self._convs.values() if c.refused_commit]
                waits += [max(0.0, durable_at - now)] if any(s.not_durable() for s in self.states.values()) else []
                self._cv.wait(min([w for w in waits if w is not None] + [1.0]))

    def make_durable(self) -> None:
        """The serve state to disk for good (fsync), once the gateway is quiet."""
        self._durable_at = self.monotonic()
        for name, state in self.states.items():
            try:
                state.make_durable()
            except HeartCompassError as exc:
                self.report(f"{name}: state not saved: {exc.message}")
            except OSError as exc:  # never the end of serve: the next make_durable tries again
                self.report(f"{name}: state not saved: {exc}")

    def wake(self) -> None:
        with self._cv:
            self._cv.notify_all()

    def _do(self, job: Job) -> None:
        conv = job.conv
        if job.kind == "reply":
            self.reply(conv, job.session.reply() if job.session else None)
        elif job.kind == "retry" and job.session is not None:
            self.reply(conv, job.session.retry())
        elif job.kind == "tell":
            commands.tell(self, conv, *job.arg)
        elif job.kind == "answer":
            commands.answer(self, conv, job.arg)
        elif job.kind == "review":
            commands.review(self, conv)
        elif job.kind == "commit":
            self.commit(conv, job.session)
            return
        self.commit(conv, job.session)
        if job.kind == "reply":
            recovery.answered(self, conv)

    def reply(self, conv: Conversation, events) -> None:
        """Send the persona's messages as they complete: the app's typing
        indicator first, and a randomised pause before each after the first."""
        if events is None:
            return
        channel = self.channels[conv.channel]
        first = True
        try:
            self._typing(channel, conv.chat)
            for event in events:
                if event.kind != "message":
                    continue
                if not first:
                    self._typing(channel, conv.chat)
                    self.sleep(random.uniform(*self.delays))
                self.send(conv.channel, conv.chat, event.text)
                first = False
        except LLMError as exc:
            self.send(conv.channel, conv.chat, replies.model_down(exc))
        except HeartCompassError as exc:
            self.send(conv.channel, conv.chat, replies.error(exc))

    def _typing(self, channel: Channel, chat: str) -> None:
        try:
            channel.typing(chat)
        except Exception:  # only a nicety
            pass

    def commit(self, conv: Conversation, session: ChatSession | None = None) -> None:
        """Commit what the chat logged. When git refuses (a stopped sync, a
        conflict), the chat is told once; the logs stay and are retried."""
        session = session or conv.session
        if session is None:
            return
        try:
            with self._commit_mu:
                commit_session(self.ws, session, "serve")
        except (GitError, LockBusy) as exc:
            if not conv.refused_commit:
                conv.refused_commit = True
                conv.retry_at = self.monotonic() + self.commit_retry
                self.report(f"{conv.channel}: not committed: {exc.message}")
                self.send(conv.channel, conv.chat, replies.not_committed(exc))
            return
        if conv.refused_commit:
            conv.refused_commit = False
            self.report(f"{conv.channel}: the kept messages are committed now")

    def _digest(self) -> None:
        """serve.digest_at: `heartcompass today`, once a day, to each owner's chat."""
        at = self.ws.config.get("serve.digest_at")
        if not at or self.digest is None:  # (the loop calls this only when there is a digest)
            return
        from heartcompass.store import clock

        now = clock.now(self.ws)
        day = now.date().isoformat()
        if now.strftime("%H:%M") < at:
            return
        for name, state in self.states.items():
            if state.digest_day == day or not state.owner_chats:
                continue
            state.digest_day = day
            state.make_durable()  # rare, and a power cut must not send it twice
            text = self.digest()
            for chat in sorted(set(state.owner_chats.values())):
                if text:
                    self.send(name, chat, text)
