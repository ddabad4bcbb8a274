"""--help and `person list` must not pay for the heavy libraries."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("langchain", "langchain_core", "langchain_openai", "volcenginesdkarkruntime", "questionary",
         "watchdog", "git", "openai", "tomlkit")

PROBE = """
import sys
sys.argv = ["heartcompass", *{args!r}]
from heartcompass.cli.app import main
try:
    main()
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
print("HEAVY:" + ",".join(heavy), file=sys.stderr)
"""


def loaded_heavy(args, cwd=None, env=None) -> list[str]:
    code = PROBE.format(args=list(args), heavy=set(HEAVY))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("HEAVY:")][-1]
    return [m for m in line[len("HEAVY:"):].split(",") if m]


def test_help_loads_no_heavy_module():
    assert loaded_heavy(["--help"]) == []


def test_person_list_loads_no_heavy_module(example_ws):
    import os

    env = {**os.environ, "HEARTCOMPASS_HOME": str(example_ws.root)}
    assert loaded_heavy(["person", "list"], env=env) == []
    assert loaded_heavy(["person", "list", "--json"], env=env) == []
