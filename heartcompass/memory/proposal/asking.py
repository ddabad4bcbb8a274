"""The questions a proposal's statement becomes when it changes who someone
is: checked like any statement first, then asked instead of applied (the
gardener keeps them in memory/questions.py's store; `tell` applies them
once the user says yes to its diff). The `change` of each is in the shape
questions.py documents."""

from __future__ import annotations

from typing import Sequence

from heartcompass.formats import memory as memory_fmt
from heartcompass.formats.sources import without_source
from heartcompass.memory.proposal.evidence import lexical
from heartcompass.memory.proposal.trust import THE_USERS, Mark, mark_of
from heartcompass.memory.proposal.workbench import LogItem, Workbench, norm
from heartcompass.memory.questions import Question

ASKED_FIELDS = ("relation", "gender", "birthday")  # and an alias: they route messages
BOUNDARIES = "Boundaries"


def quoted(found: list[LogItem]) -> list[dict[str, str]]:
    """The cited entries as the question shows them."""
    return [{"day": i.day, "time": i.entry.time, "speaker": i.entry.speaker, "text": i.entry.text} for i in found]


def field_question(wb: Workbench, name: str, value: str, found: list[LogItem]) -> Question:
    if name == "alias":
        return Question(wb.slug, "alias", {"value": value}, f"alias: + {value}", quoted(found),
                        "an alias routes the messages of imports and chats to this person")
    old = wb.profile.doc.meta.get(name)
    old = None if old is None else str(old)
    return Question(wb.slug, "field", {"field": name, "value": value, "old": old},
                    f"{name}: {old or '—'} → {value}", quoted(found), f"a {name} changes who someone is")


def link_question(wb: Workbench, person: str, words: str, found: list[LogItem]) -> Question:
    return Question(wb.slug, "link", {"person": person, "words": words}, f"related: + {person} ({words})",
                    quoted(found), "a link says who two people are to each other")


def whose(wb: Workbench, line: str, section: str = "") -> str:
    """Why a line is the user's to change (trust.THE_USERS), or "" when the gardener may."""
    mark = Mark.HAND if wb.is_protected(line) else mark_of(line)
    if mark in THE_USERS:
        return THE_USERS[mark]
    if section == BOUNDARIES:
        return "a boundary is the person's own"
    return ""


def rewrite_question(wb: Workbench, file: str, section: str, old: str, new: str, found: list[LogItem],
                     why: str) -> Question:
    shown_old, shown_new = without_source(old.lstrip("- ").strip()), without_source(new.lstrip("- ").strip())
    return Question(wb.slug, "rewrite", {"file": file, "section": section, "old": old, "new": new},
                    f"{file} {section}: {shown_old} → {shown_new}".replace("  ", " "), quoted(found), why)


def removal_question(wb: Workbench, file: str, section: str, old: str, why: str) -> Question:
    shown = without_source(old.lstrip("- ").strip())
    return Question(wb.slug, "removal", {"file": file, "section": section, "old": old},
                    f"{file} {section}: remove {shown}".replace("  ", " "), [], why)


def field_asked(wb: Workbench, name: str, value: str) -> bool:
    """A field that changes who someone is, and would change: asked."""
    meta = wb.profile.doc.meta
    if name == "alias":
        return norm(value) not in (norm(str(x)) for x in meta.get("aliases") or [])
    return name in ASKED_FIELDS and (str(meta[name]) if meta.get(name) is not None else None) != value


def told(line: str) -> bool:
    """What the user told (`tell`): a removal cites no entries, so it asks instead."""
    return mark_of(line) is Mark.TOLD


def holds(text: str, old: str) -> bool:
    """Whether a statement carries a line's substance: every number of it and
    at least half its words (a merge of two lines into one)."""
    words, numbers = lexical(text)
    old_words, old_numbers = lexical(without_source(old[2:]))
    return not old_numbers - numbers and (not old_words or len(old_words & words) >= 0.5 * len(old_words))


def removal_asked(wb: Workbench, title: str, old: str, merged: Sequence[str]) -> str:
    """Why removing a MEMORY.md line is the user's to say, or "": a told line
    a statement of this proposal carries in substance was merged, and goes."""
    if wb.is_protected(old):
        return THE_USERS[Mark.HAND]
    if title != memory_fmt.THREADS and told(old) and not any(holds(x, old) for x in merged):
        return THE_USERS[Mark.TOLD]
    return ""
