"""What an idle `garden` (nobody has new entries) must not pay for: the
proposal machinery (pydantic classes) and rich's console (issue 21's 3.9x
of `person list`, measured in benchmarks/idle_garden.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import log_entries
from waits import DEADLINE

PROBE = """
import sys
sys.argv = ["heartcompass", "garden"]
from heartcompass.cli.app import main
try:
    main()
except SystemExit:
    pass
print("LOADED:" + ",".join(sorted(sys.modules)), file=sys.stderr)
"""


def _loaded(ws) -> tuple[set[str], str]:
    """The modules an idle garden loaded, and what it printed."""
    env = {**os.environ, "HEARTCOMPASS_HOME": str(ws.root)}
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED:")][-1]
    return set(line[len("LOADED:"):].split(",")), proc.stdout + proc.stderr


def test_an_idle_garden_imports_no_proposal_machinery_pydantic_or_rich_console(example_ws):
    loaded, said = _loaded(example_ws)
    assert "heartcompass.memory.gardener" in loaded and "up to date" in said, said[-2000:]  # the garden ran
    assert not {m for m in loaded if m.startswith(("pydantic", "heartcompass.memory.proposal.model",
                                                   "heartcompass.memory.proposal.workbench",
                                                   "heartcompass.memory.proposal.propose", "langchain",
                                                   "rich.console"))}


def test_a_garden_with_new_entries_still_gardens(alice, fake_llm):
    """The lazy imports reach the same machinery when someone has new entries."""
    from garden_helpers import proposal, say

    say(alice.ws, "alice", "note", "她下个月搬去京都")
    fake_llm.enqueue(proposal(new_facts=[{"text": "她下个月搬去京都", "evidence": ["L1"]}]))
    assert "gardened" in alice("garden").output


GRAPH_PROBE = """
import sys
sys.argv = ["heartcompass", "graph"]
from heartcompass.cli.app import main
try:
    main()
except SystemExit:
    pass
print("LOADED:" + ",".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_graph_prints_without_rich_markup_and_names_stay_text(example_cli):
    """5,000 people were 13 MB through rich's markup (3.3 s CPU, now 0.7: benchmarks/graph.py)."""
    example_cli("person", "add", "[red]Evil[b] 王", "--relation", "friend", "--related", "alice:her [b]friend")
    prof = example_cli.ws.people_dir / "alice" / "PROFILE.md"  # a hand edit with an escape sequence
    prof.write_text(prof.read_text(encoding="utf-8").replace("name: Alice Chen", 'name: "Alice \\e]0;owned\\a Chen"'),
                    encoding="utf-8")
    out = example_cli("graph").output
    assert "Alice Chen" in out and "owned" not in out  # the OSC sequence (a window title) is gone whole
    assert "[red]Evil[b] 王" in out and "her [b]friend" in out and "\x1b" not in out and "\x07" not in out
    env = {**os.environ, "HEARTCOMPASS_HOME": str(example_cli.ws.root)}
    proc = subprocess.run([sys.executable, "-c", GRAPH_PROBE], capture_output=True, text=True, env=env)
    loaded = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED:")][-1].split(",")
    assert "rich.console" not in loaded and "[red]Evil[b] 王" in proc.stdout


def test_interactive_chat_makes_the_provider_while_the_first_message_is_typed(example_cli, fake_llm, monkeypatch):
    import threading

    import prompt_toolkit

    from heartcompass.llm import providers as llm

    made_in: list[str] = []
    ready = threading.Event()

    def make(ws, settings):
        made_in.append(threading.current_thread().name)
        ready.set()
        return fake_llm

    class Typing:
        """The user takes a moment over the first message; the provider is made meanwhile."""

        def __init__(self, *args, **kwargs):
            self.lines = ["你好", None]

        def prompt(self, text):
            line = self.lines.pop(0)
            if line is None:
                raise EOFError
            assert ready.wait(DEADLINE), "the provider was not made while the user typed"
            return line

    monkeypatch.setattr(prompt_toolkit, "PromptSession", Typing)
    from heartcompass.cli.chat_cmd import ChatView
    from heartcompass.store.people import resolve

    ws = example_cli.ws
    settings = llm.settings(ws)
    view = ChatView(ws, settings, None, None, make_model=lambda: make(ws, settings), delays=False, as_json=False)
    view.open(resolve(ws, "alice"))
    fake_llm.enqueue("嗨！")
    assert view.interactive(False)
    view.close()
    assert made_in == ["provider-warm-up"]  # once, in the background, before the first message was sent
    assert [e.text for e in log_entries(ws, "alice")][-2:] == ["你好", "嗨！"]


def test_garden_reads_others_names_from_the_people_index_not_their_profiles(alice, fake_llm, monkeypatch):
    """At 1,000 people every run parsed every PROFILE.md for the names the entries may mention."""
    import threading

    from garden_helpers import proposal, say
    from heartcompass.store import people as people_mod

    for i in range(5):
        alice("person", "add", f"Friend {i}", "--relation", "friend", "--alias", f"朋友{i}")
    threading.Event().wait(2.1)  # a file younger than 2 s is never cached (time.sleep is stubbed by fake_llm)
    say(alice.ws, "alice", "note", "first night", time="19:00:00")
    fake_llm.enqueue(proposal(summary="x", nothing_worth_keeping=True))
    alice("garden", "--person", "alice")  # the index learns everyone's names
    parsed: list[str] = []
    real = people_mod.Person.load_profile
    monkeypatch.setattr(people_mod.Person, "load_profile", lambda self: parsed.append(self.slug) or real(self))
    say(alice.ws, "alice", "note", "朋友3 helped Alice move")
    fake_llm.enqueue(proposal(new_facts=[{"text": "朋友3 helped Alice move", "evidence": ["L1"]}]))
    assert "gardened" in alice("garden", "--person", "alice").output
    assert not [slug for slug in parsed if slug.startswith("friend")], parsed
    assert "朋友3" in fake_llm.request("garden", 1).prompt  # the entry went to the model with its mention


def test_the_proposal_schema_is_built_once_not_per_request(alice, fake_llm, monkeypatch):
    from garden_helpers import backlog, proposal

    from heartcompass.llm import structured
    from heartcompass.memory.proposal.model import Proposal

    structured._INLINED.clear()
    built: list[str] = []
    real = Proposal.model_json_schema.__func__
    monkeypatch.setattr(Proposal, "model_json_schema", classmethod(lambda cls, *a, **k: built.append(cls.__name__)
                                                                   or real(cls, *a, **k)))
    backlog(alice, 3, "me", "message")
    fake_llm.enqueue(*[proposal(summary="read", nothing_worth_keeping=True) for _ in range(20)])
    alice("garden")
    assert len(fake_llm.purposes) >= 2 and built == ["Proposal"]  # several requests, one schema
