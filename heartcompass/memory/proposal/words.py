"""The words the support check must not be fooled by: numbers spelled out
("five thousand", 五千, "5 thousand", 5万 are 5000, so an amount cannot be
laundered past the number check in words), filler ("haha", "ok", "lol",
哈哈, 嗯) that shares a word with anything and supports nothing, and the
words that can support a relation, a gender or a month. No model here."""

from __future__ import annotations

import functools
import re

# -- numbers in words -------------------------------------------------------------------
_UNITS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                     "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9, "k": 1000,
           "百": 100, "千": 1000, "万": 10 ** 4, "萬": 10 ** 4, "亿": 10 ** 8, "億": 10 ** 8}
_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand", "million", "billion"], key=len, reverse=True))
_SPELLED = re.compile(rf"\b(?:{_WORD})(?:(?:[\s-]+(?:and[\s-]+)?)(?:{_WORD}))*\b", re.I)
# a digit amount with a scale after it: "5 thousand", "2.5k", "3万", "5千"
_SCALED = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(hundred|thousand|million|billion|k|百|千|万|萬|亿|億)(?![a-z])", re.I)
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "两": 2, "三": 3, "叁": 3, "四": 4, "肆": 4,
              "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9}
_ZH_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_ZH_BIG = {"万": 10 ** 4, "萬": 10 ** 4, "亿": 10 ** 8, "億": 10 ** 8}
# 一 before 起, 直, 样... is a word (一起 together, 一直 always), not one: "周六一起" holds 6, not 61
_ZH_RUN = re.compile("(?:[" + "".join(c for c in [*_ZH_DIGITS, *_ZH_UNITS, *_ZH_BIG] if c != "一")
                     + "]|一(?![起直样定些下点般切共边会旦向度同再块儿]))+")
# runs that are words, not amounts: 一起/一直 (a lone 一), 千万 ("by all means"), 万一 ("in case")
_ZH_NOT_NUMBERS = {"一", "千万", "万一", "一一", "万", "千", "百", "亿"}


def _english(words: str) -> int | None:
    total = current = 0
    for w in re.split(r"[\s-]+", words.casefold()):
        if w == "and":
            continue
        if w in _UNITS:
            current += _UNITS[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        else:
            total += (current or 1) * _SCALES[w]
            current = 0
    return total + current


def _chinese(run: str) -> int:
    if not any(c in _ZH_UNITS or c in _ZH_BIG for c in run):  # 二〇二三: digit by digit
        return int("".join(str(_ZH_DIGITS[c]) for c in run))
    total = section = digit = 0
    for c in run:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c in _ZH_UNITS:
            section += (digit or 1) * _ZH_UNITS[c]
            digit = 0
        else:
            total = (total + section + digit) * _ZH_BIG[c]
            section = digit = 0
    unit = {**_ZH_UNITS, **_ZH_BIG}.get(run[-2], 0) if len(run) >= 2 and run[-1] in _ZH_DIGITS else 0
    if unit > 10:  # 一万五 is 15000, 三千五 3500: the unit below it, unsaid
        digit *= unit // 10
    return total + section + digit


def _plain(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.6f}".rstrip("0").rstrip(".")


def spelled_numbers(text: str) -> tuple[str, set[str]]:
    """(the text with its spelled and scaled amounts taken out, those amounts
    as digits). A lone "one" or 一 is a word ("one of them", 一起), not an amount."""
    found: set[str] = set()

    def scaled(m: re.Match) -> str:
        found.add(_plain(float(m.group(1).replace(",", "")) * _SCALES[m.group(2).casefold()]))
        return " "

    def english(m: re.Match) -> str:
        if m.group(0).casefold() in ("one", "a"):
            return m.group(0)
        found.add(str(_english(m.group(0))))
        return " "

    def chinese(m: re.Match) -> str:
        if m.group(0) in _ZH_NOT_NUMBERS:
            return m.group(0)
        found.add(str(_chinese(m.group(0))))
        return " "

    text = _SCALED.sub(scaled, text)
    text = _SPELLED.sub(english, text)
    return _ZH_RUN.sub(chinese, text), found


# -- stop words and filler: they share a word with anything and support nothing ----------
# What a maintained stop-word list (stopwordsiso: "ok", "sure", "okay", 嗯, 哈哈, 好, 可以...)
# lacks: chat's laughter and stretched words ("hahaha", "okkk", "lmao", "cool", "nice").
_FILLER = re.compile(r"^(?:(?:h+a+)+h?|(?:h+e+)+h?|(?:h+i+){2,}|l+o+l+|l+m+f?a+o+|r+o+f+l+|h+m+|u+m+|u+h+|e+r+m*|"
                     r"o+k+(?:a+y+)?|o+k+e+y+|k+|y+e+a+h*|y+e+p+|y+u+p+|y+a+s+|n+a+h+|n+o+p+e+|o+h+|a+h+|w+o+w+|"
                     r"o+m+g+|x+d+|t+h+x+|c+o+o+l+|n+i+c+e+|a+l+r+i+g+h+t+|s+u+r+e+|y+a+y+|b+r+u+h+|d+a+m+n+)$")
# Chinese interjections: the list has them as words of one character, not as a part of the
# bigrams a run is matched by (嗯行, 哈好), and lacks some (噢, 诶); and two filler bigrams it lacks.
_FILLER_CHARS = frozenset("哈嗯呵嘿哦啊呀嘻哇噢唉诶嘛啦吧呢喔嗷哎")
_FILLER_BIGRAMS = frozenset({"没事", "行行"})
# Who said or told it: no claim of its own (a statement about what "the user told" her).
_SAID = frozenset({"user", "told", "tells"})


@functools.cache
def stop_words() -> frozenset[str]:
    """English and Chinese stop words (stopwordsiso, loaded once, when first asked),
    from the function words every list of ours starts from."""
    import stopwordsiso

    from heartcompass.language import FUNCTION_WORDS

    return frozenset(stopwordsiso.stopwords(["en", "zh"])) | FUNCTION_WORDS | _SAID


@functools.cache
def _stop_chars() -> frozenset[str]:
    return frozenset(w for w in stop_words() if len(w) == 1 and not w.isascii())


def is_filler(word: str, narrow: bool = False) -> bool:
    """A word (casefolded) that supports nothing: a stop word or chat filler.
    narrow: only function words count as stop words (the maintained list also
    holds "turned", "move", "date": words that say what changed)."""
    from heartcompass.language import FUNCTION_WORDS

    stops = FUNCTION_WORDS | _SAID if narrow else stop_words()
    return word in stops or bool(_FILLER.match(word))


def cjk_bigrams(run: str) -> set[str]:
    """A CJK run's character bigrams, without stop words' and filler's (哈哈, 嗯, 好的, 我们)."""
    grams = {run[i:i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    stops, chars = stop_words(), _stop_chars()
    return {g for g in grams if g not in stops and g not in _FILLER_BIGRAMS and not set(g) <= chars
            and not set(g) & _FILLER_CHARS}


# -- what can support a profile field -------------------------------------------------
# Each relation with the words (English stems are matched as words, Chinese as text) that
# say it; a change of relation cites an entry that says one of them.
RELATION_WORDS = {
    "family": "family mother mom mum father dad parent sister brother sibling cousin aunt uncle grandma grandpa "
              "grandmother grandfather daughter son niece nephew wife husband 家人 妈妈 爸爸 母亲 父亲 姐姐 妹妹 "
              "哥哥 弟弟 亲戚 表姐 表妹 表哥 表弟 堂姐 堂妹 堂哥 堂弟 舅舅 阿姨 奶奶 爷爷 外婆 外公 叔叔 姑姑 女儿 儿子",
    "friend": "friend friendship buddy pal mate bestie 朋友 好友 闺蜜 哥们 兄弟 姐妹",
    "dating": "dating girlfriend boyfriend partner relationship couple kiss kissed lover romance in_love love_you "
              "loves_me fell_for "
              "约会 在一起 女朋友 男朋友 对象 恋爱 交往 表白 亲了 喜欢我 爱我",
    "ambiguous": "ambiguous flirt flirting crush complicated unclear situationship 暧昧 说不清 好感 撩",
    "tension": "tension fight fought argue argued argument angry upset conflict mad furious ignore ignoring "
               "吵架 生气 矛盾 冷战 闹翻 不理",
    "broken_up": "broke breakup split divorce divorced ex 分手 前任 离婚 分开",
    "failed": "rejected reject turned declined refused 拒绝 没戏 放弃 不喜欢我",
    "stranger": "stranger strangers met unknown 陌生 不认识 刚认识",
}
GENDER_WORDS = {
    "female": "female woman women girl lady she her hers 女 她",
    "male": "male man men boy guy he him his 男 他",
    "nonbinary": "nonbinary non-binary enby they them genderqueer agender 非二元",
}
# Pronouns say a gender only of the one they are about: beside another gender's ("She said he
# was late"), they may be about someone else, and only the nouns count.
PRONOUNS = frozenset("she her hers he him his they them 她 他".split())
# "ex" that is no former partner: an ex boss, an ex colleague.
EX_NOT_A_PARTNER = re.compile(r"\bex[\s-]+(?:boss|colleague|co-?workers?|roommate|flatmate|housemate|teammate|"
                              r"employer|manager|classmate|neighbou?r|company|job|student|teacher|member|president|"
                              r"wife|husband|girlfriend|boyfriend|partner)'s\b|\bex[\s-]+(?:boss|colleague|"
                              r"co-?workers?|roommate|flatmate|housemate|teammate|employer|manager|classmate|"
                              r"neighbou?r|company|job|student|teacher|member|president)s?\b", re.I)
# What says a date is a birthday: "Lunch with her on May 3" is a lunch.
BIRTHDAY_WORDS = "birthday bday b-day born 生日 出生 生于 诞辰"
# What says a word is a name of the person: "Alice introduced me to Carol" names Carol, not Alice.
NAMING_WORDS = ("call calls called calling nickname nicknamed goes_by go_by aka a.k.a known_as name_is named "
                "叫她 叫他 叫我 外号 昵称 小名 绰号 网名 名字 别名 也叫 又叫")
GENDER_VALUES = {"female": "female woman f 女 女性 女生", "male": "male man m 男 男性 男生",
                 "nonbinary": "nonbinary non-binary enby 非二元"}
MONTHS = {name: n for n, names in enumerate(("january jan", "february feb", "march mar", "april apr", "may",
                                               "june jun", "july jul", "august aug", "september sep sept",
                                               "october oct", "november nov", "december dec"), 1)
          for name in names.split()}
