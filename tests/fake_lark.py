"""A local fake of the Feishu/Lark open platform's endpoints that serve
uses (the tenant token, sending messages, the Typing reaction, a message's
image), reached by the real lark-oapi client through lark.domain; and
recorded im.message.receive_v1 / card.action.trigger events to feed
through lark-oapi's event dispatcher, as its websocket client does."""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from waits import DEADLINE

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
_ids = itertools.count(1)


def message_event(text: str = "", *, sender: str = "ou_owner", chat: str = "oc_chat", message_id: str | None = None,
                  kind: str = "text", content: dict | None = None, chat_type: str = "p2p") -> bytes:
    """An im.message.receive_v1 event as Feishu sends it (schema 2.0)."""
    message_id = message_id or f"om_{next(_ids)}"
    return json.dumps({
        "schema": "2.0",
        "header": {"event_id": f"ev_{message_id}", "event_type": "im.message.receive_v1",
                   "create_time": str(int(time.time() * 1000)), "token": "", "app_id": "cli_test", "tenant_key": "tk"},
        "event": {"sender": {"sender_id": {"union_id": "on_1", "user_id": "u1", "open_id": sender},
                             "sender_type": "user", "tenant_key": "tk"},
                  "message": {"message_id": message_id, "root_id": "", "parent_id": "",
                              "create_time": str(int(time.time() * 1000)), "chat_id": chat, "chat_type": chat_type,
                              "message_type": kind, "content": json.dumps(content or {"text": text},
                                                                          ensure_ascii=False),
                              "mentions": []}}}, ensure_ascii=False).encode()


def card_event(answer: str, *, sender: str = "ou_owner", chat: str = "oc_chat") -> bytes:
    """A card.action.trigger event: a button of our card pressed."""
    return json.dumps({
        "schema": "2.0",
        "header": {"event_id": f"ev_card_{next(_ids)}", "event_type": "card.action.trigger",
                   "create_time": str(int(time.time() * 1000)), "token": "", "app_id": "cli_test", "tenant_key": "tk"},
        "event": {"operator": {"open_id": sender}, "token": "c-1",
                  "action": {"value": {"answer": answer}, "tag": "button"},
                  "context": {"open_message_id": "om_card", "open_chat_id": chat}}}).encode()


class FakeLark:
    def __init__(self, app_id: str = "cli_test", app_secret: str = "secret-test"):
        self.app_id, self.app_secret = app_id, app_secret
        self.sent: list[dict] = []   # {"path": ..., "body": ...}
        self.cv = threading.Condition()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if "/resources/" in self.path:
                    return self._raw(PNG, "image/png")
                self._json({"code": 404, "msg": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.startswith("/open-apis/auth/v3/tenant_access_token/internal"):
                    if (body.get("app_id"), body.get("app_secret")) != (fake.app_id, fake.app_secret):
                        return self._json({"code": 10014, "msg": "app secret invalid"})
                    return self._json({"code": 0, "msg": "ok", "tenant_access_token": "t-test", "expire": 7200})
                if self.headers.get("Authorization") != "Bearer t-test":
                    return self._json({"code": 99991663, "msg": "invalid access token"})
                with fake.cv:
                    fake.sent.append({"path": self.path, "body": body})
                    fake.cv.notify_all()
                self._json({"code": 0, "msg": "success", "data": {"message_id": f"om_bot_{len(fake.sent)}"}})

            def _json(self, data):
                self._raw(json.dumps(data).encode(), "application/json")

            def _raw(self, data: bytes, kind: str):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def messages(self, chat: str = "oc_chat") -> list[dict]:
        with self.cv:
            return [s["body"] for s in self.sent if "/im/v1/messages?" in s["path"] and s["body"].get("receive_id") == chat]

    def texts(self, chat: str = "oc_chat") -> list[str]:
        return [json.loads(m["content"]).get("text", "(card)") for m in self.messages(chat)]

    def reactions(self) -> list[dict]:
        with self.cv:
            return [s for s in self.sent if s["path"].endswith("/reactions")]

    def wait_texts(self, n: int, chat: str = "oc_chat", timeout: float = DEADLINE) -> list[str]:
        deadline = time.monotonic() + timeout
        with self.cv:
            while len(self.texts(chat)) < n:
                if time.monotonic() > deadline:
                    raise AssertionError(f"timed out; sent: {self.texts(chat)}")
                self.cv.wait(0.1)
        return self.texts(chat)
