"""The promises of memory/proposal's rules (issue 29, the part
memory/proposal/rules): what became of each line (verdicts), the schema's
limits enforced on our side, when the entries read count as consumed, and
what a rejected proposal tells the user. Each test builds what it needs in
memory (no model, no git, no workspace)."""

from __future__ import annotations

from heartcompass.memory.proposal.limits import LONGEST, compression_over_limits, over_limits
from heartcompass.memory.proposal.model import (MAX_TEXT, Compressed, Kept, Proposal, ProposalError, Removal,
                                                consumes, said_nothing)
from heartcompass.memory.proposal.schema import MAX_ITEMS
from heartcompass.memory.proposal.verdicts import Judge, Refused, Verdicts
from heartcompass.memory.questions import Question


def proposal(**lists) -> Proposal:
    return Proposal.model_validate({"summary": "consolidated", **lists})


def fact(text: str = "Alice moved to Berlin", evidence=("L1",)) -> dict:
    return {"text": text, "evidence": list(evidence)}


def question(what: str = "relation: friend → dating") -> Question:
    return Question("alice", "field", {"field": "relation", "value": "dating", "old": "friend"}, what)


# -- verdicts ---------------------------------------------------------------------------
def test_a_refused_line_is_listed_with_its_kind_statement_and_reasons():
    refused = Refused("new_facts", {"text": "x"}, ["r1", "r2"])
    shown = refused.as_dict()
    assert shown == {"kind": "new_facts", "statement": {"text": "x"}, "reasons": ["r1", "r2"]}
    shown["reasons"].append("later")  # garden.log's copy is its own
    assert refused.reasons == ["r1", "r2"]


def test_everything_refused_only_when_lines_were_refused_and_none_kept_or_asked():
    """A run of only refused lines waits for a later night; one with a kept or
    asked line, or with nothing refused, is not 'everything refused'."""
    no = Refused("new_facts", "x", ["r"])
    assert Verdicts(refused=[no]).everything_refused
    assert not Verdicts().everything_refused
    assert not Verdicts(kept=1, refused=[no]).everything_refused
    assert not Verdicts(refused=[no], asked=[question()]).everything_refused


def test_entries_are_consumed_by_a_kept_or_asked_line_or_an_outright_nothing():
    """The entries are marked read only when something came of them, or the
    model said there is nothing worth keeping and refused nothing."""
    no = Refused("new_facts", "x", ["r"])
    assert Verdicts(kept=1).consumes and Verdicts(asked=[question()]).consumes
    assert Verdicts(said_nothing=True).consumes
    assert not Verdicts(said_nothing=True, refused=[no]).consumes  # "nothing", yet it proposed a bad line
    assert not Verdicts().consumes and not Verdicts(refused=[no]).consumes
    assert Verdicts(kept=1, refused=[no]).consumes


def test_verdicts_of_chunks_add_up_per_person():
    one = Verdicts(kept=1, refused=[Refused("new_facts", "a", ["r"])], asked=[question("a")], summary="first",
                   kinds=["new_facts", "new_events"], answered=[Refused("new_events", "b", ["r"])])
    two = Verdicts(kept=2, refused=[Refused("new_events", "c", ["r"])], asked=[question("b")], summary="second",
                   said_nothing=True, kinds=["new_links"], answered=[Refused("new_links", "d", ["r"])])
    one.add(two)
    assert one.kept == 3 and [r.statement for r in one.refused] == ["a", "c"]
    assert [q.what for q in one.asked] == ["a", "b"]
    assert one.summary == "first\nsecond" and one.said_nothing
    assert one.kinds == ["new_facts", "new_events", "new_links"]
    assert [r.statement for r in one.answered] == ["b", "d"]
    assert one.counts() == "3 kept, 2 refused, 2 asked"
    empty = Verdicts()
    empty.add(Verdicts(summary="only"))
    assert empty.summary == "only" and not empty.said_nothing  # no blank line before it


def test_a_correction_answers_refused_lines_per_kind_and_keeps_what_it_kept_or_asked():
    """Each correction line answers one refused line of its kind: kept or
    asked, the first refusal is listed as corrected; refused again, only the
    new refusal stands; a refused line the correction left out stays refused."""
    first = Verdicts(kept=1, refused=[Refused("new_facts", "a", ["r1"]), Refused("new_facts", "b", ["r2"]),
                                      Refused("new_events", "c", ["r3"]), Refused("new_links", "d", ["r4"])],
                     kinds=["new_facts"] * 3 + ["new_events", "new_links"])
    again = Refused("new_facts", "b2", ["still wrong"])
    q = question()
    first.corrected(Verdicts(kept=1, refused=[again], asked=[q], kinds=["new_facts", "new_facts", "new_links"]))
    assert [r.statement for r in first.answered] == ["a", "d"]  # the fact kept, the link asked
    assert [r.statement for r in first.refused] == ["c", "b2"]
    assert first.kept == 2 and first.asked == [q]
    assert first.kinds == ["new_facts"] * 3 + ["new_events", "new_links", "new_facts", "new_facts", "new_links"]


def test_a_correction_that_refuses_every_answer_lists_no_line_as_corrected():
    first = Verdicts(refused=[Refused("new_facts", "a", ["r1"])], kinds=["new_facts"])
    first.corrected(Verdicts(refused=[Refused("new_facts", "a2", ["r2"])], kinds=["new_facts"]))
    assert first.answered == [] and [r.statement for r in first.refused] == ["a2"] and first.kept == 0


class _Checker:
    """What Judge asks of evidence.Checker: the problems so far."""

    def __init__(self):
        self.problems: list[str] = []


def test_a_statement_is_refused_with_the_problems_found_while_it_was_judged():
    ck, verdicts = _Checker(), Verdicts()
    j = Judge(ck, verdicts)
    ck.problems.append("an earlier statement's problem")
    start = j.start()
    assert start == 1
    ck.problems.append("new fact 1: 5000 does not appear")
    line = proposal(new_facts=[fact()]).new_facts[0]
    assert not j.passes(start, "new_facts", line, True)
    assert verdicts.refused == [Refused("new_facts", {"text": "Alice moved to Berlin", "evidence": ["L1"]},
                                        ["new fact 1: 5000 does not appear"])]
    assert verdicts.kinds == ["new_facts"]


def test_an_incomplete_statement_without_a_problem_is_refused_as_incomplete():
    ck, verdicts = _Checker(), Verdicts()
    j = Judge(ck, verdicts)
    assert not j.passes(j.start(), "removed_facts", "F9", None)
    assert verdicts.refused == [Refused("removed_facts", "F9", ["removed_facts: incomplete"])]
    assert j.passes(j.start(), "removed_facts", "F1", "log 2026-11-30")
    assert len(verdicts.refused) == 1 and verdicts.kinds == ["removed_facts", "removed_facts"]


def test_a_refused_statement_is_listed_without_its_empty_fields():
    """garden.log shows what the model wrote, not pydantic's defaults."""
    ck, verdicts = _Checker(), Verdicts()
    j = Judge(ck, verdicts)
    change = Proposal.model_validate({"summary": "s", "changed_events": [{"id": "E1", "weight": 0.5}]})
    j.passes(j.start(), "changed_events", change.changed_events[0], False)
    assert verdicts.refused[0].statement == {"id": "E1", "weight": 0.5, "evidence": []}


def test_a_kept_statement_is_counted_and_its_change_waits_until_all_are_judged():
    verdicts = Verdicts()
    j = Judge(_Checker(), verdicts)
    done: list[str] = []
    j.keep(lambda: done.append("x"))
    j.keep(lambda: done.append("y"))
    assert verdicts.kept == 2 and done == []
    for op in j.ops:
        op()
    assert done == ["x", "y"]
    q = question()
    j.ask(q)
    assert verdicts.asked == [q]


# -- when the entries read are consumed -------------------------------------------------
def test_a_proposal_consumes_its_entries_when_it_changes_something_or_says_there_is_nothing():
    assert consumes(proposal(new_facts=[fact()]))
    assert consumes(proposal(removed_facts=["F1"]))
    assert not consumes(proposal())  # an empty answer alone is not "nothing worth keeping"
    assert consumes(Proposal(summary="x", nothing_worth_keeping=True))
    assert consumes(Proposal(summary="Nothing new worth keeping"))


def test_nothing_worth_keeping_is_read_from_the_flag_or_the_summary_in_english_or_chinese():
    for summary in ("Nothing worth keeping.", "nothing new", "NO NEW INFORMATION here", "nothing else to record",
                    "没有什么值得记的", "无新信息"):
        assert said_nothing(Proposal(summary=summary)), summary
    assert said_nothing(Proposal(summary="Moved to Berlin", nothing_worth_keeping=True))
    assert not said_nothing(Proposal(summary="Moved to Berlin; there is nothing she fears"))


def test_a_bare_id_removal_is_a_removal_citing_nothing():
    """The older shape of removed_profile_notes (a bare id) is read, and cites no entry."""
    assert Removal.model_validate("P3") == Removal(id="P3", evidence=[])
    assert Removal.model_validate({"id": "P3", "evidence": ["L1"]}).evidence == ["L1"]


def test_a_rejected_proposal_says_every_problem_and_that_no_file_changed():
    error = ProposalError(["new fact 1: too long", "new event 1: no date"])
    assert str(error) == "new fact 1: too long; new event 1: no date"
    assert error.problems == ["new fact 1: too long", "new event 1: no date"]
    assert "No file was changed" in error.hint


# -- the schema's limits, on our side ---------------------------------------------------
def test_a_proposal_within_the_limits_has_no_problem():
    full = proposal(new_facts=[fact("x" * LONGEST, ["L1"] * MAX_ITEMS)] * MAX_ITEMS,
                    removed_facts=["F1"] * MAX_ITEMS, summary="s" * LONGEST)
    assert over_limits(full) == []


def test_a_list_over_the_limit_is_refused_by_its_size_alone():
    problems = over_limits(proposal(new_facts=[fact("x" * 5000)] * (MAX_ITEMS + 1)))
    assert problems == [f"new_facts: {MAX_ITEMS + 1} items; a proposal holds at most {MAX_ITEMS} per list"]
    assert over_limits(proposal(removed_facts=["F1"] * (MAX_ITEMS + 1))) == [
        f"removed_facts: {MAX_ITEMS + 1} items; a proposal holds at most {MAX_ITEMS} per list"]


def test_a_statement_citing_too_many_entries_or_too_long_is_refused_by_its_number():
    problems = over_limits(proposal(new_facts=[fact(), fact("y" * (LONGEST + 1), ["L1"] * (MAX_ITEMS + 1))]))
    assert problems == [f"new_facts 2: cites {MAX_ITEMS + 1} entries ({MAX_ITEMS} at most)",
                        f"new_facts 2: its text is {LONGEST + 1} characters ({MAX_TEXT} at most)"]
    assert over_limits(proposal(removed_facts=["F" * (LONGEST + 1)])) == [
        f"removed_facts 1: its id is {LONGEST + 1} characters ({MAX_TEXT} at most)"]
    assert over_limits(Proposal(summary="s" * (LONGEST + 1))) == [
        f"summary: {LONGEST + 1} characters ({MAX_TEXT} at most)"]


def kept(n: int, text: str = "Likes tea", lines=("F1",)) -> list[Kept]:
    return [Kept(text=text, lines=list(lines))] * n


def test_a_compression_over_its_limits_is_refused_per_section():
    assert compression_over_limits(Compressed(facts=kept(2), chat_notes=kept(2), threads=[], about_user=None), 2) == []
    result = Compressed(facts=kept(3), chat_notes=kept(1, "x" * (LONGEST + 1)),
                        threads=kept(1, lines=["T1"] * (MAX_ITEMS + 1)), about_user=kept(3))
    assert compression_over_limits(result, 2) == [
        "compressed facts: 3 lines (2 at most)", f"compressed chat_notes: a line over {LONGEST} characters",
        f"compressed threads: a line cites over {MAX_ITEMS} lines", "compressed about_user: 3 lines (2 at most)"]
    at_limit = Compressed(facts=kept(1, "x" * LONGEST, ["F1"] * MAX_ITEMS), chat_notes=[], threads=[])
    assert compression_over_limits(at_limit, 1) == []
