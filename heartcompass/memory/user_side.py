"""The user's own side of the prompt, in three small blocks (context.py
places them within its budget, like every other entry):

- about_user: what the user told this person about the user's own life
  (MEMORY.md's "## About me"), so a persona can ask how the race went;
- self_basics: a short block from the user's own person (people/me: name,
  pronouns, what the user wrote in its PROFILE.md) that every persona and
  the coach see, within SELF_BASICS_TOKENS;
- pending_notes: what the user noted (/note, `tell` not applied) that the
  gardener has not read yet, so the very next reply knows it, marked as
  not yet gardened.

Each returns whole lines; none prints or writes."""

from __future__ import annotations

import datetime as dt

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog, memory as memory_fmt, profile as profile_fmt, read_text
from heartcompass.memory.proposal.trust import Source, source_of
from heartcompass.store.people import DEFAULT_SELF_NAME, Person
from heartcompass.store.workspace import Workspace
from heartcompass.tokens import estimate_tokens

SELF_SLUG = "me"
SELF_BASICS_TOKENS = 160  # "briefly": every persona pays for it
PENDING_LOOK_BACK = 30    # newest log files searched for notes the gardener has not read
PENDING_MAX = 40


def about_user(memory: memory_fmt.Memory) -> list[str]:
    return memory.items(memory_fmt.ABOUT_ME)


def self_person(ws: Workspace) -> Person | None:
    """The user's own person: people/me, else the one whose relation is self."""
    me = Person(SELF_SLUG, ws.people_dir / SELF_SLUG)
    try:
        if me.profile_path.is_file() and me.load_profile().relation == "self":
            return me
    except (FormatError, OSError, UnicodeDecodeError):
        return None  # a broken self profile never breaks another person's chat
    from heartcompass.store.people import list_people
    from heartcompass.store.people_index import for_workspace

    people = list_people(ws)
    facts = for_workspace(ws).profiles(people)
    return next((p for p in people if facts.get(p.slug) and facts[p.slug].relation == "self"), None)


def _self_profile(ws: Workspace, rev_read=None) -> profile_fmt.Profile | None:
    person = self_person(ws)
    if person is None:
        return None
    try:
        text = rev_read(person.profile_path) if rev_read else read_text(person.profile_path)
        return profile_fmt.parse(text, person.profile_path) if text is not None else None
    except (FormatError, OSError, UnicodeDecodeError):
        return None


def self_name(ws: Workspace) -> str:
    """The name the user gave their own person ('' while it is still "Me")."""
    prof = _self_profile(ws)
    return prof.name if prof is not None and prof.name != DEFAULT_SELF_NAME else ""


def self_basics(ws: Workspace, user: str, rev_read=None) -> list[str]:
    """Name, pronouns and what the user wrote in their own PROFILE.md, as
    lines, cut at a whole line once SELF_BASICS_TOKENS are spent. rev_read:
    path -> text as at a revision (time travel), else the file on disk."""
    prof = _self_profile(ws, rev_read)
    if prof is None:
        return []
    name = user if prof.name == DEFAULT_SELF_NAME else prof.name
    first = [f"Name: {name}"]
    pronouns = str(prof.doc.meta.get("pronouns") or "").strip()
    for label, value in (("Pronouns", pronouns), ("Gender", "" if pronouns else prof.gender),
                         ("Also called", ", ".join(a for a in prof.aliases if a != name))):
        if value:
            first.append(f"{label}: {value}")
    lines = ["; ".join(first)]
    used = estimate_tokens(lines[0])
    written = [f"{heading}: {line.strip().lstrip('-* ').strip()}"
               for heading, body in prof.sections().items() for line in (body or "").splitlines() if line.strip()]
    for line in written:
        cost = estimate_tokens(line) + 1
        if used + cost > SELF_BASICS_TOKENS:
            break
        lines.append(line)
        used += cost
    return lines if len(lines) > 1 or len(first) > 1 else []  # a name alone: the prompt says it already


def pending_notes(ws: Workspace, person: Person, now: dt.datetime) -> list[str]:
    """The user's notes in this person's logs that the gardener has not read
    yet, oldest first: "- She moved to Berlin (noted 2026-12-02 14:05, not yet gardened)".
    A note `tell` already applied is marked so in the log (dropped), and
    one `coach --save` wrote is a relayed message, not a note of the user's."""
    from heartcompass.memory.consolidation import State

    today = now.date().isoformat()
    dates = [d for d in dailylog.log_dates(person.dir) if d <= today][-PENDING_LOOK_BACK:]
    if not dates:
        return []
    state = None  # made only when a log holds a note: without its file it is rebuilt from git (slow)
    out: list[str] = []
    for day in dates:
        path = person.logs_dir / f"{day}.md"
        text = read_text(path)
        if " · note" not in text:
            continue
        state = state or State(ws, person)
        # every entry read? (an entry's first line, and only it, starts with "- ")
        if sum(line.startswith("- ") for line in text.split("\n")) <= state.count(day):
            continue
        entries = dailylog.parse(text, path)
        for entry in entries[state.count(day):]:
            if source_of(entry) is not Source.NOTE or entry.dropped:  # a coach note is a relayed message
                continue
            if any(t.startswith(("as-of", "told")) for t in entry.tags) or entry.text == "(screenshots)":
                continue  # as the gardener skips them: time travel, a narrative already told
            text = " ".join(entry.text.split())
            out.append(f"- {text} (noted {day} {entry.time[:5]}, not yet gardened)")
    return out[-PENDING_MAX:]
