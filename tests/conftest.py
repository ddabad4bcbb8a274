"""Shared fixtures: every test gets its own HOME (so no real workspace or git
identity leaks in), a temporary workspace, and a CLI runner."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heartcompass.cli.app import app
from heartcompass.store.workspace import Workspace
from heartcompass.store.creation import create_workspace


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for var in ("HEARTCOMPASS_HOME", "HEARTCOMPASS_DEBUG", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "VISUAL", "EDITOR",
                "OPENAI_API_KEY", "ARK_API_KEY", "HEARTCOMPASS_LLM_API_KEY", "HEARTCOMPASS_LLM_PROVIDER",
                "HEARTCOMPASS_LLM_MODEL", "HEARTCOMPASS_LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def ws(tmp_path) -> Workspace:
    workspace, _ = create_workspace(tmp_path / "brain")
    return workspace


@pytest.fixture
def example_ws(tmp_path) -> Workspace:
    workspace, _ = create_workspace(tmp_path / "brain", example=True)
    return workspace


class Runner:
    """Invokes the CLI against one workspace; returns the click Result."""

    def __init__(self, workspace: Workspace):
        self.ws = workspace
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, ok: bool = True, env=None):
        result = self.runner.invoke(app, ["--workspace", str(self.ws.root), *args], input=input, env=env)
        if ok and result.exit_code != 0:
            raise AssertionError(f"exit {result.exit_code}\n{result.output}\n{result.exception!r}")
        return result


@pytest.fixture
def cli(ws) -> Runner:
    return Runner(ws)


@pytest.fixture
def example_cli(example_ws) -> Runner:
    return Runner(example_ws)


@pytest.fixture
def alice(example_cli) -> Runner:
    """The example workspace, for gardening Alice (see garden_helpers.py)."""
    example_cli.ws.people_dir.joinpath("alice", "logs").mkdir(exist_ok=True)
    git(example_cli.ws, "add", "-A")
    return example_cli


def git(ws: Workspace, *args: str) -> str:
    """git as the user runs it by hand (with an identity of their own)."""
    who = ["-c", "user.name=The User", "-c", "user.email=user@example.com"]
    return subprocess.run(["git", *who, *args], cwd=ws.root, capture_output=True, text=True, check=True).stdout


def subjects(ws: Workspace) -> list[str]:
    return git(ws, "log", "--format=%s").splitlines()


def tree_snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


@pytest.fixture
def fake_llm(monkeypatch):
    """Every model HeartCompass makes is this fake; no test touches the network."""
    from fakes import FakeChat

    from heartcompass.llm import providers as llm

    fake = FakeChat()
    monkeypatch.setattr(llm, "make_chat_model", lambda ws, settings: fake)
    monkeypatch.setattr("heartcompass.talk.chat.time.sleep", lambda s: None)
    return fake


def log_entries(ws: Workspace, slug: str):
    from heartcompass.formats import dailylog

    out = []
    for day in dailylog.log_dates(ws.people_dir / slug):
        out += dailylog.load(ws.people_dir / slug / "logs" / f"{day}.md")
    return out
