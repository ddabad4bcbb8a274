"""A gateway core with a recording channel and a clock the test owns, for
the gateway's promises (tests/test_gateway_*_promises.py): deliveries in
the test's thread, the worker run to its end there or in its own thread."""

from __future__ import annotations

import threading

from fakes import FakeChat
from waits import DEADLINE

from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import state_for
from heartcompass.store.config_edit import set_config


def _app_chat(chat) -> str:
    """An app sends only to a chat it knows (Telegram's int(chat), Feishu's receive_id): no chat is refused."""
    if not isinstance(chat, str) or not chat:
        raise TypeError(f"no chat to send to: {chat!r}")
    return chat


class Channel:
    """What the bot sent, to which chat, and the buttons it offered."""

    name = "telegram"

    def __init__(self):
        self.said: list[tuple[str, str]] = []
        self.asked: list[tuple[str, str, list[tuple[str, str]]]] = []
        self.typed: list[str] = []
        self.refuse_asking = False

    @property
    def sent(self) -> list[str]:
        return [text for _, text in self.said]

    def send(self, chat, text):
        self.said.append((_app_chat(chat), text))

    def ask(self, chat, text, choices):
        if self.refuse_asking:
            raise RuntimeError("no buttons here")
        self.asked.append((_app_chat(chat), text, choices))

    def typing(self, chat):
        self.typed.append(_app_chat(chat))


class Served:
    def __init__(self, ws, model=None, owners="42", pair=None, commit_retry=None):
        set_config(ws, "telegram.allowed_users", owners)
        self.ws, self.now, self.reports = ws, 1000.0, []
        self.state = state_for(ws.state_dir, "telegram")
        self.channel = Channel()
        self.gw = Gateway(ws, {"telegram": self.channel}, {"telegram": self.state},
                          make_model=lambda: model or FakeChat(), quiet=60.0, delays=(0.0, 0.0),
                          sleep=lambda s: None, monotonic=lambda: self.now, report=self.reports.append,
                          pair_code=pair, commit_retry=commit_retry)
        self.count = 0

    def say(self, text="", sender="42", chat=None, **more) -> None:
        self.count += 1
        self.gw.receive(Incoming("telegram", chat or sender, sender, f"{sender}:{self.count}", text=text, **more))

    def finish(self) -> None:
        """The worker, stopped already: what was received is answered and committed, then it returns."""
        stop = threading.Event()
        stop.set()
        self.gw.run(stop)


class Worker:
    """The worker in its own thread, started before any delivery (as serve does), stopped and joined at the end."""

    def __init__(self, served, monkeypatch):
        from heartcompass.gateway import core

        self.served, self.stop, ready = served, threading.Event(), threading.Event()
        real = core.recovery.recover
        monkeypatch.setattr(core.recovery, "recover", lambda gw: (real(gw), ready.set()))
        self.thread = threading.Thread(target=served.gw.run, args=(self.stop,), daemon=True)
        self.thread.start()
        assert ready.wait(DEADLINE), "the worker did not start"

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.served.gw.wake()
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive(), "the worker did not stop"
