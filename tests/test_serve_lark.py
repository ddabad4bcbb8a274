"""`serve` on Feishu/Lark: recorded im.message.receive_v1 and
card.action.trigger events fed through lark-oapi's own event dispatcher
(as its websocket client does), messages sent by the real lark-oapi client
to a local fake of the open platform at lark.domain."""

from __future__ import annotations

import threading

import pytest
from conftest import git, subjects
from waits import DEADLINE
from fake_lark import FakeLark, card_event, message_event
from fakes import FakeChat
from serve_helpers import log_entries, wait_until

pytest.importorskip("lark_oapi")

from heartcompass.gateway import runner  # noqa: E402
from heartcompass.gateway.lark import LarkChannel  # noqa: E402


@pytest.fixture
def fake():
    server = FakeLark()
    yield server
    server.close()


class LarkServed:
    def __init__(self, ws, fake, model, pair=None):
        from heartcompass.gateway.state import state_for

        self.channel = LarkChannel("cli_test", "secret-test", fake.base, connect=False)
        self.stop_event, ready = threading.Event(), threading.Event()
        self.gateway = None

        def on_ready(gw):
            self.gateway = gw
            ready.set()

        self.thread = threading.Thread(target=runner.serve, args=(ws, ["lark"], self.stop_event), kwargs=dict(
            make_model=lambda: model, quiet=0.3, delays=(0.0, 0.0), pair=pair, on_ready=on_ready,
            channels={"lark": self.channel}), daemon=True)
        self.thread.start()
        assert ready.wait(DEADLINE)
        del state_for

    def feed(self, payload: bytes) -> None:
        self.channel.handler._do_without_validation(payload)  # what lark.ws.Client does with each event frame

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


@pytest.fixture
def lark_ws(example_ws, fake):
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "lark.domain", fake.base)
    set_config(example_ws, "lark.allowed_users", "ou_owner")
    return example_ws


def berlin():
    return {"summary": "moving to Berlin", "rewritten_facts": [
        {"id": "F1", "text": "Moves to Berlin in March after a promotion", "evidence": ["L1"]}]}


def test_a_burst_in_chinese_is_answered_once_with_the_typing_reaction(lark_ws, fake):
    model = FakeChat().enqueue("哈哈 ||| 真的吗？")
    served = LarkServed(lark_ws, fake, model)
    served.feed(message_event("/switch 小爱"))
    fake.wait_texts(1)
    served.feed(message_event("今天好累"))
    served.feed(message_event("@_user_1 想你了", message_id="om_last"))
    texts = fake.wait_texts(3)
    served.stop()
    assert texts[1:] == ["哈哈", "真的吗？"]
    assert len(model.purposes) == 1
    assert [e.text for e in log_entries(lark_ws, "alice")][-4:] == ["今天好累", "想你了", "哈哈", "真的吗？"]
    assert fake.reactions()[0]["path"] == "/open-apis/im/v1/messages/om_last/reactions"
    assert fake.reactions()[0]["body"]["reaction_type"]["emoji_type"] == "Typing"
    assert subjects(lark_ws)[0].startswith("chat(alice): 4 messages")


def test_a_stranger_is_refused_once_and_the_same_event_is_handled_once(lark_ws, fake):
    model = FakeChat().enqueue("hi!")
    served = LarkServed(lark_ws, fake, model)
    served.feed(message_event("hello", sender="ou_stranger", chat="oc_other"))
    served.feed(message_event("hello again", sender="ou_stranger", chat="oc_other"))
    served.feed(message_event("/switch alice"))
    event = message_event("only once", message_id="om_dup")
    served.feed(event)
    served.feed(event)                                  # Feishu redelivers an event it thinks was lost
    fake.wait_texts(2)
    wait_until(lambda: served.gateway.idle())
    served.stop()
    served = LarkServed(lark_ws, fake, model)           # and again after a restart
    served.feed(event)
    served.feed(message_event("/who"))
    fake.wait_texts(3)
    served.stop()
    assert len(fake.texts("oc_other")) == 1 and "serve --pair" in fake.texts("oc_other")[0]
    assert [e.text for e in log_entries(lark_ws, "alice") if e.speaker == "me"] == ["only once"]
    assert not any("hello" in e.text for e in log_entries(lark_ws, "alice"))


def test_tell_shows_the_diff_with_buttons_and_writes_only_on_yes(lark_ws, fake):
    model = FakeChat().enqueue(berlin(), {"people": []}, berlin(), {"people": []})
    served = LarkServed(lark_ws, fake, model)
    served.feed(message_event("/switch alice"))
    served.feed(message_event("/tell She got promoted and is moving to Berlin in March"))
    fake.wait_texts(2)
    card = fake.messages()[1]
    assert card["msg_type"] == "interactive" and "Moves to Berlin" in card["content"]
    assert '"answer": "t1:yes"' in card["content"] and '"answer": "t1:no"' in card["content"]
    memory = (lark_ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Berlin" not in memory                       # nothing written before Yes
    served.feed(card_event("t1:no"))                    # declined: the note is kept for the gardener
    texts = fake.wait_texts(3)
    assert texts[2].startswith("Not applied")
    served.feed(message_event("/tell She got promoted and is moving to Berlin in March"))
    fake.wait_texts(4)
    served.feed(card_event("t2:yes"))
    texts = fake.wait_texts(5)
    served.feed(card_event("t2:yes"))                   # pressed twice: answered once
    fake.wait_texts(6)
    served.stop()
    assert texts[4].startswith("Written and committed")
    assert "Berlin" in (lark_ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert subjects(lark_ws)[0] == "tell(alice): moving to Berlin"
    assert "tell(alice): noted, proposal declined" in subjects(lark_ws)
    assert "no proposal waiting" in fake.texts()[5]
    assert not git(lark_ws, "status", "--porcelain")


def test_a_photo_with_the_caption_tell_goes_to_the_model_as_an_image(lark_ws, fake):
    model = FakeChat().enqueue(berlin(), {"people": []})
    served = LarkServed(lark_ws, fake, model)
    served.feed(message_event("/switch alice"))
    served.feed(message_event(kind="post", content={"zh_cn": {"title": "", "content": [
        [{"tag": "img", "image_key": "img_1"}], [{"tag": "text", "text": "/tell 她升职了"}]]}}))
    fake.wait_texts(2)
    served.feed(card_event("t1:no"))
    fake.wait_texts(3)
    served.stop()
    sent = str(model.request("tell").messages[-1].content)  # text and image parts
    assert "data:image/png;base64," in sent and "她升职了" in sent


def test_tell_offers_a_new_person_on_a_card_and_a_typed_yes_adds_them(lark_ws, fake):
    people = [{"name": "李雷", "relation": "friend", "about": "她的新同事"}]
    model = FakeChat().enqueue({"summary": "nothing new", "rewritten_facts": []}, {"people": people})
    served = LarkServed(lark_ws, fake, model)
    served.feed(message_event("/switch alice"))
    served.feed(message_event("/tell 她和李雷一起搬去柏林了"))
    texts = fake.wait_texts(3)
    assert texts[1].startswith("Nothing to change")      # no diff to confirm, but someone new to offer
    offer = fake.messages()[2]
    assert offer["msg_type"] == "interactive" and "李雷" in offer["content"] and '"answer": "t1:yes"' in offer["content"]
    assert "/yes t1" in offer["content"]                 # no buttons where cards are off: the typed answer
    wait_until(lambda: served.gateway.idle())
    assert not any("李雷" in p.read_text(encoding="utf-8") for p in lark_ws.people_dir.glob("*/PROFILE.md"))
    served.feed(message_event("/yes t1"))
    texts = fake.wait_texts(4)
    wait_until(lambda: served.gateway.idle())
    served.stop()
    assert texts[3].startswith("Added 李雷 in people/")
    assert any("李雷" in p.read_text(encoding="utf-8") for p in lark_ws.people_dir.glob("*/PROFILE.md"))


def test_a_feishu_group_gets_one_note_and_nothing_of_the_workspace_even_from_the_owner(lark_ws, fake):
    model = FakeChat()
    served = LarkServed(lark_ws, fake, model)
    for text in ("/list", "/switch alice", "大家好"):
        served.feed(message_event(text, chat="oc_group", chat_type="group"))
    served.feed(card_event("yes:1", chat="oc_group"))   # a button in a chat not known as the owner's own
    served.feed(message_event("/who"))
    fake.wait_texts(1)
    wait_until(lambda: served.gateway.idle() and len(fake.texts("oc_group")) >= 1)
    served.stop()
    group = fake.texts("oc_group")
    assert len(group) == 1 and "private chat" in group[0] and "Alice" not in group[0]
    assert model.purposes == [] and not any("大家好" in e.text for e in log_entries(lark_ws, "alice"))


def test_an_ambiguous_switch_on_feishu_offers_a_card_button_per_person_and_a_press_switches(lark_ws, fake):
    from conftest import Runner

    for name in ("王小明", "李小明"):  # 小明 is either one's given name
        Runner(lark_ws)("person", "add", name, "--relation", "friend", "-y")
    served = LarkServed(lark_ws, fake, FakeChat())
    served.feed(message_event("/switch 小明"))
    fake.wait_texts(1)
    card = fake.messages()[0]
    assert card["msg_type"] == "interactive" and "/switch 王小明" in card["content"]
    assert '"answer": "switch:王小明"' in card["content"] and '"answer": "switch:李小明"' in card["content"]
    served.feed(card_event("switch:李小明"))
    texts = fake.wait_texts(2)
    served.stop()
    assert "李小明" in texts[1]
    assert served.gateway.states["lark"].chats.get("oc_chat") == "李小明"
