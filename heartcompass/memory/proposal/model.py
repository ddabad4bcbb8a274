"""What the model fills in: a Proposal (changes to one person's PROFILE.md,
EVENTS.md and MEMORY.md, each naming lines by id and citing the log entries
it rests on) and Compressed (MEMORY.md rewritten shorter); ProposalError
when one is rejected, and whether a proposal consumes the entries shown."""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import BaseModel, Field, model_validator

from heartcompass.errors import HeartCompassError

MAX_TEXT = 200
# The existing lines (by id prefix) a statement may rest on besides new entries: a rewrite carries its
# line's details forward and merges others of its kind; a past thread's plan may become a new fact.
CITES = {"facts": "FT", "chat_notes": "C", "threads": "TF", "about_user": "U", "profile_notes": "PF"}
CITES_NEW = {"facts": "T", "chat_notes": "", "threads": "", "about_user": "", "profile_notes": ""}


# -- the schema the model fills ---------------------------------------------
class NewEvent(BaseModel):
    date: str = Field(description="when it happened (or is planned): YYYY-MM-DD; YYYY-MM when only the month is "
                                  "known, YYYY when only the year; ~ first when approximate (~YYYY-MM-DD, ~YYYY-MM "
                                  "for a season). Relative times count from the date of the entry that says them, "
                                  "and the date must be one its entries say (their day, or what they mean)")
    text: str = Field(description="one short statement, at most 25 words, no quotes of the chat")
    weight: float = Field(description="how much it matters: 0 trivial .. 1 life-changing")
    evidence: list[str] = Field(description="ids of the log entries it comes from, e.g. ['L3']")


class EventChange(BaseModel):
    id: str = Field(description="id of an existing event, e.g. 'E2'")
    weight: Optional[float] = Field(None, description="new weight; raise it when the event is mentioned again")
    text: Optional[str] = Field(None, description="corrected text, only when the new entries correct it")
    date: Optional[str] = Field(None, description="corrected date, only when the new entries say it (as new_events)")
    evidence: list[str] = Field(default_factory=list)


class Line(BaseModel):
    text: str = Field(description="one short statement, at most 25 words")
    evidence: list[str] = Field(description="ids of the log entries it comes from")


class Rewrite(BaseModel):
    id: str = Field(description="id of the existing line, e.g. 'F2'")
    text: str = Field(description="the corrected statement (newer information wins), keeping the details of the "
                                  "lines it replaces")
    evidence: list[str] = Field(description="ids of the log entries and of the existing lines it rests on: cite "
                                            "the line itself (e.g. 'F2') to carry its details forward, and the "
                                            "other lines it merges (then remove those)")


class NewThread(Line):
    until: Optional[str] = Field(None, description="YYYY-MM-DD or YYYY-MM: when its time has passed (a plan for "
                                                   "summer 2023: 2023-08); null when it has no end")


class ThreadRewrite(Rewrite):
    until: Optional[str] = Field(None, description="YYYY-MM-DD or YYYY-MM: when its time has passed; null: none")


class FieldChange(BaseModel):
    field: Literal["relation", "mbti", "gender", "birthday", "alias", "tag"]
    value: str = Field(description="new value; for alias and tag, one item to add")
    evidence: list[str]


class SectionNote(BaseModel):
    section: str = Field(description="PROFILE.md section: Personality, How they talk, Likes, Dislikes, "
                                     "Boundaries or Background")
    text: str = Field(description="one short statement to add to that section")
    evidence: list[str]


class Removal(BaseModel):
    id: str = Field(description="id of the line, e.g. 'P3'")
    evidence: list[str] = Field(description="ids of the new log entries that say it no longer holds")

    @model_validator(mode="before")
    @classmethod
    def _bare_id(cls, value):
        """A bare id (the older shape) is a removal that cites nothing, and is refused as such."""
        return {"id": value, "evidence": []} if isinstance(value, str) else value


class Link(BaseModel):
    person: str = Field(description="slug of a known person")
    relation_words: str = Field(description="who they are to this person, e.g. 'her brother'")
    evidence: list[str]


class NewMention(BaseModel):
    name: str = Field(description="the name they use for someone in their life who is not a known person, e.g. "
                                  "'Sara'; 'my daughter' only when no name is said")
    role: str = Field(description="who they are to this person: daughter, colleague, dog, 同事…")
    aliases: list[str] = Field(default_factory=list, description="other names said for the same one: 'my "
                                                                 "daughter', '小女儿', a nickname")
    notes: list[str] = Field(default_factory=list, description="a few short notes about them, from the entries")
    evidence: list[str] = Field(description="ids of the trusted log entries that name them")


class MentionChange(BaseModel):
    id: str = Field(description="id of a line of People in their life, e.g. 'M2'")
    role: Optional[str] = Field(None, description="who they are, when the line has none yet")
    aliases: list[str] = Field(default_factory=list, description="names to add")
    notes: list[str] = Field(default_factory=list, description="short notes to add")
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
    new_about_user: list[Line] = Field(default_factory=list,
                                       description="what the user told about their own life (their family, work, "
                                                   "plans, news): only from the user's own entries")
    rewritten_about_user: list[Rewrite] = Field(default_factory=list)
    removed_about_user: list[str] = Field(default_factory=list)
    new_threads: list[NewThread] = Field(default_factory=list, description="things to follow up on")
    rewritten_threads: list[ThreadRewrite] = Field(default_factory=list)
    closed_threads: list[str] = Field(default_factory=list, description="ids of threads now resolved or past")
    profile_fields: list[FieldChange] = Field(default_factory=list)
    profile_notes: list[SectionNote] = Field(default_factory=list)
    rewritten_profile_notes: list[Rewrite] = Field(default_factory=list, description="profile lines (P ids) "
                                                                                      "corrected or merged")
    removed_profile_notes: list[Removal] = Field(default_factory=list, description="profile lines no longer true, "
                                                                                   "each with the entries that say so")
    new_links: list[Link] = Field(default_factory=list)
    new_mentions: list[NewMention] = Field(default_factory=list, description="people they mention who are not "
                                           "known people: one line each in People in their life (someone already "
                                           "listed, by any name: changed_mentions)")
    changed_mentions: list[MentionChange] = Field(default_factory=list)
    removed_mentions: list[str] = Field(default_factory=list, description="ids of People in their life lines "
                                                                           "no longer true")
    nothing_worth_keeping: bool = Field(False, description="true only when the new entries hold nothing worth "
                                                           "keeping; then every list stays empty")


_NOTHING_SAID = re.compile(r"nothing (new |else |here )?(worth|to) (keep|record|add|note|remember)|nothing new|"
                           r"no new (information|facts|details)|没有(什么)?(值得|新)|无新", re.I)


def consumes(proposal: Proposal) -> bool:
    """Whether the entries shown may be marked consolidated: the proposal
    changes something, or the model said outright there is nothing worth
    keeping (the flag, or its summary). An empty answer alone is not that."""
    changes = any(value for name, value in proposal if isinstance(value, list))
    return changes or said_nothing(proposal)


def said_nothing(proposal: Proposal) -> bool:
    """The model said outright there is nothing worth keeping (the flag, or its summary)."""
    return proposal.nothing_worth_keeping or bool(_NOTHING_SAID.search(proposal.summary))


class Kept(BaseModel):
    text: str = Field(description="the line shortened, or several merged: names, dates, numbers and what they "
                                  "love, fear or plan kept; no source")
    lines: list[str] = Field(description="ids of the lines of its own section it keeps or merges, e.g. ['F1', 'F4']")


class Compressed(BaseModel):
    """MEMORY.md rewritten shorter: each line names the lines it keeps or
    merges (their ids), and its source is derived from theirs, by us; lines
    the user wrote by hand are kept as they are, without asking."""
    facts: list[Kept]
    chat_notes: list[Kept]
    threads: list[Kept]
    # None (left out): the About me section stays as it is, so a model that
    # omits it never empties what the user told
    about_user: Optional[list[Kept]] = None


class ProposalError(HeartCompassError):
    """The model's output was rejected; nothing was written."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems), "No file was changed. Run it again, or try a more capable model.")
        self.problems = problems

    def __str__(self) -> str:
        return self.message

