"""The stages of benchmarks/locomo.py for one conversation: a workspace, the
import, the garden, and the two ways of asking a question, each through
HeartCompass's own core API; plus the append-only caches in --out that let
a stopped run resume."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Callable

from locomo_data import Sample, export_text, transcript

from heartcompass.atomic import write_atomic
from heartcompass.llm import prompts, providers as llm
from heartcompass.memory import context as context_mod
from heartcompass.store.workspace import Workspace
from heartcompass.store.creation import create_workspace
from heartcompass.tokens import estimate_tokens

class BenchError(Exception):
    """A problem the user fixes (the endpoint, the model, --out): one line, exit 1."""


# -- --out: caches that survive an interruption --------------------------------------------
def folder_name(sample_id: str) -> str:
    """A folder for the sample: its id where it is a safe name, cut short
    (a file name holds 255 bytes) with a hash of the whole id to keep apart."""
    import hashlib

    name = re.sub(r"[^\w.-]+", "_", sample_id).strip("._") or "sample"
    if len(name) > 60:
        name = f"{name[:50]}-{hashlib.sha256(sample_id.encode('utf-8')).hexdigest()[:8]}"
    return name


def hold(out: Path) -> int:
    """One run per --out at a time (two would build the same workspace): an
    flock the system drops when this process ends. Returns its descriptor."""
    import fcntl

    lock = out / ".lock"
    refuse_link(lock)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BenchError(f"another run of the benchmark is using {out}; wait for it to end, or pass "
                         "another --out.") from None
    return fd


def write_json(path: Path, data) -> None:
    refuse_link(path)
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise BenchError(f"{path} is a symbolic link; the benchmark writes no file through a link. "
                         "Remove it, or pass another --out.")


class Records:
    """An append-only JSON-lines file, keyed by (sample, question, side):
    each record is one whole line, flushed and fsynced; a line cut off by a
    crash is skipped on reading, and the next record starts a line of its own."""

    def __init__(self, path: Path):
        self.path = path
        self.lock = threading.Lock()
        self.data: dict[tuple, dict] = {}
        refuse_link(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raw = b""
        for line in raw.decode("utf-8", "replace").splitlines():
            try:
                rec = json.loads(line)
                self.data[(rec["sample"], rec["q"], rec["side"])] = rec
            except (ValueError, KeyError, TypeError):
                continue  # a line cut off by a crash
        self._torn = bool(raw) and not raw.endswith(b"\n")

    def get(self, sample: str, q: int, side: str) -> dict | None:
        return self.data.get((sample, q, side))

    def add(self, rec: dict) -> None:
        line = json.dumps(rec, ensure_ascii=False)
        with self.lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            try:
                os.write(fd, (("\n" if self._torn else "") + line + "\n").encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            self._torn = False
            self.data[(rec["sample"], rec["q"], rec["side"])] = rec


# -- a workspace per conversation ---------------------------------------------------------------
def workspace(folder: Path, sample: Sample) -> tuple[Workspace, object]:
    """The conversation's workspace: the user named as the user, the other
    speaker a person. Built aside and moved into place whole, so a run
    stopped while building it starts it again."""
    from heartcompass.store.config_edit import set_config
    from heartcompass.store.lifecycle import add_person
    from heartcompass.store.people import resolve

    root = folder / "workspace"
    if not (root / "heartcompass.toml").exists():
        building = folder / "workspace.building"
        shutil.rmtree(building, ignore_errors=True)
        ws, _ = create_workspace(building)
        set_config(ws, "user.name", sample.user)
        add_person(ws, sample.person, "friend", about="A friend; our chats are imported from a chat export.")
        os.replace(building, root)
    ws = Workspace(root)
    return ws, resolve(ws, sample.person)


def import_conversation(ws: Workspace, person, folder: Path, sample: Sample) -> int:
    """The conversation written as a WhatsApp export and brought in by the
    `heartcompass import` command itself (a rerun adds nothing twice).
    Returns how many messages were new."""
    import subprocess
    import sys

    export = folder / "export.txt"
    refuse_link(export)
    write_atomic(export, export_text(sample))
    root = str(Path(__file__).resolve().parents[1])  # this checkout's heartcompass, as the benchmark's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, "-m", "heartcompass", "--workspace", str(ws.root), "import", person.slug,
                          str(export), "--format", "whatsapp", "--me", sample.user, "--json"],
                         capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    if run.returncode != 0:
        said = (run.stderr.strip().splitlines() or ["no message"])[-1]
        raise BenchError(f"heartcompass import of {export} failed: {said}")
    return int(json.loads(run.stdout).get("added", 0))


def garden(ws: Workspace, person, settings, on_request: Callable[[], None]) -> dict:
    """The real gardener on the person, run again once if it failed (what
    it consumed stays; the rest is retried, as the next nightly run would)."""
    from heartcompass.memory.gardener import Gardener

    def make_model():
        return counting(llm.make_chat_model(ws, settings), on_request)

    runs = []
    for _ in range(2):
        result = Gardener(ws, make_model).run([person])[0]
        runs.append(result)
        if result.status in ("gardened", "up to date"):
            break
    from heartcompass.memory.garden_log import refused_line

    done = [r for r in runs if r.entries]
    last = runs[-1]
    return {"status": last.status, "message": last.message, "runs": len(runs),
            "entries": runs[0].entries, "events_added": sum(r.events_added for r in done),
            "memory_tokens": last.memory_after or (done[-1].memory_after if done else 0),
            # what became of the lines the model proposed; the refused ones listed for review
            "kept": sum(r.kept for r in runs), "refused": sum(len(r.refused) for r in runs),
            "asked": sum(len(r.asked) for r in runs),
            "refused_lines": [refused_line(x) for r in runs for x in r.refused]}


def lines_report(out: Path, gardens: dict[str, dict | None]) -> str:
    """Kept, refused and asked lines over every conversation, one line;
    the refused ones written to DIR/refused.txt (sample, then the line)."""
    total = {k: sum(int((g or {}).get(k, 0)) for g in gardens.values()) for k in ("kept", "refused", "asked")}
    listed = [f"{sample}\t{line}" for sample, g in gardens.items() for line in (g or {}).get("refused_lines", [])]
    (out / "refused.txt").write_text("".join(f"{line}\n" for line in listed), encoding="utf-8")
    judged = sum(total.values())
    share = f" ({100 * total['refused'] / judged:.1f}%)" if judged else ""
    return (f"lines the gardener kept {total['kept']}, refused {total['refused']}{share}, asked {total['asked']}; "
            f"the refused ones: {out / 'refused.txt'}")


def counting(model, on_request: Callable[[], None]):
    """The model, calling on_request as each request starts (for progress)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Count(BaseCallbackHandler):
        def on_chat_model_start(self, *args, **kwargs):
            on_request()

        def on_llm_start(self, *args, **kwargs):
            on_request()

    try:
        model.callbacks = [*(model.callbacks or []), Count()]
    except (AttributeError, TypeError, ValueError):
        pass  # a model that takes no callbacks: no count, the same garden
    return model


# -- asking -----------------------------------------------------------------------------------
def asked_at(sample: Sample) -> dt.datetime:
    """The questions come the morning after the last session."""
    return dt.datetime.combine(sample.last.date() + dt.timedelta(days=1), dt.time(10, 0))


def heartcompass_messages(ws: Workspace, person, sample: Sample, question: str) -> list[tuple[str, str]]:
    """What `chat` would send for the question typed as the user's message:
    the context builder's prompt chosen for the question (the conversation
    at hand, as `context --for` shows it), its recent turns, then the message."""
    ctx = context_mod.build(ws, person, asked_at(sample), about=question)
    messages = ctx.messages()
    if messages[-1] == ("user", question):  # the builder ends the history with the message: ours says more
        messages.pop()
    # the question alone chooses the prompt (answer.md's wording would pull in what it mentions)
    return [*messages, ("user", question_turn(ws, sample, question))]


def full_context_messages(ws: Workspace, sample: Sample, question: str) -> list[tuple[str, str]]:
    system = prompts.render(ws, "locomo/full_context.md", name=sample.person, user=sample.user,
                            transcript=transcript(sample))
    return [("system", system), ("user", question_turn(ws, sample, question))]


def question_turn(ws: Workspace, sample: Sample, question: str) -> str:
    return prompts.render(ws, "locomo/answer.md", name=sample.person, user=sample.user, question=question)


def judge_messages(ws: Workspace, question: str, gold: str, answer: str) -> list[tuple[str, str]]:
    return [("user", prompts.render(ws, "locomo/judge.md", question=question, gold=gold, answer=answer))]


_THINK = re.compile(r"<think>.*?</think>", re.S)


def ask(model, settings, messages: list[tuple[str, str]], sleep=time.sleep) -> dict:
    """One request: the answer's text, the prompt's tokens (the endpoint's
    count when it reports one, else HeartCompass's estimate) and seconds.
    Busy or failing endpoints are retried; anything else stops the run."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    sent = [kinds[role](content=text) for role, text in messages]
    for attempt in range(settings.max_retries + 1):
        start = time.perf_counter()
        try:
            reply = model.invoke(sent)
        except Exception as exc:  # noqa: BLE001 - the provider's errors, named by describe_error
            if attempt < settings.max_retries and llm.is_retryable(exc):
                sleep(2 ** attempt)
                continue
            raise BenchError(llm.describe_error(exc, settings)) from None
        seconds = time.perf_counter() - start
        break
    content = reply.content
    if isinstance(content, list):  # content parts
        content = "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)
    text = _THINK.sub("", str(content)).strip()
    # a persona may answer in several short messages: one answer, as the user reads them
    text = " ".join(part.strip() for part in text.split(context_mod.SEPARATOR) if part.strip())
    usage = getattr(reply, "usage_metadata", None) or {}
    reported = usage.get("input_tokens")
    estimate = sum(estimate_tokens(t) + 4 for _, t in messages)
    return {"answer": text, "prompt_tokens": reported if reported else estimate,
            "prompt_tokens_from": "endpoint" if reported else "estimate", "prompt_tokens_estimate": estimate,
            "latency_s": round(seconds, 3)}
