"""The shape of the code, read from the source with ast (nothing is run): no
import circle between heartcompass modules, and no module over 400 lines.

What counts as an import, for the circles:
- every `import` and `from ... import` at any depth, inside functions too:
  a deferred import is how a circle hides, and it still ties the two
  modules together (each needs the other to work);
- `from package import name` is an arrow to the module package.name when
  there is one, else to the package's __init__ (the name lives there);
- not an import under `if TYPE_CHECKING:`: it never runs, it only lets a
  type checker read an annotation (a Workspace in a signature);
- not the arrow from a module to its own package's __init__ that Python
  makes implicitly when it loads the module: only what the code names.
  A package's __init__ is a module like any other, so a face that
  dispatches to its parts while its parts take helpers from the face is a
  circle.
- importlib.import_module(f"...") is not read (its target is a string made
  at run time)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "heartcompass"
MAX_LINES = 400


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _arrows(name: str, path: Path, known: set[str]) -> set[str]:
    """The heartcompass modules this one imports, at any depth, outside TYPE_CHECKING blocks."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:  # `else:` runs
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package
                anchor = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
                elif base in known:
                    found.add(base)
        visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    found.discard(name)
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    files = {_module_name(p, package): p for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    return {name: _arrows(name, path, set(files)) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def _describe(graph: dict[str, set[str]], group: list[str]) -> str:
    return "\n".join(f"  {m} -> {', '.join(sorted(graph[m] & set(group)))}" for m in group)


def test_no_import_circle_between_modules():
    graph = import_graph()
    assert len(graph) > 100  # the whole package was read
    found = circles(graph)
    assert found == [], "import circles:\n" + "\n\n".join(_describe(graph, g) for g in found)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "heartcompass"
    for rel, text in {"__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_the_circle_check_sees_deferred_and_package_imports(tmp_path):
    root = _package(tmp_path, {
        "a.py": "def f():\n    from heartcompass import b\n",  # deferred, inside a function
        "b.py": "from heartcompass.a import f\n",
        "pkg/__init__.py": "def g():\n    from heartcompass.pkg import part\n",  # a face dispatching to a part
        "pkg/part.py": "from heartcompass.pkg import HELPER\n",  # which takes a helper from the face
        "c.py": "from .d import x\n",  # relative
        "d.py": "import heartcompass.c\n",
    })
    assert circles(import_graph(root)) == [["heartcompass.a", "heartcompass.b"], ["heartcompass.c", "heartcompass.d"],
                                            ["heartcompass.pkg", "heartcompass.pkg.part"]]


def test_type_checking_imports_are_not_arrows(tmp_path):
    root = _package(tmp_path, {
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from heartcompass.b import B\n",
        "b.py": "from heartcompass import a\n",
    })
    assert circles(import_graph(root)) == []


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_400_lines(path):
    assert _lines(path) <= MAX_LINES, (f"{path.relative_to(PACKAGE)} has {_lines(path)} lines; split it along a "
                                       f"seam that has a name")
