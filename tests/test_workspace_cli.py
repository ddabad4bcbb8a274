from __future__ import annotations

import json

from typer.testing import CliRunner

from conftest import Runner, subjects
from heartcompass.cli.app import app
from heartcompass.store.gitrepo import FALLBACK_NAME


def run(*args, **kw):
    return CliRunner().invoke(app, list(args), **kw)


def test_init_builds_workspace_and_first_commit(tmp_path, isolated_home):
    target = tmp_path / "brain"
    result = run("init", str(target))
    assert result.exit_code == 0, result.output
    for rel in ("heartcompass.toml", ".gitignore", "README.md", "people/me/PROFILE.md",
                "people/me/EVENTS.md", "people/me/MEMORY.md"):
        assert (target / rel).is_file(), rel
    assert ".env" in (target / ".gitignore").read_text()
    assert "relation: self" in (target / "people/me/PROFILE.md").read_text()
    log = git_log(target)
    assert log == ["init: new HeartCompass workspace"]
    assert git_status(target) == ""


def test_init_default_path_is_home_heartcompass(isolated_home):
    assert run("init").exit_code == 0
    assert (isolated_home / "HeartCompass" / "heartcompass.toml").is_file()
    # found from anywhere afterwards
    assert run("person", "list").exit_code == 0


def test_init_twice_is_harmless(tmp_path):
    target = tmp_path / "brain"
    run("init", str(target))
    before = (target / "heartcompass.toml").read_text()
    result = run("init", str(target))
    assert result.exit_code == 0 and "already a HeartCompass workspace" in result.output
    assert (target / "heartcompass.toml").read_text() == before
    assert len(git_log(target)) == 1


def test_init_refuses_non_empty_folder_unless_forced(tmp_path):
    target = tmp_path / "stuff"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    result = run("init", str(target))
    assert result.exit_code == 1 and "not empty" in result.output and "--force" in result.output
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    assert run("init", str(target), "--force").exit_code == 0
    assert (target / "notes.txt").read_text() == "mine"
    assert (target / "heartcompass.toml").is_file()


def test_commits_fall_back_to_heartcompass_identity(tmp_path):
    target = tmp_path / "brain"
    run("init", str(target))
    author = _git(target, "log", "-1", "--format=%an <%ae>")
    assert author.startswith(FALLBACK_NAME)


def test_commits_use_the_users_identity_when_configured(tmp_path, isolated_home):
    (isolated_home / ".gitconfig").write_text("[user]\n\tname = Wang Lei\n\temail = wl@example.com\n")
    target = tmp_path / "brain"
    run("init", str(target))
    assert _git(target, "log", "-1", "--format=%an <%ae>").strip() == "Wang Lei <wl@example.com>"


def test_discovery_env_and_walk_up(ws, monkeypatch):
    sub = ws.people_dir / "me"
    monkeypatch.chdir(sub)
    assert run("person", "list").exit_code == 0
    monkeypatch.chdir(ws.root.parent)
    monkeypatch.setenv("HEARTCOMPASS_HOME", str(ws.root))
    assert "Me" in run("person", "list").output


def test_no_workspace_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("person", "list")
    assert result.exit_code == 1
    assert "No HeartCompass workspace" in result.output and "heartcompass init" in result.output
    assert "Traceback" not in result.output
    result = run("--workspace", str(tmp_path), "person", "list")
    assert result.exit_code == 1 and "not a HeartCompass workspace" in result.output


def test_config_show_and_set_keep_comments(cli: Runner):
    path = cli.ws.config_path
    result = cli("config", "set", "llm.base_url", "http://127.0.0.1:8080/v1")
    assert "llm.base_url" in result.output
    text = path.read_text()
    assert 'base_url = "http://127.0.0.1:8080/v1"' in text
    assert "# HeartCompass workspace settings." in text and "# auto | openai | ark | openai-compatible" in text
    cli("config", "set", "chat.reply_delay", "0.5,1.5")
    cli("config", "set", "llm.reasoning", "true")
    shown = json.loads(cli("config", "show", "--json").output)
    assert shown["llm.base_url"] == "http://127.0.0.1:8080/v1"
    assert shown["chat.reply_delay"] == [0.5, 1.5] and shown["llm.reasoning"] is True
    assert subjects(cli.ws)[0].startswith("config: llm.reasoning")
    assert "llm.model" in cli("config", "show").output


def test_config_set_refuses_unknown_keys_wrong_types_and_secrets(cli: Runner):
    before = cli.ws.config_path.read_bytes()
    unknown = cli("config", "set", "llm.colour", "red", ok=False)
    assert unknown.exit_code == 1 and "Valid keys:" in unknown.output and "llm.base_url" in unknown.output
    wrong = cli("config", "set", "memory.half_life_days", "soon", ok=False)
    assert wrong.exit_code == 1 and "expects" in wrong.output
    assert cli("config", "set", "llm.provider", "gemini", ok=False).exit_code == 1
    for key, value in (("llm.api_key", "abc"), ("llm.model", "sk-abcdefabcdefabcdef")):
        secret = cli("config", "set", key, value, ok=False)
        assert secret.exit_code == 1 and ".env" in secret.output
    assert cli.ws.config_path.read_bytes() == before


def test_config_hand_edit_is_committed_first(cli: Runner):
    path = cli.ws.config_path
    path.write_text(path.read_text().replace('name = ""', 'name = "Lei"'))
    cli("config", "set", "llm.model", "qwen2.5")
    assert subjects(cli.ws)[:2] == ["config: llm.model = 'qwen2.5'", "edit(config): by hand"]


def test_invalid_toml_is_reported_with_line(cli: Runner):
    path = cli.ws.config_path
    path.write_text(path.read_text() + "\n[llm\n")
    result = cli("config", "show", ok=False)
    assert result.exit_code == 1 and "heartcompass.toml" in result.output and "not valid TOML" in result.output


def git_log(root):
    return _git(root, "log", "--format=%s").splitlines()


def git_status(root):
    return _git(root, "status", "--porcelain")


def _git(root, *args):
    import subprocess

    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_init_example_again_says_what_it_did(tmp_path):
    target = tmp_path / "brain"
    run("init", str(target))
    result = run("init", str(target), "--example")
    assert "added the example person" in result.output and "nothing was changed" not in result.output
    assert len(git_log(target)) == 2
    result = run("init", str(target), "--example")
    assert "nothing was changed" in result.output and len(git_log(target)) == 2


def test_init_example_again_after_a_rename_adds_no_second_alice(tmp_path):
    from conftest import Runner
    from heartcompass.store.creation import create_workspace

    ws, _ = create_workspace(tmp_path / "brain", example=True)
    cli = Runner(ws)
    cli("person", "rename", "alice", "Alice Lin")
    before = subjects(ws)
    result = cli("init", str(ws.root), "--example")
    assert "nothing was changed" in result.output and subjects(ws) == before
    assert not (ws.people_dir / "alice").exists()


def test_a_fresh_example_workspace_has_no_doctor_warnings(tmp_path):
    target = tmp_path / "brain"
    assert run("init", str(target), "--example").exit_code == 0
    result = run("--workspace", str(target), "doctor", env={"OPENAI_API_KEY": "sk-test-not-sent"})
    assert result.exit_code == 0, result.output
    marks = [line.split()[0] for line in result.output.splitlines() if line and not line.startswith(" ")]
    assert set(marks) == {"✓"}, result.output
    assert "links between people, all mutual" in result.output


def test_example_added_later_commits_a_hand_edit_of_me_first(tmp_path):
    target = tmp_path / "brain"
    run("init", str(target))
    me = target / "people" / "me" / "PROFILE.md"
    me.write_text(me.read_text(encoding="utf-8").replace("## Likes\n", "## Likes\n\nTea.\n"), encoding="utf-8")
    assert run("init", str(target), "--example").exit_code == 0
    assert git_log(target)[:2] == ["add(alice): example person", "edit(me): by hand"]
    assert "Tea." in me.read_text(encoding="utf-8") and "- person: alice" in me.read_text(encoding="utf-8")
    assert git_status(target) == ""


def test_init_uses_workspace_option_then_env_and_says_which(tmp_path, isolated_home, monkeypatch):
    result = run("-w", str(tmp_path / "ws5"), "init")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ws5" / "heartcompass.toml").is_file()
    assert "--workspace" in result.output and not (isolated_home / "HeartCompass").exists()
    monkeypatch.setenv("HEARTCOMPASS_HOME", str(tmp_path / "ws6"))
    result = run("init")
    assert (tmp_path / "ws6" / "heartcompass.toml").is_file(), result.output
    assert "$HEARTCOMPASS_HOME" in result.output and not (isolated_home / "HeartCompass").exists()
    assert run("person", "list").exit_code == 0  # found where init put it
    result = run("-w", str(tmp_path / "ws7"), "init", str(tmp_path / "ws8"))  # PATH wins
    assert (tmp_path / "ws8" / "heartcompass.toml").is_file() and not (tmp_path / "ws7").exists()


def test_doctor_counts_in_good_english(tmp_path):
    run("init", str(tmp_path / "brain"))
    out = run("-w", str(tmp_path / "brain"), "doctor").output
    assert "repository with 1 commit\n" in out and "1 person, every file parses" in out


def test_workspace_option_help_names_the_last_default():
    assert "else ~/HeartCompass" in " ".join(run("--help").output.split())


def test_init_where_no_folder_can_be_made_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = CliRunner().invoke(app, ["init", str(blocker / "brain")])
    assert result.exit_code == 1 and "cannot create this folder" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
