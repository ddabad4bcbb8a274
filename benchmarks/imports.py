"""Import speed per app, as a ratio to WhatsApp's, and memory at scale.

    python benchmarks/imports.py [MESSAGES] [--repeat R] [--memory LINES] [--only FORMAT,...]

Prints (ratios, not timed tests):
- for each format, the CPU time to import MESSAGES (default 100,000)
  synthetic messages between two people into a fresh workspace (read,
  route, write the logs, refresh VOICE.md, commit), the best of R runs
  (default 1; a loaded machine wants 3), and its ratio to the WhatsApp
  import of the same messages (target: <= 1.0 for every format);
- the WhatsApp import's ratio to a bare importer (a regex per line, the
  day files written, nothing else), and how much of it the VOICE.md
  refresh takes, on a fresh workspace and on a second import of a tenth
  as many new messages (only the new lines are read);
- with --memory LINES: the peak memory of a LINES-line WhatsApp import (run
  in a child process) next to one a tenth its size (target: near 1, i.e.
  memory bounded whatever the size)."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.intake import importers, routing  # noqa: E402
from heartcompass.intake.exports import Context  # noqa: E402
from heartcompass.memory import voice  # noqa: E402
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


class Refresh:
    """CPU seconds spent refreshing VOICE.md during an import."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.real = voice.refresh

    def __call__(self, *args, **kwargs):
        start = time.process_time()
        try:
            return self.real(*args, **kwargs)
        finally:
            self.cpu += time.process_time() - start


def _import(ws, export: Path, fmt: str, me: str | None, n: int) -> tuple[float, float]:
    """(CPU seconds of the import, of its VOICE.md refresh)."""
    refresh = voice.refresh = Refresh()
    try:
        start = time.process_time()
        source = importers.open_export(export)
        now = dt.datetime(2026, 12, 3, 12, 0)
        parsed = importers.parse(fmt.split("-")[0], source, Context(now.date(), dt.timezone.utc, None, "Alice Chen"))
        router = importers.Router(parsed, me, routing.directory(ws, parsed.aka), now, "alice")
        added, sha = importers.import_and_commit(ws, parsed, router, fmt)
        cpu = time.process_time() - start
    finally:
        voice.refresh = refresh.real
    got = sum(sum(d.values()) for d in added.values())
    assert got == n and sha, (fmt, got)
    return cpu, refresh.cpu


def import_cpu(fmt: str, n: int, repeat: int = 1) -> float:
    make, me = FORMATS[fmt]
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "export.txt"
        export.write_text(make(n), encoding="utf-8")
        for i in range(repeat):
            ws, _ = create_workspace(Path(tmp) / f"ws{i}", example=True)
            best = min(best, _import(ws, export, fmt, me, n)[0])
    return best


def read_cpu(export: Path, fmt: str) -> float:
    """CPU seconds to read the export as an import does (the counting pass, then the messages), nothing written."""
    start = time.process_time()
    source = importers.open_export(export)
    now = dt.datetime(2026, 12, 3, 12, 0)
    parsed = importers.parse(fmt.split("-")[0], source, Context(now.date(), dt.timezone.utc, None, "Alice Chen"))
    for _ in parsed.messages():
        pass
    return time.process_time() - start


def table(formats: list[str], n: int, repeat: int) -> dict[str, tuple[float, float]]:
    """fmt -> (import, reading) CPU seconds, each the best of `repeat` rounds; the formats take turns in each
    round, so a busy moment of the machine falls on one run of each, not on every run of one."""
    best = {fmt: (float("inf"), float("inf")) for fmt in formats}
    with tempfile.TemporaryDirectory() as tmp:
        exports = {}
        for fmt in formats:
            exports[fmt] = Path(tmp) / f"{fmt}.txt"
            exports[fmt].write_text(FORMATS[fmt][0](n), encoding="utf-8")
        for r in range(repeat):
            for fmt in formats:
                ws, _ = create_workspace(Path(tmp) / f"ws-{fmt}-{r}", example=True)
                whole = _import(ws, exports[fmt], fmt, FORMATS[fmt][1], n)[0]
                best[fmt] = (min(best[fmt][0], whole), min(best[fmt][1], read_cpu(exports[fmt], fmt)))
    return best


def bare_cpu(n: int) -> float:
    """A bare regex importer of the WhatsApp export: one regex per line, each day's lines appended to its file."""
    header = re.compile(r"^(\d\d)/(\d\d)/(\d{4}), (\d\d:\d\d) - ([^:]+): (.*)$")
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "export.txt"
        export.write_text(whatsapp(n), encoding="utf-8")
        logs = Path(tmp) / "logs"
        logs.mkdir()
        start = time.process_time()
        days: dict[str, list[str]] = {}
        with open(export, encoding="utf-8") as f:
            for line in f:
                m = header.match(line)
                if m:
                    days.setdefault(f"{m[3]}-{m[2]}-{m[1]}", []).append(f"- {m[4]}:00 · import:{m[5]} · {m[6]}\n")
        for day, lines in days.items():
            with open(logs / f"{day}.md", "a", encoding="utf-8") as out:
                out.write("".join(lines))
        return time.process_time() - start


def voice_share(n: int, repeat: int) -> tuple[float, float, float, float]:
    """(import, its refresh) CPU seconds: on a fresh workspace, then a second import of n // 10 new messages."""
    make, me = FORMATS["whatsapp"]
    best = (float("inf"),) * 4
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp) / "first.txt", Path(tmp) / "second.txt"
        first.write_text(make(n), encoding="utf-8")
        second.write_text(make(n + n // 10), encoding="utf-8")  # the same chat, exported later: n // 10 more
        for i in range(repeat):
            ws, _ = create_workspace(Path(tmp) / f"ws{i}", example=True)
            a = _import(ws, first, "whatsapp", me, n)
            b = _import(ws, second, "whatsapp", me, n // 10)
            best = min(best, (*a, *b), key=lambda t: t[0] + t[2])
    return best


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
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
    only = args[args.index("--only") + 1].split(",") if "--only" in args else list(FORMATS)
    found = table(["whatsapp", *[f for f in only if f != "whatsapp"]], n, repeat)
    base, base_read = found["whatsapp"]
    print(f"{n:,} messages per format; CPU seconds (best of {repeat}) and ratio to WhatsApp's: the whole import "
          f"({base:.1f} s), and reading the export alone ({base_read:.1f} s), the part each format does its own way")
    for fmt in only:
        cpu, read = found[fmt]
        print(f"  {fmt:11} {cpu:6.1f} s  {cpu / base:5.2f}x   reading {read:5.2f} s  {read / base_read:5.2f}x")
    bare = bare_cpu(n)
    print(f"WhatsApp import / bare regex importer ({bare:.2f} s): {base / bare:.1f}x")
    first, first_voice, again, again_voice = voice_share(n, repeat)
    print(f"VOICE.md refresh: {first_voice:.1f} s of {first:.1f} s on a fresh workspace; "
          f"{again_voice:.2f} s of {again:.1f} s importing {n // 10:,} more into it")


if __name__ == "__main__":
    main()
