"""Which app wrote an export, from its first few kilobytes."""

from __future__ import annotations

import re

from heartcompass.intake.exports.imessage import STAMP
from heartcompass.intake.exports.wechat import MEMOTRACE_HEADER, PYWXDUMP_HEADER
from heartcompass.intake.exports.whatsapp import HEADER as WHATSAPP

_WECHAT_TXT = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: .+)?$")
_STAMPED = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(?::\d{2})?\] ")
_WA_SHAPE = re.compile(r"^\u200e?\[?\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\.?,\s|^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\s+\S+\s+-\s"
                       # iOS with year-first dates (Chinese, Japanese phones): [2025/11/14 下午9:03:15]
                       # (slashes, seconds: a plain transcript's [2024-03-01 21:04] stamps are not these)
                       r"|^\u200e?\[\d{4}[./]\d{1,2}[./]\d{1,2}\s+\D{0,2}\d{1,2}:\d{2}:\d{2}")


def detect(text: str, filename: str = "") -> str:
    head = text[:8192].lstrip("\ufeff \t\r\n")
    first = next((line for line in head.split("\n") if line.strip()), "").strip()
    if head.startswith("{") or re.match(r"\[\s*[{\]]", head):
        if '"_type"' in first or '"chatlab"' in head:
            return "chatlab"
        if '"participants"' in head and '"sender_name"' in head or '"timestamp_ms"' in head:
            return "messenger"
        if '"guild"' in head and '"channel"' in head:
            return "discord"
        return "telegram"
    if first.startswith(MEMOTRACE_HEADER) or first.startswith(PYWXDUMP_HEADER):
        return "wechat"
    if first.startswith("[LINE]") or "\t" in head and re.search(r"^\d{4}[./]\d{2}[./]\d{2}", first):
        return "line"
    if first.startswith("消息记录") or "消息对象:" in head or "消息对象：" in head:
        return "qq"
    if STAMP.match(first):
        return "imessage"
    if _WECHAT_TXT.match(first):
        return "wechat"
    if _STAMPED.match(first) and (filename.endswith(".md") or "](./media/" in head or "](media/" in head):
        return "signal"
    if _WA_SHAPE.match(first) and WHATSAPP.match(first):
        return "whatsapp"
    return "plain"
