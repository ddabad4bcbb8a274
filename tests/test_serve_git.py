"""serve while the repository cannot take a commit: a `heartcompass sync`
stopped on a conflict, or the user's own merge stopped on one. Messages are
still logged and answered, the bot says what is wrong once (not per
message), and the kept messages are committed once it is fixed, without
waiting for another message."""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import Runner, git, subjects
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure, log_entries, wait_until

from heartcompass.gateway import core

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


@pytest.fixture
def bot(example_ws, fake, monkeypatch):
    monkeypatch.setattr(core, "COMMIT_RETRY", 0.3)
    Runner(example_ws)("person", "add", "Bob", "--yes")
    configure(example_ws, fake)
    assert not git(example_ws, "status", "--porcelain")
    return example_ws


def _append(ws, line: str) -> None:
    with open(ws.people_dir / "bob" / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(line)


def _chat_through_the_problem(bot, fake, served, make_problem, fix) -> list[str]:
    fake.message("/switch alice")
    fake.message("hello")
    fake.wait_texts(2)
    served.settle()
    make_problem()
    fake.message("first 第一")
    fake.wait_for(lambda: "two" in fake.texts())
    served.settle()
    fake.message("second 第二")
    fake.wait_for(lambda: "three" in fake.texts())
    served.settle()
    texts = fake.texts()
    assert sum("Not committed yet" in t for t in texts) == 1, texts   # said once, not per message
    assert [e.text for e in log_entries(bot, "alice")][-4:] == ["first 第一", "two", "second 第二", "three"]
    fix()
    wait_until(lambda: not git(bot, "status", "--porcelain", "people/alice"))  # no new message needed
    served.stop()
    return texts


def test_a_stopped_sync_is_said_once_and_the_messages_are_committed_when_it_goes_on(bot, fake, tmp_path):
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(bot, "remote", "add", "origin", str(bare))
    cli = Runner(bot)
    cli("sync")
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(bare), str(other)], check=True)
    laptop = Runner(type(bot)(other))

    def stop_the_sync():
        (other / "people" / "bob" / "MEMORY.md").open("a", encoding="utf-8").write("- from the laptop\n")
        laptop("sync")
        _append(bot, "- from here\n")
        assert "Conflict" in cli("sync", ok=False).output

    def go_on():
        memory = bot.people_dir / "bob" / "MEMORY.md"
        memory.write_text(re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2",
                                 memory.read_text(encoding="utf-8"), flags=re.S), encoding="utf-8")
        cli("sync", "--continue")

    model = FakeChat().enqueue("one", "two", "three")
    with Served(bot, model) as served:
        texts = _chat_through_the_problem(bot, fake, served, stop_the_sync, go_on)
    notice = next(t for t in texts if "Not committed yet" in t)
    assert "sync --continue" in notice and "Traceback" not in notice
    said = [e.text for e in log_entries(bot, "alice")]
    assert said == ["hello", "one", "first 第一", "two", "second 第二", "three"]   # each once, in order
    assert not git(bot, "status", "--porcelain")
    assert not (bot.root / ".git" / "rebase-merge").exists()
    committed = git(bot, "show", f"HEAD:{bot.rel(next((bot.people_dir / 'alice' / 'logs').iterdir()))}")
    assert committed.count("second 第二") == 1 and committed.count("three") == 1


def test_a_merge_stopped_on_a_conflict_is_said_once_and_committed_after_the_abort(bot, fake):
    def stop_a_merge():
        git(bot, "checkout", "-q", "-b", "theirs", "HEAD~1")
        _append(bot, "- theirs\n")
        git(bot, "commit", "-qam", "theirs")
        git(bot, "checkout", "-q", "main")
        _append(bot, "- ours\n")
        git(bot, "commit", "-qam", "ours")
        who = ["-c", "user.name=The User", "-c", "user.email=user@example.com"]
        assert subprocess.run(["git", *who, "merge", "theirs"], cwd=bot.root, capture_output=True).returncode != 0
        assert (bot.root / ".git" / "MERGE_HEAD").exists()

    model = FakeChat().enqueue("one", "two", "three")
    with Served(bot, model) as served:
        texts = _chat_through_the_problem(bot, fake, served, stop_a_merge,
                                          lambda: git(bot, "merge", "--abort"))
    notice = next(t for t in texts if "Not committed yet" in t)
    assert "middle of a merge" in notice and "git merge --abort" in notice
    assert [e.text for e in log_entries(bot, "alice")] == ["hello", "one", "first 第一", "two", "second 第二",
                                                           "three"]
    assert subjects(bot)[0].startswith("chat(alice): 4 messages")
    assert not git(bot, "status", "--porcelain")
