"""What a killed serve leaves to the next one (gateway/recovery.py): each
chat whose burst was logged and not answered is committed and answered at
the start, or said to be unanswerable; an answer clears it only when
nothing more came meanwhile. A recording channel, the worker run to its end
in the test's thread."""

from __future__ import annotations

import json

import pytest

from conftest import git
from fakes import FakeChat
from gateway_core_helpers import Served
from serve_helpers import log_entries

from heartcompass.formats import dailylog
from heartcompass.gateway import recovery
from heartcompass.store import clock


def _left_unanswered(ws, slug: str, texts: list[str]) -> None:
    """What a serve killed mid-burst leaves: the lines in the day log, the chat in `unanswered`, nothing committed."""
    now = clock.now(ws)
    for text in texts:
        dailylog.append(ws.people_dir / slug / "logs" / f"{now.date()}.md",
                        dailylog.Entry(now.strftime("%H:%M:%S"), "me", text), now.date())
    path = ws.state_dir / "serve" / "telegram.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"chats": {"42": slug}, "unanswered": {"42": slug}}), encoding="utf-8")


def _state_on_disk(ws) -> dict:
    return json.loads((ws.state_dir / "serve" / "telegram.json").read_text(encoding="utf-8"))


def test_a_burst_the_last_serve_left_unanswered_is_committed_and_answered_at_the_start(example_ws):
    _left_unanswered(example_ws, "alice", ["在吗", "有件事想问你"])
    model = FakeChat().enqueue("我在")
    served = Served(example_ws, model)
    served.finish()
    assert served.channel.sent == ["我在"] and "有件事想问你" in model.request("chat").prompt
    assert "telegram: answering what the last serve logged for alice but did not answer" in served.reports
    assert _state_on_disk(example_ws)["unanswered"] == {} and git(example_ws, "status", "--porcelain") == ""


def test_a_burst_left_for_someone_gone_since_is_said_unanswerable_and_forgotten(example_ws):
    _left_unanswered(example_ws, "alice", ["hello?"])
    state = example_ws.state_dir / "serve" / "telegram.json"
    state.write_text(json.dumps({"chats": {"42": "ghost"}, "unanswered": {"42": "ghost"}}), encoding="utf-8")
    served = Served(example_ws)
    served.finish()
    said, = served.channel.sent
    assert said.startswith("(Your last messages to ghost, sent before serve stopped, are saved but cannot be "
                           "answered: ")
    assert served.reports[0].startswith("telegram: the last serve's unanswered messages to ghost cannot be answered: ")
    assert _state_on_disk(example_ws)["unanswered"] == {}


def test_a_message_that_came_before_the_worker_started_answers_the_left_burst_with_it(example_ws):
    """The channels start before the worker: the new burst's one answer covers the old messages too."""
    _left_unanswered(example_ws, "alice", ["first, before the kill"])
    model = FakeChat().enqueue("both answered")
    served = Served(example_ws, model)
    served.say("second, after the restart")
    served.finish()
    assert served.channel.sent == ["both answered"] and model.purposes == ["chat"]
    assert "first, before the kill" in model.request("chat").prompt


def test_the_left_bursts_of_a_channel_not_served_now_wait_for_it(example_ws):
    """Only telegram is served this time: lark's unanswered chat is left for the serve that runs lark."""
    _left_unanswered(example_ws, "alice", ["hi"])
    lark = example_ws.state_dir / "serve" / "lark.json"
    lark.write_text(json.dumps({"chats": {"oc_1": "alice"}, "unanswered": {"oc_1": "alice"}}), encoding="utf-8")
    from heartcompass.gateway.state import ChannelState

    served = Served(example_ws, FakeChat().enqueue("telegram's answer"))
    served.gw.states["lark"] = ChannelState(lark)
    served.finish()
    assert served.channel.sent == ["telegram's answer"]
    assert json.loads(lark.read_text(encoding="utf-8"))["unanswered"] == {"oc_1": "alice"}


def test_a_channel_not_served_now_does_not_keep_the_next_ones_left_bursts_unanswered(example_ws):
    """Whatever order the states come in: lark's (not served) is skipped, telegram's still answered."""
    from heartcompass.gateway.state import ChannelState

    _left_unanswered(example_ws, "alice", ["hi"])
    lark = example_ws.state_dir / "serve" / "lark.json"
    lark.write_text(json.dumps({"chats": {"oc_1": "alice"}, "unanswered": {"oc_1": "alice"}}), encoding="utf-8")
    served = Served(example_ws, FakeChat().enqueue("telegram's answer"))
    served.gw.states = {"lark": ChannelState(lark), "telegram": served.state}
    served.finish()
    assert served.channel.said == [("42", "telegram's answer")]
    assert json.loads(lark.read_text(encoding="utf-8"))["unanswered"] == {"oc_1": "alice"}


def test_a_chat_written_to_before_the_worker_started_does_not_keep_another_chats_left_burst_unanswered(example_ws):
    _left_unanswered(example_ws, "alice", ["before the kill"])
    path = example_ws.state_dir / "serve" / "telegram.json"
    path.write_text(json.dumps({"chats": {"42": "alice", "43": "alice"}, "unanswered": {"42": "alice", "43": "alice"}}),
                    encoding="utf-8")
    served = Served(example_ws, FakeChat().enqueue("an answer", "another answer"), owners="42,43")
    served.say("after the restart")                     # 42's new burst answers its old messages with it
    served.finish()
    assert sorted(chat for chat, _ in served.channel.said) == ["42", "43"]
    assert {text for _, text in served.channel.said} == {"an answer", "another answer"}
    assert _state_on_disk(example_ws)["unanswered"] == {}


def test_a_left_burst_that_cannot_be_answered_or_breaks_does_not_keep_the_next_chats_unanswered(example_ws):
    """Someone gone since is said unanswerable, a bug is said to the operator (the logs stay for the next
    command), and the next chat's left burst is answered all the same."""
    _left_unanswered(example_ws, "alice", ["hi"])
    path = example_ws.state_dir / "serve" / "telegram.json"
    path.write_text(json.dumps({"chats": {}, "unanswered": {"41": "ghost", "42": "alice", "43": "alice"}}),
                    encoding="utf-8")
    served = Served(example_ws, FakeChat().enqueue("answered"), owners="41,42,43")
    real_open = served.gw.open

    def open_(conv, person):
        if conv.chat == "42":
            raise ValueError("a bug")
        real_open(conv, person)

    served.gw.open = open_
    served.finish()
    assert [chat for chat, _ in served.channel.said] == ["41", "43"] and served.channel.said[1] == ("43", "answered")
    assert "telegram: the last serve's unanswered messages to alice: ValueError: a bug" in served.reports


def test_an_answer_clears_the_chat_only_when_nothing_more_came_meanwhile(example_ws):
    served = Served(example_ws)
    served.say("/switch alice")
    served.say("more")                      # logged, waiting for quiet
    conv = served.gw.conversation("telegram", "42")
    recovery.answered(served.gw, conv)
    assert served.state.unanswered_chats() == [("42", "alice")]   # still to answer
    conv.burst.take()
    recovery.answered(served.gw, conv)
    assert served.state.unanswered_chats() == []
    assert _state_on_disk(example_ws)["unanswered"] == {}          # saved at once
    recovery.forget(served.gw, conv)                                # nothing waiting: nothing to save
    assert served.reports == []


def test_a_state_that_cannot_be_saved_after_an_answer_is_reported(example_ws, monkeypatch):
    served = Served(example_ws)
    served.state.await_answer("42", "alice")

    def full(durable=False):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(served.state, "save", full)
    recovery.forget(served.gw, served.gw.conversation("telegram", "42"))
    assert served.reports == ["telegram: state not saved: [Errno 28] No space left on device"]
    assert served.state.unanswered_chats() == []


def test_the_owners_lines_are_in_the_log_even_when_the_held_record_cannot_be_written(example_ws, monkeypatch):
    """A full disk under <channel>.held: the message is logged all the same (a kill now may log it twice, never lose it)."""
    served = Served(example_ws)
    served.say("/switch alice")

    def full(held):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(served.state, "hold", full)
    served.say("still logged")
    assert "still logged" in [e.text for e in log_entries(example_ws, "alice")]
    assert served.reports == ["alice: state not saved before logging a message: [Errno 28] No space left on device"]


# -- the message the last serve was logging when killed ----------------------------------------------------------

def _held_in(ws, slug: str, log: str, text: str = "到了吗") -> Served:
    """A serve killed just after logging `text` into `log` (relative to the workspace), its held record naming
    `slug` and that log; the next serve's gateway, its settling (before any delivery) left to the test."""
    from heartcompass.gateway.state import Held, fingerprint

    served = Served(ws)
    now = clock.now(ws)
    path = ws.root / log
    path.parent.mkdir(parents=True, exist_ok=True)
    dailylog.append(path, dailylog.Entry(now.strftime("%H:%M:%S"), "me", text), now.date())
    served.state.hold(Held("42:7", "42", slug, log, 0, fingerprint(dailylog.as_logged(text))))
    return served


def test_a_message_logged_before_the_kill_is_marked_handled_and_not_logged_twice(example_ws):
    served = _held_in(example_ws, "alice", f"people/alice/logs/{clock.now(example_ws).date()}.md")
    recovery.settle(served.gw)
    assert served.state.is_seen("42:7") and served.state.interrupted() is None
    assert served.reports == ["telegram: a message the last serve logged and did not mark handled is not logged twice"]
    assert served.state.unanswered_chats() == [("42", "alice")]


@pytest.mark.parametrize("slug, log", [
    ("", "people/logs/2026-12-07.md"), (".", "people/logs/2026-12-07.md"), ("..", "people/../logs/2026-12-07.md"),
    ("alice/logs", "people/alice/logs/logs/2026-12-07.md"), ("alice", "people/alice/logs/2026-12-07.txt"),
    ("alice", "people/alice/2026-12-07.md"), ("alice", "people/bob/logs/2026-12-07.md")])
def test_a_held_record_naming_anything_but_that_persons_own_day_log_is_let_go_unread(example_ws, slug, log):
    """A state file edited or broken by hand: its record reads nothing outside the person's logs/ (the line is
    there, but the next delivery logs it again rather than trust the record)."""
    served = _held_in(example_ws, slug, log)
    assert served.state.interrupted() is not None and (example_ws.root / log).is_file()
    recovery.settle(served.gw)
    assert not served.state.is_seen("42:7") and served.state.interrupted() is None and served.reports == []


def test_a_serve_killed_while_logging_the_days_first_message_leaves_the_next_one_all_it_needs(example_ws):
    """The held record names the message, its chat, the person, the day log and its size before the line (none
    yet: 0) and the line's fingerprint: the next serve marks it handled and answers that chat, not logging it twice."""
    from heartcompass.gateway.state import Held, fingerprint

    served = Served(example_ws)
    served.say("/switch alice")
    session = served.gw.session(served.gw.conversation("telegram", "42"))
    log = example_ws.people_dir / "alice" / "logs" / f"{session.now().date()}.md"
    log.unlink(missing_ok=True)
    recovery.hold(served.gw, served.state, "42:9", "42", session, "到家了")
    assert served.state.interrupted() == Held("42:9", "42", "alice", example_ws.rel(log), 0,
                                             fingerprint(dailylog.as_logged("到家了")))
    served.state.save()
    after = Served(example_ws)                              # killed here: the next serve settles at its start
    assert after.state.is_seen("42:9") and after.state.unanswered_chats() == [("42", "alice")]
    assert [e.text for e in dailylog.load(log)].count("到家了") == 1


def test_a_message_held_at_midnight_goes_into_the_day_log_its_record_names(example_ws):
    """The time is read once: a message logged as the day turns is in the log the held record names, so a kill
    right after is settled from the right file."""
    import datetime as dt

    served = Served(example_ws)
    served.say("/switch alice")
    session = served.gw.session(served.gw.conversation("telegram", "42"))
    ticks = iter([dt.datetime(2026, 12, 7, 23, 59, 59), dt.datetime(2026, 12, 8, 0, 0, 1)])
    session.time_source = lambda: next(ticks, dt.datetime(2026, 12, 8, 0, 0, 2))
    recovery.hold(served.gw, served.state, "42:9", "42", session, "晚安")
    held = served.state.interrupted()
    assert held.log == "people/alice/logs/2026-12-07.md"
    assert ("me", "晚安") in [(e.speaker, e.text) for e in dailylog.load(example_ws.root / held.log)]
