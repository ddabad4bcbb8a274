"""ARCHITECTURE.md's diagram is the map of heartcompass/: every module
appears in its own layer's block, and every `name.py` the map names exists
there (a renamed or removed module is not left on it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "heartcompass"
LAYER = re.compile(r"^  (\w+/|basics)\s")


def _blocks() -> dict[str, str]:
    """Each layer's lines of the diagram, by its label (cli, gateway, ..., basics)."""
    diagram = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8").split("```")[1]
    blocks: dict[str, str] = {}
    layer = ""
    for line in diagram.splitlines():
        found = LAYER.match(line)
        if found:
            layer = found.group(1).rstrip("/")
        if layer:
            blocks[layer] = blocks.get(layer, "") + line + "\n"
    return blocks


def _modules() -> dict[str, set[str]]:
    """Each layer's module names (a subpackage's too), from the files."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if "__pycache__" in rel.parts or path.stem in ("__init__", "__main__"):
            continue
        layer = rel.parts[0] if len(rel.parts) > 1 else "basics"
        found.setdefault(layer, set()).add(path.stem)
    return found


def test_every_module_is_on_the_map_in_its_layer():
    blocks, modules = _blocks(), _modules()
    assert {"cli", "gateway", "memory", "store", "basics"} <= set(blocks) and len(modules["memory"]) > 20
    missing = sorted(f"{layer}: {name}" for layer, names in modules.items() for name in names
                     if layer != "examples" and name not in re.findall(r"\w+", blocks.get(layer, "")))
    assert missing == [], "add them to ARCHITECTURE.md's diagram: " + ", ".join(missing)


def test_every_file_the_map_names_exists():
    blocks, modules = _blocks(), _modules()
    named = {(layer, name) for layer, text in blocks.items() for name in re.findall(r"(\w+)\.py\b", text)}
    assert ("gateway", "tell_offers") in named
    stale = sorted(f"{layer}: {name}.py" for layer, name in named if name not in modules.get(layer, set()))
    assert stale == [], "not in heartcompass/ any more: " + ", ".join(stale)
