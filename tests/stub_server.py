"""A small scripted OpenAI-compatible server on 127.0.0.1, for end-to-end
checks of the real langchain-openai client (tests) and for trying the
terminal chat by hand:  python tests/stub_server.py 8765

Replies are built from the request, so they show what the persona was
given: the persona's name and the newest fact from its system prompt."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from purposes import request_of, structured_mode


HOLD = 600.0  # the longest a held answer waits for the test to let it go (a test that forgot)


class StubState:
    def __init__(self):
        self.requests: list[dict] = []
        self.headers: list[dict] = []      # each request's HTTP headers (the key it carried)
        self.fail_next: list[int] = []     # status codes to answer with before replying
        self.replies: list[str] = []       # scripted replies; else one built from the prompt
        self.delay = 0.0                   # seconds to think before answering
        # A test that must act while the model thinks (a Ctrl-C, a signal) holds the answers:
        # answering.clear(), wait for `arrived`, act, answering.set(). No guessed delay to race.
        self.answering = threading.Event()
        self.answering.set()
        self.arrived = threading.Event()   # set once a request has come in
        # structured-output modes answered with HTTP 500, like llama-cpp-python's server refusing
        # json_schema: any of "json_schema", "json_object", "tool_call"
        self.refuse: set[str] = set()
        self.cut_off = False               # answer as a model stopped by max_tokens: half the text, "length"


    def request(self, purpose: str, nth: int | None = None) -> dict:
        """The request body sent for this purpose (tests/purposes.py: "garden", "chat", "coach"...):
        the only one (nth=None), or the nth of them. Never "the last request", which becomes another
        one when the code asks once more."""
        return request_of(self.requests, purpose, nth)


def text_of(content) -> str:
    """A message's text: a string, or (with images, as `tell --image` sends) a list of parts."""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content if isinstance(content, str) else ""


def default_reply(body: dict) -> str:
    system = next((text_of(m["content"]) for m in body.get("messages", []) if m["role"] == "system"), "")
    last = text_of(body["messages"][-1]["content"]) if body.get("messages") else ""
    name = re.search(r"You are (.+?),", system)
    fact = re.search(r"## Known facts \(true\)[^\n]*\n- (.+)", system)
    who = name.group(1) if name else "someone"
    known = fact.group(1) if fact else "nothing yet"
    return f"hey, it's {who}!\n|||\nyou said: {last[:60]}\n|||\nI know: {known}"


def overlap_reply(body: dict) -> str:
    """A question from benchmarks/locomo.py ("Question: ..."): the line of
    the prompt sharing the most words with it, or "I don't know": a
    stand-in for a model reading its context, so what the prompt holds
    decides the answer."""
    question = re.search(r"(?m)^Question: (.+)$", body["messages"][-1]["content"]).group(1)
    wanted = set(re.findall(r"\w{4,}", question.lower()))
    lines = [line for m in body["messages"][:-1] for line in m["content"].splitlines()]
    best = max(lines, key=lambda line: len(wanted & set(re.findall(r"\w{4,}", line.lower()))), default="")
    said = best.strip("- ") if wanted & set(re.findall(r"\w{4,}", best.lower())) else "I don't know"
    persona = "|||" in body["messages"][0]["content"]  # asked to split replies into short messages
    return f"hmm, let me think\n|||\n{said}" if persona else said


def judge_reply(text: str) -> str:
    """The judge of benchmarks/locomo.py: CORRECT when every word of the gold answer is in the answer."""
    gold = re.search(r"(?m)^Gold answer: (.*)$", text).group(1).lower()
    answer = re.search(r"(?m)^Generated answer: (.*)$", text).group(1).lower()
    right = set(re.findall(r"\w+", gold)) <= set(re.findall(r"\w+", answer))
    label = "CORRECT" if right else "WRONG"
    return f'Every word of the gold answer is {"" if right else "not "}there.\n{{"label": "{label}"}}'


def plain_reply(body: dict) -> str:
    last = body["messages"][-1]["content"] if body.get("messages") else ""
    if "\nGold answer: " in last and "\nGenerated answer: " in last:
        return judge_reply(last)
    if re.search(r"(?m)^Question: ", last):
        return overlap_reply(body)
    return default_reply(body)


def structured_reply(name: str, body: dict) -> dict:
    """For the gardener: each /note entry becomes a fact, and each imported
    message (what someone said in a real chat) one too, nothing else. Asked
    for a corrected proposal, it sends the first one without what was
    rejected (a real model fixes its answer; it does not drop everything)."""
    asked = [text_of(m["content"]) for m in body["messages"] if m["role"] == "user"]
    rejected = asked[-1] if name == "Proposal" and asked[-1].startswith("That proposal was rejected") else ""
    if name == "Proposal" and asked[-1].startswith("Your proposal on these entries was applied except"):
        return {"summary": "left out what the entries do not support"}  # only the refused lines were asked for
    text = asked[0] if rejected else asked[-1]
    if name == "Advice":
        system = text_of(body["messages"][0]["content"])
        who = re.search(r"reply to (.+?)\. You know", system)
        who = who.group(1) if who else "them"
        return {"reading": f"{who} wants to feel heard about: {text.splitlines()[-1][:60]}",
                "candidates": [{"reply": "That sounds like a lot. Want to talk tonight?", "tone": "warm",
                                "why": f"{who} opens up when given time"},
                               {"reply": "I'm here. Coffee on Saturday?", "tone": "practical",
                                "why": "a concrete plan without pressure"}],
                "risks": ["Jumping to solutions may feel dismissive"],
                "suggestions": ["Ask one open question before giving advice"]}
    if name != "Proposal":  # compression: keep each line (not the user's own) as it is, without its source
        def kept(prefix: str) -> list[dict]:
            return [{"text": re.sub(r" \((log [\d-]+|told|import)\)$", "", line), "lines": [ident]}
                    for ident, line, hand in re.findall(rf"(?m)^({prefix}\d+) - (.+?)(   \[hand-written.*)?$", text)
                    if not hand]
        out = {"facts": kept("F"), "chat_notes": kept("C"), "threads": kept("T"), "about_user": kept("U")}
        budget = re.search(r"fits in (\d+) tokens", text_of(body["messages"][0]["content"]))
        while budget and out["facts"] and \
                sum(len(x["text"]) for v in out.values() for x in v) > 2 * int(budget.group(1)):
            out["facts"].pop(0)  # about 4 characters a token: half the budget; the oldest fact goes first
        return out
    notes = re.findall(r"(?m)^(L\d+) \[[^\]]* · note · [^\]]*\] (.+)$", text)
    # the user's own news ("my son broke his arm"): what they told about their life
    mine = re.findall(r"(?m)^(L\d+) \[[^\]]* · (?:me|import:me) · [^\]]*\] [Mm]y (.+)$", text)
    facts = [{"text": note[:150], "evidence": [ident]} for ident, note in notes]
    taken = {ident for ident, _ in mine}
    # what the others said (the user's own imported lines are theirs: About me, above, or nothing)
    for ident, said in re.findall(r"(?m)^(L\d+) \[[^\]]* · import:(?!me )\S+ · [^\]]*\] (.+)$", text):
        if ident in taken:
            continue
        words = said.split()  # a statement, not the message pasted: its first words, never all of them
        facts.append({"text": " ".join(words[:min(len(words) - 1, 20)]) if len(words) > 3 else said,
                      "evidence": [ident]})
    about = [{"text": f"The user's {said[:140]}", "evidence": [ident]} for ident, said in mine]
    if rejected:  # "new fact 12: ...", "new line about the user 1: ..." (numbered from 1)
        facts = [f for n, f in enumerate(facts, 1) if f"new fact {n}:" not in rejected]
        about = [a for n, a in enumerate(about, 1) if f"new line about the user {n}:" not in rejected]
    return {"summary": f"stub gardener: {len(facts)} facts", "nothing_worth_keeping": not (facts or about),
            "new_facts": facts, "new_about_user": about}


def make_handler(state: StubState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_GET(self):
            self._json(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})

        def do_POST(self):
            try:
                self._post()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (a test killed it)

        def _post(self):
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(body)
            state.headers.append(dict(self.headers))
            state.arrived.set()
            time.sleep(state.delay)
            state.answering.wait(HOLD)
            mode, name = structured_mode(body)
            if mode in state.refuse:  # checked first: a server refuses a mode before it tries to answer
                return self._json(500, {"error": {"message": f"this server does not support {mode} "
                                                             "(body.response_format / tools)"}})
            if state.fail_next:
                code = state.fail_next.pop(0)
                return self._json(code, {"error": {"message": f"stub error {code}", "type": "server_error"}})
            tool_calls = None
            if state.replies:
                text = state.replies.pop(0)
            elif mode is not None:
                text = json.dumps(structured_reply(name, body))
            else:
                text = plain_reply(body)
            finish = "stop"
            if state.cut_off:
                text, finish = text[:len(text) // 2], "length"
            if mode == "tool_call":
                tool_calls = [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]
                text = ""
            if not body.get("stream"):
                prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
                return self._json(200, {"id": "x", "object": "chat.completion", "created": int(time.time()),
                                        "model": body.get("model", "stub"),
                                        "usage": {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
                                                  "total_tokens": prompt + len(text) // 4},
                                        "choices": [{"index": 0, "finish_reason": finish,
                                                     "message": {"role": "assistant", "content": text,
                                                                 **({"tool_calls": tool_calls} if tool_calls
                                                                    else {})}}]})
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for piece in re.split(r"(\s)", text):
                self._event({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                time.sleep(0.01)
            self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            self.wfile.write(b"data: [DONE]\n\n")

        def _event(self, payload: dict):
            payload = {"id": "x", "object": "chat.completion.chunk", "created": int(time.time()),
                       "model": "stub", **payload}
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        def _json(self, code: int, payload: dict):
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def start(port: int = 0) -> tuple[ThreadingHTTPServer, StubState]:
    state = StubState()
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    try:
        srv, _ = start(port)
    except OSError as exc:
        sys.exit(f"Cannot listen on 127.0.0.1:{port} ({exc.strerror}); give another port: "
                 f"python {sys.argv[0]} PORT")
    print(f"stub OpenAI-compatible server on http://127.0.0.1:{srv.server_port}/v1", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
