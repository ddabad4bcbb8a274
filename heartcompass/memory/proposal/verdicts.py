"""What became of each statement of a proposal: kept (applied to the
workbench), refused with its reasons, or asked (a Question for the user,
memory/questions.py). One record per chunk, merged per person by the
gardener; the summary is no statement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from heartcompass.memory.questions import Question

if TYPE_CHECKING:
    from heartcompass.memory.proposal.evidence import Checker


@dataclass
class Refused:
    kind: str               # the proposal's list it came from: "new_facts", "profile_fields"...
    statement: Any          # as the model wrote it (a dict, or an id for a removal)
    reasons: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "statement": self.statement, "reasons": list(self.reasons)}


@dataclass
class Verdicts:
    kept: int = 0
    refused: list[Refused] = field(default_factory=list)
    asked: list[Question] = field(default_factory=list)
    summary: str = ""
    said_nothing: bool = False  # the model said outright that the entries hold nothing worth keeping
    kinds: list[str] = field(default_factory=list)  # the kind of every statement judged (kept, asked, refused)
    answered: list[Refused] = field(default_factory=list)  # refused at first, then mended by the correction

    @property
    def everything_refused(self) -> bool:
        """Lines proposed, and none of them kept or asked: nothing usable."""
        return bool(self.refused) and not self.kept and not self.asked

    @property
    def consumes(self) -> bool:
        """Whether the entries read may be marked consolidated: something was
        kept or asked, or the model said there is nothing worth keeping."""
        return bool(self.kept or self.asked) or (self.said_nothing and not self.refused)

    def add(self, other: Verdicts) -> None:
        self.kept += other.kept
        self.refused += other.refused
        self.asked += other.asked
        self.summary = "\n".join(s for s in (self.summary, other.summary) if s)
        self.said_nothing = self.said_nothing or other.said_nothing
        self.kinds += other.kinds
        self.answered += other.answered

    def corrected(self, correction: Verdicts) -> None:
        """After the correction round: what it kept or asked is kept or asked;
        a refused line of ours stands for good unless the correction answered
        it. Counted per kind: each correction line kept, asked or refused
        answers one refused line of its kind; the ones the model left out are
        listed as they were, with their reasons (never silently dropped). A
        refused line whose answer was kept or asked is kept in `answered`
        (garden.log lists it as corrected); one answered by another refusal
        gives way to it."""
        answered: dict[str, int] = {}
        for kind in correction.kinds:
            answered[kind] = answered.get(kind, 0) + 1
        mended = dict(answered)  # answered by a line that was kept or asked
        for refused in correction.refused:
            mended[refused.kind] -= 1
        left_out = []
        for refused in self.refused:
            if answered.get(refused.kind, 0) > 0:
                answered[refused.kind] -= 1
                if mended[refused.kind] > 0:  # listed in garden.log still: what the first answer got wrong
                    mended[refused.kind] -= 1
                    self.answered.append(refused)
            else:
                left_out.append(refused)
        self.refused = [*left_out, *correction.refused]
        self.kept += correction.kept
        self.asked += correction.asked
        self.kinds += correction.kinds

    def counts(self) -> str:
        return f"{self.kept} kept, {len(self.refused)} refused, {len(self.asked)} asked"


class Judge:
    """Each statement's own verdict: the problems the checks added while it
    was judged are its reasons."""

    def __init__(self, ck: Checker, verdicts: Verdicts):
        self.ck, self.verdicts = ck, verdicts
        self.ops: list = []  # the kept statements' changes, applied once all are judged (ids stay right)

    def start(self) -> int:
        return len(self.ck.problems)

    def passes(self, start: int, kind: str, statement, complete) -> bool:
        """Whether the statement stands; if not, it is refused with its reasons."""
        self.verdicts.kinds.append(kind)
        if not self.ck.problems[start:] and not complete:
            self.ck.problems.append(f"{kind}: incomplete")
        reasons = self.ck.problems[start:]
        if reasons:
            said = statement.model_dump(exclude_none=True) if hasattr(statement, "model_dump") else statement
            self.verdicts.refused.append(Refused(kind, said, list(reasons)))
        return not reasons

    def keep(self, op) -> None:
        self.ops.append(op)
        self.verdicts.kept += 1

    def ask(self, question: Question) -> None:
        self.verdicts.asked.append(question)
