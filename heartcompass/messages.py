"""What a chat message is, wherever it comes from (an export, a log, a
card): the stand-ins apps write in place of one (media, a deleted message,
a call), and whether a speaker is the person. Import skips the stand-ins
and warns when no speaker is the person; the voice never quotes a stand-in
and takes only the person's own lines. One list, used by both. And whether a
text names someone (`tell` and the gardener's links)."""

from __future__ import annotations

import re
import unicodedata

# What the apps write in place of a message (English and Chinese, Android and iOS exports).
_PLACEHOLDERS = (
    ("media", re.compile(r"""(?ix)^(?:
        <\s*(?:media\ omitted|medien\ ausgeschlossen|multimedia\ omitido|m[ée]dias?\ omis|media\ weggelaten
              |省略影音内容|媒体已省略|已省略媒体|媒体文件已省略|省略媒体|媒體已略去|省略媒體|已略去媒體)\s*>
      | (?:image|video|audio|sticker|gif|document|photo|contact\ card|voice\ message)\ omitted
      | <attached:\ [^>]+> | <附件[:：]\s*[^>]+> | <已附加[:：]\s*[^>]+> | <已省略多媒體檔案>
      | \S+\.(?:jpe?g|png|gif|webp|heic|mp4|mov|3gp|opus|ogg|m4a|aac|pdf|vcf|webm)\ \((?:file\ attached|文件附件|已附加檔案)\)
      | (?:图片|圖片|图像|圖像|照片|视频|影片|視訊|音频|音訊|语音|語音|贴图|貼圖|文件|文档|檔案|GIF|联系人名片|聯絡人卡片)
        (?:已省略|已忽略|已略去|省略|被省略)
      | <?省略(?:图片|圖片|视频|影片|音频|語音|语音|贴图|貼圖|文件)>?
      | \[(?:图片|語音|语音|表情|表情包|视频|視訊|动画表情|文件|链接|音乐分享|位置|名片|聊天记录|小程序|红包|转账|
             Photo|Photos|Sticker|Stickers|Video|Videos|File|Files|Voice\ message|Audio|Image|Location|Contact)\]
      | (?:Photos|Stickers|Videos|Files|Audio|Voice\ message|图片|贴图|照片|影片|語音訊息|スタンプ|写真|動画)
      | !?\[[^\]\n]*\]\((?:\./)?media/[^)\n]+\)
      | null | (?:.{1,40}\ )?sent\ (?:an\ attachment|a\ photo|a\ sticker|a\ video|a\ voice\ message|a\ gif)\.
    )$""")),
    ("deleted", re.compile(r"""(?ix)^(?:
        this\ message\ was\ deleted | you\ deleted\ this\ message | this\ message\ was\ deleted\ by\ an?\ admin.*
      | 此消息已删除 | 此消息已被删除 | 这条消息已删除 | 你删除了此消息 | 您删除了此消息 | 你已删除此消息
      | 此訊息已刪除 | 此訊息已被刪除 | 這則訊息已刪除 | 你已刪除此訊息 | 您已刪除此訊息
      | .*撤回了一条消息
    )$""")),
    ("call", re.compile(r"(?i)^(?:missed (?:voice|video|group) call|voice call|video call|未接(?:语音|視訊|视频|語音)通话|"
                        r"未接(?:语音|视频)通話)$")),
    ("pending", re.compile(r"(?i)^(?:waiting for this message\. this may take a while\.|正在等待此消息.*|正在等待此訊息.*)$")),
)

# What the apps write about the chat itself, under the chat's or a member's
# name, with or without iOS's U+200E: never anyone's words. Only texts no
# one would type (a member "left" is a notice only with iOS's mark).
_NOTICE = re.compile(r"""(?ix)^(?:
    messages\ (?:and\ calls\ )?(?:to\ this\ (?:group|chat)\ )?(?:are|is)\ (?:now\ )?(?:end-to-end\ encrypted|secured).*
  | (?:los\ )?mensajes\ y\ (?:las\ )?llamadas\ están\ cifrados\ de\ extremo\ a\ extremo.*
  | nachrichten\ und\ anrufe\ sind\ ende-zu-ende-verschlüsselt.*
  | les\ messages\ et\ les\ appels\ sont\ chiffrés\ de\ bout\ en\ bout.*
  | 消息和通话(?:都)?已进行端到端加密.* | 訊息和通話(?:都)?已受端對端加密保護.* | 消息和通话受端到端加密保护.*
  | your\ security\ code\ with\ .+\ changed.* | .*(?:'s)?\ security\ code\ changed.*
  | .*(?:turned\ (?:on|off)\ disappearing\ messages|uses\ a\ default\ timer\ for\ disappearing\ messages).*
  | .+\ reacted\ .{1,8}\ to\ your\ message | reacted\ .{1,8}\ to\ your\ message
  | tap\ to\ (?:learn\ more|change)\.?
)$""")


def _scoped(pattern: str) -> str:
    """`(?ix)body` as `(?ix:body)`, so patterns with their own flags can be joined."""
    m = re.match(r"\(\?([a-z]+)\)", pattern)
    return f"(?{m[1]}:{pattern[m.end():]})" if m else f"(?:{pattern})"


_ANY_PLACEHOLDER = re.compile("|".join(_scoped(p.pattern) for _, p in _PLACEHOLDERS))


def app_notice(text: str) -> bool:
    """Whether a message's text is the app talking about the chat (an
    encryption notice, a member joined, a subject changed), not a person."""
    text = text.strip()
    if text.startswith("\u200e") and not placeholder_kind(text):
        return True  # iOS marks every notice so, whatever it says
    text = text.replace("\u200e", "").strip()
    if not _may_be_notice(text):
        return False
    return bool(_NOTICE.match(text))


def _may_be_notice(text: str) -> bool:
    """False for a text no _NOTICE alternative can match: each holds one of
    these words (as re's IGNORECASE reads them), found without the regex,
    whose leading .* tries alternatives at every character (a sixth of a
    WhatsApp message's parse). İ, ı and ſ are the letters IGNORECASE takes
    for i or s and str.lower() does not turn into them: the regex decides."""
    if "\u0130" in text or "\u0131" in text or "\u017f" in text:
        return True
    low = text.lower()
    return ("messages" in low or "mensajes" in low or "nachrichten" in low or "和通" in low
            or "security code" in low or "reacted" in low or "tap to" in low)


def placeholder_kind(text: str) -> str | None:
    """Which app stand-in this message text is, or None for a real message."""
    text = text.strip().replace("\u200e", "")
    if not _may_be_placeholder(text) or not _ANY_PLACEHOLDER.match(text):  # one match instead of four, or none
        return None
    for kind, pattern in _PLACEHOLDERS:
        if pattern.match(text):
            return kind
    return None


def _may_be_placeholder(text: str) -> bool:
    """False for a text no stand-in pattern can match, found without the
    regexes (whose `\\S+\\.` and `.{1,40} sent` try every character): each
    pattern holds one of these marks or words, or is a whole text of at most
    13 characters ("Voice message", "null", "[图片]"). İ, ı and ſ: as in
    _may_be_notice, the regex decides."""
    if len(text) <= 13 or "<" in text or "[" in text or "(" in text or "略" in text or "删除" in text \
            or "刪除" in text or "撤回" in text or "未接" in text or "等待" in text:
        return True
    if "\u0130" in text or "\u0131" in text or "\u017f" in text:
        return True
    low = text.lower()
    return "omitted" in low or "sent " in low or "deleted" in low or "call" in low or "waiting" in low


def matches_person(speaker: str, names: list[str]) -> bool:
    """Whether an export's speaker is one of the person's names or aliases
    (ignoring case, spaces and underscores, or by first name)."""
    def squash(text: str) -> str:
        return re.sub(r"[\s_·.]+", "", unicodedata.normalize("NFKC", text)).casefold()

    who = squash(speaker)
    first = speaker.split()[0].casefold() if speaker.split() else ""
    return any(who == squash(n) or (first and first == n.split()[0].casefold()) for n in names if n.strip())


def names_in(name: str, text: str) -> bool:
    """Whether a text names someone: a Latin-script name as a whole word ("Li"
    not in "Lisa"), any other (Chinese, Japanese) anywhere in it, since those
    are written without spaces. Both already casefolded by the caller."""
    if name not in text:
        return False
    if not name.isascii():
        return True
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None
