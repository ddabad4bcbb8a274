"""heartcompass.toml: typed, ranged settings read by every reader, and no
credential ever stored or printed."""

from __future__ import annotations

import json
import re

import pytest

from conftest import Runner, subjects, tree_snapshot
from heartcompass.store import config
from heartcompass.errors import FormatError


def _hand_edit(path, line: str) -> int:
    """Replace the template's line for the same name with `line`; its line number."""
    name = line.split("=")[0].strip()
    lines = path.read_text().splitlines()
    index = next(i for i, old in enumerate(lines) if re.match(rf"{name}\s*=", old))
    lines[index] = line
    path.write_text("\n".join(lines) + "\n")
    return index + 1


def _set_in_file(cli: Runner, section: str, line: str) -> None:
    _hand_edit(cli.ws.config_path, line)
    cli.ws.reload_config()


# -- secrets -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, value", [
    ("llm.base_url", "https://user:sk-abcdefabcdef1234567890@api.example.com/v1"),
    ("llm.base_url", "https://token123@api.example.com/v1"),
    ("llm.base_url", "https://api.example.com/v1?api_key=sk-abcdefabcdef1234567890"),
    ("llm.base_url", "https://api.example.com/v1?foo=1&access_token=abc123"),
    ("llm.base_url", "https://api.example.com/v1?sig=abc123"),
    ("llm.base_url", "https://api.example.com/v1?X-Api-Key=abc123"),
    ("llm.model", "AKIAIOSFODNN7EXAMPLE"),
    ("llm.model", "xoxb-1234567890-abcdefghij"),
    ("llm.model", "sk_live_abcdefghij1234567890"),
    ("llm.model", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("llm.model", "sk-proj-abcdefghijklmnopqrstuvwx"),
    ("user.name", "Bearer abcdef123456"),
    ("llm.api_key", "anything"),
])
def test_credentials_are_refused_and_point_to_dotenv(cli: Runner, key, value):
    before = cli.ws.config_path.read_bytes()
    n = len(subjects(cli.ws))
    result = cli("config", "set", key, value, ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert ".env" in result.output and "Refusing" in result.output
    assert cli.ws.config_path.read_bytes() == before and len(subjects(cli.ws)) == n


@pytest.mark.parametrize("key, value", [
    ("llm.model", "ep-20250101123456-abcde"),
    ("llm.model", "ft:gpt-4o-mini-2024-07-18:org:name:AbCdEf12"),
    ("llm.model", "Qwen2.5-72B-Instruct-GPTQ-Int4abcdefghijklmnop"),
    ("llm.model", "a" * 40),
    ("llm.model", "doubao-seed-1-6-250615"),
    ("llm.base_url", "https://my-resource.openai.azure.com/openai?api-version=2024-06-01"),
    ("llm.base_url", "http://localhost:11434/v1"),
    ("user.name", "task-force-alpha-omega-1234567890"),
])
def test_legitimate_long_ids_and_urls_are_accepted(cli: Runner, key, value):
    cli("config", "set", key, value)
    cli.ws.reload_config()
    assert cli.ws.config.get(key) == value


def test_doctor_never_prints_a_credential_put_in_the_file_by_hand(cli: Runner):
    secret = "sk-handputsecret1234567890abcd"
    _set_in_file(cli, "llm", f'base_url = "https://lei:{secret}@api.example.com/v1?api_key={secret}"')
    result = cli("doctor", ok=False)
    assert secret not in result.output and "Traceback" not in result.output
    assert "secrets" in result.output and ".env" in result.output and "api.example.com" in result.output
    assert result.exit_code == 1
    shown = cli("config", "show", "--json").output
    assert secret not in shown and "***" in shown
    assert secret not in cli("config", "show").output


def test_redact_keeps_the_shape_but_not_the_key():
    from heartcompass.store.credentials import redact

    text = redact("openai-compatible · m · https://u:p4ss@h.example/v1?token=t0k&x=1 and sk-abcdefghijklmnop1234")
    assert "p4ss" not in text and "t0k" not in text and "abcdefghijklmnop1234" not in text
    assert "h.example/v1" in text and "x=1" in text


# -- typed settings --------------------------------------------------------------------------------------
def test_string_values_are_typed_when_read(cli: Runner):
    _set_in_file(cli, "llm", 'reasoning = "false"')
    _set_in_file(cli, "chat", 'reply_delay = "0.5,1"')
    cfg = cli.ws.config
    assert cfg.get("llm.reasoning") is False
    assert cfg.get("chat.reply_delay") == [0.5, 1.0]
    assert cli("doctor", ok=False).output.count("config") >= 1
    from heartcompass.llm import providers as llm

    assert llm.settings(cli.ws).reasoning is False


def test_chat_reads_a_string_reply_delay(example_cli: Runner, fake_llm):
    path = example_cli.ws.config_path
    path.write_text(path.read_text().replace("reply_delay = [0.8, 2.2]", 'reply_delay = "0,0"'))
    fake_llm.enqueue("hi there")
    result = example_cli("chat", "alice", "-m", "hello")
    assert "Traceback" not in result.output and "hi there" in result.output


@pytest.mark.parametrize("line, section, key", [
    ("timeout = nan", "llm", "llm.timeout"),
    ("timeout = inf", "llm", "llm.timeout"),
    ("timeout = -1", "llm", "llm.timeout"),
    ("max_retries = 99999999999999999999", "llm", "llm.max_retries"),
    ("max_retries = 2.5", "llm", "llm.max_retries"),
    ("temperature = true", "llm", "llm.temperature"),
    ('reasoning = "maybe"', "llm", "llm.reasoning"),
    ('reply_delay = "2,1"', "chat", "chat.reply_delay"),
    ("reply_delay = [1, 2, 3]", "chat", "chat.reply_delay"),
    ("history_budget_tokens = 0", "chat", "chat.history_budget_tokens"),
    ("half_life_days = nan", "memory", "memory.half_life_days"),
    ('provider = "gemini"', "llm", "llm.provider"),
    ('base_url = "localhost:8080"', "llm", "llm.base_url"),
])
def test_bad_values_in_the_file_name_the_file_line_and_allowed_values(cli: Runner, line, section, key):
    path = cli.ws.config_path
    lineno = _hand_edit(path, line)
    with pytest.raises(FormatError) as err:
        config.load(path)
    assert f"heartcompass.toml:{lineno}" in err.value.message and key in err.value.message
    assert "allowed:" in err.value.message
    result = cli("doctor", ok=False)
    assert result.exit_code == 1 and f"heartcompass.toml:{lineno}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("key, value", [
    ("llm.timeout", "nan"), ("llm.timeout", "inf"), ("llm.timeout", "0"),
    ("llm.max_retries", "99999999999999999999"), ("llm.max_retries", "21"), ("llm.temperature", "5"),
    ("chat.reply_delay", "0.5,abc"), ("chat.reply_delay", "1,1000"), ("user.name", "two\nlines"),
])
def test_config_set_validates_with_the_same_model(cli: Runner, key, value):
    before = cli.ws.config_path.read_bytes()
    result = cli("config", "set", key, value, ok=False)
    assert result.exit_code == 1 and "expects" in result.output and "Traceback" not in result.output
    assert cli.ws.config_path.read_bytes() == before


def test_get_returns_typed_values_and_set_keeps_types(cli: Runner):
    cli("config", "set", "llm.max_retries", "5")
    cli("config", "set", "llm.timeout", "30")
    cli("config", "set", "llm.reasoning", "off")
    text = cli.ws.config_path.read_text()
    assert "max_retries = 5" in text and "timeout = 30.0" in text and "reasoning = false" in text
    cli.ws.reload_config()
    cfg = cli.ws.config
    assert cfg.get("llm.max_retries") == 5 and isinstance(cfg.get("llm.max_retries"), int)
    assert cfg.get("llm.timeout") == 30.0 and isinstance(cfg.get("llm.timeout"), float)
    assert cfg.get("llm.reasoning") is False
    shown = json.loads(cli("config", "show", "--json").output)
    assert shown["llm.timeout"] == 30.0 and shown["llm.max_retries"] == 5


def test_a_section_that_is_not_a_table_is_a_format_error(cli: Runner):
    path = cli.ws.config_path
    path.write_text("llm = 3\n")
    result = cli("config", "show", ok=False)
    assert result.exit_code == 1 and "heartcompass.toml:1" in result.output and "Traceback" not in result.output


def test_chat_never_prints_the_credential_of_a_hand_edited_url(example_cli: Runner):
    secret = "hunter2hunter2"
    path = example_cli.ws.config_path
    path.write_text(path.read_text().replace('base_url = ""', f'base_url = "http://lei:{secret}@127.0.0.1:9/v1"'))
    result = example_cli("chat", "alice", "-m", "hi", ok=False)
    assert secret not in result.output and "127.0.0.1:9" in result.output and "Traceback" not in result.output


# -- config show | get | unset (issue 12) -------------------------------------------------------------------
def test_config_show_does_not_truncate_and_shows_environment_overrides(cli: Runner):
    long_url = "http://127.0.0.1:8080/" + "v1/" * 40
    cli("config", "set", "llm.base_url", long_url)
    shown = cli("config", "show", env={"COLUMNS": "80", "HEARTCOMPASS_LLM_MODEL": "qwen-from-env"}).output
    assert "".join(shown.split()).count("v1/" * 40) == 1, shown
    assert "qwen-from-env" in shown and "$HEARTCOMPASS_LLM_MODEL" in shown and "gpt-4o-mini" in shown


def test_config_get_prints_the_value_in_use(cli: Runner):
    assert cli("config", "get", "llm.model").output.strip() == "gpt-4o-mini"
    assert cli("config", "get", "chat.reply_delay").output.strip() == "0.8,2.2"
    assert cli("config", "get", "llm.reasoning").output.strip() == "false"
    got = json.loads(cli("config", "get", "llm.model", "--json", env={"HEARTCOMPASS_LLM_MODEL": "m2"}).output)
    assert got == {"key": "llm.model", "value": "m2", "source": "$HEARTCOMPASS_LLM_MODEL", "file_value": "gpt-4o-mini"}
    bad = cli("config", "get", "llm.colour", ok=False)
    assert bad.exit_code == 1 and "Valid keys" in bad.output


def test_config_unset_restores_the_default_keeping_comments(cli: Runner):
    cli("config", "set", "llm.model", "qwen2.5")
    result = cli("config", "unset", "llm.model")
    assert "removed" in result.output and subjects(cli.ws)[0] == "config: unset llm.model"
    text = cli.ws.config_path.read_text()
    assert "model =" not in text and "# auto | openai | ark | openai-compatible" in text
    cli.ws.reload_config()
    assert cli.ws.config.get("llm.model") == "gpt-4o-mini" and not cli.ws.config.is_set("llm.model")
    n = len(subjects(cli.ws))
    assert "not set" in cli("config", "unset", "llm.model").output and len(subjects(cli.ws)) == n


def test_config_set_and_show_print_markup_as_text(cli: Runner):
    result = cli("config", "set", "user.name", "[/]")
    assert "user.name = '[/]'" in result.output
    assert "'[/]'" in cli("config", "show").output


def test_a_non_utf8_or_unreadable_settings_file_is_one_clear_line(cli: Runner):
    path = cli.ws.config_path
    path.write_bytes(path.read_bytes().replace(b'name = ""', b'name = "Ren\xe9"'))
    result = cli("config", "show", ok=False)
    assert result.exit_code == 1 and "heartcompass.toml:7:" in result.output and "UTF-8" in result.output
    assert "Traceback" not in result.output
    path.unlink()
    path.mkdir()
    result = cli("doctor", ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_a_credential_put_in_by_hand_is_never_committed(cli: Runner):
    path = cli.ws.config_path
    secret = "sk-handputsecret1234567890abcd"
    _hand_edit(path, f'base_url = "https://api.example.com/v1?api_key={secret}"')
    n = len(subjects(cli.ws))
    for args in (("config", "set", "llm.model", "qwen2.5"), ("config", "unset", "llm.model"), ("sync",)):
        result = cli(*args, ok=False)
        assert result.exit_code != 0 and secret not in result.output and "Traceback" not in result.output, args
        assert ".env" in result.output or args == ("sync",)
    assert len(subjects(cli.ws)) == n
    from conftest import git

    assert secret not in git(cli.ws, "log", "-p")


def test_setting_names_complete_in_the_shell(cli: Runner):
    from typer.testing import CliRunner

    from heartcompass.cli.app import app

    result = CliRunner().invoke(app, [], prog_name="heartcompass", env={
        "_HEARTCOMPASS_COMPLETE": "complete_bash", "COMP_WORDS": "heartcompass config set llm.t", "COMP_CWORD": "3"})
    assert result.output.split() == ["llm.temperature", "llm.timeout"]


def test_config_show_prints_a_list_as_config_set_takes_it(cli: Runner):
    assert "chat.reply_delay = 0.5,1.5 " in cli("config", "set", "chat.reply_delay", "0.5,1.5").output
    shown = cli("config", "show").output
    line = next(line for line in shown.splitlines() if line.startswith("chat.reply_delay"))
    assert line.startswith("chat.reply_delay = 0.5,1.5 ") and "[" not in line.split("#")[0], line
    cli("config", "set", "chat.reply_delay", line.split(" = ")[1].split()[0])  # what is shown can be typed back
    assert json.loads(cli("config", "show", "--json").output)["chat.reply_delay"] == [0.5, 1.5]
    assert "its default 0.8,2.2 applies" in cli("config", "unset", "chat.reply_delay").output


@pytest.mark.parametrize("var, value, words", [
    ("HEARTCOMPASS_LLM_BASE_URL", "ftp://127.0.0.1/v1", "http:// or https://"),
    ("HEARTCOMPASS_LLM_MODEL", "m" * 300, "at most 200 characters"),
    ("HEARTCOMPASS_LLM_MODEL", "qwen\x1b]0;x", "control characters"),
    ("HEARTCOMPASS_LLM_PROVIDER", "ollama", "auto, openai, ark, openai-compatible"),
])
def test_environment_overrides_are_checked_like_the_file(example_cli: Runner, fake_llm, var, value, words):
    before = tree_snapshot(example_cli.ws.root)
    for args in (("chat", "alice", "-m", "hi"), ("config", "show"), ("doctor",)):
        result = example_cli(*args, env={var: value}, ok=False)
        assert result.exit_code != 0 and f"${var}" in result.output and words in result.output, result.output
        assert "Traceback" not in result.output
    assert fake_llm.purposes == [] and tree_snapshot(example_cli.ws.root) == before


def test_sync_continue_never_commits_a_credential_put_in_while_resolving(example_cli: Runner, tmp_path):
    """The one path that committed heartcompass.toml unchecked: a sync conflict
    in it, resolved by hand, staged by 'sync --continue' and pushed."""
    import subprocess

    from conftest import git
    from heartcompass.store.workspace import Workspace

    desktop = example_cli
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(desktop.ws, "remote", "add", "origin", str(bare))
    desktop("sync")
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "laptop")], check=True)
    laptop = Runner(Workspace(tmp_path / "laptop"))
    desktop("config", "set", "llm.model", "qwen2.5")
    desktop("sync")
    laptop("config", "set", "llm.model", "deepseek-chat")
    assert "Conflict" in laptop("sync", ok=False).output
    secret = "sk-proj-resolvedwithakey1234567890"
    text = laptop.ws.config_path.read_text()
    laptop.ws.config_path.write_text(re.sub(r"<<<<<<< [^\n]*\n.*?>>>>>>> [^\n]*\n", f'model = "{secret}"\n', text,
                                            flags=re.S))
    result = laptop("sync", "--continue", ok=False)
    assert result.exit_code != 0 and "llm.model" in result.output and ".env" in result.output
    assert secret not in result.output and "Traceback" not in result.output
    assert secret not in git(laptop.ws, "log", "--all", "-p") and secret not in git(desktop.ws, "log", "-p")
    assert secret not in subprocess.run(["git", "--git-dir", str(bare), "log", "--all", "-p"], capture_output=True,
                                        text=True, check=True).stdout


def test_the_printed_fix_for_a_bad_value_works(cli: Runner):
    """The error said "run 'heartcompass config set llm.temperature VALUE'",
    and that command failed with the same error."""
    path = cli.ws.config_path
    _hand_edit(path, 'temperature = "hot"')
    result = cli("person", "list", ok=False)
    assert "config set llm.temperature VALUE" in result.output
    result = cli("config", "set", "llm.temperature", "0.7")
    assert "temperature = 0.7" in path.read_text() and "hot" not in path.read_text()
    assert subjects(cli.ws)[:2] == ["config: llm.temperature = 0.7", "edit(config): by hand"]
    assert "Warning" not in result.output and cli("person", "list").exit_code == 0
    # another key bad: set works, the file keeps that line and says so; unset works too
    _hand_edit(path, "timeout = -1")
    result = cli("config", "set", "user.name", "王磊")
    assert 'name = "王磊"' in path.read_text() and "Warning:" in result.output and "llm.timeout" in result.output
    _hand_edit(path, 'temperature = "hot"')
    cli("config", "unset", "llm.temperature")
    cli("config", "unset", "llm.timeout")
    assert "temperature" not in path.read_text() and cli("config", "show").exit_code == 0


def test_config_set_still_refuses_a_file_that_is_not_toml(cli: Runner):
    path = cli.ws.config_path
    path.write_text(path.read_text() + "[llm\n")
    before = path.read_text()
    result = cli("config", "set", "llm.temperature", "0.7", ok=False)
    assert result.exit_code == 1 and "not valid TOML" in result.output and path.read_text() == before


def test_config_set_refuses_to_commit_a_key_hidden_in_a_bad_value(cli: Runner):
    path = cli.ws.config_path
    _hand_edit(path, 'temperature = "sk-' + "a" * 40 + '"')
    result = cli("config", "set", "user.name", "王磊", ok=False)
    assert result.exit_code == 1 and "not committing it" in result.output


def test_config_show_labels_every_source(cli: Runner):
    cli("config", "set", "llm.temperature", "0.7")
    cli("config", "unset", "llm.timeout")
    shown = cli("config", "show", env={"HEARTCOMPASS_LLM_MODEL": "qwen-from-env"}).output.splitlines()
    line = {ln.split(" = ")[0]: ln for ln in shown if " = " in ln}
    assert "(file)" in line["llm.temperature"] and "(default)" in line["llm.timeout"]
    assert "from $HEARTCOMPASS_LLM_MODEL" in line["llm.model"]
