"""`serve` on Telegram, end to end against a local fake Bot API server
(through telegram.api_base, with the real python-telegram-bot) and a fake
model: owners and strangers, pairing, /switch, bursts, restarts, a model
that is down, a repository that refuses commits, a stop mid-reply."""

from __future__ import annotations

import re
import threading

import pytest
from conftest import Runner, git, subjects
from waits import DEADLINE
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure, log_entries, wait_until

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


@pytest.fixture
def bot(example_ws, fake):
    configure(example_ws, fake)
    return example_ws


def test_a_stranger_gets_one_short_refusal_and_nothing_of_theirs_is_kept(bot, fake):
    model = FakeChat()
    before = subjects(bot)
    with Served(bot, model) as served:
        fake.message("/switch alice", user=7)
        fake.message("hello, who are you? 我是谁", user=7)
        fake.message("/note secret", user=7)
        fake.wait_for(lambda: fake.polls > 6)
        served.stop()
    texts = fake.texts(chat=7)
    assert len(texts) == 1 and "serve --pair" in texts[0]
    assert model.purposes == []
    assert not any("我是谁" in e.text or "secret" in e.text for e in log_entries(bot, "alice"))
    assert subjects(bot) == before


def test_pairing_adds_the_sender_once_and_then_they_are_the_owner(example_ws, fake):
    configure(example_ws, fake, owners="")
    model = FakeChat().enqueue("你好呀")
    with Served(example_ws, model, pair="pair-abc123") as served:
        fake.message("hi", user=99)                      # before pairing: refused
        fake.message("pair-abc123", user=99)
        fake.wait_texts(2, chat=99)
        fake.message("pair-abc123", user=55)             # the code works once only
        fake.message("/switch 小爱", user=99)              # an alias, in Chinese
        fake.message("在吗？", user=99)
        fake.wait_texts(4, chat=99)
        served.stop()
    assert example_ws.config.get("telegram.allowed_users") == ["99"]
    assert 'allowed_users = ["99"]' in (example_ws.root / "heartcompass.toml").read_text(encoding="utf-8")
    texts = fake.texts(chat=99)
    assert "serve --pair" in texts[0] and texts[1].startswith("Paired")
    assert texts[3] == "你好呀"
    assert len(fake.texts(chat=55)) == 1 and "serve --pair" in fake.texts(chat=55)[0]
    assert any(s.startswith("config:") for s in subjects(example_ws))


def test_a_burst_is_answered_once_as_several_messages_with_typing_and_committed(bot, fake):
    model = FakeChat().enqueue("Oh no! ||| Are you ok? ||| 要不要见面？")
    with Served(bot, model, quiet=0.5) as served:
        fake.message("/switch alice")
        fake.wait_texts(1)
        for text in ("guess what", "I lost my keys", "钥匙丢了"):
            fake.message(text)
        texts = fake.wait_texts(4)
        served.stop()
    assert texts[1:] == ["Oh no!", "Are you ok?", "要不要见面？"]
    assert len(model.purposes) == 1
    assert "钥匙丢了" in model.request("chat").prompt and "guess what" in model.request("chat").prompt
    assert len(fake.calls("sendChatAction")) >= 3  # before the reply and before each message after the first
    entries = [(e.speaker, e.text) for e in log_entries(bot, "alice")]
    assert entries[-6:] == [("me", "guess what"), ("me", "I lost my keys"), ("me", "钥匙丢了"),
                            ("persona", "Oh no!"), ("persona", "Are you ok?"), ("persona", "要不要见面？")]
    assert subjects(bot)[0] == f"chat(alice): 6 messages on {entries and _today(bot)}"
    assert not git(bot, "status", "--porcelain")
    assert {c["command"] for c in fake.calls("setMyCommands")[0]["commands"]} >= {"switch", "tell", "retry"}


def _today(ws) -> str:
    from heartcompass.store import clock

    return clock.today(ws).isoformat()


def test_a_message_delivered_again_after_a_restart_is_not_handled_twice(bot, fake):
    model = FakeChat().enqueue("hi!")
    with Served(bot, model) as served:
        fake.message("/switch alice")
        update = fake.message("hello there")
        fake.wait_texts(2)
        served.stop()
    state = (bot.state_dir / "serve" / "telegram.json").read_text(encoding="utf-8")
    assert f'"offset": {update + 1}' in state
    fake.redeliver(update)                     # the app sends it again (an acknowledgement lost)
    with Served(bot, model) as served:         # a new process: the state file remembers
        fake.wait_for(lambda: fake.polls > 12)
        served.stop()
    assert [e.text for e in log_entries(bot, "alice") if e.speaker == "me"] == ["hello there"]
    assert len(model.purposes) == 1


def test_the_model_down_keeps_the_messages_and_says_so_in_one_line(bot, fake):
    model = FakeChat().enqueue(ConnectionRefusedError(111, "Connection refused"), "back again")
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.message("are you there?")
        texts = fake.wait_texts(2)
        assert "model cannot be reached" in texts[1] and "/retry" in texts[1] and "\n" not in texts[1]
        assert [e.text for e in log_entries(bot, "alice") if e.speaker == "me"] == ["are you there?"]
        fake.message("/retry")
        texts = fake.wait_texts(3)
        served.stop()
    assert texts[2] == "back again"
    assert "are you there?" in model.request("chat", 1).prompt  # /retry's
    assert subjects(bot)[0].startswith("chat(alice):")


def test_a_repository_that_refuses_commits_is_said_once_and_committed_when_fixed(bot, fake):
    model = FakeChat().enqueue("one", "two", "three")
    lock = bot.root / ".git" / "index.lock"
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.wait_texts(1)
        lock.write_text("")                    # a stale index.lock: git takes no commit
        fake.message("first")
        fake.wait_texts(3)
        fake.message("second")
        fake.wait_texts(4)
        served.settle()
        texts = fake.texts()
        assert sum("Not committed yet" in t for t in texts) == 1
        assert "index.lock" in next(t for t in texts if "Not committed yet" in t)
        assert [e.text for e in log_entries(bot, "alice")][-4:] == ["first", "one", "second", "two"]
        lock.unlink()                          # fixed: the next round commits everything
        fake.message("third")
        fake.wait_texts(5)
        served.stop()
    assert subjects(bot)[0] == f"chat(alice): 6 messages on {_today(bot)}", subjects(bot)[:3]
    assert not git(bot, "status", "--porcelain")


def test_a_stop_mid_reply_finishes_the_reply_commits_and_exits(bot, fake):
    started, release = threading.Event(), threading.Event()

    class Slow(FakeChat):
        def _stream(self, *args, **kwargs):
            for chunk in super()._stream(*args, **kwargs):
                started.set()
                release.wait(DEADLINE)
                yield chunk

    model = Slow().enqueue("first part ||| second part")
    served = Served(bot, model)
    fake.message("/switch alice")
    fake.message("tell me")
    assert started.wait(DEADLINE)
    served.stop_event.set()                    # what SIGTERM does
    release.set()
    served.stop()
    assert fake.texts()[1:] == ["first part", "second part"]
    assert [e.text for e in log_entries(bot, "alice")][-2:] == ["first part", "second part"]
    # SIGTERM commits what was logged at once; the reply that finishes after it is committed at the end
    chats = [s for s in subjects(bot) if s.startswith("chat(alice):")][:2]
    assert sum(int(re.search(r"(\d+) messages?", s)[1]) for s in chats) == 3, chats
    assert not git(bot, "status", "--porcelain")


def test_switch_who_list_note_and_unknown_commands(bot, fake):
    with Served(bot, FakeChat()) as served:
        fake.message("hello")                  # nobody chosen yet
        fake.message("/switch nobody-here")
        fake.message("/switch Alice")
        fake.message("/who")
        fake.message("/list")
        fake.message("/note She moved to Berlin")
        fake.message("/frobnicate")
        texts = fake.wait_texts(7)
        served.stop()
    assert "/switch NAME" in texts[0]
    assert "nobody-here" in texts[1]
    assert texts[2] == texts[3] and "alice" in texts[3]
    assert "> " in texts[4] and "alice" in texts[4]
    assert texts[5].startswith("Noted")
    assert "Unknown command /frobnicate" in texts[6]
    assert ("note", "She moved to Berlin") in [(e.speaker, e.text) for e in log_entries(bot, "alice")]


def test_an_ambiguous_switch_answers_with_the_candidates_as_buttons_and_a_press_switches(bot, fake):
    for name in ("Bob Stone", "Bobby"):
        Runner(bot)("person", "add", name, "--relation", "friend", "-y")
    with Served(bot, FakeChat()) as served:
        fake.message("/switch bo")
        asked = fake.wait_texts(1) and fake.calls("sendMessage")[-1]
        assert "could be several people" in asked["text"] and "/switch bob-stone" in asked["text"]
        assert "/switch bobby" in asked["text"]  # the slugs to type where buttons are not pressed
        buttons = asked["reply_markup"]["inline_keyboard"][0]
        assert [b["text"] for b in buttons] == ["Bob Stone", "Bobby"]
        assert served.gateway.states["telegram"].chats.get("42") is None  # nobody chosen by the question
        fake.press(buttons[1]["callback_data"])
        assert "bobby" in fake.wait_texts(2)[1]
        fake.message("/who")
        assert "bobby" in fake.wait_texts(3)[2]
        served.stop()


def test_tell_from_telegrams_buttons_no_then_yes(bot, fake):
    proposal = {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": ["L1"]}]}
    model = FakeChat().enqueue(proposal, {"people": []}, proposal, {"people": []})
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.message("/tell She got promoted and is moving to Berlin in March")
        fake.wait_texts(2)
        asked = fake.calls("sendMessage")[-1]
        buttons = asked["reply_markup"]["inline_keyboard"][0]
        assert [b["text"] for b in buttons] == ["Yes", "No"] and "Moves to Berlin" in asked["text"]
        fake.press(buttons[1]["callback_data"])
        assert fake.wait_texts(3)[2].startswith("Not applied")
        assert "Berlin" not in (bot.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
        fake.message("/tell She got promoted and is moving to Berlin in March")
        fake.wait_texts(4)
        fake.press(fake.calls("sendMessage")[-1]["reply_markup"]["inline_keyboard"][0][0]["callback_data"])
        assert fake.wait_texts(5)[4].startswith("Written and committed")
        served.stop()
    assert "Berlin" in (bot.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert subjects(bot)[0] == "tell(alice): moving to Berlin"
    assert len(fake.calls("answerCallbackQuery")) == 2


def test_serve_and_a_terminal_chat_run_together_and_a_second_serve_is_refused(bot, fake, monkeypatch):
    from conftest import Runner

    from heartcompass.gateway import runner
    from heartcompass.store.lock import LockBusy

    terminal_model = FakeChat().enqueue("from the terminal")
    monkeypatch.setattr("heartcompass.llm.providers.make_chat_model", lambda ws, settings: terminal_model)
    model = FakeChat().enqueue("from the phone")
    with Served(bot, model) as served:
        with pytest.raises(LockBusy) as refused:     # one poller per bot: a second serve stops at once
            runner.serve(bot, ["telegram"], threading.Event(), make_model=lambda: model)
        assert "serve" in refused.value.message
        fake.message("/switch alice")
        fake.message("hi from my phone")
        Runner(bot)("chat", "alice", "-m", "hi from my desk")
        assert fake.wait_texts(2)[1] == "from the phone"
        served.settle()
        served.stop()
    texts = [e.text for e in log_entries(bot, "alice")]
    assert {"hi from my phone", "from the phone", "hi from my desk", "from the terminal"} <= set(texts)
    assert not git(bot, "status", "--porcelain")


def test_a_photo_captioned_tell_reaches_the_model_as_an_image(bot, fake):
    model = FakeChat().enqueue({"summary": "promoted", "rewritten_facts": []}, {"people": []})
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.message("/tell 她升职了", photo=True)
        fake.wait_texts(2)
        served.stop()
    assert fake.calls("getFile")
    sent = str(model.request("tell").messages[-1].content)  # text and image parts
    assert "data:image/png;base64," in sent and "她升职了" in sent


def test_a_broken_file_or_a_bad_state_file_never_stops_serve(bot, fake):
    profile = bot.people_dir / "alice" / "PROFILE.md"
    (bot.state_dir / "serve").mkdir(exist_ok=True)
    (bot.state_dir / "serve" / "telegram.json").write_bytes(b"\xff\xfe not json")
    model = FakeChat().enqueue("still here")
    with Served(bot, model) as served:
        fake.message("/switch alice")
        fake.wait_texts(1)
        good = profile.read_text(encoding="utf-8")
        profile.write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
        fake.message("hello?")
        texts = fake.wait_texts(2)
        assert "PROFILE.md" in texts[1] and "Traceback" not in texts[1]
        profile.write_text(good, encoding="utf-8")
        fake.message("/retry")
        assert fake.wait_texts(3)[2] == "still here"
        served.stop()
    assert (bot.state_dir / "serve" / "telegram.broken").read_bytes() == b"\xff\xfe not json"
    assert [e.text for e in log_entries(bot, "alice") if e.speaker == "me"] == ["hello?"]


def test_the_morning_digest_goes_to_the_owner_once_a_day(bot, fake):
    from heartcompass.store.config_edit import set_config

    set_config(bot, "serve.digest_at", "00:00")      # any time today is past it
    digests = []

    def digest():
        digests.append(1)
        return "Open threads:\n- Alice Chen: ask about the party"

    with Served(bot, FakeChat(), digest=digest) as served:
        fake.message("/who")                         # the owner's chat becomes known
        fake.wait_for(lambda: any(t.startswith("Open threads") for t in fake.texts()))
        served.stop()
    with Served(bot, FakeChat(), digest=digest) as served:  # a restart the same day: not again
        fake.message("/help")
        fake.wait_texts(3)
        fake.wait_for(lambda: fake.polls > 30)
        served.stop()
    assert sum(t.startswith("Open threads") for t in fake.texts()) == 1 and len(digests) == 1


def test_several_messages_are_sent_with_the_typing_sign_and_a_random_pause_between(example_ws):
    """The core alone, with a recording channel: the pauses come from chat.reply_delay."""
    from heartcompass.gateway.core import Gateway, Incoming
    from heartcompass.gateway.state import state_for
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "telegram.allowed_users", "42")
    calls, sleeps = [], []

    class Recording:
        name = "telegram"

        def send(self, chat, text):
            calls.append(("send", text))

        def ask(self, chat, text, choices):
            calls.append(("ask", text))

        def typing(self, chat):
            calls.append(("typing", ""))

    state = state_for(example_ws.state_dir, "telegram")
    state.chats["42"] = "alice"
    gw = Gateway(example_ws, {"telegram": Recording()}, {"telegram": state},
                 make_model=lambda: FakeChat().enqueue("one ||| two ||| three"), quiet=0.05, delays=(0.5, 1.5),
                 sleep=sleeps.append)
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,))
    worker.start()
    gw.receive(Incoming("telegram", "42", "42", "m1", text="hi"))
    wait_until(lambda: len([c for c in calls if c[0] == "send"]) == 3)
    stop.set()
    worker.join(20)
    assert calls == [("typing", ""), ("send", "one"), ("typing", ""), ("send", "two"), ("typing", ""),
                     ("send", "three")]
    assert len(sleeps) == 2 and all(0.5 <= s <= 1.5 for s in sleeps)
