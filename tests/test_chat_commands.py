"""Slash commands, reasoning display and the provider factory."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from conftest import Runner, log_entries, subjects
from heartcompass.llm import providers as llm
from heartcompass.cli.chat_cmd import ChatView
from heartcompass.errors import ConfigError, MissingKeyError
from heartcompass.memory.proposal import trust
from heartcompass.store.people import resolve


@pytest.fixture
def view(example_ws, fake_llm):
    v = ChatView(example_ws, llm.settings(example_ws), fake_llm, None, delays=False, as_json=False)
    v.open(resolve(example_ws, "alice"))
    return v


def test_note_is_logged_as_a_trusted_entry(view, example_ws, capsys):
    view.command("/note She starts in Kyoto on January 6")
    entry = log_entries(example_ws, "alice")[-1]
    assert (entry.speaker, entry.text) == ("note", "She starts in Kyoto on January 6")
    assert trust.source_of(entry) is trust.Source.NOTE and trust.may_support(trust.Source.NOTE, trust.Claim.FACT)
    view.command("/note")
    assert "needs the fact" in capsys.readouterr().err


def test_retry_resends_the_last_message(view, fake_llm, example_ws):
    fake_llm.enqueue(TimeoutError(), TimeoutError(), TimeoutError(), TimeoutError(), "here now")
    view.send("hello?")
    assert [e.speaker for e in log_entries(example_ws, "alice")] == ["me"]
    view.command("/retry")
    assert [(e.speaker, e.text) for e in log_entries(example_ws, "alice")] == [("me", "hello?"),
                                                                               ("persona", "here now")]
    assert fake_llm.purposes == ["chat"] * 5  # four timed out, then /retry's
    assert fake_llm.request("chat", 4).turns == ["hello?"]


@pytest.mark.parametrize("conversing", [True, False])
def test_the_retry_hint_only_where_retry_exists(example_ws, fake_llm, capsys, conversing):
    """An error in the typed conversation suggests /retry; after -m or piped
    lines, where no /retry can follow, it does not."""
    v = ChatView(example_ws, llm.settings(example_ws), fake_llm, None, delays=False, as_json=False,
                 conversing=conversing)
    v.open(resolve(example_ws, "alice"))
    fake_llm.enqueue(TimeoutError(), TimeoutError(), TimeoutError(), TimeoutError())
    v.send("hello?")
    assert ("/retry sends your last message again" in capsys.readouterr().err) == conversing


def test_retry_with_nothing_sent_says_so(view, capsys):
    view.command("/retry")
    assert "no message of yours" in capsys.readouterr().err


def test_retry_after_a_reply_asks_for_another_answer(view, fake_llm):
    fake_llm.enqueue("first answer", "second answer")
    view.send("what should I cook?")
    view.command("/retry")
    assert fake_llm.request("chat", 1).turns == ["what should I cook?"]  # /retry's


def test_new_starts_fresh_short_term_history(view, fake_llm):
    fake_llm.enqueue("one", "two")
    view.send("first")
    view.command("/new")
    view.send("second")
    assert fake_llm.request("chat", 1).turns == ["second"]


def test_switch_commits_and_changes_person(view, example_ws, fake_llm):
    fake_llm.enqueue("hi from alice", "hi from me")
    view.send("hey")
    view.command("/switch me")
    assert subjects(example_ws)[0].startswith("chat(alice)")
    view.send("hello me")
    assert "reflection partner" in fake_llm.request("chat", 1).system
    assert "reflection partner" not in fake_llm.request("chat", 0).system
    assert view.name == "Reflection"  # its replies are not labelled as if they were the user's
    view.close()
    assert subjects(example_ws)[0].startswith("chat(me)")


def test_context_help_exit_and_unknown(view, capsys):
    view.command("/context")
    assert "system prompt" in capsys.readouterr().out
    view.command("/help")
    assert "/note TEXT" in capsys.readouterr().out
    assert view.command("/bogus") == "error"
    assert "Unknown command /bogus." in capsys.readouterr().err
    assert view.command("/exit") == "exit"


def test_reasoning_is_shown_dimmed_before_the_reply(view, fake_llm, capsys):
    fake_llm.enqueue(AIMessage(content="Kyoto!", additional_kwargs={"reasoning_content": "She asked where."}))
    view.send("where are you moving?")
    out = capsys.readouterr().out
    assert out.index("She asked where.") < out.index("Kyoto!")
    assert [e.text for e in log_entries(view.ws, "alice") if e.speaker == "persona"] == ["Kyoto!"]


def test_settings_env_overrides_and_model_option(example_ws, monkeypatch):
    monkeypatch.setenv("HEARTCOMPASS_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("HEARTCOMPASS_LLM_MODEL", "qwen2.5")
    s = llm.settings(example_ws)
    assert (s.provider, s.model, s.base_url) == ("openai-compatible", "qwen2.5", "http://127.0.0.1:9/v1")
    assert llm.settings(example_ws, model="llama3").model == "llama3"
    monkeypatch.setenv("HEARTCOMPASS_LLM_PROVIDER", "nope")
    with pytest.raises(ConfigError):
        llm.settings(example_ws)


def test_factory_builds_each_provider_without_network(example_ws, monkeypatch):
    from langchain_openai import ChatOpenAI

    from heartcompass.llm.ark_reasoning import ArkReasoningChat

    (example_ws.root / ".env").write_text("# keys\nOPENAI_API_KEY='sk-from-dotenv'\nexport ARK_API_KEY=ark-key\n")
    example_ws.config_path.write_text(example_ws.config_path.read_text().replace('provider = "auto"',
                                                                                  'provider = "openai"'))
    example_ws.reload_config()
    model = llm.make_chat_model(example_ws, llm.settings(example_ws))
    assert isinstance(model, ChatOpenAI) and model.openai_api_key.get_secret_value() == "sk-from-dotenv"
    monkeypatch.setenv("HEARTCOMPASS_LLM_PROVIDER", "ark")
    ark = llm.make_chat_model(example_ws, llm.settings(example_ws))
    assert isinstance(ark, ChatOpenAI) and ark.openai_api_base == llm.ARK_BASE_URL
    reasoning = llm.make_chat_model(example_ws, llm.LLMSettings("ark", "doubao-seed", "", 0.7, 30, 1, True))
    assert isinstance(reasoning, ArkReasoningChat) and reasoning.api_key == "ark-key"
    monkeypatch.setenv("HEARTCOMPASS_LLM_PROVIDER", "openai-compatible")
    monkeypatch.setenv("HEARTCOMPASS_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    local = llm.make_chat_model(example_ws, llm.settings(example_ws))
    assert isinstance(local, ChatOpenAI) and local.openai_api_base == "http://127.0.0.1:9/v1"


def test_auto_picks_ark_when_only_its_key_is_there(example_ws, monkeypatch):
    monkeypatch.setenv("ARK_API_KEY", "k")
    assert llm.settings(example_ws).provider == "ark"


def test_missing_key_is_raised_before_any_request(example_ws):
    with pytest.raises(MissingKeyError) as info:
        llm.check_ready(example_ws, llm.LLMSettings("openai", "gpt", "", 0.7, 30, 1, False))
    assert info.value.exit_code == 1 and "OPENAI_API_KEY" in info.value.message


def test_ark_reasoning_model_streams_reasoning_from_the_sdk(monkeypatch):
    from types import SimpleNamespace as NS

    from heartcompass.llm.ark_reasoning import ArkReasoningChat

    chunks = [NS(choices=[NS(delta=NS(content="", reasoning_content="thinking..."))]),
              NS(choices=[NS(delta=NS(content="hi", reasoning_content=None))]), NS(choices=[])]
    sent = {}

    class FakeArk:
        def __init__(self, **kw):
            sent["client"] = kw
            self.chat = NS(completions=NS(create=lambda **kw: sent.setdefault("request", kw) and iter(chunks)))

    monkeypatch.setattr("volcenginesdkarkruntime.Ark", FakeArk)
    model = ArkReasoningChat(model="doubao", api_key="k", base_url=llm.ARK_BASE_URL)
    pieces = list(model.stream("hello"))
    assert pieces[0].additional_kwargs == {"reasoning_content": "thinking..."}
    assert "".join(str(p.content) for p in pieces) == "hi"
    assert sent["request"]["stream"] is True and sent["request"]["messages"][-1]["content"] == "hello"
    assert model.invoke("hello").content == "hi"


def test_doctor_reports_each_check(example_cli: Runner, fake_llm):
    result = example_cli("doctor", ok=False)
    assert result.exit_code == 1
    assert "✓ workspace" in result.output and "✓ files" in result.output and "✗ model" in result.output
    example_cli("config", "set", "llm.base_url", "http://127.0.0.1:9/v1")
    fake_llm.enqueue("pong")
    ok = example_cli("doctor", "--ping")
    assert "✓ ping" in ok.output and "pong" in ok.output


def test_doctor_names_a_broken_file(example_cli: Runner):
    path = example_cli.ws.people_dir / "alice" / "EVENTS.md"
    path.write_text(path.read_text() + "- 2026-02-31 · nope\n")
    result = example_cli("doctor", ok=False)
    assert "✗ files" in result.output and "EVENTS.md:" in result.output


def test_slash_commands_work_with_m_and_piped_lines(example_cli, fake_llm):
    from conftest import log_entries

    example_cli("chat", "alice", "-m", "/note She learns the cello")
    assert not fake_llm.purposes
    fake_llm.enqueue("nice!")
    example_cli("chat", "alice", input="/note She has a cat called Miso\nhello there\n")
    entries = [(e.speaker, e.text) for e in log_entries(example_cli.ws, "alice")]
    assert ("note", "She learns the cello") in entries and ("note", "She has a cat called Miso") in entries
    assert ("me", "hello there") in entries and not any(t.startswith("/note") for _, t in entries)
    result = example_cli("chat", "alice", "-m", "/note", ok=False)
    assert result.exit_code == 1 and "/note needs" in result.output


def _new_entry_texts(ws, slug="alice"):
    from heartcompass.memory.consolidation import State
    from heartcompass.memory.new_entries import EntryCounts, new_entries

    person = resolve(ws, slug)
    items, _ = new_entries(person, State(ws, person), EntryCounts(ws))
    return [i.entry.text for i in items]


def test_retry_after_a_reply_leaves_the_replaced_one_out_of_history_and_garden(view, fake_llm, example_ws):
    fake_llm.enqueue("first answer", "second answer", "you're welcome")
    view.send("what should I cook?")
    view.command("/retry")
    view.send("thanks")
    assert fake_llm.request("chat", 2).turns == ["what should I cook?", "second answer", "thanks"]
    entries = log_entries(example_ws, "alice")
    assert [e.speaker for e in entries] == ["me", "persona", "mark", "persona", "me", "persona"]
    assert entries[2].tags == ["supersedes 2"] and "first answer" == entries[1].text  # the log keeps it
    assert _new_entry_texts(example_ws) == ["what should I cook?", "second answer", "thanks", "you're welcome"]


def test_retry_after_ctrl_c_drops_the_messages_already_shown(view, fake_llm, example_ws):
    from fakes import Partial

    fake_llm.enqueue(Partial("part one ||| part tw", KeyboardInterrupt()), "a fresh answer", "ok")
    view.send("tell me a story")
    assert [(e.speaker, e.tags) for e in log_entries(example_ws, "alice")][1:] == [
        ("persona", []), ("persona", ["cut off"])]
    view.command("/retry")
    view.send("and then?")
    assert fake_llm.request("chat", 2).turns == ["tell me a story", "a fresh answer", "and then?"]
    assert _new_entry_texts(example_ws) == ["tell me a story", "a fresh answer", "and then?", "ok"]


def test_a_failed_retry_keeps_the_old_reply(view, fake_llm, example_ws):
    fake_llm.enqueue("the only answer", *[TimeoutError()] * 4, "next")
    view.send("hi")
    view.command("/retry")
    assert "mark" not in [e.speaker for e in log_entries(example_ws, "alice")]
    view.send("still there?")
    assert fake_llm.request("chat", 5).turns == ["hi", "the only answer", "still there?"]  # after 1 + 4


def test_typing_shows_while_waiting_for_the_first_token(example_ws, fake_llm, monkeypatch):
    import io

    from rich.console import Console

    from heartcompass.cli import chat_cmd

    screen = io.StringIO()
    monkeypatch.setattr(chat_cmd, "out", Console(file=screen, force_terminal=True, width=80))
    v = ChatView(example_ws, llm.settings(example_ws), fake_llm, None, delays=False, as_json=False)
    v.open(resolve(example_ws, "alice"))
    fake_llm.enqueue("hello there")
    v.send("hi")
    shown = screen.getvalue()
    assert "Alice Chen is typing…" in shown and shown.index("is typing") < shown.index("hello")


def test_note_with_json_prints_json_and_unknown_commands_say_so(example_cli, fake_llm):
    import json as _json

    result = example_cli("chat", "alice", "-m", "/note She sings in a choir", "--json")
    assert _json.loads(result.output) == {"person": "alice", "note": "She sings in a choir"}
    result = example_cli("chat", "alice", "-m", "/bogus", ok=False)  # a mistake: not a success
    assert result.exit_code == 1
    assert "Unknown command /bogus." in result.output and "/note TEXT" in result.output


def _ctrl_c_at_the_terminal() -> None:
    """What a Ctrl-C does besides interrupting us: SIGINT to every process of
    the terminal's foreground group, here our child processes in our group."""
    import os
    import signal
    from pathlib import Path

    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and int(fields[2]) == os.getpgrp():
            os.kill(int(stat.parent.name), signal.SIGINT)


@pytest.mark.skipif(not __import__("pathlib").Path("/proc/self/stat").exists(), reason="needs /proc")
def test_every_person_chatted_with_is_committed_after_switch_ctrl_c_and_retry(example_ws, fake_llm):
    from fakes import Partial

    from conftest import git

    v = ChatView(example_ws, llm.settings(example_ws), fake_llm, None, delays=False, as_json=False)
    v.open(resolve(example_ws, "me"))
    fake_llm.enqueue("hi", Partial("the party was ||| lovely and", KeyboardInterrupt()), "it was great")
    v.send("你好")
    v.command("/switch 小爱")
    assert subjects(example_ws)[0].startswith("chat(me)")
    v.send("how was the farewell party?")
    _ctrl_c_at_the_terminal()
    v.command("/retry")
    v.close()
    assert subjects(example_ws)[0].startswith("chat(alice): 4 messages"), subjects(example_ws)[0]
    assert git(example_ws, "status", "--porcelain") == ""


def test_ctrl_c_while_the_model_is_being_made_keeps_the_typed_message(example_ws, fake_llm):
    """The provider is made in the background while the first message is
    typed; a Ctrl-C before it is ready used to lose that message, and /retry
    then answered the message before it."""
    def interrupted():
        raise KeyboardInterrupt  # the user's Ctrl-C while langchain is still being imported

    v = ChatView(example_ws, llm.settings(example_ws), None, None, delays=False, as_json=False,
                 make_model=interrupted, conversing=True)
    v.open(resolve(example_ws, "alice"))
    assert v.send("did you get the keys?")
    assert [(e.speaker, e.text) for e in log_entries(example_ws, "alice")] == [("me", "did you get the keys?")]
    v.make_model = lambda: fake_llm
    fake_llm.enqueue("yes, under the mat")
    v.command("/retry")
    v.close()
    entries = log_entries(example_ws, "alice")
    assert [(e.speaker, e.text) for e in entries] == [("me", "did you get the keys?"),
                                                       ("persona", "yes, under the mat")]
    assert fake_llm.request("chat").turns == ["did you get the keys?"]  # the only request: /retry's
