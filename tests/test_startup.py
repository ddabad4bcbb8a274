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
