"""The gardener's statements about the people someone mentions: lines of
PROFILE.md's `## People in their life` (formats/mentions.py), shown to the
model with M ids, judged by the rules every line is: evidence from trusted
entries that name them (by their name or one of the aliases proposed), the
words of the notes in those entries, the user's own lines never rewritten
(a change to one becomes an open thread).

A new mention that is someone already listed (their name, an alias, a
nickname, 'my daughter' for the daughter, a typo) is merged into that line,
so the aliases of one person resolve to one line; one that could be either
of two lines is refused with both ids, for the model to name one. A
mention that is a person of the workspace is linked to them (→ slug)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from heartcompass import names
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats import mentions as mentions_fmt
from heartcompass.formats.sources import without_source
from heartcompass.memory.proposal.asking import removal_question, rewrite_question, whose
from heartcompass.memory.proposal.evidence import Checker
from heartcompass.memory.proposal.trust import Claim
from heartcompass.memory.proposal.verdicts import Judge
from heartcompass.memory.proposal.workbench import Workbench, norm

SECTION = mentions_fmt.SECTION
MOST_NOTES = 6  # a line is a glance; the rest belongs in facts


def current(wb: Workbench) -> list[mentions_fmt.Mention]:
    return mentions_fmt.read(wb.profile.doc.body)


def present(wb: Workbench) -> list[str]:
    """The section as the model sees it: an id on every line."""
    return [f"M{i + 1} {m.raw or mentions_fmt.render_line(m)}"
            f"{'   [hand-written]' if wb.is_protected(m.raw) else ''}" for i, m in enumerate(current(wb))] or ["(none)"]


def ids(wb: Workbench) -> list[str]:
    return [f"M{i + 1}" for i in range(len(current(wb)))]


@dataclass
class _Work:
    """The section while a proposal is applied: ops change `lines`, flush writes them."""
    lines: list[mentions_fmt.Mention]
    changed: bool = False
    notes: list[str] = field(default_factory=list)  # what changed, for wb.changes


def judge(ck: Checker, j: Judge, wb: Workbench, proposal, asking: bool = True) -> None:
    """Each mention statement's verdict (kept, refused with its reasons, or
    asked: a change to a line the user wrote or told, any line removed), as
    apply.py gives every statement; the kept ones change the section once
    all are judged."""
    work = _Work(current(wb))
    shown = {f"M{i + 1}": m for i, m in enumerate(work.lines)}
    people = [names.Candidate(ident, m.names(), m.role) for ident, m in shown.items()]
    for n, new in enumerate(proposal.new_mentions, 1):
        what, start = f"new mention {n}", j.start()
        if len(new.aliases) > MOST_NOTES or len(new.notes) > MOST_NOTES:
            ck.problems.append(f"{what}: at most {MOST_NOTES} aliases and {MOST_NOTES} notes")
        name, role = ck.text(what, new.name), ck.text(what, new.role) if new.role else ""
        aliases = [ck.text(what, a) for a in new.aliases]
        notes = [ck.text(what, x) for x in new.notes]
        source = ck.evidence(what, new.evidence, Claim.MENTION, " ".join([name, role, *notes]))
        if source and not _named(ck, [name, *aliases]):  # by a name said, not by kinship: 'my colleague' is not Kevin
            ck.problems.append(f"{what}: {name!r} is not named in the entries it cites ({', '.join(new.evidence)})")
        same = _resolve([name, *aliases], people)
        if same.ambiguous:
            ck.problems.append(f"{what}: {name!r} could be {' or '.join(same.matches)}; change the one it is by id "
                               "(changed_mentions)")
        if not j.passes(start, "new_mentions", new, source) or not source:
            continue
        if same.one:
            _judge_merge(j, wb, work, shown[same.one], [name, *aliases], role, notes, source, asking, list(ck.found))
        else:
            line = mentions_fmt.Mention(name, role, _unique(aliases, [name]), notes[:MOST_NOTES],
                                        _person_named(wb, name), source)
            j.keep(lambda m=line: _add(work, m))
    for ch in proposal.changed_mentions:
        what, start = f"mention {ch.id}", j.start()
        target = shown.get(ch.id.strip())
        if target is None:
            ck.problems.append(f"{what}: no such id")
        if len(ch.aliases) > MOST_NOTES or len(ch.notes) > MOST_NOTES:
            ck.problems.append(f"{what}: at most {MOST_NOTES} aliases and {MOST_NOTES} notes")
        aliases = [ck.text(what, a) for a in ch.aliases]
        notes = [ck.text(what, x) for x in ch.notes]
        role = ck.text(what, ch.role) if ch.role else ""
        source = ck.evidence(what, ch.evidence, Claim.MENTION, " ".join([*aliases, role, *notes]) or None)
        if j.passes(start, "changed_mentions", ch, source and target is not None) and target is not None and source:
            _judge_merge(j, wb, work, target, aliases, role, notes, source, asking, list(ck.found))
    for ident in proposal.removed_mentions:
        start = j.start()
        target = shown.get(ident.strip())
        if target is None:
            ck.problems.append(f"mention {ident!r}: no such id")
        if not j.passes(start, "removed_mentions", ident, target is not None) or target is None:
            continue
        why = whose(wb, target.raw) or "a profile line removed"
        if asking:  # as every profile line removed: the user says
            j.ask(removal_question(wb, "PROFILE.md", SECTION, target.raw, why))
        else:
            j.keep(lambda m=target: _remove(wb, work, m))
    j.ops.append(lambda: _flush(wb, work))  # after the kept changes, once: not a statement of its own


def _judge_merge(j: Judge, wb: Workbench, work: _Work, target: mentions_fmt.Mention, said: list[str], role: str,
                 notes: list[str], source: str, asking: bool, found: list) -> None:
    why = whose(wb, target.raw)  # a listed line is always one read from the file
    if why and asking:  # the user's own line (written or told): a rewrite of it is theirs to say
        merged = replace(target, raw="")  # a copy (_merge gives it new lists, never changes them in place)
        if _merge(wb, _Work([merged]), merged, said, role, notes, source):
            j.ask(rewrite_question(wb, "PROFILE.md", SECTION, target.raw, mentions_fmt.render_line(merged), found,
                                   why))
        else:
            j.keep(lambda: None)  # nothing new for that line: kept as it is
        return
    j.keep(lambda: _merge(wb, work, target, said, role, notes, source))


def _person_named(wb: Workbench, name: str) -> str:
    """The person of the workspace this name is (the folder's name: 'Rob' is people/rob), or ''."""
    found = [s for s in wb.known_slugs - {wb.slug} if names.key(s) == names.key(name)]
    return found[0] if len(found) == 1 else ""


def _named(ck: Checker, said: list[str]) -> bool:
    text = " ".join(i.entry.text for i in ck.found)
    return bool(names.named_in(text, [names.Candidate("x", [s for s in said if s])]))


def _resolve(said: list[str], people: list[names.Candidate]) -> names.Resolution:
    """The listed line these names mean: the first name that finds anyone decides."""
    for word in said:
        found = names.resolve(word, people)
        if found.matches:  # one line, or several for the model to choose from ('my daughter' with two)
            return found
    return names.Resolution(" / ".join(said))


def _unique(values: list[str], taken: list[str]) -> list[str]:
    seen = {norm(t) for t in taken}
    out = []
    for v in values:
        if v and norm(v) not in seen:
            seen.add(norm(v))
            out.append(v)
    return out


def _add(work: _Work, line: mentions_fmt.Mention) -> None:
    work.lines.append(line)
    work.changed = True
    work.notes.append(f"+ profile {SECTION}: {mentions_fmt.render_line(line)[2:]}")


def _merge(wb: Workbench, work: _Work, line: mentions_fmt.Mention, said: list[str], role: str, notes: list[str],
           source: str) -> bool:
    """New names and notes of someone already listed, on their own line
    (changed in place: a later statement finds it by identity; removals come
    after every merge). Whether it changed."""
    aliases = _unique([*line.aliases, *said], [line.name])
    fresh = _unique(notes, line.notes)
    new_role = line.role or role
    if aliases == line.aliases and not fresh and new_role == line.role:
        return False
    if line.raw and wb.is_protected(line.raw):  # not asking (tell): the user's line stays, the news a thread
        suggestion = "; ".join([*said, *fresh])
        _thread(wb, f'- You wrote "{without_source(line.raw[2:])}", but the chats suggest "{suggestion}" ({source})')
        return False
    line.aliases, line.role, line.source = aliases, new_role, source
    line.notes, line.raw = [*line.notes, *fresh][-MOST_NOTES:], ""
    work.changed = True
    work.notes.append(f"~ profile {SECTION}: {mentions_fmt.render_line(line)[2:]}")
    return True


def _remove(wb: Workbench, work: _Work, line: mentions_fmt.Mention) -> None:
    if wb.is_protected(line.raw):
        _thread(wb, f'- You wrote "{without_source(line.raw[2:])}"; does it still hold? (log)')
        return
    work.lines = [m for m in work.lines if m is not line]
    work.changed = True
    work.notes.append(f"- profile {SECTION}: {line.raw[2:] or line.name}")


def _thread(wb: Workbench, line: str) -> None:
    lines = memory_fmt.ensure_section(wb.memory, memory_fmt.THREADS)
    if norm(line) not in (norm(x) for x in lines):
        lines.append(line)
        wb.changes.append(f"+ {memory_fmt.THREADS}: {line[2:]}")


def _flush(wb: Workbench, work: _Work) -> None:
    if work.changed:
        wb.profile.doc.body = mentions_fmt.write(wb.profile.doc.body, mentions_fmt.with_ids(work.lines))
        wb.changes += work.notes
