"""The chat apps' channels (gateway/lark.py, telegram.py) as functions:
what an app's event becomes for the core, and what the core's text becomes
for the app. Events go through lark-oapi's own dispatcher; nothing is sent
over a network (the clients are replaced by recorders)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from waits import DEADLINE, wait_until

from heartcompass.errors import HeartCompassError

pytest.importorskip("lark_oapi")
pytest.importorskip("telegram")


class Core:
    """What a channel hands over (the gateway's receive)."""

    def __init__(self):
        self.received = []

    def receive(self, incoming):
        self.received.append(incoming)


def _lark():
    from heartcompass.gateway.lark import LarkChannel

    return LarkChannel("cli_test", "secret-test", "https://open.feishu.example/", connect=False)


def _drain(channel) -> list:
    items = []
    while not channel.inbox.empty():
        items.append(channel.inbox.get_nowait())
    return items


# -- Feishu: events in -----------------------------------------------------------------------------------------------

def test_a_feishu_message_is_queued_with_its_id_chat_sender_text_and_chat_type():
    from fake_lark import message_event

    channel = _lark()
    channel.handler._do_without_validation(message_event("@_user_1 你好", message_id="om_1", chat="oc_1"))
    channel.handler._do_without_validation(message_event("hi all", message_id="om_2", chat="oc_g", chat_type="group"))
    assert _drain(channel) == [("message", "om_1", "oc_1", "ou_owner", "你好", None, True),
                               ("message", "om_2", "oc_g", "ou_owner", "hi all", None, False)]


def test_a_feishu_message_from_a_bot_or_without_a_sender_is_not_queued():
    from fake_lark import message_event

    channel = _lark()
    for change in ({"sender_type": "app"}, {"sender_id": None}, {"sender_id": {"user_id": "u1"}}):
        event = json.loads(message_event("hello"))
        event["event"]["sender"].update(change)
        channel.handler._do_without_validation(json.dumps(event).encode())
    assert _drain(channel) == []
    channel.handler._do_without_validation(message_event("hello", message_id="om_9"))
    assert [item[1] for item in _drain(channel)] == ["om_9"]


def test_a_pressed_card_button_is_queued_as_the_buttons_answer():
    from fake_lark import card_event

    channel = _lark()
    response = channel.handler._do_without_validation(card_event("t1:yes", chat="oc_1"))
    assert response is not None
    item, = _drain(channel)
    assert item[0] == "button" and item[1].startswith("ev_card_") and item[2:] == ("oc_1", "ou_owner", "t1:yes", None,
                                                                                   True)


def test_a_card_event_without_an_answer_chat_or_presser_is_not_queued():
    from fake_lark import card_event

    channel = _lark()
    for path, value in ((("action", "value"), {"other": 1}), (("action", "value"), {"answer": ""}),
                        (("context", "open_chat_id"), None), (("operator", "open_id"), None)):
        event = json.loads(card_event("t1:yes"))
        event["event"][path[0]][path[1]] = value
        channel.handler._do_without_validation(json.dumps(event).encode())
    assert _drain(channel) == []


def test_queued_feishu_events_reach_the_core_in_order_and_the_last_message_is_remembered_for_typing():
    channel = _lark()
    core = Core()
    channel._image = lambda message_id, key: b"png:" + key.encode()
    channel.inbox.put(("message", "om_1", "oc_1", "ou_owner", "/tell 她升职了", "img_1", True))
    channel.inbox.put(("button", "ev_7", "oc_1", "ou_owner", "t1:yes", None, True))
    channel.inbox.put(("message", "om_2", "oc_g", "ou_other", "hi", None, False))
    channel.inbox.put(None)
    channel._hand_over(core, None)
    first, button, group = core.received
    assert (first.channel, first.chat, first.sender, first.id, first.text, first.image, first.private) == (
        "lark", "oc_1", "ou_owner", "om_1", "/tell 她升职了", b"png:img_1", True)
    assert (button.channel, button.id, button.button, button.chat, button.sender, button.private) == (
        "lark", "ev:ev_7", "t1:yes", "oc_1", "ou_owner", True)
    assert (group.id, group.image, group.private, group.text) == ("om_2", None, False, "hi")
    assert channel.last_message == {"oc_1": "om_1", "oc_g": "om_2"}


# -- Feishu: text out ---------------------------------------------------------------------------------------------

def test_a_feishu_question_is_a_card_with_a_button_each_and_the_typed_answer():
    channel = _lark()
    made = []
    channel._create = lambda chat, kind, content: made.append((chat, kind, content))
    channel.ask("oc_1", "Write these changes?" + "x" * 4000, [("Yes", "t3:yes"), ("No", "t3:no")])
    channel.send("oc_1", "你好")
    (chat, kind, card), sent = made
    assert (chat, kind) == ("oc_1", "interactive") and sent == ("oc_1", "text", {"text": "你好"})
    text, actions, note = card["elements"]
    assert text["text"]["content"] == ("Write these changes?" + "x" * 4000)[:3500]
    assert actions["actions"] == [
        {"tag": "button", "text": {"tag": "plain_text", "content": "Yes"}, "type": "primary", "value": {"answer": "t3:yes"}},
        {"tag": "button", "text": {"tag": "plain_text", "content": "No"}, "type": "default", "value": {"answer": "t3:no"}}]
    assert note["elements"][0]["content"] == "Or reply /yes t3 or /no t3."


class Response:
    def __init__(self, ok=True):
        self.ok, self.msg, self.code = ok, "refused", 230001

    def success(self):
        return self.ok


def _client(calls, ok=True):
    record = lambda name: lambda request: calls.append((name, request)) or Response(ok)  # noqa: E731
    v1 = SimpleNamespace(message=SimpleNamespace(create=record("message")),
                         message_reaction=SimpleNamespace(create=record("reaction")))
    return SimpleNamespace(im=SimpleNamespace(v1=v1))


def test_a_feishu_message_goes_to_the_chat_as_typed_and_a_refusal_is_said():
    channel = _lark()
    calls = []
    channel.client = _client(calls)
    channel.send("oc_1", "今晚八点见")
    (name, request), = calls
    assert name == "message" and request.receive_id_type == "chat_id"
    assert request.request_body.receive_id == "oc_1" and request.request_body.msg_type == "text"
    assert json.loads(request.request_body.content) == {"text": "今晚八点见"} and "今晚" in request.request_body.content
    channel.client = _client(calls, ok=False)
    with pytest.raises(HeartCompassError) as refused:
        channel.send("oc_1", "hi")
    assert refused.value.message == "Feishu/Lark refused the message: refused (code 230001)."


def test_the_typing_reaction_goes_once_on_the_message_being_answered():
    channel = _lark()
    calls = []
    channel.client = _client(calls)
    channel.typing("oc_1")                        # nothing received there yet: nothing to react to
    channel.last_message["oc_1"] = "om_5"
    channel.typing("oc_1")
    channel.typing("oc_1")                        # the same message: once
    (name, request), = calls
    assert name == "reaction" and request.message_id == "om_5"
    assert request.request_body.reaction_type.emoji_type == "Typing"


def test_the_messages_reacted_to_are_forgotten_past_a_thousand():
    channel = _lark()
    channel.client = _client([])
    for n in range(1002):
        channel.last_message["oc_1"] = f"om_{n}"
        channel.typing("oc_1")
    assert len(channel._typed) == 1


# -- Telegram ---------------------------------------------------------------------------------------------------------

class Bot:
    """Telegram's Bot, recorded: each call returns what it was asked."""

    def send_message(self, chat, text, **more):
        return ("send_message", chat, text, more)

    def send_chat_action(self, chat, action):
        return ("send_chat_action", chat, action)


def _telegram():
    from heartcompass.gateway.state import ChannelState
    from heartcompass.gateway.telegram import TelegramChannel

    channel = TelegramChannel("123:abc", "https://api.telegram.example/", ChannelState.__new__(ChannelState))
    channel.bot, calls = Bot(), []
    channel._call = calls.append
    return channel, calls


def test_a_long_telegram_message_is_sent_in_pieces_under_telegrams_limit():
    channel, calls = _telegram()
    channel.send("42", "a" * 4000 + "b" * 4000 + "c")
    assert calls == [("send_message", 42, "a" * 4000, {}), ("send_message", 42, "b" * 4000, {}),
                     ("send_message", 42, "c", {})]
    calls.clear()
    channel.send("42", "")
    assert calls == [("send_message", 42, "…", {})]  # Telegram refuses an empty text


def test_a_telegram_question_has_a_button_each_in_one_row():
    channel, calls = _telegram()
    channel.ask("42", "x" * 5000, [("Yes", "t1:yes"), ("No", "t1:no")])
    (name, chat, text, more), = calls
    assert (name, chat, text) == ("send_message", 42, "x" * 4000)
    row, = more["reply_markup"].inline_keyboard
    assert [(b.text, b.callback_data) for b in row] == [("Yes", "t1:yes"), ("No", "t1:no")]


def test_telegrams_typing_sign_is_the_typing_action():
    channel, calls = _telegram()
    channel.typing("42")
    assert calls == [("send_chat_action", 42, "typing")]


def test_sending_before_the_connection_or_after_it_closed_is_refused_in_words():
    from heartcompass.gateway.state import ChannelState
    from heartcompass.gateway.telegram import TelegramChannel

    channel = TelegramChannel("123:abc", "https://api.telegram.example", ChannelState.__new__(ChannelState))

    async def never():
        raise AssertionError("not awaited")

    coro = never()
    with pytest.raises(HeartCompassError) as closed:
        channel._call(coro)
    assert closed.value.message == "The Telegram connection is closed." and coro.cr_frame is None  # closed, no warning


def test_a_page_that_is_not_the_bot_apis_json_is_named_not_dumped():
    channel, _ = _telegram()
    for text in ("Invalid server response", "Parsing the server response failed"):
        assert channel._named(Exception(text)) == (
            "https://api.telegram.example/ answered with something that is not the Bot API's JSON, such as a "
            "proxy's error page; check telegram.api_base and the network")
    assert channel._named(Exception("x" * 400)) == "x" * 300


def _message(**fields):
    chat = SimpleNamespace(id=42, type=fields.pop("chat_type", "private"))
    return SimpleNamespace(chat=chat, from_user=SimpleNamespace(id=fields.pop("sender", 42)), message_id=7,
                           text=fields.pop("text", None), caption=fields.pop("caption", None),
                           photo=fields.pop("photo", None))


def test_a_telegram_update_becomes_the_cores_incoming():
    channel, _ = _telegram()
    incoming = asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=_message(text="在吗"))))
    assert (incoming.channel, incoming.chat, incoming.sender, incoming.id, incoming.text, incoming.image,
            incoming.private) == ("telegram", "42", "42", "42:7", "在吗", None, True)
    group = asyncio.run(channel._incoming(SimpleNamespace(callback_query=None,
                                                          message=_message(caption="/tell hi", chat_type="group"))))
    assert group.text == "/tell hi" and not group.private
    assert asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=None))) is None
    no_sender = _message(text="hi")
    no_sender.from_user = None
    assert asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=no_sender))) is None


def test_a_pressed_telegram_button_becomes_the_buttons_data():
    channel, _ = _telegram()
    query = SimpleNamespace(id="99", data="t1:yes", from_user=SimpleNamespace(id=42),
                            message=SimpleNamespace(chat=SimpleNamespace(id=42, type="private")))
    incoming = asyncio.run(channel._incoming(SimpleNamespace(callback_query=query, message=None)))
    assert (incoming.channel, incoming.id, incoming.button, incoming.chat, incoming.sender, incoming.private,
            incoming.text) == ("telegram", "cb:99", "t1:yes", "42", "42", True, "")
    query.data, query.message.chat.type = None, "supergroup"
    incoming = asyncio.run(channel._incoming(SimpleNamespace(callback_query=query, message=None)))
    assert incoming.button == "" and not incoming.private


def test_a_telegram_photo_is_downloaded_and_one_that_fails_is_reported_with_its_caption_kept():
    channel, _ = _telegram()
    reports = []
    channel.report = reports.append

    class File:
        async def download_as_bytearray(self):
            return bytearray(b"\x89PNG")

    class Photo:
        def __init__(self, ok):
            self.ok = ok

        async def get_file(self):
            if not self.ok:
                raise ConnectionError("timed out")
            return File()

    got = asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=_message(
        caption="/tell", photo=[Photo(False), Photo(True)]))))
    assert got.image == b"\x89PNG" and got.text == "/tell"
    lost = asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=_message(
        caption="/tell", photo=[Photo(False)]))))
    assert lost.image is None and lost.text == "/tell" and reports == ["telegram: photo not downloaded: timed out"]


def test_serve_without_the_apps_extra_says_how_to_install_it(monkeypatch):
    import sys

    from heartcompass.gateway import lark, telegram

    monkeypatch.setitem(sys.modules, "lark_oapi", None)   # not installed
    monkeypatch.setitem(sys.modules, "telegram", None)
    with pytest.raises(HeartCompassError) as no_lark:
        lark.make_client("cli_1", "s", "https://open.feishu.example")
    assert (no_lark.value.message, no_lark.value.hint) == (
        "The Feishu/Lark channel needs lark-oapi.", "Install it with: pip install 'heartcompass[lark]'")
    with pytest.raises(HeartCompassError) as no_telegram:
        telegram.make_bot("123:abc", "https://api.telegram.example")
    assert (no_telegram.value.message, no_telegram.value.hint) == (
        "The Telegram channel needs python-telegram-bot.", "Install it with: pip install 'heartcompass[telegram]'")


def _resources(calls, *, ok=True, file=b"\x89PNG", error=None):
    import io

    def get(request):
        calls.append(request)
        if error:
            raise error
        return SimpleNamespace(success=lambda: ok, file=io.BytesIO(file) if file is not None else None)

    return SimpleNamespace(im=SimpleNamespace(v1=SimpleNamespace(message_resource=SimpleNamespace(get=get))))


def test_a_feishu_photo_is_fetched_as_the_messages_image_resource():
    channel = _lark()
    calls = []
    channel.client = _resources(calls)
    assert channel._image("om_1", "img_1") == b"\x89PNG"
    request, = calls
    assert (request.message_id, request.file_key, request.type) == ("om_1", "img_1", "image")


def test_a_feishu_photo_not_fetched_is_none_and_a_failure_is_reported_by_kind():
    channel = _lark()
    reports = []
    channel.report = reports.append
    channel.client = _resources([], ok=False)
    assert channel._image("om_1", "img_1") is None          # refused, even with a body
    channel.client = _resources([], file=None)
    assert channel._image("om_1", "img_1") is None          # no file in the answer
    channel.client = _resources([], error=ConnectionError("secret-ish detail"))
    assert channel._image("om_1", "img_1") is None
    assert reports == ["lark: photo not downloaded: ConnectionError"]


def test_a_card_event_missing_its_action_context_or_operator_is_not_queued():
    """A card event of another shape (no action, no chat, no presser at all): nothing queued, no error."""
    from fake_lark import card_event

    channel = _lark()
    for part in ("action", "context", "operator"):
        event = json.loads(card_event("t1:yes"))
        del event["event"][part]
        channel.handler._do_without_validation(json.dumps(event).encode())
    assert _drain(channel) == []
    channel.handler._do_without_validation(card_event("t2:no"))
    assert [item[4] for item in _drain(channel)] == ["t2:no"]


def test_a_feishu_card_with_one_button_or_none_still_goes_out():
    """The typed answer names the first button's key; a card without buttons has no key to name."""
    channel = _lark()
    made = []
    channel._create = lambda chat, kind, content: made.append(content)
    channel.ask("oc_1", "Done?", [("OK", "t5:ok")])
    channel.ask("oc_1", "Nothing to press", [])
    assert made[0]["elements"][2]["elements"][0]["content"] == "Or reply /yes t5 or /no t5."
    assert made[1]["elements"][2]["elements"][0]["content"] == "Or reply /yes  or /no ."
    assert made[1]["elements"][1]["actions"] == []


def test_a_feishu_question_card_has_the_shape_feishus_card_schema_reads():
    """Feishu draws a card only from its own schema (a wide div of plain text, an action row, a note): a tag or a
    key misspelt and the owner sees an empty card with no buttons to press."""
    channel = _lark()
    made = []
    channel._create = lambda chat, kind, content: made.append(content)
    channel.ask("oc_1", "Add Bob Stone?", [("Yes", "t2:yes"), ("No", "t2:no")])
    assert made == [{"config": {"wide_screen_mode": True}, "elements": [
        {"tag": "div", "text": {"tag": "plain_text", "content": "Add Bob Stone?"}},
        {"tag": "action", "actions": [
            {"tag": "button", "text": {"tag": "plain_text", "content": "Yes"}, "type": "primary",
             "value": {"answer": "t2:yes"}},
            {"tag": "button", "text": {"tag": "plain_text", "content": "No"}, "type": "default",
             "value": {"answer": "t2:no"}}]},
        {"tag": "note", "elements": [{"tag": "plain_text", "content": "Or reply /yes t2 or /no t2."}]}]}]


# -- the apps' clients, and Telegram's poll and start ---------------------------------------------------------------

def test_the_feishu_client_is_the_apps_own_at_the_domain_without_a_trailing_slash():
    from lark_oapi import LogLevel

    from heartcompass.gateway.lark import make_client

    config = make_client("cli_1", "secret-1", "https://open.feishu.example/")._config
    assert (config.app_id, config.app_secret, config.domain, config.log_level) == (
        "cli_1", "secret-1", "https://open.feishu.example", LogLevel.ERROR)



def test_a_feishu_channel_sends_through_a_client_of_its_own_app():
    config = _lark().client._config
    assert (config.app_id, config.app_secret, config.domain) == ("cli_test", "secret-test", "https://open.feishu.example")


def test_the_telegram_bot_talks_to_the_api_base_and_keeps_the_librarys_tracebacks_off_the_terminal():
    import logging

    from heartcompass.gateway.telegram import make_bot

    quiet = logging.getLogger("telegram")
    before = list(quiet.handlers)
    try:
        quiet.handlers = []
        bot = make_bot("123:abc", "https://api.telegram.example/")
        assert (bot.token, bot.base_url, bot.base_file_url) == (
            "123:abc", "https://api.telegram.example/bot123:abc", "https://api.telegram.example/file/bot123:abc")
        assert [type(h) for h in quiet.handlers] == [logging.NullHandler]
        proxied = make_bot("123:abc", "https://proxy.example/TX//")  # only the trailing slashes go
        assert proxied.base_url == "https://proxy.example/TX/bot123:abc"
    finally:
        quiet.handlers = before


class PollingBot:
    """Telegram's getUpdates from a script: each step a list of updates or an error; serve stops after the last."""

    def __init__(self, script, stop):
        self.script, self.stop, self.asked = list(script), stop, []

    async def get_updates(self, **asked):
        self.asked.append(asked)
        step = self.script.pop(0)
        if not self.script:
            self.stop.set()
        if isinstance(step, Exception):
            raise step
        return step


def _update(update_id, *, text=None, pressed=None, answered=None):
    query = None
    if pressed is not None:
        async def answer():
            answered.append(pressed)
            if pressed == "t2:no":
                from telegram.error import NetworkError

                raise NetworkError("gone")

        query = SimpleNamespace(id=str(update_id), data=pressed, from_user=SimpleNamespace(id=42), answer=answer,
                                message=SimpleNamespace(chat=SimpleNamespace(id=42, type="private")))
    return SimpleNamespace(update_id=update_id, callback_query=query,
                           message=_message(text=text) if text is not None else None)


@pytest.fixture
def slept(monkeypatch):
    """Telegram's backoff pauses, taken at once and recorded."""
    pauses = []
    real = asyncio.sleep

    async def sleep(seconds):
        pauses.append(seconds)
        await real(0)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    return pauses


def test_each_telegram_update_reaches_the_core_and_moves_the_offset_past_it(tmp_path, slept):
    """A restart asks Telegram only for what follows the last update handled; a pressed button is
    acknowledged (its spinner stops), and an acknowledgement that fails loses nothing."""
    import threading

    from heartcompass.gateway.state import ChannelState

    channel, _ = _telegram()
    channel.state = ChannelState(tmp_path / "serve" / "telegram.json")
    stop, core, answered = threading.Event(), Core(), []
    channel.bot = PollingBot([[_update(700, text="在吗"), _update(701, pressed="t1:yes", answered=answered)],
                              [_update(702, pressed="t2:no", answered=answered), _update(703)]], stop)
    asyncio.run(channel._poll(core, stop))
    assert [(i.id, i.text, i.button) for i in core.received] == [("42:7", "在吗", None), ("cb:701", "", "t1:yes"),
                                                                 ("cb:702", "", "t2:no")]
    assert answered == ["t1:yes", "t2:no"] and slept == []
    assert channel.bot.asked == [
        {"offset": None, "timeout": 25.0, "allowed_updates": ["message", "callback_query"]},
        {"offset": 702, "timeout": 25.0, "allowed_updates": ["message", "callback_query"]}]
    assert ChannelState(tmp_path / "serve" / "telegram.json").offset == 704  # the last carried nothing of ours


def test_a_failing_telegram_poll_is_said_and_retried_after_a_pause_that_doubles_to_a_minute(slept):
    import threading

    from telegram.error import NetworkError

    channel, _ = _telegram()
    channel.state = SimpleNamespace(offset=0, save=lambda: None)
    reports = []
    channel.report, stop = reports.append, threading.Event()
    channel.bot = PollingBot([NetworkError("Conflict")] * 8 + [[]] + [NetworkError("Timed out")], stop)
    asyncio.run(channel._poll(Core(), stop))
    assert slept == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 1.0]   # after an answer: one second again
    assert reports[0] == "telegram: getUpdates failed (Conflict); trying again in 1 s"
    assert reports[6:] == ["telegram: getUpdates failed (Conflict); trying again in 60 s"] * 2 + [
        "telegram: getUpdates failed (Timed out); trying again in 1 s"]


class StartingBot:
    """Telegram's Bot for serve's start and stop: initialize may fail, the menu may be refused."""

    def __init__(self, fails=None, menu_fails=False):
        self.fails, self.menu_fails = fails, menu_fails
        self.menu, self.shut = None, False

    async def initialize(self):
        if self.fails:
            raise self.fails

    async def set_my_commands(self, commands):
        from telegram.error import TelegramError

        self.menu = [(c.command, c.description) for c in commands]
        if self.menu_fails:
            raise TelegramError("menu refused")

    async def get_updates(self, **asked):
        await asyncio.Event().wait()   # a long poll that brings nothing: cancelled at stop

    async def shutdown(self):
        from telegram.error import TelegramError

        self.shut = True
        raise TelegramError("already closed")  # said nowhere: serve is stopping anyway


def _starting(bot):
    from heartcompass.gateway.telegram import TelegramChannel

    # A state the poll can read (an offset) whenever it gets to run: on a busy machine it runs before the stop.
    channel = TelegramChannel("123:abc", "https://api.telegram.example", SimpleNamespace(offset=0, save=lambda: None))
    channel.bot, reports = bot, []
    channel.report = reports.append
    return channel, reports


@pytest.mark.parametrize("fails, said", [
    ("token", ("Telegram refuses TELEGRAM_BOT_TOKEN: the token is not valid.",
               "Copy the token @BotFather gave you again, into .env.")),
    ("network", ("Telegram at https://api.telegram.example did not answer: Bad Gateway.",
                 "Check the network, or telegram.api_base."))])
def test_serve_with_a_bad_token_or_no_telegram_stops_at_the_start_with_what_to_check(fails, said):
    import threading

    from telegram.error import InvalidToken, NetworkError

    channel, _ = _starting(StartingBot(InvalidToken() if fails == "token" else NetworkError("Bad Gateway")))
    with pytest.raises(HeartCompassError) as stopped:
        channel.start(Core(), threading.Event())
    assert (stopped.value.message, stopped.value.hint) == said and channel.bot.menu is None


def test_telegram_gets_the_command_menu_at_start_and_a_refused_menu_is_only_said():
    import threading

    from heartcompass.gateway import replies

    channel, reports = _starting(StartingBot(menu_fails=True))
    stop = threading.Event()
    channel.start(Core(), stop)  # returns once connected: the menu is set just after, in the channel's thread
    wait_until(lambda: reports, what="the refused menu to be said")
    assert channel.bot.menu == replies.MENU and reports == ["telegram: command menu not set: menu refused"]
    stop.set()
    channel.close()
    assert channel.bot.shut and not channel._thread.is_alive()


# -- connecting, checking and closing the apps --------------------------------------------------------------------

def test_feishu_connects_its_websocket_with_the_apps_credentials_in_threads_that_never_keep_serve_running(
        monkeypatch):
    import threading

    import lark_oapi as lark
    from fake_lark import message_event
    from waits import DEADLINE

    from heartcompass.gateway.lark import LarkChannel

    made, started = [], threading.Event()

    class Client:
        """lark-oapi's websocket client: what it was made with, and the thread it runs in."""

        def __init__(self, app_id, app_secret, **options):
            made.append((app_id, app_secret, options))

        def start(self):
            made.append((threading.current_thread().name, threading.current_thread().daemon))
            started.set()

    monkeypatch.setattr(lark.ws, "Client", Client)
    channel, core = LarkChannel("cli_1", "secret-1", "https://open.feishu.example/"), Core()
    channel.start(core, threading.Event())
    assert started.wait(DEADLINE), "the websocket client was not started"
    (app_id, secret, options), running_in = made
    assert (app_id, secret, running_in) == ("cli_1", "secret-1", ("lark-ws", True))
    assert options == {"event_handler": channel.handler, "domain": "https://open.feishu.example",
                       "log_level": lark.LogLevel.ERROR}
    handing, = channel._threads
    assert (handing.name, handing.daemon) == ("lark-inbox", True)
    channel.handler._do_without_validation(message_event("hi", message_id="om_1", chat="oc_1"))
    wait_until(lambda: core.received, what="the message handed to the core")
    channel.close()
    assert not handing.is_alive() and [m.id for m in core.received] == ["om_1"]


class Stuck:
    """A core whose delivery never returns (until the test lets it go)."""

    def __init__(self):
        import threading

        self.entered, self.release = threading.Event(), threading.Event()

    def receive(self, incoming):
        self.entered.set()
        self.release.wait()


def _closes(close) -> bool:
    """Whether close() returned (it is run in a thread of its own: a close that waits forever fails the test)."""
    import threading

    from waits import DEADLINE

    done = threading.Event()
    threading.Thread(target=lambda: (close(), done.set()), daemon=True).start()
    return done.wait(DEADLINE)


def test_closing_feishu_gives_up_on_a_delivery_that_never_returns(monkeypatch):
    import threading

    from waits import DEADLINE

    from heartcompass.gateway import lark

    monkeypatch.setattr(lark, "CLOSE_WAIT", 0.05)
    channel, core = _lark(), Stuck()
    channel.start(core, threading.Event())
    channel.inbox.put(("message", "om_1", "oc_1", "ou_owner", "hi", None, True))
    assert core.entered.wait(DEADLINE)
    try:
        assert _closes(channel.close)
    finally:
        core.release.set()


def test_closing_telegram_gives_up_on_a_bot_loop_that_never_ends(monkeypatch):
    import threading

    from heartcompass.gateway import telegram

    monkeypatch.setattr(telegram, "CLOSE_WAIT", 0.05)
    channel, _ = _starting(StartingBot())
    release = threading.Event()
    channel._thread = threading.Thread(target=release.wait, daemon=True)
    channel._thread.start()
    try:
        assert _closes(channel.close) and channel._thread.is_alive()
    finally:
        release.set()


def test_telegrams_loop_runs_in_a_thread_named_for_it_that_never_keeps_serve_running():
    import threading

    channel, _ = _starting(StartingBot())
    stop = threading.Event()
    channel.start(Core(), stop)
    assert (channel._thread.name, channel._thread.daemon) == ("telegram", True)
    stop.set()
    channel.close()
    assert not channel._thread.is_alive()



class ServingBot(StartingBot):
    """A started bot with one message waiting, and the messages sent through it."""

    def __init__(self):
        super().__init__()
        self.waiting, self.sent = [[_update(700, text="在吗")]], []

    async def get_updates(self, **asked):
        if self.waiting:
            return self.waiting.pop(0)
        await asyncio.Event().wait()

    async def send_message(self, chat, text, **more):
        self.sent.append((chat, text))


def test_a_started_telegram_channel_hands_updates_to_its_gateway_and_sends_through_its_own_loop():
    import threading

    channel, _ = _starting(ServingBot())
    stop, core = threading.Event(), Core()
    channel.start(core, stop)
    wait_until(lambda: core.received, what="the update handed to the gateway")
    channel.send("42", "在")
    assert [i.text for i in core.received] == ["在吗"] and channel.bot.sent == [(42, "在")]
    stop.set()
    channel.close()
    assert not channel._thread.is_alive()

def test_a_telegram_message_with_neither_text_nor_caption_has_no_text():
    channel, _ = _telegram()
    got = asyncio.run(channel._incoming(SimpleNamespace(callback_query=None, message=_message(text=None))))
    assert got.text == "" and got.chat == "42"


class Checked:
    """Telegram's Bot for doctor --ping: `async with bot` connects, or fails."""

    username = "my_bot"

    def __init__(self, fails=None):
        self.fails = fails

    async def __aenter__(self):
        if self.fails:
            raise self.fails
        return self

    async def __aexit__(self, *exc):
        return False


@pytest.mark.parametrize("fails, said", [
    (None, "@my_bot"),
    ("token", ("Telegram refuses TELEGRAM_BOT_TOKEN: the token is not valid.",
               "Copy the token @BotFather gave you again, into .env.")),
    ("network", ("Telegram at https://api.telegram.example did not answer: Bad Gateway.",
                 "Check the network, or telegram.api_base."))])
def test_doctor_ping_names_the_telegram_bot_or_says_what_to_check(monkeypatch, fails, said):
    from telegram.error import InvalidToken, NetworkError

    from heartcompass.gateway import telegram

    asked = []
    bot = Checked({"token": InvalidToken(), "network": NetworkError("Bad Gateway"), None: None}[fails])
    monkeypatch.setattr(telegram, "make_bot", lambda token, api_base: asked.append((token, api_base)) or bot)
    if fails is None:
        assert asyncio.run(telegram.check_token("123:abc", "https://api.telegram.example")) == said
    else:
        with pytest.raises(HeartCompassError) as refused:
            asyncio.run(telegram.check_token("123:abc", "https://api.telegram.example"))
        assert (refused.value.message, refused.value.hint) == said
    assert asked == [("123:abc", "https://api.telegram.example")]


def _tenant_client(asked, *, ok=True, error=None):
    """lark-oapi's client for doctor --ping: the tenant token request, recorded."""

    def internal(request):
        asked.append(request)
        if error:
            raise error
        return SimpleNamespace(success=lambda: ok, msg="invalid app_secret", code=10014)

    return SimpleNamespace(auth=SimpleNamespace(v3=SimpleNamespace(tenant_access_token=SimpleNamespace(
        internal=internal))))


@pytest.mark.parametrize("outcome, said", [
    ("ok", "cli_1"),
    ("refused", ("Feishu/Lark refuses LARK_APP_ID/LARK_APP_SECRET: invalid app_secret (code 10014).",
                 "Copy both from the app's Credentials page in the developer console, into .env.")),
    ("down", ("Feishu/Lark at https://open.feishu.example did not answer: ConnectionError.",
              "Check the network, or lark.domain."))])
def test_doctor_ping_gets_a_feishu_tenant_token_with_the_apps_credentials_or_says_what_to_check(
        monkeypatch, outcome, said):
    from heartcompass.gateway import lark

    made, asked = [], []
    client = _tenant_client(asked, ok=outcome == "ok", error=ConnectionError("secret-ish") if outcome == "down" else None)
    monkeypatch.setattr(lark, "make_client", lambda *args: made.append(args) or client)
    if outcome == "ok":
        assert lark.check_app("cli_1", "secret-1", "https://open.feishu.example") == said
    else:
        with pytest.raises(HeartCompassError) as refused:
            lark.check_app("cli_1", "secret-1", "https://open.feishu.example")
        assert (refused.value.message, refused.value.hint) == said
    request, = asked
    assert made == [("cli_1", "secret-1", "https://open.feishu.example")]
    assert (request.request_body.app_id, request.request_body.app_secret) == ("cli_1", "secret-1")


def test_only_the_trailing_slashes_of_the_feishu_domain_go():
    from heartcompass.gateway.lark import LarkChannel, make_client

    assert make_client("cli_1", "s", "https://FEISHU.BOX//")._config.domain == "https://FEISHU.BOX"
    channel = LarkChannel("cli_1", "s", "https://FEISHU.BOX/", connect=False)
    assert channel.domain == "https://FEISHU.BOX" and channel.client._config.domain == "https://FEISHU.BOX"


def test_a_feishu_message_without_a_sender_type_or_chat_type_is_a_users_in_a_private_chat():
    """Feishu leaves a field out: the message is still the owner's, in their private chat (queued as such)."""
    from fake_lark import message_event

    channel = _lark()
    event = json.loads(message_event("hello", message_id="om_3", chat="oc_1"))
    del event["event"]["sender"]["sender_type"]
    del event["event"]["message"]["chat_type"]
    channel.handler._do_without_validation(json.dumps(event).encode())
    assert _drain(channel) == [("message", "om_3", "oc_1", "ou_owner", "hello", None, True)]


def test_a_feishu_event_without_a_sender_is_dropped_quietly():
    from fake_lark import message_event

    channel = _lark()
    event = json.loads(message_event("hello"))
    del event["event"]["sender"]
    channel.handler._do_without_validation(json.dumps(event).encode())   # nothing raised into the SDK's thread
    channel.handler._do_without_validation(message_event("after", message_id="om_4"))
    assert [item[1] for item in _drain(channel)] == ["om_4"]


def test_a_queued_feishu_photo_is_fetched_as_that_messages_resource():
    channel = _lark()
    fetched, core = [], Core()
    channel._image = lambda message_id, key: fetched.append((message_id, key)) or b"png"
    channel.inbox.put(("message", "om_8", "oc_1", "ou_owner", "", "img_8", True))
    channel.inbox.put(None)
    channel._hand_over(core, None)
    assert fetched == [("om_8", "img_8")] and core.received[0].image == b"png"


def test_sending_after_the_bots_loop_died_is_refused_at_once_and_a_send_that_hangs_gives_up(monkeypatch):
    """The loop ended without a close (it crashed): a reply is refused in words at once, not after a minute's
    wait per message; and a send the app never answers gives up after SEND_TIMEOUT."""
    import concurrent.futures
    import threading

    from heartcompass.gateway import telegram

    channel, _ = _starting(StartingBot())
    channel.loop = asyncio.new_event_loop()       # made and never run again: a loop that has ended
    dead = asyncio.sleep(0)
    with pytest.raises(HeartCompassError) as refused:
        channel._call(dead)
    assert refused.value.message == "The Telegram connection is closed." and dead.cr_frame is None
    channel.loop.close()
    monkeypatch.setattr(telegram, "SEND_TIMEOUT", 0.05)
    loop, ready = asyncio.new_event_loop(), threading.Event()
    threading.Thread(target=lambda: (asyncio.set_event_loop(loop), loop.call_soon(ready.set), loop.run_forever()),
                     daemon=True).start()
    assert ready.wait(DEADLINE)
    channel.loop, outcome = loop, []

    def send():
        try:
            channel._call(asyncio.Event().wait())  # an answer that never comes
        except concurrent.futures.TimeoutError:
            outcome.append("gave up")

    try:
        assert _closes(send) and outcome == ["gave up"]
    finally:
        loop.call_soon_threadsafe(lambda: ([task.cancel() for task in asyncio.all_tasks(loop)], loop.stop()))


def test_an_update_carrying_nothing_of_ours_does_not_hold_up_the_rest_of_its_batch(slept):
    import threading

    channel, _ = _telegram()
    channel.state = SimpleNamespace(offset=0, save=lambda: None)
    stop, core = threading.Event(), Core()
    channel.bot = PollingBot([[_update(800), _update(801, text="still here")]], stop)
    asyncio.run(channel._poll(core, stop))
    assert [i.text for i in core.received] == ["still here"] and channel.state.offset == 802
