"""`tell` on the core (intake/tell.py), with a scripted fake model and no
CLI: the narrative is logged before any model is called; the proposal is
for the person and every known person it names; applied, it is one commit
with the note marked applied; not applied, the note stays for the gardener;
a hand edit is never overwritten, and a failed write loses nothing."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import git, subjects
from fakes import FakeChat
from heartcompass.errors import HeartCompassError
from heartcompass.formats import dailylog, memory as memory_fmt
from heartcompass.intake import cards, tell
from heartcompass.store.people import Person

NOW = dt.datetime(2026, 12, 1, 9, 30, 5)
NO_ONE_NEW = {"people": []}
NARRATIVE = "She got promoted and is moving to Berlin in March"


def berlin(who="L1"):
    return {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": [who]}],
        "new_events": [{"date": NOW.date().isoformat(), "text": "Got promoted; moving to Berlin in March",
                        "weight": 0.8, "evidence": [who]}]}


def _alice(ws) -> Person:
    return Person("alice", ws.people_dir / "alice")


def _facts(ws, slug="alice"):
    return memory_fmt.load(ws.people_dir / slug / "MEMORY.md").items(memory_fmt.FACTS)


def _entries(note):
    return [(e.time, e.speaker, e.tags, e.text) for e in dailylog.load(note.path)]


# -- the note, first -------------------------------------------------------------------------------------------------

def test_the_narrative_is_logged_as_a_note_in_todays_log_before_anything_else(example_ws):
    note = tell.log_note(_alice(example_ws), "她三月搬去柏林", NOW)
    assert note.path == dailylog.log_path(example_ws.people_dir / "alice", NOW.date())
    assert (note.day, note.position, note.text, note.person.slug) == (NOW.date(), 0, "她三月搬去柏林", "alice")
    assert _entries(note) == [("09:30:05", "note", [], "她三月搬去柏林")]
    second = tell.log_note(_alice(example_ws), "", NOW)
    assert (second.position, second.text) == (1, "(screenshots)")  # screenshots alone: still a note


def test_a_note_kept_stays_unmarked_for_the_gardener_in_a_tells_commit(example_ws):
    note = tell.log_note(_alice(example_ws), NARRATIVE, NOW)
    sha = tell.keep_note(example_ws, note)
    assert sha == git(example_ws, "rev-parse", "HEAD").strip()
    assert git(example_ws, "log", "-1", "--format=%s%n%b").strip() == (
        f"tell(alice): noted, proposal declined\nTold: {NARRATIVE}")
    assert _entries(note) == [("09:30:05", "note", [], NARRATIVE)] and git(example_ws, "status", "--porcelain") == ""
    tell.keep_note(example_ws, tell.log_note(_alice(example_ws), "x", NOW), "nothing to change")
    assert subjects(example_ws)[0] == "tell(alice): noted, nothing to change"


# -- who the narrative names -----------------------------------------------------------------------------------------

def _add(ws, name, relation="friend", aliases=()):
    from heartcompass.store.lifecycle import add_person

    return add_person(ws, name, relation, aliases=list(aliases))


def test_the_person_first_then_every_known_person_the_narrative_names(example_ws):
    _add(example_ws, "Bob Li", aliases=["Bobby"])
    _add(example_ws, "Jo")
    _add(example_ws, "Q")
    alice = _alice(example_ws)
    found = tell.mentioned(example_ws, alice, "She moves to Berlin; BOBBY drives, q waves, and Alice Chen packs")
    assert [p.slug for p in found] == ["alice", "bob-li"]  # a one-letter name is no mention; she is hers once
    assert [p.slug for p in tell.mentioned(example_ws, alice, "jo and bob li")] == ["alice", "bob-li", "jo"]
    assert [p.slug for p in tell.mentioned(example_ws, alice, "Joanne came")] == ["alice"]  # whole names only


def test_the_narrator_and_a_broken_profile_are_never_mentions(example_ws):
    me = example_ws.people_dir / "me" / "PROFILE.md"
    assert "relation: self" in me.read_text(encoding="utf-8")
    _add(example_ws, "Bob Li")
    name = Person("me", example_ws.people_dir / "me").load_profile().name
    _add(example_ws, "Cy Wu")
    broken = example_ws.people_dir / "bob-li" / "PROFILE.md"
    broken.write_text("---\nname: [\n---\n", encoding="utf-8")
    found = tell.mentioned(example_ws, _alice(example_ws), f"{name} told Bob Li and cy wu about Alice")
    assert [p.slug for p in found] == ["alice", "cy-wu"]


# -- people the narrative names who are not in the workspace ---------------------------------------------------------

def test_someone_named_is_offered_as_a_new_person_but_never_a_pronoun_or_someone_known(example_ws):
    model = FakeChat().enqueue({"people": [
        {"name": "She", "relation": "friend", "about": "Alice"}, {"name": "她", "relation": "friend", "about": "x"},
        {"name": "alice chen", "relation": "friend", "about": "x"}, {"name": " ", "relation": "friend", "about": "x"},
        {"name": "小爱", "relation": "friend", "about": "x"},
        {"name": "Mei", "relation": "self", "about": "her sister\u2028## Facts"},
        {"name": "Jun", "relation": "coworker", "about": "colleague"}, {"name": "Ann", "relation": "family",
                                                                        "about": "aunt"}]})
    found = tell._unknown_people(example_ws, model, "Mei, Jun and Ann came; she and Alice Chen cried")
    assert [(p.name, p.relation, p.about) for p in found] == [
        ("Mei", "friend", "her sister ## Facts"), ("Jun", "friend", "colleague"), ("Ann", "family", "aunt")]


def test_the_known_names_are_in_the_request_and_the_narrative_is_the_question(example_ws):
    model = FakeChat().enqueue(NO_ONE_NEW)
    assert tell._unknown_people(example_ws, model, "Mei came") == []
    (purpose,) = model.purposes
    request = model.request(purpose)
    system, human = request.messages
    assert system.content.startswith("List the people this narrative mentions by name who are not in the known "
                                     "list (and are not the narrator). Known: ")
    assert "Alice Chen" in system.content and "小爱" in system.content and human.content == "Mei came"


def test_no_narrative_asks_no_one_and_a_failed_call_offers_no_one(example_ws):
    model = FakeChat()
    assert tell._unknown_people(example_ws, model, "  \n") == [] and model.purposes == []
    failing = FakeChat().enqueue(RuntimeError("down"))
    assert tell._unknown_people(example_ws, failing, "Mei came") == []


def test_a_new_persons_relation_is_never_self_and_the_offer_lists_the_others():
    assert tell.NewPerson(name="Mei", relation="self", about="x").relation == "friend"
    assert tell.NewPerson(name="Mei", relation="dating", about="x").relation == "dating"
    assert "self" not in tell.OFFERED and set(tell.OFFERED) | {"self"} == set(tell.RELATIONS)
    schema = tell.Mentions.model_json_schema()
    relation = schema["$defs"]["NewPerson"]["properties"]["relation"]
    assert relation["enum"] == list(tell.OFFERED)
    assert relation["description"] == ", ".join(tell.OFFERED[:-1]) + " or " + tell.OFFERED[-1]
    assert schema["properties"]["people"]["maxItems"] == 10
    assert tell.NewPerson(name="M", relation="friend", about="a\nb  c").about == "a b c"


# -- the proposal ------------------------------------------------------------------------------------------------------

def test_a_plan_shows_each_changed_file_as_a_diff_and_writes_nothing(example_ws):
    before = {p: p.read_text(encoding="utf-8") for p in (example_ws.people_dir / "alice").glob("*.md")}
    model = FakeChat().enqueue(berlin(), {"people": [{"name": "Mei", "relation": "family", "about": "sister"}]})
    plan = tell.plan(example_ws, model, _alice(example_ws), NARRATIVE, NOW)
    assert plan.has_changes and [p.person.slug for p in plan.plans] == ["alice"]
    (alice,) = plan.plans
    assert alice.name == "Alice Chen" and alice.summary == "moving to Berlin" and alice.refused == []
    assert sorted(alice.diffs) == ["people/alice/EVENTS.md", "people/alice/MEMORY.md"]
    assert "+- Moves to Berlin in March after a promotion" in alice.diffs["people/alice/MEMORY.md"]
    assert "-- Moves to Kyoto in January" in alice.diffs["people/alice/MEMORY.md"]
    assert sorted(p.name for p in alice.texts) == ["EVENTS.md", "MEMORY.md"] and alice.changes
    assert set(alice.originals) >= set(alice.texts)
    assert [u.name for u in plan.unknown] == ["Mei"] and plan.narrative == NARRATIVE and plan.now == NOW
    told = model.request("tell")
    assert "L1 [" in told.prompt and "note · trusted" in told.prompt and NARRATIVE in told.prompt
    assert {p: p.read_text(encoding="utf-8") for p in before} == before


def test_a_proposal_that_changes_nothing_has_no_changes_and_its_refused_lines_are_said():
    from heartcompass.intake.tell import PersonPlan, TellPlan

    alice = Person("alice", None)  # type: ignore[arg-type]
    plan = TellPlan(alice, "x", NOW, [PersonPlan(alice, "Alice", {}, {}, {}, [], "",
                                                 [{"kind": "new_fact", "statement": {"text": "A claim"}, "reasons": ["no evidence"]}])])
    assert not plan.has_changes
    assert plan.refused_lines() == ['alice: new_fact {"text": "A claim"} -- no evidence']
    assert TellPlan(alice, "x", NOW).refused_lines() == [] and not TellPlan(alice, "x", NOW).has_changes


# -- applied ---------------------------------------------------------------------------------------------------------

def _planned(ws, *script, narrative=NARRATIVE):
    note = tell.log_note(_alice(ws), narrative, NOW)
    plan = tell.plan(ws, FakeChat().enqueue(*script), _alice(ws), narrative, NOW)
    return note, plan


def test_an_applied_tell_is_one_commit_with_the_note_marked_applied(example_ws, monkeypatch):
    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    held = []
    real = audit.commit_or_roll_back
    monkeypatch.setattr(audit, "commit_or_roll_back", lambda *a, **kw: held.append(
        (holder(example_ws.state_dir / "lock") or {}).get("purpose")) or real(*a, **kw))
    sha = tell.apply_plan(example_ws, plan, note, NOW)
    assert held == ["tell"] and sha == git(example_ws, "rev-parse", "HEAD").strip()
    assert git(example_ws, "log", "-1", "--format=%s").strip() == "tell(alice): moving to Berlin"
    body = git(example_ws, "log", "-1", "--format=%b").strip()
    assert body.startswith(f"Told: {NARRATIVE}\n\nalice: ") and len(body.splitlines()) == 2 + len(plan.plans[0].changes)
    assert _facts(example_ws)[0].startswith("- Moves to Berlin in March after a promotion (log ")
    assert [(e[1], e[2]) for e in _entries(note)] == [("note", []), ("mark", ["applied 1"])]
    assert dailylog.load(note.path)[1].text == "tell applied it to the files"
    files = git(example_ws, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(files) == sorted(["people/alice/EVENTS.md", "people/alice/MEMORY.md",
                                    example_ws.rel(note.path)])
    assert git(example_ws, "status", "--porcelain") == ""
    assert not list((example_ws.state_dir / "tell").glob("*.json"))  # the journal is gone with the commit


def test_the_purpose_of_a_phones_tell_is_its_own(example_ws, monkeypatch):
    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    held = []
    real = audit.commit_or_roll_back
    monkeypatch.setattr(audit, "commit_or_roll_back", lambda *a, **kw: held.append(
        (holder(example_ws.state_dir / "lock") or {}).get("purpose")) or real(*a, **kw))
    tell.apply_plan(example_ws, plan, note, NOW, purpose="serve")
    tell.keep_note(example_ws, tell.log_note(_alice(example_ws), "x", NOW), purpose="serve")
    tell.discard_note(example_ws, tell.log_note(_alice(example_ws), "y", NOW), NOW, purpose="serve")
    assert held == ["serve", "serve", "serve"]


def test_other_people_named_are_written_in_the_same_commit(example_ws):
    _add(example_ws, "Bob Li", aliases=["Bobby"])
    note, plan = _planned(example_ws, berlin(), {"summary": "Bob helps", "new_facts": [
        {"text": "Is helping Alice move to Berlin", "evidence": ["L1"]}]}, NO_ONE_NEW,
        narrative="She moves to Berlin; bobby is driving the van")
    assert [p.person.slug for p in plan.plans] == ["alice", "bob-li"]
    tell.apply_plan(example_ws, plan, note, NOW)
    assert subjects(example_ws)[0] == "tell(alice): moving to Berlin (also bob-li)"
    assert _facts(example_ws, "bob-li")[0].startswith("- Is helping Alice move to Berlin")
    files = git(example_ws, "show", "--name-only", "--format=", "HEAD").split()
    assert "people/bob-li/MEMORY.md" in files and "people/alice/MEMORY.md" in files
    body = git(example_ws, "log", "-1", "--format=%b")
    assert "\nbob-li: " in body and "\nalice: " in body


def test_a_long_summary_is_cut_to_60_characters_in_the_subject(example_ws):
    long = berlin()
    long["summary"] = "x" * 70
    note, plan = _planned(example_ws, long, NO_ONE_NEW)
    tell.apply_plan(example_ws, plan, note, NOW)
    assert subjects(example_ws)[0] == "tell(alice): " + "x" * 60


def test_hand_edits_of_others_are_committed_as_theirs_first(example_ws):
    _add(example_ws, "Bob Li", aliases=["Bobby"])
    bob = example_ws.people_dir / "bob-li" / "PROFILE.md"
    note, plan = _planned(example_ws, berlin(), {"summary": "Bob helps", "new_facts": [
        {"text": "Is helping Alice move to Berlin", "evidence": ["L1"]}]}, NO_ONE_NEW,
        narrative="She moves to Berlin; bobby is driving the van")
    bob.write_text(bob.read_text(encoding="utf-8") + "\nLikes vans.\n", encoding="utf-8")
    tell.apply_plan(example_ws, plan, note, NOW)
    mine = subjects(example_ws)
    assert mine[0].startswith("tell(alice): ") and mine[1] == "edit(bob-li): by hand"
    assert "people/bob-li/PROFILE.md" not in git(example_ws, "show", "--name-only", "--format=", "HEAD").split()


def test_a_file_changed_since_the_proposal_refuses_the_tell_and_writes_nothing(example_ws):
    from heartcompass.atomic import ConcurrentEditError

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    memory = example_ws.people_dir / "alice" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\n<!-- mine -->\n", encoding="utf-8")
    events = (example_ws.people_dir / "alice" / "EVENTS.md").read_text(encoding="utf-8")
    with pytest.raises(ConcurrentEditError) as refused:
        tell.apply_plan(example_ws, plan, note, NOW)
    assert refused.value.message == "people/alice/MEMORY.md changed since the proposal was made; nothing written."
    assert refused.value.hint == "Run the tell again."
    assert memory.read_text(encoding="utf-8").endswith("<!-- mine -->\n")
    assert (example_ws.people_dir / "alice" / "EVENTS.md").read_text(encoding="utf-8") == events
    assert [(e[1], e[2]) for e in _entries(note)] == [("note", [])]


def test_a_file_the_tell_would_create_that_appeared_meanwhile_refuses_it(example_ws):
    from heartcompass.atomic import ConcurrentEditError

    events = example_ws.people_dir / "alice" / "EVENTS.md"
    events.unlink()
    git(example_ws, "commit", "-qam", "no events")
    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    assert plan.plans[0].originals[events] is None and events in plan.plans[0].texts
    events.write_text("# Events — Alice Chen\n\n", encoding="utf-8")
    with pytest.raises(ConcurrentEditError):
        tell.apply_plan(example_ws, plan, note, NOW)
    assert events.read_text(encoding="utf-8") == "# Events — Alice Chen\n\n"


def test_a_new_file_the_tell_creates_is_written_and_committed(example_ws):
    events = example_ws.people_dir / "alice" / "EVENTS.md"
    events.unlink()
    git(example_ws, "commit", "-qam", "no events")
    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    tell.apply_plan(example_ws, plan, note, NOW)
    assert "Got promoted; moving to Berlin in March" in events.read_text(encoding="utf-8")
    assert git(example_ws, "status", "--porcelain") == ""


def test_an_unfinished_garden_of_the_person_refuses_the_tell(example_ws):
    from heartcompass.store import unfinished

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    journal = unfinished.garden_journal_path(example_ws, "alice")
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text("{}", encoding="utf-8")
    memory = (example_ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    with pytest.raises(HeartCompassError) as refused:
        tell.apply_plan(example_ws, plan, note, NOW)
    assert refused.value.message == "A garden of alice was interrupted and is not finished yet; nothing written."
    assert refused.value.hint == "Run 'heartcompass garden' (it finishes it), then the tell again."
    assert (example_ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8") == memory


def test_a_hand_save_in_the_instant_before_a_write_puts_the_others_back_and_keeps_the_note(example_ws, monkeypatch):
    from heartcompass.atomic import ConcurrentEditError

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    folder = example_ws.people_dir / "alice"
    before = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    real = tell.write_atomic
    writes = []

    def second_refused(path, text, expected_checksum="any"):
        writes.append(path.name)
        if len(writes) == 2:
            raise ConcurrentEditError(f"{path} changed on disk", "again")
        return real(path, text, expected_checksum)

    monkeypatch.setattr(tell, "write_atomic", second_refused)
    with pytest.raises(ConcurrentEditError):
        tell.apply_plan(example_ws, plan, note, NOW)
    monkeypatch.undo()
    assert {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")} == before
    assert [(e[1], e[2]) for e in _entries(note)] == [("note", []), ("mark", ["applied 1"]), ("note", [])]
    assert dailylog.load(note.path)[2].text == NARRATIVE  # logged again, unmarked: the gardener reads it
    assert not list((example_ws.state_dir / "tell").glob("*.json"))


def test_a_refused_commit_puts_the_files_back_and_logs_the_note_again(example_ws, monkeypatch):
    from heartcompass.store import audit

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    folder = example_ws.people_dir / "alice"
    before = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    head = subjects(example_ws)
    real = audit.commit_or_roll_back

    def refused(ws, paths, *a, **kw):
        ws.git.roll_back(paths)
        raise HeartCompassError("a hook refused the commit")

    monkeypatch.setattr(audit, "commit_or_roll_back", refused)
    with pytest.raises(HeartCompassError, match="hook refused"):
        tell.apply_plan(example_ws, plan, note, NOW)
    monkeypatch.setattr(audit, "commit_or_roll_back", real)
    assert {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")} == before
    assert subjects(example_ws) == head
    assert [(e[1], e[2], e[3]) for e in _entries(note)][-1] == ("note", [], NARRATIVE)
    assert not list((example_ws.state_dir / "tell").glob("*.json"))


def test_a_tell_journal_names_the_texts_before_the_first_write(example_ws, monkeypatch):
    """Killed after its first write, the journal already holds the old and new text of every file."""
    import json

    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    seen = []

    class Killed(BaseException):
        pass

    def first_write(path, text, expected_checksum="any"):
        journal = example_ws.state_dir / "tell" / "alice.json"
        seen.append(json.loads(journal.read_text(encoding="utf-8")))
        raise Killed()

    monkeypatch.setattr(tell, "write_atomic", first_write)
    with pytest.raises(Killed):
        tell.apply_plan(example_ws, plan, note, NOW)
    (saved,) = seen
    assert saved["subject"] == "tell(alice): moving to Berlin" and saved["body"].startswith(f"Told: {NARRATIVE}")
    assert sorted(saved["files"]) == ["people/alice/EVENTS.md", "people/alice/MEMORY.md"]
    memory = saved["files"]["people/alice/MEMORY.md"]
    from heartcompass.atomic import checksum

    assert memory["old"] == checksum(plan.plans[0].originals[example_ws.people_dir / "alice" / "MEMORY.md"])
    assert "Moves to Berlin in March" in memory["new"]


# -- screenshots -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("magic, kind", [(b"\xff\xd8\xff\xe0", "image/jpeg"), (b"GIF87a", "image/gif"),
                                         (b"GIF89a", "image/gif"), (b"\x89PNG\r\n\x1a\n", "image/png")])
def test_a_screenshot_is_sent_as_the_image_it_is(tmp_path, magic, kind):
    path = tmp_path / "shot"
    path.write_bytes(magic + b"rest")
    assert tell.image_url(path) == f"data:{kind};base64," + __import__("base64").b64encode(magic + b"rest").decode()


def test_an_unreadable_screenshot_is_a_clear_error(tmp_path):
    with pytest.raises(HeartCompassError) as refused:
        tell.image_url(tmp_path / "missing.png")
    assert refused.value.message == f"Cannot read the image {tmp_path / 'missing.png'}: No such file or directory."
    text = tmp_path / "notes.txt"
    text.write_text("not an image")
    with pytest.raises(HeartCompassError) as refused:
        tell.image_url(text)
    assert refused.value.hint == "Take the screenshot as PNG or JPEG."


def test_a_screenshot_of_exactly_20_mb_is_taken(tmp_path):
    path = tmp_path / "big.png"
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.truncate(tell.MAX_IMAGE_BYTES)
    assert tell.MAX_IMAGE_BYTES == 20 * 1024 * 1024
    assert tell.image_url(path).startswith("data:image/png;base64,")


def test_screenshots_go_to_the_model_as_images_with_the_narrative(example_ws):
    url = "data:image/png;base64,iVBORw0KGgo="
    model = FakeChat().enqueue(berlin(), NO_ONE_NEW)
    tell.plan(example_ws, model, _alice(example_ws), "what she sent", NOW, [url])
    content = model.request("tell").messages[-1].content
    assert isinstance(content, list) and content[0]["type"] == "text"
    assert content[1]["image_url"]["url"] == url


# -- more of the tell's promises ------------------------------------------------------------------------------------

class Bounded(FakeChat):
    """A client with a max_tokens field of its own: what each call was bounded to is recorded."""

    max_tokens: int | None = None
    bounds: list = []

    def _next(self, messages, schema=None):
        self.bounds.append(self.max_tokens)
        return super()._next(messages, schema)


def test_the_request_for_new_people_is_short(example_ws):
    model = Bounded(bounds=[]).enqueue(NO_ONE_NEW)
    tell._unknown_people(example_ws, model, "Mei came")
    assert model.bounds == [512]


def test_a_broken_profile_is_known_by_its_folder_name(example_ws):
    _add(example_ws, "Bob Li")
    (example_ws.people_dir / "bob-li" / "PROFILE.md").write_text("---\nname: [\n---\n", encoding="utf-8")
    model = FakeChat().enqueue(NO_ONE_NEW)
    tell._unknown_people(example_ws, model, "Mei came")
    (purpose,) = model.purposes
    known = model.request(purpose).messages[0].content.split("Known: ")[1].split(", ")
    assert "bob-li" in known and "Alice Chen" in known and "Bob Li" not in known


def test_a_hand_edit_of_the_told_persons_files_is_their_own_commit_first(example_ws):
    note, plan = _planned(example_ws, berlin(), NO_ONE_NEW)
    prof = example_ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text(encoding="utf-8") + "\nLikes rain.\n", encoding="utf-8")
    tell.apply_plan(example_ws, plan, note, NOW)
    assert subjects(example_ws)[:2] == ["tell(alice): moving to Berlin", "edit(alice): by hand"]
    by_hand = git(example_ws, "show", "--name-only", "--format=", "HEAD~1").split()
    assert by_hand == ["people/alice/PROFILE.md"]  # the note is the tell's, not the hand edit's
    assert example_ws.rel(note.path) in git(example_ws, "show", "--name-only", "--format=", "HEAD").split()


def test_a_plan_for_no_one_is_committed_as_noted(example_ws):
    note = tell.log_note(_alice(example_ws), NARRATIVE, NOW)
    plan = tell.TellPlan(_alice(example_ws), NARRATIVE, NOW)
    sha = tell.apply_plan(example_ws, plan, note, NOW)
    assert sha and subjects(example_ws)[0] == "tell(alice): noted"
    assert git(example_ws, "log", "-1", "--format=%b").strip() == f"Told: {NARRATIVE}"


def test_the_summary_is_said_without_its_spaces(example_ws):
    spaced = berlin()
    spaced["summary"] = "  moving to Berlin \n"
    note, plan = _planned(example_ws, spaced, NO_ONE_NEW)
    assert plan.plans[0].summary == "moving to Berlin"


def test_a_card_import_holds_the_lock_as_import_card_and_keeps_a_real_mbti(ws, tmp_path, monkeypatch):
    from heartcompass.store import lifecycle
    from heartcompass.store.lock import holder

    held = []
    real = lifecycle.commit_or_roll_back
    monkeypatch.setattr(lifecycle, "commit_or_roll_back", lambda *a, **kw: held.append(
        (holder(ws.state_dir / "lock") or {}).get("purpose")) or real(*a, **kw))
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"name": "Rin", "description": "x", "extensions": {"heartcompass": {"mbti": "enfp"}}}))
    person = cards.import_card(ws, path)
    assert held == ["import-card"] and person.load_profile().mbti == "ENFP"
