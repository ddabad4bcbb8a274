"""Asking the model: a proposal on some log entries, applied to the
workbench (one corrected try after an invalid one, whose problems are
told to the model), and a compression of MEMORY.md when it is over its
budget. What the gardener and `tell` both call; nothing here writes files."""

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
from heartcompass.memory.proposal.workbench import LogItem, Workbench, restore, snapshot
from heartcompass.store.workspace import Workspace

EVENTS_SHOWN_TOKENS = 800
PROPOSAL_MAX_TOKENS = 2048  # a proposal is a handful of short lines; more is a runaway


def propose(ws: Workspace, model: Any, wb: Workbench, chunk: list[LogItem], images: Sequence[str] = ()) -> Proposal:
    """Ask for a proposal on these entries and apply it to wb; one corrected
    try after invalid output. images: data URLs shown with the entries."""
    from langchain_core.messages import HumanMessage, SystemMessage

    half_life = float(ws.config.get("memory.half_life_days"))
    shown = shown_events(wb, chunk, EVENTS_SHOWN_TOKENS, half_life)
    text = present(wb, chunk, shown)
    content: Any = text if not images else [{"type": "text", "text": text},
                                            *({"type": "image_url", "image_url": {"url": url}} for url in images)]
    user = str(ws.config.get("user.name") or "").strip() or "the user"
    messages = [SystemMessage(content=prompts.render(ws, "garden.md", name=wb.profile.name, user_name=user)),
                HumanMessage(content=content)]
    last_error: Exception | None = None
    for attempt in range(2):  # one corrected try after an invalid proposal
        try:
            raw = ask_structured(model, Proposal, messages, ws=ws, spec=proposal_schema(wb, chunk, shown),
                                 max_tokens=PROPOSAL_MAX_TOKENS)
            if isinstance(raw, Exception):
                raise raw
            proposal = raw if isinstance(raw, Proposal) else Proposal.model_validate(raw)
            before = snapshot(wb)
            try:
                apply(wb, proposal, chunk, shown, visual=bool(images))
            except ProposalError:
                restore(wb, before)
                raise
            close_past_threads(wb, entries_now(chunk, wb.today))
            return proposal
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
    if isinstance(last_error, ProposalError):
        raise ProposalError([f"the model's proposal was invalid twice ({'; '.join(last_error.problems)[:300]})"])
    if isinstance(last_error, TruncatedOutput):
        raise ProposalError([f"the model's proposal was invalid twice ({last_error})"])
    assert last_error is not None  # each of the two tries returned, raised or kept its error
    raise ProposalError([f"{bad_output(last_error)}, twice. {BAD_OUTPUT_FIX}"])  # in words, not the parser's


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
                                   max_tokens=2 * budget + 512)
        result = result if isinstance(result, Compressed) else Compressed.model_validate(result)
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
