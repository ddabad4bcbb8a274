"""Import speed per app, as a ratio to WhatsApp's, and memory at scale.

    python benchmarks/imports.py [MESSAGES] [--memory LINES] [--only FORMAT,...]

Prints (ratios, not timed tests):
- for each format, the CPU time to import MESSAGES (default 100,000)
  synthetic messages between two people into a fresh workspace (read,
  route, write the logs, refresh VOICE.md, commit), and its ratio to the
  WhatsApp import of the same messages (target: <= 1.0 for the line-based
  exports; the JSON ones parse their whole file first);
- with --memory LINES: the peak memory of a LINES-line WhatsApp import (run
  in a child process) next to one a tenth its size (target: near 1, i.e.
  memory bounded whatever the size)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.intake import importers, routing  # noqa: E402
from heartcompass.intake.exports import Context  # noqa: E402
from heartcompass.store.creation import create_workspace  # noqa: E402

START = dt.datetime(2001, 1, 1, 8, 0)


def _stream(n: int):
    for i in range(n):
        when = START + dt.timedelta(minutes=7 * i)
        her = i % 2 == 1
        text = f"message {i} 你好 how was the day" if i % 3 else f"好呀 {i % 50}"
        yield when, her, text


def whatsapp(n: int) -> str:
    return "".join(f"{w:%d/%m/%Y}, {w:%H:%M} - {'Alice Chen' if h else 'Lei'}: {t}\n" for w, h, t in _stream(n))


def plain(n: int) -> str:
    return "".join(f"[{w:%Y-%m-%d %H:%M}] {'Alice Chen' if h else 'Lei'}: {t}\n" for w, h, t in _stream(n))


def signal(n: int) -> str:
    return plain(n)  # signal-export writes the same stamps (the benchmark forces the format)


def wechat_csv(n: int) -> str:
    head = "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime\n"
    return head + "".join(f"{i},12,1,0,{0 if h else 1},{int(w.timestamp())},2,{t},{w:%Y-%m-%d %H:%M:%S}\n"
                          for i, (w, h, t) in enumerate(_stream(n)))


def wechat_txt(n: int) -> str:
    return "".join(f"{w:%Y-%m-%d %H:%M:%S} {'小爱' if h else '磊'}\n{t}\n\n" for w, h, t in _stream(n))


def qq(n: int) -> str:
    return "消息记录\n\n消息对象:小爱\n\n" + "".join(
        f"{w:%Y-%m-%d %H:%M:%S} {'小爱(12345678)' if h else '磊(87654321)'}\n{t}\n\n" for w, h, t in _stream(n))


def line(n: int) -> str:
    out, day = ["[LINE] Chat history with Alice Chen\n"], None
    for w, h, t in _stream(n):
        if w.date() != day:
            day = w.date()
            out.append(f"\n{w:%Y/%m/%d}(Mon)\n")
        out.append(f"{w:%H:%M}\t{'Alice Chen' if h else 'Lei'}\t{t}\n")
    return "".join(out)


def imessage(n: int) -> str:
    return "".join(f"{w:%b %d, %Y %I:%M:%S %p}\n{'+15558675309' if h else 'Me'}\n{t}\n\n" for w, h, t in _stream(n))


def chatlab(n: int) -> str:
    head = json.dumps({"_type": "header", "chatlab": {"version": "0.0.2"},
                       "meta": {"name": "Alice Chen", "platform": "wechat", "type": "private", "ownerId": "me"}})
    rows = (json.dumps({"_type": "message", "sender": "a" if h else "me", "accountName": "Alice Chen" if h else "Lei",
                        "timestamp": int(w.timestamp()), "type": 0, "content": t}, ensure_ascii=False)
            for w, h, t in _stream(n))
    return head + "\n" + "\n".join(rows) + "\n"


def telegram(n: int) -> str:
    return json.dumps({"name": "Alice Chen", "type": "personal_chat", "id": 1, "messages": [
        {"id": i, "type": "message", "date": w.isoformat(), "date_unixtime": str(int(w.timestamp())),
         "from": "Alice Chen" if h else "Lei", "from_id": "user1" if h else "user2", "text": t}
        for i, (w, h, t) in enumerate(_stream(n))]}, ensure_ascii=False)


def discord(n: int) -> str:
    return json.dumps({"guild": {"id": "0"}, "channel": {"type": "DirectTextChat", "name": "alice"}, "messages": [
        {"id": str(i), "type": "Default", "timestamp": w.isoformat() + "+00:00", "content": t,
         "author": {"id": "1" if h else "2", "name": "alicec" if h else "lei", "nickname": "Alice Chen" if h else "Lei"}}
        for i, (w, h, t) in enumerate(_stream(n))]}, ensure_ascii=False)


def messenger(n: int) -> str:
    msgs = [{"sender_name": "Alice Chen" if h else "Lei", "timestamp_ms": int(w.timestamp() * 1000),
             "content": t.encode("utf-8").decode("latin-1"), "type": "Generic"} for w, h, t in _stream(n)]
    return json.dumps({"participants": [{"name": "Alice Chen"}, {"name": "Lei"}], "messages": msgs[::-1],
                       "title": "Alice Chen", "thread_type": "Regular"})


FORMATS = {"whatsapp": (whatsapp, "Lei"), "plain": (plain, "Lei"), "signal": (signal, "Lei"),
           "wechat": (wechat_csv, None), "wechat-txt": (wechat_txt, "磊"), "qq": (qq, "磊"), "line": (line, "Lei"),
           "imessage": (imessage, None), "chatlab": (chatlab, None), "telegram": (telegram, "Lei"),
           "discord": (discord, "Lei"), "messenger": (messenger, "Lei")}


def import_cpu(fmt: str, n: int) -> float:
    make, me = FORMATS[fmt]
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "export.txt"
        export.write_text(make(n), encoding="utf-8")
        ws, _ = create_workspace(Path(tmp) / "ws", example=True)
        start = time.process_time()
        source = importers.open_export(export)
        now = dt.datetime(2026, 12, 3, 12, 0)
        parsed = importers.parse(fmt.split("-")[0], source, Context(now.date(), dt.timezone.utc, None, "Alice Chen"))
        router = importers.Router(parsed, me, routing.directory(ws), now, "alice")
        added, sha = importers.import_and_commit(ws, parsed, router, fmt)
        cpu = time.process_time() - start
        got = sum(sum(d.values()) for d in added.values())
        assert got == n and sha, (fmt, got)
        return cpu


def peak_memory(lines: int) -> int:
    """Peak RSS (MiB) of a WhatsApp import of `lines` messages, in a child process."""
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import imports, resource; "
            f"imports.import_cpu('whatsapp', {lines}); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1])


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args and args[0].isdigit() else 100_000
    if "--memory" in args:
        lines = int(args[args.index("--memory") + 1])
        small, big = peak_memory(lines // 10), peak_memory(lines)
        print(f"peak memory: {lines // 10:,} messages {small} MiB, {lines:,} messages {big} MiB; "
              f"ratio {big / small:.2f} (target: near 1)")
        return
    only = args[args.index("--only") + 1].split(",") if "--only" in args else list(FORMATS)
    base = import_cpu("whatsapp", n)
    print(f"{n:,} messages per format; CPU seconds and ratio to WhatsApp ({base:.1f} s)")
    for fmt in only:
        cpu = base if fmt == "whatsapp" else import_cpu(fmt, n)
        print(f"  {fmt:11} {cpu:6.1f} s  {cpu / base:5.2f}x")


if __name__ == "__main__":
    main()
