"""Each concept has one home (read from the source with ast, nothing is run):
the write transactions live in the core, raw git in store/git*.py, and no
module reaches into another module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "heartcompass"
TRANSACTION = {"write_transaction", "commit_pending", "writing"}  # commit_earlier is one whole transaction


def modules(under: str = "") -> list[Path]:
    return sorted(p for p in (PACKAGE / under).rglob("*.py") if "__pycache__" not in p.parts)


def tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def called(node: ast.Call) -> str | None:
    """The name a call ends in: `f(...)` and `mod.f(...)` are both `f`."""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


@pytest.mark.parametrize("path", modules("cli"), ids=lambda p: p.name)
def test_a_command_module_opens_no_write_transaction(path):
    """cli/ parses, calls the core and renders: the lock, the git-state check
    and the commits of what was pending are the core's (the gateway needs them too)."""
    found = [f"{path.name}:{n.lineno} {called(n)}()" for n in ast.walk(tree(path))
             if isinstance(n, ast.Call) and called(n) in TRANSACTION]
    assert not found, f"a write transaction in cli/: {found}"


@pytest.mark.parametrize("path", [p for p in modules() if not (p.parent.name == "store" and p.name.startswith("git"))],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_raw_git_stays_in_the_git_modules(path):
    """memory/ and the rest ask ws.git a named question, never `git log ...` itself."""
    found = [f"{path.name}:{n.lineno}" for n in ast.walk(tree(path))
             if isinstance(n, ast.Attribute) and n.attr == "_git"]
    assert not found, f"raw git outside store/git*.py: {found}"
