"""Shared fixtures: every test gets its own HOME (so no real workspace or git
identity leaks in), a temporary workspace, and a CLI runner."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heartcompass.cli.app import app
from heartcompass.store.workspace import Workspace
from heartcompass.store.creation import create_workspace


def _isolate(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for var in ("HEARTCOMPASS_HOME", "HEARTCOMPASS_DEBUG", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "VISUAL", "EDITOR",
                "OPENAI_API_KEY", "ARK_API_KEY", "HEARTCOMPASS_LLM_API_KEY", "HEARTCOMPASS_LLM_PROVIDER",
                "HEARTCOMPASS_LLM_MODEL", "HEARTCOMPASS_LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


def pytest_configure(config):
    """A suite started in the background (`nohup ... &` from a script, some CI
    runners) inherits SIGINT ignored, and so would every command it starts:
    each Ctrl-C test would send a Ctrl-C nobody hears. Handled here, it is the
    default again in every child."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    _isolate(home, monkeypatch)
    return home


@pytest.fixture(autouse=True)
def closed_repositories(monkeypatch):
    """GitPython keeps a repository's `git cat-file` helpers (two processes,
    their pipes) until it is closed: every repository a test opened is closed
    after it, so the suite does not run out of file descriptors."""
    from heartcompass.store import gitrepo

    opened = []
    real_init = gitrepo._Repo.__init__

    def recorded(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(gitrepo._Repo, "__init__", recorded)
    yield opened
    for repo in opened:
        repo.close()


@pytest.fixture(autouse=True)
def stdout_not_discarded(monkeypatch):
    """A test of `| head` closing stdout early sets the CLI's process-wide
    "stdout is gone" flag; in one test process it must not silence the next
    test's notes (a real command is a process of its own)."""
    from heartcompass.cli import common

    monkeypatch.setattr(common, "_discarded", False)


class _Made:
    """A new workspace and one with the example person, each made once, when
    first asked for: each test gets a copy (git init and the first commits
    cost a test more than its own work)."""

    def __init__(self, factory):
        self.factory = factory
        self.roots: dict[bool, Path] = {}

    def __getitem__(self, example: bool) -> Path:
        if example not in self.roots:
            with pytest.MonkeyPatch.context() as monkeypatch:  # made as a test makes it: no identity of this machine
                _isolate(self.factory.mktemp("home"), monkeypatch)
                made, _ = create_workspace(self.factory.mktemp("made") / "brain", example=example)
                if made.git._repo is not None:
                    made.git._repo.close()  # its `git cat-file` helpers: the session's closing fixture is not on yet
            self.roots[example] = made.root
        return self.roots[example]


@pytest.fixture(scope="session")
def _made_workspaces(tmp_path_factory) -> _Made:
    return _Made(tmp_path_factory)


def _copy_of(made: Path, where: Path) -> Workspace:
    import shutil

    shutil.copytree(made, where, symlinks=True)
    return Workspace(where)


@pytest.fixture
def ws(tmp_path, _made_workspaces) -> Workspace:
    return _copy_of(_made_workspaces[False], tmp_path / "brain")


@pytest.fixture
def example_ws(tmp_path, _made_workspaces) -> Workspace:
    return _copy_of(_made_workspaces[True], tmp_path / "brain")


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


def finishes(fn, deadline: float = 120.0):
    """fn() run in a thread: its result, or a failure if it is still running at
    the deadline (a hang caught, with no wall-clock bound for a loaded machine)."""
    import threading

    done: list = []
    thread = threading.Thread(target=lambda: done.append(fn()), daemon=True)
    thread.start()
    thread.join(deadline)
    assert done, f"still running after {deadline:.0f} s" if thread.is_alive() else "raised (see the thread's traceback)"
    return done[0]


def subjects(ws: Workspace) -> list[str]:
    return git(ws, "log", "--format=%s").splitlines()


# Caches keyed by files' stats (stat_cache.py): whether a command writes one depends on how long ago the
# files last changed (two seconds), so on how busy the machine is; they hold nothing of the user's.
STAT_CACHES = frozenset({".heartcompass/people-index.json", ".heartcompass/log-counts.json",
                         ".heartcompass/strength.json", ".heartcompass/strength-summary.json",
                         ".heartcompass/consolidated/.from-git.json"})


def tree_snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the workspace but git's and the stat-keyed caches: what "nothing changed" compares."""
    return {rel: p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts
            and (rel := p.relative_to(root).as_posix()) not in STAT_CACHES}


@pytest.fixture
def fake_llm(monkeypatch):
    """Every model HeartCompass makes is this fake; no test touches the network."""
    from fakes import FakeChat

    from heartcompass.llm import providers as llm

    fake = FakeChat()
    monkeypatch.setattr(llm, "make_chat_model", lambda ws, settings: fake)
    monkeypatch.setattr("time.sleep", fake.slept.append)
    return fake


def log_entries(ws: Workspace, slug: str):
    from heartcompass.formats import dailylog

    out = []
    for day in dailylog.log_dates(ws.people_dir / slug):
        out += dailylog.load(ws.people_dir / slug / "logs" / f"{day}.md")
    return out
