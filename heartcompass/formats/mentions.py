"""PROFILE.md's `## People in their life`: the people a person mentions who
are not (yet) people of the workspace, one line each.

    - [m1] Sara (daughter; aka my daughter, 小女儿): Plays the violin; 8 years old (log 2026-03-02)
    - [m2] Rob (colleague; → rob): From the yoga class (told)

`[m1]` is the line's id (the gardener rewrites, merges and removes a line by
it; a hand-written line without one gets the next when the section is next
written). Then the name, then in parentheses who they are to this person,
`aka` the other names the line answers to, and `→ slug` once they are a
person of the workspace; after the colon, short notes separated by `;`; last
the source marker like every other line (formats/sources.py).

Hand-editable and tolerant: any `- ` line is a mention (its name is what
comes before ` (` or `:`). Lines that are not changed are written back as
they were read, so the file round-trips byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from heartcompass.formats.profile import MENTIONS
from heartcompass.formats.sources import MARKER

SECTION = MENTIONS
HEADING = f"## {SECTION}"
_ID = re.compile(r"^\[(m\d+)\]\s*")
_LINK = re.compile(r"^(?:→|->)\s*(\S+)$")
_AKA = re.compile(r"^(?:aka|又名|也叫)\s+(.+)$", re.I)


@dataclass
class Mention:
    name: str
    role: str = ""                                   # who they are to this person: daughter, colleague, dog
    aliases: list[str] = field(default_factory=list)  # other names the line answers to
    notes: list[str] = field(default_factory=list)
    person: str = ""                                  # the workspace person's slug, once linked
    source: str = ""                                  # the closing marker's text: "log 2026-03-02", "told"...
    id: str = ""                                      # "m3"
    raw: str = ""                                     # the line as read; "" once changed

    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def changed(self, **fields) -> "Mention":
        return replace(self, raw="", **fields)


def parse_line(line: str) -> Mention | None:
    """A `- ` line as a mention (None for anything else: blank, comment)."""
    if not line.startswith("- "):
        return None
    text = line[2:].strip()
    source = ""
    marker = MARKER.search(text)
    if marker:
        source, text = marker.group()[1:-1], text[:marker.start()].rstrip()
    ident = ""
    m = _ID.match(text)
    if m:
        ident, text = m.group(1), text[m.end():]
    name, meta, notes = _split(text)
    role, aliases, person, more = "", [], "", []
    for item in (p.strip() for p in meta.split(";")):
        if _LINK.match(item):
            person = _LINK.match(item).group(1)  # type: ignore[union-attr]
        elif _AKA.match(item):
            aliases += [a.strip() for a in re.split(r"[,，、/]", _AKA.match(item).group(1)) if a.strip()]  # type: ignore[union-attr]
        elif item and not role:
            role = item
        elif item:
            more.append(item)  # a second role is a note, in the order written
    return Mention(name.strip(), role, aliases, [*more, *(n.strip() for n in notes.split(";") if n.strip())],
                   person, source, ident, line)


def _split(text: str) -> tuple[str, str, str]:
    """(name, what is in the parentheses after it, notes after the colon)."""
    m = re.match(r"^(?P<name>[^(:：]+?)\s*(?:\((?P<meta>[^)]*)\))?\s*(?:[:：]\s*(?P<notes>.*))?$", text)
    if not m:
        return text, "", ""
    return m.group("name") or text, m.group("meta") or "", m.group("notes") or ""


def render_line(mention: Mention) -> str:
    if mention.raw:
        return mention.raw
    meta = [mention.role] if mention.role else []
    if mention.aliases:
        meta.append("aka " + ", ".join(mention.aliases))
    if mention.person:
        meta.append(f"→ {mention.person}")
    text = f"- [{mention.id}] {_clean(mention.name)}" if mention.id else f"- {_clean(mention.name)}"
    if meta:
        text += " (" + "; ".join(_clean(m, ";") for m in meta) + ")"
    if mention.notes:
        text += ": " + "; ".join(_clean(n, ";") for n in mention.notes)
    if mention.source:
        text += f" ({mention.source})"
    return text


def _clean(text: str, also: str = "") -> str:
    """One line, with none of the characters that would end its part early:
    brackets go, a separator (also) becomes a comma, so two clauses stay two."""
    out = " ".join(str(text).split())
    for ch in "()（）":
        out = out.replace(ch, " ")
    for ch in also:
        out = re.sub(rf"\s*{re.escape(ch)}\s*", ", ", out)
    return " ".join(out.split()).strip(", ")


def section_bounds(body: str) -> tuple[int, int] | None:
    """(first line after the heading, line after the section) in body's lines."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == HEADING:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
            return i + 1, end
    return None


def read(body: str) -> list[Mention]:
    bounds = section_bounds(body)
    if bounds is None:
        return []
    lines = body.split("\n")[bounds[0]:bounds[1]]
    return [m for m in (parse_line(line) for line in lines) if m is not None]


def with_ids(mentions: list[Mention]) -> list[Mention]:
    """Every mention with an id: a hand-written line gets the next free one."""
    taken = [int(m.id[1:]) for m in mentions if m.id]
    following = max(taken, default=0) + 1
    out = []
    for m in mentions:
        if not m.id:
            m = m.changed(id=f"m{following}")
            following += 1
        out.append(m)
    return out


def write(body: str, mentions: list[Mention]) -> str:
    """body with the section's `- ` lines replaced by mentions, in order and
    in place (a new one after the last); its other lines (comments, blank
    lines) stay where they were. A body without the section gets one at its end."""
    rendered = [render_line(m) for m in mentions]
    bounds = section_bounds(body)
    if bounds is None:
        if not rendered:
            return body
        tail = "" if body.endswith("\n") else "\n"
        return body + tail + f"\n{HEADING}\n\n" + "\n".join(rendered) + "\n"
    lines = body.split("\n")
    start, end = bounds
    inside = lines[start:end]
    slots = [i for i, line in enumerate(inside) if line.startswith("- ")]
    if len(slots) < len(rendered):  # the new ones go after the last line that is not blank
        last = max((i for i, line in enumerate(inside) if line.strip()), default=-1)
        inside = inside[:last + 1] + rendered[len(slots):] + inside[last + 1:]  # every slot is above them
        if last == -1:  # a section of blank lines only: one blank line under its heading first
            inside.insert(0, "")
    for slot, text in zip(slots, rendered):
        inside[slot] = text
    gone = set(slots[len(rendered):])
    inside = [line for i, line in enumerate(inside) if i not in gone]
    return "\n".join(lines[:start] + inside + lines[end:])


def next_id(mentions: list[Mention]) -> str:
    return f"m{max((int(m.id[1:]) for m in mentions if m.id), default=0) + 1}"
