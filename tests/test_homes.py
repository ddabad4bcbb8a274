"""Each concept has one home (read from the source with ast, nothing is run):
the write transactions live in the core, raw git in store/git*.py, and no
module reaches into another module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "heartcompass"
# What only a write transaction may do (commit_earlier, commit_session... are whole transactions of the core).
TRANSACTION = {"write_transaction", "writing", "FileLock", "commit_pending", "commit_or_roll_back", "commit_logs",
               "commit_valid_edits", "commit"}


def modules(under: str = "") -> list[Path]:
    return sorted(p for p in (PACKAGE / under).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_scans_below_see_the_code():
    """Each rule below passes for a module with nothing wrong, and for no module at all: they must see ours."""
    assert len(modules()) > 150 and len(modules("cli")) > 20
    assert PACKAGE / "cli" / "app.py" in modules("cli") and PACKAGE / "store" / "gitrepo.py" in modules()


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


def imported_modules(node: ast.AST) -> set[str]:
    """Names a file binds to a module of ours: `import heartcompass.x as m`,
    `from heartcompass.store import audit` (a module, not a function)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in n.names if a.name.startswith("heartcompass")}
        elif isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("heartcompass") and n.level == 0:
            base = PACKAGE.parent / n.module.replace(".", "/")
            names |= {a.asname or a.name for a in n.names
                      if (base / f"{a.name}.py").exists() or (base / a.name / "__init__.py").exists()}
    return names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_uses_another_modules_private_names(path):
    """`mod._name` where mod is a module of ours: what it offers has a public name."""
    node = tree(path)
    mods = imported_modules(node)
    found = [f"{path.name}:{n.lineno} {n.value.id}.{n.attr}" for n in ast.walk(node)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in mods
             and n.attr.startswith("_") and not n.attr.startswith("__")]
    assert not found, f"private names of another module: {found}"


# Underscored names that are a library's public protocol (namedtuple, Enum).
LIBRARY_PROTOCOL = {"_asdict", "_replace", "_fields", "_make", "_value2member_map_", "_missing_"}


def defined_in(node: ast.AST) -> set[str]:
    """Every name a module defines or assigns, as a function, class, variable or attribute."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            names.add(n.attr)
        elif isinstance(n, ast.alias):
            names.add(n.asname or n.name.split(".")[-1])
    return names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_reaches_into_another_modules_objects(path):
    """`obj._name` where _name is nobody's in this module (a Document's
    original text, a gateway's queue), and a subclass extending its parent's
    private method: each is a public name or a callback.
    (self._x in a mixin is the class's own: store/git*.py are one class.)"""
    node = tree(path)
    mine = defined_in(node) | LIBRARY_PROTOCOL
    found = [f"{path.name}:{n.lineno} {ast.unparse(n)}" for n in ast.walk(node)
             if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
             and n.attr not in mine and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))]
    # A subclass extending its parent's private method (`super()._one(...)`):
    # the parent offers a hook or a callback instead.
    found += [f"{path.name}:{n.lineno} super().{n.attr}" for n in ast.walk(node)
              if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
              and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id == "super"]
    assert not found, f"private names of another module: {found}"
