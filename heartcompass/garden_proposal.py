"""The gardener's structured proposal: its schema, how the current files and
the new log entries are shown to the model (every line with an id), and how
a proposal is validated and applied. Nothing here writes files.

The model never writes file text directly: it names lines by id and gives
short statements with the ids of the log entries they rest on. Sources are
derived from that evidence, trust is checked against it (facts and events
only from the user's own words, /note and imported real messages), and
lines the user wrote by hand are never touched: a proposal to change one
becomes an open thread that quotes both."""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Literal, Optional

from pydantic import BaseModel, Field

from heartcompass.errors import HeartCompassError
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt, profile as profile_fmt
from heartcompass.tokens import estimate_tokens

MAX_TEXT = 200


# -- the schema the model fills ---------------------------------------------
class NewEvent(BaseModel):
    date: str = Field(description="YYYY-MM-DD: when it happened (or is planned)")
    text: str = Field(description="one short statement, at most 25 words, no quotes of the chat")
    weight: float = Field(description="how much it matters: 0 trivial .. 1 life-changing")
    evidence: list[str] = Field(description="ids of the log entries it comes from, e.g. ['L3']")


class EventChange(BaseModel):
    id: str = Field(description="id of an existing event, e.g. 'E2'")
    weight: Optional[float] = Field(None, description="new weight; raise it when the event is mentioned again")
    text: Optional[str] = Field(None, description="corrected text, only when the new entries correct it")
    evidence: list[str] = Field(default_factory=list)


class Line(BaseModel):
    text: str = Field(description="one short statement, at most 25 words")
    evidence: list[str] = Field(description="ids of the log entries it comes from")


class Rewrite(BaseModel):
    id: str = Field(description="id of the existing line, e.g. 'F2'")
    text: str = Field(description="the corrected statement (newer information wins)")
    evidence: list[str]


class FieldChange(BaseModel):
    field: Literal["relation", "mbti", "gender", "birthday", "alias", "tag"]
    value: str = Field(description="new value; for alias and tag, one item to add")
    evidence: list[str]


class SectionNote(BaseModel):
    section: str = Field(description="PROFILE.md section: Personality, How they talk, Likes, Dislikes, "
                                     "Boundaries or Background")
    text: str = Field(description="one short statement to add to that section")
    evidence: list[str]


class Link(BaseModel):
    person: str = Field(description="slug of a known person")
    relation_words: str = Field(description="who they are to this person, e.g. 'her brother'")
    evidence: list[str]


class Proposal(BaseModel):
    """Changes to one person's PROFILE.md, EVENTS.md and MEMORY.md."""
    summary: str = Field(description="one line: what changed and why")
    new_events: list[NewEvent] = Field(default_factory=list)
    changed_events: list[EventChange] = Field(default_factory=list)
    removed_events: list[str] = Field(default_factory=list, description="ids of stale, minor events to drop")
    new_facts: list[Line] = Field(default_factory=list, description="trusted facts: only from entries marked trusted")
    rewritten_facts: list[Rewrite] = Field(default_factory=list)
    removed_facts: list[str] = Field(default_factory=list)
    new_chat_notes: list[Line] = Field(default_factory=list,
                                       description="what the persona said in simulated chats (untrusted)")
    rewritten_chat_notes: list[Rewrite] = Field(default_factory=list)
    removed_chat_notes: list[str] = Field(default_factory=list)
    new_threads: list[Line] = Field(default_factory=list, description="things to follow up on")
    closed_threads: list[str] = Field(default_factory=list, description="ids of threads now resolved")
    profile_fields: list[FieldChange] = Field(default_factory=list)
    profile_notes: list[SectionNote] = Field(default_factory=list)
    new_links: list[Link] = Field(default_factory=list)
    nothing_worth_keeping: bool = Field(False, description="true only when the new entries hold nothing worth "
                                                           "keeping; then every list stays empty")


_NOTHING_SAID = re.compile(r"nothing (new |else |here )?(worth|to) (keep|record|add|note|remember)|nothing new|"
                           r"no new (information|facts|details)|没有(什么)?(值得|新)|无新", re.I)


def consumes(proposal: Proposal) -> bool:
    """Whether the entries shown may be marked consolidated: the proposal
    changes something, or the model said outright there is nothing worth
    keeping (the flag, or its summary). An empty answer alone is not that."""
    changes = any(value for name, value in proposal if isinstance(value, list))
    return changes or proposal.nothing_worth_keeping or bool(_NOTHING_SAID.search(proposal.summary))


class Compressed(BaseModel):
    """MEMORY.md rewritten shorter: fewer, merged lines, sources kept."""
    facts: list[str]
    chat_notes: list[str]
    threads: list[str]


class ProposalError(HeartCompassError):
    """The model's output was rejected; nothing was written."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems), "Nothing was written. Run it again, or try a more capable model.")
        self.problems = problems

    def __str__(self) -> str:
        return self.message


# -- the schema sent, tightened per request ----------------------------------------
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
MAX_ITEMS = 20  # per list: a proposal is a handful of small changes
# A grammar can hold a number to a list of values, not to a range: weights in steps of 0.05.
WEIGHT = {"type": "number", "minimum": 0, "maximum": 1, "enum": [round(n * 0.05, 2) for n in range(21)]}


def _ids(values, what: str = "") -> dict:
    """An array of ids from this request only; none to choose from means no
    items (an empty enum is not a valid schema)."""
    values = sorted(set(values), key=lambda v: (len(v), v))
    if not values:
        return {"type": "array", "items": {"type": "string"}, "maxItems": 0}
    return {"type": "array", "items": {"type": "string", "enum": values}, "maxItems": MAX_ITEMS}


def _statement() -> dict:
    return {"type": "string", "minLength": 1, "maxLength": MAX_TEXT}


def proposal_schema(wb: Workbench, items: list[LogItem], events_shown: list[events_fmt.Event]) -> dict:
    """Proposal's JSON schema with every constraint in it, not only in the
    descriptions, so a grammar-constrained model cannot cite an entry or a
    line that does not exist, or write a fact from an untrusted entry."""
    from heartcompass.llm import inline_schema

    spec = inline_schema(Proposal)
    props = spec["properties"]
    every = [i.id for i in items]
    trusted = [i.id for i in items if i.entry.trusted]
    persona = [i.id for i in items if not i.entry.trusted]
    line_ids = {p: [f"{p}{n + 1}" for n in range(len(wb.memory.items(t)))] for p, t in SECTION_IDS}
    event_ids = [f"E{n + 1}" for n in range(len(events_shown))]

    def listing(item: dict, evidence: list[str], ids: list[str] | None = None, need_evidence=True) -> dict:
        item = {**item, "properties": dict(item["properties"])}
        if "text" in item["properties"]:
            item["properties"]["text"] = {**item["properties"]["text"], **_statement()}
        if "evidence" in item["properties"]:
            ev = _ids(evidence)
            if need_evidence and evidence:
                ev["minItems"] = 1
            item["properties"]["evidence"] = {**item["properties"]["evidence"], **ev}
        if ids is not None:
            choice = {"type": "string", "enum": sorted(ids)} if ids else {"type": "string"}
            item["properties"]["id"] = {**item["properties"]["id"], **choice}
        room = evidence if ids is None else (evidence and ids)
        return {"type": "array", "items": item, "maxItems": MAX_ITEMS if room else 0}

    def each(name: str) -> dict:
        return props[name]["items"]

    props["summary"] = {**props["summary"], **_statement()}
    new_event = listing(each("new_events"), trusted)
    new_event["items"]["properties"]["date"] = {**new_event["items"]["properties"]["date"], "type": "string",
                                                "pattern": DATE_PATTERN}
    new_event["items"]["properties"]["weight"] = {**new_event["items"]["properties"]["weight"], **WEIGHT}
    props["new_events"] = {**props["new_events"], **new_event}
    changed = listing(each("changed_events"), trusted, event_ids, need_evidence=False)
    weight = changed["items"]["properties"]["weight"]
    changed["items"]["properties"]["weight"] = {**weight, "anyOf": [WEIGHT, {"type": "null"}]}
    text = changed["items"]["properties"]["text"]
    changed["items"]["properties"]["text"] = {k: v for k, v in text.items() if k not in ("type", "minLength",
                                                                                           "maxLength")}
    changed["items"]["properties"]["text"]["anyOf"] = [_statement(), {"type": "null"}]
    props["changed_events"] = {**props["changed_events"], **changed}
    props["removed_events"] = {**props["removed_events"], **_ids(event_ids)}
    for key, prefix, evidence in (("facts", "F", trusted), ("chat_notes", "C", persona), ("threads", "T", every)):
        props[f"new_{key}"] = {**props[f"new_{key}"], **listing(each(f"new_{key}"), evidence)}
        if f"rewritten_{key}" in props:
            props[f"rewritten_{key}"] = {**props[f"rewritten_{key}"],
                                         **listing(each(f"rewritten_{key}"), evidence, line_ids[prefix])}
    props["removed_facts"] = {**props["removed_facts"], **_ids(line_ids["F"])}
    props["removed_chat_notes"] = {**props["removed_chat_notes"], **_ids(line_ids["C"])}
    props["closed_threads"] = {**props["closed_threads"], **_ids(line_ids["T"])}
    fields = listing(each("profile_fields"), trusted)
    fields["items"]["properties"]["value"] = {**fields["items"]["properties"]["value"], **_statement()}
    props["profile_fields"] = {**props["profile_fields"], **fields}
    notes = listing(each("profile_notes"), trusted)
    sections = sorted({*profile_fmt.BODY_SECTIONS, *wb.profile.sections()})
    notes["items"]["properties"]["section"] = {**notes["items"]["properties"]["section"], "enum": sections}
    props["profile_notes"] = {**props["profile_notes"], **notes}
    others = sorted(wb.known_slugs - {wb.slug})
    links = listing(each("new_links"), trusted if others else [])
    links["items"]["properties"]["person"] = {**links["items"]["properties"]["person"],
                                              **({"enum": others} if others else {})}
    links["items"]["properties"]["relation_words"] = {**links["items"]["properties"]["relation_words"],
                                                      "maxLength": 60}
    props["new_links"] = {**props["new_links"], **links}
    return spec


def compressed_schema(budget_tokens: int) -> dict:
    from heartcompass.llm import inline_schema

    spec = inline_schema(Compressed)
    for name in ("facts", "chat_notes", "threads"):
        spec["properties"][name]["items"] = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT + 40}
        spec["properties"][name]["maxItems"] = max(5, budget_tokens // 8)
    return spec


# -- what the model is shown ---------------------------------------------------
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
    event_index: "EventIndex | None" = field(default=None, repr=False, compare=False)  # see events_index()
    event_undo: list | None = field(default=None, repr=False, compare=False)  # (event, old copy) since a snapshot

    def is_protected(self, line: str) -> bool:
        return line in self.protected or line.rstrip().endswith("(hand)")


SECTION_IDS = (("F", memory_fmt.FACTS), ("C", memory_fmt.CHATS), ("T", memory_fmt.THREADS))


class EventIndex:
    """wb.events.events ranked and indexed once, then kept up to date by the
    operations below (_add_event, _change_event, _remove_event), so a chunk's
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

        from heartcompass.context import score

        key = (-score(event, self.today, self.half_life), seq)
        cost = estimate_tokens(event.render()) + 2
        self.rank[id(event)], self.by_key[key], self.cost[id(event)] = key, event, cost
        insort(self.buckets.setdefault(cost, []), key)
        insort(self.by_date.setdefault(event.date, []), key)
        insort(self.same.setdefault((event.date, _norm(event.text)), []), (seq, event))

    def _drop(self, event: events_fmt.Event, date: dt.date, text: str) -> int:
        from bisect import bisect_left

        key, cost = self.rank.pop(id(event)), self.cost.pop(id(event))
        del self.by_key[key]
        for keys in (self.buckets[cost], self.by_date[date]):
            del keys[bisect_left(keys, key)]
        same = self.same[(date, _norm(text))]
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
        same = self.same.get((date, _norm(text)))
        return same[0][1] if same else None

    def shown(self, days: set[str], budget_tokens: int) -> list[events_fmt.Event]:
        """What the ranked walk in shown_events picks: each next event in rank
        order that is on one of the days or still fits the budget."""
        from bisect import bisect_right

        day_keys = sorted(k for day in days for k in self.by_date.get(_as_date(day), ()))
        costs = sorted(self.buckets)
        picked, used, pos = [], 0, (float("-inf"), -1)
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


def _as_date(day: str) -> dt.date | None:
    try:
        date = dt.date.fromisoformat(day)
    except (TypeError, ValueError):
        return None
    return date if date.isoformat() == day else None


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


def shown_events(wb: Workbench, items: list[LogItem], budget_tokens: int, half_life: float
                 ) -> list[events_fmt.Event]:
    """The events the model sees: the highest-scoring ones within a budget,
    plus any on the dates the new entries talk about. Bounded, so the
    prompt does not grow with a person's history; so is the work, through
    an index kept with the workbench (the same pick as ranking all events
    and walking them, see _shown_by_walk)."""
    days = {i.day for i in items}
    return events_index(wb, half_life).shown(days, budget_tokens)


def _shown_by_walk(wb: Workbench, items: list[LogItem], budget_tokens: int, half_life: float
                   ) -> list[events_fmt.Event]:
    """The plain definition of shown_events (tests compare the two)."""
    from heartcompass.context import score

    days = {i.day for i in items}
    ranked = sorted(wb.events.events, key=lambda e: score(e, wb.today, half_life), reverse=True)
    picked, used = [], 0
    for event in ranked:
        cost = estimate_tokens(event.render()) + 2
        if event.date.isoformat() in days or used + cost <= budget_tokens:
            picked.append(event)
            used += cost
    return picked


def present(wb: Workbench, items: list[LogItem], events_shown: list[events_fmt.Event]) -> str:
    prof = wb.profile
    out = [f"Today: {wb.today.isoformat()}", "", f"## PROFILE.md of {prof.name} (slug {wb.slug})"]
    for key in ("relation", "mbti", "gender", "birthday", "aliases", "tags", "related"):
        value = prof.doc.meta.get(key)
        if value not in (None, "", []):
            out.append(f"{key}: {value}")
    for heading, text in prof.sections().items():
        out.append(f"### {heading}\n{text or '(empty)'}")
    out += ["", "## EVENTS.md (most relevant; id, then the line)"]
    out += [f"E{i + 1} {e.render()}{'   [hand-written]' if wb.is_protected(e.render()) else ''}"
            for i, e in enumerate(events_shown)] or ["(none)"]
    out += ["", f"## MEMORY.md (budget {wb.memory.budget_tokens} tokens, now {wb.memory.body_tokens()})"]
    for prefix, title in SECTION_IDS:
        out.append(f"### {title}")
        lines = wb.memory.items(title)
        out += [f"{prefix}{i + 1} {line}{'   [hand-written]' if wb.is_protected(line) else ''}"
                for i, line in enumerate(lines)] or ["(none)"]
    out += ["", "## Known people (slugs): " + (", ".join(sorted(wb.known_slugs - {wb.slug})) or "(none)")]
    out += ["", "## New log entries to consolidate"]
    for item in items:
        e = item.entry
        trust = "trusted" if e.trusted else "UNTRUSTED: said by the simulated persona"
        if e.speaker == "me":
            trust = "trusted: the user"
        body = e.text.replace("\n", " / ")
        out.append(f"{item.id} [{item.day} {e.time[:5]} · {e.speaker} · {trust}] {body}")
    return "\n".join(out)


# -- validation and application --------------------------------------------------
# Code and injected instructions, not prose: keywords only in code's own shape
# (lowercase, with its punctuation), so "Class reunion in June" or "Import
# business is growing" are ordinary facts.
_CODEISH = re.compile(r"`|<\s*/?\s*(script|html|div|iframe|style|img)\b|"
                      r"(?-i:^\s*(import [\w.]+\s*$|from [\w.]+ import |def \w+\(|class \w+(\(.*\))?:|"
                      r"rm -[a-z]*[rf]|sudo \w)|\bSELECT\b.+\bFROM\b|\bDROP TABLE\b)|"
                      r"ignore (all |the )?(previous|above) instructions|you are now|system prompt", re.I)
# A pasted log entry ("- 10:00:00 · note · ...", the leading "- " already
# stripped) or a line as the model was shown it ("L3 [2026-12-01 20:00 · me ...").
_LOG_LINE = re.compile(r"^(- ?)?\d{1,2}:\d{2}(:\d{2})? ?·|^L\d+ \[|\[\d{4}-\d{2}-\d{2} \d{2}:\d{2} ·")
# Source markers are ours alone: written by the model, "(hand)" would forge
# the user's protection of a line, "(told)" a provenance it does not have.
SOURCE_MARK = re.compile(r"\s*[(（]\s*(hand|told|import|log(\s+\d{4}-\d{2}-\d{2})?)\s*[)）]", re.I)
_REPORTED = re.compile(r"^([\w.'-]+\s+){0,3}(said|says|told|tells|claims?|claimed|mentioned|wrote|writes)\b|"
                       r"^.{0,12}(说|告诉|提到|表示)", re.I)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


# -- does the cited evidence support the statement? ----------------------------------
_STOP = frozenset("""a an the and or but if of to in on at by for with from into onto about as is are was were be
been being am has have had do does did will would shall should can could may might must not no yes so than
then too very just also really still even only that this these those there here it its it's he she they we
you i me my mine her hers him his them their theirs our ours your yours who whom whose what which when where
why how all any some each both more most much many few other such own same again once now new user
said says told tell tells""".split())
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)?")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _number(token: str) -> str:
    whole, _, frac = token.replace(",", "").partition(".")
    frac = frac.rstrip("0")
    return (whole.lstrip("0") or "0") + (f".{frac}" if frac else "")


def lexical(text: str) -> tuple[set[str], set[str]]:
    """(content words and CJK character bigrams, numbers) of a text: a cheap
    check that a statement says something its evidence says."""
    from heartcompass.sanitize import strip_controls

    words, numbers = set(), set()
    for token in _TOKEN.findall(strip_controls(text).casefold()):  # an escape sequence's digits are no claim
        if token[0].isdigit():
            numbers.add(_number(token))
        elif re.match(rf"[{_CJK}]", token):
            words.update(token[i:i + 2] for i in range(len(token) - 1)) if len(token) > 1 else words.add(token)
        elif len(token) >= 3 and token not in _STOP:
            words.add(_stem(token))
    return words, numbers


class _Checker:
    def __init__(self, wb: Workbench, items: list[LogItem]):
        self.wb = wb
        self.items = {i.id: i for i in items}
        self.problems: list[str] = []
        self.found: list[LogItem] = []
        self.visual = False
        # the person's own names: every statement is about them, so they show no support
        self.subject = lexical(" ".join([wb.profile.name, wb.slug, *map(str, wb.profile.doc.meta.get("aliases")
                                                                          or [])]))[0]
        # Chat messages must not be pasted in; a /note is already a statement and may be kept as written.
        self.raw = [_norm(i.entry.text) for i in items
                    if len(_norm(i.entry.text)) >= 30 and i.entry.speaker != "note"]

    def text(self, what: str, text: str | None) -> str:
        from heartcompass.sanitize import strip_controls

        text = strip_controls(text or "").strip()  # a model's escape sequences never reach a file
        if text.startswith("- "):
            text = text[2:].strip()
        text = SOURCE_MARK.sub("", text).strip()  # the source is derived from the evidence, by us
        if not text:
            self.problems.append(f"{what}: empty text")
        elif "\n" in text:
            self.problems.append(f"{what}: more than one line")
        elif len(text) > MAX_TEXT:
            self.problems.append(f"{what}: {len(text)} characters; entries are short statements ({MAX_TEXT} at most)")
        elif _CODEISH.search(text) or _LOG_LINE.match(text):
            self.problems.append(f"{what}: looks like code, instructions or a raw log line: {text[:60]!r}")
        elif any(raw in _norm(text) for raw in self.raw):
            self.problems.append(f"{what}: copies a log message word for word; write a short statement instead")
        return text

    def evidence(self, what: str, ids: list[str], need: str, text: str | None = None) -> str | None:
        """Checks the cited entries (and that they support `text`); returns
        the source to cite ('log DATE'). self.found: the cited entries."""
        found = self.found = [self.items[i.strip()] for i in ids if i.strip() in self.items]
        if not ids or len(found) != len(ids):
            bad = [i for i in ids if i.strip() not in self.items]
            self.problems.append(f"{what}: needs evidence from the new entries (unknown ids: {bad or 'none given'})")
            return None
        if need == "trusted" and not all(i.entry.trusted for i in found):
            self.problems.append(f"{what}: rests on what the simulated persona said; facts and events come only "
                                 "from entries marked trusted (put it in new_chat_notes instead)")
        if need == "persona" and not any(i.entry.speaker == "persona" for i in found):
            self.problems.append(f"{what}: chat notes record what the persona said; cite a persona entry")
        if text and not self.visual:
            self.support(what, text, found)
        return f"log {min(i.day for i in found)}"

    def support(self, what: str, text: str, found: list[LogItem]) -> None:
        """The statement must say something its entries say: a shared content
        word, name or number; and every number in it must be in them."""
        words, numbers = lexical(text)
        cited = " ".join(f"{i.entry.text} {i.day}" for i in found)
        have_words, have_numbers = lexical(cited)
        missing = sorted(numbers - have_numbers)
        ids = ", ".join(i.id for i in found)
        if missing:
            self.problems.append(f"{what}: {', '.join(missing)} does not appear in the entries it cites ({ids}); "
                                 "numbers and amounts must come from them")
        elif not ((words - self.subject) & have_words or numbers & have_numbers):
            self.problems.append(f"{what}: shares no words with the entries it cites ({ids}); state only what "
                                 "they say, in their words")

    def date(self, what: str, value: str) -> dt.date | None:
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            self.problems.append(f"{what}: {value!r} is not a real date (YYYY-MM-DD)")
            return None

    def weight(self, what: str, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            self.problems.append(f"{what}: weight {value} is outside 0..1")
            return None
        return None if value is None else round(float(value), 2)


def apply(wb: Workbench, proposal: Proposal, items: list[LogItem], events_shown: list[events_fmt.Event],
          visual: bool = False) -> None:
    """Validate the whole proposal, then apply it to the workbench. Raises
    ProposalError (and changes nothing) when any part is invalid. visual:
    the entries came with screenshots, whose words the text does not hold."""
    ck = _Checker(wb, items)
    ck.visual = visual
    ops: list = []  # closures applied only once everything is valid
    event_ids = {f"E{i + 1}": e for i, e in enumerate(events_shown)}
    mem_ids = {f"{p}{i + 1}": (title, line) for p, title in SECTION_IDS
               for i, line in enumerate(wb.memory.items(title))}

    def known(kind: str, ident: str, table: dict):
        if ident.strip() not in table:
            ck.problems.append(f"{kind} {ident!r}: no such id")
            return None
        return table[ident.strip()]

    for n, ev in enumerate(proposal.new_events, 1):
        what = f"new event {n}"
        date, text = ck.date(what, ev.date), ck.text(what, ev.text)
        weight, source = ck.weight(what, ev.weight), ck.evidence(what, ev.evidence, "trusted", text)
        if date and weight is not None and source:
            ops.append(lambda d=date, t=text, w=weight, s=source: _add_event(wb, d, t, w, s))
    for ch in proposal.changed_events:
        event = known("event", ch.id, event_ids)
        weight = ck.weight(f"event {ch.id}", ch.weight)
        text = ck.text(f"event {ch.id}", ch.text) if ch.text else None
        source = ck.evidence(f"event {ch.id}", ch.evidence, "trusted", text) if (text or ch.evidence) else None
        if event is not None and (weight is not None or text):
            ops.append(lambda e=event, w=weight, t=text, s=source: _change_event(wb, e, w, t, s))
    for ident in proposal.removed_events:
        event = known("event", ident, event_ids)
        if event is not None:
            ops.append(lambda e=event: _remove_event(wb, e))
    for key, title, need in (("facts", memory_fmt.FACTS, "trusted"), ("chat_notes", memory_fmt.CHATS, "persona"),
                             ("threads", memory_fmt.THREADS, "any")):
        for n, line in enumerate(getattr(proposal, f"new_{key}"), 1):
            what = f"new {key[:-1].replace('_', ' ')} {n}"
            text = ck.text(what, line.text)
            source = ck.evidence(what, line.evidence, need, text)
            if source and key == "threads" and not all(i.entry.trusted for i in ck.found):
                # what the persona raised is not the user's to follow up as true: it is a chat note
                ops.append(lambda x=text, s=source: _add_line(wb, memory_fmt.CHATS, f"- {x} ({s})"))
            elif source:
                x = _reported(text, ck.found) if key == "facts" else text
                ops.append(lambda t=title, x=x, s=source: _add_line(wb, t, f"- {x} ({s})"))
        for rw in getattr(proposal, f"rewritten_{key}", []):
            target = known(key, rw.id, mem_ids)
            text = ck.text(f"{key} {rw.id}", rw.text)
            source = ck.evidence(f"{key} {rw.id}", rw.evidence, need, text)
            text = _reported(text, ck.found) if key == "facts" and source else text
            if target and target[0] == title and source:
                ops.append(lambda tg=target, x=text, s=source: _rewrite_line(wb, tg[0], tg[1], f"- {x} ({s})", s))
            elif target:
                ck.problems.append(f"{rw.id} is not in {title}")
        removed = proposal.closed_threads if key == "threads" else getattr(proposal, f"removed_{key}")
        for ident in removed:
            target = known(key, ident, mem_ids)
            if target and target[0] == title:
                ops.append(lambda tg=target: _remove_line(wb, tg[0], tg[1]))
            elif target:
                ck.problems.append(f"{ident} is not in {title}")
    for n, fc in enumerate(proposal.profile_fields, 1):
        what = f"profile field {fc.field}"
        value = _check_field(ck, fc.field, fc.value)
        if ck.evidence(what, fc.evidence, "trusted") and value is not None:
            ops.append(lambda f=fc.field, v=value: _set_field(wb, f, v))
    for note in proposal.profile_notes:
        what = f"profile note for {note.section}"
        text = ck.text(what, note.text)
        source = ck.evidence(what, note.evidence, "trusted", text)
        if note.section not in (*profile_fmt.BODY_SECTIONS, *wb.profile.sections()):
            ck.problems.append(f"{what}: unknown section (use {', '.join(profile_fmt.BODY_SECTIONS)})")
        elif source:
            ops.append(lambda sec=note.section, x=text, s=source: _add_profile_note(wb, sec, f"- {x} ({s})"))
    for link in proposal.new_links:
        what = f"link to {link.person}"
        if link.person not in wb.known_slugs or link.person == wb.slug:
            ck.problems.append(f"{what}: not a known person's slug")
        words = ck.text(what, link.relation_words)
        if ck.evidence(what, link.evidence, "trusted"):
            ops.append(lambda p=link.person, w=words: _add_link(wb, p, w))
    ck.text("summary", proposal.summary)
    if ck.problems:
        raise ProposalError(ck.problems)
    for op in ops:
        op()


def _reported(text: str, found: list[LogItem]) -> str:
    """A fact resting only on what another person wrote in real imported
    messages is what they said, not a verified truth: it reads as such."""
    def theirs(item: LogItem) -> bool:
        return item.entry.speaker.startswith("import:") and item.entry.speaker != "import:me"

    if not found or not all(theirs(i) for i in found) or _REPORTED.search(text):
        return text
    who = " and ".join(sorted({i.entry.speaker.split(":", 1)[1] for i in found}))
    if re.search(rf"[{_CJK}]", text):
        return f"{who}说：{text}"
    lead = text[:1].lower() + text[1:] if text[1:2].islower() else text
    return f"{who} said: {lead}"


def _check_field(ck: _Checker, name: str, value: str):
    from heartcompass.errors import FormatError, PersonError
    from heartcompass.slugs import clean_name

    value = value.strip()
    try:
        if name == "relation":
            return profile_fmt.check_relation(value, "relation")
        if name == "mbti":
            return profile_fmt.normalize_mbti(value, "mbti")
        if name == "birthday":
            if not re.fullmatch(r"(\d{4}-)?\d{2}-\d{2}", value):
                raise FormatError("birthday", f"{value!r} is not YYYY-MM-DD or MM-DD")
            return value
        if name == "alias":
            return clean_name(value)
        return ck.text(f"profile {name}", value)
    except (FormatError, PersonError) as exc:
        ck.problems.append(f"profile field {name}: {exc.message}")
        return None


# -- the operations ------------------------------------------------------------------
def _add_event(wb: Workbench, date: dt.date, text: str, weight: float, source: str) -> None:
    idx = events_index(wb)
    if idx is not None:
        existing = idx.first_same(date, text)
    else:
        existing = next((e for e in wb.events.events if e.date == date and _norm(e.text) == _norm(text)), None)
    if existing is not None:  # the same event twice is one event, weighted up
        if weight > existing.effective_weight and not wb.is_protected(existing.render()):
            _change_event(wb, existing, weight, None, None)
        return
    event = events_fmt.Event(date, text, weight, source)
    wb.events.events.append(event)
    if idx is not None:
        idx.added(event)
    wb.counts["events_added"] += 1
    wb.changes.append(f"+ event {date} · w{weight} · {text} ({source})")


def _change_event(wb: Workbench, event: events_fmt.Event, weight, text, source) -> None:
    line = event.render()
    if wb.is_protected(line):
        if text:
            _thread_for_hand_line(wb, line, text, source or "log")
        return
    idx, before = events_index(wb), copy.copy(event)
    if wb.event_undo is not None:  # put back in place if the proposal is rejected (gardener._restore)
        wb.event_undo.append((event, before))
    if idx is not None and not idx.holds(event):  # not (or no longer) in the list: rebuilt when next asked
        idx = wb.event_index = None
    if weight is not None:
        event.weight = weight
    if text:
        event.text, event.source = text, source or event.source
    if idx is not None:
        idx.changed(event, before)
    if event.render() != line:
        wb.counts["events_changed"] += 1
        wb.changes.append(f"~ event {line[2:]} -> {event.render()[2:]}")


def _remove_event(wb: Workbench, event: events_fmt.Event) -> None:
    if wb.is_protected(event.render()):
        return  # the user's own line stays
    idx = events_index(wb)
    before = len(wb.events.events)
    wb.events.events = [e for e in wb.events.events if e is not event]
    if idx is not None and idx.holds(event) and len(wb.events.events) == before - 1:
        idx.removed(event, wb.events.events)
    else:
        wb.event_index = None
    wb.counts["events_changed"] += 1
    wb.changes.append(f"- event {event.render()[2:]}")


def _add_line(wb: Workbench, title: str, line: str) -> None:
    lines = wb.memory.sections.setdefault(title, [])
    if _norm(line) not in (_norm(x) for x in lines):
        lines.append(line)
        wb.changes.append(f"+ {title}: {line[2:]}")


def _rewrite_line(wb: Workbench, title: str, old: str, new: str, source: str) -> None:
    if wb.is_protected(old):
        _thread_for_hand_line(wb, old, new[2:], source)
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines[lines.index(old)] = new
        wb.changes.append(f"~ {title}: {old[2:]} -> {new[2:]}")


def _remove_line(wb: Workbench, title: str, old: str) -> None:
    if wb.is_protected(old):
        return
    lines = wb.memory.sections[title]
    if old in lines:
        lines.remove(old)
        wb.changes.append(f"{'✓ closed' if title == memory_fmt.THREADS else '-'} {title}: {old[2:]}")


def _thread_for_hand_line(wb: Workbench, hand_line: str, suggestion: str, source: str) -> None:
    """The user's line wins; the disagreement becomes an open thread."""
    wrote = re.sub(r"\s*\((hand|told|import|log \d{4}-\d{2}-\d{2})\)$", "", hand_line[2:].strip())
    suggestion = re.sub(r"\s*\((log \d{4}-\d{2}-\d{2})\)$", "", suggestion.strip())
    src = source if source.startswith("log ") else "log"
    _add_line(wb, memory_fmt.THREADS, f'- You wrote "{wrote}", but the chats suggest "{suggestion}" ({src})')


def _set_field(wb: Workbench, name: str, value: str) -> None:
    meta = wb.profile.doc.meta
    if name in ("alias", "tag"):
        key = "aliases" if name == "alias" else "tags"
        current = list(meta.get(key) or [])
        if _norm(value) not in (_norm(str(x)) for x in current):
            meta[key] = [*current, value]
            wb.changes.append(f"+ profile {key}: {value}")
        return
    if meta.get(name) != value:
        old = meta.get(name)
        raw_line = next((line for line in wb.profile.doc.raw_meta.splitlines()
                         if re.match(rf"{name}\s*:", line)), None)
        if raw_line is not None and wb.is_protected(raw_line):
            _thread_for_hand_line(wb, f"- {raw_line.strip()}", f"{name}: {value}", "log")
            return
        meta[name] = value
        wb.changes.append(f"~ profile {name}: {old} -> {value}")


def _add_profile_note(wb: Workbench, section: str, line: str) -> None:
    """Append a line to one body section; every other byte stays put."""
    body = wb.profile.doc.body
    if _norm(line) in _norm(body):
        return
    m = re.search(rf"(?m)^## {re.escape(section)}[ \t]*$", body)
    if not m:
        body = body.rstrip("\n") + f"\n\n## {section}\n\n{line}\n"
    else:
        nxt = re.search(r"(?m)^## ", body[m.end():])
        end = m.end() + nxt.start() if nxt else len(body)
        content = body[m.end():end]
        kept = content.rstrip("\n")
        trailing = content[len(kept):] or "\n"
        sep = "\n" if kept.strip() else "\n\n"
        body = body[:m.end()] + kept + sep + line + trailing + body[end:]
    wb.profile.doc.body = body
    wb.changes.append(f"+ profile {section}: {line[2:]}")


def _add_link(wb: Workbench, person: str, words: str) -> None:
    related = list(wb.profile.doc.meta.get("related") or [])
    if any(isinstance(r, dict) and r.get("person") == person for r in related):
        return
    wb.profile.doc.meta["related"] = [*related, {"person": person, "as": words}]
    wb.changes.append(f"+ profile related: {person} ({words})")


def apply_compression(wb: Workbench, result: Compressed) -> list[str]:
    """Replace MEMORY's three sections with the compressed ones, after checks:
    every hand-written line kept verbatim, every line citing a source."""
    problems = []
    new = {memory_fmt.FACTS: result.facts, memory_fmt.CHATS: result.chat_notes, memory_fmt.THREADS: result.threads}
    cleaned: dict[str, list[str]] = {}
    end_mark = re.compile(r"\((hand|told|import|log \d{4}-\d{2}-\d{2})\)$")
    for title, lines in new.items():
        cleaned[title] = []
        before = wb.memory.items(title)
        sources = {m.group(0) for old in before if (m := end_mark.search(old))}
        for line in lines:
            line = line.strip()
            line = line if line.startswith("- ") else f"- {line}"
            mark = end_mark.search(line)
            if not mark:
                problems.append(f"compressed line without a source: {line[:60]!r}")
            elif mark.group(0) == "(hand)" and not (line in before and wb.is_protected(line)):
                # a model-written "(hand)" would forge the user's protection
                problems.append(f"only the user's own lines end in (hand): {line[:60]!r}")
            elif mark.group(0) not in sources:
                problems.append(f"compressed line cites a source its section does not have: {line[:60]!r}")
            cleaned[title].append(line)
        for old in wb.memory.items(title):
            if wb.is_protected(old) and old not in cleaned[title]:
                problems.append(f"compression dropped a hand-written line: {old[:60]!r}")
    if not problems:
        for title, lines in cleaned.items():
            wb.memory.sections[title] = lines
        wb.changes.append("~ memory compressed to fit its budget")
    return problems
