"""Four safety bugs that no test caught (issue 22), each found by changing the
code and seeing the suite still pass: a stale index.lock during a garden, a
chat message typed while a rename is refused, a dry run after a hand edit to
a log line, a crash while the messages kept during a stopped sync go back."""

from __future__ import annotations

import pytest

from conftest import Runner, git, log_entries, subjects
from garden_helpers import answer_with, events, proposal, say
from waits import wait_until


def _good():
    return proposal(new_events=[{"date": "2026-12-01", "text": "Booked movers for Kyoto", "weight": 0.6,
                                 "evidence": ["L1"]}],
                    new_facts=[{"text": "Booked movers for the Kyoto move", "evidence": ["L1"]}])


def _hook(ws, body: str) -> None:
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n" + body + "\n")
    hook.chmod(0o755)


# -- 1. a stale index.lock appears while the gardener runs ------------------------------------------
@pytest.mark.parametrize("hooked", [False, True], ids=["no hook", "a hook of the user's"])
def test_a_stale_index_lock_mid_garden_commits_nothing_and_the_next_run_finishes(example_cli: Runner, fake_llm,
                                                                                  monkeypatch, hooked):
    """A git killed while the model thinks leaves index.lock: the gardener's
    commit must not move HEAD while the index cannot follow it."""
    ws = example_cli.ws
    if hooked:
        _hook(ws, "exit 0")  # the commit goes through `git commit` in a temporary index
    say(ws, "alice", "me", "I booked the movers for you")
    lock = ws.root / ".git" / "index.lock"

    def a_git_dies_meanwhile(messages):
        lock.write_text("")
        return _good()

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, a_git_dies_meanwhile)
        result = example_cli("garden", ok=False)
    assert result.exit_code == 1 and "stale" in result.output and "index.lock" in result.output
    assert "Traceback" not in result.output
    assert not any(s.startswith("garden(") for s in subjects(ws))  # nothing the index does not hold
    assert git(ws, "diff", "--cached", "--name-only") == ""
    assert not (ws.state_dir / "garden" / "alice.json").exists()  # refused before a file was written
    lock.unlink()
    fake_llm.enqueue(_good())  # the entries are still new: the next run gardens them
    example_cli("garden")
    assert subjects(ws)[0].startswith("garden(alice): 1 new event")
    assert not any(s.startswith("edit(alice)") for s in subjects(ws))
    assert git(ws, "status", "--porcelain") == ""
    assert [e.text for e in events(ws)].count("Booked movers for Kyoto") == 1


# -- 3. a dry run after a hand edit to a log line ----------------------------------------------------
def test_a_dry_run_after_a_hand_edit_to_a_log_line_leaves_it_for_the_real_garden(example_cli: Runner, fake_llm,
                                                                                 monkeypatch):
    from heartcompass import stat_cache

    monkeypatch.setattr(stat_cache, "RACY_NS", 0)  # the log was edited this instant: its count is cached at once
    ws = example_cli.ws
    say(ws, "alice", "me", "I booked the movers for you")
    fake_llm.enqueue(_good())
    example_cli("garden")
    log = ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    log.write_text(log.read_text().replace("I booked the movers for you", "I booked the movers for 小林, not you"))
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    before = len(fake_llm.purposes)
    example_cli("garden", "--dry-run")
    assert fake_llm.purposes[before:] == ["garden"] and "小林" in fake_llm.request("garden", before).prompt
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    example_cli("garden")
    assert fake_llm.purposes[before:] == ["garden", "garden"], "the real garden skipped the edited line"
    assert "小林" in fake_llm.request("garden", before + 1).prompt
    assert "edit(alice): by hand" in subjects(ws)  # the edited line is the user's commit


# -- 2. a chat message typed while a rename is refused -------------------------------------------
def _typed_during_the_commit(ws, slug: str, text: str) -> str:
    """A pre-commit hook that, like a chat open in another terminal, appends
    the user's message to today's log while the commit runs, then refuses."""
    import sys

    from heartcompass.store import clock

    day = clock.today(ws)
    script = (f"import datetime; from pathlib import Path; from heartcompass.formats import dailylog; "
              f"day = datetime.date.fromisoformat({day.isoformat()!r}); "
              f"dailylog.append(dailylog.log_path(Path({str(ws.people_dir / slug)!r}), day), "
              f"dailylog.Entry('09:30:00', 'me', {text!r}, []), day)")
    _hook(ws, f"{sys.executable} -c \"{script}\" && exit 1")
    return f"people/{slug}/logs/{day.isoformat()}.md"


@pytest.mark.parametrize("args", [("person", "rename", "alice", "Alicia"), ("person", "archive", "alice")],
                         ids=["rename", "archive"])
def test_a_message_typed_while_a_move_is_refused_is_kept(example_cli: Runner, fake_llm, args):
    ws = example_cli.ws
    fake_llm.enqueue("hi")
    example_cli("chat", "alice", "-m", "a message before")
    rel = _typed_during_the_commit(ws, "alice", "typed while the rename ran 小林")
    result = example_cli(*args, ok=False)
    assert result.exit_code == 1 and "was rolled back" in result.output and "Traceback" not in result.output
    assert [e.text for e in log_entries(ws, "alice")] == ["a message before", "hi", "typed while the rename ran 小林"]
    assert sorted(p.name for p in ws.people_dir.iterdir() if p.name != ".archive") == ["alice", "me"]  # no stray
    assert git(ws, "status", "--porcelain") == f" M {rel}\n"  # only the message, pending
    (ws.root / ".git" / "hooks" / "pre-commit").unlink()
    example_cli(*args)  # the next command commits the message with its log, then moves the folder
    assert git(ws, "status", "--porcelain") == ""
    assert "typed while the rename ran 小林" in git(ws, "show", f"HEAD~1:{rel}")


# -- the fake model's retries (issue 22: the fixture's sleep did not reach retrying()) --------------
def test_a_retried_call_under_the_fake_model_does_not_really_sleep(example_cli: Runner, fake_llm):
    from fakes import FakeStatusError

    say(example_cli.ws, "alice", "me", "I booked the movers for you")
    fake_llm.enqueue(FakeStatusError(503), FakeStatusError(429), _good())
    example_cli("garden")
    assert len(fake_llm.purposes) == 3 and "Booked movers for Kyoto" in [e.text for e in events(example_cli.ws)]
    assert [s for s in fake_llm.slept if s >= 0.5] == [0.5, 1.0]  # the backoff, asked for and not slept


# -- file descriptors (issue 22: GitPython's helpers leaked one set per workspace over the suite) ------
def _cat_file_helpers() -> list[int]:
    import os
    from pathlib import Path

    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"cat-file" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="reads /proc")
def test_the_repositories_a_test_opens_are_closed_after_it(closed_repositories, example_cli: Runner):

    example_cli("person", "add", "小林", "-r", "friend", "-y")
    assert closed_repositories and _cat_file_helpers()  # recorded, and their helpers are running
    for repo in closed_repositories:  # what the fixture does after each test
        repo.close()
    wait_until(lambda: _cat_file_helpers() == [], what="git's cat-file helpers to end")
