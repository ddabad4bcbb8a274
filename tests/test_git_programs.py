"""The programs a repository's .git/config names (issue 31): a command that
only reads (log, diff, doctor) runs none of them: no core.fsmonitor, no
hook, no textconv, no clean or smudge filter, no external diff. Only a
commit runs the user's hooks, as git.hooks says. And a branch without our
history (git checkout --orphan) is refused before anything is written."""

from __future__ import annotations

from pathlib import Path

from conftest import Runner, git, subjects


def _plant(ws, tmp_path: Path) -> Path:
    """Every kind of program, each leaving a mark (a file) when it runs; the marks' folder."""
    marks = tmp_path / "marks"
    marks.mkdir()
    prog = tmp_path / "prog.sh"
    prog.write_text(f'#!/bin/sh\ntouch "{marks}/$1"\nshift\n[ -n "$1" ] && [ -f "$1" ] && cat "$1" || cat\n')
    prog.chmod(0o755)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-index-change", "post-checkout"):
        (hooks / hook).write_text(f'#!/bin/sh\ntouch "{marks}/{hook}"\nexit 0\n')
        (hooks / hook).chmod(0o755)
    for key, value in (("core.fsmonitor", f"{prog} fsmonitor"), ("core.hooksPath", str(hooks)),
                       ("diff.evil.textconv", f"{prog} textconv"), ("diff.evil.command", f"{prog} extdiff"),
                       ("filter.evil.clean", f"{prog} clean"), ("filter.evil.smudge", f"{prog} smudge"),
                       ("filter.evil.required", "true")):
        git(ws, "config", key, value)
    (ws.root / ".git" / "info").mkdir(exist_ok=True)
    (ws.root / ".git" / "info" / "attributes").write_text("*.md diff=evil filter=evil\n", encoding="utf-8")
    return marks


def _ran(marks: Path) -> set[str]:
    return {p.name for p in marks.iterdir()}


def test_log_diff_and_doctor_run_none_of_the_users_programs(example_cli: Runner, tmp_path):
    ws = example_cli.ws
    marks = _plant(ws, tmp_path)
    profile = ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nLoves the sea. 喜欢海。\n", encoding="utf-8")
    assert "Loves the sea" in example_cli("diff", "alice").output
    example_cli("diff", "alice", "HEAD~1")
    example_cli("log")
    example_cli("log", "alice")
    assert "hooks:" in example_cli("doctor", ok=False).output  # named, not run
    assert _ran(marks) == set()


def test_only_a_commit_runs_the_users_hooks_as_git_hooks_says(example_cli: Runner, fake_llm, tmp_path):
    ws = example_cli.ws
    marks = _plant(ws, tmp_path)
    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "hello")
    assert subjects(ws)[0].startswith("chat(alice)")
    assert "pre-commit" in _ran(marks) and "fsmonitor" not in _ran(marks)
    for mark in marks.iterdir():
        mark.unlink()
    example_cli("config", "set", "git.hooks", "false")
    fake_llm.enqueue("hi again!")
    example_cli("chat", "alice", "-m", "hello again")
    assert "pre-commit" not in _ran(marks)


def test_a_branch_without_our_history_is_refused_before_anything_is_written(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    git(ws, "checkout", "-q", "--orphan", "fresh")
    before = git(ws, "status", "--porcelain")
    for args in (("chat", "alice", "-m", "typed on the orphan 孤儿分支"), ("person", "add", "Carol", "--yes"),
                 ("config", "set", "user.name", "Lei")):
        result = example_cli(*args, ok=False)
        assert result.exit_code != 0 and "'fresh'" in result.output and "git checkout main" in result.output
    after = [line for line in git(ws, "status", "--porcelain").splitlines() if "people/alice/logs/" not in line]
    assert after == [line for line in before.splitlines() if "people/alice/logs/" not in line]
    assert git(ws, "branch", "--list", "fresh") == ""  # no commit made it a branch
    git(ws, "checkout", "-q", "main")
    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "back on main")
    assert "typed on the orphan 孤儿分支" in git(ws, "log", "-p", "--", "people/alice/logs")
    assert not any(s.startswith("edit(") for s in subjects(ws)[:3])
