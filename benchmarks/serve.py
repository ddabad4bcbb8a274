"""The phone gateway's own cost: time per reply against terminal chat's, and
memory over many messages.

    python benchmarks/serve.py [--messages 10000] [--burst 20]

Both sides run the same core with an instant scripted model and no network
(a channel that only records what it would send), so what is measured is
HeartCompass's own work: logging, the prompt, the reply, the commit; for
the gateway also the owner check, the dedup state and the burst machinery
(the quiet wait itself is excluded: it is the user's pause, not our work).

Targets: the gateway's time per reply at most 1.5x terminal chat's (one
message, then its commit, as `chat -m` does); Python heap after 10,000
messages within 1.2x of the heap after 6,000 (flat: nothing grows with the
number of messages once the bounded dedup memory, the last 5,000 message
ids, is full; the heap at 1,000 is printed too)."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402

from heartcompass.gateway.core import Gateway, Incoming  # noqa: E402
from heartcompass.gateway.state import state_for  # noqa: E402
from heartcompass.store.config_edit import set_config  # noqa: E402
from heartcompass.store.people import resolve  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402
from heartcompass.talk.chat import ChatSession  # noqa: E402
from heartcompass.talk.session import commit_session  # noqa: E402

REPLY = "好呀 ||| see you at 7 ||| 别迟到"


def instant_model():
    class Endless:
        def __iter__(self):
            return self

        def __next__(self):
            return AIMessage(content=REPLY)

    return GenericFakeChatModel(messages=Endless())


class Recorder:
    """A channel that sends nowhere: counts what the gateway would send."""
    name = "telegram"

    def __init__(self):
        self.sent = 0
        self.done = threading.Event()
        self.want = 0

    def send(self, chat, text):
        self.sent += 1
        if self.sent >= self.want:
            self.done.set()

    def ask(self, chat, text, choices):
        self.send(chat, text)

    def typing(self, chat):
        pass


def workspace(root: Path):
    ws, _ = create_workspace(root, example=True)
    set_config(ws, "telegram.allowed_users", "42")
    return ws


def terminal(root: Path, replies: int) -> list[float]:
    ws = workspace(root)
    person = resolve(ws, "alice")
    model = instant_model()
    times = []
    for i in range(replies):
        start = time.perf_counter()
        session = ChatSession(ws, person, model)
        list(session.send(f"message {i} 你好"))
        commit_session(ws, session)
        times.append(time.perf_counter() - start)
    return times


def gateway(root: Path, messages: int, burst: int, heap: dict[int, int] | None = None) -> list[float]:
    ws = workspace(root)
    channel = Recorder()
    state = state_for(ws.state_dir, "telegram")
    state.chats["42"] = "alice"
    quiet = 0.001
    gw = Gateway(ws, {"telegram": channel}, {"telegram": state}, make_model=instant_model, quiet=quiet,
                 delays=(0.0, 0.0))
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,), daemon=True)
    worker.start()
    times = []
    n = 0
    while n < messages:
        start = time.perf_counter()
        for _ in range(burst):
            n += 1
            gw.receive(Incoming("telegram", "42", "42", f"42:{n}", text=f"message {n} 你好"))
            if heap is not None and n in heap:
                heap[n] = tracemalloc.get_traced_memory()[0]
        channel.want = channel.sent + 3
        channel.done.clear()
        channel.done.wait(60)
        while not gw.idle():  # its commit too
            time.sleep(0.0005)
        times.append(time.perf_counter() - start - quiet)
    stop.set()
    worker.join()
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--burst", type=int, default=20)
    ap.add_argument("--replies", type=int, default=40, help="replies timed on each side")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        term = statistics.median(terminal(Path(tmp) / "t", args.replies))
        gate = statistics.median(gateway(Path(tmp) / "g", args.replies, 1))
        ratio = gate / term
        print(f"time per reply (model excluded): terminal chat {term * 1000:.1f} ms, gateway {gate * 1000:.1f} ms: "
              f"{ratio:.2f}x ({'ok' if ratio <= 1.5 else 'OVER'}, target 1.5x)")
        base = max(1_000, args.messages * 6 // 10)
        marks = {m: 0 for m in sorted({1_000, base, args.messages})}
        tracemalloc.start()
        started = time.perf_counter()
        times = gateway(Path(tmp) / "m", args.messages, args.burst, marks)
        tracemalloc.stop()
        growth = marks[args.messages] / marks[base]
        print(f"{args.messages} messages in bursts of {args.burst}: {time.perf_counter() - started:.0f} s, "
              f"median {statistics.median(times) * 1000:.0f} ms per burst answered")
        print("python heap: " + ", ".join(f"{m} messages {v / 1e6:.1f} MB" for m, v in marks.items())
              + f"; {growth:.2f}x from {base} to {args.messages} ({'ok' if growth <= 1.2 else 'OVER'}, target 1.2x)")


if __name__ == "__main__":
    main()
