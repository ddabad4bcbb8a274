"""`serve` against a stranger and against bad luck (issue 31): a pairing code
that cannot be guessed, groups that are told nothing, a serve killed
mid-burst finished by the next one, SIGTERM committing while the Bot API
is slow, and a proxy's HTML page instead of getUpdates' JSON."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from conftest import git, subjects
from fake_telegram import FakeTelegram
from fakes import FakeChat
from serve_helpers import Served, configure, log_entries, wait_until

from heartcompass.gateway.pairing import IN_ALL, PER_SENDER, Pairing

pytest.importorskip("telegram")


@pytest.fixture
def fake():
    server = FakeTelegram()
    yield server
    server.close()


@pytest.fixture
def bot(example_ws, fake):
    configure(example_ws, fake)
    return example_ws


def _owners(ws) -> list[str]:
    ws.reload_config()
    return ws.config.get("telegram.allowed_users")


def test_a_sender_who_guesses_wrong_cannot_pair_even_with_the_right_code_and_the_terminal_is_told(example_ws, fake):
    configure(example_ws, fake, owners="")
    with Served(example_ws, FakeChat(), pair="pair-abc123") as served:
        for n in range(PER_SENDER):
            fake.message(f"pair-00000{n}", user=7)
        fake.message("pair-abc123", user=7)
        fake.message("hello", user=8)            # not a guess: a stranger's word
        wait_until(lambda: fake.polls > 10 and sum("sender 7" in r for r in served.reports) >= PER_SENDER)
        fake.message("pair-abc123", user=9)      # the owner, who has not guessed
        assert fake.wait_texts(1, chat=9)[0].startswith("Paired")
        served.stop()
    assert _owners(example_ws) == ["9"]
    assert all(not t.startswith("Paired") for t in fake.texts(chat=7))
    guesses = [r for r in served.reports if "wrong pairing code" in r]
    assert len(guesses) == PER_SENDER and "someone may be guessing" in guesses[0]
    assert "no longer looked at" in guesses[-1]


def test_wrong_codes_from_many_accounts_withdraw_the_code(example_ws, fake):
    configure(example_ws, fake, owners="")
    with Served(example_ws, FakeChat(), pair="pair-abc123") as served:
        for user in range(1000, 1000 + IN_ALL):
            fake.message(f"pair-{user:06x}", user=user)
        wait_until(lambda: any("withdrawn" in r for r in served.reports))
        fake.message("pair-abc123", user=9)
        fake.wait_texts(1, chat=9)
        served.stop()
    assert _owners(example_ws) == []
    assert "serve --pair" in fake.texts(chat=9)[0]
    assert any("someone is guessing" in r for r in served.reports)


def test_the_code_expires_and_a_guess_after_that_is_told_not_compared():
    now = [0.0]
    pairing = Pairing("pair-abc123", lambda: now[0], lifetime=600)
    assert pairing.attempt("5", "pair-abc123") == (True, None)
    assert pairing.attempt("6", "pair-abc123") == (False, None)  # once only
    late = Pairing("pair-abc123", lambda: now[0], lifetime=600)
    now[0] = 601
    paired, told = late.attempt("5", "PAIR-ABC123")
    assert not paired and "expired" in told and late.code is None


def test_a_group_gets_a_short_note_and_nothing_of_the_workspace_even_from_the_owner(bot, fake):
    model = FakeChat().enqueue("hi from alice")
    before = subjects(bot)
    with Served(bot, model) as served:
        for text in ("/list", "/switch alice", "/who", "hello everyone", "/note secret 秘密"):
            fake.message(text, user=42, chat=-1001234)
        fake.press("yes:1", user=42, chat=-1001234)
        fake.message("/list")                   # the owner's private chat still works
        fake.wait_texts(1)
        fake.wait_for(lambda: fake.polls > 8)
        served.stop()
    group = fake.texts(chat=-1001234)
    assert len(group) == 1 and "private chat" in group[0]
    assert not any("Alice" in c.get("text", "") or "alice" in c.get("text", "") for c in fake.sent
                   if str(c.get("chat_id")) == "-1001234")
    assert "Alice" in fake.texts()[0]
    assert model.purposes == []
    assert not any("secret" in e.text or "hello everyone" in e.text for e in log_entries(bot, "alice"))
    assert subjects(bot) == before
    assert any("group chat -1001234" in r for r in served.reports)


def _serve_process(ws, quiet: str) -> subprocess.Popen:
    from heartcompass.store.config_edit import set_config

    set_config(ws, "serve.quiet_seconds", quiet)
    set_config(ws, "llm.base_url", "http://127.0.0.1:9/v1")  # never asked: the burst is never quiet long enough
    env = {**os.environ, "HEARTCOMPASS_LLM_API_KEY": "sk-test"}
    return subprocess.Popen([sys.executable, "-m", "heartcompass", "-w", str(ws.root), "serve"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("model_up", [True, False])
def test_a_serve_killed_mid_burst_is_finished_by_the_next_one(bot, fake, model_up):
    proc = _serve_process(bot, "600")  # never quiet long enough: the burst waits
    try:
        fake.wait_for(lambda: fake.polls > 0)
        fake.message("/switch alice")
        fake.wait_texts(1)
        for n in range(30):
            fake.message(f"message {n} 第{n}条")
        wait_until(lambda: sum(e.speaker == "me" for e in log_entries(bot, "alice")) == 30)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not subjects(bot)[0].startswith(("chat(alice)", "log(alice)"))  # killed: nothing committed
    answer = "got all thirty" if model_up else ConnectionRefusedError(111, "Connection refused")
    model = FakeChat().enqueue(answer)
    with Served(bot, model, quiet=0.3) as served:
        fake.wait_texts(2)
        served.settle()
        served.stop()
    said = fake.texts()[1]
    if model_up:
        assert said == "got all thirty" and "message 29 第29条" in model.request("chat").prompt
    else:
        assert "model cannot be reached" in said
    assert not git(bot, "status", "--porcelain")
    assert any(s.startswith(("log(alice)", "chat(alice)")) for s in subjects(bot)[:2])
    assert '"unanswered": {}' in (bot.state_dir / "serve" / "telegram.json").read_text(encoding="utf-8")
    with Served(bot, FakeChat()) as served:    # answered once: a third serve says nothing more
        fake.wait_for(lambda: fake.polls > 8)
        served.stop()
    assert len(fake.texts()) == 2
    # each message logged once, the one the kill caught between its log line and its handled mark too
    assert [e.text for e in log_entries(bot, "alice") if e.speaker == "me"] == [f"message {n} 第{n}条" for n in range(30)]


def test_sigterm_commits_what_was_logged_while_the_bot_api_hangs(bot, fake):
    model = FakeChat().enqueue("a reply nobody waits for")
    served = Served(bot, model, quiet=0.3)
    try:
        fake.message("/switch alice")
        fake.wait_texts(1)
        fake.sends_open.clear()                 # from now on the Bot API does not answer
        fake.message("one last thing 最后一句")
        fake.wait_for(lambda: fake.held)       # the worker waits on the API to show it is typing
        served.stop_event.set()                 # what SIGTERM does
        wait_until(lambda: subjects(bot)[0].startswith("chat(alice): 1 message"))
        assert fake.calls("sendMessage")[-1]["text"] != "a reply nobody waits for"
    finally:
        fake.sends_open.set()
        served.stop()
    assert not git(bot, "status", "--porcelain")


def test_getupdates_answering_html_is_named_and_retried_without_a_traceback(bot, fake):
    fake.html_polls = 2                         # a proxy's error page, twice
    proc = _serve_process(bot, "0.3")           # a real process: the library's logging reaches its stderr
    try:
        fake.wait_for(lambda: fake.polls > 2)
        fake.message("/switch alice")
        assert "Alice" in fake.wait_texts(1)[0]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert err.count("not the Bot API's JSON") == 2 and "<html>" not in err
    assert "Traceback" not in err and "JSONDecodeError" not in err


def test_a_killed_serves_burst_to_someone_gone_since_is_said_to_be_unanswerable(bot, fake):
    state = bot.state_dir / "serve" / "telegram.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text('{"offset": 0, "seen": [], "chats": {"42": "ghost"}, "unanswered": {"42": "ghost"}}',
                     encoding="utf-8")
    with Served(bot, FakeChat()) as served:
        said = fake.wait_texts(1)[0]
        served.stop()
    assert "cannot be answered" in said and "ghost" in said
    assert '"unanswered": {}' in state.read_text(encoding="utf-8")
