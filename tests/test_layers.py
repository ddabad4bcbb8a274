"""The layers point one way (read from the source with ast, nothing is run):
the core knows nothing of the terminal, and the file formats know nothing
of models or git."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "heartcompass"
TERMINAL = ("typer", "rich", "questionary", "prompt_toolkit", "click")
HEAVY = ("langchain_core", "langchain_openai", "volcenginesdkarkruntime", "git", "gitdb", "watchdog")


def imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module.startswith("heartcompass"):  # `from heartcompass.store import audit`: a module too
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def modules(under: str = "") -> list[Path]:
    return sorted(p for p in (PACKAGE / under).rglob("*.py") if "__pycache__" not in p.parts)


def _uses(names: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n.split(".")[0] in roots)


@pytest.mark.parametrize("path", [p for p in modules() if "cli" not in p.relative_to(PACKAGE).parts
                                  and p.name != "__main__.py"],  # the entry point starts the CLI
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_knows_nothing_of_the_terminal(path):
    names = imports(path)
    assert not _uses(names, TERMINAL), f"{path.name} imports terminal code"
    assert not [n for n in names if n.startswith("heartcompass.cli")], f"{path.name} imports the CLI"


@pytest.mark.parametrize("path", modules("formats"), ids=lambda p: p.name)
def test_file_formats_know_nothing_of_models_or_git(path):
    names = imports(path)
    assert not _uses(names, HEAVY), f"formats/{path.name} imports {_uses(names, HEAVY)}"
    assert not [n for n in names if n in ("heartcompass.llm.providers", "heartcompass.store.gitrepo", "heartcompass.store.audit")]


# The packages, from the top down: each imports only from its own layer and the
# ones below it (the basics: errors, paths, atomic, sanitize, tokens, messages).
LAYERS = ["cli", "gateway", "talk", "intake", "memory", "llm", "store", "formats", "basics"]


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "heartcompass" or len(parts) < 2:
        return None
    return parts[1] if (PACKAGE / parts[1]).is_dir() and parts[1] in LAYERS else "basics"


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages - {"examples"} == set(LAYERS) - {"basics"}


@pytest.mark.parametrize("path", [p for p in modules() if p.name != "__main__.py"],  # the entry point starts the CLI
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_layers_point_one_way(path):
    rel = path.relative_to(PACKAGE).parts
    mine = LAYERS.index(rel[0] if len(rel) > 1 else "basics")
    upward = sorted(m for m in imports(path) if layer_of(m) and LAYERS.index(layer_of(m)) < mine)
    assert upward == [], f"{'/'.join(rel)} ({LAYERS[mine]}) imports from a layer above it: {upward}"


def test_git_lives_in_one_module():
    users = [p.relative_to(PACKAGE).as_posix() for p in modules() if _uses(imports(p), ("git", "gitdb"))]
    assert users == ["store/gitrepo.py"], users


def test_gitrepos_parts_are_used_through_it_alone():
    """gitstate, gitremote, githistory and gitrollback are parts of gitrepo.WorkspaceGit
    (mixins): the rest of the code reaches them as ws.git, never by importing
    them (githistory's Commit record excepted)."""
    parts = {"heartcompass.store.gitstate", "heartcompass.store.gitremote", "heartcompass.store.githistory",
             "heartcompass.store.gitrollback", "heartcompass.store.gittree"}
    allowed = {"heartcompass.store.githistory", "heartcompass.store.githistory.Commit"}
    users = sorted(p.relative_to(PACKAGE).as_posix() for p in modules()
                   if imports(p) & parts and {m for m in imports(p) if m.startswith(tuple(parts))} - allowed)
    assert users == ["store/gitremote.py", "store/gitrepo.py", "store/gitrollback.py"], users


def test_model_providers_live_in_one_place():
    users = [p.relative_to(PACKAGE).as_posix() for p in modules()
             if _uses(imports(p), ("langchain_openai", "volcenginesdkarkruntime"))]
    assert set(users) <= {"llm/providers.py", "llm/ark_reasoning.py"}, users


def test_the_checker_sees_lazy_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    import rich.console\n    from typer import Exit\n", encoding="utf-8")
    assert _uses(imports(probe), TERMINAL) == ["rich.console", "typer"]


def test_tell_and_the_proposal_machinery_do_not_import_the_nightly_runner():
    """The proposal package is what the gardener and `tell` share; neither it
    nor `tell` pulls in the runner (its lock, journal and per-person loop)."""
    runner = {"heartcompass.memory.gardener", "heartcompass.memory.garden_journal"}
    shared = [*modules("memory/proposal"), PACKAGE / "intake" / "tell.py"]
    assert len(shared) > 1
    users = [p.relative_to(PACKAGE).as_posix() for p in shared
             if runner & imports(p)]
    assert users == [], users


def test_one_clock():
    """Dates and times come from clock.py, in user.timezone: no module reads
    the machine's own date (a log's day and the gardener's today must agree)."""
    readers = []
    for path in modules():
        if path.name == "clock.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("today", "now") and ast.unparse(node.func.value).endswith(("date", "datetime")):
                readers.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert readers == []
