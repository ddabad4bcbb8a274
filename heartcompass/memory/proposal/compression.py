"""A compression of MEMORY.md (fit_budget), checked with the same rules as a
proposal before it replaces anything. It may only merge and shorten lines
that exist, and each line it writes names them: the ids of the lines of its
own section it keeps or merges. Each line is checked against exactly the
lines it cites: a short line of prose (ck.text); only lines of one source
merge, and the line keeps that source (derived here, never written by the
model); it says what they say (at least half its words are theirs, every
number in it is theirs); every number of a line it merges stays. A
hand-written line stays word for word (kept first, without being asked for;
it never merges); a told line, or one this run just wrote, stays in
substance (a line citing it carries its words and numbers). A thread's end
is the latest of its lines'. The limits are checked before anything else."""

from __future__ import annotations

from heartcompass.formats import memory as memory_fmt
from heartcompass.formats.sources import MARKER
from heartcompass.memory.proposal.evidence import Checker, lexical
from heartcompass.memory.proposal.limits import compression_over_limits
from heartcompass.memory.proposal.model import Compressed
from heartcompass.memory.proposal.trust import Mark, mark_of
from heartcompass.memory.proposal.workbench import SECTION_IDS, Workbench, norm

COVERED = 0.5  # share of a line's words another line must carry to hold it
KEYS = ("facts", "chat_notes", "threads", "about_user")


class _Line:
    def __init__(self, line: str):
        mark = MARKER.search(line)
        self.line = line
        self.mark = mark.group(0) if mark else None
        body = line[2:mark.start()].strip() if mark else line[2:].strip()
        self.body = memory_fmt.UNTIL.sub("", body).strip()  # a thread's end is derived, not text
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
    added = {f"- {c[len(f'+ {title}: '):]}" for c in wb.changes if c.startswith(f"+ {title}: ")}
    # "~ title: old -> new", where old and new may hold " -> " themselves: a rewritten line is one the
    # section holds now that a rewrite ends with.
    rewrites = [c for c in wb.changes if c.startswith(f"~ {title}: ")]
    return added | {line for line in wb.memory.items(title) if any(c.endswith(f" -> {line[2:]}") for c in rewrites)}


def check_compression(wb: Workbench, result: Compressed, max_items: int) -> tuple[list[str], dict[str, list[str]]]:
    """(problems, the new sections' lines)."""
    problems = compression_over_limits(result, max_items)
    if problems:
        return problems, {}
    ck = Checker(wb, [])
    ck.problems = problems
    cleaned: dict[str, list[str]] = {}
    for (prefix, title), key in zip(SECTION_IDS, KEYS):
        if getattr(result, key) is None or title not in wb.memory.sections:
            continue  # About me left out: it stays as it is, never emptied by a model that omits it
        lines = {f"{prefix}{i + 1}": line for i, line in enumerate(wb.memory.items(title))}
        cleaned[title] = [line for line in lines.values() if wb.is_protected(line)]  # the user's, verbatim
        holders: dict[str, list[_Line]] = {}  # id -> the compressed lines citing it
        for n, kept in enumerate(getattr(result, key), 1):
            what = f"compressed {'line about the user' if key == 'about_user' else key[:-1].replace('_', ' ')} {n}"
            ids = list(dict.fromkeys(i.strip() for i in kept.lines))
            others = [i for i in ids if i not in lines]
            if others or not ids:
                problems.append(f"{what}: cites {', '.join(others) or 'no line'}; name the {title} lines "
                                "it keeps or merges")
                continue
            cited = [lines[i] for i in ids]
            hand = [line for line in cited if wb.is_protected(line)]
            if len(hand) == len(cited):
                continue  # only restates the user's own lines, which are kept anyway
            if hand:
                mine = ", ".join(i for i in ids if wb.is_protected(lines[i]))
                problems.append(f"{what}: merges a hand-written line ({mine}), which stays word for word on its "
                                "own; cite only lines of one source")
                continue
            text = ck.text(what, kept.text)
            one = _line(wb, title, ids, cited, text, what, problems)
            if one is None:
                continue
            for i in ids:
                holders.setdefault(i, []).append(one)
            if norm(one.line) not in (norm(x) for x in cleaned[title]):
                cleaned[title].append(one.line)
        fresh = _fresh(wb, title)
        for i, line in lines.items():
            old = _Line(line)
            if wb.is_protected(line):
                if line not in cleaned[title]:
                    problems.append(f"compression dropped a hand-written line: {line[:60]!r}")
            elif (mark_of(line) is Mark.TOLD or line in fresh) and not any(w.holds(old) for w in holders.get(i, [])):
                why = "a line the user told" if mark_of(line) is Mark.TOLD else "a line just written"
                problems.append(f"compression dropped {why} ({i}): {line[:60]!r}")
    return problems, cleaned


def _line(wb: Workbench, title: str, ids: list[str], cited: list[str], text: str, what: str,
          problems: list[str]) -> _Line | None:
    """The compressed line, its source and (for a thread) its end derived from
    the lines it cites; checked against exactly those lines."""
    sources = [_Line(line) for line in cited]
    marks = {old.mark for old in sources if old.mark is not None}
    if len(marks) < len({old.mark for old in sources}):
        problems.append(f"{what}: cites a line without a source ({', '.join(ids)})")
        return None
    if len(marks) > 1:
        problems.append(f"{what}: merges lines of different sources ({', '.join(sorted(marks))}); merge only "
                        "lines of one source")
        return None
    if not text:
        return None
    mark = marks.pop()
    if title == memory_fmt.THREADS:
        text = memory_fmt.with_until(text, _latest_until(cited))
    one = _Line(f"- {text} {mark}")
    show = f"{one.line[:60]!r}"
    invented = one.numbers - set().union(*(old.numbers for old in sources))
    if invented:
        problems.append(f"compressed line has {', '.join(sorted(invented))}, which no {mark} line of {title} "
                        f"it cites ({', '.join(ids)}) has: {show}")
    shared = one.words & set().union(*(old.words for old in sources))
    if one.words and len(shared) < COVERED * len(one.words):
        problems.append(f"compressed line says what no {mark} line of {title} it cites ({', '.join(ids)}) says: "
                        f"{show}")
    for i, old in zip(ids, sources):
        lost = old.numbers - one.numbers
        if lost:
            problems.append(f"compressed line drops {', '.join(sorted(lost))} of the line it merges ({i}): "
                            f"{old.line[:60]!r}")
    return one


def _latest_until(lines: list[str]) -> str | None:
    """A merged thread is open until the latest of its lines is (for ever if one has no end)."""
    ends = [(memory_fmt.until(line), m.group(1)) for line in lines if (m := memory_fmt.UNTIL.search(line))]
    if len(ends) < len(lines) or any(end is None for end, _ in ends):
        return None
    return max(ends)[1]


def apply_compression(wb: Workbench, result: Compressed, max_items: int) -> list[str]:
    """Replace MEMORY's sections with the compressed ones when every
    check passes; the problems otherwise (and nothing changed)."""
    problems, cleaned = check_compression(wb, result, max_items)
    if not problems:
        for title, lines in cleaned.items():
            wb.memory.sections[title] = lines
        wb.changes.append("~ memory compressed to fit its budget")
    return problems
