"""Who may support what: the trust policy in one table. Each log entry has a
Source (who wrote it: the user, a /note, a note `coach --save` relayed, either
side of an import, a group's context line, the simulated persona); each
statement the model proposes makes a Claim (a fact, an event, a line about
the user...). SUPPORTS says which sources may support each claim, and
whether every entry cited must be one of them or one is enough. Every check
of the proposal machinery asks this table (evidence.py, schema.py, apply.py,
presentation.py) and so does the prompt's list of pending notes (user_side.py);
none decides by a speaker's name of its own. The lines already in the files
have a Mark (their closing marker): which may support a statement alone, and
which are the user's own, the gardener asks about before changing them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from heartcompass.formats import dailylog
from heartcompass.formats.sources import MARKER


class Source(Enum):
    """Who wrote a log entry."""
    USER_CHAT = "the user's own chat message"                    # speaker me
    NOTE = "a /note or a narrative the user told"                # speaker note
    COACH_NOTE = "a message `coach --save` relayed"              # speaker note, tagged coach: another's words
    USER_IMPORT = "the user's side of an imported chat"          # speaker import:me
    OTHER_IMPORT = "someone else's message in an imported chat"  # speaker import:<who>
    GROUP_CONTEXT = "another group member's line, for context"   # speaker context:<who>
    PERSONA = "the simulated persona's reply"                    # speaker persona
    OTHER = "a speaker we do not know"                           # never trusted


def source_of(entry: dailylog.Entry) -> Source:
    speaker = entry.speaker
    if speaker == "me":
        return Source.USER_CHAT
    if speaker == "note":
        return Source.COACH_NOTE if dailylog.COACH_TAG in entry.tags else Source.NOTE
    if speaker == "import:me":
        return Source.USER_IMPORT
    if speaker.startswith("import:"):
        return Source.OTHER_IMPORT
    if speaker.startswith("context:"):
        return Source.GROUP_CONTEXT
    return Source.PERSONA if speaker == "persona" else Source.OTHER


# Real words of real people: what the user said or noted, and both sides of a real conversation.
TRUSTED = frozenset({Source.USER_CHAT, Source.NOTE, Source.COACH_NOTE, Source.USER_IMPORT, Source.OTHER_IMPORT})
# The user's own words about their own life: not a relayed message of someone else's, never the persona.
USERS_OWN = frozenset({Source.USER_CHAT, Source.NOTE, Source.USER_IMPORT})
UNTRUSTED = frozenset(Source) - TRUSTED


class Claim(Enum):
    """What a statement of a proposal claims."""
    EVENT = "an event, new or corrected"
    FACT = "a fact about the person"
    CHAT_NOTE = "what the persona said in a simulated chat"
    THREAD = "an open thread, as proposed"
    FOLLOW_UP = "an open thread kept as one to follow up (else it is kept as a chat note)"
    ABOUT_ME = "a line about the user's own life"
    PROFILE_FIELD = "a profile field: relation, gender, birthday, alias, tag, MBTI"
    PROFILE_NOTE = "a line of a profile section, new or rewritten"
    REMOVAL = "a profile line removed"
    LINK = "who another person is to this one"
    MENTION = "someone in their life"


@dataclass(frozen=True)
class Rule:
    sources: frozenset[Source]  # who may support the claim
    every: bool = True          # every cited entry must be one of them; False: one is enough, the rest is context
    offered: frozenset[Source] | None = None  # what the schema lets the model cite, when not `sources`
    refusal: str = ""           # the reason a statement is refused, for the model's corrected try

    def may_cite(self, source: Source) -> bool:
        return source in (self.sources if self.offered is None else self.offered)


_FROM_TRUSTED = Rule(TRUSTED, refusal="rests on what the simulated persona said; facts and events come only from "
                                      "entries marked trusted (put it in new_chat_notes instead)")
SUPPORTS: dict[Claim, Rule] = {
    Claim.EVENT: _FROM_TRUSTED,
    Claim.FACT: _FROM_TRUSTED,
    Claim.PROFILE_FIELD: _FROM_TRUSTED,
    Claim.PROFILE_NOTE: _FROM_TRUSTED,
    Claim.REMOVAL: _FROM_TRUSTED,
    Claim.LINK: _FROM_TRUSTED,
    Claim.MENTION: _FROM_TRUSTED,
    Claim.FOLLOW_UP: _FROM_TRUSTED,
    Claim.THREAD: Rule(frozenset(Source)),
    Claim.ABOUT_ME: Rule(USERS_OWN, refusal="what the user told about their own life rests only on the user's own "
                                            "entries (trusted: the user, a note, their side of an import); never on "
                                            "what the persona or someone else said"),
    Claim.CHAT_NOTE: Rule(frozenset({Source.PERSONA}), every=False, offered=UNTRUSTED,
                          refusal="chat notes record what the persona said; cite a persona entry"),
}


def may_support(source: Source, claim: Claim) -> bool:
    """Whether an entry from `source` may be (one of) the support of `claim`."""
    return source in SUPPORTS[claim].sources


def supported(claim: Claim, sources: Iterable[Source]) -> bool:
    """Whether the entries a statement cites (by source) may support its
    claim: all of them, or for a rule of `every=False` at least one (citing
    no entry, only existing lines, is judged by those lines)."""
    rule, cited = SUPPORTS[claim], list(sources)
    if rule.every:
        return all(s in rule.sources for s in cited)
    return not cited or any(s in rule.sources for s in cited)


def refusal(claim: Claim, sources: Iterable[Source]) -> str:
    """Why entries of these sources may not support the claim, or ""."""
    return "" if supported(claim, sources) else SUPPORTS[claim].refusal


def trusted_only(claim: Claim) -> bool:
    """Whether the claim rests only on trusted entries (a fact, never a past
    thread's plan alone unless the plan is kept as what it said)."""
    rule = SUPPORTS[claim]
    return rule.every and rule.sources <= TRUSTED


# What someone else wrote in a real chat is what they said, not a verified truth: a fact resting only on
# it reads as such (evidence.reported).
HEARSAY = frozenset({Source.OTHER_IMPORT})
# A note is already the user's statement: it may be kept as written. Every other entry is chat text,
# which is not pasted into a file, and a relayed message is not even restated closely (evidence.Checker).
KEPT_AS_WRITTEN = frozenset({Source.NOTE})
RELAYED = frozenset({Source.COACH_NOTE})


def hearsay(sources: Iterable[Source]) -> bool:
    """Whether a statement rests only on what others wrote in real chats."""
    cited = list(sources)
    return bool(cited) and all(s in HEARSAY for s in cited)


# How the model is shown each entry (presentation.py): what it may rest on.
SHOWN_AS = {
    Source.USER_CHAT: "trusted: the user",  # the user's own words: what about_user lines may cite
    Source.USER_IMPORT: "trusted: the user",
    Source.NOTE: "trusted",
    Source.COACH_NOTE: "trusted",
    Source.OTHER_IMPORT: "trusted",
    Source.GROUP_CONTEXT: "context only: another group member's line, not this person's words",
    Source.PERSONA: "UNTRUSTED: said by the simulated persona",
    Source.OTHER: "UNTRUSTED: said by the simulated persona",
}


# -- the lines already in the files ------------------------------------------------------
class Mark(Enum):
    """Whose an existing line is, by its closing marker (formats/sources.py)."""
    LOG = "log"        # the gardener wrote it from a day's log: "(log 2026-03-02)"
    IMPORT = "import"  # from an imported chat or card: unverified
    TOLD = "told"      # what the user told (`tell`, or their Yes to a told line's change)
    HAND = "hand"      # the user wrote it


def marker(line: str) -> tuple[Mark, str] | None:
    """(the line's Mark, its marker's text: "log 2026-03-02"), or None."""
    m = MARKER.search(line.rstrip())
    if m is None:
        return None
    text = m.group(0)[1:-1]
    return Mark(text.split(" ")[0]), text


def mark_of(line: str) -> Mark | None:
    found = marker(line)
    return found[0] if found else None


# The lines a statement may rest on alone (they lend their details to any statement citing them): never a
# hand-written one, whose words are the user's and stay theirs, not restated as the gardener's.
LINES_SUPPORT = frozenset({Mark.LOG, Mark.IMPORT, Mark.TOLD})
# A statement resting on an unverified line is unverified too: it is marked '(import)'.
UNVERIFIED = frozenset({Mark.IMPORT})
# The user's own lines, and why the gardener asks before it rewrites or removes one (asking.py); a
# compression keeps them (compression.py): a hand-written one word for word, a told one in substance.
THE_USERS = {Mark.HAND: "you wrote this line by hand", Mark.TOLD: "you told this"}
