"""The gateway's promises, tested on its core with a recording channel and a
clock the test moves (no chat app, no wall-clock timing): a burst is always
answered, even when serve stops during its quiet wait."""

from __future__ import annotations

import threading

from fakes import FakeChat
from serve_helpers import log_entries, wait_until

from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import state_for
from heartcompass.store.config_edit import set_config


class Recording:
    name = "telegram"

    def __init__(self):
        self.sent: list[str] = []

    def send(self, chat, text):
        self.sent.append(text)

    def ask(self, chat, text, choices):
        self.sent.append(text)

    def typing(self, chat):
        pass


class FrozenClock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _gateway(ws, model, clock, quiet=60.0):
    set_config(ws, "telegram.allowed_users", "42")
    state = state_for(ws.state_dir, "telegram")
    state.chats["42"] = "alice"
    channel = Recording()
    gw = Gateway(ws, {"telegram": channel}, {"telegram": state}, make_model=lambda: model, quiet=quiet,
                 delays=(0.0, 0.0), sleep=lambda s: None, monotonic=clock)
    return gw, state, channel


def test_stopping_serve_during_a_bursts_quiet_wait_still_answers_the_burst(example_ws):
    """SIGTERM while the owner's burst waits for quiet: the burst is answered
    before serve exits (not left for the next serve), its answer logged."""
    clock = FrozenClock()  # never advances: the burst's quiet wait never ends on its own
    gw, state, channel = _gateway(example_ws, FakeChat().enqueue("我在，怎么了？"), clock)
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,), daemon=True)
    worker.start()
    gw.receive(Incoming("telegram", "42", "42", "42:1", text="在吗"))
    gw.receive(Incoming("telegram", "42", "42", "42:2", text="有件事想问你"))
    assert gw.burst_pending(gw.conversation("telegram", "42"))  # waiting for quiet, not answered yet
    assert channel.sent == []
    stop.set()
    gw.wake()
    worker.join(60)
    assert not worker.is_alive(), "serve did not stop"
    assert channel.sent == ["我在，怎么了？"]
    texts = [(e.speaker, e.text) for e in log_entries(example_ws, "alice")]
    assert texts[-3:] == [("me", "在吗"), ("me", "有件事想问你"), ("persona", "我在，怎么了？")]
    assert state.unanswered_chats() == []  # nothing left for the next serve to answer again


def test_a_burst_waits_for_quiet_then_is_answered_once(example_ws):
    """The owner's messages are gathered while the clock is within
    serve.quiet_seconds of the last one, and answered together once it passes."""
    clock = FrozenClock()
    model = FakeChat().enqueue("both at once")
    gw, state, channel = _gateway(example_ws, model, clock, quiet=30.0)
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,), daemon=True)
    worker.start()
    try:
        gw.receive(Incoming("telegram", "42", "42", "42:1", text="first"))
        clock.now += 29.0
        gw.receive(Incoming("telegram", "42", "42", "42:2", text="second"))  # restarts the wait
        clock.now += 29.0
        gw.wake()
        conv = gw.conversation("telegram", "42")
        assert gw.burst_pending(conv) and channel.sent == []  # 29 s after the last: still gathering
        clock.now += 1.0
        gw.wake()
        wait_until(lambda: channel.sent == ["both at once"] and gw.idle(), timeout=60)
    finally:
        stop.set()
        gw.wake()
        worker.join(60)
    assert len(model.calls) == 1
    last_user = [m.content for m in model.calls[0] if m.type == "human"][-1]
    assert "first" in last_user and "second" in last_user
