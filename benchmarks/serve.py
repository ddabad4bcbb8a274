"""The phone gateway's own cost: time per reply against terminal chat's, and
memory over many messages.

    python benchmarks/serve.py [--messages 10000] [--burst 20] [--replies 40]   (--messages 0: time only)
    python benchmarks/serve.py --messages 4000 --keep 1000 --replies 1 --where 2000,4000   (what grows, quickly)

Both sides run the same core with an instant scripted model and no network
(a channel that only records what it would send), so what is measured is
HeartCompass's own work: logging, the prompt, the reply, the commit; for
the gateway also the owner check, the dedup state and the burst machinery
(the quiet wait itself is excluded: it is the user's pause, not our work).

The two sides are timed alternately, reply by reply, so a busy moment of
the machine falls on both.

Targets: the gateway's time per reply at most 1.5x terminal chat's (one
message, then its commit, as `chat -m` does); Python heap (tracemalloc) and
resident memory sampled every 1,000 messages (a thousand a day, over ten
days up to today, so no day's log is larger than a busy day's), both
flat once the dedup memory is full: at 10,000 within 1.05x of what they
were at 6,000. It keeps the last 5,000 message ids (SEEN_KEEP); its table
grows one last step in the thousand messages after it fills, as the oldest
ids start to be dropped, so flat is measured from 6,000 (the step from
5,000 is printed too). `--where` prints what grew meanwhile, by the
place it was allocated (tracemalloc snapshots compared, grouped by traceback):
from 5,000 to 6,000 and from there to the end, or between the message counts
it is given (`--where 2000,4000`). `--keep N` makes the dedup memory N ids
(SEEN_KEEP's stand-in), so a shorter run gets past its last step."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import os
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
from heartcompass.gateway import state as state_mod  # noqa: E402
from heartcompass.gateway.state import state_for  # noqa: E402
from heartcompass.store import clock  # noqa: E402
from heartcompass.store.config_edit import set_config  # noqa: E402
from heartcompass.store.people import resolve  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402
from heartcompass.talk.chat import ChatSession  # noqa: E402
from heartcompass.talk.session import commit_session  # noqa: E402

REPLY = "好呀 ||| see you at 7 ||| 别迟到"
# The dedup memory holds the last SEEN_KEEP ids; its table grows once more in the 1,000 messages after it
# fills, as the oldest ids start to be dropped (in-process, 5,000 to 6,000 ids: +169 kB; 6,000 to 12,000:
# +2 kB), then stays. Flat is measured from there.
GOAL = 1.05


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


class Terminal:
    """`chat -m` as the terminal does it: one message, the reply, the commit."""

    def __init__(self, root: Path):
        self.ws = workspace(root)
        self.person = resolve(self.ws, "alice")
        self.model = instant_model()
        self.n = 0

    def reply(self) -> float:
        self.n += 1
        start = time.perf_counter()
        session = ChatSession(self.ws, self.person, self.model)
        list(session.send(f"message {self.n} 你好"))
        commit_session(self.ws, session)
        return time.perf_counter() - start


class Served:
    """The gateway's core with its worker thread, fed as a channel feeds it."""

    def __init__(self, root: Path, quiet: float = 0.001):
        self.ws = workspace(root)
        self.channel = Recorder()
        self.state = state_for(self.ws.state_dir, "telegram")
        self.state.chats["42"] = "alice"
        self.quiet = quiet
        self.gw = Gateway(self.ws, {"telegram": self.channel}, {"telegram": self.state}, make_model=instant_model,
                          quiet=quiet, delays=(0.0, 0.0))
        self.stop = threading.Event()
        self.worker = threading.Thread(target=self.gw.run, args=(self.stop,), daemon=True)
        self.worker.start()
        self.n = 0

    def burst(self, size: int, each=None) -> float:
        """Time from the first message of a burst to its reply sent and
        committed, less the quiet wait."""
        start = time.perf_counter()
        for _ in range(size):
            self.n += 1
            self.gw.receive(Incoming("telegram", "42", "42", f"42:{self.n}", text=f"message {self.n} 你好"))
            if each:
                each(self.n)
        self.channel.want = self.channel.sent + 3
        self.channel.done.clear()
        self.channel.done.wait(60)
        while not self.gw.idle():  # its commit too
            time.sleep(0.0005)
        return time.perf_counter() - start - self.quiet

    def close(self) -> None:
        self.stop.set()
        self.worker.join()


@contextlib.contextmanager
def fsyncs():
    """Counts the fsyncs made meanwhile (git's own, in its processes, are not counted)."""
    count, real = [0], os.fsync

    def counting(fd):
        count[0] += 1
        real(fd)

    os.fsync = counting
    try:
        yield count
    finally:
        os.fsync = real


def receiving(root: Path, n: int = 300) -> list[float]:
    """The receiving thread's own work per message, with no reply due."""
    served = Served(root, quiet=3600)
    times = []
    for i in range(n):
        start = time.perf_counter()
        served.gw.receive(Incoming("telegram", "42", "42", f"42:{i}", text=f"message {i} 你好"))
        times.append(time.perf_counter() - start)
    served.close()
    return times


def rss() -> int:
    """The process's resident memory now, in bytes (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def trace_interned_table() -> None:
    """CPython's table of interned strings (names, path parts) is rebuilt once
    strings made and dropped fill it, and the first rebuild under tracemalloc
    counts the whole new table, the old one having been made before tracing
    began: a one-off step of about 2 MB at whatever message it falls on (three
    runs: in the ninth thousand; `--where` named it, one 1.92 MB block at a
    sys.intern call). Rebuilt here, before the first message, so that a step
    in the samples is growth: a later rebuild frees a table that is traced."""
    for n in range(200_000):
        sys.intern(f"heartcompass-benchmark-{n}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--burst", type=int, default=20)
    ap.add_argument("--replies", type=int, default=40, help="replies timed on each side")
    ap.add_argument("--where", nargs="?", const="", default=None, metavar="N,M,...",
                    help="print what the heap grew by, and where (after the dedup memory fills, or between N, M...)")
    ap.add_argument("--keep", type=int, default=state_mod.SEEN_KEEP, help="message ids the dedup memory keeps")
    ap.add_argument("--depth", type=int, default=12, help="frames --where keeps of each allocation (1: the line "
                    "alone, much faster on a busy machine)")
    args = ap.parse_args()
    state_mod.SEEN_KEEP = SEEN_KEEP = args.keep
    FULL = SEEN_KEEP + 1_000
    marks = sorted({int(n) for n in args.where.split(",") if n.strip()}) if args.where else []
    marks = marks or [SEEN_KEEP, FULL, args.messages]
    with tempfile.TemporaryDirectory() as tmp:
        term, served = Terminal(Path(tmp) / "t"), Served(Path(tmp) / "g")
        term.reply(), served.burst(1)  # warm: the first reply imports and builds caches
        t_times, g_times, t_syncs, g_syncs = [], [], [], []
        for _ in range(args.replies):  # alternated, so a busy moment of the machine hits both sides
            with fsyncs() as n:
                t_times.append(term.reply())
            t_syncs.append(n[0])
            with fsyncs() as n:
                g_times.append(served.burst(1))
            g_syncs.append(n[0])
        served.close()
        t, g = statistics.median(t_times), statistics.median(g_times)
        ratio = g / t
        print(f"time per reply (model excluded): terminal chat {t * 1000:.1f} ms, gateway {g * 1000:.1f} ms: "
              f"{ratio:.2f}x ({'ok' if ratio <= 1.5 else 'OVER'}, target 1.5x)")
        print(f"fsyncs per reply: terminal chat {statistics.mean(t_syncs):.2f}, gateway {statistics.mean(g_syncs):.2f}")
        print(f"receiving one message (owner check, log, dedup state): median "
              f"{statistics.median(receiving(Path(tmp) / 'r')) * 1000:.2f} ms")
        if not args.messages:
            return

        heap: dict[int, int] = {}
        resident: dict[int, int] = {}
        snapshots: dict[int, tracemalloc.Snapshot] = {}

        days = -(-args.messages // 1_000)
        real_now = clock.now

        def sample(n: int) -> None:
            if n % 1_000 == 0:
                # What is kept, not what waits for the cycle collector: a reference cycle of the last replies (a
                # chain of LangChain objects, an exception's frames) is freed by the next full collection, which
                # Python runs when it chooses, so without this a sample could land on +2 MB that is gone later.
                gc.collect()
                heap[n] = tracemalloc.get_traced_memory()[0]
                resident[n] = rss()
                if args.where is not None and n in marks:
                    snapshots[n] = tracemalloc.take_snapshot()
                print(f"  {n} messages: python heap {heap[n] / 1e6:.2f} MB, resident {resident[n] / 1e6:.1f} MB",
                      flush=True)
                clock.now = lambda ws, back=days - n // 1_000 - 1: real_now(ws) - dt.timedelta(days=back)

        # A thousand messages a day, over the days up to today: a day's log stays the size of a busy day's.
        clock.now = lambda ws: real_now(ws) - dt.timedelta(days=days - 1)

        tracemalloc.start(args.depth if args.where is not None else 1)
        trace_interned_table()
        started = time.perf_counter()
        served = Served(Path(tmp) / "m")
        times = [served.burst(min(args.burst, args.messages - served.n), sample)
                 for _ in range(-(-args.messages // args.burst))]
        served.close()
        tracemalloc.stop()
        clock.now = real_now
        print(f"{args.messages} messages in bursts of {args.burst}: {time.perf_counter() - started:.0f} s, "
              f"median {statistics.median(times) * 1000:.0f} ms per burst answered")
        print("every 1,000 messages, python heap (MB): " + " ".join(f"{v / 1e6:.2f}" for v in heap.values()))
        print("every 1,000 messages, resident (MB):    " + " ".join(f"{v / 1e6:.1f}" for v in resident.values()))
        last = max(heap)
        if args.where is not None:
            where(snapshots, marks)
        if FULL not in heap or last <= FULL:
            print(f"(flat is measured from {FULL:,} messages, when the last {SEEN_KEEP:,} message ids are kept: "
                  f"give --messages {2 * FULL})")
            return
        for what, values in (("python heap", heap), ("resident", resident)):
            growth = values[last] / values[FULL]
            print(f"{what} {growth:.3f}x from {FULL:,} to {last:,} messages ({'ok' if growth <= GOAL else 'OVER'}, "
                  f"goal {GOAL}x: flat once the dedup memory of the last {SEEN_KEEP:,} message ids is full), "
                  f"{(values[last] - values[FULL]) / (last - FULL) * 1000 / 1e6:+.3f} MB per 1,000 messages; "
                  f"its last step, {SEEN_KEEP:,} to {FULL:,}: {(values[FULL] - values[SEEN_KEEP]) / 1e6:+.3f} MB")


def where(snapshots: dict[int, tracemalloc.Snapshot], marks: list[int]) -> None:
    """What grew between each two marks, by the place it was allocated (the biggest first)."""
    for a, b in zip(marks, marks[1:]):
        if a in snapshots and b in snapshots:
            print(f"grown most from {a:,} to {b:,} messages, by where it was allocated:")
            for stat in snapshots[b].compare_to(snapshots[a], "traceback")[:8]:
                print(f"  {stat.size_diff / 1e3:+.1f} kB in {stat.count_diff:+d} blocks, at")
                for line in stat.traceback.format(limit=6, most_recent_first=True):
                    print("    " + line.strip())


if __name__ == "__main__":
    main()
