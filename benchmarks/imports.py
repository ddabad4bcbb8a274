"""Imports against a bare streaming parser, whole process, and their memory (issue 32).

    python benchmarks/imports.py [MESSAGES] [--repeat R] [--memory LINES (0: none)]
    python benchmarks/imports.py [MESSAGES] --formats [--only FORMAT,...]

Prints (ratios, not timed tests):
- the CPU time (user + system, the process and the git it runs) of the
  whole `heartcompass import` process for MESSAGES (default 100,000)
  synthetic messages between two people, a WhatsApp .txt and a MemoTrace
  (WeChat) CSV, into a fresh workspace (read, route, write the logs,
  VOICE.md, commit), against a bare streaming parser of the same export
  written here for the purpose (a Python process that reads it line by
  line, one regex or one CSV row per message, and appends each day's lines
  to its file as the day ends): the median of R interleaved runs (default
  3), as a ratio against the target of 3x;
- the peak memory (max RSS) of a WhatsApp import of LINES messages (default
  1,000,000) next to one of a tenth as many: target near 1, memory flat in
  the size of the export;
- with --formats: each format's in-process import CPU and its ratio to
  WhatsApp's (target <= 1.0), and the VOICE.md refresh's share."""

from __future__ import annotations

import datetime as dt
import json
import statistics
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
    return _stream_from(0, n)


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


# The bare streaming parsers the imports are measured against: what any importer must do at the least (read
# the export once, one regex or one CSV row per message, each day's lines appended to its file as the day ends),
# nothing else. Run as processes of their own, as the import is.
BARE_WHATSAPP = r"""
import re, sys
header = re.compile(r"^(\d\d)/(\d\d)/(\d{4}), (\d\d:\d\d) - ([^:]+): (.*)$")
out, day, held = sys.argv[2], None, []
def flush():
    if held:
        with open(f"{out}/{day}.md", "a", encoding="utf-8") as f:
            f.write("".join(held))
        held.clear()
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        m = header.match(line)
        if m is None:
            continue
        d = f"{m[3]}-{m[2]}-{m[1]}"
        if d != day:
            flush()
            day = d
        held.append(f"- {m[4]}:00 · import:{m[5]} · {m[6]}\n")
flush()
"""
BARE_MEMOTRACE = r"""
import csv, datetime as dt, sys
out, day, held = sys.argv[2], None, []
def flush():
    if held:
        with open(f"{out}/{day}.md", "a", encoding="utf-8") as f:
            f.write("".join(held))
        held.clear()
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    rows = csv.reader(f)
    next(rows)
    for row in rows:
        when = dt.datetime.fromtimestamp(int(row[5]))
        d = when.date().isoformat()
        if d != day:
            flush()
            day = d
        held.append(f"- {when.time().isoformat()} · import:{'me' if row[4] == '1' else 'them'} · {row[7]}\n")
flush()
"""
WHOLE = {"whatsapp": ("WhatsApp .txt", whatsapp, BARE_WHATSAPP, ["--me", "Lei"]),
         "wechat": ("MemoTrace CSV", wechat_csv, BARE_MEMOTRACE, [])}
TARGET = 3.0  # the whole import within 3x a bare streaming parser's CPU


# Runs a command from a small process and prints its CPU and peak RSS: a child forked from this big one would
# count this process's pages in its peak (Linux keeps the larger of the RSS before and after the exec).
LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status), file=sys.stderr)
"""


def _child(cmd: list[str], out: Path | None = None) -> tuple[float, int]:
    """(CPU seconds, user and system, of a process and the children it waited for; its peak RSS in MiB)."""
    with tempfile.TemporaryFile() as err, (open(out, "wb") if out else tempfile.TemporaryFile()) as stdout:
        subprocess.run([sys.executable, "-c", LAUNCH, *cmd], stdout=stdout, stderr=err, check=True)
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").splitlines()
    cpu, peak, code = lines[-1].split()
    if int(code):
        raise SystemExit(f"{' '.join(cmd[:6])}... failed:\n" + "\n".join(lines[-30:]))
    return float(cpu), int(peak) // 1024


def whole_import(fmt: str, export: Path, tmp: Path, n: int, tag: str) -> tuple[float, int]:
    """The `heartcompass import` process of `export` into a fresh workspace: (CPU seconds, peak MiB)."""
    ws, _ = create_workspace(tmp / f"ws-{fmt}-{tag}", example=True)
    summary = tmp / f"summary-{fmt}-{tag}.json"
    cpu, peak = _child([sys.executable, "-m", "heartcompass", "-w", str(ws.root), "import", "alice", str(export),
                        *WHOLE[fmt][3], "--json"], summary)
    added = json.loads(summary.read_text(encoding="utf-8"))["added"]
    assert added == n, (fmt, added, n)  # a real import of every message, not a refusal
    return cpu, peak


def bare(fmt: str, export: Path, tmp: Path, tag: str) -> tuple[float, int]:
    out = tmp / f"bare-{fmt}-{tag}"
    out.mkdir()
    return _child([sys.executable, "-c", WHOLE[fmt][2], str(export), str(out)])


def whole_process(n: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        exports = {}
        for fmt, (_, make, _, _) in WHOLE.items():
            exports[fmt] = tmp / f"{fmt}.txt"
            exports[fmt].write_text(make(n), encoding="utf-8")
        runs: dict[str, list[tuple[float, float]]] = {fmt: [] for fmt in WHOLE}
        for r in range(repeat):  # interleaved: a busy moment of the machine falls on one run of each
            for fmt in WHOLE:
                runs[fmt].append((whole_import(fmt, exports[fmt], tmp, n, str(r))[0],
                                  bare(fmt, exports[fmt], tmp, str(r))[0]))
    print(f"The whole `heartcompass import` process against a bare streaming parser, {n:,} messages, "
          f"CPU seconds (median of {repeat} interleaved runs; target: within {TARGET:g}x):")
    for fmt, pairs in runs.items():
        cpu = statistics.median(a for a, _ in pairs)
        floor = statistics.median(b for _, b in pairs)
        ratio = statistics.median(a / b for a, b in pairs)
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"  {WHOLE[fmt][0]:14} import {cpu:6.2f} s   bare {floor:5.2f} s   {ratio:5.1f}x "
              f"(target {TARGET:g}x: {verdict} it)")


def memory(lines: int) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        peaks = []
        for n in (lines // 10, lines):
            export = tmp / f"whatsapp-{n}.txt"
            with open(export, "w", encoding="utf-8") as f:
                for start in range(0, n, 100_000):  # never the whole export in this process either
                    f.write("".join(f"{w:%d/%m/%Y}, {w:%H:%M} - {'Alice Chen' if h else 'Lei'}: {t}\n"
                                    for w, h, t in _stream_from(start, min(n, start + 100_000))))
            peaks.append((whole_import("whatsapp", export, tmp, n, f"m{n}")[1], bare("whatsapp", export, tmp,
                                                                                     f"m{n}")[1]))
            export.unlink()
    (small, bare_small), (big, bare_big) = peaks
    print(f"Peak memory of the whole import process (max RSS): {lines // 10:,} WhatsApp messages {small} MiB, "
          f"{lines:,} messages {big} MiB: {big / small:.2f}x for 10x the lines (target: near 1, flat); "
          f"the bare parser {bare_small} and {bare_big} MiB")


def _stream_from(start: int, end: int):
    for i in range(start, end):
        when = START + dt.timedelta(minutes=7 * i)
        her = i % 2 == 1
        text = f"message {i} 你好 how was the day" if i % 3 else f"好呀 {i % 50}"
        yield when, her, text


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args and args[0].isdigit() else 100_000
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    if "--formats" in args:
        formats_table(n, repeat, args)
        return
    whole_process(n, repeat)
    lines = int(args[args.index("--memory") + 1]) if "--memory" in args else 1_000_000
    if lines:  # --memory 0: the CPU ratios alone
        memory(lines)


def formats_table(n: int, repeat: int, args: list[str]) -> None:
    only = args[args.index("--only") + 1].split(",") if "--only" in args else list(FORMATS)
    found = table(["whatsapp", *[f for f in only if f != "whatsapp"]], n, repeat)
    base, base_read = found["whatsapp"]
    print(f"{n:,} messages per format; CPU seconds (best of {repeat}) and ratio to WhatsApp's: the whole import "
          f"({base:.1f} s), and reading the export alone ({base_read:.1f} s), the part each format does its own way")
    for fmt in only:
        cpu, read = found[fmt]
        print(f"  {fmt:11} {cpu:6.1f} s  {cpu / base:5.2f}x   reading {read:5.2f} s  {read / base_read:5.2f}x")
    first, first_voice, again, again_voice = voice_share(n, repeat)
    print(f"VOICE.md refresh: {first_voice:.1f} s of {first:.1f} s on a fresh workspace; "
          f"{again_voice:.2f} s of {again:.1f} s importing {n // 10:,} more into it")


if __name__ == "__main__":
    main()
