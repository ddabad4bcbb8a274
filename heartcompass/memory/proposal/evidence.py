"""Whether a proposal's statements may stand: each a short line of prose
(not code, instructions, a pasted log line, a message relayed as it was
said or a near-verbatim copy of one, and no source marker of its own:
sources are derived from the evidence, by us),
citing entries of this request that are trusted enough for what it claims
and that support it (a cheap lexical check: a shared content word, name or
number; every number in it must be in them). A fact resting only on what
someone else wrote in imported messages is reported as what they said."""

from __future__ import annotations

import datetime as dt
import re
from typing import Sequence

from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.formats.sources import unforged, without_source
from heartcompass.memory.proposal.model import MAX_TEXT
from heartcompass.memory.proposal.date_support import Cited, event_date_problem, unsupported_numbers
from heartcompass.memory.proposal.numbers import read_numbers
from heartcompass.memory.proposal.trust import (KEPT_AS_WRITTEN, LINES_SUPPORT, RELAYED, UNVERIFIED, Claim, Mark,
                                                hearsay, marker, refusal, source_of, trusted_only)
from heartcompass.memory.proposal.words import cjk_bigrams, is_filler
from heartcompass.memory.proposal.workbench import LogItem, Workbench, norm
from heartcompass.language import CJK


# Code and injected instructions, not prose: keywords only in code's own shape
# (lowercase, with its punctuation), so "Class reunion in June" or "Import
# business is growing" are ordinary facts.
_CODEISH = re.compile(r"`|<\s*/?\s*(script|html|div|iframe|style|img)\b|"
                      r"(?-i:^\s*(import [\w.]+\s*$|from [\w.]+ import |def \w+\(|class \w+(\(.*\))?:|"
                      r"rm -[a-z]*[rf]|sudo \w)|\bSELECT\b.+\bFROM\b|\bDROP TABLE\b)|"
                      r"ignore (all |the )?(previous|above) instructions|you are now|system prompt", re.I)
# A pasted log entry ("- 10:00:00 · note · ...", the leading "- " already
# stripped) or a line as the model was shown it ("L3 [2026-12-01 20:00 · me ...").
_LOG_LINE = re.compile(r"^(- ?)?\d{1,2}:\d{2}(:\d{2})? ?·|^L\d+ \[|\[\d{4}-\d{2}-\d{2} \d{2}:\d{2} ·")
# A message relayed as it was said ("Alice wrote to me: ...", "I replied to Alice: ...", the
# shape `coach --save` logs a real conversation in; "她对我说：…", "我回复她：…"): chat text, not a fact.
_RELAYED = re.compile(r"^([^:：\n]{1,40}\s(wrote|writes|texted|messaged)( to me)?|I (replied|wrote|answered)( to "
                      r"[^:：\n]{1,40})?)\s*[:：]|^[^:：\n]{0,20}(对我说|跟我说|给我发|发来|写道)[^:：\n]{0,6}[:：]|"
                      r"^我(回复|回|答复|回答)[^:：\n]{0,20}[:：]", re.I)
# A link, an image, HTML or a reference definition: a statement about a person holds none, and
# stored in a file they would be followed by whoever renders it (an image loads an outside address).
_WEBBY = re.compile(r"\b(?:https?|ftp|file|data|javascript|mailto):|\bwww\.[\w-]|\b[\w-]+\.[a-z]{2,}/\S|"
                    r"!?\[[^\]]*\][(\[]|^\s*\[[^\]]+\]\s*:|<\s*/?\s*[a-z][\w-]*(\s[^>]*)?/?\s*>|<!--|"
                    r"&#?\w+;", re.I)
NEAR_VERBATIM = 0.9  # similarity (difflib's ratio) from which a statement is a copy of an entry's text
FIRST_YEAR, PLANNED_YEARS = 1900, 10  # the window of an event's date: a life, and plans ahead


def visible(text: str) -> str:
    """text in NFKC without invisible or format characters (sanitize.clean_text's
    first steps; controls stay, for the line-break check to see them)."""
    import unicodedata

    from heartcompass.sanitize import invisible_free

    return invisible_free(unicodedata.normalize("NFKC", text)) if text else text


def more_than_one_line(text: str) -> bool:
    """One line by every definition a parser uses: str.splitlines breaks on
    U+2028, U+2029, U+0085, \\v, \\f and \\x1c-\\x1e as well as \\n and \\r."""
    return any(ch in _BREAKS for ch in text)


_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")  # each one str.splitlines breaks on


def one_line(text: str, limit: int = MAX_TEXT) -> str:
    """A model's text where it cannot be refused alone (a new person's line
    about them): its line breaks become spaces, no control, invisible
    character or marker left, at most `limit` characters."""
    from heartcompass.sanitize import strip_controls

    text = "".join(" " if ch in _BREAKS else ch for ch in visible(text or ""))
    return unforged(" ".join(strip_controls(text).split()))[:limit]


def _bare(text: str) -> str:
    """A text as compared for copying: no relay prefix, case, spacing or punctuation."""
    return re.sub(r"[\W_]+", "", _RELAYED.sub("", text.strip()).casefold())


# -- does the cited evidence support the statement? ----------------------------------
# a word stops where Chinese starts: "Alice说她..." is the name and the bigrams, not one long word
_TOKEN = re.compile(rf"[{CJK}]+|\d[\d,]*(?:\.\d+)?|[^\W\d_{CJK}]+(?:'[^\W\d_{CJK}]+)?")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def lexical(text: str, narrow: bool = False) -> tuple[set[str], set[str]]:
    """(content words and CJK character bigrams, numbers) of a text: a cheap
    check that a statement says something its evidence says. narrow: fewer
    stop words (words.is_filler), to see what a rewrite changes."""
    from heartcompass.sanitize import strip_controls

    # an escape sequence's digits are no claim; "5K", "five thousand" and 五千 are 5000 (numbers.py)
    text, numbers = read_numbers(visible(strip_controls(text)))
    text = text.casefold()
    words = set()
    for token in _TOKEN.findall(text):
        if token[0].isdigit():
            continue  # read_numbers took every amount out
        elif re.match(rf"[{CJK}]", token):
            words |= cjk_bigrams(token)
        elif len(token) >= 3 and not is_filler(token, narrow):
            words.add(_stem(token))
    return words, numbers


class Checker:
    def __init__(self, wb: Workbench, items: list[LogItem]):
        self.wb = wb
        self.items = {i.id: i for i in items}
        self.problems: list[str] = []
        self.found: list[LogItem] = []
        self.cited: list[str] = []  # the existing lines the last statement cited
        self.visual = False
        self.lines: dict[str, str] = {}  # existing lines a statement may rest on, by id (apply.py fills it)
        # how far the conversation has reached (presentation.entries_now): threads before it are past
        days = sorted(i.day for i in items)
        self.now = min(dt.date.fromisoformat(days[-1]), wb.today) if days else wb.today
        # the person's own names: every statement is about them, so they show no support
        self.subject = lexical(" ".join([wb.profile.name, wb.slug, *map(str, wb.profile.doc.meta.get("aliases")
                                                                          or [])]))[0]
        # Chat messages must not be pasted in; a /note is already a statement and may be kept as written,
        # but a note `coach --save` wrote is a message of a real conversation: chat text (trust.py).
        messages = [i.entry.text for i in items if source_of(i.entry) not in KEPT_AS_WRITTEN]
        self.raw = [norm(t) for t in messages if len(norm(t)) >= 30]
        self.relayed = [_bare(i.entry.text) for i in items if source_of(i.entry) in RELAYED]

    def text(self, what: str, text: str | None) -> str:
        from heartcompass.sanitize import strip_controls

        broken = more_than_one_line(visible(text or "").strip())  # before the controls that break lines go
        text = visible(strip_controls(text or "")).strip()  # a model's escape sequences never reach a file
        if text.startswith("- "):
            text = text[2:].strip()
        text = unforged(text)  # the source is derived from the evidence, by us
        if not text:
            self.problems.append(f"{what}: empty text")
        elif broken or more_than_one_line(text):
            self.problems.append(f"{what}: more than one line (a line break, U+2028 or U+2029 included)")
        elif len(text) > MAX_TEXT:
            self.problems.append(f"{what}: {len(text)} characters; entries are short statements ({MAX_TEXT} at most)")
        elif _CODEISH.search(text) or _LOG_LINE.match(text):
            self.problems.append(f"{what}: looks like code, instructions or a raw log line: {text[:60]!r}")
        elif _WEBBY.search(text):
            self.problems.append(f"{what}: holds a link, an image, HTML or a reference definition: {text[:60]!r}; "
                                 "state what it tells about them in plain words")
        elif _RELAYED.match(text):
            self.problems.append(f"{what}: relays a message as it was said ({text[:40]!r}); state what it tells "
                                 "about them instead, or leave it in the log")
        elif any(raw in norm(text) for raw in self.raw) or self._copies_an_entry(text):
            self.problems.append(f"{what}: copies a log message word for word; write a short statement instead")
        return text

    def _copies_an_entry(self, text: str) -> bool:
        """Near-verbatim copy of a message a coach exchange saved: with case,
        spacing, punctuation and a relay prefix ignored, the same text, or
        (12 characters or more) at least NEAR_VERBATIM alike. (The user's own
        chat messages may be restated closely; only pasting a long one is not.)"""
        import difflib

        bare = _bare(text)
        return any(bare == said or (min(len(bare), len(said)) >= 12
                                    and difflib.SequenceMatcher(None, bare, said).ratio() >= NEAR_VERBATIM)
                   for said in self.relayed)

    def evidence(self, what: str, ids: list[str], claim: Claim, text: str | None = None, cite: str = "",
                 changes: tuple[str, str] | None = None) -> str | None:
        """Checks the cited entries (their sources may support `claim`:
        trust.SUPPORTS, and they support `text`); returns the source to cite
        ('log DATE'). self.found: the cited entries.
        cite: the prefixes of existing lines (self.lines) it may also rest on,
        e.g. "F" for a fact carrying forward the fact it rewrites."""
        ids = [i.strip() for i in ids]
        lines = [i for i in ids if i[:1] in cite and i in self.lines] if cite else []
        found = self.found = [self.items[i] for i in ids if i in self.items]
        if not ids or len(found) + len(lines) != len(ids):
            bad = [i for i in ids if i not in self.items and i not in lines]
            self.problems.append(f"{what}: needs evidence from the new entries (unknown ids: {bad or 'none given'})")
            return None
        self.cited = [self.lines[i] for i in lines]
        if lines and not found and all(i[:1] == "T" for i in lines) and trusted_only(claim):
            if not all(memory_fmt.is_past(self.lines[i], self.now) for i in lines):
                self.problems.append(f"{what}: rests only on open threads ({', '.join(lines)}); a fact rests on the "
                                     "new entries that say it happened")
                return None
            # a past thread's plan kept as a fact (the prompt asks for it): it says what the thread said
            if text and not self.visual:
                self.restates(what, text, self.cited)
        refused = refusal(claim, (source_of(i.entry) for i in found))
        if refused:
            self.problems.append(f"{what}: {refused}")
        if text and not self.visual:
            self.support(what, text, found, [self.lines[i] for i in lines])
        source = self.source(what, found, [self.lines[i] for i in lines])
        self.says_the_change(what, changes, text if source else None)
        return source

    def removal(self, what: str, ids: list[str], target: tuple[str, str] | None) -> None:
        """A line removed ((section, line)) rests on trusted new entries that speak of
        what it says (a shared content word): with no evidence, or "haha ok", it stays."""
        if target is not None:
            self.evidence(what, ids, Claim.REMOVAL, without_source(target[1]))  # its "- " is no word

    def source(self, what: str, found: list[LogItem], lines: list[str]) -> str | None:
        """Where a statement comes from: the oldest day of its entries; a
        statement resting on existing lines too keeps the newest of theirs, and
        is '(import)' (unverified) when any of them is; never '(hand)' (trust.LINES_SUPPORT)."""
        marks = [m for line in lines if (m := marker(line))]
        if not found and not any(mark in LINES_SUPPORT for mark, _ in marks):
            self.problems.append(f"{what}: rests only on lines the user wrote by hand; cite the new entries too")
            return None
        if any(mark in UNVERIFIED for mark, _ in marks):
            return "import"
        days = [min(i.day for i in found)] if found else []
        days += [text[4:] for mark, text in marks if mark is Mark.LOG]
        return f"log {max(days)}" if days else "told"

    def support(self, what: str, text: str, found: list[LogItem], lines: Sequence[str] = ()) -> None:
        """The statement must say something its new entries say: a shared
        content word (filler and stop words are none), name or number; the
        lines it carries forward lend their numbers and dates, never the
        support. Every amount in it must be in them (by value), every date in
        a span they say relative to their day ("three years ago", said on
        2023-06-09: 2020; date_support.py)."""
        from heartcompass.sanitize import strip_controls

        words, numbers = lexical(text)
        have_words, have_numbers = lexical(" ".join(f"{i.entry.text} {i.day}" for i in found))
        dates = Cited(found, lines)
        missing = unsupported_numbers(visible(strip_controls(text)), dates)
        ids = ", ".join(i.id for i in found) or "the lines it rests on"
        if missing:
            said = dates.explain()  # what their "last weekend" meant, for the model's corrected try
            self.problems.append(f"{what}: {', '.join(missing)} does not appear in the entries it cites ({ids}); "
                                 "numbers, amounts and dates must come from them"
                                 + (f" (their relative times: {said})" if said else ""))
        elif found and not ((words - self.subject) & have_words or numbers & have_numbers):
            self.problems.append(f"{what}: shares no words with the entries it cites ({ids}); state only what "
                                 "they say, in their words")

    def restates(self, what: str, text: str, lines: Sequence[str]) -> None:
        """A fact kept from past threads alone says what they said: a content
        word of theirs, and no number or date they do not hold."""
        words, numbers = lexical(text)
        have_words, have_numbers = lexical(" ".join(without_source(line) for line in lines))
        if numbers - have_numbers:
            self.problems.append(f"{what}: {', '.join(sorted(numbers - have_numbers))} is not in the threads it "
                                 "rests on; numbers and dates must come from them")
        elif not (words - self.subject) & have_words:
            self.problems.append(f"{what}: shares no words with the threads it rests on; say what they planned")

    def says_the_change(self, what: str, changes: tuple[str, str] | None, text: str | None) -> None:
        """A rewrite rests on new entries that say what changes: the words and
        numbers it adds to the line, and a "not" it adds or drops, are in them
        (or, for a merge, in the other lines it merges); citing the line itself,
        plus "haha ok", changes nothing. changes: (where, the line) it rewrites;
        text None: its evidence is refused already."""
        if self.visual or changes is None or not text:
            return  # a screenshot's words are not in its text
        old = without_source(changes[1])
        words, numbers = lexical(text, narrow=True)
        old_words, old_numbers = lexical(old, narrow=True)
        merged = [line for line in self.cited if without_source(line) != old]
        said = " ".join([*(i.entry.text for i in self.found), *merged])
        have_words, have_numbers = lexical(said, narrow=True)
        have = have_words | have_numbers
        added = (words - old_words - self.subject) | (numbers - old_numbers)
        # a merge alone adds only what its lines say; with entries, they say something of what is added
        unsaid = bool(added) and (not added <= have if not self.found else not added & have)
        # "not" added: an entry says it; dropped: an entry says what instead
        unsaid_not = _negated(text) != _negated(old) and not (
            _negated(said) if _negated(text) else (words - self.subject) & have_words)
        ids = ", ".join(i.id for i in self.found) or "none"
        if not self.found and not merged:
            self.problems.append(f"{what}: rests only on the line itself; cite the new entries that say the change")
        elif unsaid or unsaid_not:
            # what no entry says: the added words when they are unsaid, else the "not" (never said words)
            shown = sorted({w for w in re.findall(r"[^\W\d_]+|\d+", text.casefold())
                            if lexical(w, narrow=True)[0] & added} | (numbers & added)) or sorted(added)
            self.problems.append(f"{what}: the new entries it cites ({ids}) do not say the change "
                                 f"({', '.join(shown) if unsaid else 'a negation'}); a line is rewritten only on "
                                 "entries that say so")

    def date(self, what: str, value: str) -> events_fmt.When | None:
        """An event's date (a day, a month, a year, approximate), see formats/events.py."""
        try:
            when = events_fmt.parse_when(value)
        except ValueError as exc:
            self.problems.append(f"{what}: {exc}")
            return None
        return when if self.in_window(what, when.date) else None

    def dated(self, what: str, when: events_fmt.When | None) -> events_fmt.When | None:
        """The date, if the entries just cited (self.found) say it: their own
        day, a date they write, or what one of their relative times means
        ("last weekend", said on Friday 2023-04-07: 2023-04-01 or 04-02)."""
        if when is None or self.visual:  # a screenshot's words are not in the text to check against
            return when
        problem = event_date_problem(when, Cited(self.found))
        if problem:
            self.problems.append(f"{what}: {problem}")
            return None
        return when

    def in_window(self, what: str, date: dt.date) -> bool:
        """A date in a life: from FIRST_YEAR to PLANNED_YEARS ahead (a plan), not 0001 or 9999."""
        last = self.wb.today.replace(year=self.wb.today.year + PLANNED_YEARS, day=min(self.wb.today.day, 28))
        if dt.date(FIRST_YEAR, 1, 1) <= date <= last:
            return True
        self.problems.append(f"{what}: {date.isoformat()} is outside {FIRST_YEAR}-01-01..{last.isoformat()}; "
                             "give the date it happened or is planned")
        return False

    def until(self, what: str, value: str | None) -> str | None:
        """A thread's end, as it will be written (YYYY-MM-DD or YYYY-MM)."""
        if value is None or not value.strip():
            return None
        when = self.date(what, value)
        if when is None:
            return None
        if when.approx or when.year_only:
            self.problems.append(f"{what}: 'until' is a date or a month, without '~'")
            return None
        return events_fmt.format_when(when.date, when.month_only)

    def weight(self, what: str, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            self.problems.append(f"{what}: weight {value} is outside 0..1")
            return None
        return None if value is None else round(float(value), 2)


# Words that turn a statement into its opposite ("not", "never", 不, 没): a rewrite that adds one
# must cite an entry that has one.
_NEGATION = re.compile(r"\b(?:not|no|never|nor|none|nobody|nothing|neither|no longer|anymore|stopped|quit)\b|n't\b|"
                       r"[不没别未无非莫]", re.I)


def _negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


# Already says who said it ("Alice said she ...", "她说..."): left as it is.
_REPORTED = re.compile(r"^([\w.'-]+\s+){0,3}(said|says|told|tells|claims?|claimed|mentioned|wrote|writes|"
                       r"suggest(s|ed)?|recommend(s|ed)?|advise[sd]?|asked|asks|explain(s|ed)?|admit(s|ted)?|"
                       r"believe[sd]?|think|thinks|thought|feel|feels|felt|promise[sd]?|insist(s|ed)?)\b|"
                       r"^.{0,12}(说|告诉|提到|表示|建议|推荐|觉得|认为|承认|答应)", re.I)


def reported(text: str, found: list[LogItem]) -> str:
    """A fact resting only on what another person wrote in real imported
    messages is what they said, not a verified truth: it reads as such."""
    if not hearsay(source_of(i.entry) for i in found) or _REPORTED.search(text):
        return text
    who = " and ".join(sorted({i.entry.speaker.split(":", 1)[1] for i in found}))
    # The model was asked for "Caroline said she ..."; a statement without it
    # is often a fragment ("Shares her journey"), which a prefix would turn into
    # "Caroline said: shares her journey": so who said it follows, as a sentence does.
    if re.search(rf"[{CJK}]", text):
        return f"{text.rstrip('。.')}（{who}说的）"
    return f"{text.rstrip('.')}, {who} said"
