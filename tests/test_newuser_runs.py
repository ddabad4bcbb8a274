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
