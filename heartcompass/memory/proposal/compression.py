"""A compression of MEMORY.md (fit_budget), checked with the same rules as a
proposal before it replaces anything. It may only merge and shorten lines
that exist: each line it writes is a short line of prose (ck.text), keeps
the source marker of the lines it merges (only lines of one source merge)
and says what they say (at least half its words are theirs, every number
in it is theirs); every number of a line it merges stays; a hand-written
line stays word for word; a told line, or one this run just wrote, stays
in substance (a line of its source carries its words and numbers)."""

from __future__ import annotations

from heartcompass.formats import memory as memory_fmt
from heartcompass.formats.sources import MARKER
from heartcompass.memory.proposal.evidence import Checker, lexical, visible
from heartcompass.memory.proposal.limits import compression_over_limits
from heartcompass.memory.proposal.model import Compressed
from heartcompass.memory.proposal.workbench import Workbench

COVERED = 0.5  # share of a line's words another line must carry to hold it


class _Line:
    def __init__(self, line: str):
        mark = MARKER.search(line)
        self.line = line
        self.mark = mark.group(0) if mark else None
        self.body = line[2:mark.start()].strip() if mark else line[2:].strip()
        self.words, self.numbers = lexical(self.body)

    def holds(self, other: "_Line") -> bool:
        """Whether this line carries the other's substance: its numbers and
        at least COVERED of its words."""
        if other.numbers - self.numbers:
            return False
        return not other.words or len(other.words & self.words) >= COVERED * len(other.words)


def _fresh(wb: Workbench, title: str) -> set[str]:
    """The lines of this section this run wrote (added or rewritten): compressing
    may not drop what was just learned."""
    added = {c[len(f"+ {title}: "):] for c in wb.changes if c.startswith(f"+ {title}: ")}
    rewritten = {c.rsplit(" -> ", 1)[1] for c in wb.changes if c.startswith(f"~ {title}: ") and " -> " in c}
    return {f"- {x}" for x in added | rewritten}


def check_compression(wb: Workbench, result: Compressed, max_items: int) -> tuple[list[str], dict[str, list[str]]]:
    """(problems, the new sections' lines)."""
    problems = compression_over_limits(result, max_items)
    if problems:
        return problems, {}
    ck = Checker(wb, [])
    new = {memory_fmt.FACTS: result.facts, memory_fmt.CHATS: result.chat_notes, memory_fmt.THREADS: result.threads}
    if result.about_user is not None and memory_fmt.ABOUT_ME in wb.memory.sections:
        new[memory_fmt.ABOUT_ME] = result.about_user  # left out (None): the section stays as it is
    cleaned: dict[str, list[str]] = {}
    for title, lines in new.items():
        before = [_Line(old) for old in wb.memory.items(title)]
        cleaned[title] = []
        written = []
        for raw in lines:
            line = visible(raw).strip()
            line = line if line.startswith("- ") else f"- {line}"
            one = _Line(line)  # a line break anywhere is refused by ck.text (or, without a marker, below)
            if not one.mark:
                problems.append(f"compressed line without a source: {line[:60]!r}")
            elif one.mark == "(hand)":
                if not any(old.line == line and wb.is_protected(old.line) for old in before):
                    # a model-written "(hand)" would forge the user's protection
                    problems.append(f"only the user's own lines end in (hand): {line[:60]!r}")
            elif not any(old.mark == one.mark for old in before):
                problems.append(f"compressed line cites a source its section does not have: {line[:60]!r}")
            else:
                body = _merges(ck, title, one, [old for old in before if old.mark == one.mark], problems)
                line = one.line = f"- {body} {one.mark}"  # a marker forged inside the text is gone
            cleaned[title].append(line)
            written.append(one)
        fresh = _fresh(wb, title)
        for old in before:
            if wb.is_protected(old.line):
                if old.line not in cleaned[title]:
                    problems.append(f"compression dropped a hand-written line: {old.line[:60]!r}")
            elif (old.mark == "(told)" or old.line in fresh) and not any(
                    w.mark == old.mark and w.holds(old) for w in written):
                why = "a line the user told" if old.mark == "(told)" else "a line just written"
                problems.append(f"compression dropped {why}: {old.line[:60]!r}")
    return problems, cleaned


def _merges(ck: Checker, title: str, one: _Line, sources: list[_Line], problems: list[str]) -> str:
    """A compressed line against the lines of its source it may merge; its text, cleaned."""
    ck.problems = problems
    body = ck.text(f"compressed {title} line", one.body)
    invented = one.numbers - set().union(*(old.numbers for old in sources))
    if invented:
        problems.append(f"compressed line has {', '.join(sorted(invented))}, which no {one.mark} line of "
                        f"{title} has: {one.line[:60]!r}")
    shared = one.words & set().union(*(old.words for old in sources))
    if one.words and len(shared) < COVERED * len(one.words):
        problems.append(f"compressed line says what no {one.mark} line of {title} says: {one.line[:60]!r}")
    for old in sources:
        merged = old.words and len(old.words & one.words) >= COVERED * len(old.words)
        lost = old.numbers - one.numbers
        if merged and lost:
            problems.append(f"compressed line drops {', '.join(sorted(lost))} of the line it merges: "
                            f"{old.line[:60]!r}")
    return body


def apply_compression(wb: Workbench, result: Compressed, max_items: int) -> list[str]:
    """Replace MEMORY's sections with the compressed ones when every
    check passes; the problems otherwise (and nothing changed)."""
    problems, cleaned = check_compression(wb, result, max_items)
    if not problems:
        for title, lines in cleaned.items():
            wb.memory.sections[title] = lines
        wb.changes.append("~ memory compressed to fit its budget")
    return problems
