"""A chat's start (issue 32): with nothing of the person's to commit, `chat`
reaches the model without GitPython (plain git answers "anything pending?",
store/gitplain.py); with anything pending, it is committed first, as before,
the user's hand edit as their own commit. What the quick look must see
(each kind of pending change, git state, tell journal) is stated on the
core in test_store_audit_promises.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import Runner, git, subjects
from stub_server import start


# The order in which the chat imported GitPython and first connected to the model (an audit hook sees both).
PROBE = """
import sys
order = []
def seen(event, args):
    if event == "import" and args[0] == "git" and "git" not in order:
        order.append("git")
    elif event == "socket.connect" and "request" not in order and args[1][1:2] == ({port},):
        order.append("request")
sys.addaudithook(seen)
sys.argv = ["heartcompass", "chat", "alice", "-m", "周末去爬山吗?", "--json"]
from heartcompass.cli.app import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
print(f"EXIT:{{code}}", file=sys.stderr)
print("ORDER:" + ",".join(order), file=sys.stderr)
"""


@pytest.fixture
def endpoint(example_cli: Runner):
    server, state = start()
    state.port = server.server_port
    example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
    yield state
    server.shutdown()


def _chat_in_a_process(ws, port: int) -> tuple[list[str], str]:
    """What a real `chat -m` process did first (GitPython's import, the request), and what it printed."""
    env = {**os.environ, "HEARTCOMPASS_HOME": str(ws.root)}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(port=port)], capture_output=True, text=True, env=env)
    assert "EXIT:0" in proc.stderr.splitlines(), proc.stderr[-2000:]
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("ORDER:")][-1]
    return line[len("ORDER:"):].split(","), proc.stdout


def test_chat_reaches_the_model_before_importing_gitpython(example_cli: Runner, endpoint):
    example_cli("chat", "alice", "-m", "hi")  # the first chat of the day: its log is new, and committed
    order, shown = _chat_in_a_process(example_cli.ws, endpoint.port)
    assert "周末去爬山吗?" in json.loads(shown)["message"] and len(endpoint.requests) == 2  # it ran, and asked
    assert order == ["request", "git"]  # GitPython only for the commit after the reply
    assert subjects(example_cli.ws)[0].startswith("chat(alice): ")
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_a_hand_edit_before_chat_is_still_committed_first_as_the_users(example_cli: Runner, endpoint):
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\n手写的一行\n", encoding="utf-8")
    order, _ = _chat_in_a_process(example_cli.ws, endpoint.port)
    assert order == ["git", "request"]  # the long way: there was something to commit
    assert [s.split(":")[0] for s in subjects(example_cli.ws)[:2]] == ["chat(alice)", "edit(alice)"]
    assert subjects(example_cli.ws)[1] == "edit(alice): by hand"
    assert git(example_cli.ws, "show", "--name-only", "--format=", "HEAD~1").split() == ["people/alice/PROFILE.md"]


