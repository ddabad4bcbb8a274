"""A verdict for each line (issue 27, parts 1, 2 and 5): a proposal's good
lines are kept when others are refused; each refused line is listed with
its reasons (garden.log, --review, --json, tell); what changes who someone
is waits in questions.json; a chunk whose answer is cut at its bound is
split in two; a proposal of only refused lines leaves its entries for a
later night, until it has been refused on three days."""

from __future__ import annotations

import datetime as dt
import json

from conftest import Runner, git, subjects
from garden_helpers import consolidated, events, memory, proposal, questions, say, user_prompt
from heartcompass.formats import memory as memory_fmt, profile as profile_fmt

GOOD_FACT = {"text": "Lent the user 500 euros for the deposit", "evidence": ["L1"]}
BAD_FACT = {"text": "Lent the user 5000 euros", "evidence": ["L1"]}
GOOD_EVENT = {"date": "2026-12-01", "text": "Lent the user money for the flat deposit", "weight": 0.6,
              "evidence": ["L1"]}


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def garden_log(ws) -> list[str]:
    return (ws.state_dir / "garden.log").read_text(encoding="utf-8").splitlines()


def run_line(ws, slug="alice") -> str:
    """The person's line of the last run in garden.log."""
    return next(line for line in reversed(garden_log(ws)) if line.split()[1:2] == [slug]
                and line.split()[2] not in ("refused", "corrected"))


class LengthFinishReasonError(Exception):
    """What the OpenAI SDK raises when an answer hits max_tokens (matched by its name)."""


def test_one_refused_line_among_good_ones_keeps_the_good_ones(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "me", "she lent me money for the flat deposit, 500 euros")
    fake_llm.enqueue(proposal(new_facts=[GOOD_FACT, BAD_FACT], new_events=[GOOD_EVENT]),
                     proposal(new_facts=[BAD_FACT]))  # the correction refused again: refused for good
    result = alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)
    assert "- Lent the user 500 euros for the deposit (log 2026-12-01)" in facts
    assert not any("5000" in f for f in facts)
    assert any(e.text == GOOD_EVENT["text"] for e in events(ws))
    assert subjects(ws)[0].startswith("garden(alice): 1 new event") and git(ws, "status", "--porcelain") == ""
    assert consolidated(ws) == {"2026-12-01": 1}  # the good lines consume the entries
    row = next(line for line in result.output.splitlines() if line.startswith("alice "))
    assert row.split()[1:3] == ["gardened", "1"] and row.split()[-4:-1] == ["2", "1", "0"]  # kept refused asked
    assert "garden.log" in result.output
    # the correction request carries only the refused line, with its reason, and the files as they now are
    correction = user_prompt(fake_llm, "garden.correction")
    assert "5000 does not appear in the entries it cites (L1)" in correction
    assert "Lent the user 5000 euros" in correction and "Lent the user money for the flat deposit" not in \
        correction.split("rejected")[-1]
    assert "F4 - Lent the user 500 euros for the deposit (log 2026-12-01)" in fake_llm.request("garden.correction").turns[0]
    # garden.log: the person's run line, then one greppable line per refused line with its reason
    log = garden_log(ws)
    run = next(i for i, line in enumerate(log) if " alice gardened " in line)
    assert "kept=2 refused=1 asked=0" in log[run]
    refused = log[run + 1]
    assert " alice refused new_facts " in refused and '"Lent the user 5000 euros"' in refused
    assert refused.endswith("-- new fact 1: 5000 does not appear in the entries it cites (L1); numbers, amounts and "
                            "dates must come from them")


def test_the_correction_gets_a_refused_line_kept(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "me", "she lent me money for the flat deposit, 500 euros")
    fake_llm.enqueue(proposal(new_facts=[BAD_FACT], new_events=[GOOD_EVENT]), proposal(new_facts=[GOOD_FACT]))
    result = alice("garden")
    assert "- Lent the user 500 euros for the deposit (log 2026-12-01)" in memory(ws).items(memory_fmt.FACTS)
    assert "refused=0" in run_line(ws) and "kept=2" in run_line(ws)
    assert "Refused lines" not in result.output


def test_a_line_refused_then_corrected_is_still_listed_in_garden_log(alice: Runner, fake_llm):
    """What the first answer got wrong stays greppable (a prompt's misses), marked `corrected`, not `refused`."""
    ws = alice.ws
    say(ws, "alice", "me", "she lent me money for the flat deposit, 500 euros")
    fake_llm.enqueue(proposal(new_facts=[BAD_FACT], new_events=[GOOD_EVENT]), proposal(new_facts=[GOOD_FACT]))
    assert "Lent the user 500 euros" in alice("garden", "--json").output
    log = garden_log(ws)
    run = next(i for i, line in enumerate(log) if " alice gardened " in line)
    assert "kept=2 refused=0" in log[run]
    assert " alice corrected new_facts " in log[run + 1] and '"Lent the user 5000 euros"' in log[run + 1]
    assert "5000 does not appear in the entries it cites (L1)" in log[run + 1]
    assert not any(" alice refused " in line for line in log)  # the corrected line is no refusal


def test_what_changes_who_someone_is_is_asked_and_changes_no_file(alice: Runner, fake_llm):
    ws = alice.ws
    alice("person", "add", "Bob", "--yes")
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text().replace("## Facts\n\n", "## Facts\n\n- Works at Mercari\n"))
    git(ws, "commit", "-qam", "my own line")
    say(ws, "alice", "me", "we are dating now! her birthday is May 3, she goes by Ali, "
                           "Bob is her brother, she left Mercari, she likes matcha, she talks about her ex now")
    prof = profile_fmt.load(ws.people_dir / "alice" / "PROFILE.md")
    pids = {line: f"P{i}" for i, (_, line) in enumerate(prof.notes(), 1)}
    bounds = next(line for sec, line in prof.notes() if sec == "Boundaries")
    before = files(ws)
    fake_llm.enqueue(proposal(
        profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]},
                        {"field": "birthday", "value": "05-03", "evidence": ["L1"]},
                        {"field": "alias", "value": "Ali", "evidence": ["L1"]}],
        new_links=[{"person": "bob", "relation_words": "her brother", "evidence": ["L1"]}],
        rewritten_facts=[{"id": "F1", "text": "Left Mercari", "evidence": ["L1"]}],
        rewritten_profile_notes=[{"id": pids[bounds], "text": "Likes matcha", "evidence": ["L1"]}],
        removed_profile_notes=[{"id": pids[bounds], "evidence": ["L1"]}]))  # a removal names its evidence
    result = alice("garden")
    assert files(ws) == before and not any(s.startswith("garden(") for s in subjects(ws))  # no file changed
    asked = {(q["kind"], json.dumps(q["change"], sort_keys=True)) for q in questions(ws)}
    assert ("field", json.dumps({"field": "relation", "value": "dating", "old": "friend"}, sort_keys=True)) in asked
    assert ("field", json.dumps({"field": "birthday", "value": "05-03", "old": "1996-04-12"},
                                sort_keys=True)) in asked
    assert ("alias", json.dumps({"value": "Ali"})) in asked
    assert ("link", json.dumps({"person": "bob", "words": "her brother"}, sort_keys=True)) in asked
    assert ("rewrite", json.dumps({"file": "MEMORY.md", "section": memory_fmt.FACTS, "old": "- Works at Mercari",
                                   "new": "- Left Mercari (log 2026-12-01)"}, sort_keys=True)) in asked
    assert ("rewrite", json.dumps({"file": "PROFILE.md", "section": "Boundaries", "old": bounds,
                                   "new": "- Likes matcha (log 2026-12-01)"}, sort_keys=True)) in asked
    assert ("removal", json.dumps({"file": "PROFILE.md", "section": "Boundaries", "old": bounds},
                                  sort_keys=True)) in asked
    assert len(asked) == 7
    q = next(q for q in questions(ws) if q["kind"] == "link")
    assert q["evidence"] == [{"day": "2026-12-01", "time": "20:00:00", "speaker": "me",
                              "text": "we are dating now! her birthday is May 3, she goes by Ali, Bob is her brother, "
                                      "she left Mercari, she likes matcha, she talks about her ex now"}]
    assert consolidated(ws) == {"2026-12-01": 1}  # asked is an answer: the entries are read
    assert "asked=7" in run_line(ws) and "heartcompass review" in result.output


def test_a_question_the_user_refused_is_not_asked_again_on_the_same_evidence(alice: Runner, fake_llm):
    from heartcompass.memory.questions import Questions

    ws = alice.ws
    said = "we are officially dating now"
    say(ws, "alice", "me", said)
    dating = proposal(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}])
    fake_llm.enqueue(dating)
    alice("garden")
    store = Questions(ws)
    [waiting] = store.pending("alice")
    store.refuse(waiting)
    store.save()
    say(ws, "alice", "me", said, day=dt.date(2026, 12, 2))  # the same words another day: the same evidence
    fake_llm.enqueue(dating)
    alice("garden")
    assert questions(ws) == [] and "asked=0" in run_line(ws)
    say(ws, "alice", "me", "she says we are dating, finally official", day=dt.date(2026, 12, 3))
    fake_llm.enqueue(dating)
    alice("garden")  # new evidence asks anew
    assert [q["change"]["value"] for q in questions(ws)] == ["dating"]


def test_a_dry_run_asks_nothing(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "we are officially dating now")
    fake_llm.enqueue(proposal(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}]))
    result = alice("garden", "--dry-run")
    assert questions(alice.ws) == [] and "dry run" in result.output


def test_a_proposal_of_only_refused_lines_waits_three_days_then_is_listed_for_good(alice: Runner, fake_llm,
                                                                                   monkeypatch):
    from heartcompass.store import clock

    ws = alice.ws
    say(ws, "alice", "me", "haha ok")
    bad = proposal(new_facts=[{"text": "Alice is pregnant", "evidence": ["L1"]}])
    before = files(ws)
    for day in (dt.date(2026, 12, 2), dt.date(2026, 12, 2), dt.date(2026, 12, 3)):  # twice on one day: one day
        monkeypatch.setattr(clock, "today", lambda ws, day=day: day)
        fake_llm.enqueue(bad, bad)
        result = alice("garden", ok=False)
        assert result.exit_code == 1 and "shares no words with the entries it cites (L1)" in " ".join(
            result.output.split())
        assert files(ws) == before and consolidated(ws) == {}  # not consumed: a better answer may come
    assert "day 2 of 3" in " ".join(result.output.split())
    monkeypatch.setattr(clock, "today", lambda ws: dt.date(2026, 12, 4))
    fake_llm.enqueue(bad, bad)
    result = alice("garden", ok=False)  # the third day: read, and listed for good
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "after 3 days the entries count as read" in out
    assert consolidated(ws) == {"2026-12-01": 1} and files(ws) == before
    log = [line for line in garden_log(ws) if " alice " in line]
    assert log[-1].endswith('alice refused new_facts {"evidence": ["L1"], "text": "Alice is pregnant"} -- new fact 1: '
                            "shares no words with the entries it cites (L1); state only what they say, in their words")
    assert " alice refused entries=1 " in log[-2]
    assert not fake_llm.script
    alice("garden")  # nothing new: no model call
    assert not fake_llm.script


def test_an_answer_cut_at_its_bound_splits_the_chunk(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "note", "She adopted a kitten named Tofu")
    say(ws, "alice", "note", "She started pottery classes on Tuesdays", time="20:01:00")
    fake_llm.enqueue(LengthFinishReasonError("length"),
                     proposal(new_facts=[{"text": "Adopted a kitten named Tofu", "evidence": ["L1"]}]),
                     proposal(new_facts=[{"text": "Takes pottery classes on Tuesdays", "evidence": ["L2"]}]))
    alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)
    assert "- Adopted a kitten named Tofu (log 2026-12-01)" in facts
    assert "- Takes pottery classes on Tuesdays (log 2026-12-01)" in facts
    assert fake_llm.purposes == ["garden"] * 3  # cut off, then each half on its own
    halves = [r.prompt.split("## New log entries")[-1] for r in fake_llm.requests("garden")[1:]]
    assert "Tofu" in halves[0] and "pottery" not in halves[0] and "pottery" in halves[1] and "Tofu" not in halves[1]
    assert consolidated(ws) == {"2026-12-01": 2}


def test_room_to_answer_grows_with_the_chunk():
    from heartcompass.formats import dailylog
    from heartcompass.memory.proposal.propose import PROPOSAL_MIN_TOKENS, answer_bound
    from heartcompass.memory.proposal.workbench import LogItem

    def chunk(text: str, n: int) -> list[LogItem]:
        return [LogItem(f"L{i}", "2026-12-01", dailylog.Entry("20:00:00", "me", text), i) for i in range(n)]

    assert answer_bound(chunk("ok", 3)) == PROPOSAL_MIN_TOKENS
    chinese = answer_bound(chunk("我们周末去九寨沟玩了三天，她说明年想去西藏看看，还要带上她妈妈一起", 60))
    assert chinese > 4096


def test_json_and_review_carry_the_refused_lines(alice: Runner, fake_llm, monkeypatch):
    import heartcompass.cli.ask as ask
    import heartcompass.cli.garden_cmd as garden_cmd

    ws = alice.ws
    say(ws, "alice", "me", "she lent me money for the flat deposit, 500 euros")
    fake_llm.enqueue(proposal(new_facts=[GOOD_FACT, BAD_FACT]), proposal(new_facts=[BAD_FACT]))
    monkeypatch.setattr(garden_cmd, "_terminal", lambda: True)
    monkeypatch.setattr(ask, "confirm", lambda *a, **kw: True)
    out = " ".join(alice("garden", "--review").output.split())
    assert "Refused (1), not written:" in out and "5000 does not appear" in out
    say(ws, "alice", "me", "she also paid 20 euros for the pizza", time="20:05:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Paid 20 euros for the pizza", "evidence": ["L1"]},
                                         {"text": "Paid 30 euros for the pizza", "evidence": ["L1"]}]),
                     proposal())
    [row] = [r for r in json.loads(alice("garden", "--json").stdout) if r["slug"] == "alice"]
    assert row["kept"] == 1 and row["asked"] == []
    assert row["refused"] == [{"kind": "new_facts", "statement": {"text": "Paid 30 euros for the pizza",
                                                                  "evidence": ["L1"]},
                               "reasons": ["new fact 2: 30 does not appear in the entries it cites (L1); numbers, "
                                           "amounts and dates must come from them"]}]


def test_tell_keeps_the_good_lines_and_shows_the_refused(example_cli: Runner, fake_llm):
    fake_llm.enqueue(proposal(new_facts=[{"text": "Lent the user 500 dollars", "evidence": ["L1"]},
                                         {"text": "Lent the user 5000 dollars", "evidence": ["L1"]}]),
                     proposal(), {"people": []})
    result = example_cli("tell", "alice", "she lent me 500 dollars", "--yes")
    out = " ".join(result.output.split())
    assert "Refused, not written: alice: new_facts" in out and "5000 does not appear" in out
    facts = memory(example_cli.ws).items(memory_fmt.FACTS)
    assert any(f.startswith("- Lent the user 500 dollars") for f in facts) and not any("5000" in f for f in facts)


def test_the_questions_of_chunks_written_before_a_failure_are_kept(alice: Runner, fake_llm, monkeypatch):
    from garden_helpers import backlog

    from heartcompass.memory import gardener

    monkeypatch.setattr(gardener, "CHECKPOINT_SECONDS", 0.0)  # each chunk written once done
    backlog(alice, 2, "me", "we are dating")
    fake_llm.enqueue(proposal(profile_fields=[{"field": "relation", "value": "dating", "evidence": ["L1"]}]),
                     "not json", "not json either")  # the second chunk's answer cannot be read, twice
    result = alice("garden", ok=False)
    assert result.exit_code == 1 and consolidated(alice.ws)  # the first chunk's entries are read...
    assert [q["change"]["value"] for q in questions(alice.ws)] == ["dating"]  # ...and its question kept


def test_a_correction_round_lists_each_first_refusal_once_by_what_became_of_it():
    """Mended (its answer kept) → `answered`; answered by another refusal → that refusal only; left out → refused."""
    from heartcompass.memory.proposal.verdicts import Refused, Verdicts

    first = Verdicts(kept=1, refused=[Refused("new_facts", "a", ["r1"]), Refused("new_facts", "b", ["r2"]),
                                      Refused("new_events", "c", ["r3"])])
    again = Refused("new_facts", "b2", ["still wrong"])
    first.corrected(Verdicts(kept=1, refused=[again], kinds=["new_facts", "new_facts"]))
    assert [r.statement for r in first.answered] == ["a"]
    assert [r.statement for r in first.refused] == ["c", "b2"]  # the events line was left out: it stands
    assert first.kept == 2
