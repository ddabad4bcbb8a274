"""What a chat message is, wherever it comes from (an export, a log, a
card): the stand-ins apps write in place of one (media, a deleted message,
a call), and whether a speaker is the person. Import skips the stand-ins
and warns when no speaker is the person; the voice never quotes a stand-in
and takes only the person's own lines. One list, used by both."""

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
      | \[(?:图片|语音|表情|视频|动画表情|文件|链接)\]
      | null
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

def placeholder_kind(text: str) -> str | None:
    """Which app stand-in this message text is, or None for a real message."""
    text = text.strip().replace("\u200e", "")
    for kind, pattern in _PLACEHOLDERS:
        if pattern.match(text):
            return kind
    return None


def matches_person(speaker: str, names: list[str]) -> bool:
    """Whether an export's speaker is one of the person's names or aliases
    (ignoring case, spaces and underscores, or by first name)."""
    def squash(text: str) -> str:
        return re.sub(r"[\s_·.]+", "", unicodedata.normalize("NFKC", text)).casefold()

    who = squash(speaker)
    first = speaker.split()[0].casefold() if speaker.split() else ""
    return any(who == squash(n) or (first and first == n.split()[0].casefold()) for n in names if n.strip())
