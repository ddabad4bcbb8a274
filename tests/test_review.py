"""heartcompass review: the user's Yes, No or own value for what the
gardener would change about who someone is (memory/questions.py holds the
questions; memory/review.py and review_apply.py answer them)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import Runner, git, subjects

from heartcompass.memory.questions import Question, Questions
from heartcompass.store import clock

SAID = [{"day": "2026-12-01", "time": "20:01:00", "speaker": "alice", "text": "我们在一起了 — we are dating now"}]
TOLD = "- Her cat Mochi is 6 and hates the carrier (told)"
HAND = "- Prefers calls after 21:00 on weekdays (hand)"


def asked(ws, kind: str, change: dict, what: str = "a change", evidence=SAID, on: dt.date | None = None):
    store = Questions(ws)
    q = store.add(Question("alice", kind, change, what, list(evidence), "it changes who she is"),
                  on or clock.today(ws))
    store.save()
    return q


def mbti_changes(ws, first: int, count: int) -> None:
    """`count` questions waiting, each a change of Alice's mbti (v<first>, v<first+1>...)."""
    for n in range(first, first + count):
        asked(ws, "field", {"field": "mbti", "value": f"v{n}", "old": ""}, f"change {n}")


def relation(ws, on: dt.date | None = None):
    return asked(ws, "field", {"field": "relation", "value": "dating", "old": "friend"},
                 "relation: friend → dating", on=on)


def profile(ws) -> str:
    return (ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")


def memory(ws) -> str:
    return (ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")


def test_yes_applies_the_change_in_one_commit_with_its_subject(example_cli: Runner):
    ws = example_cli.ws
    q = relation(ws)
    before = len(subjects(ws))
    result = example_cli("review", "yes", q.id)
    assert "Applied and committed" in result.output
    assert subjects(ws)[0] == "review(alice): relation friend → dating"
    assert len(subjects(ws)) == before + 1
    assert "relation: dating" in profile(ws)
    assert "我们在一起了" in git(ws, "log", "-1", "--format=%b")  # the evidence it rests on, quoted
    assert git(ws, "status", "--porcelain") == ""
    assert Questions(ws).pending() == []


def test_no_is_remembered_and_the_same_question_is_not_asked_again(example_cli: Runner):
    ws = example_cli.ws
    q = relation(ws)
    before = subjects(ws)
    assert "Not asked again" in example_cli("review", "no", q.id).output
    assert subjects(ws) == before and "relation: friend" in profile(ws)
    assert relation(ws) is None  # the same change on the same evidence
    assert json.loads(example_cli("review", "--json").output) == []
    other = asked(ws, "field", {"field": "relation", "value": "dating", "old": "friend"}, "relation",
                  evidence=[{**SAID[0], "text": "she said yes to being my girlfriend"}])
    assert other is not None  # new evidence asks anew


def test_unknown_and_answered_ids_exit_non_zero_with_one_line(example_cli: Runner):
    q = relation(example_cli.ws)
    unknown = example_cli("review", "yes", "q99", ok=False)
    assert unknown.exit_code == 1 and "No question 'q99'" in unknown.output and "Traceback" not in unknown.output
    example_cli("review", "no", q.id)
    again = example_cli("review", "yes", q.id, ok=False)
    assert again.exit_code == 1 and "no longer waits" in again.output


def test_expired_questions_are_said_once_and_then_gone(example_cli: Runner, monkeypatch):
    ws = example_cli.ws
    q = relation(ws, on=clock.today(ws))
    later = clock.now(ws) + dt.timedelta(days=15)  # review.expire_days is 14
    monkeypatch.setattr(clock, "now", lambda _ws: later)
    first = example_cli("review")
    assert "Expired unanswered after 14 days" in first.output and "relation: friend → dating" in first.output
    assert "Expired" not in example_cli("review").output
    gone = example_cli("review", "yes", q.id, ok=False)
    assert gone.exit_code == 1 and "expired" in gone.output
    assert "relation: friend" in profile(ws)


def test_a_question_within_its_days_still_waits(example_cli: Runner, monkeypatch):
    ws = example_cli.ws
    relation(ws)
    later = clock.now(ws) + dt.timedelta(days=14)
    monkeypatch.setattr(clock, "now", lambda _ws: later)
    assert [q["id"] for q in json.loads(example_cli("review", "--json").output)] == ["q1"]


def test_json_lists_id_person_change_old_new_evidence_and_date(example_cli: Runner):
    ws = example_cli.ws
    relation(ws)
    asked(ws, "rewrite", {"file": "MEMORY.md", "section": "Facts", "old": TOLD,
                          "new": "- Her cat Mochi is 7 and hates the carrier (log 2026-12-01)"}, "Mochi's age")
    listed = json.loads(example_cli("review", "--json").output)
    assert [(q["id"], q["person"], q["kind"]) for q in listed] == [("q1", "alice", "field"), ("q2", "alice", "rewrite")]
    assert (listed[0]["old"], listed[0]["new"], listed[0]["asked"]) == ("friend", "dating", clock.today(ws).isoformat())
    assert listed[1]["old"] == TOLD and listed[0]["evidence"] == SAID


def test_without_a_terminal_review_lists_and_says_how_to_answer(example_cli: Runner):
    relation(example_cli.ws)
    shown = example_cli("review").output
    assert "q1" in shown and "relation: friend → dating" in shown and "2026-12-01 20:01 alice" in shown
    assert "heartcompass review yes ID" in shown


def test_a_stale_question_whose_line_is_gone_changes_nothing(example_cli: Runner):
    ws = example_cli.ws
    q = asked(ws, "removal", {"file": "MEMORY.md", "section": "Facts", "old": TOLD}, "remove Mochi")
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8").replace(TOLD + "\n", ""), encoding="utf-8")
    git(ws, "commit", "-qam", "my own edit")
    before = subjects(ws)
    result = example_cli("review", "yes", q.id)
    assert "no longer in MEMORY.md" in result.output
    assert subjects(ws) == before and Questions(ws).pending() == []


def test_a_field_that_already_has_the_value_changes_nothing(example_cli: Runner):
    ws = example_cli.ws
    q = asked(ws, "field", {"field": "relation", "value": "friend", "old": "dating"}, "relation: dating → friend")
    before = subjects(ws)
    assert "already" in example_cli("review", "yes", q.id).output
    assert subjects(ws) == before


def test_a_pending_hand_edit_is_committed_first_as_the_users_own(example_cli: Runner):
    ws = example_cli.ws
    q = relation(ws)
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8").replace(HAND, HAND + "\n- 她喜欢抹茶 (hand)"), encoding="utf-8")
    example_cli("review", "yes", q.id)
    assert subjects(ws)[:2] == ["review(alice): relation friend → dating", "edit(alice): by hand"]
    assert "抹茶" in git(ws, "show", "HEAD~1", "--", "people/alice/MEMORY.md")
    assert "抹茶" not in git(ws, "show", "HEAD", "--", "people/alice/MEMORY.md")


def test_a_rewritten_told_line_stays_told_and_a_hand_line_stays_the_users(example_cli: Runner):
    from heartcompass.memory.hand_lines import hand_lines
    from heartcompass.memory.proposal.workbench import read_person, workbench
    from heartcompass.store.people import resolve

    ws = example_cli.ws
    mine = "- 周末喜欢睡懒觉"  # no marker: the user's by their own commit (git blame)
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8").replace(HAND, f"{HAND}\n{mine}"), encoding="utf-8")
    git(ws, "commit", "-qam", "my own line")
    person = resolve(ws, "alice")
    assert mine in hand_lines(ws, person)  # the gardener has looked (its cache holds the line)
    told = asked(ws, "rewrite", {"file": "MEMORY.md", "section": "Facts", "old": TOLD,
                                 "new": "- Her cat Mochi is 7 and hates the carrier (log 2026-12-01)"}, "Mochi 7")
    hand = asked(ws, "rewrite", {"file": "MEMORY.md", "section": "Facts", "old": mine,
                                 "new": "- 周末早起爬山 (log 2026-12-01)"}, "weekends")
    example_cli("review", "yes", told.id)
    example_cli("review", "yes", hand.id)
    text = memory(ws)
    assert "- Her cat Mochi is 7 and hates the carrier (told)" in text and TOLD not in text
    assert "- 周末早起爬山 (hand)" in text and mine not in text
    assert subjects(ws)[0].startswith("review(alice): Facts: ")
    # the gardener reads whose lines are whose: the new line is protected, the old one forgotten
    wb = workbench(ws, person, *read_person(person)[1:], clock.today(ws))
    assert wb.is_protected("- 周末早起爬山 (hand)")
    assert mine not in hand_lines(ws, person)


def test_a_boundaries_line_is_rewritten_on_the_users_yes(example_cli: Runner):
    ws = example_cli.ws
    old = "Does not want to talk about her ex. Needs a day before answering big questions."
    q = asked(ws, "rewrite", {"file": "PROFILE.md", "section": "Boundaries", "old": old,
                              "new": "Happy to talk about her ex now. (log 2026-12-01)"}, "boundary")
    example_cli("review", "yes", q.id)
    text = profile(ws)
    assert "Happy to talk about her ex now. (hand)" in text and old not in text  # the example's lines are hand's


def test_a_link_and_an_alias_are_applied(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "add", "Bob", "--relation", "friend")
    link = asked(ws, "link", {"person": "bob", "words": "her brother"}, "link bob")
    alias = asked(ws, "alias", {"value": "Ally"}, "alias Ally")
    example_cli("review", "yes", link.id)
    example_cli("review", "yes", alias.id)
    text = profile(ws)
    assert "person: bob" in text and "as: her brother" in text and "- Ally" in text
    assert subjects(ws)[:2] == ["review(alice): alias Ally", "review(alice): link bob (her brother)"]


def test_an_alias_someone_else_answers_to_is_refused_on_yes(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "add", "Carol", "--relation", "friend")
    q = asked(ws, "alias", {"value": "Carol"}, "alias Carol")
    result = example_cli("review", "yes", q.id, ok=False)
    assert result.exit_code == 1 and "Carol" in result.output and "- Carol" not in profile(ws)
    assert [w.id for w in Questions(ws).pending()] == [q.id]  # still waits: nothing was decided


@pytest.mark.parametrize("edited, problem", [("datin", "Allowed relations: self, family"),
                                              ("friend\ndating", "must be one line")])
def test_an_edited_value_is_checked_like_a_hand_edit(example_cli: Runner, edited, problem):
    from heartcompass.errors import ReviewError
    from heartcompass.memory.review_apply import accept

    ws = example_cli.ws
    q = relation(ws)
    with pytest.raises(ReviewError) as refused:
        accept(ws, q.id, clock.now(ws), edited)
    assert problem in f"{refused.value.message} {refused.value.hint}"  # the list to choose from, or the rule
    assert "relation: friend" in profile(ws)
    answer = accept(ws, q.id, clock.now(ws), "ambiguous")
    assert answer.applied and "relation: ambiguous" in profile(ws)


def test_an_edited_birthday_must_be_a_real_date(example_cli: Runner):
    from heartcompass.errors import ReviewError
    from heartcompass.memory.review_apply import accept

    ws = example_cli.ws
    q = asked(ws, "field", {"field": "birthday", "value": "1996-05-03", "old": "1996-04-12"}, "birthday")
    with pytest.raises(ReviewError, match="not a real birthday"):
        accept(ws, q.id, clock.now(ws), "1996-02-30")
    accept(ws, q.id, clock.now(ws), "1996-04-13")
    assert "1996-04-13" in profile(ws)


def test_an_edited_line_is_the_users_own(example_cli: Runner):
    from heartcompass.memory.review_apply import accept

    ws = example_cli.ws
    q = asked(ws, "removal", {"file": "MEMORY.md", "section": "Facts", "old": TOLD}, "remove Mochi")
    accept(ws, q.id, clock.now(ws), "Mochi is 7 now and 还是讨厌猫包")
    assert "- Mochi is 7 now and 还是讨厌猫包 (hand)" in memory(ws) and TOLD not in memory(ws)


def test_a_review_killed_before_its_commit_is_finished_as_the_review(example_cli: Runner, monkeypatch):
    from heartcompass.store import audit

    ws = example_cli.ws
    q = relation(ws)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as a kill after the write, before git commits

    with monkeypatch.context() as m:
        m.setattr(audit, "commit_or_roll_back", killed)
        example_cli("review", "yes", q.id, ok=False)
    assert "relation: dating" in profile(ws) and git(ws, "status", "--porcelain")
    example_cli("person", "add", "Carol", "--relation", "friend", "--yes")  # the next command that writes
    assert "review(alice): relation friend → dating" in subjects(ws)
    assert not any(s.startswith("edit(alice)") for s in subjects(ws))
    assert "already" in example_cli("review", "yes", q.id).output  # asked again: it is done


def test_an_edit_starts_from_what_a_yes_would_write(example_cli: Runner):
    from heartcompass.memory.review import editable

    ws = example_cli.ws
    example_cli("person", "add", "Bob", "--relation", "friend")
    link = asked(ws, "link", {"person": "bob", "words": "her brother"}, "link bob")
    line = asked(ws, "rewrite", {"file": "MEMORY.md", "section": "Facts", "old": TOLD,
                                 "new": "- Mochi is 7 (log 2026-12-01)"}, "Mochi 7")
    assert [editable(q) for q in (relation(ws), link, line)] == ["dating", "her brother", "Mochi is 7"]


def test_a_broken_store_is_named_by_review_once(example_cli: Runner):
    ws = example_cli.ws
    (ws.state_dir / "questions.json").write_text("[]", encoding="utf-8")
    said = example_cli("review").output
    assert "questions.json does not read back" in said and "No questions wait" in said
    assert "does not read back" not in example_cli("review").output


def test_a_yes_for_someone_archived_since_changes_nothing(example_cli: Runner):
    ws = example_cli.ws
    q = relation(ws)
    example_cli("person", "archive", "alice")
    before = subjects(ws)
    assert "is gone" in example_cli("review", "yes", q.id).output
    assert subjects(ws) == before and Questions(ws).pending() == []


def test_a_field_the_user_changed_since_the_question_is_left_as_theirs(example_cli: Runner):
    from heartcompass.memory.review_apply import accept

    ws = example_cli.ws
    q = relation(ws)  # asked over friend
    path = ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("relation: friend", "relation: tension"), encoding="utf-8")
    said = example_cli("review", "yes", q.id).output
    assert "relation is tension now, not friend as when asked: nothing changed" in said
    assert "relation: tension" in profile(ws) and subjects(ws)[0] == "edit(alice): by hand"
    again = relation(ws, on=clock.today(ws))  # asked anew, the user types their own value
    assert accept(ws, again.id, clock.now(ws), "dating").applied and "relation: dating" in profile(ws)


def test_review_json_says_what_expired_on_stderr_and_lists_the_rest(example_cli: Runner, monkeypatch):
    from typer.testing import CliRunner

    from heartcompass.cli.app import app

    ws = example_cli.ws
    relation(ws, on=clock.today(ws) - dt.timedelta(days=15))
    result = CliRunner().invoke(app, ["--workspace", str(ws.root), "review", "--json"])
    assert json.loads(result.stdout) == [] and "Expired unanswered after 14 days" in result.stderr
