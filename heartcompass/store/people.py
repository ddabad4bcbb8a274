"""People in the workspace: finding them, reading and creating their files.

A person is a folder people/<slug>/ with PROFILE.md, EVENTS.md, MEMORY.md
and logs/. This module never imports git at load time: listing people must
start fast. Adding, renaming and archiving someone, one commit each, is
lifecycle.py."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple

from heartcompass.atomic import write_atomic
from heartcompass.errors import AmbiguousPerson, FormatError, PersonError
from heartcompass.formats import FILE_KINDS, read_text
from heartcompass.store.slugs import clean_name, slugify
from heartcompass.tokens import estimate_tokens
from heartcompass.store.workspace import Workspace

if TYPE_CHECKING:  # the format modules load on first use: `person list` reads only its index
    from heartcompass.formats import events, memory, profile


# NamedTuples, not dataclasses, on the `person list` path: a frozen dataclass
# costs about a millisecond to define at startup, a NamedTuple a tenth of that.
class Person(NamedTuple):
    slug: str
    dir: Path

    @property
    def profile_path(self) -> Path:
        return self.dir / FILE_KINDS["profile"]

    @property
    def events_path(self) -> Path:
        return self.dir / FILE_KINDS["events"]

    @property
    def memory_path(self) -> Path:
        return self.dir / FILE_KINDS["memory"]

    @property
    def logs_dir(self) -> Path:
        return self.dir / "logs"

    def files(self) -> list[Path]:
        return [self.profile_path, self.events_path, self.memory_path]

    def load_profile(self) -> profile.Profile:
        from heartcompass.formats import profile

        return profile.load(self.profile_path)

    def load_events(self) -> events.EventsFile:
        from heartcompass.formats import events

        if not self.events_path.exists():
            return events.new(self.events_path, self.slug)
        return events.load(self.events_path)

    def load_memory(self) -> memory.Memory:
        from heartcompass.formats import memory

        if not self.memory_path.exists():
            return memory.new(self.memory_path, self.slug)
        return memory.load(self.memory_path)


DEFAULT_SELF_NAME = "Me"  # what `init` names the user's own person


def display_name(prof: profile.Profile, user_name: str) -> str:
    """The user's own person is shown as user.name while its PROFILE.md
    still has the default name: `config set user.name 王磊` is enough."""
    if prof.relation == "self" and prof.name == DEFAULT_SELF_NAME and user_name.strip():
        return user_name.strip()
    return prof.name


def list_people(ws: Workspace) -> list[Person]:
    folder, profile_name = ws.people_dir, FILE_KINDS["profile"]  # once, and plain os.path below: at 2,000 people pathlib was a tenth of a chat's start
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    return [Person(n, folder / n) for n in names
            if not n.startswith(".") and _has_profile(os.path.join(folder, n, profile_name))]


def _has_profile(path: str) -> bool:
    """A PROFILE.md of any kind but a folder: a FIFO or a link in its place
    is that person's broken file (named when read), not "no such person"."""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def resolve(ws: Workspace, name: str) -> Person:
    """By slug, name or alias, case-insensitively; ambiguity is an error."""
    folder = ws.people_dir
    try:  # a folder name as it is, the common case: no need to look at everyone (10,000 people: 0.1 s)
        if not name.startswith(".") and name in os.listdir(folder) and \
                _has_profile(os.path.join(folder, name, FILE_KINDS["profile"])):
            return Person(name, folder / name)
    except OSError:
        pass
    people = list_people(ws)
    matches = matching(people, name, lambda: str(ws.config.get("user.name") or ""))
    if not matches:  # "bob" for Bob Stone, "ali" for Alice Chen, 明月 for 欧阳明月
        from heartcompass.store.name_match import loosely

        matches = loosely(people, name)
    if len(matches) == 1:
        return matches[0]
    if matches:
        from heartcompass.store.name_match import titled

        raise AmbiguousPerson(name, titled(matches))
    raise _not_found(ws, name)


def _not_found(ws: Workspace, name: str) -> PersonError:
    """Why no one answers to name: archived, or behind a profile that does
    not parse (its names cannot be searched), or simply not there."""
    archive = sorted(p for p in ws.archive_dir.iterdir() if p.is_dir()) if ws.archive_dir.is_dir() else []
    archived = matching([Person(f.name, f) for f in archive], name)
    if len(archived) == 1:
        slug = archived[0].slug
        import shlex

        return PersonError(f"{name!r} is archived (people/.archive/{slug}/).",
                           f"Bring them back with: heartcompass person unarchive {shlex.quote(slug)}")
    unreadable, known = [], {}
    for person in list_people(ws):
        try:
            known.update({n.casefold(): n for n in (person.slug, *person.load_profile().names())})
        except FormatError:
            unreadable.append(f"people/{person.slug}/PROFILE.md")
    if unreadable:
        return PersonError(f"No person called {name!r} among those whose profile could be read; "
                           f"{', '.join(unreadable)} could not, so the names and aliases there were not searched.",
                           "Fix that file ('heartcompass doctor' names the line), or use the folder name.")
    import difflib

    close = difflib.get_close_matches(clean_name(name).casefold(), list(known), n=3, cutoff=0.6)
    guess = f" Did you mean {' or '.join(repr(known[c]) for c in close)}?" if close else ""
    return PersonError(f"No person called {name!r} in this workspace.{guess}",
                       "See 'heartcompass person list', or add them with 'heartcompass person add'.")


def matching(people: list[Person], name: str, user_name: Callable[[], str] = lambda: "") -> list[Person]:
    """The one whose folder name is `name` (any case), else everyone who
    answers to it by name or alias (the user's person also by user.name,
    read only when a profile is)."""
    wanted = clean_name(name).casefold()
    for person in people:
        if person.slug == name or person.slug.casefold() == wanted:
            return [person]
    matches, user = [], None
    for person in people:
        try:
            prof = person.load_profile()
            user = user_name() if user is None else user
            names = [*prof.names(), display_name(prof, user)]
        except FormatError:  # an unparsable profile cannot match by name
            continue
        if wanted in (n.casefold() for n in names):
            matches.append(person)
    return matches


class Summary(NamedTuple):
    slug: str
    name: str
    relation: str
    mbti: str | None
    last_chat: str | None
    events: int
    memory_tokens: int
    error: str | None = None


def summarize(person: Person, user_name: str = "") -> Summary:
    """What `person list` shows, read cheaply (no full event parsing)."""
    from heartcompass.formats import dailylog, events

    errors: list[str] = []  # each bad file is listed with its problem; the others still are
    last: str | None
    try:
        dates = dailylog.log_dates(person.dir)
        last = dates[-1] if dates else None
    except FormatError as exc:
        last = None
        errors.append(str(exc))
    try:
        prof = person.load_profile()
        name, relation, mbti = display_name(prof, user_name), prof.relation, prof.mbti
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


def self_people(ws: Workspace) -> list[Person]:
    """Everyone whose relation is self: one is the user; a second turns a
    friend's chat into the reflection partner and splits the user's notes."""
    found = []
    for person in list_people(ws):
        try:
            if person.load_profile().relation == "self":
                found.append(person)
        except FormatError:  # doctor names that file on its own
            continue
    return found


def create(ws: Workspace, name: str, relation: str, *, mbti: str | None = None,
           aliases: list[str] | None = None, gender: str | None = None,
           about: str | None = None, related: list[dict[str, str]] | None = None,
           tags: list[str] | None = None, sections: dict[str, str] | None = None,
           facts: list[str] | None = None, extra: dict | None = None,
           past_events: list[events.Event] | None = None, allow_taken: bool = False) -> Person:
    """Write a new person's three files. The folder appears whole or not at
    all: files are written in a temp folder that is then renamed. A name or
    alias someone else answers to is refused unless allow_taken."""
    name = clean_name(name)
    slug = check_new_name(ws, name)
    if relation == "self":
        mine = self_people(ws)
        if mine:
            raise PersonError(f"people/{mine[0].slug} is already you (relation: self); only one person can be.",
                              "Choose the relation this person has to you, e.g. --relation friend.")
    aliases = [clean_name(a) for a in aliases or [] if a.strip()]
    if not allow_taken:
        refuse_taken(ws, [name, *aliases])
    related = list(related or [])
    known = {p.slug for p in list_people(ws)}
    for link in related:
        if link["person"] not in known:
            raise PersonError(f"Unknown related person {link['person']!r}.", "Add them first, or use their slug.")
    final = ws.people_dir / slug
    ws.people_dir.mkdir(parents=True, exist_ok=True)
    import tempfile  # here, not at the top: `person list` never writes

    from heartcompass.formats import events, memory, profile
    from heartcompass.formats.sources import MARKER

    staging = Path(tempfile.mkdtemp(prefix=f".new-{slug}.", dir=ws.people_dir))
    try:
        prof = profile.new(staging / profile.FILENAME, name, relation, mbti=mbti, aliases=aliases,
                           gender=gender, about=about, related=related, tags=tags, sections=sections, extra=extra)
        budget = int(ws.config.get("memory.memory_budget_tokens"))
        mem = memory.new(staging / memory.FILENAME, name, budget)
        mem.sections[memory.FACTS] = [f"- {fact}" if MARKER.search(fact) else f"- {fact} (import)"
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


# -- names that are already taken ---------------------------------------------------------
class Collision(NamedTuple):
    wanted: str      # the name or alias asked for
    person: Person   # who already answers to it
    as_what: str     # "name", "alias" or "folder name"

    def describe(self) -> str:
        return f"{self.wanted!r} is already the {self.as_what} of people/{self.person.slug}"


def _fold(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", text).strip().casefold()


def collisions(ws: Workspace, names: list[str], exclude: str | None = None) -> list[Collision]:
    """Which of these names or aliases someone else already answers to (by
    name, alias or slug, case-insensitively): a second 'Alice' makes every
    lookup of 'Alice' ambiguous. `exclude` is the slug of the person being
    changed."""
    wanted = {_fold(n): n for n in names if n and n.strip()}
    found: list[Collision] = []
    for person in list_people(ws):
        if person.slug == exclude:
            continue
        try:
            prof = person.load_profile()
            theirs = [(prof.name, "name"), *((a, "alias") for a in prof.aliases)]
        except FormatError:
            theirs = []
        theirs.append((person.slug, "folder name"))
        for key, original in wanted.items():
            hit = next((what for n, what in theirs if _fold(n) == key), None)
            if hit:
                found.append(Collision(original, person, hit))
    return found


def user_name_taken(ws: Workspace, user_name: str) -> list[Collision]:
    """People other than the user's own (relation: self) who answer to
    user.name: a prompt would then read "You are 王磊, chatting with 王磊"."""
    found = []
    for c in collisions(ws, [user_name]):
        try:
            if c.person.load_profile().relation == "self":
                continue
        except FormatError:
            pass
        found.append(c)
    return found


def user_name_fix(name: str, slug: str) -> str:
    """How to part the user's name from a person's: both commands shell-quoted."""
    import shlex

    return (f"Set user.name to what sets you apart, e.g. heartcompass config set user.name "
            f"{shlex.quote(name + ' (me)')}; or rename them: heartcompass person rename {shlex.quote(slug)} NEW-NAME")


def all_collisions(ws: Workspace) -> list[tuple[str, list[Person]]]:
    """For doctor: every name or alias that more than one person answers to."""
    owners: dict[str, tuple[str, dict[str, Person]]] = {}  # by slug: linear however many share a name
    for person in list_people(ws):
        try:
            names = person.load_profile().names()
        except FormatError:
            continue
        for key, original in {_fold(x): x for x in [*names, person.slug] if x.strip()}.items():
            owners.setdefault(key, (original, {}))[1].setdefault(person.slug, person)
    return [(shown, list(people.values())) for shown, people in owners.values() if len(people) > 1]


class NameTakenError(PersonError):
    """A new name or alias is already someone else's; the CLI may ask."""

    def __init__(self, taken: list[Collision]):
        super().__init__("; ".join(c.describe() for c in taken) + ".",
                         "Use another name or alias (e.g. with a last name), or add --force to allow it anyway.")
        self.taken = taken


def refuse_taken(ws: Workspace, names: list[str], exclude: str | None = None) -> None:
    taken = collisions(ws, names, exclude)
    if taken:
        raise NameTakenError(taken)
