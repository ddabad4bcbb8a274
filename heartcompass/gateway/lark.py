"""Feishu/Lark by the SDK's long connection (lark-oapi's websocket client:
no public URL), messages sent through its IM API at lark.domain.

Received events (im.message.receive_v1, and card.action.trigger for the
Yes/No buttons) go through lark-oapi's event dispatcher. The handler only
queues them: one thread of ours hands them to the core in order, so the
websocket is never held up by a commit or a model call. Feishu has no
"typing" state for bots; the customary sign is the Typing reaction on the
message being answered."""

from __future__ import annotations

import json
import queue
import re
import threading
from typing import Any

from heartcompass.errors import HeartCompassError
from heartcompass.gateway.core import Gateway, Incoming

MENTION = re.compile(r"@_user_\d+\s*")  # how Feishu writes an @mention of the bot in a group
CLOSE_WAIT = 30.0  # seconds close waits for the inbox thread: a core stuck on a delivery never keeps serve running


def missing_extra() -> HeartCompassError:
    return HeartCompassError("The Feishu/Lark channel needs lark-oapi.",
                             "Install it with: pip install 'heartcompass[lark]'")


def make_client(app_id: str, app_secret: str, domain: str) -> Any:
    try:
        import lark_oapi as lark
    except ImportError:
        raise missing_extra() from None
    return lark.Client.builder().app_id(app_id).app_secret(app_secret).domain(domain.rstrip("/")) \
        .log_level(lark.LogLevel.ERROR).build()


def check_app(app_id: str, app_secret: str, domain: str) -> str:
    """`doctor --ping`: the app's credentials get a tenant token, or a clear error."""
    from lark_oapi.api.auth.v3 import InternalTenantAccessTokenRequest, InternalTenantAccessTokenRequestBody

    client = make_client(app_id, app_secret, domain)
    body = InternalTenantAccessTokenRequestBody.builder().app_id(app_id).app_secret(app_secret).build()
    try:
        resp = client.auth.v3.tenant_access_token.internal(
            InternalTenantAccessTokenRequest.builder().request_body(body).build())
    except Exception as exc:  # the SDK raises the transport's own errors
        raise HeartCompassError(f"Feishu/Lark at {domain} did not answer: {type(exc).__name__}.",
                                "Check the network, or lark.domain.") from None
    if not resp.success():
        raise HeartCompassError(f"Feishu/Lark refuses LARK_APP_ID/LARK_APP_SECRET: {resp.msg} (code {resp.code}).",
                                "Copy both from the app's Credentials page in the developer console, into .env.")
    return app_id


def parse_content(kind: str | None, content: str | None) -> tuple[str, str | None]:
    """(text, image_key) of a received message: text, image, or post (rich text: a photo with a caption)."""
    try:
        data = json.loads(content or "{}")
    except ValueError:
        return "", None
    if kind == "text":
        return MENTION.sub("", str(data.get("text", ""))).strip(), None
    if kind == "image":
        return "", data.get("image_key")
    if kind == "post":
        body: Any = data.get("content") or next((v.get("content") for v in data.values() if isinstance(v, dict)), [])
        texts, image = [], None
        for para in body or []:
            for el in para or []:
                if el.get("tag") == "text":
                    texts.append(str(el.get("text", "")))
                elif el.get("tag") == "img" and image is None:
                    image = el.get("image_key")
        return MENTION.sub("", " ".join(texts)).strip(), image
    return "", None


class LarkChannel:
    name = "lark"

    def __init__(self, app_id: str, app_secret: str, domain: str, report=lambda s: None, connect: bool = True):
        self.app_id, self.app_secret, self.domain = app_id, app_secret, domain.rstrip("/")
        self.client = make_client(app_id, app_secret, domain)
        self.report, self.connect = report, connect
        self.inbox: queue.Queue = queue.Queue()
        self.last_message: dict[str, str] = {}  # chat -> the newest received message id (the Typing reaction)
        self._typed: set[str] = set()
        self.handler = self._handler()
        self._threads: list[threading.Thread] = []

    def _handler(self) -> Any:
        import lark_oapi as lark

        return lark.EventDispatcherHandler.builder("", "") \
            .register_p2_im_message_receive_v1(self._on_message) \
            .register_p2_card_action_trigger(self._on_card) \
            .build()

    # -- events (the SDK's thread): only queued ------------------------------------
    def _on_message(self, data: Any) -> None:
        event = data.event
        msg, sender = event.message, event.sender
        open_id = getattr(sender.sender_id, "open_id", None) if sender and sender.sender_id else None
        if msg is None or not open_id or (sender.sender_type or "user") != "user":
            return
        text, image_key = parse_content(msg.message_type, msg.content)
        private = (msg.chat_type or "p2p") == "p2p"  # a group is answered with a note only (core)
        self.inbox.put(("message", msg.message_id, msg.chat_id, open_id, text, image_key, private))

    def _on_card(self, data: Any) -> Any:
        from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTriggerResponse

        event = data.event
        value = (event.action.value or {}) if event and event.action else {}
        chat = event.context.open_chat_id if event and event.context else None
        open_id = event.operator.open_id if event and event.operator else None
        if chat and open_id and isinstance(value, dict) and value.get("answer"):
            # (the core takes a button as private only in a chat it knows as the owner's private one)
            self.inbox.put(("button", data.header.event_id, chat, open_id, str(value["answer"]), None, True))
        return P2CardActionTriggerResponse({})

    # -- lifecycle ---------------------------------------------------------------
    def start(self, gateway: Gateway, stop: threading.Event) -> None:
        handing = threading.Thread(target=self._hand_over, args=(gateway, stop), name="lark-inbox", daemon=True)
        handing.start()
        self._threads.append(handing)
        if self.connect:
            import lark_oapi as lark

            # The SDK's client runs its own loop forever and has no stop: a daemon thread, ended with the process.
            client = lark.ws.Client(self.app_id, self.app_secret, event_handler=self.handler, domain=self.domain,
                                    log_level=lark.LogLevel.ERROR)
            threading.Thread(target=client.start, name="lark-ws", daemon=True).start()

    def close(self) -> None:
        self.inbox.put(None)
        for thread in self._threads:
            thread.join(timeout=CLOSE_WAIT)

    def _hand_over(self, gateway: Gateway, stop: threading.Event) -> None:
        while True:
            item = self.inbox.get()
            if item is None:
                return
            kind, message_id, chat, sender, text, image_key, private = item
            if kind == "button":
                gateway.receive(Incoming(self.name, chat, sender, f"ev:{message_id}", button=text, private=private))
                continue
            self.last_message[chat] = message_id
            image = self._image(message_id, image_key) if image_key else None
            gateway.receive(Incoming(self.name, chat, sender, message_id, text=text, image=image, private=private))

    def _image(self, message_id: str, key: str) -> bytes | None:
        from lark_oapi.api.im.v1 import GetMessageResourceRequest

        try:
            resp = self.client.im.v1.message_resource.get(
                GetMessageResourceRequest.builder().message_id(message_id).file_key(key).type("image").build())
            return resp.file.read() if resp.success() and resp.file else None
        except Exception as exc:
            self.report(f"lark: photo not downloaded: {type(exc).__name__}")
            return None

    # -- sending (the core's threads) ---------------------------------------------
    def _create(self, chat: str, kind: str, content: dict) -> None:
        from lark_oapi.api.im.v1 import CreateMessageRequest, CreateMessageRequestBody

        body = CreateMessageRequestBody.builder().receive_id(chat).msg_type(kind) \
            .content(json.dumps(content, ensure_ascii=False)).build()
        resp = self.client.im.v1.message.create(
            CreateMessageRequest.builder().receive_id_type("chat_id").request_body(body).build())
        if not resp.success():
            raise HeartCompassError(f"Feishu/Lark refused the message: {resp.msg} (code {resp.code}).")

    def send(self, chat: str, text: str) -> None:
        self._create(chat, "text", {"text": text})

    def ask(self, chat: str, text: str, choices: list[tuple[str, str]]) -> None:
        key = choices[0][1].partition(":")[0] if choices else ""
        buttons = [{"tag": "button", "text": {"tag": "plain_text", "content": label},
                    "type": "primary" if i == 0 else "default", "value": {"answer": data}}
                   for i, (label, data) in enumerate(choices)]
        card = {"config": {"wide_screen_mode": True},
                "elements": [{"tag": "div", "text": {"tag": "plain_text", "content": text[:3500]}},
                             {"tag": "action", "actions": buttons},
                             {"tag": "note", "elements": [{"tag": "plain_text", "content": f"Or reply /yes {key} or /no {key}."}]}]}
        self._create(chat, "interactive", card)

    def typing(self, chat: str) -> None:
        from lark_oapi.api.im.v1 import CreateMessageReactionRequest, CreateMessageReactionRequestBody, Emoji

        message_id = self.last_message.get(chat)
        if not message_id or message_id in self._typed:
            return
        if len(self._typed) > 1000:  # bounded: serve runs for months
            self._typed.clear()
        self._typed.add(message_id)
        body = CreateMessageReactionRequestBody.builder().reaction_type(Emoji.builder().emoji_type("Typing").build())
        self.client.im.v1.message_reaction.create(
            CreateMessageReactionRequest.builder().message_id(message_id).request_body(body.build()).build())
