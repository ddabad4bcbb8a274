"""One person's files in memory while a proposal is applied (the
Workbench), and the steps around it: read the files, mark the lines the
user wrote by hand (hand_lines.py), render the new texts (each must parse),
snapshot and restore what a rejected proposal changed, and diff the result."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, overload

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt, read_text
from heartcompass.memory.hand_lines import Touched, hand_lines
from heartcompass.messages import names_in
from heartcompass.store.people import Person, list_people
from heartcompass.memory.proposal.model import ProposalError
from heartcompass.memory.proposal.trust import Mark, mark_of
from heartcompass.store.workspace import Workspace
from heartcompass.tokens import estimate_tokens



@dataclass
class LogItem:
    id: str                 # L1, L2... as the model sees it
    day: str                # the log's date
    entry: dailylog.Entry
    index: int = 0          # position in that day's log


@dataclass
class Workbench:
    """One person's files in memory while a proposal is applied."""
    slug: str
    profile: profile_fmt.Profile
    events: events_fmt.EventsFile
    memory: memory_fmt.Memory
    protected: set[str]                       # line texts the user wrote by hand
    known_slugs: set[str]
    today: dt.date
    changes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"events_added": 0, "events_changed": 0})
    touched: set[str] = field(default_factory=set)   # which files' content changed
    days_read: set[str] = field(default_factory=set)  # logs whose new entries this run read
    event_index: EventIndex | None = field(default=None, repr=False, compare=False)  # see events_index()
    event_undo: list | None = field(default=None, repr=False, compare=False)  # (event, old copy) since a snapshot
    # who else answers to a name ("'Bob' is already the name of people/bob"), and the user's own names:
    # an alias the model proposes is neither (proposal/fields.py)
    alias_owner: Callable[[str], str | None] | None = field(default=None, repr=False, compare=False)
    user_names: tuple[str, ...] = ()
    names_of: Callable[[str], list[str]] | None = field(default=None, repr=False, compare=False)  # a slug's names

    def is_protected(self, line: str) -> bool:
        return line in self.protected or mark_of(line) is Mark.HAND


SECTION_IDS = (("F", memory_fmt.FACTS), ("C", memory_fmt.CHATS), ("T", memory_fmt.THREADS),
               ("U", memory_fmt.ABOUT_ME))


def norm(text: str) -> str:
    """A line as compared for sameness: spacing and case do not count."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def read_person(person: Person):
    """(original texts by path, profile, events, memory) as on disk now."""
    originals = {p: (read_text(p) if p.exists() else None) for p in person.files()}
    profile_text, events_text, memory_text = (originals[p] for p in
                                              (person.profile_path, person.events_path, person.memory_path))
    if profile_text is None:  # removed since the person was listed
        raise FormatError(person.profile_path, "the file is missing: a person's folder needs its PROFILE.md", None,
                          f"Bring it back (git checkout -- people/{person.slug}/PROFILE.md), or archive them: "
                          f"heartcompass person archive {person.slug}")
    prof = profile_fmt.parse(profile_text, person.profile_path)
    evs = (events_fmt.parse(events_text, person.events_path)
           if events_text is not None else events_fmt.new(person.events_path, prof.name))
    mem = (memory_fmt.parse(memory_text, person.memory_path)
           if memory_text is not None else memory_fmt.new(person.memory_path, prof.name))
    return originals, prof, evs, mem


def workbench(ws: Workspace, person: Person, prof, evs, mem, today: dt.date, *,
              people: list[Person] | None = None, mentions: str | None = None,
              names: Callable[[], dict[str, tuple[list[str], list[str]]]] | None = None,
              heads: dict[str, str] | None = None,
              history: Touched | None = None) -> Workbench:
    """The files in memory, with the lines whose last change was the user's
    (git blame) marked as theirs. With `mentions` (the new entries' text),
    the known people are only those the entries and files mention, plus the
    person's links: the prompt does not grow with the workspace."""
    protected = hand_lines(ws, person, heads, history)
    people = people if people is not None else list_people(ws)
    known = {p.slug for p in people}
    if mentions is not None:
        index = names() if names else {}
        text = "\n".join([mentions, prof.doc.body, str(prof.doc.meta.get("related") or ""),
                          memory_fmt.render_body(mem)]).casefold()
        known = {slug for slug, (words, _) in index.items() if any(names_in(w, text) for w in words)}
        known |= {link["person"] for link in prof.related}
        known |= {link for slug in list(known) for link in index.get(slug, ((), ()))[1]}
        known &= {p.slug for p in people}
    wb = Workbench(person.slug, prof, evs, mem, protected, known, today)
    wb.alias_owner = lambda alias: _owner(ws, alias, person.slug)
    wb.user_names = tuple(n for n in [str(ws.config.get("user.name") or "")] if n.strip())
    wb.names_of = lambda slug: _names_of(ws, slug, wb.user_names)
    return wb


# How the user's own entries name the user: a link to the user's person rests on one of these.
_USER_WORDS = ["me", "my", "i", "i'm", "myself", "我"]


def _names_of(ws: Workspace, slug: str, user_names: tuple[str, ...]) -> list[str]:
    """The names a text calls a person by (name, aliases, slug; the user: "me", "my", 我 too)."""
    from heartcompass.errors import PersonError
    from heartcompass.store.people import resolve

    try:
        prof = resolve(ws, slug).load_profile()
    except (FormatError, OSError, PersonError):
        return [slug]
    names = [*prof.names(), slug]
    return [*names, *_USER_WORDS, *user_names] if prof.relation == "self" else names


def _owner(ws: Workspace, alias: str, slug: str) -> str | None:
    """Why the alias is not this person's to take (another's name, slug, alias or handle; a speaker)."""
    from heartcompass.store.aliases import alias_refusal

    return alias_refusal(ws, alias, slug)


def name_index(people: list[Person], ws: Workspace) -> dict[str, tuple[list[str], list[str]]]:
    """Every person's names and aliases (casefolded) and links, by slug, from
    the people index (at 1,000 people, parsing every PROFILE.md per run was
    most of an idle night's work); a profile that does not parse is left out."""
    from heartcompass.store.people_index import for_workspace

    people_index, index = for_workspace(ws), {}
    for other in people:
        try:
            fact = people_index.profile(other)
        except (OSError, UnicodeDecodeError):  # unreadable: no names to match, as a broken profile
            continue
        if fact.error:
            continue
        names = [n.casefold() for n in [other.slug, *fact.names()] if len(n.strip()) >= 2]
        index[other.slug] = (names, [slug for slug, _words in fact.related])
    people_index.save()
    return index


def render_texts(person: Person, wb: Workbench) -> dict[Path, str]:
    """The new file texts; each must parse, or nothing is written."""
    texts = {person.profile_path: profile_fmt.render(wb.profile),
             person.events_path: events_fmt.render(wb.events),
             person.memory_path: memory_fmt.render(wb.memory)}
    for path, text in texts.items():
        formats_check(path, text)
    return texts


def formats_check(path: Path, text: str) -> None:
    """What the gardener renders must parse, or nothing is written."""
    from heartcompass import formats

    try:
        formats.validate(path, text)
    except FormatError as exc:
        raise ProposalError([f"the result would not parse: {exc.message}"]) from None


def snapshot(wb: Workbench):
    """What applying a proposal may change, to put back if it is rejected. Copies
    one level deep where that is all a proposal touches (a section's lines), and
    no event: the list is copied (its references), an event changed in place is
    copied when it changes (wb.event_undo), and wb.changes only grows; so the
    cost does not grow with a long history (a deep copy of one per chunk made a
    backlog quadratic)."""
    import copy

    wb.event_undo = []
    return (copy.deepcopy(wb.profile.doc.meta), wb.profile.doc.body, list(wb.events.events), wb.event_undo,
            {title: list(lines) for title, lines in wb.memory.sections.items()}, len(wb.changes), dict(wb.counts))


def restore(wb: Workbench, snap) -> None:
    meta, body, events, undo, sections, changes, counts = snap
    for event, before in reversed(undo):  # the events' own fields, as they were
        vars(event).update(vars(before))
    undo.clear()
    (wb.profile.doc.meta, wb.profile.doc.body, wb.events.events, wb.memory.sections, wb.counts) = (
        meta, body, events, sections, counts)
    del wb.changes[changes:]


def diff_text(old: str, new: str, name: str) -> str:
    """A unified diff of one file, as `git diff` shows it."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}"))


# -- the events, ranked once and kept so (what the model is shown: presentation.py) --
class EventIndex:
    """wb.events.events ranked and indexed once, then kept up to date by the
    operations (apply.py: _add_event, _change_event, _remove_event), so a chunk's
    work does not grow with the person's history: the shown events are picked
    with a few binary searches, and a duplicate is found by (date, text).

    Ranks are (-score, seq): seq is the position in the list (new events
    get the next one), so ties keep the list's order, as a stable sort does.
    The index belongs to one list object of one length for one (today,
    half-life); anything else (a restored snapshot, a list replaced or grown
    by other code) rebuilds it, see events_index()."""

    def __init__(self, wb: Workbench, half_life: float):
        self.events = wb.events.events
        self.today, self.half_life = wb.today, half_life
        self.rank: dict[int, tuple[float, int]] = {}          # id(event) -> its key
        self.by_key: dict[tuple[float, int], events_fmt.Event] = {}
        self.cost: dict[int, int] = {}                         # id(event) -> tokens shown
        self.buckets: dict[int, list[tuple[float, int]]] = {}  # cost -> sorted keys
        self.by_date: dict[dt.date, list[tuple[float, int]]] = {}  # date -> sorted keys
        self.same: dict[tuple[dt.date, str], list[tuple[int, events_fmt.Event]]] = {}  # dedup, in list order
        self.seq = 0
        for event in self.events:
            self._insert(event, self._next())
        self.count = len(self.events)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def valid(self, wb: Workbench, half_life: float | None = None) -> bool:
        return (self.events is wb.events.events and len(self.events) == self.count and self.today == wb.today
                and (half_life is None or half_life == self.half_life))

    def _insert(self, event: events_fmt.Event, seq: int) -> None:
        from bisect import insort

        key = (-events_fmt.score(event, self.today, self.half_life), seq)
        cost = estimate_tokens(event.render()) + 2
        self.rank[id(event)], self.by_key[key], self.cost[id(event)] = key, event, cost
        insort(self.buckets.setdefault(cost, []), key)
        insort(self.by_date.setdefault(event.date, []), key)
        insort(self.same.setdefault((event.date, norm(event.text)), []), (seq, event))

    def _drop(self, event: events_fmt.Event, date: dt.date, text: str) -> int:
        from bisect import bisect_left

        key, cost = self.rank.pop(id(event)), self.cost.pop(id(event))
        del self.by_key[key]
        for keys in (self.buckets[cost], self.by_date[date]):
            del keys[bisect_left(keys, key)]
        same = self.same[(date, norm(text))]
        same.remove(next(pair for pair in same if pair[1] is event))
        return key[1]

    def holds(self, event: events_fmt.Event) -> bool:
        key = self.rank.get(id(event))
        return key is not None and self.by_key[key] is event

    # -- kept up to date by the operations
    def added(self, event: events_fmt.Event) -> None:
        self._insert(event, self._next())
        self.count += 1

    def changed(self, event: events_fmt.Event, before: events_fmt.Event) -> None:
        """event's fields changed in place; before: a copy with the old fields."""
        self._insert(event, self._drop(event, before.date, before.text))

    def removed(self, event: events_fmt.Event, events: list[events_fmt.Event]) -> None:
        self._drop(event, event.date, event.text)
        self.events, self.count = events, len(events)

    # -- asked
    def first_same(self, date: dt.date, text: str) -> events_fmt.Event | None:
        same = self.same.get((date, norm(text)))
        return same[0][1] if same else None

    def shown(self, days: set[str], budget_tokens: int) -> list[events_fmt.Event]:
        """What the ranked walk in shown_events picks: each next event in rank
        order that is on one of the days or still fits the budget."""
        from bisect import bisect_right

        day_keys = sorted(k for date in map(as_date, days) if date is not None for k in self.by_date.get(date, ()))
        costs = sorted(self.buckets)
        picked: list[events_fmt.Event] = []
        used, pos = 0, (float("-inf"), -1)
        while True:
            best = None
            i = bisect_right(day_keys, pos)
            if i < len(day_keys):
                best = day_keys[i]
            for cost in costs:
                if used + cost > budget_tokens:
                    break
                keys = self.buckets[cost]
                j = bisect_right(keys, pos)
                if j < len(keys) and (best is None or keys[j] < best):
                    best = keys[j]
            if best is None:
                return picked
            event = self.by_key[best]
            picked.append(event)
            used += self.cost[id(event)]
            pos = best


def as_date(day: str) -> dt.date | None:
    try:
        date = dt.date.fromisoformat(day)
    except (TypeError, ValueError):
        return None
    return date if date.isoformat() == day else None


@overload
def events_index(wb: Workbench, half_life: float) -> EventIndex: ...


@overload
def events_index(wb: Workbench, half_life: None = None) -> EventIndex | None: ...


def events_index(wb: Workbench, half_life: float | None = None) -> EventIndex | None:
    """wb's EventIndex, (re)built when it no longer matches wb.events.events.
    Without a half-life, only an index already built (None if there is none)."""
    idx = wb.event_index
    if idx is not None and idx.valid(wb, half_life):
        return idx
    if half_life is None:
        wb.event_index = None
        return None
    wb.event_index = EventIndex(wb, half_life)
    return wb.event_index
