"""QQ's message manager TXT export: a `消息记录` header, `消息分组:` and
`消息对象:` lines between rules of `=`, then messages as
`YYYY-MM-DD HH:MM:SS nick(QQ number)` (or `nick<address>`) with the content
below. The QQ number is the sender's handle; `[图片]`, `[表情]` are media."""

from __future__ import annotations

import datetime as dt
import re
from typing import Iterator

from heartcompass.errors import FormatError
from heartcompass.intake.exports.common import Source
from heartcompass.intake.exports.records import Context, Message, Report
from heartcompass.intake.exports.common import body as message_body, name
from heartcompass.intake.exports.reader import records

_HEADER = re.compile(r"^((\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2})) (.*?)(?:\((\d{4,12})\)|<([^<>\s]+)>)?\s*$")
_FIELD = re.compile(r"^(消息分组|消息对象)[:：](.*)$")
FIX = "Export from QQ's message manager as a .txt file (右键聊天 > 导出消息记录 > .txt)."


def _header(line: str) -> re.Match | None:
    return _HEADER.match(line) if line[:1].isdigit() else None


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    fields: dict[str, str] = {}

    def title(n: int, line: str) -> bool:  # the lines above the first message: the chat's name, rules
        f = _FIELD.match(line.strip())
        if f:
            fields[f[1]] = name(f[2])
            report.chat = fields.get("消息对象")
            report.group = fields.get("消息对象") if "群" in fields.get("消息分组", "") else None
        return bool(f) or line.strip().startswith(("消息记录", "="))

    found = False
    for n, m, body in records(source, _header, report, "not a QQ message header", title):
        try:
            y, mo, d, h, mi, s = map(int, m.group(2, 3, 4, 5, 6, 7))
            when = dt.datetime(y, mo, d, h, mi, s)  # not strptime: five times slower
        except ValueError:
            report.skip(n, f"{m[1]} is not a real date and time")
            continue
        text, kind = message_body(body)
        found = True
        yield Message(when, name(m[8]) or m[9] or m[10] or "unknown", text, n, kind, handle=m[9] or m[10] or "")
    if not found:
        raise FormatError(source.path, "no QQ messages found", 1, FIX)
