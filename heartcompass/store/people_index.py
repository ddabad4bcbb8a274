"""What listing, linking and the map need from everyone's files, without
parsing every file each time.

`person list`, the incoming links of a prompt ("who names this person in
their `related`") and `graph` each need a few facts from every person.
Parsing every PROFILE.md for them grew with the workspace: at 2,000 people
a chat waited a second and a half before its request left. The facts are
kept in .heartcompass/people-index.json (not committed), each entry keyed
by its files' identity and stat, under stat_cache's rule (any change makes
an entry stale; a file changed in the last two seconds is not cached).
A missing, broken or older index is simply rebuilt.

A chat's start needs only who names its person (`incoming`), and checking
2,000 entries of the index still grew with the workspace: each person's
incoming links are also kept on their own (.heartcompass/links/<slug>.json),
keyed by one digest of every PROFILE.md's stat. A hand edit in place changes
no folder's stat, so the digest takes one stat per person (a few
milliseconds at 2,000), and nothing else is read for anyone but this one."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import weakref
from pathlib import Path
from typing import NamedTuple

from heartcompass import paths
from heartcompass.errors import FormatError, UnsafePathError
from heartcompass import stat_cache
from heartcompass.stat_cache import settled, stat_key
from heartcompass.store.people import Person, Summary, list_people, summarize
from heartcompass.store.workspace import Workspace

FILENAME = "people-index.json"
LINKS_DIR = "links"  # .heartcompass/links/<slug>.json: who names this person, for one digest of all profiles
FORMAT = 1  # bump when what an entry holds, or how it is read, changes
SUMMARY_FILES = ("PROFILE.md", "EVENTS.md", "MEMORY.md")


class ProfileFacts(NamedTuple):  # a NamedTuple: cheaper to define at startup than a dataclass
    """PROFILE.md frontmatter as linking needs it; error when it does not parse."""
    name: str
    relation: str
    mbti: str | None = None
    aliases: tuple[str, ...] = ()
    related: tuple[tuple[str, str], ...] = ()  # (slug, as-words)
    error: str | None = None

    def names(self) -> list[str]:
        return [self.name, *self.aliases]


class PeopleIndex:
    def __init__(self, ws: Workspace, entries: dict[str, dict] | None = None):
        self.ws = ws
        self.entries: dict[str, dict] = entries if entries is not None else {}
        self.dirty = False

    @property
    def path(self) -> Path:
        return self.ws.root / ".heartcompass" / FILENAME

    @classmethod
    def load(cls, ws: Workspace) -> "PeopleIndex":
        index = cls(ws)
        try:
            data = json.loads(paths.read_local(index.path))
            if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("people"), dict):
                index.entries = data["people"]
        except (OSError, ValueError, UnsafePathError):  # missing, broken or a FIFO: rebuilt as we go
            pass
        return index

    def save(self) -> None:
        if not self.dirty:
            return
        from heartcompass.atomic import cache_not_saved, write_atomic

        try:
            self.path.parent.mkdir(exist_ok=True)
            write_atomic(self.path, json.dumps({"format": FORMAT, "people": self.entries}, ensure_ascii=False))
            self.dirty = False
        except OSError as exc:  # a read-only workspace still lists and chats, only slower
            cache_not_saved(self.path, exc)

    def _cached(self, slug: str, part: str, keys: list):
        entry = self.entries.get(slug, {}).get(part)
        if isinstance(entry, dict) and entry.get("keys") == keys:
            return entry.get("value")
        return None

    def _store(self, slug: str, part: str, keys: list, value) -> None:
        if settled(keys):
            self.entries.setdefault(slug, {})[part] = {"keys": keys, "value": value}
            self.dirty = True

    # -- what callers ask for ---------------------------------------------------
    def profile(self, person: Person) -> ProfileFacts:
        keys = [stat_key(person.profile_path)]
        value = self._cached(person.slug, "profile", keys)
        if value is None:
            try:
                prof = person.load_profile()
                facts = ProfileFacts(prof.name, prof.relation, prof.mbti, tuple(prof.aliases),
                                     tuple((link["person"], link["as"]) for link in prof.related))
            except FormatError as exc:
                facts = ProfileFacts(person.slug, "?", error=str(exc))
            value = facts._asdict()
            self._store(person.slug, "profile", keys, value)
        return ProfileFacts(value["name"], value["relation"], value["mbti"], tuple(value["aliases"]),
                            tuple(tuple(link) for link in value["related"]), value["error"])

    def summary(self, person: Person, user_name: str = "") -> Summary:
        """What `person list` shows, as people.summarize gives it."""
        folder = str(person.dir)
        # the logs folder's stat changes when a day's log is added or removed: the last chat date;
        # user.name is the name shown for the user's own person
        keys = [stat_key(os.path.join(folder, name)) for name in (*SUMMARY_FILES, "logs")] + [user_name]
        value = self._cached(person.slug, "summary", keys)
        if value is not None:
            try:
                return Summary(**value)
            except TypeError:  # written by a version with other fields
                pass
        summary = summarize(person, user_name)
        self._store(person.slug, "summary", keys, summary._asdict())
        return summary

    def summaries(self, people: list[Person], user_name: str = "") -> list[Summary]:
        rows = [self.summary(p, user_name) for p in people]
        self._forget_all_but(people)
        self.save()
        return rows

    def profiles(self, people: list[Person]) -> dict[str, ProfileFacts]:
        facts = {p.slug: self.profile(p) for p in people}
        self._forget_all_but(people)
        self.save()
        return facts

    def incoming(self, slug: str, people: list[Person] | None = None) -> list[tuple[str, str, ProfileFacts]]:
        """Who names slug in their `related`: (their slug, as-words, their facts)."""
        everyone = self.profiles(list_people(self.ws) if people is None else people)
        return [(other, words, facts) for other, facts in everyone.items() if other != slug and not facts.error
                for target, words in facts.related if target == slug]

    def _forget_all_but(self, people: list[Person]) -> None:
        listed = {p.slug for p in people}
        gone = [s for s in self.entries if s not in listed and not (self.ws.people_dir / s).is_dir()]
        for slug in gone:  # renamed or archived: their entries would only grow the file
            del self.entries[slug]
        self.dirty = self.dirty or bool(gone)


_OPEN: "weakref.WeakKeyDictionary[Workspace, PeopleIndex]" = weakref.WeakKeyDictionary()


def for_workspace(ws: Workspace) -> PeopleIndex:
    """One index per workspace object, read from disk once per process: a
    chat's turns share it (each lookup still checks the files' stat)."""
    index = _OPEN.get(ws)
    if index is None:
        index = _OPEN[ws] = PeopleIndex.load(ws)
    return index


def profiles_digest(ws: Workspace) -> tuple[str, bool]:
    """(a digest of every person's PROFILE.md identity and times, whether
    all of them are settled). One stat per person, nothing read: a file
    changed in any way, a person added, renamed or gone changes it."""
    seen, folder = [], str(ws.people_dir)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    for name in names:
        if name.startswith("."):
            continue
        try:
            st = stat_cache.stat_of(f"{folder}/{name}/PROFILE.md")
        except OSError:  # no profile, or none of ours: in nobody's incoming links
            continue
        if not stat.S_ISDIR(st.st_mode):  # as list_people: a folder there is no person
            seen.append((name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    digest = hashlib.blake2b(repr(seen).encode(), digest_size=16).hexdigest()
    return digest, settled([list(s[1:]) for s in seen])


def incoming(ws: Workspace, slug: str) -> list[tuple[str, str, ProfileFacts]]:
    """Who names slug in their `related` (their slug, as-words, their facts),
    without reading anyone's entry while no profile has changed: served from
    .heartcompass/links/<slug>.json when its digest is every profile's now."""
    digest, steady = profiles_digest(ws)
    path = ws.root / ".heartcompass" / LINKS_DIR / f"{slug}.json"
    try:
        data = json.loads(paths.read_local(path))
        if data.get("format") == FORMAT and data.get("digest") == digest:
            return [(other, words, ProfileFacts(name, relation, mbti, tuple(aliases),
                                                tuple((link[0], link[1]) for link in related), error))
                    for other, words, (name, relation, mbti, aliases, related, error) in data["incoming"]]
    except (OSError, ValueError, UnsafePathError, TypeError, KeyError, AttributeError):
        pass  # missing, stale or broken: worked out again below
    found = for_workspace(ws).incoming(slug)
    if steady:
        from heartcompass.atomic import cache_not_saved, write_atomic

        text = json.dumps({"format": FORMAT, "digest": digest, "incoming": found}, ensure_ascii=False)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        except OSError as exc:  # a read-only workspace still chats, only slower
            cache_not_saved(path, exc)
    return found
