"""/tell from the phone goes through the same write transactions as
`heartcompass tell` (intake/tell): a hand edit made while the chat was open
gets its own commit, never mixed into the tell's."""

from __future__ import annotations

import pytest
from conftest import git, subjects
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


def test_a_hand_edit_before_a_phone_tell_is_its_own_commit(example_ws, fake):
    configure(example_ws, fake)
    proposal = {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": ["L1"]}]}
    model = FakeChat().enqueue(proposal, {"people": []})
    memory = example_ws.people_dir / "alice" / "MEMORY.md"
    with Served(example_ws, model) as served:
        fake.message("/switch alice")
        fake.wait_texts(1)
        served.settle()
        # the user's own line, typed in an editor while the chat is open
        memory.write_text(memory.read_text(encoding="utf-8").replace(
            "- Prefers calls after 21:00 on weekdays (hand)",
            "- Prefers calls after 21:00 on weekdays (hand)\n- 喜欢茉莉花茶 (hand)"), encoding="utf-8")
        fake.message("/tell She got promoted and is moving to Berlin in March")
        fake.wait_texts(2)
        fake.press(fake.calls("sendMessage")[-1]["reply_markup"]["inline_keyboard"][0][0]["callback_data"])
        assert fake.wait_texts(3)[2].startswith("Written and committed")
        served.stop()
    text = memory.read_text(encoding="utf-8")
    assert "Berlin" in text and "喜欢茉莉花茶 (hand)" in text
    tell_sha, edit_sha = git(example_ws, "log", "-2", "--format=%H").split()
    assert subjects(example_ws)[:2] == ["tell(alice): moving to Berlin", "edit(alice): by hand"]
    def added(sha: str) -> list[str]:
        return [line for line in git(example_ws, "show", sha, "--", "people/alice/MEMORY.md").splitlines()
                if line.startswith("+") and not line.startswith("+++")]

    assert added(edit_sha) == ["+- 喜欢茉莉花茶 (hand)"]
    assert not any("茉莉花茶" in line for line in added(tell_sha))


def test_a_phone_tell_shows_its_refused_line_and_writes_the_good_ones_on_yes(example_ws, fake):
    configure(example_ws, fake)
    good = {"text": "Lent the user 500 dollars", "evidence": ["L1"]}
    bad = {"text": "Lent the user 5000 dollars", "evidence": ["L1"]}
    model = FakeChat().enqueue({"summary": "a loan", "new_facts": [good, bad]}, {"summary": "left out"},
                               {"people": []})
    with Served(example_ws, model) as served:
        fake.message("/switch alice")
        fake.wait_texts(1)
        served.settle()
        fake.message("/tell she lent me 500 dollars")
        shown = fake.wait_texts(2)[1]
        assert "+- Lent the user 500 dollars" in shown
        assert "Refused, not written: alice: new_facts" in shown and "5000 does not appear" in shown
        fake.press(fake.calls("sendMessage")[-1]["reply_markup"]["inline_keyboard"][0][0]["callback_data"])
        assert fake.wait_texts(3)[2].startswith("Written and committed")
        served.stop()
    memory = (example_ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Lent the user 500 dollars" in memory and "5000" not in memory
