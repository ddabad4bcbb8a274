"""What an idle `garden` (nobody has new entries) must not pay for: the
proposal machinery (pydantic classes) and rich's console (issue 21's 3.9x
of `person list`, measured in benchmarks/idle_garden.py)."""

from __future__ import annotations

import os
import subprocess
import sys

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


def _loaded(ws) -> set[str]:
    env = {**os.environ, "HEARTCOMPASS_HOME": str(ws.root)}
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED:")][-1]
    return set(line[len("LOADED:"):].split(","))


def test_an_idle_garden_imports_no_proposal_machinery_pydantic_or_rich_console(example_ws):
    loaded = _loaded(example_ws)
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
