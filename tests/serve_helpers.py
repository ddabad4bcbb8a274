"""Running `serve` in the test's process, against the fake Telegram server
(fake_telegram.py) and a scripted fake model."""

from __future__ import annotations

import threading

from fake_telegram import TOKEN, FakeTelegram
import waits
from waits import DEADLINE

from heartcompass.formats import dailylog
from heartcompass.gateway import runner
from heartcompass.store.workspace import Workspace


def configure(ws: Workspace, fake: FakeTelegram, owners: str = "42") -> None:
    from heartcompass.store.config_edit import set_config

    set_config(ws, "telegram.api_base", fake.base)
    if owners:
        set_config(ws, "telegram.allowed_users", owners)
    (ws.root / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")


class Served:
    """serve in a thread; .stop() ends it as SIGTERM does and waits."""

    def __init__(self, ws: Workspace, model, *, pair: str | None = None, quiet: float = 0.3,
                 digest=None):
        self.ws, self.model = ws, model
        self.stop_event = threading.Event()
        self.ready = threading.Event()
        self.reports: list[str] = []
        self.error: BaseException | None = None
        self.gateway = None

        def run():
            try:
                self.gateway = runner.serve(ws, ["telegram"], self.stop_event, make_model=lambda: model,
                                            report=self.reports.append, pair=pair, poll_timeout=0.2, quiet=quiet,
                                            delays=(0.0, 0.0), digest=digest,
                                            on_ready=self._ready)
            except BaseException as exc:  # shown by the test
                self.error = exc
                self.ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.ready.wait(20), "serve did not start"
        if self.error:
            raise self.error

    def _ready(self, gw) -> None:
        self.gateway = gw
        self.ready.set()

    def settle(self) -> None:
        """Wait until the gateway has answered and committed everything received."""
        wait_until(lambda: self.gateway.idle())

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(30)
        assert not self.thread.is_alive(), "serve did not stop"
        if self.error:
            raise self.error

    def __enter__(self) -> "Served":
        return self

    def __exit__(self, *exc) -> None:
        if self.thread.is_alive():
            self.stop()


def log_entries(ws: Workspace, slug: str) -> list[dailylog.Entry]:
    entries = []
    for day in dailylog.log_dates(ws.people_dir / slug):
        entries += dailylog.load(ws.people_dir / slug / "logs" / f"{day}.md")
    return entries


def wait_until(predicate, timeout: float = DEADLINE) -> None:
    waits.wait_until(predicate, timeout)


class Recording:
    """A channel that keeps what serve sends (and asks), for tests of the
    gateway's core with no app at all."""

    name = "telegram"

    def __init__(self):
        self.sent: list[str] = []

    def send(self, chat, text):
        if not isinstance(chat, str) or not chat:  # as the apps: Telegram's int(chat), Feishu's receive_id
            raise TypeError(f"no chat to send to: {chat!r}")
        self.sent.append(text)

    def ask(self, chat, text, choices):
        self.send(chat, text)

    def typing(self, chat):
        pass
