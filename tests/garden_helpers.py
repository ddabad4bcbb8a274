"""What the gardener's tests share: writing log entries, the proposals a
scripted model answers, reading back what the gardener wrote, and making
the model's answer a function of its messages (to act mid-run)."""

from __future__ import annotations

import datetime as dt
import json
import re

from conftest import git
from heartcompass.formats import dailylog, events as events_fmt, memory as memory_fmt

DAY = dt.date(2026, 12, 1)


def say(ws, slug, speaker, text, day=DAY, time="20:00:00", tags=None):
    path = dailylog.log_path(ws.people_dir / slug, day)
    dailylog.append(path, dailylog.Entry(time, speaker, text, tags or []), day)


def backlog(runner, days: int, speaker: str, what: str, slug="alice"):
    """Six long entries a day for `days` days of November, with a context
    budget small enough that they take several chunks."""
    runner("config", "set", "memory.context_budget_tokens", "400")
    for d in range(1, days + 1):
        for i in range(6):
            say(runner.ws, slug, speaker, f"day {d} {what} {i} " + "words " * 12, day=dt.date(2026, 11, d),
                time=f"10:0{i}:00")


def smaller_memory_budget(ws, tokens: int, slug="alice"):
    """MEMORY.md's budget lowered by hand (and committed), as the user would."""
    path = ws.people_dir / slug / "MEMORY.md"
    path.write_text(re.sub(r"budget_tokens: \d+", f"budget_tokens: {tokens}", path.read_text(), count=1))
    git(ws, "commit", "-qam", "smaller memory budget")


def proposal(**kw):
    return {"summary": kw.pop("summary", "consolidated the chat"), **kw}


def memory(ws, slug="alice"):
    return memory_fmt.load(ws.people_dir / slug / "MEMORY.md")


def events(ws, slug="alice"):
    return events_fmt.load(ws.people_dir / slug / "EVENTS.md").events


def consolidated(ws, slug="alice"):
    """How many entries of each log the gardener has consumed (its local
    state: the person's own file, else the one a rebuild from git saved for everyone)."""
    path = ws.state_dir / "consolidated" / f"{slug}.json"
    if path.exists():
        return {day: n for day, (n, _) in json.loads(path.read_text())["days"].items()}
    shared = ws.state_dir / "consolidated" / ".from-git.json"
    days = json.loads(shared.read_text())["people"].get(slug, {}) if shared.exists() else {}
    return {day: n for day, (n, _) in days.items()}


def user_prompt(fake, purpose="garden", nth=None):
    """The entries and files shown in the request made for this purpose
    (tests/purposes.py): the one such request, or the nth of them."""
    return fake.request(purpose, nth).prompt


def answer_with(monkeypatch, fake_llm, answer):
    """The model's structured output is `answer(messages)`: lets a test act mid-run."""
    from langchain_core.runnables import RunnableLambda

    monkeypatch.setattr(type(fake_llm), "with_structured_output",
                        lambda self, schema, **kw: RunnableLambda(answer))


def questions(ws) -> list[dict]:
    """The questions the gardener left waiting for the user (memory/questions.py's store)."""
    path = ws.state_dir / "questions.json"
    return list(json.loads(path.read_text())["waiting"].values()) if path.exists() else []
