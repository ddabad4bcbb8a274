"""--help and `person list` must not pay for the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("langchain", "langchain_core", "langchain_openai", "volcenginesdkarkruntime", "questionary",
         "watchdog", "git", "openai", "tomlkit")

PROBE = """
import sys
sys.argv = ["heartcompass", *{args!r}]
from heartcompass.cli.app import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
print(f"EXIT:{{code}}", file=sys.stderr)
print("HEAVY:" + ",".join(heavy), file=sys.stderr)
"""


def loaded_heavy(args, cwd=None, env=None) -> tuple[list[str], str]:
    """The heavy modules the command loaded, and what it printed (it must have run, and succeeded)."""
    code = PROBE.format(args=list(args), heavy=set(HEAVY))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env)
    assert "EXIT:0" in proc.stderr.splitlines(), proc.stderr[-2000:]
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("HEAVY:")][-1]
    return [m for m in line[len("HEAVY:"):].split(",") if m], proc.stdout


def test_help_loads_no_heavy_module():
    heavy, shown = loaded_heavy(["--help"])
    assert "Usage" in shown and "garden" in shown  # the help was printed
    assert heavy == []


def test_person_list_loads_no_heavy_module(example_ws):
    import os

    env = {**os.environ, "HEARTCOMPASS_HOME": str(example_ws.root)}
    heavy, shown = loaded_heavy(["person", "list"], env=env)
    assert "Alice Chen" in shown and heavy == []
    heavy, shown = loaded_heavy(["person", "list", "--json"], env=env)
    assert "alice" in [p["slug"] for p in json.loads(shown)] and heavy == []


def test_cell_len_counts_columns_as_rich_does():
    """person list aligns with its own width count (rich's tables cost ~2 ms
    of start); it must agree with rich on the text people write."""
    from rich.cells import cell_len as rich_cell_len

    from heartcompass.cli.common import cell_len

    for text in ["Alice", "小明", "José", "e\u0301", "😀", "ｱ", "Ａ", "王磊 (me)", "한국어", "→", "—",
                 "🇨🇳", "👍🏽", "✔️", "中文，标点。", "❤️ ok", "a\ufe0f", "ＡＢ cd"]:
        assert cell_len(text) == rich_cell_len(text), text


def test_person_list_columns_line_up_with_chinese_names(cli):
    cli("person", "add", "小明", "-r", "friend", "--yes")
    cli("person", "add", "Bob", "-r", "friend", "--yes")
    lines = cli("person", "list").output.splitlines()
    header, rows = lines[0], lines[1:]
    # the slug column starts at the same terminal column on every line (measured by rich)
    from rich.cells import cell_len

    xiaoming = next(line for line in rows if line.startswith("小明"))
    bob = next(line for line in rows if line.startswith("Bob"))
    starts = {cell_len(xiaoming[:xiaoming.index("  小明") + 2]), cell_len(bob[:bob.index("bob")]),
              cell_len(header[:header.index("slug")])}
    assert len(starts) == 1, lines
