"""The words the support check must not be fooled by: filler ("haha", "ok",
"lol", 哈哈, 嗯) that shares a word with anything and supports nothing, and
the words that can support a relation, a gender or a month. (Numbers, in
digits or words, are numbers.py's.) No model here."""

from __future__ import annotations

import re

# -- filler: shares a word with anything, supports nothing ------------------------------
_FILLER = re.compile(r"^(?:(?:h+a+)+h?|(?:h+e+)+h?|(?:h+i+){2,}|l+o+l+|l+m+f?a+o+|r+o+f+l+|h+m+|u+m+|u+h+|e+r+m*|"
                     r"o+k+(?:a+y+)?|o+k+e+y+|k+|y+e+a+h*|y+e+p+|y+u+p+|y+a+s+|n+a+h+|n+o+p+e+|o+h+|a+h+|w+o+w+|"
                     r"o+m+g+|x+d+|t+h+x+)$")
FILLER_CHARS = frozenset("哈嗯呵嘿哦啊呀嘻哇噢唉诶嘛啦吧呢喔嗷哎")
_FILLER_BIGRAMS = frozenset({"好的", "好吧", "行吧", "是的", "对的", "没事", "对对", "好好", "行行", "可以"})


def is_filler(word: str) -> bool:
    return bool(_FILLER.match(word))


def cjk_bigrams(run: str) -> set[str]:
    """A CJK run's character bigrams, without those of filler (哈哈, 嗯, 好的)."""
    grams = {run[i:i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    return {g for g in grams if g not in _FILLER_BIGRAMS and not (set(g) & FILLER_CHARS)}


# -- what can support a profile field -------------------------------------------------
# Each relation with the words (English stems are matched as words, Chinese as text) that
# say it; a change of relation cites an entry that says one of them.
RELATION_WORDS = {
    "family": "family mother mom mum father dad parent sister brother sibling cousin aunt uncle grandma grandpa "
              "grandmother grandfather daughter son niece nephew wife husband 家人 妈妈 爸爸 母亲 父亲 姐姐 妹妹 "
              "哥哥 弟弟 亲戚 表姐 表妹 表哥 表弟 堂姐 堂妹 堂哥 堂弟 舅舅 阿姨 奶奶 爷爷 外婆 外公 叔叔 姑姑 女儿 儿子",
    "friend": "friend friendship buddy pal mate bestie 朋友 好友 闺蜜 哥们 兄弟 姐妹",
    "dating": "dating girlfriend boyfriend partner relationship couple kiss kissed love lover romance "
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
GENDER_VALUES = {"female": "female woman f 女 女性 女生", "male": "male man m 男 男性 男生",
                 "nonbinary": "nonbinary non-binary enby 非二元"}
MONTHS = {name: n for n, names in enumerate(("january jan", "february feb", "march mar", "april apr", "may",
                                               "june jun", "july jul", "august aug", "september sep sept",
                                               "october oct", "november nov", "december dec"), 1)
          for name in names.split()}
