"""WeChat as the common exporters write it:

- MemoTrace/WeChatMsg CSV: `localId,TalkerId,Type,SubType,IsSender,
  CreateTime,Status,StrContent,StrTime[,Remark,NickName,Sender]` (a one-to-one
  chat's rows stop after StrTime). Type 1 is text, 10000 a system line,
  the rest media; IsSender 1 is the user; CreateTime is Unix seconds.
- MemoTrace TXT: `YYYY-MM-DD HH:MM:SS name`, the content below, a blank
  line between messages; a system line has a time and no name; a reply is
  its text then `引用:name:content` (their words, left out).
- PyWxDump CSV: `id,MsgSvrID,type_name,is_sender,talker,room_name,msg,src,
  CreateTime`, senders by wxid only (routed by handle).

In a one-to-one chat the rows do not name the other side: they are the
person the import is for (or the file's name)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import body as message_body, clean, lines, name
from heartcompass.messages import placeholder_kind

MEMOTRACE_HEADER = "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime"
PYWXDUMP_HEADER = "id,MsgSvrID,type_name,is_sender,talker,room_name,msg,src,CreateTime"
FIX = "Export the chat again with MemoTrace (CSV or TXT) or PyWxDump (CSV), or force --format."
_TXT_HEADER = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?: (.+))?$")
_QUOTE = re.compile(r"^引用[:：]")
_PYWX_TEXT = ("文本", "引用回复", "text")
_PYWX_NOTICE = ("系统通知", "撤回消息", "拍一拍", "系统消息")


def _other(ctx: Context, path: Path | str) -> str:
    return ctx.person or Path(path).stem


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    head = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    if head.startswith(MEMOTRACE_HEADER):
        return _memotrace_csv(text, path, ctx)
    if head.startswith(PYWXDUMP_HEADER):
        return _pywxdump_csv(text, path, ctx)
    return _memotrace_txt(text, path, ctx)


def _rows(text: str):
    """(line number, row) of a CSV whose quoted cells may hold line breaks."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), strict=False)
    next(reader, None)
    for row in reader:
        yield reader.line_num, row


def _memotrace_csv(text: str, path: Path | str, ctx: Context) -> Export:
    out, bad, notices, senders = [], [], 0, set()
    group = None
    for n, row in _rows(text):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < 9:
            bad.append((n, f"a row of {len(row)} values, not the 9 or 12 of a MemoTrace CSV"))
            continue
        talker, kind, mine = row[1], row[2].strip(), row[4].strip() == "1"
        try:
            when = ctx.local(int(float(row[5]))) if row[5].strip() else dt.datetime.fromisoformat(row[8].strip())
        except (ValueError, OverflowError, OSError):
            bad.append((n, f"no real time in CreateTime {row[5]!r} or StrTime {row[8]!r}"))
            continue
        if talker.endswith("@chatroom"):
            group = group or talker
        if kind in ("10000", "10002"):
            notices += 1
            continue
        body = clean(row[7]) if kind == "1" else ""
        place = placeholder_kind(body) if body else "media"
        extra = row[9:12] + [""] * (12 - len(row))
        remark, nick, sender = name(extra[0]), name(extra[1]), name(extra[2])
        if mine:
            speaker = nick if len(row) > 9 and nick else "me"
        else:
            speaker = remark or nick or (sender if len(row) > 9 and sender else _other(ctx, path))
        handle = sender if len(row) > 9 and sender else ("" if mine else talker)
        senders.add(handle or speaker)
        out.append(Message(when, speaker, body, n, place, handle=handle, mine=mine))
    if not out and not bad:
        raise FormatError(path, "no WeChat messages found", 2, FIX)
    return Export(out, bad, group=group if group or len(senders) > 2 else None, notices=notices)


def _pywxdump_csv(text: str, path: Path | str, ctx: Context) -> Export:
    out, bad, notices, room = [], [], 0, None
    for n, row in _rows(text):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < 9:
            bad.append((n, f"a row of {len(row)} values, not the 9 of a PyWxDump CSV"))
            continue
        kind, mine, talker, room_name, msg, stamp = row[2].strip(), row[3].strip() in ("1", "True"), \
            name(row[4]), name(row[5]), row[6], row[8].strip()
        try:
            when = ctx.local(int(stamp)) if stamp.isdigit() else dt.datetime.fromisoformat(stamp)
        except (ValueError, OverflowError, OSError):
            bad.append((n, f"no real time in CreateTime {stamp!r}"))
            continue
        room = room or (room_name if room_name.endswith("@chatroom") else None)
        if kind in _PYWX_NOTICE:
            notices += 1
            continue
        body = clean(msg) if kind in _PYWX_TEXT else ""
        place = placeholder_kind(body) if body else "media"
        if mine:
            speaker, handle = "me", talker
        elif room:
            speaker, handle = talker, talker
        else:
            speaker, handle = _other(ctx, path), talker or room_name
        out.append(Message(when, speaker, body, n, place, handle=handle, mine=mine))
    if not out and not bad:
        raise FormatError(path, "no WeChat messages found", 2, FIX)
    return Export(out, bad, group=room, notices=notices)


def _memotrace_txt(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    notices = 0
    body: list[str] | None = None  # the current message's lines; None before the first header
    current: tuple[int, dt.datetime, str | None] | None = None

    def close() -> None:
        nonlocal notices
        if current is None:
            return
        n, when, who = current
        kept = [line for line in body or [] if not _QUOTE.match(line)]  # a quote is their words, not the sender's
        content, kind = message_body(kept)
        if who is None or not any(line.strip() for line in kept):
            notices += 1  # a system line: a time and no name
            return
        out.append(Message(when, who, content, n, kind))

    for n, line in lines(text.lstrip("\ufeff")):
        m = _TXT_HEADER.match(line)
        if m:
            close()
            try:
                current = (n, dt.datetime.fromisoformat(m[1]), name(m[2]) or None)
            except ValueError:
                bad.append((n, f"{m[1]} is not a real date and time"))
                current = None
            body = []
        elif body is not None:
            body.append(line)
        elif line.strip():
            bad.append((n, f"not a WeChat message header (YYYY-MM-DD HH:MM:SS name): {line.strip()[:60]!r}"))
    close()
    if not out:
        raise FormatError(path, "no WeChat messages found", 1, FIX)
    return Export(out, bad, notices=notices)
