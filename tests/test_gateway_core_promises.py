"""The gateway worker's promises (gateway/core.py): nothing stops serve (an
app that cannot send, a bug, a state that cannot be saved, git refusing a
commit), a refused commit is said once and retried until it works, the
morning digest goes out once a day, and a quiet moment fsyncs the state.
A recording channel and a clock the test moves; no app, no wall-clock timing."""

from __future__ import annotations

import datetime as dt

import pytest
from fakes import FakeChat, FakeStatusError
from serve_helpers import wait_until
from waits import DEADLINE
from gateway_core_helpers import Channel, Served, Worker

from heartcompass.errors import GitError, HeartCompassError
from heartcompass.gateway import core, replies


@pytest.fixture
def chat(example_ws) -> Served:
    """The example workspace's gateway, owner 42, no worker yet."""
    return Served(example_ws)


class Unreachable:
    name = "telegram"

    def send(self, chat, text):
        raise ConnectionError("the app is down")

    def ask(self, chat, text, choices):
        raise ConnectionError("the app is down")

    def typing(self, chat):
        raise ConnectionError("the app is down")


def test_an_app_that_cannot_send_is_reported_and_the_message_still_logged(example_ws):
    served = Served(example_ws, FakeChat().enqueue("hi back"))
    served.gw.channels["telegram"] = Unreachable()
    served.say("/switch alice")
    served.say("hi")
    served.finish()
    assert served.reports[0] == "telegram: could not send a message: ConnectionError: the app is down"
    assert served.state.is_seen("42:2") and served.state.unanswered_chats() == []


def test_opening_a_persons_chat_on_the_phone_commits_their_hand_edits_first_in_a_commit_of_their_own(example_ws):
    """As a terminal chat's start: what the user edited by hand is never mixed into the phone chat's commit."""
    from conftest import git, subjects

    profile = example_ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nLoves 抹茶.\n", encoding="utf-8")
    served = Served(example_ws)
    before = len(subjects(example_ws))
    served.say("/switch alice")
    assert served.channel.said == [("42", "You are talking to Alice Chen (alice).")]
    assert len(subjects(example_ws)) == before + 1 and git(example_ws, "status", "--porcelain") == ""
    assert git(example_ws, "show", "--name-only", "--format=", "HEAD").split() == ["people/alice/PROFILE.md"]


def test_hand_edits_git_cannot_commit_when_a_chat_opens_are_reported_and_the_chat_opens_all_the_same(example_ws):
    """When git cannot take a person's hand edits as their chat opens on the phone (a rebase in progress), the
    operator reads why in serve's output, and the owner talks to the person all the same."""
    from conftest import git

    profile = example_ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nLoves 抹茶.\n", encoding="utf-8")
    served = Served(example_ws)
    (example_ws.root / ".git" / "rebase-merge").mkdir()
    served.say("/switch alice")
    assert served.channel.sent == ["You are talking to Alice Chen (alice)."]
    assert served.reports == ["telegram: git is in the middle of a rebase: finish it with 'git rebase --continue' "
                              "or go back with 'git rebase --abort'."]
    assert git(example_ws, "status", "--porcelain") == " M people/alice/PROFILE.md\n"  # kept for the next commit


def test_the_phones_chat_holds_the_workspace_lock_as_serve(example_ws, monkeypatch):
    """A terminal command that finds the workspace busy names who holds it: "Another HeartCompass serve is
    running", never a chat or a nameless command, while the phone's chat commits the person's hand edits as it
    opens and its messages once answered."""
    from conftest import git

    from heartcompass.store import lock

    holders = []
    real = lock.FileLock.acquire

    def acquire(self):
        real(self)
        holders.append((self.path.name, (lock.holder(self.path) or {}).get("purpose")))

    profile = example_ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nLoves 抹茶.\n", encoding="utf-8")
    served = Served(example_ws, FakeChat().enqueue("hello"))
    monkeypatch.setattr(lock.FileLock, "acquire", acquire)
    served.say("/switch alice")
    assert holders == [("lock", "serve")]                  # the hand edits' commit
    served.say("hi")
    served.finish()
    assert served.channel.sent[-1] == "hello" and git(example_ws, "status", "--porcelain") == ""
    assert set(holders) == {("lock", "serve")} and len(holders) >= 2


def test_a_model_that_cannot_be_reached_is_asked_again_as_the_settings_say_after_serves_pauses(example_ws):
    """serve's model settings rule the phone's chat as they do the terminal's: llm.max_retries more tries, each
    after a pause on serve's own clock (the one tests and benchmarks replace), and the line in the chat names the
    endpoint that failed."""
    from heartcompass.llm.settings import LLMSettings

    model = FakeChat().enqueue(FakeStatusError(503), FakeStatusError(503))
    served = Served(example_ws, model)
    slept: list[float] = []
    served.gw.settings = LLMSettings("openai-compatible", "qwen-local", "http://127.0.0.1:9/v1", 0.2, 30.0, 1, False)
    served.gw.sleep = slept.append
    served.say("/switch alice")
    served.say("hi")
    served.finish()
    assert model.purposes == ["chat", "chat"] and slept == [0.5]
    assert served.channel.sent[-1].startswith("(No reply: the model cannot be reached: The model endpoint had a "
                                              "server error (503) (openai-compatible · qwen-local · "
                                              "http://127.0.0.1:9/v1); try again later.")


def test_a_bug_while_handling_a_message_says_so_in_the_chat_and_the_message_counts_as_handled(chat, monkeypatch):
    def broken(*args):
        raise ValueError("a bug")

    monkeypatch.setattr(core.commands, "run", broken)
    chat.say("/who")
    assert chat.channel.sent == [replies.BROKEN]
    assert chat.reports == ["telegram: could not handle a message: ValueError: a bug"]
    assert chat.state.is_seen("42:1")


def test_a_refusal_while_handling_is_said_with_its_hint(chat, monkeypatch):
    def refused(*args):
        raise HeartCompassError("Not now.", "Try later.")

    monkeypatch.setattr(core.commands, "run", refused)
    chat.say("/who")
    assert chat.channel.sent == ["Not now. Try later."] and chat.reports == []


@pytest.mark.parametrize("problem", [OSError(28, "No space left on device"), HeartCompassError("The disk is full.")])
def test_a_state_that_cannot_be_saved_is_reported_and_kept_for_the_next_save(chat, monkeypatch, problem):
    def full(durable=False):
        raise problem

    monkeypatch.setattr(chat.state, "save", full)
    chat.say("/help")
    assert chat.channel.sent == [replies.HELP] and chat.state.is_seen("42:1")
    expected = problem.message if isinstance(problem, HeartCompassError) else str(problem)
    assert chat.reports == [f"telegram: state not saved: {expected}"]


def test_a_job_that_fails_is_said_in_the_chat_and_the_worker_goes_on(example_ws, monkeypatch):
    served = Served(example_ws, FakeChat().enqueue("second answer"))
    served.say("/switch alice")
    served.say("/review")
    served.say("hello")
    monkeypatch.setattr(core.commands, "review", lambda gw, conv: 1 / 0)
    served.finish()
    assert served.channel.sent[1:] == [replies.BROKEN, "second answer"]
    assert served.reports[0] == "telegram: review failed: ZeroDivisionError: division by zero"


def test_a_reply_that_raises_a_refusal_is_said_in_the_chat(example_ws):
    served = Served(example_ws, FakeChat().enqueue("unused"))
    served.say("/switch alice")
    conv = served.gw.conversation("telegram", "42")

    def events():
        yield type("Event", (), {"kind": "message", "text": "one"})()
        raise HeartCompassError("PROFILE.md does not read.", "Fix it.")

    served.gw.reply(conv, events())
    assert served.channel.said[1:] == [("42", "one"), ("42", "PROFILE.md does not read. Fix it.")]
    served.gw.reply(conv, None)  # no session to answer: nothing said
    assert len(served.channel.sent) == 3


def test_the_pauses_between_messages_come_from_the_delays_and_not_before_the_first(example_ws):
    slept = []
    served = Served(example_ws)
    served.gw.sleep, served.gw.delays = slept.append, (0.5, 0.5)
    conv = served.gw.conversation("telegram", "42")
    event = type("Event", (), {"kind": "message", "text": "x"})
    other = type("Event", (), {"kind": "status", "text": "thinking"})
    served.gw.reply(conv, [other(), event(), other(), event(), event()])
    assert slept == [0.5, 0.5] and served.channel.sent == ["x", "x", "x"] and len(served.channel.typed) == 3


def test_the_reply_delay_and_the_quiet_wait_come_from_the_settings(example_ws):
    from heartcompass.gateway.core import Gateway
    from heartcompass.gateway.state import state_for
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "serve.quiet_seconds", "7.5")
    set_config(example_ws, "chat.reply_delay", "1,3")
    gw = Gateway(example_ws, {}, {"telegram": state_for(example_ws.state_dir, "telegram")}, make_model=FakeChat)
    assert gw.quiet == 7.5 and gw.delays == (1.0, 3.0) and gw.commit_retry == core.COMMIT_RETRY


# -- commits git refuses -------------------------------------------------------------------------------------------

def test_a_refused_commit_is_said_once_retried_and_said_done(example_ws, monkeypatch):
    """A stopped sync refuses the commit: the chat hears it once; the worker
    tries again every commit_retry seconds (the first time too) and reports when it worked."""
    real = core.commit_session
    refusing = [True]

    def commit(ws, session, purpose):
        if refusing[0]:
            raise GitError("A sync is stopped midway.", "Run heartcompass sync.")
        return real(ws, session, purpose)

    monkeypatch.setattr(core, "commit_session", commit)
    served = Served(example_ws, FakeChat().enqueue("one", "two"))
    served.gw.commit_retry = 5.0  # not the default: the first retry too comes after commit_retry
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: "telegram: not committed: A sync is stopped midway." in served.reports)
        served.say("again")
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: served.channel.sent.count("two") == 1 and served.gw.idle())
        assert [t for t in served.channel.sent if t.startswith("(Not committed")] == [
            replies.not_committed(GitError("A sync is stopped midway."))]
        refusing[0] = False
        served.now += 5.0
        served.gw.wake()
        wait_until(lambda: "telegram: the kept messages are committed now" in served.reports)
    from conftest import git

    assert git(example_ws, "status", "--porcelain") == ""


def _refused_commits(monkeypatch) -> tuple[list[bool], list[bool]]:
    """git refuses the chat's commits while refusing[0] is true (a stopped sync); tries records each try."""
    real = core.commit_session
    refusing: list[bool] = [True]
    tries: list[bool] = []

    def commit(ws, session, purpose):
        tries.append(refusing[0])
        if refusing[0]:
            raise GitError("A sync is stopped midway.", "Run heartcompass sync.")
        return real(ws, session, purpose)

    monkeypatch.setattr(core, "commit_session", commit)
    return refusing, tries


def test_a_refused_commit_waits_its_pause_before_the_next_try_and_a_new_refusal_after_it_worked_is_said_again(
        example_ws, monkeypatch):
    """git is not hammered while a sync is stopped: nothing is tried again before commit_retry seconds, however busy
    the chat; and once the kept messages are committed, git refusing again later is said in the chat again."""
    refusing, tries = _refused_commits(monkeypatch)
    served = Served(example_ws, FakeChat().enqueue("one", "two", "three"))
    served.gw.commit_retry = 5.0
    conv = served.gw.conversation("telegram", "42")
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        served.gw.flush_burst(conv)
        wait_until(lambda: "telegram: not committed: A sync is stopped midway." in served.reports)
        served.say("again")
        served.gw.flush_burst(conv)
        wait_until(lambda: "two" in served.channel.sent and served.gw.idle())
        assert tries == [True, True]                        # each answer's own commit, no retry in between
        refusing[0] = False
        served.now += 5.0
        served.gw.wake()
        wait_until(lambda: "telegram: the kept messages are committed now" in served.reports)
        refusing[0] = True
        served.say("later")
        served.gw.flush_burst(conv)
        wait_until(lambda: "three" in served.channel.sent and served.gw.idle())
    said = [t for t in served.channel.sent if t.startswith("(Not committed")]
    assert said == [replies.not_committed(GitError("A sync is stopped midway."))] * 2
    assert served.reports.count("telegram: not committed: A sync is stopped midway.") == 2


# -- the morning digest ---------------------------------------------------------------------------------------------

def _digest_at(example_ws, monkeypatch, at: str, hour: int):
    from heartcompass.store import clock
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "serve.digest_at", at)
    moment = {example_ws.root: dt.datetime(2026, 12, 7, hour, 30)}  # the workspace's clock (its user.timezone)
    monkeypatch.setattr(clock, "now", lambda ws: moment[ws.root])


def test_the_digest_goes_to_each_owners_chat_once_a_day_after_its_time(example_ws, monkeypatch):
    _digest_at(example_ws, monkeypatch, "08:00", 8)
    made = []
    served = Served(example_ws, owners="42,43")
    served.gw.digest = lambda: made.append(1) or "Open threads: none"
    served.say("/help")
    served.say("/help", sender="43")
    with Worker(served, monkeypatch):
        wait_until(lambda: served.state.digest_day == "2026-12-07" and served.gw.idle())
        wait_until(lambda: len(served.channel.said) == 4)
        served.gw.wake()
    assert sorted(served.channel.said[2:]) == [("42", "Open threads: none"), ("43", "Open threads: none")]
    assert made == [1] and not served.state.not_durable()  # said to disk at once: never twice after a power cut


def _digest_asked_after_help(ws):
    """A gateway whose digest counts when it is made, asked for it once the owner said /help: (served, made)."""
    made: list[int] = []
    served = Served(ws)
    served.gw.digest = lambda: made.append(1) or "Open threads: none"
    served.say("/help")
    served.gw._digest()
    return served, made


def test_no_digest_before_its_time_or_to_no_owner(example_ws, monkeypatch):
    _digest_at(example_ws, monkeypatch, "09:00", 8)
    served, made = _digest_asked_after_help(example_ws)
    assert made == [] and served.state.digest_day == ""
    _digest_at(example_ws, monkeypatch, "08:00", 8)
    served.state.owner_chats.clear()
    served.gw._digest()
    assert made == [] and served.state.digest_day == ""


def test_an_empty_digest_is_not_sent(example_ws, monkeypatch):
    _digest_at(example_ws, monkeypatch, "08:00", 8)
    served = Served(example_ws)
    served.gw.digest = lambda: None
    served.say("/help")
    served.gw._digest()
    assert served.state.digest_day == "2026-12-07" and served.channel.sent == [replies.HELP]


# -- a quiet moment fsyncs the state ----------------------------------------------------------------------------------

def test_the_worker_makes_the_state_durable_once_two_seconds_have_passed(example_ws, monkeypatch):
    served = Served(example_ws)
    with Worker(served, monkeypatch):
        served.say("/help")
        assert served.state.not_durable()
        served.now += core.DURABLE_EVERY
        served.gw.wake()
        wait_until(lambda: not served.state.not_durable())
        assert served.state.path.exists() and not served.state.tail.exists()


def test_the_model_is_made_once_on_the_first_reply_and_kept(example_ws):
    made = []
    model = FakeChat().enqueue("one", "two")
    served = Served(example_ws)
    served.gw._make_model = lambda: made.append(1) or model
    served.say("/switch alice")
    assert made == []                      # serve starts without the provider's slow import
    served.say("hi")
    served.finish()
    served.say("again")
    served.finish()
    assert made == [1] and served.channel.sent[1:] == ["one", "two"]


def test_the_gateway_is_idle_only_with_nothing_gathered_or_queued(chat):
    assert chat.gw.idle()
    chat.say("/switch alice")
    chat.say("hi")
    assert not chat.gw.idle()              # a burst waits for quiet
    chat.gw.flush_burst(chat.gw.conversation("telegram", "42"))
    assert not chat.gw.idle()              # its answer is queued
    chat.gw._jobs.clear()
    assert chat.gw.idle()


class SlowToTake(Channel):
    """An app whose API takes one reply of the persona's only when the test lets it."""

    def __init__(self, slow: str):
        import threading

        super().__init__()
        self.slow, self.sending, self.release = slow, threading.Event(), threading.Event()

    def send(self, chat, text):
        super().send(chat, text)
        if text == self.slow:
            self.sending.set()
            assert self.release.wait(DEADLINE)


def _slow_app(served: Served, slow: str) -> SlowToTake:
    app = SlowToTake(slow)
    served.channel = served.gw.channels["telegram"] = app
    return app


def test_the_gateway_is_not_idle_while_its_worker_is_still_answering(example_ws, monkeypatch):
    """Whoever waits for serve to be quiet (a benchmark, a test) never finds it idle while a reply is still on its
    way to the app, neither sent in full nor committed; once it is, the gateway is idle again."""
    from conftest import subjects

    served = Served(example_ws, FakeChat().enqueue("one"))
    app = _slow_app(served, "one")
    with Worker(served, monkeypatch):
        try:
            served.say("/switch alice")
            served.say("hi")
            served.gw.flush_burst(served.gw.conversation("telegram", "42"))
            assert app.sending.wait(DEADLINE), "the reply never reached the app"
            assert not served.gw.idle()
        finally:
            app.release.set()
        wait_until(lambda: served.gw.idle() and subjects(example_ws)[0].startswith("chat(alice): 2 messages"))


def test_a_stopped_worker_commits_every_chats_messages_before_the_answers_it_still_owes_and_only_then(
        example_ws, monkeypatch):
    """SIGTERM with answers still owed: what every chat logged is committed before the first of them (an answer
    may be slow; a kill that follows loses nothing), once: a message that comes while an answer is slow to go out
    is committed with its own answer, one commit for the exchange, not a commit of the message alone."""
    from conftest import git, subjects

    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Stone", "friend")
    served = Served(example_ws, FakeChat().enqueue("alice answers", "bob answers"), owners="42,43")
    app = _slow_app(served, "alice answers")
    served.say("/switch alice")
    served.say("hi alice")                                # gathered: answered only once the worker is told to stop
    served.say("/switch bob-stone", sender="43")
    served.say("/note He is back from Lisbon.", sender="43")   # logged, no answer owed
    with Worker(served, monkeypatch) as worker:
        try:
            worker.stop.set()
            served.gw.wake()
            assert app.sending.wait(DEADLINE), "the reply never reached the app"
            committed = git(example_ws, "log", "-p")
            assert "hi alice" in committed and "He is back from Lisbon." in committed, "not committed at the stop"
            served.say("hello bob", sender="43")          # while Alice's answer is slow to go out
        finally:
            app.release.set()
    assert app.said[-1] == ("43", "bob answers")
    assert [s.split(" on ")[0] for s in subjects(example_ws)[:4]] == ["chat(bob-stone): 2 messages",
                                                                      "chat(alice): 1 message",
                                                                      "chat(bob-stone): 1 message",
                                                                      "chat(alice): 1 message"]
    assert git(example_ws, "status", "--porcelain") == ""


def test_a_worker_stopped_with_no_answer_owed_still_commits_what_was_logged_and_makes_the_state_durable(example_ws):
    """A /note waits for no answer: when serve stops it goes into the history all the same, and the serve state
    (the messages handled) is on disk for good, so a power cut after the stop handles none of them twice."""
    from conftest import git, subjects

    served = Served(example_ws)
    served.say("/switch alice")
    served.say("/note She moved to Berlin.")
    assert served.state.not_durable()
    served.finish()
    assert served.channel.sent[-1] == "Noted: it goes into memory at the next garden."
    assert subjects(example_ws)[0].startswith("chat(alice): 1 message on ")
    assert git(example_ws, "status", "--porcelain") == "" and not served.state.not_durable()


@pytest.mark.parametrize("problem", [OSError(28, "No space left on device"), HeartCompassError("The disk is full.")])
def test_a_state_that_cannot_be_made_durable_is_reported_and_serve_goes_on(chat, monkeypatch, problem):
    def full():
        raise problem

    monkeypatch.setattr(chat.state, "make_durable", full)
    chat.now += 5
    chat.gw.make_durable()
    expected = problem.message if isinstance(problem, HeartCompassError) else str(problem)
    assert chat.reports == [f"telegram: state not saved: {expected}"]
    assert chat.gw._durable_at == chat.now  # tried now: the next try is DURABLE_EVERY from now


# -- serve, start to stop ------------------------------------------------------------------------------------------

class Started:
    """A channel with a lifecycle: started with the gateway, closed at the end."""

    name = "telegram"

    def __init__(self):
        self.events: list[str] = []

    def start(self, gw, stop):
        self.events.append("start")

    def close(self):
        self.events.append("close")

    def send(self, chat, text):
        self.events.append(f"send {chat}: {text}")

    def ask(self, chat, text, choices):
        pass

    def typing(self, chat):
        pass


def test_serve_starts_each_channel_runs_until_stopped_then_closes_them_and_saves_the_state(example_ws):
    import threading

    from heartcompass.gateway import runner
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "telegram.allowed_users", "42")
    stop, reports, channel = threading.Event(), [], Started()

    def ready(gw):
        from heartcompass.gateway.core import Incoming

        gw.receive(Incoming("telegram", "42", "42", "42:1", text="/help"))
        stop.set()

    gw = runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, report=reports.append, quiet=1.0,
                      delays=(0.0, 0.0), channels={"telegram": channel}, on_ready=ready)
    assert channel.events == ["start", f"send 42: {replies.HELP}", "close"]
    assert reports == ["telegram: listening"]
    assert gw.states["telegram"].is_seen("42:1") and not gw.states["telegram"].not_durable()
    assert '"42:1"' in (example_ws.state_dir / "serve" / "telegram.json").read_text(encoding="utf-8")


def test_a_channel_that_cannot_start_stops_serve_with_its_error_and_frees_the_lock(example_ws):
    import threading

    from heartcompass.gateway import runner

    class Refused(Started):
        def start(self, gw, stop):
            raise HeartCompassError("Telegram refuses TELEGRAM_BOT_TOKEN: the token is not valid.")

    stop = threading.Event()
    with pytest.raises(HeartCompassError):
        runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, channels={"telegram": Refused()})
    assert stop.is_set()
    again = threading.Event()
    runner.serve(example_ws, ["telegram"], again, make_model=FakeChat, channels={"telegram": Started()},
                 on_ready=lambda gw: again.set())  # the lock was let go: a new serve starts



class MadeApp(Started):
    """An app's channel as serve makes it: what TelegramChannel or LarkChannel was made with, and how it was started."""

    made: dict[str, "MadeApp"] = {}

    def __init__(self, *args, **options):
        super().__init__()
        self.args, self.options, self.started_with = args, options, None
        MadeApp.made[self.name] = self

    def start(self, gw, stop):
        super().start(gw, stop)
        self.started_with = (gw, stop)


def _apps(monkeypatch) -> dict[str, MadeApp]:
    pytest.importorskip("lark_oapi")
    pytest.importorskip("telegram")
    from heartcompass.gateway import lark, telegram

    MadeApp.made = {}
    monkeypatch.setattr(telegram, "TelegramChannel", type("Telegram", (MadeApp,), {"name": "telegram"}))
    monkeypatch.setattr(lark, "LarkChannel", type("Lark", (MadeApp,), {"name": "lark"}))
    return MadeApp.made


def test_serve_makes_each_app_from_the_workspaces_credentials_polls_25_seconds_and_starts_it_with_its_gateway(
        example_ws, monkeypatch):
    """Each named app gets its credentials (.env), its settings, its own state and serve's report; Telegram
    long-polls 25 s unless told; each is started with the gateway and the stop, said listening, closed at the end."""
    import threading

    from heartcompass.gateway import runner
    from heartcompass.store.config_edit import set_config

    made = _apps(monkeypatch)
    for var in ("TELEGRAM_BOT_TOKEN", "LARK_APP_ID", "LARK_APP_SECRET"):
        monkeypatch.delenv(var, raising=False)
    (example_ws.root / ".env").write_text("TELEGRAM_BOT_TOKEN=123:abc\nLARK_APP_ID=cli_1\nLARK_APP_SECRET=secret-1\n",
                                          encoding="utf-8")
    set_config(example_ws, "telegram.api_base", "https://api.telegram.example")
    set_config(example_ws, "lark.domain", "https://open.feishu.example")
    stop, reports = threading.Event(), []
    gw = runner.serve(example_ws, ["telegram", "lark"], stop, make_model=FakeChat, report=reports.append,
                      on_ready=lambda gw: stop.set())
    telegram, lark = made["telegram"], made["lark"]
    assert gw.channels == {"telegram": telegram, "lark": lark}
    assert telegram.args == ("123:abc", "https://api.telegram.example", gw.states["telegram"])
    assert telegram.options == {"poll_timeout": 25.0, "report": reports.append}
    assert (lark.args, lark.options) == (("cli_1", "secret-1", "https://open.feishu.example"),
                                         {"report": reports.append})
    assert telegram.started_with == (gw, stop) and lark.started_with == (gw, stop)
    assert telegram.events == lark.events == ["start", "close"]
    assert reports == ["telegram: listening", "lark: listening"]
    runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, poll_timeout=0.5)
    assert made["telegram"].options["poll_timeout"] == 0.5


def test_serve_runs_the_gateway_with_the_model_settings_pace_report_pairing_code_and_digest_it_was_given(example_ws):
    import threading

    from heartcompass.gateway import runner
    from heartcompass.gateway.core import Incoming
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "telegram.allowed_users", "")
    stop, reports, channel, model, settings = threading.Event(), [], Started(), FakeChat(), object()

    def digest():
        return "Open threads: none"

    def ready(gw):
        gw.receive(Incoming("telegram", "7", "7", "7:1", text="pair-abc123"))
        stop.set()

    gw = runner.serve(example_ws, ["telegram"], stop, make_model=lambda: model, settings=settings,
                      report=reports.append, pair="pair-abc123", quiet=4.5, delays=(0.1, 0.2), digest=digest,
                      channels={"telegram": channel}, on_ready=ready)
    assert channel.events == ["start", f"send 7: {replies.PAIRED}", "close"]
    assert (gw.model(), gw.settings, gw.quiet, gw.delays, gw.digest, gw.report) == (
        model, settings, 4.5, (0.1, 0.2), digest, reports.append)


def test_while_serve_runs_its_lock_names_serve_and_this_process_and_a_second_serve_is_refused_at_once(
        example_ws, monkeypatch):
    """One poller per bot: the lock in the workspace's state folder says who holds it (doctor, a second serve);
    a second serve is refused at once, not after a commit's wait, and the lock is free once serve ends."""
    import os
    import threading

    from heartcompass.gateway import runner
    from heartcompass.store import lock
    from heartcompass.store.lock import LockBusy, holder

    stop, held, refused, waits = threading.Event(), [], [], []
    monkeypatch.setattr(lock.time, "sleep", waits.append)

    def ready(gw):
        held.append(holder(example_ws.state_dir / "serve.lock"))
        try:
            runner.serve(example_ws, ["telegram"], threading.Event(), make_model=FakeChat,
                         channels={"telegram": Started()})
        except LockBusy as exc:
            refused.append(exc.message)
            refused.append(exc.hint)
        stop.set()

    runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, channels={"telegram": Started()},
                 on_ready=ready)
    (owner,) = held
    assert (owner["purpose"], owner["pid"]) == ("serve", os.getpid())
    assert refused[0] == (f"Another HeartCompass serve is running (pid {os.getpid()} on {owner['host']}, "
                          f"since {owner['since']}).") and waits == []
    assert f"there is no lock file ({example_ws.state_dir / 'serve.lock'}) to delete" in refused[1]
    assert holder(example_ws.state_dir / "serve.lock") is None


class SlowApp(Started):
    """An app whose API takes the persona's reply only when the test lets it."""

    def __init__(self):
        import threading

        super().__init__()
        self.sending, self.release = threading.Event(), threading.Event()

    def send(self, chat, text):
        super().send(chat, text)
        if text == "hi back":
            self.sending.set()
            assert self.release.wait(DEADLINE)


def test_stopping_serve_commits_what_was_logged_at_once_while_the_app_is_still_slow_to_take_a_reply(example_ws):
    """SIGTERM while the worker waits on the app: the owner's messages are committed then (a kill that follows
    loses nothing), by a daemon thread named for it (a stack dump says what it is; it never keeps the process up)."""
    import threading

    from conftest import git

    from heartcompass.gateway import runner
    from heartcompass.gateway.core import Incoming
    from heartcompass.store.config_edit import set_config

    set_config(example_ws, "telegram.allowed_users", "42")
    channel, stop, served = SlowApp(), threading.Event(), []

    def ready(gw):
        gw.receive(Incoming("telegram", "42", "42", "42:1", text="/switch alice"))
        gw.receive(Incoming("telegram", "42", "42", "42:2", text="hi from my phone"))

    def run():
        served.append(runner.serve(example_ws, ["telegram"], stop, make_model=lambda: FakeChat().enqueue("hi back"),
                                   quiet=0.01, delays=(0.0, 0.0), channels={"telegram": channel}, on_ready=ready))

    thread = threading.Thread(target=run)  # as the CLI's main thread: its own threads are not daemons
    thread.start()
    try:
        assert channel.sending.wait(DEADLINE), "the reply never reached the app"
        committing = [t for t in threading.enumerate() if t.name == "commit-at-stop"]
        assert "hi from my phone" not in git(example_ws, "log", "-p")
        stop.set()
        wait_until(lambda: "hi from my phone" in git(example_ws, "log", "-p"))
        assert not channel.release.is_set() and [t.daemon for t in committing] == [True]
    finally:
        channel.release.set()
        thread.join(DEADLINE)
    assert served and channel.events[-1] == "close"


def test_a_commit_at_stop_stuck_on_an_app_that_never_answers_does_not_keep_serve_running(example_ws, monkeypatch):
    """The commit at SIGTERM tells the chat when git refuses it: an app that never takes that message holds
    serve's end only AT_STOP_WAIT, then serve commits what is left itself and ends."""
    import threading

    from heartcompass.gateway import runner
    from heartcompass.gateway.core import Gateway

    monkeypatch.setattr(runner, "AT_STOP_WAIT", 0.05)
    real_commit_all, stuck, release, ends, let_go = Gateway.commit_all, threading.Event(), threading.Event(), [], []

    def commit_all(gw):
        if threading.current_thread().name == "commit-at-stop":
            stuck.set()
            release.wait(DEADLINE)
            let_go.append(1)
        else:
            ends.append(stuck.is_set())
            real_commit_all(gw)

    monkeypatch.setattr(Gateway, "commit_all", commit_all)
    stop, channel = threading.Event(), Started()
    try:
        runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, channels={"telegram": channel},
                     on_ready=lambda gw: stop.set())
        assert stuck.is_set() and let_go == []            # ended while the commit at stop was still stuck
    finally:
        release.set()
    assert ends[-1] is True and channel.events == ["start", "close"]


def test_a_commit_or_a_state_that_fails_at_stop_is_said_in_one_line_and_serve_still_ends(example_ws, monkeypatch):
    import threading

    from heartcompass.gateway import runner
    from heartcompass.gateway.core import Gateway
    from heartcompass.gateway.state import ChannelState

    real_run, ran = Gateway.run, []

    def run(gw, stop):
        real_run(gw, stop)
        ran.append(gw)

    def commit_all(gw):
        if ran:  # the worker is done: what is left is serve's own commit at stop
            raise OSError(28, "No space left on device")

    def make_durable(state):
        raise HeartCompassError("disk full")

    monkeypatch.setattr(Gateway, "run", run)
    monkeypatch.setattr(Gateway, "commit_all", commit_all)
    monkeypatch.setattr(ChannelState, "make_durable", make_durable)
    stop, reports = threading.Event(), []
    gw = runner.serve(example_ws, ["telegram"], stop, make_model=FakeChat, report=reports.append,
                      channels={"telegram": Started()}, on_ready=lambda gw: stop.set())
    assert ran == [gw]
    assert "not committed at stop: OSError: [Errno 28] No space left on device" in reports
    assert reports[-1] == "state not saved: disk full"


def test_no_digest_when_its_time_is_not_set(example_ws, monkeypatch):
    """serve.digest_at empty (the default) turns the digest off, whatever the hour."""
    _digest_at(example_ws, monkeypatch, "", 23)
    served, made = _digest_asked_after_help(example_ws)
    assert made == [] and served.state.digest_day == "" and served.channel.sent == [replies.HELP]


def test_the_digest_goes_out_in_the_minute_it_is_set_for(example_ws, monkeypatch):
    _digest_at(example_ws, monkeypatch, "08:30", 8)     # the clock says 08:30
    served = Served(example_ws)
    served.gw.digest = lambda: "Open threads: none"
    served.say("/help")
    served.gw._digest()
    assert served.channel.said == [("42", replies.HELP), ("42", "Open threads: none")]


def test_a_channel_that_had_its_digest_today_does_not_keep_another_from_its_own(example_ws, monkeypatch):
    from heartcompass.gateway.state import state_for

    _digest_at(example_ws, monkeypatch, "08:00", 8)
    served = Served(example_ws)
    served.gw.digest = lambda: "Open threads: none"
    served.state.owner_chats["42"] = "42"
    served.state.digest_day = "2026-12-07"               # telegram's went out already today
    lark, lark_state = Channel(), state_for(example_ws.state_dir, "lark")
    lark_state.owner_chats["ou_1"] = "oc_1"
    served.gw.channels["lark"], served.gw.states["lark"] = lark, lark_state
    served.gw._digest()
    assert served.channel.said == [] and lark.said == [("oc_1", "Open threads: none")]
    assert lark_state.digest_day == "2026-12-07"


def test_a_newly_paired_owners_button_in_their_own_chat_is_answered_at_once(example_ws):
    """Pairing remembers the new owner's private chat: their first press of a button there is theirs, not a
    group's (before they have written anything else)."""
    served = Served(example_ws, owners="", pair="pair-abc123")
    served.say("pair-abc123", sender="7")
    assert served.state.owner_chats == {"7": "7"}
    served.say(sender="7", button="t9:yes")
    served.finish()
    assert served.channel.said == [("7", replies.PAIRED), ("7", replies.NO_OFFER)]


# -- the worker's wait: git not hammered, no fsync before its time, nothing answered late ---------------------------

def test_a_commit_still_refused_at_its_retry_waits_the_pause_given_to_serve_again_and_the_chat_is_still_answered(
        example_ws, monkeypatch):
    """serve's commit_retry is the pause between tries (not the default), after a retry that failed too; a failed
    retry is not said in the chat again, and the worker goes on answering while the logs wait."""
    refusing, tries = _refused_commits(monkeypatch)
    served = Served(example_ws, FakeChat().enqueue("one", "two"), commit_retry=5.0)
    assert core.COMMIT_RETRY != 5.0
    conv = served.gw.conversation("telegram", "42")
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        served.gw.flush_burst(conv)
        wait_until(lambda: "one" in served.channel.sent and served.gw.idle() and len(tries) == 1)
        served.now += 5.0
        served.gw.wake()
        wait_until(lambda: len(tries) == 2)                 # the retry, refused again
        served.say("again")
        served.gw.flush_burst(conv)
        wait_until(lambda: "two" in served.channel.sent and served.gw.idle() and len(tries) == 3)
        assert tries == [True, True, True]                  # no retry before another 5 s
        refusing[0] = False
        served.now += 5.0
        served.gw.wake()
        wait_until(lambda: "telegram: the kept messages are committed now" in served.reports)
    assert [t for t in served.channel.sent if t.startswith("(Not committed")] == [
        replies.not_committed(GitError("A sync is stopped midway."))]


class _Waits:
    """The worker's condition, recording how long (in seconds) each of its waits may last."""

    def __init__(self, served: Served):
        import threading

        self.timeouts: list[float | None] = []
        self._cv = cv = served.gw._cv
        waits = self.timeouts

        class Recording(type(cv)):  # type: ignore[misc]
            def wait(self, timeout=None):
                waits.append(timeout)
                return super().wait(timeout)

        assert isinstance(cv, threading.Condition)
        served.gw._cv = Recording()

    def after(self, n: int, count: int = 1) -> list[float | None]:
        """The timeouts of the waits begun after the first n, once there are count of them."""
        wait_until(lambda: len(self.timeouts) >= n + count)
        return self.timeouts[n:]

    def one_of(self, timeout: float, n: int) -> bool:
        """A wait begun after the first n lasts timeout (the worker waits again each second or sooner)."""
        wait_until(lambda: timeout in self.timeouts[n:])
        return True


def test_a_gathered_burst_is_answered_when_its_quiet_time_ends_not_up_to_a_second_late(example_ws, monkeypatch):
    """The worker sleeps only until the burst's quiet time is over (0.25 s here), not a whole idle second."""
    served = Served(example_ws)
    served.gw.quiet = 0.25
    waits = _Waits(served)
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        n = len(waits.timeouts)
        served.say("hi")
        assert waits.one_of(0.25, n)


def test_a_refused_commit_is_retried_when_its_pause_ends_not_up_to_a_second_late(example_ws, monkeypatch):
    """With a retry pause under a second (0.25 s here) the worker sleeps only until the retry is due."""
    def commit(ws, session, purpose):
        raise GitError("A sync is stopped midway.", "Run heartcompass sync.")

    monkeypatch.setattr(core, "commit_session", commit)
    served = Served(example_ws, FakeChat().enqueue("one"), commit_retry=0.25)
    waits = _Waits(served)
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: "telegram: not committed: A sync is stopped midway." in served.reports)
        n = len(waits.timeouts)
        served.gw.wake()
        assert waits.one_of(0.25, n)


def test_a_state_to_fsync_is_made_durable_when_its_two_seconds_end_not_up_to_a_second_late(example_ws, monkeypatch):
    """Half a second before DURABLE_EVERY is over, the worker sleeps that half second, then fsyncs."""
    served = Served(example_ws)
    waits = _Waits(served)
    with Worker(served, monkeypatch):
        served.say("/help")
        assert served.state.not_durable()
        served.now += core.DURABLE_EVERY - 0.5
        n = len(waits.timeouts)
        served.gw.wake()
        assert waits.one_of(0.5, n)


def test_an_idle_worker_with_nothing_to_save_looks_again_every_second_and_does_not_spin(example_ws, monkeypatch):
    """Nothing gathered, queued, refused or unsaved, long after the last fsync: the worker sleeps one second at a
    time (it still looks for the digest's time), never zero (a busy loop) nor longer."""
    served = Served(example_ws)
    waits = _Waits(served)
    with Worker(served, monkeypatch):
        assert not served.state.not_durable()
        served.now += 10 * core.DURABLE_EVERY
        n = len(waits.timeouts)
        served.gw.wake()
        assert set(waits.after(n, 2)) == {1.0}


def test_a_busy_worker_answers_without_fsyncing_the_state_before_two_seconds_have_passed(example_ws, monkeypatch):
    """The fsync waits for DURABLE_EVERY seconds since the last, even with a reply to make: none at once."""
    made = []
    served = Served(example_ws, FakeChat().enqueue("one"))
    monkeypatch.setattr(served.state, "make_durable", lambda: made.append(1))
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        assert served.state.not_durable()
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: "one" in served.channel.sent and served.gw.idle())
        assert made == []


def test_a_message_delivered_twice_is_handled_once(chat):
    """An app that delivers the same message again (a retry after a timeout) gets one answer."""
    chat.gw.receive(core.Incoming("telegram", "42", "42", "m1", text="/help"))
    chat.gw.receive(core.Incoming("telegram", "42", "42", "m1", text="/help"))
    assert chat.channel.sent == [replies.HELP]


def test_a_retried_commit_that_breaks_is_reported_as_the_commit_that_failed(example_ws, monkeypatch):
    """A retry of refused logs that meets a bug (not git refusing) tells the operator it was the commit that failed."""
    real = core.commit_session
    errors = [GitError("A sync is stopped midway.", "Run heartcompass sync."), OSError("disk gone")]

    def commit(ws, session, purpose):
        if errors:
            raise errors.pop(0)
        return real(ws, session, purpose)

    monkeypatch.setattr(core, "commit_session", commit)
    served = Served(example_ws, FakeChat().enqueue("one"), commit_retry=5.0)
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("hi")
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: "one" in served.channel.sent and served.gw.idle())
        served.now += 5.0
        served.gw.wake()
        wait_until(lambda: "telegram: commit failed: OSError: disk gone" in served.reports)


def test_a_message_to_a_person_is_held_under_its_own_id_and_chat_before_it_is_logged(chat):
    """The held record a killed serve leaves names the delivery and its chat: the next serve marks that very
    message handled (its redelivery is not logged twice) and answers that chat."""
    import json

    from heartcompass.gateway.state import Held

    chat.say("/switch alice")
    chat.gw.receive(core.Incoming("telegram", "42", "42", "m9", text="到家了"))
    held = Held.from_dict(json.loads(chat.state.held_path.read_bytes().decode("utf-8")))
    assert (held.id, held.chat, held.slug) == ("m9", "42", "alice")


def test_the_gateway_is_not_idle_while_a_second_delivery_is_still_being_handled(chat):
    """Two deliveries at once (two apps): when the first is done, the one still waiting its turn keeps the gateway
    from being idle until it is handled too."""
    import threading

    turn, taken = threading.Semaphore(0), []
    waiting = threading.Event()
    send = chat.channel.send

    def slow_send(to, text):
        send(to, text)
        taken.append(text)
        assert turn.acquire(timeout=DEADLINE)

    chat.channel.send = slow_send  # type: ignore[method-assign]
    lock = chat.gw._receiving

    class Turns:
        def __enter__(self):
            if threading.current_thread().name == "second":
                waiting.set()
            return lock.__enter__()

        def __exit__(self, *exc):
            return lock.__exit__(*exc)

    chat.gw._receiving = Turns()  # type: ignore[assignment]
    first = threading.Thread(target=chat.gw.receive, args=(core.Incoming("telegram", "42", "42", "a", text="/help"),))
    second = threading.Thread(target=chat.gw.receive, args=(core.Incoming("telegram", "42", "42", "b", text="/help"),),
                              name="second")
    first.start()
    try:
        wait_until(lambda: len(taken) == 1)
        second.start()
        assert waiting.wait(DEADLINE)
        turn.release()                                   # the first is done; the second is handled now
        first.join(DEADLINE)
        wait_until(lambda: len(taken) == 2)
        assert not chat.gw.idle()
    finally:
        turn.release()
        turn.release()
        first.join(DEADLINE)
        if second.ident is not None:               # started
            second.join(DEADLINE)
    assert chat.gw.idle() and chat.channel.sent == [replies.HELP, replies.HELP]
