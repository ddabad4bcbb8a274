"""The schema's limits, enforced on our side before anything is applied: a
model that ignores `maxItems` (or a provider that does not send the schema)
gets its answer refused at once, in time linear in its size, not matched line
against line for minutes while the lock is held."""

from __future__ import annotations

from pydantic import BaseModel

from heartcompass.memory.proposal.model import MAX_TEXT, Compressed, Proposal
from heartcompass.memory.proposal.schema import MAX_ITEMS

LONGEST = MAX_TEXT + 40  # the schema's longest string (a compressed line); ck.text holds statements to MAX_TEXT


def _too_long(value: object, limit: int) -> bool:
    return isinstance(value, str) and len(value) > limit


def over_limits(proposal: Proposal) -> list[str]:
    """What of the proposal is over the schema's limits (list sizes, evidence
    lists, text lengths); empty when none is."""
    problems = []
    if _too_long(proposal.summary, LONGEST):
        problems.append(f"summary: {len(proposal.summary)} characters ({MAX_TEXT} at most)")
    for name, value in proposal:
        if not isinstance(value, list):
            continue
        if len(value) > MAX_ITEMS:
            problems.append(f"{name}: {len(value)} items; a proposal holds at most {MAX_ITEMS} per list")
            continue
        for n, item in enumerate(value, 1):
            fields = dict(item) if isinstance(item, BaseModel) else {"id": item}
            if len(fields.get("evidence") or ()) > MAX_ITEMS:
                problems.append(f"{name} {n}: cites {len(fields['evidence'])} entries ({MAX_ITEMS} at most)")
            for key, text in fields.items():
                if _too_long(text, LONGEST):
                    problems.append(f"{name} {n}: its {key} is {len(text)} characters ({MAX_TEXT} at most)")
    return problems


def compression_over_limits(result: Compressed, max_items: int) -> list[str]:
    problems = []
    for name in ("facts", "chat_notes", "threads", "about_user"):
        lines = getattr(result, name) or []  # about_user may be left out (None)
        if len(lines) > max_items:
            problems.append(f"compressed {name}: {len(lines)} lines ({max_items} at most)")
        elif any(_too_long(getattr(line, "text", line), LONGEST) for line in lines):
            problems.append(f"compressed {name}: a line over {LONGEST} characters")
        elif any(len(getattr(line, "lines", ())) > MAX_ITEMS for line in lines):
            problems.append(f"compressed {name}: a line cites over {MAX_ITEMS} lines")
    return problems
