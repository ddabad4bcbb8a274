"""An OpenAI-compatible chat-completions server on 127.0.0.1 that relays
each request to a person (or another program) through files, so a capable
model can be played by hand when no endpoint is reachable:

    python benchmarks/relay_model.py DIR [PORT]

Each request's JSON body is written to DIR/NNNN.request.json (0001, 0002...).
The server then waits, polling, for DIR/NNNN.answer.json: the assistant's
message content, as text (for the gardener: the JSON proposal the request's
json_schema asks for). Write it atomically (to a temporary name, then
rename), and the client gets it back as the model's answer. There is no
timeout unless --timeout SECONDS is given; the client's own timeout still
applies, so give it room (`heartcompass config set llm.timeout 3600`).

Point HeartCompass at it:
    heartcompass config set llm.base_url http://127.0.0.1:PORT/v1
    heartcompass config set llm.model relay
    OPENAI_API_KEY=dummy heartcompass garden

Structured output is answered however the client asked for it: json_schema
and json_object as the message content, a forced tool call as the tool's
arguments. Streaming requests get the answer as one chunk."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

POLL_SECONDS = 0.5


class Relay:
    """The files: numbers requests in arrival order and waits for their answers."""

    def __init__(self, folder: Path, timeout: float | None = None, poll: float = POLL_SECONDS):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout
        self.poll = poll
        self._lock = threading.Lock()
        taken = [int(p.name[:4]) for p in self.folder.glob("[0-9][0-9][0-9][0-9].request.json")]
        self._numbers = itertools.count(max(taken, default=0) + 1)  # a restart never overwrites a request

    def ask(self, body: dict) -> str | None:
        """Writes the request, returns the answer's text (None when the timeout passed)."""
        with self._lock:
            number = next(self._numbers)
        request = self.folder / f"{number:04d}.request.json"
        answer = self.folder / f"{number:04d}.answer.json"
        staging = request.with_suffix(".json.part")
        staging.write_text(json.dumps(body, ensure_ascii=False, indent=2), encoding="utf-8")
        os.replace(staging, request)
        print(f"waiting for {answer}", file=sys.stderr, flush=True)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while not answer.exists():
            if deadline is not None and time.monotonic() > deadline:
                return None
            time.sleep(self.poll)
        return answer.read_text(encoding="utf-8")


def forced_tool(body: dict) -> str | None:
    """The tool the client forces (structured output as a tool call), if any."""
    choice = body.get("tool_choice")
    if body.get("tools") and isinstance(choice, dict):
        return choice.get("function", {}).get("name")
    return None


def make_handler(relay: Relay):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # the waiting line on stderr is enough
            pass

        def do_GET(self):
            self._json(200, {"object": "list", "data": [{"id": "relay", "object": "model"}]})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as exc:
                return self._json(400, {"error": {"message": f"request body is not JSON: {exc}"}})
            text = relay.ask(body)
            if text is None:
                return self._json(504, {"error": {"message": "no answer file in time", "type": "timeout"}})
            tool = forced_tool(body)
            message: dict = {"role": "assistant", "content": "" if tool else text}
            if tool:
                message["tool_calls"] = [{"id": "call_1", "type": "function",
                                          "function": {"name": tool, "arguments": text}}]
            usage = {"prompt_tokens": len(json.dumps(body.get("messages", []))) // 4,
                     "completion_tokens": len(text) // 4}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            if body.get("stream"):
                return self._stream(body, message, usage)
            self._json(200, {"id": "relay", "object": "chat.completion", "created": int(time.time()),
                             "model": body.get("model", "relay"), "usage": usage,
                             "choices": [{"index": 0, "finish_reason": "stop", "message": message}]})

        def _stream(self, body: dict, message: dict, usage: dict):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            base = {"id": "relay", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body.get("model", "relay")}
            delta = {"role": "assistant", "content": message["content"]}
            if "tool_calls" in message:
                delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
            for choice in ({"index": 0, "delta": delta, "finish_reason": None},
                           {"index": 0, "delta": {}, "finish_reason": "stop"}):
                self.wfile.write(f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode())
            self.wfile.write(f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _json(self, code: int, payload: dict):
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def start(folder: Path, port: int = 0, timeout: float | None = None,
          poll: float = POLL_SECONDS) -> ThreadingHTTPServer:
    """The relay serving in a background thread; its port is server.server_port."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(Relay(folder, timeout, poll)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where NNNN.request.json and NNNN.answer.json go")
    parser.add_argument("port", type=int, nargs="?", default=8766)
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for an answer (none: forever)")
    args = parser.parse_args()
    try:
        server = start(args.folder, args.port, args.timeout)
    except OSError as exc:
        sys.exit(f"Cannot listen on 127.0.0.1:{args.port} ({exc.strerror}); give another port.")
    print(f"relay model on http://127.0.0.1:{server.server_port}/v1, files in {args.folder}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
