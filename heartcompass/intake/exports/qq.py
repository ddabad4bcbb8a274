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

_HEADER = re.compile(r"^((\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2})) (.*?)(?:\((\d{4,12})\)|<([^<>\s]+)>)?\s*$")
_FIELD = re.compile(r"^(消息分组|消息对象)[:：](.*)$")
FIX = "Export from QQ's message manager as a .txt file (右键聊天 > 导出消息记录 > .txt)."


def messages(source: Source, ctx: Context, report: Report) -> Iterator[Message]:
    fields: dict[str, str] = {}
    current: Message | None = None
    body: list[str] = []
    found = False
    for n, line in source.lines():
        m = _HEADER.match(line) if line[:1].isdigit() else None
        f = _FIELD.match(line.strip()) if not m and current is None else None
        if m:
            if current is not None:
                current.text, current.placeholder = message_body(body)
                found = True
                yield current
            body = []
            try:
                when = dt.datetime(*map(int, m.group(2, 3, 4, 5, 6, 7)))  # not strptime: five times slower
            except ValueError:
                report.skip(n, f"{m[1]} is not a real date and time")
                current = None
                continue
            current = Message(when, name(m[8]) or m[9] or m[10] or "unknown", "", n, handle=m[9] or m[10] or "")
        elif f and current is None and not found:
            fields[f[1]] = name(f[2])
            report.chat = fields.get("消息对象")
            report.group = fields.get("消息对象") if "群" in fields.get("消息分组", "") else None
        elif current is not None:
            body.append(line)
        elif line.strip() and not line.strip().startswith(("消息记录", "=")):
            report.skip(n, f"not a QQ message header: {line.strip()[:60]!r}")
    if current is not None:
        current.text, current.placeholder = message_body(body)
        yield current
    elif not found:
        raise FormatError(source.path, "no QQ messages found", 1, FIX)
