"""Prompt assembly: what a persona knows, within a token budget.

The system prompt is built from one person's folder only (plus one line per
related person, and the user's own short basics from people/me): rules, the
current time and when the two last talked, PROFILE.md, MEMORY.md (facts and
chat impressions labelled apart, what the user told them about their own
life, notes not yet gardened), the highest-scoring EVENTS and relation /
MBTI guidance. Every piece is a whole entry; entries are taken by priority
and score until the budget is spent, and what does not fit is reported,
never cut mid-entry. No terminal code here: `context` and `chat` render it."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heartcompass.llm import prompts
from heartcompass.errors import FormatError, PersonError
from heartcompass.formats import events as events_fmt, memory as memory_fmt, profile as profile_fmt, read_text
from heartcompass.formats import voice as voice_fmt
from heartcompass.memory import circle, event_cache, event_pool, relevance, selection
from heartcompass.memory.selection import Unit
from heartcompass.store.people import DEFAULT_SELF_NAME, Person
from heartcompass.store.people import display_name as people_display_name
from heartcompass.store.slugs import is_safe_slug
from heartcompass.sanitize import clean_text
from heartcompass.tokens import estimate_tokens
from heartcompass.store.workspace import Workspace

from heartcompass.memory.history import SEPARATOR, TIME_TRAVEL_TAG, WEEKDAYS, recent_history, unstamped  # noqa: F401

# (key, heading) in the order they appear in the prompt; "persona" speaks to
# the persona (chat), "about" describes the person to an adviser (coach).
SECTIONS = ("rules", "when", "relation", "selfbasics", "profile", "words", "mywords", "facts", "pending", "aboutuser",
            "threads", "chats", "events", "circle", "related", "others", "mbti")
HEADINGS = {
    "persona": {"relation": "How you relate to {user}", "profile": "Who you are (from PROFILE.md)",
                "words": "How you write (your own real messages, from VOICE.md: match this style; they are not "
                         "facts)",
                "facts": "Known facts (true) — except what a line says someone said (“{name} said …”: "
                         "from their real messages) and lines ending (import) (from an imported card): those are "
                         "not verified",
                "threads": "Open threads (things to follow up on)",
                "selfbasics": "Who {user} is (from {user}'s own notes)",
                "pending": "Just noted by {user}, not yet gardened into the notes above (true)",
                "aboutuser": "What {user} has told you about {user}'s own life (true: ask about it when it fits)",
                "chats": "Said in earlier simulated chats (stay consistent; not facts)",
                "events": "Things that happened (newest first)", "related": "People in your life",
                "circle": "People you have mentioned (what you said about them)",
                "mbti": "Personality type hint"},
    # the self person: a reflection partner talking with the user about the user
    "reflection": {"relation": "Your role with {user}", "profile": "Who {user} is (from their own PROFILE.md)",
                   "words": "How {user} writes (their own real messages: style, not facts)",
                   "mywords": "How {user} writes (their own real messages: style, not facts)",
                   "facts": "Known facts about {user} (true)", "threads": "Open threads in {user}'s life",
                   "pending": "Just noted by {user}, not yet gardened into the notes above (true)",
                   "aboutuser": "Also known about {user} (true)",
                   "chats": "Said in earlier reflection chats (stay consistent; not facts)",
                   "events": "What happened to {user} (newest first)", "related": "People in {user}'s life",
                   "circle": "People {user} has mentioned",
                   "mbti": "Personality type hint (about {user})"},
    "about": {"relation": "How {name} relates to {user}", "profile": "Who {name} is (from PROFILE.md)",
              "words": "How {name} writes (their real messages: style, not facts)",
              "mywords": "How {user} writes to {name} (real messages: make suggested replies sound like this)",
              "facts": "Known facts about {name} (true) — except what a line says someone said (“{name} "
                       "said …”: from their real messages) and lines ending (import) (from an imported card): "
                       "those are not verified",
              "threads": "Open threads with {name}",
              "selfbasics": "Who {user} is (from {user}'s own notes)",
              "pending": "Just noted by {user}, not yet gardened into the notes above (true)",
              "aboutuser": "What {user} has told {name} about {user}'s own life (true)",
              "chats": "What a simulated {name} said in practice chats (not facts)",
              "events": "What happened (newest first)", "related": "People in {name}'s life",
              "circle": "People {name} has mentioned (from {name}'s own words)",
              "others": "Others this conversation names (from {user}'s notes about them, and how they connect "
                        "to {name})",
              "mbti": "Personality type hint"},
}
# What is kept first when the budget is short. Open threads go before facts:
# they are few, and a MEMORY.md of years of facts would otherwise crowd them
# out. Events come last: they are the one unbounded list, and fill what is left.
PRIORITY = {"rules": 0, "when": 0.5, "relation": 1, "profile": 2, "selfbasics": 2.2, "words": 2.5, "mywords": 2.7,
            "threads": 2.9, "facts": 3, "pending": 3.1, "aboutuser": 3.2, "chats": 5, "circle": 5.5, "related": 6, "others": 6.5,
            "mbti": 7,
            "events": 8}
# Standing of a profile note or memory line before relevance (an event's is its score, at most 1).
STANDING = {"profile": 1.0, "facts": 1.0, "aboutuser": 1.0, "threads": 0.9, "chats": 0.5}
ABOUT_TURNS = 3  # the user's last few turns say what the conversation is about
UNTITLED = {"rules": "Rules and now", "when": "When you last talked"}  # sections the prompt gives no heading


@dataclass
class Snapshot:
    """One person's files, from disk or from a git revision."""
    person: Person
    profile: profile_fmt.Profile
    events: events_fmt.EventsFile | None  # None: a big EVENTS.md, read through its cache (cached)
    memory: memory_fmt.Memory
    profile_tokens: int
    memory_tokens: int
    neighbours: list[tuple[str, str, profile_fmt.Profile | None]]
    rev: str | None = None
    voice: voice_fmt.Voice | None = None
    incoming: list[tuple[str, str, Any]] = field(default_factory=list)  # (slug, as-words, ProfileFacts)
    everyone: dict[str, Any] = field(default_factory=dict)  # slug -> ProfileFacts: with_everyone, now
    cached: event_cache.Cached | None = None  # a big EVENTS.md, parsed and indexed


def _reader(ws: Workspace, person: Person, rev: str | None):
    """A function path -> text (None if missing), from disk or as at rev."""
    then = person.dir
    if rev is not None:
        from heartcompass.store import lineage

        then = lineage.dir_at(ws, person, rev)  # the folder's name at rev (renames)

    def read(path):
        if rev is None:
            return read_text(path) if path.exists() else None
        if Path(path).parent == person.dir:
            path = then / Path(path).name
        return ws.git.file_at(rev, path)

    return read


def _profile(read, person: Person, rev: str | None):
    """PROFILE.md's text and parse, from disk or at rev (a person needs one)."""
    text = read(person.profile_path)
    if text is None:
        raise PersonError(f"people/{person.slug}/PROFILE.md did not exist at {rev}.",
                          "Pick a later date or commit (see 'heartcompass log').")
    return text, profile_fmt.parse(text, person.profile_path)


def snapshot(ws: Workspace, person: Person, rev: str | None = None, with_everyone: bool = False) -> Snapshot:
    read = _reader(ws, person, rev)
    prof_text, prof = _profile(read, person, rev)
    ev_text, cached = event_cache.read(ws, person.slug, person.events_path) if rev is None else (
        read(person.events_path), None)
    # read-only: the prompt never writes EVENTS.md back, so no copy of every event is kept
    evs = None if cached else (events_fmt.parse(ev_text, person.events_path, readonly=True) if ev_text is not None
                               else events_fmt.new(person.events_path, prof.name))
    mem_text = read(person.memory_path)
    mem = memory_fmt.parse(mem_text, person.memory_path) if mem_text is not None else memory_fmt.new(
        person.memory_path, prof.name)
    voice_path = person.dir / voice_fmt.FILENAME
    voice_text = read(voice_path)
    voice = voice_fmt.parse(voice_text, voice_path) if voice_text is not None else None
    neighbours = []
    for link in prof.related:
        # Only the neighbour's PROFILE frontmatter is read: their memory stays private.
        other = ws.people_dir / link["person"] / profile_fmt.FILENAME
        try:
            if not is_safe_slug(link["person"]):  # '../..' in a hand-edited link: not a folder of ours
                raise FormatError(other, "not a person's folder")
            text = read(other)
            neighbours.append((link["person"], link["as"], profile_fmt.parse(text, other) if text else None))
        except FormatError:  # a broken neighbour never breaks this chat
            neighbours.append((link["person"], link["as"], None))
    incoming, everyone = [], {}
    if rev is None:  # who links to this person (from their PROFILE frontmatter only, through the index)
        from heartcompass.store import people_index

        linked = {slug for slug, _, _ in neighbours}
        incoming = [(other, words, facts) for other, words, facts in people_index.incoming(ws, person.slug)
                    if other not in linked]
        if with_everyone:  # the coach's names of everyone: read only when asked for
            from heartcompass.store.people import list_people

            everyone = people_index.for_workspace(ws).profiles(list_people(ws))
    return Snapshot(person, prof, evs, mem, estimate_tokens(prof_text), estimate_tokens(mem_text or ""),
                    neighbours, rev, voice, incoming, everyone, cached=cached)


@dataclass
class SectionReport:
    key: str
    heading: str
    tokens: int = 0
    included: int = 0
    left_out: int = 0


@dataclass
class Context:
    system: str
    history: list[tuple[str, str]]
    sections: list[SectionReport]
    left_out: dict[str, list[str]]
    warnings: list[str]
    budget: int
    tokens: int
    history_tokens: int
    history_budget: int
    rev: str | None = None
    now: str = ""
    name: str = ""
    voice: str = "persona"   # "reflection" for the user's own person
    about: list[str] = field(default_factory=list)  # what the selection was for: the user's words, newest first
    relevant: int = 0        # entries chosen because the conversation names them

    def messages(self) -> list[tuple[str, str]]:
        return [("system", self.system), *self.history]


def display_name(ws: Workspace, prof: profile_fmt.Profile) -> str:
    return people_display_name(prof, str(ws.config.get("user.name") or ""))


def _units(ws: Workspace, snap: Snapshot, now: dt.datetime, user: str, rules: str, voice: str,
           name: str) -> list[Unit]:
    prof = snap.profile
    values = dict(name=name, user_name=user, separator=SEPARATOR, mbti=prof.mbti or "",
                  now=now.strftime("%Y-%m-%d %H:%M"), weekday=WEEKDAYS[now.weekday()])
    units = [Unit("rules", prompts.render(ws, rules, **values), 0)]
    units.append(Unit("relation", prompts.render(ws, f"relation/{prof.relation}.md", **values), 1))
    facts = [f"Name: {name}"]
    for label, value in (("Also called", ", ".join(prof.aliases)), ("Gender", prof.gender),
                         ("Birthday", prof.birthday), ("MBTI", prof.mbti), ("Tags", ", ".join(prof.tags))):
        if value:
            facts.append(f"{label}: {value}")
    units.append(Unit("profile", "\n".join(facts), 2))
    for i, (heading, text) in enumerate(prof.sections().items()):
        if text and heading != circle.SECTION:  # one unit per person mentioned, below
            units.append(Unit("profile", f"### {heading}\n{text}", 2 + (i + 1) / 100, ranked=True))
    units += circle.mention_units(prof, PRIORITY["circle"], STANDING["chats"])
    units += _voice_units(snap, voice == "persona")
    for key, title in (("facts", memory_fmt.FACTS), ("threads", memory_fmt.THREADS), ("chats", memory_fmt.CHATS)):
        for i, line in enumerate(snap.memory.items(title)):
            if not (key == "threads" and memory_fmt.is_past(line, now.date())):  # past its time: not open
                units.append(Unit(key, line, PRIORITY[key] + i / 1e6, ranked=True, standing=STANDING[key]))
    for title, lines in snap.memory.sections.items():
        if title not in memory_fmt.KNOWN:  # the user's own sections count as facts
            for line in lines:
                units.append(Unit("facts", line, PRIORITY["facts"] + 0.5, ranked=True))
    you = "the person you are chatting with" if voice in ("persona", "reflection") else "the user"
    for slug, as_words, other in snap.neighbours:
        who = other.name if other else slug
        if other and other.relation == "self":
            who = f"{user} ({you})"
        units.append(Unit("related", f"- {who}: {as_words or 'related'}", PRIORITY["related"]))
    for slug, as_words, other in snap.incoming:  # links only the other profile has
        who = f"{user} ({you})" if other.relation == "self" else other.name
        whom = "you are" if voice == "persona" else f"{name} is"
        if voice == "reflection":
            whom = f"{user} is"
        units.append(Unit("related", f"- {who} (to them, {whom}: {as_words or 'related'})", PRIORITY["related"]))
    if prof.mbti:
        units.append(Unit("mbti", prompts.render(ws, "mbti.md", **values), PRIORITY["mbti"]))
    return units


def _user_side_units(ws: Workspace, snap: Snapshot, now: dt.datetime, user: str, voice: str,
                     tag: str | None) -> list[Unit]:
    """The user's own side (memory/user_side.py) and when they last talked
    (memory/history.py): added blocks, placed by PRIORITY like the rest."""
    from heartcompass.memory import history, user_side

    units = []
    if voice != "about":  # the coach advises on a real conversation, not on these chats
        units.append(Unit("when", history.when_line(snap.person, now, user, tag), PRIORITY["when"]))
    if voice != "reflection":  # the user's own person shows all of it already
        read = _reader(ws, snap.person, snap.rev) if snap.rev else None
        units += [Unit("selfbasics", f"- {line}", PRIORITY["selfbasics"] + i / 1000)
                  for i, line in enumerate(user_side.self_basics(ws, user, read))]
    units += [Unit("aboutuser", line, PRIORITY["aboutuser"] + i / 1e6, ranked=True, standing=STANDING["aboutuser"])
              for i, line in enumerate(user_side.about_user(snap.memory))]
    if snap.rev is None:  # what the gardener has not read yet is now, not as of then
        units += [Unit("pending", line, PRIORITY["pending"] + i / 1e6)
                  for i, line in enumerate(user_side.pending_notes(ws, snap.person, now))]
    return units


def _voice_units(snap: Snapshot, persona: bool) -> list[Unit]:
    """Their own words (and, for the coach, the user's words to them) as
    style examples, with one line on the rhythm of their replies."""
    from heartcompass.memory.voice import guidance

    if snap.voice is None:
        return []
    units = []
    shape = guidance(snap.voice.rhythm, snap.profile.name, persona)
    if shape:
        units.append(Unit("words", shape, PRIORITY["words"]))
    for i, line in enumerate(snap.voice.lines(voice_fmt.THEIRS)):
        units.append(Unit("words", f'- "{line.text}"', PRIORITY["words"] + (i + 1) / 1000))
    if not persona:
        for i, line in enumerate(snap.voice.lines(voice_fmt.MINE)):
            units.append(Unit("mywords", f'- "{line.text}"', PRIORITY["mywords"] + i / 1000))
    return units


def build(ws: Workspace, person: Person, now: dt.datetime, *, rev: str | None = None,
          history_tag: str | None = None, fresh_after: int | None = None,
          rules: str = "persona.md", voice: str = "persona", about: str | None = None) -> Context:
    """about: a message the user is about to send (context --for, the coach's
    pasted message): the selection is for it, and it ends the history. Without
    it, the selection is for the user's last few turns in today's log."""
    snap = snapshot(ws, person, rev, with_everyone=voice == "about")
    user = str(ws.config.get("user.name") or "").strip()
    name = display_name(ws, snap.profile)
    selves = [p for p in [snap.profile, *(o for _, _, o in [*snap.neighbours, *snap.incoming])]
              if p is not None and p.relation == "self" and p.name != DEFAULT_SELF_NAME]
    if not user:  # the user's own person, renamed by hand
        from heartcompass.memory.user_side import self_name

        user = selves[0].name if selves else self_name(ws) or "the user"
    if snap.profile.relation == "self" and voice == "persona":
        rules, voice = "reflection.md", "reflection"  # a reflection partner, never a simulated someone
    budget = int(ws.config.get("memory.context_budget_tokens"))
    history_budget = int(ws.config.get("chat.history_budget_tokens"))
    hist = recent_history(person, now, history_budget, history_tag, fresh_after, about)
    units = _units(ws, snap, now, user, rules, voice, name) + _user_side_units(ws, snap, now, user, voice, history_tag)
    headings = {k: (HEADINGS[voice][k].format(user=user, name=name) if k in HEADINGS[voice] else None)
                for k in SECTIONS}
    header_tokens = {k: estimate_tokens(f"## {h}\n") + 1 if h else 0 for k, h in headings.items()}
    said = [unstamped(text) for role, text in reversed(hist) if role == "user"]
    if about and about.strip():  # whole, even where the history keeps only the newest part of a long one
        said = [about.strip(), *said[1:]]
    said = said[:ABOUT_TURNS]
    if voice == "about" and rev is None:  # the coach alone sees across people (memory/circle.py)
        units += circle.others_units(ws, person, snap.profile, "\n".join(said), PRIORITY["others"], snap.everyone)
    half_life = float(ws.config.get("memory.half_life_days"))
    today = now.date()
    events: Any = snap.events.events if snap.events else event_pool.TablePool(snap.cached, today, half_life)
    choice = selection.choose(units, events, budget, header_tokens,
                              score_event=lambda e: events_fmt.score(e, today, half_life),
                              about=relevance.query(said))
    parts, reports = [], []
    for key in SECTIONS:
        mine = sorted((u for u in choice.chosen if u.section == key), key=lambda u: (u.priority, u.order))
        if key == "events":  # picked by score, shown newest first
            mine.sort(key=lambda u: u.text, reverse=True)
        report = SectionReport(key, headings[key] or UNTITLED.get(key, key), sum(u.tokens for u in mine),
                               len(mine), choice.left_count.get(key, 0))
        if mine:
            report.tokens += header_tokens[key]
            body = "\n".join(u.text for u in mine)
            parts.append(f"## {headings[key]}\n{body}" if headings[key] else body)
        reports.append(report)
    # invisible text a log or a hand edit holds (Unicode tags spelling instructions) reaches no persona
    system = clean_text("\n\n".join(parts), nfkc=False)
    hist = [(role, clean_text(text, nfkc=False)) for role, text in hist]
    warnings = size_warnings(person, snap.profile_tokens, budget)
    hist_tokens = sum(estimate_tokens(text) for _, text in hist)
    return Context(system, hist, reports, choice.left, warnings, budget, estimate_tokens(system), hist_tokens,
                   history_budget, rev, now.strftime("%Y-%m-%d %H:%M"), name, voice, said, choice.relevant)


def size_warnings(person: Person, profile_tokens: int, budget: int) -> list[str]:
    """PROFILE.md is who they are, meant to fit a prompt whole. MEMORY.md and
    EVENTS.md may hold far more than a prompt: the selection takes what the
    conversation needs, so their size is no warning."""
    if profile_tokens <= budget:
        return []
    return [f"people/{person.slug}/PROFILE.md is about {profile_tokens} tokens, more than the whole context "
            f"budget ({budget}), so parts of it are left out. Trim the file or raise memory.context_budget_tokens."]


@dataclass
class Preview:
    name: str
    warnings: list[str]
    voice: str  # as Context.voice: "reflection" for the user's own person


def preview(ws: Workspace, person: Person, rev: str | None = None) -> Preview:
    """What a chat says as it opens (the name, files too big for the budget),
    without building the prompt: the first message builds it, once."""
    read = _reader(ws, person, rev)
    prof_text, prof = _profile(read, person, rev)
    budget = int(ws.config.get("memory.context_budget_tokens"))
    return Preview(display_name(ws, prof), size_warnings(person, estimate_tokens(prof_text), budget),
                   "reflection" if prof.relation == "self" else "persona")


def parse_time_travel(ws: Workspace, value: str) -> tuple[str, str]:
    """--as-of DATE|REV -> (commit sha, label for the log tag)."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            raise PersonError(f"--as-of {value}: not a real date.") from None
        from heartcompass.store import clock

        if day > clock.today(ws):  # the files of a day to come are today's: time travel goes back only
            raise PersonError(f"--as-of {value} is in the future (today is {clock.today(ws)}).",
                              "Give today or an earlier day, or leave --as-of out for the files as they are.")
        return ws.git.commit_before(f"{value} 23:59:59"), f"{TIME_TRAVEL_TAG} {value}"
    sha = ws.git.resolve(value)
    return sha, f"{TIME_TRAVEL_TAG} {sha[:8]}"
