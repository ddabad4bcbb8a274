"""QQ's message manager TXT export: a `消息记录` header, `消息分组:` and
`消息对象:` lines between rules of `=`, then messages as
`YYYY-MM-DD HH:MM:SS nick(QQ number)` (or `nick<address>`) with the content
below. The QQ number is the sender's handle; `[图片]`, `[表情]` are media."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, Export, Message
from heartcompass.intake.exports.common import body as message_body, lines, name

_HEADER = re.compile(r"^(\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}:\d{2}) (.*?)(?:\((\d{4,12})\)|<([^<>\s]+)>)?\s*$")
_FIELD = re.compile(r"^(消息分组|消息对象)[:：](.*)$")
FIX = "Export from QQ's message manager as a .txt file (右键聊天 > 导出消息记录 > .txt)."


def parse(text: str, path: Path | str, ctx: Context) -> Export:
    out: list[Message] = []
    bad: list[tuple[int, str]] = []
    fields: dict[str, str] = {}
    current: Message | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            current.text, current.placeholder = message_body(body)
            out.append(current)

    for n, line in lines(text.lstrip("\ufeff")):
        m = _HEADER.match(line)
        f = _FIELD.match(line.strip())
        if m:
            close()
            body = []
            try:
                when = dt.datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S")
            except ValueError:
                bad.append((n, f"{m[1]} is not a real date and time"))
                current = None
                continue
            current = Message(when, name(m[2]) or m[3] or m[4] or "unknown", "", n, handle=m[3] or m[4] or "")
        elif f and current is None:
            fields[f[1]] = name(f[2])
        elif current is not None:
            body.append(line)
        elif line.strip() and not line.strip().startswith(("消息记录", "=")):
            bad.append((n, f"not a QQ message header: {line.strip()[:60]!r}"))
    close()
    if not out:
        raise FormatError(path, "no QQ messages found", 1, FIX)
    group = fields.get("消息对象") if "群" in fields.get("消息分组", "") else None
    return Export(out, bad, group=group, chat=fields.get("消息对象"))
