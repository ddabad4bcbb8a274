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
