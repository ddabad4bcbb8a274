"""For scripts: log --json and diff --json (non-ASCII kept readable), and
shell completion of person names and aliases (issue 21)."""

from __future__ import annotations

import json

from conftest import Runner


def test_log_json_lists_pending_edits_then_commits(example_cli: Runner):
    example_cli("person", "add", "王小明", "--relation", "friend", "--alias", "小明")
    prof = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text(encoding="utf-8") + "\n喜欢乌龙茶\n", encoding="utf-8")
    result = example_cli("log", "--json")
    assert "\\u" not in result.output and "王小明" in result.output  # readable, not escaped
    data = json.loads(result.output)
    assert data["pending"] == [{"person": "alice", "path": "people/alice/PROFILE.md", "kind": "hand edit"}]
    newest = data["commits"][0]
    assert newest["subject"] == "add(王小明): new person" and len(newest["sha"]) == 40
    assert "people/王小明/PROFILE.md" in newest["files"]
    only = json.loads(example_cli("log", "小明", "--json", "-n", "5").output)
    assert only["pending"] == [] and all("王小明" in c["subject"] for c in only["commits"])


def test_diff_json_says_what_was_compared_with_the_diff_and_counts(example_cli: Runner):
    example_cli("person", "add", "王小明", "--relation", "friend")
    first = json.loads(example_cli("diff", "王小明", "--json").output)
    assert first["compared"] == "commit" and first["person"] == "王小明" and "+name: 王小明" in first["diff"]
    prof = example_cli.ws.people_dir / "王小明" / "PROFILE.md"
    prof.write_text(prof.read_text(encoding="utf-8").replace("relation: friend", "relation: family"),
                    encoding="utf-8")
    result = example_cli("diff", "王小明", "--json")
    assert "\\u738b" not in result.output
    data = json.loads(result.output)
    assert data["compared"] == "pending" and data["commit"] is None
    assert data["files"] == [{"path": "people/王小明/PROFILE.md", "added": 1, "removed": 1}]
    since = json.loads(example_cli("diff", "王小明", "HEAD~1", "--json").output)
    assert since["compared"] == "since" and len(since["commit"]) == 40


def test_a_diff_never_prints_a_files_terminal_escapes(example_cli: Runner):
    prof = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text(encoding="utf-8") + "\nhi \x1b]0;owned\x07 \x1b[2J there\n", encoding="utf-8")
    out = example_cli("diff", "alice").output
    assert "\x1b" not in out and "+hi" in out and "there" in out


def test_person_names_and_aliases_complete_in_the_shell(example_cli: Runner):
    from heartcompass.cli.complete import people_names

    example_cli("person", "add", "王小明", "--relation", "friend", "--alias", "Xiaoming")
    import os

    os.environ["HEARTCOMPASS_HOME"] = str(example_cli.ws.root)
    try:
        assert set(people_names("")) >= {"alice", "Alice Chen", "小爱", "王小明", "Xiaoming"}
        assert people_names("Xi") == ["Xiaoming"] and people_names("王") == ["王小明"]
        assert people_names("al")[0] == "alice"
    finally:
        del os.environ["HEARTCOMPASS_HOME"]


def test_completion_runs_through_the_real_program(example_cli: Runner):
    """What bash's completion function asks: the words, and the program answers with names."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "_HEARTCOMPASS_COMPLETE": "complete_bash", "COMP_WORDS": "heartcompass chat 小",
           "COMP_CWORD": "2", "HEARTCOMPASS_HOME": str(example_cli.ws.root)}
    proc = subprocess.run([sys.executable, "-m", "heartcompass"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert "小爱" in proc.stdout.split(), (proc.stdout, proc.stderr)
