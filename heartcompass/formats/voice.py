"""VOICE.md: the person's own words, verbatim, and the rhythm of their messages.

    ---
    budget_tokens: 300
    private: [salary, 密码]      # lines containing these are never picked
    rhythm: {messages: 812, median_words: 5, long_words: 14, burst_median: 2, burst_p75: 3, multi_share: 0.41}
    ---
    # Voice — Alice Chen

    ## Their words
    - "haha no wayyy 😂" (import 2026-11-02)
    - "好呀～明天见" (quote 2026-11-30)
    - "ok ok I'm coming"

    ## My words to them
    - "miss u already" (import 2026-11-02)

Only real messages belong here: imported ones, lines the user quotes, lines
the user types by hand. Lines tagged `(import DATE)` are picked by
`heartcompass voice --refresh` (and after every import) and may be replaced
by newer ones; every other line is the user's and is never removed. The
persona sees these lines as examples of how the person writes, not as facts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heartcompass.errors import FormatError
from heartcompass.formats import frontmatter_doc as fm
from heartcompass.formats.text import FILE_KINDS, read_text

FILENAME = FILE_KINDS["voice"]
THEIRS, MINE = "Their words", "My words to them"
SECTIONS = (THEIRS, MINE)
DEFAULT_BUDGET = 300
FLOW_KEYS = ("rhythm", "private")
_LINE = re.compile(r'^- "(?P<text>.*)"(?: \((?P<source>(?:import|quote|card)(?: \d{4}-\d{2}-\d{2})?|hand)\))?\s*$')
RHYTHM_KEYS = ("messages", "median_words", "long_words", "burst_median", "burst_p75", "multi_share", "unit")


@dataclass
class Line:
    text: str
    source: str = "hand"   # import DATE | quote DATE | card | hand

    @property
    def picked(self) -> bool:
        """Chosen by the selector (replaceable), not by the user."""
        return self.source.startswith("import")

    def render(self) -> str:
        tag = "" if self.source == "hand" else f" ({self.source})"
        return f'- "{self.text}"{tag}'


@dataclass
class Voice:
    doc: fm.Document
    path: Path
    preamble: str
    sections: dict[str, list[Line]] = field(default_factory=dict)
    other: dict[str, list[str]] = field(default_factory=dict)   # sections the user added, kept as they are
    _orig: str = ""

    @property
    def budget_tokens(self) -> int:
        return int(self.doc.meta.get("budget_tokens") or DEFAULT_BUDGET)

    @property
    def private(self) -> list[str]:
        return [str(p) for p in self.doc.meta.get("private") or [] if str(p).strip()]

    @property
    def rhythm(self) -> dict[str, Any]:
        raw = self.doc.meta.get("rhythm") or {}
        return {k: raw[k] for k in RHYTHM_KEYS if k in raw}

    def lines(self, section: str) -> list[Line]:
        return list(self.sections.get(section, []))


def parse(text: str, path: Path | str) -> Voice:
    path = Path(path)
    doc = fm.parse(text, path)
    budget = doc.meta.get("budget_tokens")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0):
        raise FormatError(path, f"'budget_tokens' must be a positive whole number, not {budget!r}",
                          fm.line_of_key(doc.raw_meta, "budget_tokens"))
    private = doc.meta.get("private")
    if private is not None and not isinstance(private, list):
        raise FormatError(path, "'private' must be a list of words, e.g. [salary, 密码]",
                          fm.line_of_key(doc.raw_meta, "private"))
    rhythm = doc.meta.get("rhythm")
    if rhythm is not None and not isinstance(rhythm, dict):
        raise FormatError(path, "'rhythm' is written by HeartCompass; delete the line to have it learned again",
                          fm.line_of_key(doc.raw_meta, "rhythm"))
    preamble: list[str] = []
    sections: dict[str, list[Line]] = {}
    other: dict[str, list[str]] = {}
    current: str | None = None
    offset = text[:len(text) - len(doc.body)].count("\n") + 1  # file line of the body's first line
    for i, line in enumerate(doc.body.splitlines()):
        if line.startswith("## "):
            current = line[3:].strip()
            (sections if current in SECTIONS else other).setdefault(current, [])
        elif current is None:
            preamble.append(line)
        elif current not in SECTIONS:
            other[current].append(line)
        elif line.strip():
            m = _LINE.match(line.strip())
            if not m:
                raise FormatError(path, f"not a quoted line: {line.strip()[:60]!r}", offset + i,
                                  'Write each line as - "what they wrote" (optionally followed by (hand)).')
            sections[current].append(Line(m["text"], m["source"] or "hand"))
    pre = "\n".join(preamble).rstrip("\n")
    doc.flow_keys = FLOW_KEYS
    voice = Voice(doc, path, pre + "\n\n" if pre else "", sections, other)
    voice._orig = render_body(voice)
    return voice


def load(path: Path) -> Voice:
    return parse(read_text(path), path)


def render_body(voice: Voice) -> str:
    out = [voice.preamble]
    for title in [*SECTIONS, *[t for t in voice.sections if t not in SECTIONS]]:
        if title not in voice.sections:
            continue
        out.append(f"## {title}\n\n")
        lines = voice.sections[title]
        if lines:
            out.append("".join(line.render() + "\n" for line in lines) + "\n")
    for title, raw in voice.other.items():
        out.append(f"## {title}\n" + "".join(line + "\n" for line in raw))
    return "".join(out)


def render(voice: Voice) -> str:
    body = render_body(voice)
    if body != voice._orig:
        voice.doc.body = body
    return fm.render(voice.doc)


def new(path: Path, name: str) -> Voice:
    doc = fm.new({"budget_tokens": DEFAULT_BUDGET, "private": []}, "")
    doc.flow_keys = FLOW_KEYS
    preamble = (f"\n# Voice — {name}\n\nTheir own words, verbatim: the persona sees them as examples of how "
                f"they write, never as facts.\nLines marked (import ...) are picked from imported chats and may "
                f"be replaced by newer ones; every other line is yours and stays.\n\n")
    return Voice(doc, Path(path), preamble, {s: [] for s in SECTIONS}, {})  # render() writes the body
