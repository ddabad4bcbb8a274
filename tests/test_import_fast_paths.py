"""The shortcuts an import takes per message decide exactly what the slow
way decided: a notice or a stand-in is still found when the regex is
skipped for texts that cannot match it, and the voice tally's counts by runs
equal its counts by characters. Each is checked against the plain regex (the
code before the shortcut) over texts of every alternative, in every case and
with the letters re's IGNORECASE reads differently from str.lower()."""

from __future__ import annotations

import datetime as dt
import random
import re

import pytest

from heartcompass import messages
from heartcompass.language import CJK
from heartcompass.memory import voice_tally

NOTICES = [
    "Messages and calls are end-to-end encrypted. No one outside of this chat can read them.",
    "Messages to this group are now secured with end-to-end encryption.",
    "Los mensajes y las llamadas están cifrados de extremo a extremo.",
    "Mensajes y llamadas están cifrados de extremo a extremo. Toca para más información.",
    "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt.",
    "Les messages et les appels sont chiffrés de bout en bout.",
    "消息和通话已进行端到端加密。", "訊息和通話都已受端對端加密保護。", "消息和通话受端到端加密保护",
    "Your security code with Alice Chen changed. Tap to learn more.",
    "Alice's security code changed.",
    "Alice turned on disappearing messages.", "Alice uses a default timer for disappearing messages.",
    "Alice reacted 👍 to your message", "reacted ❤️ to your message",
    "Tap to learn more.", "tap to change",
]
STAND_INS = [
    "<Media omitted>", "< Medien ausgeschlossen >", "<省略影音内容>", "image omitted", "Voice message omitted",
    "<attached: 00000012-PHOTO-2023-03-01.jpg>", "<附件：IMG_1.jpg>", "<已附加: a.png>", "<已省略多媒體檔案>",
    "IMG-20230301-WA0001.jpg (file attached)", "PTT-1.opus (文件附件)", "图片已省略", "語音被省略", "<省略图片>",
    "省略视频", "[图片]", "[Voice message]", "[动画表情]", "Photos", "Voice message", "スタンプ", "null",
    "![a cat](./media/cat.jpg)", "Alice Chen sent a photo.", "sent an attachment.",
    "This message was deleted", "You deleted this message", "This message was deleted by an admin today",
    "此消息已删除", "你删除了此消息", "此訊息已被刪除", "這則訊息已刪除", "小爱撤回了一条消息",
    "Missed voice call", "video call", "未接语音通话", "未接视频通話",
    "Waiting for this message. This may take a while.", "正在等待此消息，这可能需要一些时间",
]
WORDS = ["ok", "好呀", "message 1234 你好 how was the day", "see you at the river (maybe)", "[not a stand-in",
         "the call went fine", "I sent you a note.", "deleted scenes are the best", "waiting for you", "等待中",
         "<3 you", "tap tap", "these messages are cute", "5 reactions", "Photo", "a" * 14, ""]


def _odd_cases(text: str) -> list[str]:
    """The text as typed in other cases, and with re's odd case partners of i and s."""
    return [text, text.upper(), text.lower(), text.replace("i", "\u0130"), text.replace("i", "\u0131"),
            text.replace("s", "\u017f"), text.replace("I", "\u0131"), "\u200e" + text, f"  {text}\u200e "]


def _notice_by_regex(text: str) -> bool:
    text = text.strip()
    if text.startswith("\u200e") and not _kind_by_regex(text):
        return True
    return bool(messages._NOTICE.match(text.replace("\u200e", "").strip()))


def _kind_by_regex(text: str) -> str | None:
    text = text.strip().replace("\u200e", "")
    return next((kind for kind, pattern in messages._PLACEHOLDERS if pattern.match(text)), None)


def _fuzz(seed: int, n: int) -> list[str]:
    """Texts stitched from pieces of notices, stand-ins and words: near misses of every pattern."""
    rng = random.Random(seed)
    pieces = [p for t in NOTICES + STAND_INS + WORDS for p in re.split(r"(\s+)", t) if p] + ["\u0130", "\u017f"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(n)]


def test_every_notice_is_still_a_notice_and_a_message_still_a_message():
    """app_notice skips its regex only for texts it cannot match: the same answer as the regex alone."""
    assert all(_notice_by_regex(t) for t in NOTICES)  # the corpus holds real notices, each alternative once
    assert not any(_notice_by_regex(t) for t in WORDS)
    for text in [v for t in NOTICES + STAND_INS + WORDS for v in _odd_cases(t)] + _fuzz(1, 3000):
        assert messages.app_notice(text) == _notice_by_regex(text), repr(text)


def test_every_stand_in_is_still_a_stand_in_of_its_kind():
    """placeholder_kind skips its regexes only for texts none can match: the same kind as the regexes alone."""
    kinds = {_kind_by_regex(t) for t in STAND_INS}
    assert kinds == {"media", "deleted", "call", "pending"}  # every kind is in the corpus
    assert all(_kind_by_regex(t) for t in STAND_INS) and not any(_kind_by_regex(t) for t in WORDS)
    for text in [v for t in STAND_INS + NOTICES + WORDS for v in _odd_cases(t)] + _fuzz(2, 3000):
        assert messages.placeholder_kind(text) == _kind_by_regex(text), repr(text)


@pytest.mark.parametrize("text", [
    "message 1234 你好 how was the day", "今天下班以后我们去吃火锅吧", "好呀 12", "ok", "", "snake_case_words",
    "①②³ 五 ٣ x_y", "ß ǅ ﬁ İ ſ", "カタカナとひらがな mixed", "한국어 text 텍스트", "𠀀𠀁 rare Han", "__ 你 __ a b c d",
])
def test_the_voice_tally_counts_by_runs_what_it_counted_by_characters(text):
    """is_cjk and key_of decide as they did one character at a time: the same lines are CJK, the same
    lines share a key."""
    cjk = len(re.findall(f"[{CJK}]", text))
    by_characters = cjk > 0 and cjk * 2 >= len(re.findall(r"[^\W\d_]", text)) and not text.isascii()
    assert voice_tally.is_cjk(text) == by_characters
    assert voice_tally.key_of(text) == (re.sub(r"[\W_]+", "", text.casefold()) or text)


def test_a_times_seconds_are_its_own_not_a_cached_neighbours():
    """The cached seconds of a log time are that time's, for every time of a day."""
    for h in range(24):
        for m in range(0, 60, 7):
            for s in (0, 59):
                assert voice_tally._seconds(f"{h:02}:{m:02}:{s:02}") == h * 3600 + m * 60 + s


def test_a_full_pool_keeps_the_lines_score_keeps_in_its_order():
    """Past POOL_LIMIT a pool keeps its best-scored half, in score order (ties as they came), as sorting by
    score() itself keeps it: the day's recency worked out once changes no line kept nor their order."""
    rng = random.Random(5)
    tally = voice_tally.Tally(["Alice"], [])
    for i in range(voice_tally.POOL_LIMIT + 37):
        day = f"2024-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        tally.theirs[f"k{i}"] = voice_tally.Candidate(f"line {i}", day, rng.choice([1, 1, 2, 3, 8]))
    newest = dt.date(2024, 12, 31)
    want = sorted(tally.theirs.items(), key=lambda kv: -voice_tally.score(kv[1], newest))[:voice_tally.POOL_LIMIT // 2]
    tally.bound(newest.isoformat())
    assert list(tally.theirs) == [k for k, _ in want] and len(want) == voice_tally.POOL_LIMIT // 2
