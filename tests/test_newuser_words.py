"""What a new user meets when something goes wrong: words that say what
happened and what to try (issue 21), over the real client and the stub server."""

from __future__ import annotations

import base64
import json

import pytest

from conftest import Runner
from stub_server import start

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


@pytest.fixture
def stub(example_cli: Runner):
    server, state = start()
    example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    example_cli("config", "set", "llm.model", "stub")
    yield state
    server.shutdown()


def _note(ws, text):
    import datetime as dt

    from heartcompass.formats import dailylog

    day = dt.date(2026, 12, 1)
    dailylog.append(dailylog.log_path(ws.people_dir / "alice", day), dailylog.Entry("20:00:00", "note", text), day)


def test_a_slow_endpoint_is_reported_as_a_timeout_naming_llm_timeout(example_cli: Runner, stub):
    example_cli("config", "set", "llm.timeout", "0.3")
    example_cli("config", "set", "llm.max_retries", "0")
    stub.delay = 1.5
    result = example_cli("chat", "alice", "-m", "hello", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "timed out" in result.output and "llm.timeout" in result.output
    assert "Is it running?" not in result.output


def test_a_non_json_answer_says_so_without_parser_internals(example_cli: Runner, stub):
    _note(example_cli.ws, "She starts in Kyoto on January 6")
    stub.replies = ["Sure! Here are the facts: she moves.", "I think she moves to Kyoto."]
    result = example_cli("garden", ok=False)
    assert "not the JSON asked for" in result.output and "llm.model" in result.output
    assert "http" not in result.output.split("not the JSON")[1] and "OutputParser" not in result.output
    assert "JSONDecodeError" not in result.output


def test_the_stub_server_answers_a_message_with_images(example_cli: Runner, stub, tmp_path):
    """tell --image sends content as a list of parts; README recommends the stub for trying it."""
    shot = tmp_path / "chat.png"
    shot.write_bytes(PNG)
    result = example_cli("tell", "alice", "--image", str(shot), "what she sent me", "--yes")
    assert "Traceback" not in result.output
    sent = stub.request("garden")["messages"][-1]["content"]  # a tell reads as garden over HTTP
    assert isinstance(sent, list) and sent[1]["type"] == "image_url"


@pytest.mark.parametrize("args", [["log"], ["context", "alice"], ["diff", "alice", "ROOT"], ["config", "show"],
                                  ["graph"]])
def test_output_piped_to_a_reader_that_stops_early_is_no_error(example_cli: Runner, args):
    """`heartcompass log | head -1`: the reader went away, the command exits 0 with nothing on stderr."""
    import os
    import subprocess
    import sys

    from conftest import git

    ws = example_cli.ws
    for i in range(30):  # enough output to outgrow the pipe's buffer
        example_cli("person", "add", f"Friend {i}", "--relation", "friend", "--about", "x " * 200)
    root = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    args = [root if a == "ROOT" else a for a in args]
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(ws.root), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, stderr
    assert "Traceback" not in stderr and "Error" not in stderr


def test_a_mistyped_person_gets_a_did_you_mean(example_cli: Runner):
    result = example_cli("person", "show", "alcie", ok=False)  # a typo ("alic", a start of a name, resolves)
    assert result.exit_code == 1 and "did you mean 'alice'" in result.output.lower()
    example_cli("person", "add", "王小明", "--relation", "friend", "--alias", "小明同学")
    result = example_cli("person", "show", "小名同学", ok=False)
    assert "Did you mean" in result.output and "小明同学" in result.output
    far = example_cli("person", "show", "zzzzqq", ok=False)
    assert far.exit_code == 1 and "Did you mean" not in far.output


def test_a_mistyped_setting_gets_a_did_you_mean_and_a_bad_value_no_list_of_keys(example_cli: Runner):
    before = example_cli.ws.config_path.read_bytes()
    for args in (["config", "set", "llm.modle", "x"], ["config", "get", "llm.modle"], ["config", "unset", "llm.modle"]):
        result = example_cli(*args, ok=False)
        assert result.exit_code == 1 and "Did you mean llm.model?" in result.output, args
        assert "Valid keys" not in result.output
    bad = example_cli("config", "set", "llm.timeout", "soon", ok=False)
    assert bad.exit_code == 1 and "llm.timeout expects" in bad.output
    assert "user.timezone" not in bad.output and "Valid keys" not in bad.output
    assert example_cli.ws.config_path.read_bytes() == before


def test_garden_does_not_say_gardened_when_the_model_kept_nothing(alice: Runner, fake_llm):
    from garden_helpers import proposal, say

    say(alice.ws, "alice", "me", "ok haha")
    fake_llm.enqueue(proposal(summary="small talk", nothing_worth_keeping=True))
    result = alice("garden")
    assert "gardened" not in result.output and "nothing kept" in result.output
    row = next(r for r in json.loads(alice("garden", "--json").output) if r["slug"] == "alice")
    assert row["status"] == "up to date"  # the entries were read: not sent again
    say(alice.ws, "alice", "note", "她下个月搬去京都", time="21:00:00")
    fake_llm.enqueue(proposal(new_facts=[{"text": "她下个月搬去京都", "evidence": ["L1"]}]))
    assert "gardened" in alice("garden").output


def test_a_second_self_person_is_refused_and_doctor_reports_one(example_cli: Runner):
    result = example_cli("person", "add", "小王", "--relation", "self", ok=False)
    assert result.exit_code == 1 and "people/me is already you" in result.output and "Traceback" not in result.output
    assert not (example_cli.ws.people_dir / "小王").exists()
    assert "✗ self" not in example_cli("doctor", ok=False).output
    prof = example_cli.ws.people_dir / "alice" / "PROFILE.md"  # a second self made by hand
    prof.write_text(prof.read_text(encoding="utf-8").replace("relation: friend", "relation: self"), encoding="utf-8")
    doctor = example_cli("doctor", ok=False)
    assert "✗ self" in doctor.output and "alice" in doctor.output.split("✗ self")[1]


def test_chat_as_of_a_future_date_is_refused(example_cli: Runner, fake_llm):
    import datetime as dt

    later = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    for args in (["chat", "alice", "-m", "hi", "--as-of", later], ["context", "alice", "--as-of", later]):
        result = example_cli(*args, ok=False)
        assert result.exit_code == 1 and "in the future" in result.output and "Traceback" not in result.output
    assert fake_llm.purposes == []


def test_one_ctrl_c_in_coach_follow_stops_at_once(example_cli: Runner, fake_llm, monkeypatch):
    """Ctrl-C at 'What did you reply?' ends the conversation; it is not asked for a second time."""
    import prompt_toolkit

    from stub_server import structured_reply

    asked: list[str] = []

    def prompt(text):
        asked.append(text)
        raise KeyboardInterrupt

    monkeypatch.setattr("heartcompass.cli.coach_cmd.interactive", lambda: True)
    monkeypatch.setattr(prompt_toolkit, "prompt", prompt)
    monkeypatch.setattr("heartcompass.cli.coach_cmd._confirm", lambda q: False)
    advice = structured_reply("Advice", {"messages": [{"role": "system", "content": "reply to Alice. You know"},
                                                      {"role": "user", "content": "我好累"}]})
    fake_llm.enqueue(advice)
    result = example_cli("coach", "alice", "我好累", "--follow")
    assert len(asked) == 1 and asked[0].startswith("What did you reply?")
    assert "Stopped." in result.output and "Traceback" not in result.output


def test_undo_of_a_garden_commit_hands_its_entries_back_to_the_gardener(alice: Runner, fake_llm):
    import shutil

    from garden_helpers import proposal, say

    ws = alice.ws
    say(ws, "alice", "note", "她下个月搬去京都")
    fake_llm.enqueue(proposal(new_facts=[{"text": "她下个月搬去京都", "evidence": ["L1"]}]))
    alice("garden")
    memory = (ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    assert "京都" in memory
    undone = alice("undo")
    assert "go back to the gardener" in undone.output
    assert "京都" not in (ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    fake_llm.enqueue(proposal(new_facts=[{"text": "她下个月搬去京都", "evidence": ["L1"]}]))
    again = alice("garden", "--json")
    row = next(r for r in json.loads(again.output) if r["slug"] == "alice")
    assert row["status"] == "gardened" and row["entries"] == 1 and "京都" in fake_llm.request("garden", 1).prompt
    # lost local state is rebuilt from git the same way: undo again, then drop the state
    alice("undo")
    shutil.rmtree(ws.state_dir / "consolidated")
    fake_llm.enqueue(proposal(summary="again", nothing_worth_keeping=True))
    row = next(r for r in json.loads(alice("garden", "--json").output) if r["slug"] == "alice")
    assert row["entries"] == 1


def test_undo_of_that_undo_marks_the_entries_read_again(alice: Runner, fake_llm):
    from garden_helpers import proposal, say

    say(alice.ws, "alice", "note", "She starts in Kyoto on January 6")
    fake_llm.enqueue(proposal(new_facts=[{"text": "She starts in Kyoto on January 6", "evidence": ["L1"]}]))
    alice("garden")
    alice("undo")
    alice("undo")  # the garden's change is back: so is its record of what it read
    assert "Kyoto" in (alice.ws.people_dir / "alice" / "MEMORY.md").read_text(encoding="utf-8")
    row = next(r for r in json.loads(alice("garden", "--json").output) if r["slug"] == "alice")
    assert row["status"] == "up to date"
