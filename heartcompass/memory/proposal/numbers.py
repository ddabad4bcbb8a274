"""The one reader of the amounts a text says, so a statement's numbers are
compared with its evidence's by value, never by spelling: digits with any
grouping or decimal mark (500.000, 500,000 and 500 000 are 500000; 1.5 and
1,5 are 1.5), suffixed amounts (5K, 2.5k, 3M, 5万, 3千), English number
words and Chinese numbers (through cn2an). A Chinese numeral is a number
only where the text uses it as one (a measure word after it, 第 before it,
or an amount with a unit of its own): 陆琳, 九寨沟, 一家 and 万达 are names.
Number words of another language (cinq mille, fünfhundert, 오천) are found,
from the words num2words writes in each language, and reported as unread:
refused, never ignored. Where a text supports a statement, its words of one
(一次, 第一, "once") and ordinals ("the second time") count as well
(evidence_numbers). No model here."""

from __future__ import annotations

import functools
import re
import unicodedata
from decimal import Decimal

# -- digits -----------------------------------------------------------------------------
_SCALES: dict[str, int] = {"k": 1000, "thousand": 1000, "hundred": 100, "million": 10 ** 6, "mn": 10 ** 6,
                           "billion": 10 ** 9, "bn": 10 ** 9,
                           "百": 100, "千": 1000, "万": 10 ** 4, "萬": 10 ** 4, "亿": 10 ** 8, "億": 10 ** 8}
_SPACES = " \u00a0\u2009\u202f"  # a space, and the no-break and thin ones that group thousands
# digit groups joined by one mark each ("1.234,56", "1'000"), or by spaces before groups of exactly three
_DIGITS = re.compile(rf"(?<!\d)\d{{1,3}}(?:[{_SPACES}]\d{{3}})+(?:[.,]\d+)?(?![\d]|[.,]\d)|\d+(?:[.,']\d+)*")
# a scale is a word of its own: "3M" is three million, "3 May" a day of May
_SUFFIX = re.compile(r"\s*(?:(?-i:M)(?![^\W\d_])|(k|thousand|hundred|million|mn|billion|bn)(?![^\W\d_])|([百千万萬亿億]))",
                     re.I)


def _digits_value(token: str) -> list[Decimal]:
    """The values a run of digits and marks reads as: grouped thousands, a
    decimal mark, or (for a version number such as 1.2.3) the numbers apart."""
    token = token.translate({ord(c): None for c in _SPACES + "'"})
    marks = [c for c in token if c in ".,"]
    if not marks:
        return [Decimal(token)]
    if len(set(marks)) == 2:  # "1,234.56" and "1.234,56": the last mark is the decimal one
        whole, _, frac = token.replace(marks[-1], "#").partition("#")
        return [Decimal(whole.replace(marks[0], "") + "." + frac)] if "#" not in frac else _apart(token)
    parts = re.split(r"[.,]", token)
    grouped = len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:]) and parts[0].lstrip("0")
    if grouped:  # "500.000", "1,500", "1.000.000": thousands, however they are marked
        return [Decimal("".join(parts))]
    if len(parts) == 2:  # "1.5", "1,5", "0.500"
        return [Decimal(f"{parts[0]}.{parts[1]}")]
    return _apart(token)


def _apart(token: str) -> list[Decimal]:
    return [Decimal(p) for p in re.split(r"[.,]", token) if p]


def plain(value: Decimal) -> str:
    """A value as the number check compares it: 5000, 1.5 (exact, however long)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# -- English words ----------------------------------------------------------------------
_UNITS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                     "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand", "million", "billion"], key=len, reverse=True))
_SPELLED = re.compile(rf"\b(?:an?\s+(?=hundred|thousand|million|billion))?(?:{_WORD})"
                      rf"(?:(?:[\s-]+(?:and[\s-]+)?)(?:{_WORD}))*\b", re.I)


def _english(words: str) -> int:
    total = current = 0
    for w in re.split(r"[\s-]+", words.casefold()):
        if w in ("and", "a", "an"):
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


# -- Chinese ----------------------------------------------------------------------------
_ZH_DIGITS = "零〇一壹二贰两俩三叁四肆五伍六陆七柒八捌九玖"
_ZH_UNITS = "十拾廿百佰千仟万萬亿億"
_ZH_RUN = re.compile(f"[{_ZH_DIGITS}{_ZH_UNITS}]+")
# what counts a numeral as an amount when it follows it: a measure word (个 年 岁 元...), or 多/余/来
# ("三千多块") before one
_MEASURES = re.compile(r"[多余来几]?(?:个|位|名|年|月|日|号|岁|周|星期|礼拜|天|晚|夜|元|块|角|毛|刀|次|回|遍|趟|人|口|本|"
                       r"张|件|条|只|头|匹|辆|台|部|篇|首|杯|瓶|碗|斤|公斤|公里|千米|米|里|层|楼|点|分钟|小时|秒|倍|成|套|"
                       r"间|所|座|支|双|对|份|场|届|期|页|章|节|课|门|种|顿|餐|户|代|美元|欧元|英镑|日元|港币|%|％)")
# runs that are words whatever follows: 千万 ("by all means"), 万一 ("in case"), 一一 (one by one)
_ZH_WORDS = {"千万", "万一", "一一", "万万", "千千万万"}


def _counts(text: str, m: re.Match) -> bool:
    """A numeral used as a number: a measure word after it, or 第 before it."""
    return bool(_MEASURES.match(text, m.end())) or text[max(m.start() - 1, 0):m.start()] == "第"


def _chinese_amount(text: str, m: re.Match) -> bool:
    run = m.group(0)
    if run == "一" or run in _ZH_WORDS:  # a lone 一 is "a", as "one" is (一起, 一家, 一直)
        return False
    if _counts(text, m):
        return True
    has_unit = any(c in _ZH_UNITS for c in run)
    return (has_unit and len(run) >= 2) or (not has_unit and len(run) >= 4)  # 五百五, 二〇二三


# -- other languages' number words ------------------------------------------------------
_WRITTEN = [*range(100), *range(100, 1000, 100), *range(1000, 10000, 1000), 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 9]
# words of those languages that are English words (or names) as well: "once", "sept", "on" are no amount here
_ENGLISH_TOO = frozenset("cent cents cant chant fire firs pump resin once sept seize sexton quince venti null zero "
                         "lima otto elva a o ok on to um bin dim hat min pet set sex sis tri".split())


@functools.lru_cache(maxsize=1)
def _foreign_words() -> tuple[dict[str, str], re.Pattern]:
    """{word: language} of the number words num2words writes in every
    language but English and Chinese (whose we read) and Japanese (whose
    kanji are Chinese numerals), and a pattern of the Latin-script compounds
    of them (fünfhundertfünfzig, cinquecentocinquanta)."""
    from num2words import CONVERTER_CLASSES, num2words

    english = {w for n in _WRITTEN for w in re.split(r"[\s,-]+", num2words(n, lang="en").casefold())}
    words: dict[str, str] = {}
    for lang in sorted(CONVERTER_CLASSES):
        if lang.split("_")[0] in ("en", "ja", "zh"):
            continue
        for n in _WRITTEN:
            try:
                said = num2words(n, lang=lang).casefold()
            except Exception:  # a language without that number (num2words raises its own kinds)
                continue
            for w in re.split(r"[\s,-]+", said):
                if w and w not in english and w not in _ENGLISH_TOO and not re.search(r"\d", w):
                    words.setdefault(w, lang.split("_")[0])
    atoms = sorted((w for w in words if len(w) >= 4 and re.fullmatch(r"[a-zß-ÿą-ž]+", w)), key=len, reverse=True)
    return words, re.compile("(?:" + "|".join(map(re.escape, atoms)) + "){2,}")


_LETTERS = re.compile(r"[^\W\d_]+")


def unread_numbers(text: str) -> list[str]:
    """The number words of a language we do not read, as the text writes them
    ("cinq mille", "오천"). A Latin-script word of fewer than four letters
    counts only beside another such word ("dos mil"): alone it is too often
    a word of ours."""
    words, compound = _foreign_words()
    found: list[str] = []
    run: list[str] = []
    tokens = [(m.group(0), m.group(0).casefold()) for m in _LETTERS.finditer(unicodedata.normalize("NFKC", text))]
    for said, word in [*tokens, ("", "")]:
        if word and (word in words or compound.fullmatch(word)):
            run.append(said)
            continue
        if len(run) > 1 or (run and (len(run[0]) >= 4 or not run[0].isascii())):
            found.append(" ".join(run))
        run = []
    return found


# -- the reader -------------------------------------------------------------------------
def read_numbers(text: str) -> tuple[str, set[str]]:
    """(the text with its amounts taken out, those amounts as plain values).
    A lone "one", "a" or 一 is a word ("one of them", 一起), not an amount."""
    found: set[str] = set()
    # every script's digits (٥٠٠, ５００) are digits
    text = re.sub(r"\d", lambda m: str(unicodedata.digit(m.group(0))), unicodedata.normalize("NFKC", text))
    out, at = [], 0
    for m in _DIGITS.finditer(text):
        values, end = _digits_value(m.group(0)), m.end()
        suffix = _SUFFIX.match(text, end)
        if suffix and len(values) == 1:
            values, end = [values[0] * _SCALES[(suffix.group(1) or suffix.group(2) or "mn").casefold()]], suffix.end()
        found.update(plain(v) for v in values)
        out += [text[at:m.start()], " "]
        at = end
    text = "".join([*out, text[at:]])

    def english(m: re.Match) -> str:
        if m.group(0).casefold() == "one":
            return m.group(0)
        found.add(str(_english(m.group(0))))
        return " "

    text = _SPELLED.sub(english, text)
    return _read_chinese(text, found), found


# What evidence may mean without writing an amount: a count of one (一次, 第一, "one", "once") and the
# English ordinals and multiplicatives. Read only where a text supports a statement, never where a statement
# claims: "第1次" stands on "第一次" and "2 times" on "twice", while a statement's own "at first" or "一起"
# claims no amount.
_ORDINALS = {w: n for n, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth "
                                        "eleventh twelfth".split(), 1)}
_TIMES = {"once": 1, "twice": 2, "thrice": 3, "one": 1}
_MEANT = re.compile(r"\b(?:" + "|".join([*_ORDINALS, *_TIMES]) + r")\b", re.I)


def evidence_numbers(text: str) -> set[str]:
    """The values a supporting text says: its amounts (read_numbers), and
    what its words of one, its ordinals and its "once" or "twice" mean."""
    rest, found = read_numbers(text)
    for m in _MEANT.finditer(rest):
        word = m.group(0).casefold()
        found.add(str(_ORDINALS.get(word) or _TIMES[word]))
    for m in _ZH_RUN.finditer(rest):  # a lone 一 that counts: 第一, 一次, 一个
        if m.group(0) == "一" and _counts(rest, m):
            found.add("1")
    return found


def _read_chinese(text: str, found: set[str]) -> str:
    out, at = [], 0
    for m in _ZH_RUN.finditer(text):
        if not _chinese_amount(text, m):
            continue
        run = m.group(0)
        # 三四个, 五六天: three or four, five or six
        values = [_cn2an(c) for c in run] if len(run) == 2 and _one_more(run) else [_cn2an(run)]
        if all(v is not None for v in values):
            found.update(plain(v) for v in values if v is not None)
            out += [text[at:m.start()], " "]
            at = m.end()
    return "".join([*out, text[at:]])


def _one_more(run: str) -> bool:
    first, second = _cn2an(run[0]), _cn2an(run[1])
    return first is not None and second is not None and second == first + 1 and run[1] not in _ZH_UNITS


@functools.lru_cache(maxsize=4096)
def _cn2an(run: str) -> Decimal | None:
    import cn2an

    try:
        return Decimal(str(cn2an.cn2an(run, "smart")))
    except (ValueError, KeyError, IndexError):  # not a number cn2an reads (三四, "three or four"): no amount
        return None
