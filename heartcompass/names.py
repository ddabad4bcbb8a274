"""Names people use: which person or mention a name, a nickname, a kinship
term, a Chinese form of address or a typo means.

    resolve("Bobby", candidates)      Robert, by the nickname table
    resolve("my daughter", ...)       the one whose role is daughter (女儿, 闺女...)
    resolve("老王", ...)              王建国 (老/小 + surname, surname + 总/哥/姐/老师...)
    resolve("Sarha", ...)             Sarah: one letter swapped, when nothing nearer matches

The strongest kind of match that finds anyone wins (exact, then kinship,
then nickname or address, then typo); more than one candidate at that kind
is `ambiguous`, for the caller to ask about: two people are never merged by
a guess. Pure functions, no files."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Iterable

from heartcompass.language import FUNCTION_WORDS

_NICKNAMES = (
    "robert rob bob bobby robbie", "william will bill billy liam", "elizabeth liz beth lizzie betty eliza",
    "katherine kate katie kathy cathy catherine", "michael mike mikey", "jonathan jon johnny",
    "john johnny jack", "alexander alex sasha", "alexandra alex sasha lexi", "christopher chris",
    "christina chris tina", "daniel dan danny", "samuel sam sammy", "samantha sam sammy",
    "joseph joe joey", "james jim jimmy jamie", "richard rick ricky rich dick", "thomas tom tommy",
    "margaret maggie meg peggy", "jennifer jen jenny", "anthony tony", "benjamin ben benny",
    "matthew matt", "nicholas nick nicky", "andrew andy drew", "edward ed eddie ted",
    "susan sue suzy", "patricia pat patty", "rebecca becky becca", "deborah deb debbie",
    "victoria vicky tori", "steven steve", "stephen steve", "timothy tim timmy", "gregory greg",
    "zachary zach zack", "joshua josh", "nathaniel nate nathan", "charles charlie chuck",
    "sarah sara", "kyle kyle", "jessica jess jessie", "abigail abby", "olivia liv", "isabella bella izzy",
)
NICKNAMES: dict[str, set[str]] = {}
for _row in _NICKNAMES:
    _words = _row.split()
    for _w in _words:
        NICKNAMES.setdefault(_w, set()).update(_words)

# Kinship and roles, English and Chinese, each group one meaning.
_KIN = {
    "daughter": "daughter 女儿 闺女 小女儿 大女儿 二女儿", "son": "son 儿子 小儿子 大儿子 二儿子",
    "wife": "wife 妻子 老婆 太太 媳妇", "husband": "husband 丈夫 老公 先生", "partner": "partner 伴侣 对象",
    "mother": "mother mom mum mama 妈妈 母亲 妈 老妈", "father": "father dad daddy papa 爸爸 父亲 爸 老爸",
    "brother": "brother bro 哥哥 弟弟 兄弟 哥 弟", "sister": "sister sis 姐姐 妹妹 姐 妹",
    "grandmother": "grandmother grandma granny 奶奶 外婆 姥姥", "grandfather": "grandfather grandpa 爷爷 外公 姥爷",
    "boyfriend": "boyfriend bf 男朋友 男友", "girlfriend": "girlfriend gf 女朋友 女友",
    "boss": "boss manager 老板 领导 上司 经理", "colleague": "colleague coworker co-worker 同事",
    "roommate": "roommate flatmate 室友 舍友", "dog": "dog puppy 狗 小狗 狗狗", "cat": "cat kitty 猫 小猫 猫咪",
    "friend": "friend 朋友 好友", "teacher": "teacher 老师", "child": "kid child 孩子 小孩",
}
KIN: dict[str, str] = {w: meaning for meaning, words in _KIN.items() for w in words.split()}
_POSSESSIVE = re.compile(r"^(?:my|his|her|their|our|your|the|我的|他的|她的|我|他|她|我们的|你的)\s*", re.I)
# Chinese forms of address: 老王, 小李 before a surname; 王总, 李哥, 张老师 after it.
_ADDRESS_BEFORE = ("老", "小", "阿")
_ADDRESS_AFTER = ("总", "哥", "姐", "老师", "工", "董", "经理", "叔", "姨", "师傅", "医生", "主任", "局", "处")
_CJK = re.compile(r"[\u3400-\u9fff]")
KINDS = ("exact", "kin", "nickname", "typo")


def key(name: str) -> str:
    """A name as compared: any case, full-width or not, spaces and dots dropped."""
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return re.sub(r"[\s.·・'’\-_]+", "", text)


def kin_of(words: str) -> str:
    """The kinship meaning of 'my daughter', '小女儿', 'daughter' ('' if none)."""
    text = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", words).strip().casefold()).strip()
    text = re.sub(r"^(?:little|younger|older|elder|big|baby|eldest|youngest)\s+", "", text)
    return KIN.get(text.replace(" ", ""), "") or KIN.get(text, "")


@lru_cache(maxsize=100_000)
def _surname_forms(name: str) -> frozenset[str]:
    """老王, 小王, 王总... for a Chinese name of two to four characters."""
    text = key(name)
    if not (2 <= len(text) <= 4 and all(_CJK.match(c) for c in text)):
        return frozenset()
    surname = text[0]
    return frozenset({p + surname for p in _ADDRESS_BEFORE} | {surname + s for s in _ADDRESS_AFTER})


@lru_cache(maxsize=100_000)  # the coach asks for every person's, each message
def forms(name: str) -> frozenset[str]:
    """The keys a name also answers to: its first name, nicknames, forms of address."""
    k = key(name)
    out = {k}
    words = unicodedata.normalize("NFKC", str(name)).casefold().split()
    if len(words) > 1 and not _CJK.search(name):
        if _POSSESSIVE.match(words[0] + " "):  # "his kids" is "kids" (said as "your kids"), never "his"
            out.add(" ".join(words[1:]))
        elif words[0] not in FUNCTION_WORDS:
            out.add(words[0])  # "Alice Chen" is "Alice"
    for w in list(out):
        out |= NICKNAMES.get(w, set())
    return frozenset(out | _surname_forms(name))


def _address_key(query: str) -> set[str]:
    """老王 and 王总 both stand for the surname 王 (as a form, compared with forms())."""
    k = key(query)
    return {k} if _CJK.search(k) else set()


def distance(a: str, b: str, most: int) -> int:
    """Edit distance (with a swap of two neighbours as one edit), stopping past most."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if min(row) > most:
            return most + 1
        prev2, prev = prev, row
    return prev[-1]


def typo_allowance(name_key: str) -> int:
    """A slip a name of this length can take and still be itself: none for
    short names (Ann and Amy are two people) and for Chinese ones."""
    if _CJK.search(name_key) or len(name_key) < 4:
        return 0
    return 1 if len(name_key) < 8 else 2


@dataclass
class Candidate:
    id: str                     # a slug or a mention's id
    names: list[str]
    role: str = ""              # who they are (daughter, colleague): kinship terms resolve by it


@dataclass
class Resolution:
    query: str
    kind: str = ""                                   # one of KINDS, "" when nobody matched
    matches: list[str] = field(default_factory=list)  # candidate ids

    @property
    def one(self) -> str | None:
        return self.matches[0] if len(self.matches) == 1 else None

    @property
    def ambiguous(self) -> bool:
        return len(self.matches) > 1


def resolve(query: str, candidates: Iterable[Candidate]) -> Resolution:
    people = list(candidates)
    q = key(query)
    if not q:
        return Resolution(query)
    tries = (
        ("exact", lambda c: any(key(n) == q for n in c.names)),
        ("kin", lambda c: bool(kin_of(query)) and kin_of(c.role) == kin_of(query)),
        ("nickname", lambda c: any(q in forms(n) or _address_key(query) & _surname_forms(n) for n in c.names)),
        ("typo", lambda c: any(0 < distance(q, f, typo_allowance(f)) <= typo_allowance(f)
                               for n in c.names for f in forms(n))),
    )
    for kind, fits in tries:
        found = [c.id for c in people if fits(c)]
        if found:
            return Resolution(query, kind, list(dict.fromkeys(found)))
    return Resolution(query)


def named_in(text: str, candidates: Iterable[Candidate]) -> dict[str, str]:
    """Who a text names: {candidate id: the words that named them}. Names,
    aliases and their forms (first name, nicknames) as whole words, Chinese
    ones (and 老王, 王总) anywhere, kinship terms after 'my' or 我.
    Set lookups, no pattern per name: the coach asks it of every person."""
    norm = unicodedata.normalize("NFKC", text).casefold()
    words = set(re.findall(r"\w+", norm))
    spaced = " " + " ".join(re.findall(r"\w+", norm)) + " "
    found: dict[str, str] = {}
    for c in candidates:
        for n in c.names:
            if any(_said(f, words, spaced, norm) for f in _spoken_forms(n)):
                found.setdefault(c.id, n)
                break
        meaning = kin_of(c.role) if c.role else ""
        if meaning and c.id not in found:
            for word, kin in KIN.items():
                if kin == meaning and (f" my {word} " in spaced if word.isascii() else
                                       f"我{word}" in norm or f"我的{word}" in norm):
                    found[c.id] = word
                    break
    return found


@lru_cache(maxsize=100_000)
def _spoken_forms(name: str) -> tuple[str, ...]:
    """The name as words ('bob li'), then its other forms (first name, nicknames, 老王)."""
    whole = " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", name).casefold()))
    return (whole, *sorted(f for f in forms(name) if f != key(name)))


def _said(form: str, words: set[str], spaced: str, text: str) -> bool:
    if len(form) < 2:
        return False
    if _CJK.search(form):
        return form in text
    return form in words if " " not in form else f" {form} " in spaced
