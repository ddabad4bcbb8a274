"""People in the workspace: finding, creating, renaming, archiving.

A person is a folder people/<slug>/ with PROFILE.md, EVENTS.md, MEMORY.md
and logs/. This module never imports git at load time: listing people must
start fast. Changes go through the audit trail (audit.py)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from heartcompass.atomic import write_atomic
from heartcompass.errors import FormatError, PersonError
from heartcompass.formats import dailylog, events, memory, profile, read_text
from heartcompass.slugs import clean_name, slugify
from heartcompass.tokens import estimate_tokens
from heartcompass.workspace import Workspace


_SOURCED = re.compile(r"\((told|hand|import|log \d{4}-\d{2}-\d{2})\)$")


@dataclass(frozen=True)
class Person:
    slug: str
    dir: Path

    @property
    def profile_path(self) -> Path:
        return self.dir / profile.FILENAME

    @property
    def events_path(self) -> Path:
        return self.dir / events.FILENAME

    @property
    def memory_path(self) -> Path:
        return self.dir / memory.FILENAME

    @property
    def logs_dir(self) -> Path:
        return self.dir / "logs"

    def files(self) -> list[Path]:
        return [self.profile_path, self.events_path, self.memory_path]

    def load_profile(self) -> profile.Profile:
        return profile.load(self.profile_path)

    def load_events(self) -> events.EventsFile:
        if not self.events_path.exists():
            return events.new(self.events_path, self.slug)
        return events.load(self.events_path)

    def load_memory(self) -> memory.Memory:
        if not self.memory_path.exists():
            return memory.new(self.memory_path, self.slug)
        return memory.load(self.memory_path)


def list_people(ws: Workspace) -> list[Person]:
    folder = ws.people_dir  # once, and plain os.path below: at 2,000 people pathlib was a tenth of a chat's start
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    return [Person(n, folder / n) for n in names
            if not n.startswith(".") and os.path.isfile(os.path.join(folder, n, profile.FILENAME))]


def resolve(ws: Workspace, name: str) -> Person:
    """By slug, name or alias, case-insensitively; ambiguity is an error."""
    people = list_people(ws)
    wanted = clean_name(name).casefold()
    for person in people:
        if person.slug == name or person.slug.casefold() == wanted:
            return person
    matches = []
    for person in people:
        try:
            names = person.load_profile().names()
        except FormatError:  # an unparsable profile cannot match by name
            continue
        if wanted in (n.casefold() for n in names):
            matches.append(person)
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise PersonError(f"{name!r} could be several people: " + ", ".join(p.slug for p in matches) + ".",
                          "Use the folder name (slug) to choose one.")
    raise PersonError(f"No person called {name!r} in this workspace.",
                      "See 'heartcompass person list', or add them with 'heartcompass person add'.")


@dataclass
class Summary:
    slug: str
    name: str
    relation: str
    mbti: str | None
    last_chat: str | None
    events: int
    memory_tokens: int
    error: str | None = None


def summarize(person: Person) -> Summary:
    """What `person list` shows, read cheaply (no full event parsing)."""
    last = (dailylog.log_dates(person.dir) or [None])[-1]
    errors: list[str] = []  # each bad file is listed with its problem; the others still are
    try:
        prof = person.load_profile()
        name, relation, mbti = prof.name, prof.relation, prof.mbti
    except FormatError as exc:  # listed with the problem, not hidden
        name, relation, mbti = person.slug, "?", None
        errors.append(str(exc))
    n_events = events.count_events(_read(person.events_path, errors))
    mem_text = _read(person.memory_path, errors)
    body = mem_text.split("\n---\n", 1)[-1] if mem_text.startswith("---") else mem_text
    return Summary(person.slug, name, relation, mbti, last, n_events, estimate_tokens(body),
                   "\n".join(errors) or None)


def _read(path: Path, errors: list[str]) -> str:
    try:
        return read_text(path)
    except FileNotFoundError:
        return ""
    except FormatError as exc:
        errors.append(str(exc))
        return ""


def check_new_name(ws: Workspace, name: str) -> str:
    slug = slugify(name)
    for folder in (ws.people_dir / slug, ws.archive_dir / slug):
        if folder.exists():
            where = "an archived person" if folder.parent == ws.archive_dir else "someone already"
            raise PersonError(f"The name {name!r} gives the folder people/{slug}, which {where} uses.",
                              "Choose a different name, e.g. with a last name or a nickname.")
    return slug


def create(ws: Workspace, name: str, relation: str, *, mbti: str | None = None,
           aliases: list[str] | None = None, gender: str | None = None,
           about: str | None = None, related: list[dict[str, str]] | None = None,
           tags: list[str] | None = None, sections: dict[str, str] | None = None,
           facts: list[str] | None = None, extra: dict | None = None,
           past_events: list[events.Event] | None = None) -> Person:
    """Write a new person's three files. The folder appears whole or not at
    all: files are written in a temp folder that is then renamed."""
    name = clean_name(name)
    slug = check_new_name(ws, name)
    aliases = [clean_name(a) for a in aliases or [] if a.strip()]
    related = list(related or [])
    known = {p.slug for p in list_people(ws)}
    for link in related:
        if link["person"] not in known:
            raise PersonError(f"Unknown related person {link['person']!r}.", "Add them first, or use their slug.")
    final = ws.people_dir / slug
    ws.people_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".new-{slug}.", dir=ws.people_dir))
    try:
        prof = profile.new(staging / profile.FILENAME, name, relation, mbti=mbti, aliases=aliases,
                           gender=gender, about=about, related=related, tags=tags, sections=sections, extra=extra)
        budget = int(ws.config.get("memory.memory_budget_tokens"))
        mem = memory.new(staging / memory.FILENAME, name, budget)
        mem.sections[memory.FACTS] = [f"- {fact}" if _SOURCED.search(fact) else f"- {fact} (import)"
                                      for fact in facts or []]
        evs = events.new(staging / events.FILENAME, name)
        evs.events = list(past_events or [])
        write_atomic(staging / profile.FILENAME, profile.render(prof))
        write_atomic(staging / events.FILENAME, events.render(evs))
        write_atomic(staging / memory.FILENAME, memory.render(mem))
        os.rename(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Person(slug, final)


def linking_profiles(ws: Workspace, slug: str) -> list[Person]:
    """People whose PROFILE.md `related` points at slug."""
    out = []
    for person in list_people(ws):
        if person.slug == slug:
            continue
        try:
            if any(link["person"] == slug for link in person.load_profile().related):
                out.append(person)
        except FormatError:
            continue
    return out
