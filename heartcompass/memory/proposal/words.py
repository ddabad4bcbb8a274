"""The words the support check must not be fooled by: filler ("haha", "ok",
"lol", 哈哈, 嗯) that shares a word with anything and supports nothing, and
the words that can support a relation, a gender or a month. (Numbers, in
digits or words, are numbers.py's.) No model here."""

from __future__ import annotations

import functools
import re

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
# Words the maintained English list holds that say what a life is made of: a memory line
# sharing one of them with its entry shares a claim ("adopted", "home", "year", "proud"), so
# they support. Chosen on LoCoMo's annotated answers (benchmarks/stopword_support.py): each is
# shared far more often with the turns an answer cites than with another question's; generic
# verbs of chat ("like", "want", "work", "help") stay stop words.
CONTENT_WORDS = frozenset("""
adopted area areas bill buy computer cry date face faces fire group groups home homepage important
interest interested interesting interests invention keys member members microsoft million move mug name
novel place places problem problems proud research ring room rooms serious sincere site system test text
thick thin tip tv web webpage website world year years young younger youngest
""".split())


@functools.cache
def stop_words() -> frozenset[str]:
    """English and Chinese stop words (stopwordsiso, loaded once, when first asked),
    from the function words every list of ours starts from."""
    import stopwordsiso

    from heartcompass.language import FUNCTION_WORDS

    return (frozenset(stopwordsiso.stopwords(["en", "zh"])) - CONTENT_WORDS) | FUNCTION_WORDS | _SAID


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
