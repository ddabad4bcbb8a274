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
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import body as message_body, clean, name
from heartcompass.intake.exports.reader import records
from heartcompass.messages import placeholder_kind

MEMOTRACE_HEADER = "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime"
PYWXDUMP_HEADER = "id,MsgSvrID,type_name,is_sender,talker,room_name,msg,src,CreateTime"
FIX = "Export the chat again with MemoTrace (CSV or TXT) or PyWxDump (CSV), or force --format."
_TXT_HEADER = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?: (.+))?$")
_QUOTE = re.compile(r"^引用[:：]")
_PYWX_TEXT = ("文本", "引用回复", "text")
_PYWX_NOTICE = ("系统通知", "撤回消息", "拍一拍", "系统消息")


def _other(ctx: Context, source: Source) -> str:
    return ctx.person or source.path.stem


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    head = source.head(1024).split("\n", 1)[0].strip()
    if head.startswith(MEMOTRACE_HEADER):
        return _memotrace_csv(source, ctx, report)
    if head.startswith(PYWXDUMP_HEADER):
        return _pywxdump_csv(source, ctx, report)
    return _memotrace_txt(source, ctx, report)


def _rows(source: Source):
    """(line number, row) of a CSV whose quoted cells may hold line breaks, read line by line."""
    numbered = source.lines()
    where = [0]

    def feed():
        for n, line in numbered:
            where[0] = n
            yield line + "\n"

    reader = csv.reader(feed(), strict=False)
    next(reader, None)
    for row in reader:
        yield where[0], row


def _memotrace_csv(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    senders: set[str] = set()
    any_row = False
    other = _other(ctx, source)
    for n, row in _rows(source):
        if not "".join(row).strip():  # a blank row: no cell holds anything but spaces
            continue
        any_row = True
        if len(row) < 9:
            report.skip(n, f"a row of {len(row)} values, not the 9 or 12 of a MemoTrace CSV")
            continue
        talker, kind, mine = row[1], row[2].strip(), row[4].strip() == "1"
        try:
            when = ctx.local(int(float(row[5]))) if row[5].strip() else dt.datetime.fromisoformat(row[8].strip())
        except (ValueError, OverflowError, OSError):
            report.skip(n, f"no real time in CreateTime {row[5]!r} or StrTime {row[8]!r}")
            continue
        if talker.endswith("@chatroom"):
            report.group = report.group or talker
        if kind in ("10000", "10002"):
            report.notices += 1
            continue
        body = clean(row[7]) if kind == "1" else ""
        place = placeholder_kind(body) if body else "media"
        if len(row) > 9:  # a group's row: Remark, NickName, Sender
            extra = row[9:12] + [""] * (12 - len(row))
            remark, nick, sender = name(extra[0]), name(extra[1]), name(extra[2])
        else:  # a one-to-one chat's: the other side is the person
            remark = nick = sender = ""
        if mine:
            speaker = nick if len(row) > 9 and nick else "me"
        else:
            speaker = remark or nick or (sender if len(row) > 9 and sender else other)
        handle = sender if len(row) > 9 and sender else ("" if mine else talker)
        senders.add(handle or speaker)
        if len(senders) > 2 and report.group is None:
            report.group = source.path.stem  # three people talking: a group, whatever its id
        yield Message(when, speaker, body, n, place, handle=handle, mine=mine)
    if not any_row:
        raise FormatError(source.path, "no WeChat messages found", 2, FIX)


def _pywxdump_csv(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    any_row = False
    for n, row in _rows(source):
        if not "".join(row).strip():  # a blank row: no cell holds anything but spaces
            continue
        any_row = True
        if len(row) < 9:
            report.skip(n, f"a row of {len(row)} values, not the 9 of a PyWxDump CSV")
            continue
        kind, mine, talker, room_name, msg, stamp = row[2].strip(), row[3].strip() in ("1", "True"), \
            name(row[4]), name(row[5]), row[6], row[8].strip()
        try:
            when = ctx.local(int(stamp)) if stamp.isdigit() else dt.datetime.fromisoformat(stamp)
        except (ValueError, OverflowError, OSError):
            report.skip(n, f"no real time in CreateTime {stamp!r}")
            continue
        if room_name.endswith("@chatroom"):
            report.group = report.group or room_name
        if kind in _PYWX_NOTICE:
            report.notices += 1
            continue
        body = clean(msg) if kind in _PYWX_TEXT else ""
        place = placeholder_kind(body) if body else "media"
        if mine:
            speaker, handle = "me", talker
        elif room_name.endswith("@chatroom"):
            speaker, handle = talker, talker
        else:
            speaker, handle = _other(ctx, source), talker or room_name
        yield Message(when, speaker, body, n, place, handle=handle, mine=mine)
    if not any_row:
        raise FormatError(source.path, "no WeChat messages found", 2, FIX)


def _txt_header(line: str) -> re.Match | None:
    return _TXT_HEADER.match(line) if line[:1].isdigit() else None


def _memotrace_txt(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    found = False
    for n, m, body in records(source, _txt_header, report, "not a WeChat message header (YYYY-MM-DD HH:MM:SS name)"):
        try:
            when = dt.datetime.fromisoformat(m[1])
        except ValueError:
            report.skip(n, f"{m[1]} is not a real date and time")
            continue
        who = name(m[2])
        kept = [line for line in body if not _QUOTE.match(line)]  # a quote is their words, not the sender's
        if not who or not any(line.strip() for line in kept):
            report.notices += 1  # a system line: a time and no name
            continue
        content, kind = message_body(kept)
        found = True
        yield Message(when, who, content, n, kind)
    if not found:
        raise FormatError(source.path, "no WeChat messages found", 1, FIX)
