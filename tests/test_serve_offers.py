"""/tell's questions in an app chat survive a restart (gateway/tell_offers.py):
a Yes after a restart applies the proposal, unless its files changed
meanwhile (refused, nothing written); old questions expire; keys are never
reused. People the narrative names who are not in the workspace are offered
with their own Yes/No, and nothing is created until Yes."""

from __future__ import annotations

import json

import pytest
from conftest import git, subjects
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure

from heartcompass.gateway.tell_offers import EXPIRE_DAYS, TellOffers

pytest.importorskip("telegram")

NARRATIVE = "She got promoted and is moving to Berlin in March"


def berlin():
    return {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": ["L1"]}]}


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


@pytest.fixture
def bot(example_ws, fake):
    configure(example_ws, fake)
    return example_ws


def _buttons(fake) -> list[str]:
    return [b["callback_data"] for b in fake.calls("sendMessage")[-1]["reply_markup"]["inline_keyboard"][0]]


def _told_then_stopped(bot, fake, *people) -> list[str]:
    """/tell in one serve, which then stops (a restart) before the answer."""
    with Served(bot, FakeChat().enqueue(berlin(), {"people": list(people)})) as served:
        fake.message("/switch alice")
        fake.message(f"/tell {NARRATIVE}")
        fake.wait_texts(2 + len(people))
        served.settle()
        served.stop()
    return _buttons(fake) if not people else [b["callback_data"] for c in fake.calls("sendMessage")
                                              if "reply_markup" in c for b in c["reply_markup"]["inline_keyboard"][0]]


def test_a_yes_after_a_restart_still_applies_the_proposal(bot, fake):
    yes, no = _told_then_stopped(bot, fake)
    memory = bot.people_dir / "alice" / "MEMORY.md"
    assert "Berlin" not in memory.read_text(encoding="utf-8")
    kept = json.loads((bot.state_dir / "serve" / "tell_offers.json").read_text(encoding="utf-8"))
    assert yes.split(":")[0] in kept["waiting"]
    model = FakeChat()                                  # applying asks no model
    with Served(bot, model) as served:
        fake.press(yes)
        assert fake.wait_texts(3)[2].startswith("Written and committed")
        fake.press(yes)                                 # pressed again: answered once
        assert "no proposal waiting" in fake.wait_texts(4)[3]
        served.stop()
    assert "Moves to Berlin in March" in memory.read_text(encoding="utf-8")
    assert subjects(bot)[0] == "tell(alice): moving to Berlin"
    assert model.purposes == []
    assert not git(bot, "status", "--porcelain")


def test_a_proposal_whose_file_changed_meanwhile_is_refused_and_nothing_is_written(bot, fake):
    yes, _ = _told_then_stopped(bot, fake)
    memory = bot.people_dir / "alice" / "MEMORY.md"
    edited = memory.read_text(encoding="utf-8").replace("## Facts\n", "## Facts\n- Plays the cello (hand)\n", 1)
    assert "cello" in edited
    memory.write_text(edited, encoding="utf-8")         # a hand edit while serve was down
    before = subjects(bot)
    with Served(bot, FakeChat()) as served:
        fake.press(yes)
        said = fake.wait_texts(3)[2]
        served.settle()
        served.stop()
    assert said.startswith("Not written:") and "people/alice/MEMORY.md changed since the proposal" in said
    assert "Traceback" not in said
    assert memory.read_text(encoding="utf-8") == edited  # the hand edit stands; nothing of the proposal
    assert not any(s.startswith("tell(alice): moving") for s in subjects(bot))
    assert [s for s in subjects(bot) if s not in before] == ["tell(alice): noted, not applied"]


def test_old_questions_expire_and_keys_are_never_reused(tmp_path):
    now = [1_000_000.0]
    path = tmp_path / "tell_offers.json"
    kept = TellOffers(path, clock=lambda: now[0])
    first = kept.add("42", {"kind": "person", "name": "王小明"})
    second = kept.add("42", {"kind": "person", "name": "Bob"})
    now[0] += EXPIRE_DAYS * 86400 - 60
    assert TellOffers(path, clock=lambda: now[0]).take(second, "7") is None   # another chat's: not answered
    now[0] += 120                                                            # past the expiry
    again = TellOffers(path, clock=lambda: now[0])
    assert again.take(first, "42") is None and again.take(second, "42") is None
    assert json.loads(path.read_text(encoding="utf-8"))["waiting"] == {}
    third = again.add("42", {"kind": "person", "name": "Carol"})
    assert third not in (first, second)                                      # an old button cannot answer it
    assert TellOffers(path, clock=lambda: now[0]).take(third, "42")["name"] == "Carol"


def test_a_broken_offers_file_is_set_aside(tmp_path):
    path = tmp_path / "tell_offers.json"
    path.write_bytes(b"\xff{ not json")
    kept = TellOffers(path)
    assert kept.waiting == {} and path.with_suffix(".broken").read_bytes() == b"\xff{ not json"
    assert kept.add("42", {"kind": "person", "name": "A"}) == "t1"


def test_tell_offers_people_it_names_and_creates_them_only_on_yes(bot, fake):
    people = [{"name": "王小明", "relation": "friend", "about": "her hiking buddy in Berlin"},
              {"name": "Bob Stone", "relation": "stranger", "about": "the landlord"}]
    model = FakeChat().enqueue(berlin(), {"people": people})
    before = sorted(p.name for p in bot.people_dir.iterdir())
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.message(f"/tell {NARRATIVE}, with 王小明; Bob Stone is the landlord")
        texts = fake.wait_texts(4)
        asked = [c for c in fake.calls("sendMessage") if "reply_markup" in c]
        assert len(asked) == 3 and "Write these changes?" in asked[0]["text"]
        assert "王小明" in asked[1]["text"] and "Add 王小明 as a new person (friend)?" in asked[1]["text"]
        assert "Bob Stone" in texts[3] and "landlord" in texts[3]
        served.settle()
        assert sorted(p.name for p in bot.people_dir.iterdir()) == before   # nothing created yet
        buttons = [[b["callback_data"] for b in c["reply_markup"]["inline_keyboard"][0]] for c in asked]
        fake.press(buttons[2][1])                       # No to Bob
        assert fake.wait_texts(5)[4] == "Not added: Bob Stone."
        fake.press(buttons[1][0])                       # Yes to 王小明
        added = fake.wait_texts(6)[5]
        served.settle()
        served.stop()
    assert added.startswith("Added 王小明 in people/")
    new = sorted(set(p.name for p in bot.people_dir.iterdir()) - set(before))
    assert len(new) == 1
    profile = (bot.people_dir / new[0] / "PROFILE.md").read_text(encoding="utf-8")
    assert "王小明" in profile and "hiking buddy" in profile
    assert subjects(bot)[0] == f"add({new[0]}): new person"
    assert not (bot.people_dir / "bob-stone").exists()
    assert "Berlin" not in (bot.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")  # still unanswered


def test_offers_kept_under_the_old_file_name_still_answer(example_ws):
    """An offer an older serve kept in proposals.json is found under tell_offers.json."""
    from heartcompass.gateway.tell_offers import for_workspace

    serve = example_ws.state_dir / "serve"
    old = TellOffers(serve / "proposals.json")
    key = old.add("42", {"kind": "person", "name": "王小明"})
    assert for_workspace(example_ws).take(key, "42")["name"] == "王小明"
    assert (serve / "tell_offers.json").is_file() and not (serve / "proposals.json").exists()
