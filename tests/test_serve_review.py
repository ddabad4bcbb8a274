"""The gardener's questions on the phone: /review sends each with Yes/No
buttons (Telegram's inline keyboard, Lark's card), a Yes or a No does what
`review yes/no` does, and an old button says the question is gone."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import git, subjects
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure, wait_until
from test_review import profile, relation

from heartcompass.memory.questions import Questions
from heartcompass.store import clock

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


def buttons(fake: FakeTelegram, text_has: str) -> list[str]:
    sent = next(c for c in reversed(fake.calls("sendMessage")) if text_has in c["text"])
    return [b["callback_data"] for row in sent["reply_markup"]["inline_keyboard"] for b in row]


def test_review_on_the_phone_asks_with_buttons_and_a_yes_commits(example_ws, fake):
    configure(example_ws, fake)
    relation(example_ws)
    with Served(example_ws, FakeChat()) as served:
        fake.message("/review")
        texts = fake.wait_texts(1)
        assert "alice: relation: friend → dating" in texts[0] and "我们在一起了" in texts[0]
        assert buttons(fake, "relation: friend") == ["q1:yes", "q1:no"]
        fake.press("q1:yes")
        assert fake.wait_texts(2)[1].startswith("Applied and committed")
        fake.press("q1:yes")  # an old button: the question was answered
        assert "no longer waits" in fake.wait_texts(3)[2]
        served.settle()
        served.stop()
    assert subjects(example_ws)[0] == "review(alice): relation friend → dating"
    assert "relation: dating" in profile(example_ws) and not git(example_ws, "status", "--porcelain")


def test_a_no_from_the_phone_is_remembered_as_review_no(example_ws, fake):
    configure(example_ws, fake)
    relation(example_ws)
    before = subjects(example_ws)
    with Served(example_ws, FakeChat()) as served:
        fake.message("/review")
        fake.wait_texts(1)
        fake.press("q1:no")
        assert fake.wait_texts(2)[1].startswith("Not applied: alice: relation: friend → dating")
        fake.message("/review")
        assert fake.wait_texts(3)[2] == "No questions wait for your answer."
        served.stop()
    assert subjects(example_ws) == before and relation(example_ws) is None  # never asked again


def test_an_expired_question_is_said_once_and_its_button_is_gone(example_ws, fake, monkeypatch):
    configure(example_ws, fake)
    relation(example_ws)
    later = clock.now(example_ws) + dt.timedelta(days=15)
    with Served(example_ws, FakeChat()) as served:
        fake.message("/review")
        fake.wait_texts(1)
        monkeypatch.setattr(clock, "now", lambda _ws: later)
        fake.message("/review")
        texts = fake.wait_texts(3)
        assert texts[1].startswith("Expired unanswered after 14 days: alice: relation")
        assert texts[2] == "No questions wait for your answer."
        fake.press("q1:yes")
        assert "no longer waits: it was answered or it expired" in fake.wait_texts(4)[3]
        served.stop()
    assert "relation: friend" in profile(example_ws)


def test_the_morning_digest_mentions_the_questions(example_ws):
    from heartcompass.memory import followups

    relation(example_ws)
    text = followups.digest(followups.with_questions(example_ws, clock.today(example_ws)))
    assert "Waiting for your answer (heartcompass review; /review on the phone):" in text
    assert "- alice: relation: friend → dating (q1)" in text


def test_review_on_lark_asks_on_a_card_and_its_button_applies(example_ws):
    pytest.importorskip("lark_oapi")
    from fake_lark import FakeLark, card_event, message_event
    from test_serve_lark import LarkServed

    from heartcompass.store.config_edit import set_config

    server = FakeLark()
    try:
        set_config(example_ws, "lark.domain", server.base)
        set_config(example_ws, "lark.allowed_users", "ou_owner")
        relation(example_ws)
        served = LarkServed(example_ws, server, FakeChat())
        served.feed(message_event("/review"))
        server.wait_texts(1)
        card = server.messages()[0]
        assert card["msg_type"] == "interactive" and '"answer": "q1:yes"' in card["content"]
        served.feed(card_event("q1:yes"))
        assert server.wait_texts(2)[1].startswith("Applied and committed")
        wait_until(lambda: served.gateway.idle())
        served.stop()
    finally:
        server.close()
    assert subjects(example_ws)[0] == "review(alice): relation friend → dating"
    assert Questions(example_ws).pending() == []
