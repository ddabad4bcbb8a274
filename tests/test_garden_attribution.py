"""Every commit holds only its own author's changes (a hand edit made while the
gardener works stays the user's), and the consolidation state lives in
.heartcompass/, right across undo, loss and old workspaces."""

from __future__ import annotations

import datetime as dt
import shutil

import pytest

from conftest import Runner, git, log_entries, subjects
from heartcompass import atomic
from heartcompass.formats import memory as memory_fmt
from garden_helpers import answer_with, consolidated, memory, proposal, say, user_prompt

HAND_LINE = "- Bob told me himself: he is allergic to peanuts (hand)"


@pytest.fixture
def bob(cli: Runner):
    cli("person", "add", "Bob", "--relation", "friend")
    return cli


def _add_hand_line(path):
    path.write_text(path.read_text(encoding="utf-8") + HAND_LINE + "\n", encoding="utf-8")


def _user_saves_right_after_the_gardener_writes(monkeypatch, path):
    """The user's editor saves a hand line to `path` just after each gardener write to it."""
    real_write = atomic.write_atomic

    def write_then_user_saves(target, text, expected_checksum="any"):
        real_write(target, text, expected_checksum)
        if target == path:
            _add_hand_line(path)

    monkeypatch.setattr("heartcompass.memory.gardener.write_atomic", write_then_user_saves)


def _blame_subject(ws, rel, text):
    """The subject of the commit git blame credits for the line `text`."""
    out = git(ws, "blame", "--porcelain", "HEAD", "--", rel)
    sha, subjects_by_sha = None, {}
    for line in out.splitlines():
        if line[:40].isalnum() and len(line.split()) >= 3 and len(line.split()[0]) == 40:
            sha = line.split()[0]
        elif line.startswith("summary "):
            subjects_by_sha[sha] = line[len("summary "):]
        elif line.startswith("\t") and line[1:] == text:
            return subjects_by_sha.get(sha) or git(ws, "log", "-1", "--format=%s", sha).strip()
    raise AssertionError(f"{text!r} is not in {rel} at HEAD")


def test_a_hand_edit_saved_after_the_gardener_wrote_stays_the_users(bob: Runner, fake_llm, monkeypatch):
    ws = bob.ws
    path = ws.people_dir / "bob" / "MEMORY.md"
    say(ws, "bob", "me", "Bob got the job at the bakery")
    _user_saves_right_after_the_gardener_writes(monkeypatch, path)
    fake_llm.enqueue(proposal(new_facts=[{"text": "Works at the bakery", "evidence": ["L1"]}]))
    bob("garden")
    monkeypatch.undo()
    garden_sha = git(ws, "rev-parse", "HEAD").strip()
    assert subjects(ws)[0].startswith("garden(bob):")
    committed = git(ws, "show", "HEAD:people/bob/MEMORY.md")
    assert "Works at the bakery" in committed and HAND_LINE not in committed  # only the gardener's bytes
    assert HAND_LINE in path.read_text()  # and the user's line is still there, pending
    assert git(ws, "status", "--porcelain") == " M people/bob/MEMORY.md\n"
    # the next command that writes Bob's files commits the hand edit on its own (an idle garden writes nothing)
    bob("garden")
    assert subjects(ws)[0].startswith("garden(bob):") and git(ws, "status", "--porcelain")
    bob("chat", "bob", "-m", "/note Bob starts on Monday")
    assert subjects(ws)[1] == "edit(bob): by hand" and subjects(ws)[0].startswith(("chat(bob)", "log(bob)"))
    assert _blame_subject(ws, "people/bob/MEMORY.md", HAND_LINE) == "edit(bob): by hand"
    assert _blame_subject(ws, "people/bob/MEMORY.md", "- Works at the bakery (log 2026-12-01)").startswith(
        "garden(bob):")
    # taking back the gardener's change keeps the user's line
    bob("undo", garden_sha)
    text = path.read_text()
    assert HAND_LINE in text and "Works at the bakery" not in text


def test_a_hand_edit_between_two_chunks_is_not_committed_as_the_gardeners(bob: Runner, fake_llm, monkeypatch):
    """The gardener wrote chunk 1; the user edits while the model works on chunk 2:
    chunk 1 is committed as exactly what the gardener wrote, the edit stays the user's."""
    ws = bob.ws
    monkeypatch.setattr("heartcompass.memory.gardener.CHECKPOINT_SECONDS", 0)  # each chunk written when done
    path = ws.people_dir / "bob" / "MEMORY.md"
    bob("config", "set", "memory.context_budget_tokens", "400")
    for i in range(12):
        say(ws, "bob", "me", f"message {i} about the bakery " + "words " * 12, time=f"10:{i:02d}:00")
    calls = []

    def answer(messages):
        calls.append(messages)
        if len(calls) == 1:
            return proposal(new_facts=[{"text": "Talks a lot about the bakery", "evidence": ["L1"]}])
        _add_hand_line(path)  # saved while the model thinks about chunk 2
        return proposal(nothing_worth_keeping=True)

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, answer)
        result = bob("garden", ok=False)
    assert len(calls) == 2 and result.exit_code == 1 and "edited while the gardener ran" in result.output
    assert subjects(ws)[0].startswith("garden(bob):")
    committed = git(ws, "show", "HEAD:people/bob/MEMORY.md")
    assert "Talks a lot about the bakery" in committed and HAND_LINE not in committed
    first_chunk = consolidated(ws, "bob")["2026-12-01"]
    assert 0 < first_chunk < 12  # chunk 1 consumed, the rest left for the next run
    fake_llm.enqueue(*[proposal(nothing_worth_keeping=True) for _ in range(5)])
    bob("garden")
    assert "edit(bob): by hand" in subjects(ws)
    assert _blame_subject(ws, "people/bob/MEMORY.md", HAND_LINE) == "edit(bob): by hand"
    assert _blame_subject(ws, "people/bob/MEMORY.md", "- Talks a lot about the bakery (log 2026-12-01)"
                          ).startswith("garden(bob):")
    assert consolidated(ws, "bob") == {"2026-12-01": 12}
    assert "message 0 about" not in user_prompt(fake_llm, nth=0)  # chunk 1 was not read twice


def test_undo_of_a_gardened_chat_then_new_chats_are_gardened_exactly(example_cli: Runner, fake_llm):
    alice, ws = example_cli, example_cli.ws
    fake_llm.enqueue("lovely")
    alice("chat", "alice", "-m", "first: I start at the bakery on Monday")
    fake_llm.enqueue("oh no")
    alice("chat", "alice", "-m", "second: the bakery job fell through")
    second = git(ws, "rev-parse", "HEAD").strip()
    today = dt.date.today().isoformat()
    fake_llm.enqueue(proposal(new_facts=[{"text": "Starts at the bakery on Monday", "evidence": ["L1"]}]))
    alice("garden")
    alice("undo", second)  # the second chat is taken back: its two entries are gone
    assert len(log_entries(ws, "alice")) == 2
    fake_llm.enqueue("a cat!")
    alice("chat", "alice", "-m", "third: I adopted a cat named Miso")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Adopted a cat named Miso", "evidence": ["L1"]}]))
    alice("garden")
    prompt = user_prompt(fake_llm, nth=1)
    assert "third: I adopted a cat" in prompt and "a cat!" in prompt
    assert "first:" not in prompt and "second:" not in prompt
    assert consolidated(ws) == {today: 4}
    assert "- Adopted a cat named Miso (log " + today + ")" in memory(ws).items(memory_fmt.FACTS)
    # and nothing is left over
    calls = len(fake_llm.purposes)
    alice("garden")
    assert len(fake_llm.purposes) == calls


def test_lost_state_is_rebuilt_from_git_and_nothing_is_consolidated_twice(example_cli: Runner, fake_llm):
    alice, ws = example_cli, example_cli.ws
    say(ws, "alice", "me", "She moved to Kyoto", day=dt.date(2026, 11, 30))
    say(ws, "alice", "note", "Her new address is in Sakyo-ku", time="20:01:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Lives in Sakyo-ku", "evidence": ["L2"]}]))
    alice("garden")
    before = consolidated(ws)
    assert before == {"2026-11-30": 1, "2026-12-01": 1}
    shutil.rmtree(ws.state_dir)
    calls = len(fake_llm.purposes)
    alice("garden")
    assert len(fake_llm.purposes) == calls  # nothing re-read
    assert consolidated(ws) == before
    # a new entry after the loss is picked up alone
    say(ws, "alice", "me", "She got a bike", time="21:00:00")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    shutil.rmtree(ws.state_dir)
    alice("garden")
    prompt = user_prompt(fake_llm, nth=1)
    assert "She got a bike" in prompt and "Sakyo-ku" not in prompt.split("## New log entries")[1]
    assert consolidated(ws) == {"2026-11-30": 1, "2026-12-01": 2}


def _old_memory(ws, days: dict[str, int]) -> None:
    """MEMORY.md as older versions wrote it: the map in the frontmatter."""
    path = ws.people_dir / "alice" / "MEMORY.md"
    text = path.read_text(encoding="utf-8")
    flow = ", ".join(f"'{d}': {n}" for d, n in days.items())
    path.write_text(text.replace("---\n", "---\nconsolidated: {" + flow + "}\n", 1), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "garden(alice): memory updated from old logs")


def test_an_old_workspace_map_is_moved_to_the_state_and_dropped(example_cli: Runner, fake_llm):
    alice, ws = example_cli, example_cli.ws
    say(ws, "alice", "me", "old news", day=dt.date(2026, 11, 30))
    say(ws, "alice", "me", "more old news", day=dt.date(2026, 11, 30), time="20:00:01")
    _old_memory(ws, {"2026-11-30": 2})
    assert memory(ws).legacy_consolidated == {"2026-11-30": 2}
    say(ws, "alice", "me", "She got the Kyoto apartment")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Got the Kyoto apartment", "evidence": ["L1"]}]))
    alice("garden")
    prompt = user_prompt(fake_llm)
    assert "Kyoto apartment" in prompt and "old news" not in prompt
    text = (ws.people_dir / "alice" / "MEMORY.md").read_text()
    assert "consolidated" not in text
    assert consolidated(ws) == {"2026-11-30": 2, "2026-12-01": 1}
    assert git(ws, "status", "--porcelain") == ""


def test_the_memory_budget_warning_no_longer_counts_bookkeeping(example_cli: Runner, fake_llm):
    from heartcompass.memory.context import build
    from heartcompass.store.people import resolve

    alice, ws = example_cli, example_cli.ws
    start = dt.date(2016, 1, 1)
    days = {(start + dt.timedelta(days=i)).isoformat(): 30 for i in range(3000)}  # ten years of imports
    _old_memory(ws, days)
    now = dt.datetime(2026, 12, 1, 20, 0)
    assert len((ws.people_dir / "alice" / "MEMORY.md").read_text()) > 20000  # the old map, in the file
    assert not any("MEMORY.md" in w for w in build(ws, resolve(ws, "alice"), now).warnings)  # a big file is no warning
    say(ws, "alice", "note", "She starts the new job in January")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Starts the new job in January", "evidence": ["L1"]}]))
    alice("garden")
    assert not any("MEMORY.md" in w for w in build(ws, resolve(ws, "alice"), now).warnings)
    assert len((ws.people_dir / "alice" / "MEMORY.md").read_text()) < 2000
    assert consolidated(ws)["2016-01-01"] == 30 and len(consolidated(ws)) == 3001


def test_hand_lines_are_found_after_the_cache_was_made(example_cli: Runner, fake_llm):
    """The hand-line index is cached between runs; a hand commit since must still count."""
    alice, ws = example_cli, example_cli.ws
    say(ws, "alice", "me", "first chat")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")
    assert (ws.state_dir / "hand-lines" / "alice.json").exists()
    path = ws.people_dir / "alice" / "MEMORY.md"
    path.write_text(path.read_text().replace("## Facts\n\n", "## Facts\n\n- Works as a UX designer at Mercari\n"))
    git(ws, "commit", "-qam", "my note about work")  # the user's own commit, after the cache
    say(ws, "alice", "me", "so you quit Mercari?", time="21:00:00")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")
    assert "F1 - Works as a UX designer at Mercari   [hand-written]" in user_prompt(fake_llm, nth=1)
    # and a gardener commit keeps them known without asking git again
    say(ws, "alice", "me", "and now?", time="22:00:00")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")
    assert "F1 - Works as a UX designer at Mercari   [hand-written]" in user_prompt(fake_llm, nth=2)


def test_a_quiet_night_does_not_parse_events_or_profiles(example_cli: Runner, fake_llm, monkeypatch):
    from heartcompass import stat_cache

    # A night later, not this instant: a log written within the last two seconds is read
    # again (stat_cache's racy window), one settled since is counted from the cache.
    monkeypatch.setattr(stat_cache, "RACY_NS", 0)
    alice, ws = example_cli, example_cli.ws
    say(ws, "alice", "me", "hello")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")

    def no(*args, **kw):
        raise AssertionError("a quiet night parsed a person's file")

    monkeypatch.setattr("heartcompass.formats.events.parse", no)
    monkeypatch.setattr("heartcompass.formats.memory.parse", no)
    monkeypatch.setattr("heartcompass.formats.dailylog.parse", no)
    result = alice("garden")
    assert "up to date" in result.output


def test_the_prompt_names_only_the_people_mentioned_and_linked(example_cli: Runner, fake_llm):
    alice, ws = example_cli, example_cli.ws
    for name in ["Bob Lee", "小明", "Carol", "Dave", "Alberto"]:
        alice("person", "add", name, "--relation", "friend")
    say(ws, "alice", "me", "Bob Lee and 小明 came to dinner; Al was late")
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")
    known = user_prompt(fake_llm).split("## Known people (slugs): ")[1].splitlines()[0]
    assert set(known.split(", ")) == {"bob-lee", "小明", "me"}  # "me": Alice's link; no "alberto" for "Al"


def test_the_gardeners_commit_runs_the_users_hook_and_holds_only_its_bytes(bob: Runner, fake_llm, monkeypatch):
    ws = bob.ws
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/hook-ran\"\n")
    hook.chmod(0o755)
    path = ws.people_dir / "bob" / "MEMORY.md"
    say(ws, "bob", "me", "Bob got the job at the bakery")
    _user_saves_right_after_the_gardener_writes(monkeypatch, path)
    fake_llm.enqueue(proposal(new_facts=[{"text": "Works at the bakery", "evidence": ["L1"]}]))
    bob("garden")
    assert (ws.root / ".git" / "hook-ran").exists()
    committed = git(ws, "show", "HEAD:people/bob/MEMORY.md")
    assert "Works at the bakery" in committed and HAND_LINE not in committed
    assert git(ws, "status", "--porcelain") == " M people/bob/MEMORY.md\n"


def test_a_chinese_named_person_is_gardened_and_the_repository_stays_sound(cli: Runner, fake_llm):
    ws = cli.ws
    cli("person", "add", "小明", "--relation", "friend")
    say(ws, "小明", "me", "小明下个月搬去上海")
    fake_llm.enqueue(proposal(new_facts=[{"text": "下个月搬去上海", "evidence": ["L1"]}]))
    cli("garden")
    assert subjects(ws)[0].startswith("garden(小明):")
    assert "下个月搬去上海" in git(ws, "show", "HEAD:people/小明/MEMORY.md")
    assert git(ws, "status", "--porcelain") == ""
    git(ws, "fsck", "--strict")


def test_state_lost_after_a_rename_is_rebuilt_across_it(example_cli: Runner, fake_llm):
    alice, ws = example_cli, example_cli.ws
    say(ws, "alice", "me", "She moved to Kyoto")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Moved to Kyoto", "evidence": ["L1"]}]))
    alice("garden")
    alice("person", "rename", "alice", "Alicia")
    shutil.rmtree(ws.state_dir)
    calls = len(fake_llm.purposes)
    alice("garden")
    assert len(fake_llm.purposes) == calls  # nothing consumed twice
    assert consolidated(ws, "alicia") == {"2026-12-01": 1}


def test_a_hand_edit_to_the_next_person_during_the_run_is_committed_before_their_gardening(
        bob: Runner, fake_llm, monkeypatch):
    ws = bob.ws
    bob("person", "add", "Carol", "--relation", "friend")
    say(ws, "bob", "me", "Bob got the job at the bakery")
    say(ws, "carol", "me", "Carol is learning the cello")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "chat(bob): 2 messages")  # nothing pending when the run starts
    carol_memory = ws.people_dir / "carol" / "MEMORY.md"
    answers = [proposal(new_facts=[{"text": "Works at the bakery", "evidence": ["L1"]}]),
               proposal(new_facts=[{"text": "Is learning the cello", "evidence": ["L1"]}])]

    def answer(messages):
        if len(answers) == 2:
            _add_hand_line(carol_memory)  # saved while the gardener works on Bob
        return answers.pop(0)

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, answer)
        bob("garden")
    assert subjects(ws)[:3] == ["garden(carol): memory updated from 2026-12-01 log", "edit(carol): by hand",
                                "garden(bob): memory updated from 2026-12-01 log"]
    assert "+" + HAND_LINE not in git(ws, "show", "HEAD", "--", "people/carol/MEMORY.md")  # not the gardener's
    assert _blame_subject(ws, "people/carol/MEMORY.md", HAND_LINE) == "edit(carol): by hand"
    assert git(ws, "status", "--porcelain") == ""


def test_a_log_line_edited_by_hand_is_the_users_commit_and_only_it_is_gardened_again(example_cli: Runner,
                                                                                   fake_llm):
    alice, ws = example_cli, example_cli.ws
    for i, (speaker, text) in enumerate([("me", "She moved to Kyoto"), ("note", "Her cat is called Mochi"),
                                         ("me", "She starts at the bakery on Monday")]):
        say(ws, "alice", speaker, text, time=f"20:0{i}:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Lives in Kyoto", "evidence": ["L1"]}]))
    alice("garden")
    assert consolidated(ws) == {"2026-12-01": 3}
    log = ws.people_dir / "alice" / "logs" / "2026-12-01.md"
    log.write_text(log.read_text().replace("called Mochi", "called Miso"))  # sed -i: the user fixes a line
    say(ws, "alice", "me", "She got a bike", time="21:00:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Her cat is called Miso", "evidence": ["L1"]}]))
    alice("garden")
    assert subjects(ws)[1] == "edit(alice): by hand" and subjects(ws)[0].startswith("garden(alice)")
    assert "called Miso" in git(ws, "show", "HEAD~1", "--", "people/alice/logs/2026-12-01.md")
    assert sum(s.startswith("log(alice)") for s in subjects(ws)) == 1  # the new log, before the first run
    prompt = user_prompt(fake_llm, nth=1)  # the second run's
    assert "called Miso" in prompt and "She got a bike" in prompt  # the changed line is read again
    assert "Kyoto" not in prompt.split("## New log entries")[-1] and "bakery" not in prompt  # the others not twice
    assert consolidated(ws) == {"2026-12-01": 4}
    calls = len(fake_llm.purposes)
    alice("garden")
    assert len(fake_llm.purposes) == calls  # and nothing is left over


def test_a_log_appended_to_is_still_committed_as_a_chat_log(example_cli: Runner):
    ws = example_cli.ws
    say(ws, "alice", "note", "She moved to Kyoto")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "log(alice): chat log 2026-12-01")
    say(ws, "alice", "me", "She got a bike", time="21:00:00")
    example_cli("person", "add", "Bob", "-y")  # commits what is pending first
    assert subjects(ws)[1] == "log(alice): chat log 2026-12-01"
