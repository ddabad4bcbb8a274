"""/tell and /review on the phone, on the gateway's core (gateway/commands.py,
tell_offers.py): nothing is written to a person's files before Yes, a No
keeps what was told as a note, an old or broken offer writes nothing, and
the gardener's questions come a few at a time. A recording channel and the
worker run to its end in the test's thread."""

from __future__ import annotations

import json

import pytest
from fakes import FakeChat
from gateway_core_helpers import Served
from serve_helpers import log_entries

from heartcompass.gateway import replies


@pytest.fixture
def chat(example_ws) -> Served:
    """The example workspace's gateway, owner 42, no worker yet."""
    return Served(example_ws)


# -- /tell and its Yes/No -----------------------------------------------------------------------------------------

def berlin():
    return {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": ["L1"]}]}


NARRATIVE = "She got promoted and is moving to Berlin in March"


def _memory(ws) -> str:
    return (ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")


def _told(example_ws, *replies_of_the_model) -> Served:
    served = Served(example_ws, FakeChat().enqueue(*replies_of_the_model))
    served.say("/switch alice")
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    return served


def test_tell_shows_the_change_with_yes_and_no_and_writes_nothing_before_yes(example_ws):
    from conftest import subjects

    before = _memory(example_ws)
    served = _told(example_ws, berlin(), {"people": []})
    (chat, text, choices), = served.channel.asked
    assert chat == "42" and choices == [("Yes", "t1:yes"), ("No", "t1:no")]
    assert "Moves to Berlin in March" in text and text.endswith("\n\nWrite these changes?")
    assert _memory(example_ws) == before
    served.say(button="t1:no")
    served.finish()
    assert served.channel.sent[-1] == "Not applied. What you told is kept in the log as a note for the gardener."
    assert _memory(example_ws) == before and subjects(example_ws)[0] == "tell(alice): noted, proposal declined"
    served.say(button="t1:yes")                         # the old button: answered already
    served.finish()
    assert served.channel.sent[-1] == replies.NO_OFFER and _memory(example_ws) == before


def test_a_typed_yes_writes_the_newest_offer_and_says_the_commit(example_ws):
    from conftest import subjects

    served = _told(example_ws, berlin(), {"people": []})
    served.say("/yes")
    served.finish()
    said = served.channel.sent[-1]
    assert said.startswith("Written and committed (") and len(said) == len("Written and committed (12345678).")
    assert "Moves to Berlin in March" in _memory(example_ws)
    assert subjects(example_ws)[0] == "tell(alice): moving to Berlin"


def test_a_typed_no_with_the_offers_key_declines_it(example_ws):
    served = _told(example_ws, berlin(), {"people": []})
    served.say("/no t1")
    served.finish()
    assert served.channel.sent[-1].startswith("Not applied.") and "Berlin" not in _memory(example_ws)


def test_a_tell_with_nothing_to_change_says_so_and_keeps_the_note(example_ws):
    from conftest import subjects

    served = _told(example_ws, {"summary": "nothing new", "rewritten_facts": []}, {"people": []})
    assert served.channel.asked == []
    assert served.channel.said[-1] == ("42", "Nothing to change in the files; what you told stays in the log as a "
                                             "note for the next garden.")
    assert subjects(example_ws)[0] == "tell(alice): noted, nothing to change"


def test_a_tell_the_model_cannot_answer_keeps_the_note_and_says_the_model_is_down(example_ws):
    from conftest import subjects

    from heartcompass.errors import LLMError

    served = _told(example_ws, LLMError("The model did not answer."))
    assert served.channel.sent[-1].startswith("(No reply: the model cannot be reached: ")
    assert subjects(example_ws)[0] == "tell(alice): noted, no proposal (model error)"
    assert ("note", NARRATIVE) in [(e.speaker, e.text) for e in log_entries(example_ws, "alice")]


def test_people_a_tell_names_are_offered_each_and_added_only_on_yes(example_ws):
    people = [{"name": "王小明", "relation": "self", "about": "her hiking buddy"},
              {"name": "Bob Stone", "relation": "stranger", "about": ""}]
    served = _told(example_ws, berlin(), {"people": people})
    asked = [(text, choices) for _, text, choices in served.channel.asked]
    assert asked[1] == (replies.offer_person("王小明", "friend", "her hiking buddy"), [("Yes", "t2:yes"), ("No", "t2:no")])
    assert asked[2][1] == [("Yes", "t3:yes"), ("No", "t3:no")]
    served.say(button="t3:no")
    served.say(button="t2:yes")
    served.finish()
    assert served.channel.sent[-2] == "Not added: Bob Stone."
    added = served.channel.sent[-1]
    slug = added.split("people/")[1].split("/")[0]
    assert added == f"Added 王小明 in people/{slug}/. /switch {slug} talks to them."
    profile = (example_ws.people_dir / slug / "PROFILE.md").read_text(encoding="utf-8")
    assert "relation: friend" in profile and "hiking buddy" in profile
    assert not (example_ws.people_dir / "bob-stone").exists()


def test_a_person_offer_keeps_a_known_relation(example_ws):
    served = _told(example_ws, {"summary": "nothing new", "rewritten_facts": []},
                   {"people": [{"name": "Bob Stone", "relation": "family", "about": "her brother"}]})
    served.say("/yes")
    served.finish()
    assert served.channel.sent[-1] == "Added Bob Stone in people/bob-stone/. /switch bob-stone talks to them."
    assert "relation: family" in (example_ws.people_dir / "bob-stone" / "PROFILE.md").read_text(encoding="utf-8")


# -- /review on the phone -----------------------------------------------------------------------------------------

def test_review_with_nothing_waiting_says_so(chat):
    chat.say("/review")
    chat.finish()
    assert chat.channel.said == [("42", "No questions wait for your answer.")] and chat.channel.asked == []


def test_review_asks_each_question_with_yes_and_no_and_a_no_is_remembered(example_ws):
    from test_review import relation

    relation(example_ws)
    served = Served(example_ws)
    served.say("/review")
    served.finish()
    (chat, text, choices), = served.channel.asked
    assert choices == [("Yes", "q1:yes"), ("No", "q1:no")] and text.startswith("alice: relation: friend → dating")
    served.say(button="q1:no")
    served.finish()
    assert served.channel.said[-1] == ("42", "Not applied: alice: relation: friend → dating. Not asked again on "
                                              "this evidence.")
    served.say(button="q1:yes")
    served.finish()
    where, text = served.channel.said[-1]
    assert where == "42" and text.endswith(" /review lists the questions that wait.")
    assert "relation: friend" in (example_ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")


def test_review_says_once_which_questions_expired_unanswered_and_after_how_many_days(example_ws):
    """review.expire_days from the settings; the expired are said in the chat that asked, then never again."""
    import datetime as dt

    from test_review import asked, relation

    from heartcompass.store import clock
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "review.expire_days", "7")
    old = relation(example_ws, on=clock.today(example_ws) - dt.timedelta(days=8))
    fresh = asked(example_ws, "field", {"field": "mbti", "value": "INTJ", "old": ""}, "mbti: INTJ")
    served = Served(example_ws)
    served.say("/review")
    served.finish()
    assert served.channel.said == [("42", replies.expired([old], 7))]
    assert replies.expired([old], 7) == "Expired unanswered after 7 days: alice: relation: friend → dating"
    assert [(where, q.split("\n")[0]) for where, q, _ in served.channel.asked] == [("42", "alice: mbti: INTJ")]
    assert fresh.id in served.channel.asked[0][1]
    served.say("/review")
    served.finish()
    assert served.channel.said == [("42", replies.expired([old], 7))] and len(served.channel.asked) == 2


def test_review_sends_five_questions_at_once_and_says_how_many_more_wait(example_ws):
    from test_review import mbti_changes

    mbti_changes(example_ws, 0, 7)
    served = Served(example_ws)
    served.say("/review")
    served.finish()
    assert len(served.channel.asked) == 5
    assert served.channel.sent == ["2 more wait: /review again once these are answered."]


@pytest.mark.parametrize("relation", ["self", "not-a-relation"])
def test_a_kept_person_offer_with_no_usable_relation_adds_a_friend(chat, relation):
    """An offer read back from a hand-edited offers file: "self" is the user alone, an unknown relation is none."""
    chat.say("/help")
    key = chat.gw.offers.add("42", {"kind": "person", "name": "Bob Stone", "relation": relation, "about": "x"})
    chat.say(button=f"{key}:yes")
    chat.finish()
    assert chat.channel.sent[-1] == "Added Bob Stone in people/bob-stone/. /switch bob-stone talks to them."
    assert "relation: friend" in (chat.ws.people_dir / "bob-stone" / "PROFILE.md").read_text(encoding="utf-8")


def test_a_yes_to_a_proposal_whose_file_changed_meanwhile_writes_nothing_and_keeps_the_note(example_ws):
    from conftest import subjects

    served = _told(example_ws, berlin(), {"people": []})
    memory = example_ws.people_dir / "alice" / "MEMORY.md"
    memory.write_text(_memory(example_ws) + "\n- Plays the cello (hand)\n", encoding="utf-8")
    served.say("/yes t1")
    served.finish()
    where, said = served.channel.said[-1]
    assert where == "42" and said.startswith("Not written: ") and "MEMORY.md changed since the proposal was made" in said
    assert said.endswith(" What you told is kept in the log as a note.")
    assert "Berlin" not in _memory(example_ws) and "Plays the cello" in _memory(example_ws)
    assert subjects(example_ws)[0] == "tell(alice): noted, not applied"


@pytest.mark.parametrize("broken", ["note", "plans"])
def test_a_kept_proposal_that_does_not_read_back_writes_nothing_and_says_so(example_ws, broken):
    """A hand-edited offers file: the Yes is answered in words, the operator told what broke, nothing written."""
    served = _told(example_ws, berlin(), {"people": []})
    record = served.gw.offers.waiting["t1"]
    if broken == "note":
        del record["note"]
    else:
        record["plans"] = [{"person": "alice"}]
    served.say("/yes t1")
    served.finish()
    assert served.channel.sent[-1] == ("Not written: that proposal could not be read back. What you told is in "
                                       "the log as a note.")
    assert served.reports[-1].startswith("telegram: a kept proposal does not read back: KeyError: ")
    assert "Berlin" not in _memory(example_ws)


def test_a_yes_after_the_told_note_was_edited_away_writes_nothing(example_ws):
    """The note a proposal rests on is no longer where it was in the day log: nothing written, and it says where."""
    served = _told(example_ws, berlin(), {"people": []})
    record = served.gw.offers.waiting["t1"]
    log = example_ws.root / record["note"]["path"]
    log.write_text(log.read_text(encoding="utf-8").replace(NARRATIVE, "something else"), encoding="utf-8")
    served.say("/yes")
    served.finish()
    assert served.channel.sent[-1].startswith(
        f"Not written: What you told is no longer where it was in {record['note']['path']}; nothing written.")
    assert "Berlin" not in _memory(example_ws)


def test_a_yes_after_the_person_was_removed_writes_nothing(example_ws):
    import shutil

    served = _told(example_ws, berlin(), {"people": []})
    record = served.gw.offers.waiting["t1"]
    record["plans"][0]["person"] = record["person"] = "gone"
    served.say("/yes")
    served.finish()
    assert served.channel.sent[-1].startswith("Not written: people/gone/ is gone since the proposal was made;")
    shutil.rmtree(example_ws.people_dir / "alice")
    served.gw.offers.waiting["t9"] = {**record, "person": "alice", "chat": "42", "at": record["at"]}
    served.say("/yes t9")
    served.finish()
    assert served.channel.sent[-1].startswith("Not written: people/alice/ is gone since the proposal was made;")


def test_a_kept_proposal_knows_the_files_it_writes_and_what_they_held(example_ws):
    """What a Yes after a restart needs: the narrative, the note's place, each file's new text and the checksum
    of the text the proposal saw (a file changed since is refused)."""
    from heartcompass.atomic import checksum

    served = _told(example_ws, berlin(), {"people": []})
    record = dict(served.gw.offers.waiting["t1"])
    assert record["kind"] == "tell" and record["person"] == "alice" and record["narrative"] == NARRATIVE
    assert record["note"]["person"] == "alice" and record["note"]["text"] == NARRATIVE
    assert record["note"]["path"].startswith("people/alice/logs/") and isinstance(record["note"]["position"], int)
    plan, = record["plans"]
    assert plan["person"] == "alice" and plan["summary"] == "moving to Berlin"
    assert list(plan["texts"]) == ["people/alice/MEMORY.md"]
    assert plan["originals"] == {"people/alice/MEMORY.md": checksum(_memory(example_ws))}
    assert "Moves to Berlin in March" in plan["texts"]["people/alice/MEMORY.md"]


def test_a_photo_told_is_kept_only_for_the_check_in_the_local_state_folder(example_ws, monkeypatch):
    """The photo from the app is written to .heartcompass/serve/photo (never committed), checked like a
    screenshot, and gone afterwards."""
    from heartcompass.intake import tell

    seen = []
    real = tell.image_url

    def image_url(path):
        seen.append((path, path.read_bytes()))
        return real(path)

    monkeypatch.setattr(tell, "image_url", image_url)
    from fake_lark import PNG

    served = Served(example_ws, FakeChat().enqueue({"summary": "promoted", "rewritten_facts": []}, {"people": []}))
    served.say("/switch alice")
    served.say("/tell 她升职了", image=PNG)
    served.finish()
    assert seen == [(example_ws.state_dir / "serve" / "photo", PNG)]
    assert not (example_ws.state_dir / "serve" / "photo").exists()


def test_a_photo_told_from_the_phone_reaches_the_model_with_the_words(example_ws):
    from fake_lark import PNG

    model = FakeChat().enqueue({"summary": "promoted", "rewritten_facts": []}, {"people": []})
    served = Served(example_ws, model)
    served.say("/switch alice")
    served.say("/tell 她升职了", image=PNG)
    served.finish()
    sent = str(model.request("tell").messages[-1].content)  # text and image parts
    assert "data:image/png;base64," in sent and "她升职了" in sent


def test_a_kept_person_offer_without_a_name_adds_nobody(chat):
    """A hand-edited offers file lost the name: a Yes adds no one (no person called "None"), a No says the empty name."""
    chat.say("/help")
    yes = chat.gw.offers.add("42", {"kind": "person", "relation": "friend"})
    no = chat.gw.offers.add("42", {"kind": "person"})
    before = sorted(p.name for p in chat.ws.people_dir.iterdir())
    chat.say(button=f"{yes}:yes")
    chat.say(button=f"{no}:no")
    chat.finish()
    assert chat.channel.sent[1].startswith("Not added: ") and chat.channel.sent[2] == "Not added: ."
    assert sorted(p.name for p in chat.ws.people_dir.iterdir()) == before


def test_a_kept_person_offer_without_what_is_known_adds_them_with_nothing_made_up(chat):
    chat.say("/help")
    key = chat.gw.offers.add("42", {"kind": "person", "name": "Bob Stone", "relation": "family"})
    chat.say(button=f"{key}:yes")
    chat.finish()
    assert chat.channel.sent[-1] == "Added Bob Stone in people/bob-stone/. /switch bob-stone talks to them."
    profile = (chat.ws.people_dir / "bob-stone" / "PROFILE.md").read_text(encoding="utf-8")
    assert "Bob Stone" in profile and "relation: family" in profile
    assert "None" not in profile and "XXXX" not in profile


def test_a_yes_to_a_question_applies_it_and_names_its_commit(example_ws):
    from conftest import git
    from test_review import relation

    relation(example_ws)
    served = Served(example_ws)
    served.say("/help")                   # the owner's private chat is known: its buttons answer
    served.say(button="q1:yes")
    served.finish()
    head = git(example_ws, "rev-parse", "HEAD").strip()
    said = served.channel.sent[-1]
    assert said.startswith(f"Applied and committed ({head[:8]}): ") and len(said.split(")")[0]) == len(
        "Applied and committed (12345678")
    assert "relation: dating" in (example_ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")


def test_a_yes_to_a_question_git_cannot_commit_now_is_not_applied_and_says_why(example_ws):
    """git is mid-rebase: the answer says why in one line, nothing is written, and the question still waits."""
    from test_review import relation

    relation(example_ws)
    served = Served(example_ws)
    served.say("/help")
    (example_ws.root / ".git" / "rebase-merge").mkdir()
    served.say(button="q1:yes")
    served.finish()
    assert served.channel.sent[1:] == ["Not applied: git is in the middle of a rebase: finish it with "
                                       "'git rebase --continue' or go back with 'git rebase --abort'."]
    assert "relation: friend" in (example_ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")
    (example_ws.root / ".git" / "rebase-merge").rmdir()
    served.say("/review")
    served.finish()
    assert [choices for _, _, choices in served.channel.asked] == [[("Yes", "q1:yes"), ("No", "q1:no")]]


def test_the_phones_review_and_its_answers_hold_the_workspace_lock_as_serve(example_ws, monkeypatch):
    """A terminal command that finds the workspace busy names who holds it: "Another HeartCompass serve is
    running", never a review or a nameless command, while /review and a question's Yes or No are at work."""
    from test_review import asked, relation

    from heartcompass.store import lock

    holders = []
    real = lock.FileLock.acquire

    def acquire(self):
        real(self)
        holders.append((lock.holder(self.path) or {}).get("purpose"))

    relation(example_ws)
    asked(example_ws, "field", {"field": "mbti", "value": "INTJ", "old": ""}, "mbti: INTJ")
    served = Served(example_ws)
    monkeypatch.setattr(lock.FileLock, "acquire", acquire)
    served.say("/review")
    served.finish()
    assert [choices[0][1] for _, _, choices in served.channel.asked] == ["q1:yes", "q2:yes"]
    assert holders == ["serve"]
    served.say(button="q2:no")
    served.say(button="q1:yes")
    served.finish()
    assert served.channel.sent[-2].startswith("Not applied: alice: mbti: INTJ.")
    assert served.channel.sent[-1].startswith("Applied and committed (")
    assert set(holders) == {"serve"} and len(holders) >= 3


def test_a_yes_to_a_question_the_files_already_answer_says_so_and_claims_no_commit(example_ws):
    """The profile was changed by hand to what was asked: the Yes says there is nothing to change, not "Applied and
    committed", and makes no commit."""
    from conftest import git
    from test_review import relation

    relation(example_ws)
    served = Served(example_ws)
    served.say("/help")
    profile = example_ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace("relation: friend", "relation: dating"),
                       encoding="utf-8")
    git(example_ws, "commit", "-qam", "alice is dating now")
    head = git(example_ws, "rev-parse", "HEAD")
    served.say(button="q1:yes")
    served.finish()
    assert served.channel.sent[1:] == ["Nothing to change: the files already say so."]
    assert git(example_ws, "rev-parse", "HEAD") == head


# -- what a /tell's question shows, and who holds the workspace meanwhile -----------------------------------------

def _asked_text(served) -> str:
    return served.channel.asked[-1][1]


def test_a_tell_shows_each_files_diff_one_after_the_other_then_the_question(example_ws):
    """Every changed file's diff is shown whole, in order, each on its own lines, before "Write these changes?"."""
    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Li", "friend")
    served = Served(example_ws, FakeChat().enqueue(berlin(), {"summary": "Bob helps", "new_facts": [
        {"text": "Is helping Alice move to Berlin", "evidence": ["L1"]}]}, {"people": []}))
    served.say("/switch alice")
    served.say("/tell She moves to Berlin; Bob Li is driving the van")
    served.finish()
    diffs = [d for p in served.gw.offers.waiting["t1"]["plans"] for d in p["diffs"].values()]
    assert len(diffs) == 2 and "Is helping Alice move to Berlin" in diffs[1]
    assert _asked_text(served) == "\n".join(diffs) + "\n\nWrite these changes?"


def test_a_long_diff_is_cut_at_the_limit_with_a_pointer_to_the_log_and_one_at_the_limit_is_whole(example_ws,
                                                                                                  monkeypatch):
    from heartcompass.gateway import commands

    served = _told(example_ws, berlin(), {"people": []})
    diff, = served.gw.offers.waiting["t1"]["plans"][0]["diffs"].values()
    monkeypatch.setattr(commands, "DIFF_LIMIT", len(diff))
    served.gw.model().enqueue(berlin(), {"people": []})
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    assert _asked_text(served) == diff + "\n\nWrite these changes?"
    monkeypatch.setattr(commands, "DIFF_LIMIT", len(diff) - 1)
    served.gw.model().enqueue(berlin(), {"people": []})
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    assert _asked_text(served) == (diff[:-1] + "\n… (more; `heartcompass log` shows all once written)"
                                   "\n\nWrite these changes?")


def test_each_line_the_checks_refused_is_shown_on_its_own_line_under_the_diff(example_ws):
    good = {"text": "Lent the user 500 dollars", "evidence": ["L1"]}
    bad = [{"text": f"Lent the user {n} dollars", "evidence": ["L1"]} for n in (5000, 9000)]
    served = Served(example_ws, FakeChat().enqueue({"summary": "a loan", "new_facts": [good, *bad]},
                                                   {"summary": "left out"}, {"people": []}))
    served.say("/switch alice")
    served.say("/tell she lent me 500 dollars")
    served.finish()
    text = _asked_text(served)
    diff, = served.gw.offers.waiting["t1"]["plans"][0]["diffs"].values()
    assert "+- Lent the user 500 dollars" in diff and text.startswith(diff)
    refused = text[len(diff):-len("\n\nWrite these changes?")].split("\n")
    assert refused[0] == "" and len(refused) == 3 and all(r.startswith("Refused, not written: alice: ") for r in refused[1:])
    assert [r.split(" -- ")[1] for r in refused[1:]] == [
        f"new fact {i}: {n} does not appear in the entries it cites (L1); numbers, amounts and dates must come "
        "from them" for i, n in ((2, 5000), (3, 9000))]


def test_a_tells_yes_and_no_hold_the_workspace_lock_as_serve(example_ws, monkeypatch):
    """While the phone's answer writes, a terminal command is told "Another HeartCompass serve is running"."""
    from heartcompass.store import lock

    holders = []
    real = lock.FileLock.acquire

    def acquire(self):
        real(self)
        holders.append((lock.holder(self.path) or {}).get("purpose"))

    served = _told(example_ws, berlin(), {"people": []})
    monkeypatch.setattr(lock.FileLock, "acquire", acquire)
    served.say(button="t1:no")
    served.finish()
    assert served.channel.sent[-1].startswith("Not applied.") and holders == ["serve"]
    served.gw.model().enqueue(berlin(), {"people": []})
    monkeypatch.setattr(lock.FileLock, "acquire", real)
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    monkeypatch.setattr(lock.FileLock, "acquire", acquire)
    served.say(button="t2:yes")
    served.finish()
    assert served.channel.sent[-1].startswith("Written and committed (") and holders == ["serve", "serve"]


def test_a_declined_tells_note_git_cannot_commit_now_stays_on_disk_and_the_reason_is_reported(example_ws):
    served = _told(example_ws, berlin(), {"people": []})
    (example_ws.root / ".git" / "rebase-merge").mkdir()
    served.say(button="t1:no")
    served.finish()
    assert served.channel.sent[-1] == "Not applied. What you told is kept in the log as a note for the gardener."
    assert served.reports[-1] == ("tell: the note is not committed yet: git is in the middle of a rebase: finish "
                                  "it with 'git rebase --continue' or go back with 'git rebase --abort'.")
    assert ("note", NARRATIVE) in [(e.speaker, e.text) for e in log_entries(example_ws, "alice")]


def test_a_tell_whose_buttons_the_app_refuses_is_reported_and_a_typed_yes_still_writes_it(example_ws):
    served = Served(example_ws, FakeChat().enqueue(berlin(), {"people": []}))
    served.channel.refuse_asking = True
    served.say("/switch alice")
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    assert served.reports == ["telegram: could not ask: RuntimeError: no buttons here"]
    served.say("/yes")
    served.finish()
    assert served.channel.sent[-1].startswith("Written and committed (")
    assert "Moves to Berlin in March" in _memory(example_ws)


# -- a kept /tell read back ------------------------------------------------------------------------------------------

def _planned(ws, *model_replies):
    """A /tell's plan and note as the phone makes them (the narrative logged first), and its record."""
    from heartcompass.gateway.tell_offers import tell_record
    from heartcompass.intake import tell
    from heartcompass.store import clock
    from heartcompass.store.people import resolve

    person, now = resolve(ws, "alice"), clock.now(ws)
    note = tell.log_note(person, NARRATIVE, now)
    plan = tell.plan(ws, FakeChat().enqueue(*model_replies), person, NARRATIVE, now)
    return plan, note, json.loads(json.dumps(tell_record(ws, plan, note), ensure_ascii=False))


def test_a_kept_tell_read_back_is_the_plan_and_note_that_were_offered(example_ws):
    """After a restart the Yes applies exactly what was shown: the record gives back the same plan (who, what
    was told, when, each file's text, diff and changes) and the same note, a file it creates included."""
    from conftest import git

    from heartcompass.gateway.tell_offers import tell_note, tell_plan

    events = example_ws.people_dir / "alice" / "EVENTS.md"
    events.unlink()
    git(example_ws, "commit", "-qam", "no events yet")
    plan, note, record = _planned(example_ws, {**berlin(), "new_events": [
        {"date": "2026-03-01", "text": "Moves to Berlin", "weight": 0.5, "evidence": ["L1"]}]}, {"people": []})
    assert record["plans"][0]["originals"]["people/alice/EVENTS.md"] is None and plan.has_changes
    assert tell_note(example_ws, record) == note
    again = tell_plan(example_ws, record, note)
    assert (again.person, again.narrative, again.now, again.unknown) == (plan.person, plan.narrative, plan.now, [])
    assert [(p.person, p.name, p.texts, p.diffs, p.changes, p.summary) for p in again.plans] == [
        (p.person, p.name, p.texts, p.diffs, p.changes, p.summary) for p in plan.plans]
    assert [p.originals for p in again.plans] == [{path: p.originals[path] for path in p.texts} for p in plan.plans]


def _yes_after(example_ws, change) -> Served:
    served = _told(example_ws, berlin(), {"people": []})
    change()
    served.say(button="t1:yes")
    served.finish()
    return served


def test_a_yes_after_the_person_is_gone_writes_nothing_and_says_to_tell_again(example_ws):
    import shutil

    served = _yes_after(example_ws, lambda: shutil.rmtree(example_ws.people_dir / "alice"))
    assert served.channel.sent[-1] == ("Not written: people/alice/ is gone since the proposal was made; nothing "
                                       "written. Tell it again with /tell. What you told is kept in the log as a note.")


def test_a_yes_after_the_days_log_lost_what_was_told_writes_nothing_and_says_to_tell_again(example_ws):
    """The day log deleted, or cut short before the told line, by hand: refused in words, no crash, no write."""
    said = "nothing written. Tell it again with /tell. What you told is kept in the log as a note."
    logs = example_ws.people_dir / "alice" / "logs"
    served = _yes_after(example_ws, lambda: [p.unlink() for p in logs.glob("*.md")])
    assert served.channel.sent[-1].startswith("Not written: What you told is no longer where it was in "
                                              "people/alice/logs/")
    assert served.channel.sent[-1].endswith(said)
    before = _memory(example_ws)
    served.gw.model().enqueue(berlin(), {"people": []})
    served.say(f"/tell {NARRATIVE}")
    served.finish()
    for log in logs.glob("*.md"):   # the told line (the last) cut off
        log.write_text(log.read_text(encoding="utf-8").rsplit("\n- ", 1)[0] + "\n", encoding="utf-8")
    served.say(button="t2:yes")
    served.finish()
    assert served.channel.sent[-1].endswith(said) and _memory(example_ws) == before


def test_a_yes_after_a_file_it_changes_was_deleted_says_the_file_changed(example_ws):
    memory = example_ws.people_dir / "alice" / "MEMORY.md"
    served = _yes_after(example_ws, memory.unlink)
    assert served.channel.sent[-1] == (
        "Not written: people/alice/MEMORY.md changed since the proposal was made; nothing written. Tell it again "
        "with /tell: the proposal starts from the file as it is. What you told is kept in the log as a note.")
    assert not memory.exists()
