"""A message that a serve was killed while handling is logged once and
answered once (gateway/recovery.py `hold` and `settle`, state.py `Held` in <channel>.held).
The app delivers it again after the restart (Telegram's offset, Lark's
redelivery): if the kill came after its line reached the day log, that line
is not appended a second time; if it came before, the redelivery logs it,
so nothing is lost. The kill is simulated, with no timing: the step after
which the serve "dies" raises, and the next serve is built from the files
left on disk."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from fakes import FakeChat
from serve_helpers import Recording, log_entries, wait_until

from heartcompass.formats import dailylog
from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import ChannelState, state_for
from heartcompass.store.config_edit import set_config
from heartcompass.talk.chat import ChatSession

TEXTS = ["see you at eight tonight", "今晚八点见\n别迟到哦"]


class Killed(BaseException):
    """The serve's process ends here (SIGKILL): nothing after this line runs."""


def _serve(ws, model=None) -> tuple[Gateway, ChannelState, Recording]:
    """A serve starting on the state files on disk."""
    state = state_for(ws.state_dir, "telegram")
    state.chats.setdefault("42", "alice")
    channel = Recording()
    gw = Gateway(ws, {"telegram": channel}, {"telegram": state}, make_model=lambda: model or FakeChat(),
                 quiet=0.05, delays=(0.0, 0.0))
    return gw, state, channel


def _message(mid: str, text: str) -> Incoming:
    return Incoming("telegram", "42", "42", mid, text=text)


def _said(ws) -> list[str]:
    return [e.text for e in log_entries(ws, "alice") if e.speaker == "me"]


def _killed_while_handling(ws, monkeypatch, mid: str, text: str, *, after_the_log: bool) -> None:
    """A serve receives the message and dies right after its log line (before
    it is marked handled) or right before it (after the state said it is held)."""
    gw, state, _ = _serve(ws)

    def die(*args, **kwargs):
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(ChannelState, "mark_seen", die)    # never marked: the process is gone
        if not after_the_log:
            m.setattr(ChatSession, "hold", die)
        with pytest.raises(Killed):
            gw.receive(_message(mid, text))


def _answer_everything(gw: Gateway, channel: Recording) -> None:
    """Run the worker (its recovery first) until all is answered and quiet, then stop it."""
    stop = threading.Event()
    worker = threading.Thread(target=gw.run, args=(stop,))
    worker.start()
    try:
        wait_until(lambda: channel.sent and gw.idle())
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive()


@pytest.fixture
def ws(example_ws):
    set_config(example_ws, "telegram.allowed_users", "42")
    return example_ws


@pytest.mark.parametrize("text", TEXTS)
def test_killed_after_the_log_line_the_redelivered_message_is_logged_once_and_answered_once(ws, monkeypatch, text):
    _killed_while_handling(ws, monkeypatch, "42:7", text, after_the_log=True)
    assert _said(ws) == [text]                       # the line reached the log before the kill
    model = FakeChat().enqueue("eight it is")
    gw, state, channel = _serve(ws, model)
    assert state.is_seen("42:7")                     # settled at start, before any delivery
    gw.receive(_message("42:7", text))               # the app delivers it again
    _answer_everything(gw, channel)
    assert _said(ws) == [text]
    assert channel.sent == ["eight it is"] and model.purposes == ["chat"]
    assert text in str(model.request("chat").messages[-1].content)


@pytest.mark.parametrize("text", TEXTS)
def test_killed_before_the_log_line_the_redelivered_message_is_logged_then(ws, monkeypatch, text):
    _killed_while_handling(ws, monkeypatch, "42:7", text, after_the_log=False)
    assert _said(ws) == []                           # the kill came first: the log never had it
    model = FakeChat().enqueue("eight it is")
    gw, state, channel = _serve(ws, model)
    assert not state.is_seen("42:7")                 # so its redelivery is handled
    gw.receive(_message("42:7", text))
    _answer_everything(gw, channel)
    assert _said(ws) == [text]
    assert channel.sent == ["eight it is"] and model.purposes == ["chat"]


@pytest.mark.parametrize("after_the_log", [True, False])
def test_the_same_words_sent_twice_are_logged_twice_across_a_kill(ws, monkeypatch, after_the_log):
    """Two messages (two ids) that say the same "ok": the first one's line in the
    log is not taken for the second's, which was killed before or after its own."""
    gw, state, _ = _serve(ws)
    gw.receive(_message("42:1", "ok 好"))
    assert _said(ws) == ["ok 好"] and state.is_seen("42:1")
    _killed_while_handling(ws, monkeypatch, "42:2", "ok 好", after_the_log=after_the_log)
    model = FakeChat().enqueue("fine")
    gw, state, channel = _serve(ws, model)
    gw.receive(_message("42:1", "ok 好"))            # both come again: Telegram's offset is before them
    gw.receive(_message("42:2", "ok 好"))
    _answer_everything(gw, channel)
    assert _said(ws) == ["ok 好", "ok 好"]
    assert channel.sent == ["fine"] and model.purposes == ["chat"]


def test_a_held_message_survives_the_state_being_made_durable_before_the_kill(ws, monkeypatch):
    """The worker may replace the json (and drop the tail) between the hold and the log line."""
    gw, state, _ = _serve(ws)
    real_hold = ChatSession.hold
    with monkeypatch.context() as m:
        def durable_then_log(self, text, at=None):
            state.make_durable()                     # the worker's quiet-moment fsync, on time
            assert not state.tail.exists()
            real_hold(self, text, at)
        m.setattr(ChatSession, "hold", durable_then_log)

        def die(self, message_id):
            raise Killed
        m.setattr(ChannelState, "mark_seen", die)
        with pytest.raises(Killed):
            gw.receive(_message("42:7", "the ferry leaves at 6 渡轮六点开"))
    gw, state, channel = _serve(ws, FakeChat().enqueue("ok"))
    assert state.is_seen("42:7")
    gw.receive(_message("42:7", "the ferry leaves at 6 渡轮六点开"))
    assert _said(ws) == ["the ferry leaves at 6 渡轮六点开"]


def test_a_held_message_already_answered_before_the_kill_is_not_answered_again(ws, monkeypatch):
    """Its burst was answered (a persona line follows it), the mark never saved."""
    _killed_while_handling(ws, monkeypatch, "42:7", "are you free 有空吗", after_the_log=True)
    day = dailylog.log_dates(ws.people_dir / "alice")[-1]  # the log the line went to
    path = ws.people_dir / "alice" / "logs" / f"{day}.md"
    dailylog.append(path, dailylog.Entry("12:00:00", "persona", "yes, after five"), dt.date.fromisoformat(day))
    model = FakeChat()                               # not scripted: a call would fail the test
    gw, state, channel = _serve(ws, model)
    assert state.is_seen("42:7")
    gw.receive(_message("42:7", "are you free 有空吗"))
    gw.receive(_message("42:8", "see you then 到时见"))  # the next message is answered, and only it
    model.enqueue("see you")
    _answer_everything(gw, channel)
    assert _said(ws) == ["are you free 有空吗", "see you then 到时见"]
    assert channel.sent == ["see you"] and model.purposes == ["chat"]


def test_entries_after_reads_only_what_was_appended_since_and_nothing_from_a_replaced_log(tmp_path):
    """The check settle makes: the entries after a size; a file shorter than it
    (replaced since), gone, or cut mid-entry there gives none (then the message is logged)."""
    path = tmp_path / "logs" / "2026-12-07.md"
    day = dt.date(2026, 12, 7)
    dailylog.append(path, dailylog.Entry("09:00:00", "me", "早上好"), day)
    size = path.stat().st_size
    dailylog.append(path, dailylog.Entry("09:00:05", "me", "ok\nsee you"), day)
    after = dailylog.entries_after(path, size)
    assert [(e.speaker, e.text) for e in after] == [("me", "ok\nsee you")]
    assert [e.text for e in dailylog.entries_after(path, 0)] == ["早上好", "ok\nsee you"]
    assert dailylog.entries_after(path, size + 3) == []       # mid-entry: not whole entries
    assert dailylog.entries_after(path, path.stat().st_size + 1) == []
    assert dailylog.entries_after(tmp_path / "logs" / "gone.md", 0) == []


def test_the_held_file_read_back_is_always_the_last_record_written_even_after_a_longer_one(tmp_path):
    """<channel>.held is overwritten in place, never truncated: a short record after a long one is read whole."""
    from heartcompass.gateway.state import Held

    state = state_for(tmp_path, "telegram")
    state.hold(Held("42:1", "42" * 800, "alice", "people/alice/logs/2026-12-07.md", 10, "f" * 32))
    state.hold(Held("42:2", "42", "小明", "people/xiao-ming/logs/2026-12-07.md", 20, "e" * 32))
    assert state.interrupted() == Held("42:2", "42", "小明", "people/xiao-ming/logs/2026-12-07.md", 20, "e" * 32)
    state.mark_seen("42:2")
    assert state.interrupted() is None                   # handled: nothing left to settle
    state.let_go()
    assert not state.held_path.exists()



@pytest.mark.parametrize("elsewhere", ["outside", "bob"])
def test_a_held_record_naming_another_file_is_not_trusted_and_the_message_is_not_lost(ws, monkeypatch, elsewhere):
    """A <channel>.held edited by hand (or broken) that names a file other
    than the person's own day log, one that does hold the line: settle reads
    nothing there (outside the workspace, or another person's log), so the
    redelivered message still reaches this person's log."""
    import json
    import os

    _killed_while_handling(ws, monkeypatch, "42:7", "see you", after_the_log=True)
    state = state_for(ws.state_dir, "telegram")
    record = json.loads(state.held_path.read_text(encoding="utf-8"))
    assert record["log"].startswith("people/alice/logs/")   # what a real hold records
    logged = ws.root / record["log"]
    folder = ws.root.parent / "outside" / "logs" if elsewhere == "outside" else ws.people_dir / "bob" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    os.replace(logged, folder / logged.name)                 # the line is there now, not in alice's log
    record["log"] = os.path.relpath(folder / logged.name, ws.root)
    state.held_path.write_text(json.dumps(record), encoding="utf-8")
    assert _said(ws) == []
    model = FakeChat().enqueue("see you then")
    gw, state, channel = _serve(ws, model)
    assert not state.is_seen("42:7") and not state.held_path.exists()   # let go: its redelivery logs it
    gw.receive(_message("42:7", "see you"))
    _answer_everything(gw, channel)
    assert _said(ws) == ["see you"] and channel.sent == ["see you then"]
