from __future__ import annotations

import json

from conftest import Runner, log_entries, subjects
from fakes import FakeStatusError, Partial


def test_one_message_reply_is_printed_logged_and_committed(example_cli: Runner, fake_llm):
    fake_llm.enqueue("hey!! how are you")
    result = example_cli("chat", "alice", "-m", "hi Alice")
    assert "hey!! how are you" in result.output
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.speaker, e.text) for e in entries] == [("me", "hi Alice"), ("persona", "hey!! how are you")]
    assert subjects(example_cli.ws)[0].startswith("chat(alice): 2 messages on ")


def test_multi_message_replies_are_split_and_logged_one_by_one(example_cli: Runner, fake_llm):
    fake_llm.enqueue("haha wait—\n|||\nok but hear me out\n|||\n你又熬夜了吧?")
    result = example_cli("chat", "alice", "-m", "guess what", "--json")
    data = json.loads(result.output)
    assert data["replies"] == ["haha wait—", "ok but hear me out", "你又熬夜了吧?"]
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "persona"] == data["replies"]


def test_the_prompt_holds_every_section_and_the_history(example_cli: Runner, fake_llm):
    fake_llm.enqueue("first reply", "second reply")
    example_cli("chat", "alice", "-m", "hello")
    example_cli("chat", "alice", "-m", "remember Kyoto?")
    system = fake_llm.request("chat", 0).system
    for needle in ("You are Alice Chen", "simulated", "Wednesday" if "Wednesday" in system else "Now:",
                   "## Who you are (from PROFILE.md)", "oolong tea", "## Known facts (true)",
                   "Moves to Kyoto in January", "## Said in earlier simulated chats", "pour-over coffee",
                   "## Things that happened", "Hiked Mount Takao", "## People in your life",
                   "close friend since university", "friend of", "ENFP"):
        assert needle in system, needle
    second = fake_llm.request("chat", 1).messages
    assert [m.type for m in second] == ["system", "human", "ai", "human"]
    assert [m.content for m in second[1:]] == ["hello", "first reply", "remember Kyoto?"]


def test_piped_lines_are_sent_one_by_one(example_cli: Runner, fake_llm):
    fake_llm.enqueue("one", "two")
    result = example_cli("chat", "alice", input="first\n\nsecond\n")
    assert "one" in result.output and "two" in result.output
    assert [e.text for e in log_entries(example_cli.ws, "alice") if e.speaker == "me"] == ["first", "second"]


def test_retryable_errors_are_retried_then_succeed(example_cli: Runner, fake_llm):
    fake_llm.enqueue(TimeoutError("slow"), FakeStatusError(503), "finally")
    assert "finally" in example_cli("chat", "alice", "-m", "hi").output
    assert len(fake_llm.purposes) == 3


def test_errors_give_a_clear_message_and_keep_the_users_message(example_cli: Runner, fake_llm):
    fake_llm.enqueue(*[FakeStatusError(429)] * 4)
    result = example_cli("chat", "alice", "-m", "are you there?", ok=False)
    assert result.exit_code == 1 and "rate limiting" in result.output and "/retry" not in result.output  # no /retry outside a chat
    assert "Traceback" not in result.output
    assert [(e.speaker, e.text) for e in log_entries(example_cli.ws, "alice")] == [("me", "are you there?")]


def test_non_retryable_error_is_not_retried(example_cli: Runner, fake_llm):
    fake_llm.enqueue(FakeStatusError(401))
    result = example_cli("chat", "alice", "-m", "hi", ok=False)
    assert result.exit_code == 1 and "refused the API key" in result.output
    assert len(fake_llm.purposes) == 1


def test_a_reply_cut_off_by_an_error_is_logged_as_such(example_cli: Runner, fake_llm):
    fake_llm.enqueue(Partial("I was going to say", ConnectionError("reset")))
    result = example_cli("chat", "alice", "-m", "tell me", ok=False)
    assert result.exit_code == 1
    last = log_entries(example_cli.ws, "alice")[-1]
    assert (last.speaker, last.text, last.tags) == ("persona", "I was going to say", ["cut off"])
    # the cut-off reply never reaches the next prompt; the question does
    fake_llm.enqueue("sorry, where was I")
    from heartcompass.talk.chat import ChatSession
    from heartcompass.store.people import resolve

    session = ChatSession(example_cli.ws, resolve(example_cli.ws, "alice"), fake_llm)
    assert [e.text for e in session.reply() if e.kind == "message"] == ["sorry, where was I"]
    assert fake_llm.request("chat", 1).turns == ["tell me"]  # the session's reply, after the cut-off one


def test_missing_key_names_the_variable_and_exits_1(example_cli: Runner):
    example_cli("config", "set", "llm.provider", "openai")
    result = example_cli("chat", "alice", "-m", "hi", ok=False)
    assert result.exit_code == 1 and "OPENAI_API_KEY" in result.output and ".env" in result.output
    assert log_entries(example_cli.ws, "alice") == []
    example_cli("config", "set", "llm.provider", "ark")
    result = example_cli("chat", "alice", "-m", "hi", ok=False)
    assert result.exit_code == 1 and "ARK_API_KEY" in result.output


def test_without_any_model_configured_it_says_what_to_set(example_cli: Runner):
    result = example_cli("chat", "alice", "-m", "hi", ok=False)
    assert result.exit_code == 1
    assert "OPENAI_API_KEY" in result.output and "llm.base_url" in result.output


def test_every_model_command_exits_1_without_a_key_and_2_only_for_usage_errors(example_cli: Runner):
    from garden_helpers import say

    say(example_cli.ws, "alice", "me", "hi")  # work for the gardener
    for args in (("chat", "alice", "-m", "hi"), ("coach", "alice", "hi"), ("tell", "alice", "She sings", "--yes"),
                 ("garden",), ("doctor", "--ping")):
        result = example_cli(*args, ok=False)
        assert result.exit_code == 1 and "OPENAI_API_KEY" in result.output, args
    assert example_cli("chat", "alice", "--no-such-option", ok=False).exit_code == 2  # click's usage error


def test_time_travel_uses_old_files_and_is_marked(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    from conftest import git

    before = git(ws, "rev-parse", "HEAD").strip()
    prof = ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text().replace("oolong tea", "matcha lattes"))
    git(ws, "commit", "-qam", "my own edit")
    fake_llm.enqueue("old me", "new me")
    example_cli("chat", "alice", "--as-of", before, "-m", "what do you drink?")
    then = fake_llm.request("chat", 0).system
    assert "oolong tea" in then and "matcha" not in then
    entries = log_entries(ws, "alice")
    assert all(any(t.startswith("as-of") for t in e.tags) for e in entries)
    assert "time travel" in subjects(ws)[0]
    example_cli("chat", "alice", "-m", "and now?")
    assert "matcha lattes" in fake_llm.request("chat", 1).system
    assert fake_llm.request("chat", 1).turns == ["and now?"]  # the time-travel turns stay out


def test_time_travel_by_date_before_the_workspace_existed(example_cli: Runner, fake_llm):
    result = example_cli("context", "alice", "--as-of", "2001-01-01", ok=False)
    assert result.exit_code == 1 and "no commit from 2001-01-01" in result.output


def test_splitter_streams_messages_without_trailing_whitespace():
    from heartcompass.talk.chat import Splitter

    sp = Splitter()
    events = []
    for piece in ["hel", "lo\n", "|", "|", "|\n", "sec", "ond |", "|| third", "\n"]:
        events += list(sp.feed(piece))
    events += list(sp.close())
    assert [e.text for e in events if e.kind == "message"] == ["hello", "second", "third"]
    assert "".join(e.text for e in events if e.kind == "delta") == "hellosecondthird"


class _ClosedAfterFirstLine:
    """stdout read by `head -1`: the first line goes through, then the reader is gone."""

    def __init__(self):
        self.text = ""

    def write(self, text: str) -> int:
        if "\n" in self.text:
            raise BrokenPipeError(32, "Broken pipe")
        self.text += text
        return len(text)

    def flush(self) -> None:
        if self.text.count("\n") > 1:
            raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stdout_keeps_the_whole_reply_commits_and_exits_quietly(example_cli: Runner, fake_llm,
                                                                          monkeypatch):
    from heartcompass.cli import chat_cmd
    from heartcompass.cli.common import LazyConsole

    screen = _ClosedAfterFirstLine()
    monkeypatch.setattr(chat_cmd, "out", LazyConsole(file=screen, highlight=False, soft_wrap=True))
    fake_llm.enqueue("hey, it's bob!\n|||\nyou said: hi\n|||\nI know: nothing yet", "never asked")
    result = example_cli("chat", "alice", input="hi\nsecond message\n", ok=False)
    assert result.exit_code == 0 and "Error" not in result.output and "Traceback" not in result.output
    assert screen.text.startswith("Alice Chen: hey, it's bob!")
    entries = log_entries(example_cli.ws, "alice")
    assert [(e.speaker, e.text, e.tags) for e in entries] == [
        ("me", "hi", []), ("persona", "hey, it's bob!", []), ("persona", "you said: hi", []),
        ("persona", "I know: nothing yet", [])]  # nothing cut off, and no second message sent to nobody
    assert subjects(example_cli.ws)[0].startswith("chat(alice): 4 messages")


def test_no_model_is_made_for_a_note_a_bad_as_of_or_a_broken_file(example_cli: Runner, monkeypatch):
    from heartcompass.llm import providers as llm

    made = []
    monkeypatch.setattr(llm, "make_chat_model", lambda ws, settings: made.append(1))  # the provider's import
    example_cli("chat", "alice", "-m", "/note She sings in a choir")  # no key needed either
    assert log_entries(example_cli.ws, "alice")[-1].text == "She sings in a choir"
    assert "No commit 'someday'" in example_cli("chat", "alice", "--as-of", "someday", "-m", "hi", ok=False).output
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text().replace("relation: friend", "relation: [broken"))
    assert example_cli("chat", "alice", "-m", "hi", ok=False).exit_code == 1
    assert made == []
