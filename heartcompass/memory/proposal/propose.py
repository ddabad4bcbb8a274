"""Asking the model: a proposal on some log entries, judged line by line
and applied to the workbench (one correction round for the refused lines
alone, one more try after an answer that could not be read), and a
compression of MEMORY.md when it is over its budget. What the gardener
and `tell` both call; nothing here writes files."""

from __future__ import annotations

from typing import Any, Sequence

from heartcompass.llm import prompts
from heartcompass.errors import LLMError
from heartcompass.llm.providers import (BAD_OUTPUT_FIX, TruncatedOutput, ask_structured, bad_output,
                                        structured_invoke)
from heartcompass.memory.proposal.apply import apply, close_past_threads
from heartcompass.memory.proposal.compression import apply_compression
from heartcompass.memory.proposal.model import Compressed, Proposal, ProposalError
from heartcompass.memory.proposal.presentation import entries_now, present, present_memory, shown_events
from heartcompass.memory.proposal.schema import compressed_max_items, compressed_schema, proposal_schema
from heartcompass.memory.proposal.verdicts import Verdicts
from heartcompass.memory.proposal.workbench import LogItem, Workbench, restore, snapshot
from heartcompass.store.workspace import Workspace
from heartcompass.tokens import estimate_tokens

EVENTS_SHOWN_TOKENS = 800
PROPOSAL_MIN_TOKENS = 2048  # the least an answer may take: a handful of short lines
PROPOSAL_MAX_TOKENS = 16384  # and the most, whatever the chunk: more is a runaway


def answer_bound(chunk: Sequence[LogItem]) -> int:
    """Room to answer grows with what there is to read: a statement restates
    its entries in fewer words, but JSON, ids and a Chinese chunk's one token a
    character take room (60 Chinese entries needed more than 2,048)."""
    read = sum(estimate_tokens(i.entry.text) for i in chunk)
    return max(PROPOSAL_MIN_TOKENS, min(PROPOSAL_MAX_TOKENS, 1024 + 2 * read + 48 * len(chunk)))


class ChunkTooLong(ProposalError):
    """The answer was cut at its bound: the caller splits the chunk in two."""


def propose(ws: Workspace, model: Any, wb: Workbench, chunk: list[LogItem], images: Sequence[str] = (),
            asking: bool = True) -> Verdicts:
    """Ask for a proposal on these entries and apply what is kept of it to
    wb (each line judged on its own, see apply.py). The refused lines go back
    once, alone, with their reasons and the files as they now are; what the
    correction gets kept is kept, the rest is refused for good. Raises
    ProposalError when no answer could be read twice, and ChunkTooLong when
    an answer on several entries was cut at its bound. images: data URLs
    shown with the entries."""
    from langchain_core.messages import HumanMessage, SystemMessage

    half_life = float(ws.config.get("memory.half_life_days"))
    user = str(ws.config.get("user.name") or "").strip() or "the user"
    system = SystemMessage(content=prompts.render(ws, "garden.md", name=wb.profile.name, user_name=user))

    def request(shown: list) -> HumanMessage:
        text = present(wb, chunk, shown)
        return HumanMessage(content=text if not images else [
            {"type": "text", "text": text}, *({"type": "image_url", "image_url": {"url": url}} for url in images)])

    def judged(proposal: Proposal, shown: list) -> Verdicts:
        before = snapshot(wb)
        try:
            return apply(wb, proposal, chunk, shown, visual=bool(images), asking=asking)
        except ProposalError:
            restore(wb, before)
            raise

    shown = shown_events(wb, chunk, EVENTS_SHOWN_TOKENS, half_life)
    messages = [system, request(shown)]
    bound = answer_bound(chunk)
    last_error: Exception | None = None
    verdicts: Verdicts | None = None
    for attempt in range(2):  # one more try after an answer that could not be read or used at all
        try:
            verdicts = judged(_answer(ws, model, messages, wb, chunk, shown, bound), shown)
            break
        except TruncatedOutput as exc:
            if len(chunk) > 1:
                raise ChunkTooLong([str(exc)]) from None
            last_error = exc
            messages = [*messages, HumanMessage(content=f"That answer was cut off ({exc}). Send a shorter proposal: "
                                                        "the lines that matter most.")]
        except ProposalError as exc:
            last_error = exc
            messages = [*messages, HumanMessage(content="That proposal was rejected: " + "; ".join(
                exc.problems) + ". Send a corrected proposal.")]
        except LLMError:
            raise
        except Exception as exc:  # unparsable or schema-violating output
            last_error = exc
            messages = [*messages, HumanMessage(content=f"That output could not be read ({type(exc).__name__}). "
                                                        "Answer with the JSON proposal only.")]
    if verdicts is None:
        if isinstance(last_error, (ProposalError, TruncatedOutput)):
            said = "; ".join(last_error.problems) if isinstance(last_error, ProposalError) else str(last_error)
            raise ProposalError([f"the model's proposal was invalid twice ({said[:300]})"])
        assert last_error is not None  # each of the two tries returned, raised or kept its error
        raise ProposalError([f"{bad_output(last_error)}, twice. {BAD_OUTPUT_FIX}"])  # in words, not the parser's
    if verdicts.refused and attempt == 0:
        shown = shown_events(wb, chunk, EVENTS_SHOWN_TOKENS, half_life)  # after the kept lines: ids as they are now
        correction = [system, request(shown), HumanMessage(content=correction_request(verdicts))]
        try:
            verdicts.corrected(judged(_answer(ws, model, correction, wb, chunk, shown, bound), shown))
        except LLMError:
            raise
        except Exception as exc:  # unreadable, cut off or over the limits: the refused stay refused
            for refused in verdicts.refused:
                refused.reasons.append(f"its correction was not usable ({bad_output(exc) if not isinstance(exc, ProposalError) else exc})")
    close_past_threads(wb, entries_now(chunk, wb.today))
    return verdicts


def correction_request(verdicts: Verdicts) -> str:
    """The refused lines alone, each with why: the others are in the files shown above."""
    lines = "\n".join(f"- {r.line()}" for r in verdicts.refused)
    return (f"Your proposal on these entries was applied except {len(verdicts.refused)} line(s), rejected "
            f"with these reasons:\n{lines}\nThe files above are as they are now, with the lines that were "
            "kept (ids as shown above). Send a proposal with only these lines corrected, citing the entries "
            "that say them; leave out any line the entries do not support.")


def _answer(ws: Workspace, model: Any, messages: list, wb: Workbench, chunk: list[LogItem], shown: list,
            bound: int) -> Proposal:
    raw = ask_structured(model, Proposal, messages, ws=ws, spec=proposal_schema(wb, chunk, shown), max_tokens=bound)
    if isinstance(raw, Exception):
        raise raw
    return raw  # a Proposal: structured_invoke validated it, once


def fit_budget(ws: Workspace, model: Any, wb: Workbench) -> None:
    """Compress MEMORY.md with the model when it is over its budget."""
    from langchain_core.messages import HumanMessage, SystemMessage

    budget = wb.memory.budget_tokens
    if wb.memory.body_tokens() <= budget:
        return
    messages = [SystemMessage(content=prompts.render(ws, "garden_compress.md", budget=budget)),
                HumanMessage(content=present_memory(wb))]
    try:
        result = structured_invoke(model, Compressed, messages, ws=ws, spec=compressed_schema(wb),
                                   max_tokens=2 * budget + 512)  # a Compressed, validated there
    except Exception as exc:
        raise ProposalError([f"MEMORY.md is over its budget ({wb.memory.body_tokens()} > {budget} tokens) "
                             f"and compressing it failed: {exc}"]) from None
    before, tokens = snapshot(wb), wb.memory.body_tokens()
    problems = apply_compression(wb, result, compressed_max_items(budget))
    if not problems and wb.memory.body_tokens() > budget:
        problems = [f"it is still over budget ({wb.memory.body_tokens()} > {budget} tokens)"]
    if problems:
        restore(wb, before)
        raise ProposalError([f"MEMORY.md is over its budget ({tokens} > {budget} tokens) and the model's "
                             f"compression was rejected, so it stays as it was: {'; '.join(problems)}"])
