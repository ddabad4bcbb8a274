"""A local fake of the Telegram Bot API (the methods `serve` uses), on
127.0.0.1: tests push updates as a user would send them and read what the
bot sent. The real python-telegram-bot talks to it through telegram.api_base."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote

from waits import DEADLINE

TOKEN = "123456:TEST-token"
PHOTO = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


class FakeTelegram:
    def __init__(self, token: str = TOKEN):
        self.token = token
        self.updates: list[dict] = []
        self.sent: list[dict] = []      # every call but getUpdates: {"method": ..., **params}
        self.next_update = 100
        self.next_message = 1
        self.cv = threading.Condition()
        self.polls = 0
        self.html_polls = 0                # getUpdates answers this many times with a proxy's HTML page
        self.sends_open = threading.Event()  # cleared: every call but getUpdates waits (a slow Bot API)
        self.sends_open.set()
        self.held: list[str] = []          # the calls that waited
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self.server = server
        self.base = f"http://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what the user does ----------------------------------------------------------
    def message(self, text: str, user: int = 42, chat: int | None = None, photo: bool = False) -> int:
        with self.cv:
            self.next_message += 1
            msg = {"message_id": self.next_message, "date": int(time.time()),
                   "chat": {"id": chat or user, "type": "private" if (chat or user) == user else "supergroup"},
                   "from": {"id": user, "is_bot": False, "first_name": "U"}}
            if photo:
                msg["photo"] = [{"file_id": "ph1", "file_unique_id": "u1", "width": 8, "height": 8}]
                msg["caption"] = text
            else:
                msg["text"] = text
                if text.startswith("/"):
                    msg["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
            return self._push({"message": msg})

    def press(self, data: str, user: int = 42, chat: int | None = None) -> int:
        where = {"id": chat or user, "type": "private" if (chat or user) == user else "supergroup"}
        with self.cv:
            return self._push({"callback_query": {
                "id": f"q{self.next_update}", "from": {"id": user, "is_bot": False, "first_name": "U"},
                "chat_instance": "ci", "data": data,
                "message": {"message_id": 1, "date": int(time.time()), "chat": where,
                            "text": "Write these changes?"}}})

    def redeliver(self, update_id: int) -> None:
        """The same update again (as after a lost acknowledgement)."""
        with self.cv:
            self.updates.append(next(u for u in self.delivered if u["update_id"] == update_id))
            self.cv.notify_all()

    def _push(self, body: dict) -> int:
        self.next_update += 1
        update = {"update_id": self.next_update, **body}
        self.updates.append(update)
        self.cv.notify_all()
        return self.next_update

    # -- what the bot did -------------------------------------------------------------
    def texts(self, chat: int = 42) -> list[str]:
        with self.cv:
            return [c["text"] for c in self.sent if c["method"] == "sendMessage" and str(c["chat_id"]) == str(chat)]

    def calls(self, method: str) -> list[dict]:
        with self.cv:
            return [c for c in self.sent if c["method"] == method]

    def wait_for(self, predicate, timeout: float = DEADLINE) -> None:
        deadline = time.monotonic() + timeout
        with self.cv:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out; the bot sent: {[c.get('text') for c in self.sent]}")
                self.cv.wait(min(left, 0.1))

    def wait_texts(self, n: int, chat: int = 42, timeout: float = DEADLINE) -> list[str]:
        self.wait_for(lambda: len(self.texts(chat)) >= n, timeout)
        return self.texts(chat)

    delivered: list[dict]

    # -- the server -----------------------------------------------------------------
    def _handler(self):
        fake = self
        fake.delivered = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # a file download
                ok = unquote(self.path).startswith(f"/file/bot{fake.token}/")
                self._reply_raw(PHOTO if ok else b"", 200 if ok else 404)

            def do_POST(self):
                prefix = f"/bot{fake.token}/"
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.startswith(prefix):
                    return self._reply({"ok": False, "error_code": 401, "description": "Unauthorized"}, 401)
                method = self.path[len(prefix):]
                params = fake_params(body, self.headers.get("Content-Type", ""))
                if method == "getUpdates" and fake.take_html_poll():
                    return self._reply_raw(b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>", 200,
                                           "text/html")
                if method != "getUpdates" and not fake.sends_open.is_set():
                    with fake.cv:
                        fake.held.append(method)
                        fake.cv.notify_all()
                    fake.sends_open.wait(120)
                self._reply({"ok": True, "result": fake.call(method, params)})

            def _reply(self, data: dict, status: int = 200):
                self._reply_raw(json.dumps(data).encode(), status, "application/json")

            def _reply_raw(self, data: bytes, status: int, kind: str = "application/octet-stream"):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # a poll the bot gave up on (its stop)
                    pass

        return Handler

    def take_html_poll(self) -> bool:
        with self.cv:
            if self.html_polls <= 0:
                return False
            self.html_polls -= 1
            self.polls += 1
            self.cv.notify_all()
            return True

    def call(self, method: str, params: dict):
        if method == "getMe":
            return {"id": 1, "is_bot": True, "first_name": "HeartCompass", "username": "hc_test_bot"}
        if method == "getUpdates":
            offset = int(params.get("offset") or 0)
            deadline = time.monotonic() + min(float(params.get("timeout") or 0), 0.3)
            with self.cv:
                self.polls += 1
                self.cv.notify_all()
                while True:
                    ready = [u for u in self.updates if u["update_id"] >= offset]
                    if ready or time.monotonic() >= deadline:
                        break
                    self.cv.wait(0.05)
                self.updates = ready
                self.delivered += [u for u in ready if u not in self.delivered]
                return ready
        with self.cv:
            self.sent.append({"method": method, **params})
            self.cv.notify_all()
            if method == "sendMessage":
                self.next_message += 1
                return {"message_id": self.next_message, "date": int(time.time()),
                        "chat": {"id": int(params["chat_id"]), "type": "private"}, "text": params.get("text", "")}
            if method == "getFile":
                return {"file_id": params.get("file_id"), "file_unique_id": "u1", "file_path": "photos/1.png"}
        return True


def fake_params(body: bytes, kind: str) -> dict:
    if not body:
        return {}
    if "json" in kind:
        return json.loads(body)
    params = {}
    for key, values in parse_qs(body.decode(), keep_blank_values=True).items():
        try:
            params[key] = json.loads(values[0])
        except ValueError:
            params[key] = values[0]
    return params
