"""Where a new user runs HeartCompass (issue 30): no HOME (cron, systemd,
containers), a read-only workspace, a narrow terminal."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from heartcompass.cli.app import app


def _git_log(root) -> list[str]:
    import subprocess

    return subprocess.run(["git", "log", "--format=%an <%ae>|%s"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_init_without_home_commits_as_heartcompass_when_git_finds_no_identity(tmp_path, monkeypatch):
    monkeypatch.delenv("HOME")  # git reads no global config; GitPython would still find ~ through the passwd entry
    result = CliRunner().invoke(app, ["init", str(tmp_path / "brain")])
    assert result.exit_code == 0, result.output
    (commit,) = _git_log(tmp_path / "brain")
    assert commit.endswith("|init: new HeartCompass workspace")
    runner = CliRunner()
    added = runner.invoke(app, ["--workspace", str(tmp_path / "brain"), "person", "add", "Bob", "-y"])
    assert added.exit_code == 0, added.output
    assert len(_git_log(tmp_path / "brain")) == 2


def test_init_finishes_a_workspace_whose_first_commit_never_happened(tmp_path):
    brain = tmp_path / "brain"
    assert CliRunner().invoke(app, ["init", str(brain)]).exit_code == 0
    shutil.rmtree(brain / ".git")  # as a first init git refused left it: the files, no commit
    (brain / "people" / "me" / "PROFILE.md").write_text((brain / "people" / "me" / "PROFILE.md").read_text()
                                                        .replace("name: Me", "name: Sam"))
    result = CliRunner().invoke(app, ["init", str(brain)])
    assert result.exit_code == 0 and "nothing was changed" not in result.output, result.output
    assert [c.split("|")[1] for c in _git_log(brain)] == ["init: new HeartCompass workspace"]
    assert "name: Sam" in (brain / "people" / "me" / "PROFILE.md").read_text()  # kept as the user left it
    doctor = CliRunner().invoke(app, ["--workspace", str(brain), "doctor"])
    assert "heartcompass init" not in doctor.output and "no commits yet" not in doctor.output, doctor.output


def _read_only_tree(root):
    """The whole workspace unwritable, even for root (chattr +i on every file
    and folder, .git included), as a mounted snapshot is. Its files are a day
    old, as a backup's are: old enough to cache."""
    import os
    import subprocess
    import time

    import pytest

    everything = [str(p) for p in root.rglob("*")] + [str(root)]
    for p in everything:
        os.utime(p, (time.time() - 86400,) * 2, follow_symlinks=False)
    if not shutil.which("chattr") or subprocess.run(["chattr", "+i", *everything], capture_output=True).returncode:
        subprocess.run(["chattr", "-i", *everything], capture_output=True)
        pytest.skip("no way to make the workspace read-only for root here (chattr failed)")
    return lambda: subprocess.run(["chattr", "-i", *everything], check=True)


def test_reading_commands_work_in_a_read_only_workspace_and_say_once_a_cache_was_not_saved(example_ws,
                                                                                             monkeypatch):
    from conftest import Runner

    import time

    from heartcompass import stat_cache

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: time.time_ns() + 60 * 10**9)  # chattr's ctime: settled
    cli = Runner(example_ws)
    from heartcompass.store import people_index

    shutil.rmtree(example_ws.state_dir)  # a snapshot without our local state...
    people_index._OPEN.clear()  # ...read by a fresh process, with no index in memory either
    undo = _read_only_tree(example_ws.root)
    try:
        results = {args: cli(*args, ok=False) for args in (("person", "list"), ("context", "alice"), ("doctor",),
                                                             ("log",), ("graph",), ("person", "show", "alice"),
                                                             ("today",))}
    finally:
        undo()
    for args, result in results.items():
        assert "Traceback" not in result.output and "permission denied" not in result.output.lower(), args
        assert result.output.count("could not save") <= 1, args
    assert all(results[args].exit_code == 0 for args in results if args != ("doctor",)), \
        {a: r.output for a, r in results.items() if r.exit_code}
    assert "Alice Chen" in results[("person", "list")].output
    assert "could not save" in results[("person", "list")].output  # said once, on stderr
    assert "repository cannot be written" in results[("doctor",)].output  # doctor names it, and finishes:
    assert "✓ names" in results[("doctor",)].output


# -- a narrow terminal ---------------------------------------------------------------------------
def _widest(text: str) -> int:
    from rich.cells import cell_len

    return max(cell_len(line) for line in text.splitlines() if line.strip())


def test_person_list_and_the_garden_summary_fit_forty_columns(alice, fake_llm):
    from garden_helpers import proposal, say

    alice("person", "add", "欧阳明月", "--relation", "friend", "--mbti", "INTJ", "-y")
    listed = alice("person", "list", env={"COLUMNS": "40"})
    assert _widest(listed.output) <= 40 and "欧阳明月" in listed.output and "MBTI ENFP" in listed.output
    assert _widest(alice("person", "list", env={"COLUMNS": "200"}).output) > 40  # a wide one keeps its table
    say(alice.ws, "alice", "note", "Her new address is in Sakyo-ku")
    fake_llm.enqueue(proposal(new_facts=[{"text": "Lives in Sakyo-ku", "evidence": ["L1"]}]))
    gardened = alice("garden", env={"COLUMNS": "40"})
    summary = gardened.stdout  # the table; the per-person progress lines are stderr's
    assert "status gardened" in summary and _widest(summary) <= 40, summary


def test_person_list_on_a_forty_column_terminal(example_ws):
    import os
    import sys

    import pexpect
    from terminal import finish, screen_text

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "CI")}
    child = pexpect.spawn(sys.executable, ["-m", "heartcompass", "--workspace", str(example_ws.root), "person",
                                           "list"], env={**env, "TERM": "xterm-256color"}, encoding="utf-8",
                          timeout=120, dimensions=(24, 40), use_poll=True)
    import io

    child.logfile_read = io.StringIO()
    code, raw = finish(child)
    text = screen_text(raw)
    assert code == 0 and "Alice Chen" in text and _widest(text) <= 40, text
