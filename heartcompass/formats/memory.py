"""MEMORY.md: consolidated knowledge, bounded in tokens.

Frontmatter: `budget_tokens` bounds the body. (How far each log has been
consolidated is local state, heartcompass/memory/consolidation.py; older versions
kept it here as a `consolidated` map, still read once and then dropped.)
Body sections:
  ## Facts            trusted: what the user stated or imported
  ## From our chats   untrusted: what the persona said in simulated chats
  ## Open threads     things to follow up on
  ## About me         what the user told this person about the user's own
                      life (their kids, their plans, their news): trusted,
                      from the user's own lines only; optional (older files
                      have none: the gardener adds it after Open threads)
Each line cites its source. An open thread whose time passes says until when
it is open, before its source: `- Plan a trip for the summer (until 2023-08)
(log 2023-05-01)`; past that day (or month) it is closed by the gardener and
no longer shown to a persona. Other sections a user adds are kept; the first
three above must be there, spelled exactly (a renamed one is a FormatError: the
gardener would otherwise add a second, empty Facts and lose track of the
renamed one's trust)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heartcompass.errors import FormatError
from heartcompass.formats import frontmatter_doc as fm
from heartcompass.formats.text import FILE_KINDS, read_text
from heartcompass.tokens import estimate_tokens

FILENAME = FILE_KINDS["memory"]
FACTS, CHATS, THREADS = "Facts", "From our chats", "Open threads"
SECTIONS = (FACTS, CHATS, THREADS)  # required
ABOUT_ME = "About me"
KNOWN = (*SECTIONS, ABOUT_ME)  # ours; any other heading is the user's own section
# How a user may spell the About me heading by hand (any case); kept as written.
ABOUT_ME_SPELLINGS = ("about me", "关于我")
DEFAULT_BUDGET = 6000  # years of a relationship; a prompt takes only what the conversation needs
FLOW_KEYS = ("consolidated",)  # one line, however many logs it counts
# "(until 2023-08)" or "(until 2023-08-31)" in a thread, full-width parentheses and a colon allowed by hand
UNTIL = re.compile(r"\s*[(（]\s*until:?\s*(\d{4}-\d{1,2}(?:-\d{1,2})?)\s*[)）]", re.I)
UNTIL_HINT = "Write it as '(until YYYY-MM-DD)' or '(until YYYY-MM)' before the source, or remove it."


def until(line: str) -> dt.date | None:
    """The last day a thread is open, from its '(until ...)' (a month: its
    last day); None when it has none (or a date that is not real)."""
    m = UNTIL.search(line)
    if not m:
        return None
    try:
        return _last_day(m.group(1))
    except ValueError:
        return None


def _last_day(text: str) -> dt.date:
    parts = [int(x) for x in text.split("-")]
    if len(parts) == 3:
        return dt.date(*parts)
    year, month = parts
    if not 1 <= month <= 12:
        raise ValueError
    return dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)  # the day before the next month


def is_past(line: str, today: dt.date) -> bool:
    """A thread whose time has passed: it is not open any more."""
    end = until(line)
    return end is not None and end < today


def with_until(text: str, value: str | None) -> str:
    """A thread's text with its '(until ...)' set (or dropped, for None)."""
    text = UNTIL.sub("", text).rstrip()
    return f"{text} (until {value})" if value else text


@dataclass
class Memory:
    doc: fm.Document
    path: Path
    preamble: str
    sections: dict[str, list[str]] = field(default_factory=dict)
    _orig_sections: dict[str, list[str]] = field(default_factory=dict, repr=False)
    spelled: dict[str, str] = field(default_factory=dict)  # a section's heading as the user wrote it

    @property
    def legacy_consolidated(self) -> dict[str, int]:
        """The old frontmatter map of consolidated entries per log date."""
        raw = self.doc.meta.get("consolidated") or {}
        return {str(k): int(v) for k, v in raw.items()}

    def drop_legacy(self) -> None:
        self.doc.meta.pop("consolidated", None)

    @property
    def budget_tokens(self) -> int:
        return int(self.doc.meta.get("budget_tokens") or DEFAULT_BUDGET)

    def items(self, section: str) -> list[str]:
        return list(self.sections.get(section, []))

    def body_tokens(self) -> int:
        return estimate_tokens(render_body(self))


def parse(text: str, path: Path) -> Memory:
    doc = fm.parse(text, path)
    meta = doc.meta
    cons = meta.get("consolidated")
    if cons is not None:
        if not isinstance(cons, dict):
            raise FormatError(path, "'consolidated' must map log dates to entry counts",
                              fm.line_of_key(doc.raw_meta, "consolidated"),
                              "Leave it as HeartCompass wrote it, e.g. '2026-12-02: 14'.")
        for key, value in cons.items():
            try:
                dt.date.fromisoformat(str(key))
                if int(value) < 0:
                    raise ValueError
            except (ValueError, TypeError):
                raise FormatError(path, f"'consolidated' entry {key}: {value} is not 'date: count'",
                                  fm.line_of_key(doc.raw_meta, "consolidated"),
                                  "Each line is a log date and how many of its entries are consolidated.") from None
    budget = meta.get("budget_tokens")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0):
        raise FormatError(path, f"'budget_tokens' must be a positive whole number, not {budget!r}",
                          fm.line_of_key(doc.raw_meta, "budget_tokens"))
    preamble: list[str] = []
    sections: dict[str, list[str]] = {}
    spelled: dict[str, str] = {}
    headings: dict[str, int] = {}  # title -> its index among the body's lines
    current: str | None = None
    for i, line in enumerate(doc.body.splitlines()):
        if line.startswith("## "):
            current = line[3:].strip()
            if current.casefold() in ABOUT_ME_SPELLINGS and current != ABOUT_ME:
                spelled.setdefault(ABOUT_ME, current)
                current = ABOUT_ME
            sections.setdefault(current, [])
            headings.setdefault(current, i)
        elif current is None:
            preamble.append(line)
        elif line.strip():
            sections[current].append(line.rstrip())
            if current == THREADS:
                _check_until(text, doc, path, i, line)
    _check_sections(text, doc, path, headings)
    pre = "\n".join(preamble).rstrip("\n")
    doc.flow_keys = FLOW_KEYS
    return Memory(doc, path, pre + "\n\n" if pre else "", sections,
                  {k: list(v) for k, v in sections.items()}, spelled)


def _check_until(text: str, doc: fm.Document, path: Path, index: int, line: str) -> None:
    m = UNTIL.search(line)
    if m:
        try:
            _last_day(m.group(1))
        except ValueError:
            body_start = text.count("\n", 0, len(text) - len(doc.body))
            raise FormatError(path, f"'until {m.group(1)}' is not a real date", body_start + index + 1,
                              UNTIL_HINT) from None


def _check_sections(text: str, doc: fm.Document, path: Path, headings: dict[str, int]) -> None:
    """Each required section is there, or a FormatError at the heading that
    looks renamed (the first one we do not know), else at the end of the file."""
    missing = [title for title in SECTIONS if title not in headings]
    if not missing:
        return
    body_start = text.count("\n", 0, len(text) - len(doc.body))  # lines before the body
    unknown = [(i, title) for title, i in headings.items() if title not in KNOWN]
    names = " and ".join(f"'## {title}'" for title in missing)
    problem = f"the section {names} is missing" if len(missing) == 1 else f"the sections {names} are missing"
    line: int | None
    if unknown:
        line = body_start + unknown[0][0] + 1
        problem += f" (is '## {unknown[0][1]}' on this line a renamed one?)"
    else:
        line = body_start + len(doc.body.splitlines()) or None
    required = ", ".join(f"'## {title}'" for title in SECTIONS)
    raise FormatError(path, problem, line,
                      f"MEMORY.md needs the sections {required}, spelled exactly (your own sections may follow "
                      "them): rename the heading back or add the missing one.")


def load(path: Path) -> Memory:
    return parse(read_text(path), path)


def render_body(mem: Memory) -> str:
    out = [mem.preamble]
    for title, lines in mem.sections.items():
        out.append(f"## {mem.spelled.get(title, title)}\n\n")
        if lines:
            out.append("".join(line + "\n" for line in lines) + "\n")
    return "".join(out)


def ensure_section(mem: Memory, title: str) -> list[str]:
    """The lines of one of our sections, adding it when the file has none:
    right after the last of ours that comes before it (so About me lands
    after Open threads, before the user's own sections)."""
    if title in mem.sections:
        return mem.sections[title]
    before = KNOWN[:KNOWN.index(title)] if title in KNOWN else KNOWN
    present = [t for t in mem.sections if t in before]
    after = list(mem.sections).index(present[-1]) + 1 if present else len(mem.sections)
    items = list(mem.sections.items())
    items.insert(after, (title, []))
    mem.sections = dict(items)
    return mem.sections[title]


def render(mem: Memory) -> str:
    if mem.sections != mem._orig_sections:
        mem.doc.body = render_body(mem)
    return fm.render(mem.doc)


def new(path: Path, name: str, budget_tokens: int = DEFAULT_BUDGET) -> Memory:
    meta: dict[str, Any] = {"budget_tokens": budget_tokens}
    doc = fm.new(meta, "")
    doc.flow_keys = FLOW_KEYS
    mem = Memory(doc, path, f"\n# Memory — {name}\n\n", {s: [] for s in KNOWN}, {})
    mem.doc.body = render_body(mem)
    return mem
