"""Text from a model or a file, made safe to show in a terminal.

A persona's reply, a coach's advice or a hand-edited file may contain escape
sequences: OSC (`ESC ] 0;title BEL` retitles the window, OSC 52 writes the
clipboard), CSI (`ESC [2J` clears the screen), or bare control characters
(a carriage return that overwrites what was printed). They are removed
before printing; the log keeps the text verbatim. No terminal library here:
the CLI calls this, then escapes rich markup."""

from __future__ import annotations

import re

# ESC-introduced sequences, their 8-bit C1 forms (CSI 0x9b, OSC 0x9d, DCS 0x90,
# SOS/PM/APC), then any other control character except newline and tab.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"                       # CSI ... final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC ... ST
    r"|\x1b[ -/]*[0-~]?"                                       # other ESC sequences
)
_COMPLETE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b(?![\[\]PX^_])[ -/]*[0-~]"
)
_INTRODUCER = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
_HELD_MAX = 4096  # an escape sequence never closed is dropped, not held forever
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def strip_controls(text: str) -> str:
    """text without terminal control sequences or control characters (newlines
    and tabs stay; a lone carriage return becomes a newline, CRLF one newline)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


class StreamStripper:
    """strip_controls for text that arrives in pieces (a streamed reply): a
    sequence cut between two pieces is held back until it is complete, so
    neither its control bytes nor its payload reach the terminal."""

    def __init__(self) -> None:
        self.held = ""

    def feed(self, text: str) -> str:
        data = self.held + text
        self.held = ""
        starts = [m.start() for m in _INTRODUCER.finditer(data)]
        if starts and not _COMPLETE.match(data, starts[-1]):
            # the last sequence may still be going on: wait for its end
            data, self.held = data[:starts[-1]], data[starts[-1]:]
            if len(self.held) > _HELD_MAX:
                self.held = ""
        return strip_controls(data)

    def flush(self) -> str:
        """The end of a message: an unfinished sequence is dropped."""
        self.held = ""
        return ""


# -- text that reaches a file or a prompt ------------------------------------------------
# Unicode's tag block (U+E0000-E007F) spells ASCII invisibly ("SYSTEM: ignore previous
# instructions" reads as nothing on screen and as words to a model); variation selectors
# (FE00-FE0F and the supplement) change nothing but a glyph, and are kept only after an
# emoji, whose look they choose; every other format character (Cf: zero-width space, joiners,
# BOM, soft hyphen, direction marks) hides words or structure. The fillers that render blank
# (Hangul's, the combining grapheme joiner, Mongolian's selectors) are letters and marks, so
# they are named.
_TAGS = range(0xE0000, 0xE0080)
_SELECTORS = frozenset(range(0xFE00, 0xFE10)) | frozenset(range(0xE0100, 0xE01F0))
_BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0")
_ZWJ, _KEYCAP = "\u200d", "\u20e3"


def _emoji(ch: str) -> bool:
    import unicodedata

    # a selector kept is inside an emoji already (🏳️‍🌈 joins after one)
    return unicodedata.category(ch) in ("So", "Sk") or 0x1F000 <= ord(ch) <= 0x1FAFF or ord(ch) in _SELECTORS


def invisible_free(text: str) -> str:
    """text without invisible and format characters: a zero-width joiner or a
    variation selector stays only inside an emoji (👨‍👩‍👧, ❤️, 1️⃣)."""
    import unicodedata

    if text.isascii():
        return text
    kept: list[str] = []
    for n, ch in enumerate(text):
        code, before = ord(ch), kept[-1] if kept else ""
        after = text[n + 1] if n + 1 < len(text) else ""
        if code in _SELECTORS:
            if before and (_emoji(before) or (before in "#*0123456789" and after == _KEYCAP)):
                kept.append(ch)
        elif ch == _ZWJ:
            if before and after and _emoji(before) and _emoji(after):
                kept.append(ch)
        elif code in _TAGS or ch in _BLANK or unicodedata.category(ch) == "Cf":
            continue
        else:
            kept.append(ch)
    return "".join(kept)


def clean_text(text: str, nfkc: bool = True) -> str:
    """The one cleaning of a string that reaches a file or a prompt (a model's
    statement, a name, an alias, a card field, an imported message as the model
    is shown it): NFKC (full-width and compatibility forms become the plain ones,
    so "﹙hand﹚" reads "(hand)"), no invisible or format character, no terminal
    control. Line breaks stay; a caller that wants one line joins them.
    nfkc False: a prompt made of the files as they are (its lines quoted back
    by id), where only what cannot be seen goes."""
    import unicodedata

    if not text:
        return text
    return strip_controls(invisible_free(unicodedata.normalize("NFKC", text) if nfkc else text))


# Letters of other scripts drawn like the Latin ones of our source markers (hand, told,
# import, log): the marker check reads a text through them, after NFKC, so "(hаnd)" with a
# Cyrillic а is a marker too. One character for one, so a match's place is the text's.
_LOOK_ALIKES = str.maketrans({
    **dict.fromkeys("аɑα", "a"), **dict.fromkeys("ԁɗ", "d"), **dict.fromkeys("ɡց", "g"),
    **dict.fromkeys("һհ", "h"), **dict.fromkeys("іιıɩ", "i"), **dict.fromkeys("ӏǀ|", "l"),
    **dict.fromkeys("м", "m"), **dict.fromkeys("ոп", "n"), **dict.fromkeys("оοօσ", "o"),
    **dict.fromkeys("рρ", "p"), **dict.fromkeys("г", "r"), **dict.fromkeys("тτ", "t"),
    **dict.fromkeys("❨❪⟮⦅﴾〔［[", "("), **dict.fromkeys("❩❫⟯⦆﴿〕］]", ")")})


def look_alike_skeleton(text: str) -> str:
    """text as the marker check reads it: casefolded letter by letter, look-alikes
    as their Latin letters, one character for each of text's (so positions agree)."""
    return "".join(ch.casefold()[:1] for ch in text).translate(_LOOK_ALIKES)
