"""The settings' promises, tested on their parts (issue 29: store/people's
mutants): every value read from heartcompass.toml or given to `config set`
is typed and in range, or refused saying what is allowed; a bad line is
named by its number; a credential never lands in the committed file and is
never printed; `config set` keeps the file's comments. Pure functions and a
settings file in a temporary folder; no CLI, no subprocess."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from heartcompass.errors import ConfigError, FormatError
from heartcompass.store import config as config_mod
from heartcompass.store import config_values as kinds
from heartcompass.store.credentials import redact, secret_problem, url_problem


def refused(parse, value) -> str:
    with pytest.raises(ValueError) as exc:
        parse(value)
    return str(exc.value)


# -- config_values: one parser per kind ------------------------------------------------------------------------------
def test_text_is_one_visible_line_of_at_most_its_length():
    parse = kinds.text(5)
    assert parse("王磊") == "王磊" and parse("abcde") == "abcde"
    assert refused(parse, "abcdef") == "at most 5 characters"
    assert refused(parse, 5) == "expected text (in quotes)"
    assert refused(parse, "a\nb") == "one line, without control characters or invisible ones"
    assert refused(parse, "a\x7f") == "one line, without control characters or invisible ones"
    assert refused(parse, "a\x00") == "one line, without control characters or invisible ones"
    assert refused(kinds.text(20), "Al\u200bice") == "one line, without control characters or invisible ones"
    assert kinds.text()("x" * 200) == "x" * 200 and refused(kinds.text(), "x" * 201) == "at most 200 characters"


@pytest.mark.parametrize("given, value", [
    (True, True), (False, False), ("true", True), (" Yes ", True), ("ON", True), ("1", True),
    ("false", False), ("no", False), ("Off", False), ("0", False),
])
def test_true_and_false_are_read_in_the_words_people_type(given, value):
    assert kinds.boolean(given) is value


@pytest.mark.parametrize("given", ["maybe", "", 1, 0, None, "tru"])
def test_anything_else_is_not_a_boolean(given):
    assert refused(kinds.boolean, given) == "expected true or false"


def test_a_number_is_finite_and_in_its_range():
    parse = kinds.number(0, 2)
    assert parse(0) == 0.0 and isinstance(parse(0), float) and parse(2) == 2.0 and parse(" 1.5 ") == 1.5
    assert parse(1) == 1.0 and isinstance(parse(1), float)
    assert refused(parse, -0.1) == "out of range" and refused(parse, 2.01) == "out of range"
    assert refused(parse, True) == "expected a number, not true/false"
    assert refused(parse, "abc") == "expected a number"
    assert refused(parse, [1]) == "expected a number"
    assert refused(parse, "nan") == "expected a finite number" and refused(parse, math.inf) == "expected a finite number"


def test_above_excludes_the_low_end_only():
    parse = kinds.number(0, 3600, above=True)
    assert refused(parse, 0) == "out of range" and parse(0.001) == 0.001 and parse(3600) == 3600.0
    assert refused(parse, 3600.5) == "out of range"


def test_a_whole_number_is_whole_and_stays_an_int():
    parse = kinds.number(1, 1_000_000, whole=True)
    assert parse("42") == 42 and isinstance(parse("42"), int) and parse(" +7 ") == 7 and parse(1) == 1
    assert parse(1_000_000) == 1_000_000 and refused(parse, 0) == "out of range"
    assert refused(parse, 1_000_001) == "out of range"
    assert refused(parse, "4.5") == "expected a whole number" and refused(parse, 4.0) == "expected a whole number"
    assert refused(parse, "1" * 13) == "expected a whole number" and refused(parse, "x1") == "expected a whole number"
    assert kinds.number(-5, 5, whole=True)("-3") == -3
    assert refused(kinds.number(0, 10 ** 13, whole=True), "1234567890123") == "expected a whole number"
    assert kinds.number(0, 10 ** 13, whole=True)("123456789012") == 123456789012


@pytest.mark.parametrize("given, value", [
    ("0.8,2.2", [0.8, 2.2]), ("0.8 2.2", [0.8, 2.2]), (" 1, 1 ", [1.0, 1.0]), ("3", [3.0, 3.0]),
    ([0, 60], [0.0, 60.0]), ([2], [2.0, 2.0]), ("1,,2", [1.0, 2.0]),
])
def test_a_reply_delay_is_min_and_max_seconds(given, value):
    assert kinds.delay(given) == value


@pytest.mark.parametrize("given, words", [
    ("2,1", "expected MIN,MAX with MIN <= MAX"), ("1,2,3", "expected MIN,MAX with MIN <= MAX"),
    ([], "expected MIN,MAX with MIN <= MAX"), ("1,61", "expected numbers of seconds from 0 to 60"),
    ("a,b", "expected numbers of seconds from 0 to 60"), (3, "expected two numbers"), ({"a": 1}, "expected two numbers"),
])
def test_a_reply_delay_that_is_not_min_max_is_refused(given, words):
    assert refused(kinds.delay, given) == words


def test_a_provider_is_one_of_the_known():
    assert [kinds.provider(p) for p in kinds.PROVIDERS] == ["auto", "openai", "ark", "openai-compatible"]
    assert refused(kinds.provider, "anthropic") == "one of auto, openai, ark, openai-compatible"


def test_a_time_zone_is_an_iana_name_or_empty():
    assert kinds.timezone("Asia/Shanghai") == "Asia/Shanghai" and kinds.timezone("") == ""
    assert refused(kinds.timezone, "Mars/Olympus") == "an IANA time zone such as Asia/Shanghai or Europe/Berlin, or empty"
    assert refused(kinds.timezone, "../etc") .startswith("an IANA time zone")
    assert refused(kinds.timezone, "A" * 65) == "at most 64 characters"


@pytest.mark.parametrize("given, value", [
    ("http://localhost:11434/v1", "http://localhost:11434/v1"), (" https://x.org ", "https://x.org"), ("", ""),
    ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
])
def test_a_url_is_http_or_https_with_a_host(given, value):
    assert kinds.url(given) == value


@pytest.mark.parametrize("given, words", [
    ("ftp://x.org", "expected an http:// or https:// URL, or empty"), ("http://", "expected an http:// or https:// URL, or empty"),
    ("http://x.org:99999", "with a valid host and port"), ("http://[::1/v1", "with a valid host and port"),
    ("http://:80/v1", "expected an http:// or https:// URL with a host, or empty"), ("x" * 501, "at most 500 characters"),
])
def test_a_url_without_a_host_or_with_a_bad_port_is_refused(given, words):
    assert words in refused(kinds.url, given)


@pytest.mark.parametrize("name", ["origin", "my.remote", "_x", "a/b-c", "0"])
def test_a_remote_name_that_git_reads_as_a_name(name):
    assert kinds.remote(name) == name


@pytest.mark.parametrize("name", ["-upload", "--upload-pack=x", "a..b", "a b", "", "a\x01", "ö"])
def test_a_remote_name_git_could_read_as_an_option_is_refused(name):
    assert refused(kinds.remote, name).startswith(("a git remote name such as origin", "one line"))


def test_a_remote_name_is_at_most_100_characters():
    assert kinds.remote("a" * 100) == "a" * 100 and refused(kinds.remote, "a" * 101) == "at most 100 characters"


def test_sender_ids_are_a_list_or_comma_separated():
    assert kinds.ids("123, ou_abc  456") == ["123", "ou_abc", "456"]
    assert kinds.ids([123, " ou_x "]) == ["123", "ou_x"] and kinds.ids("") == [] and kinds.ids([]) == []
    assert kinds.ids(["a"] * 50) == ["a"] * 50
    words = "sender ids such as 123456789 or ou_abc123, at most 50"
    assert refused(kinds.ids, ["a"] * 51) == words
    assert refused(kinds.ids, [True]) == words and refused(kinds.ids, ["a b"]) == words
    assert refused(kinds.ids, ["x" * 101]) == words and kinds.ids(["x" * 100]) == ["x" * 100]
    assert refused(kinds.ids, 5) == "expected a list of sender ids"


@pytest.mark.parametrize("given, value", [("08:30", "08:30"), ("23:59", "23:59"), ("", ""), ("00:00", "00:00"),
                                          ("19:05", "19:05"), (" 08:30 ", "08:30")])
def test_a_digest_time_is_hh_mm_or_empty(given, value):
    assert kinds.clock_time(given) == value


@pytest.mark.parametrize("given", ["24:00", "8:30", "12:60", "0830", "ab:cd", "2:00"])
def test_a_digest_time_that_is_not_hh_mm_is_refused(given):
    assert refused(kinds.clock_time, given) == "a time of day as HH:MM (24 h), e.g. 08:30, or empty for off"


# -- config: the file read, typed, and its bad lines named -----------------------------------------------------------
def settings(tmp_path: Path, text: str) -> Path:
    path = tmp_path / config_mod.FILENAME
    path.write_text(text, encoding="utf-8")
    return path


def test_a_missing_file_is_every_default(tmp_path):
    cfg = config_mod.load(tmp_path / config_mod.FILENAME)
    assert cfg.as_dict() == {key: spec.default for key, spec in config_mod.KEYS.items()}
    assert not cfg.is_set("user.name") and cfg.get("llm.model") == "gpt-4o-mini"


def test_values_in_the_file_are_typed_and_the_rest_default(tmp_path):
    cfg = config_mod.load(settings(tmp_path, '[user]\nname = "王磊"\n[chat]\nreply_delay = "1,3"\n'
                                             '[llm]\ntimeout = 30\nmax_retries = "5"\n'))
    assert cfg.get("user.name") == "王磊" and cfg.is_set("user.name") and not cfg.is_set("user.timezone")
    assert cfg.get("chat.reply_delay") == [1.0, 3.0] and cfg.get("llm.timeout") == 30.0 and cfg.get("llm.max_retries") == 5
    assert cfg.get("llm.temperature") == 0.8 and cfg.path == tmp_path / config_mod.FILENAME


def test_a_list_setting_is_a_copy_the_caller_may_change(tmp_path):
    cfg = config_mod.load(settings(tmp_path, '[telegram]\nallowed_users = ["1"]\n'))
    cfg.get("telegram.allowed_users").append("2")
    assert cfg.get("telegram.allowed_users") == ["1"]
    config_mod.Config({}).get("chat.reply_delay").append(9.0)
    assert config_mod.Config({}).get("chat.reply_delay") == [0.8, 2.2]


def test_unknown_keys_are_left_alone(tmp_path):
    cfg = config_mod.load(settings(tmp_path, '[user]\nname = "A"\nfuture = 1\n[newsection]\nx = 2\n'))
    assert cfg.get("user.name") == "A"


@pytest.mark.parametrize("text, line, words", [
    ('# comment\n[user]\nname = 5\n', 3, "user.name = 5 is not valid (expected text (in quotes)); allowed: text"),
    ('[llm]\nmodel = "m"\n"temperature" = 9\n', 3, "llm.temperature = 9 is not valid (out of range); allowed: a number from 0 to 2"),
    ("[llm]\n'max_retries' = 99\n", 2, "llm.max_retries = 99 is not valid"),
    ('llm.timeout = 0\n', 1, "llm.timeout = 0 is not valid (out of range)"),
    ('[user]\nname = "x"\n\n[ chat ]\nburst = "maybe"\n', 5, "chat.burst = 'maybe' is not valid (expected true or false)"),
    ('user = 3\n', 1, "[user] must be a table of settings, not 3"),
    ('# mine\nchat = "x"\n', 2, "[chat] must be a table of settings, not 'x'"),
    ('[user]\nname = "a"\n[[chat]]\nburst = true\n', 3, "[chat] must be a table of settings, not [{'burst': True}]"),
    ('[user] # the [me] part\nname = 5\n', 2, "user.name = 5 is not valid"),
    ('[chat]\nreply_delay = [1, 2]\nburst = "maybe"\n', 3, "chat.burst = 'maybe' is not valid"),
    ('[sync]\nllm = 1\n[llm]\ntemperature = 9\n', 4, "llm.temperature = 9 is not valid"),
    ('x = 1\n[user]\nname = "a"\n[llm]\nprovider = "x"\n', 5, "llm.provider = 'x' is not valid"),
])
def test_a_bad_value_names_its_line_and_what_is_allowed(tmp_path, text, line, words):
    path = settings(tmp_path, text)
    with pytest.raises(FormatError) as exc:
        config_mod.load(path)
    assert words in exc.value.message and exc.value.line == line and exc.value.path == path


def test_a_bad_value_is_fixed_by_the_command_the_error_names(tmp_path):
    with pytest.raises(FormatError) as exc:
        config_mod.load(settings(tmp_path, '[llm]\ntemperature = 9\n'))
    assert exc.value.hint == "Fix the line, or run 'heartcompass config set llm.temperature VALUE'."


def test_a_section_that_is_not_a_table_says_how_to_look(tmp_path):
    with pytest.raises(FormatError) as exc:
        config_mod.load(settings(tmp_path, 'chat = "x"\n'))
    assert exc.value.line == 1 and exc.value.hint == "Fix the line; see 'heartcompass config show'."


def test_without_the_text_a_bad_value_names_no_line():
    with pytest.raises(FormatError) as exc:
        config_mod.Config({"user": {"name": 5}})
    assert exc.value.line is None and str(exc.value.path) == config_mod.FILENAME


def test_a_credential_in_a_bad_value_is_not_printed(tmp_path):
    with pytest.raises(FormatError) as exc:
        config_mod.load(settings(tmp_path, '[llm]\nbase_url = "ftp://u:hunter2@x.org"\n'))
    assert "hunter2" not in exc.value.message and "llm.base_url = 'ftp://***@x.org'" in exc.value.message


def test_not_strict_keeps_a_bad_value_aside_and_uses_the_default(tmp_path):
    cfg = config_mod.load(settings(tmp_path, '[llm]\ntemperature = 9\nmodel = "m"\n'), strict=False)
    assert cfg.invalid == {"llm.temperature": 9} and cfg.get("llm.temperature") == 0.8 and cfg.get("llm.model") == "m"
    assert not cfg.is_set("llm.temperature")


def test_a_file_that_is_not_toml_is_refused_with_its_line_and_the_way_back(tmp_path):
    path = settings(tmp_path, '[user]\nname = "a"\nname = = 1\n')
    for strict in (True, False):
        with pytest.raises(FormatError) as exc:
            config_mod.load(path, strict=strict)
        assert exc.value.line == 3 and exc.value.problem == "not valid TOML (Invalid value)"
        assert exc.value.hint == f"Fix the line, or take back the last committed version: git -C {tmp_path} checkout -- heartcompass.toml"


def test_values_nested_too_deeply_are_not_a_traceback(tmp_path):
    path = settings(tmp_path, "x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(FormatError) as exc:
        config_mod.load(path)
    assert exc.value.problem == "not valid settings: values nested too deeply" and exc.value.line is None
    assert exc.value.hint.endswith(f"git -C {tmp_path} checkout -- heartcompass.toml")


def test_an_override_in_the_environment_is_typed_and_checked():
    assert config_mod.env_overrides({}) == {}
    found = config_mod.env_overrides({"HEARTCOMPASS_LLM_MODEL": "qwen", "HEARTCOMPASS_LLM_PROVIDER": "",
                                      "HEARTCOMPASS_LLM_BASE_URL": "http://h:1/v1"})
    assert found == {"llm.model": ("HEARTCOMPASS_LLM_MODEL", "qwen"),
                     "llm.base_url": ("HEARTCOMPASS_LLM_BASE_URL", "http://h:1/v1")}
    with pytest.raises(ConfigError) as exc:
        config_mod.env_overrides({"HEARTCOMPASS_LLM_PROVIDER": "nope"})
    assert exc.value.message == ("$HEARTCOMPASS_LLM_PROVIDER = 'nope' is not valid (one of auto, openai, ark, "
                                 "openai-compatible); allowed for llm.provider: auto|openai|ark|openai-compatible.")
    assert exc.value.hint == ("Fix the variable, or unset it ('unset HEARTCOMPASS_LLM_PROVIDER') to use llm.provider "
                              "from heartcompass.toml.")


def test_an_override_read_from_this_process_environment(monkeypatch):
    monkeypatch.setenv("HEARTCOMPASS_LLM_MODEL", "from-env")
    assert config_mod.env_overrides() == {"llm.model": ("HEARTCOMPASS_LLM_MODEL", "from-env")}


def test_a_credential_in_a_bad_override_is_not_printed():
    with pytest.raises(ConfigError) as exc:
        config_mod.env_overrides({"HEARTCOMPASS_LLM_BASE_URL": "ftp://u:hunter2@x.org"})
    assert "hunter2" not in exc.value.message and "ftp://***@x.org" in exc.value.message


def test_a_credential_put_in_by_hand_is_found_even_in_a_bad_value(tmp_path):
    path = settings(tmp_path, '[llm]\nmodel = "sk-abcdefghijklmnopqrstuvwx"\nbase_url = "ftp://u:p@x"\n')
    with pytest.raises(FormatError):
        config_mod.load_for_commit(path)  # strict: the bad value itself is refused first
    cfg = config_mod.load(path, strict=False)
    assert config_mod.secrets_in(cfg) == [
        ("llm.model", "the value looks like an API key or token"),
        ("llm.base_url", "the URL carries a user name or password (user:password@host)")]
    with pytest.raises(ConfigError) as exc:
        config_mod.load_for_commit(path, strict=False)
    assert exc.value.message.startswith(f"{path}: llm.model: the value looks like an API key or token; not committing")
    assert "config set llm.model" in exc.value.hint
    settings(tmp_path, '[llm]\nmodel = "sk-abcdefghijklmnopqrstuvwx"\n')
    with pytest.raises(ConfigError):
        config_mod.check_committable(tmp_path, config_mod.FILENAME)
    config_mod.check_committable(tmp_path, "people/alice/PROFILE.md")  # not the settings: not its checks
    clean = settings(tmp_path, '[llm]\nmodel = "gpt"\n')
    assert config_mod.load_for_commit(clean).get("llm.model") == "gpt" and config_mod.secrets_in(config_mod.load(clean)) == []


def test_a_mistyped_key_gets_the_close_ones_else_every_key():
    assert config_mod.valid_keys_text("user.nmae") == ("Did you mean user.name? ('heartcompass config show' lists "
                                                       "every setting.)")
    assert config_mod.valid_keys_text("llm.modle") .startswith("Did you mean llm.model")
    every = config_mod.valid_keys_text("zzz")
    assert every == "Valid keys: " + ", ".join(config_mod.KEYS) + "." == config_mod.valid_keys_text()


def test_config_set_refuses_secrets_unknown_keys_and_bad_values_before_writing():
    with pytest.raises(ConfigError) as exc:
        config_mod.parse_value("llm.api_key", "x")
    assert exc.value.message == ("Refusing to store this in heartcompass.toml: 'llm.api_key' is a name for a secret, "
                                 "and that file is committed to git.")
    assert "HEARTCOMPASS_LLM_API_KEY" in exc.value.hint
    for key in ("x.password", "x.PASSWD", "a.secret", "llm.token", "llm.apikey"):
        with pytest.raises(ConfigError, match="is a name for a secret"):
            config_mod.parse_value(key, "x")
    with pytest.raises(ConfigError) as exc:
        config_mod.parse_value("llm.base_url", "http://h/v1?api_key=abc")
    assert "the URL carries a credential in its query (?api_key=...)" in exc.value.message
    with pytest.raises(ConfigError) as exc:
        config_mod.parse_value("user.nmae", "x")
    assert exc.value.message == "Unknown setting 'user.nmae'." and exc.value.hint.startswith("Did you mean user.name")
    with pytest.raises(ConfigError) as exc:
        config_mod.parse_value("llm.temperature", "hot")
    assert exc.value.message == "llm.temperature expects a number from 0 to 2; 'hot' is not valid (expected a number)."
    assert config_mod.parse_value("chat.history_budget_tokens", "2000") == 2000
    assert config_mod.parse_value("memory.context_budget_tokens", "1") == 1  # tokens: a token budget, not a secret


def test_config_set_keeps_comments_and_layout(tmp_path):
    path = settings(tmp_path, '# mine\n[user]\nname = ""  # your name\n')
    assert config_mod.set_value(path, "user.name", "王磊") == "王磊"
    assert path.read_text(encoding="utf-8") == '# mine\n[user]\nname = "王磊"  # your name\n'
    assert config_mod.set_value(path, "llm.max_retries", "4") == 4
    assert config_mod.load(path).get("llm.max_retries") == 4 and "[llm]" in path.read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8").startswith('# mine\n[user]\nname = "王磊"  # your name\n')


def test_config_set_makes_the_file_when_there_is_none(tmp_path):
    path = tmp_path / config_mod.FILENAME
    config_mod.set_value(path, "chat.burst", "yes")
    assert config_mod.load(path).get("chat.burst") is True


def test_config_set_and_unset_refuse_a_file_that_is_not_toml_but_fix_a_bad_value(tmp_path):
    path = settings(tmp_path, '[llm]\ntemperature = 9\n')
    config_mod.set_value(path, "llm.temperature", "1")
    assert config_mod.load(path).get("llm.temperature") == 1.0
    path.write_text('[llm]\ntemperature = 9\n', encoding="utf-8")
    assert config_mod.unset_value(path, "llm.temperature") is True
    assert config_mod.load(path).get("llm.temperature") == 0.8
    broken = '[llm\ntemperature = 1\n'
    path.write_text(broken, encoding="utf-8")
    for edit in (lambda: config_mod.set_value(path, "llm.temperature", "1"),
                 lambda: config_mod.unset_value(path, "llm.temperature")):
        with pytest.raises(FormatError):
            edit()
    assert path.read_text(encoding="utf-8") == broken


def test_config_unset_removes_only_that_line(tmp_path):
    path = settings(tmp_path, '# mine\n[user]\nname = "A"  # me\ntimezone = "Asia/Shanghai"\n')
    assert config_mod.unset_value(path, "user.name") is True
    assert path.read_text(encoding="utf-8") == '# mine\n[user]\ntimezone = "Asia/Shanghai"\n'
    assert config_mod.unset_value(path, "user.name") is False
    assert config_mod.unset_value(path, "llm.model") is False  # no [llm] at all
    assert config_mod.unset_value(tmp_path / "none" / config_mod.FILENAME, "user.name") is False
    with pytest.raises(ConfigError) as exc:
        config_mod.unset_value(path, "user.nmae")
    assert exc.value.message == "Unknown setting 'user.nmae'." and exc.value.hint.startswith("Did you mean user.name")
    assert path.read_text(encoding="utf-8") == '# mine\n[user]\ntimezone = "Asia/Shanghai"\n'


def test_every_key_has_a_default_its_own_parser_accepts():
    for key, spec in config_mod.KEYS.items():
        assert spec.parse(spec.default) == spec.default, key


# -- credentials: recognised, never stored, never printed ------------------------------------------------------------
@pytest.mark.parametrize("value, problem", [
    ("sk-proj-abcdefghijklmnop1234", "the value looks like an API key or token"),
    ("AKIAABCDEFGHIJKLMNOP", "the value looks like an API key or token"),
    ("Bearer abc", "the value looks like an API key or token"),
    ("-----BEGIN RSA PRIVATE KEY-----", "the value looks like an API key or token"),
    ("http://user:pw@host/v1", "the URL carries a user name or password (user:password@host)"),
    ("see https://h/v1?x=1&access-token=abc", "the URL carries a credential in its query (?access-token=...)"),
    ("https://h/v1?my_secret=abc", "the URL carries a credential in its query (?my_secret=...)"),
    ("https://h/v1?X-Amz-Signature=abc", "the URL carries a credential in its query (?X-Amz-Signature=...)"),
])
def test_a_credential_is_recognised_in_any_value(value, problem):
    assert secret_problem(value) == problem


@pytest.mark.parametrize("value", [
    "ep-20250101123456-abcde", "ft:gpt-4o-mini-2024-07-18:org:x:AbCd12", "task-abcdefghijklmnopqrstuv",
    "https://h/v1?key=", "https://h/v1?monkey_business=1", "http://localhost:11434/v1", "gpt-4o-mini",
    "https://h/v1?keys=1",
])
def test_long_ids_and_plain_urls_are_not_credentials(value):
    assert secret_problem(value) is None


def test_a_url_that_cannot_be_split_carries_nothing_we_can_name():
    assert url_problem("http://[::1") is None and url_problem(" http://a:b@h ") is not None


def test_redact_hides_the_secret_and_keeps_the_shape():
    assert redact("http://user:pw@host/v1?api_key=abc&model=x") == "http://***@host/v1?api_key=***&model=x"
    assert redact("url https://h/v1?key=&x=1") == "url https://h/v1?key=&x=1"
    assert redact("key sk-abcdefghijklmnopqrst here") == "key sk-*** here"
    assert redact("-----BEGIN PRIVATE KEY-----") == "***"
    assert redact("nothing here") == "nothing here"


# -- exact words a user reads ------------------------------------------------------------------------------------
def test_two_close_keys_are_offered_as_either():
    assert config_mod.valid_keys_text("allowed_users") == (
        "Did you mean lark.allowed_users or telegram.allowed_users? ('heartcompass config show' lists every setting.)")


def test_a_secret_refused_says_where_keys_go_instead():
    with pytest.raises(ConfigError) as exc:
        config_mod.parse_value("llm.model", "sk-abcdefghijklmnopqrstuvwx")
    assert exc.value.message == ("Refusing to store this in heartcompass.toml: the value looks like an API key or "
                                 "token, and that file is committed to git.")
    assert exc.value.hint == (
        "Put API keys in the environment or in the workspace's .env file (git-ignored), e.g. OPENAI_API_KEY=..., "
        "ARK_API_KEY=... or HEARTCOMPASS_LLM_API_KEY=... for llm.base_url's endpoint; keep the URL itself without "
        "user:password@ or ?key=.")


def test_a_remote_name_may_have_capitals_and_a_refusal_says_what_a_name_is():
    assert kinds.remote("Origin") == "Origin" and kinds.remote("GitHub/Main") == "GitHub/Main"
    assert refused(kinds.remote, "-x") == ("a git remote name such as origin (letters, digits, '.', '_', '-', '/'; "
                                           "not starting with '-')")


def test_a_digest_time_longer_than_hh_mm_says_so():
    assert refused(kinds.clock_time, "08:300") == "a time of day as HH:MM (24 h), e.g. 08:30, or empty for off"
    assert refused(kinds.clock_time, "08:30" + " " * 12) == "at most 16 characters"


def test_a_refused_url_says_what_a_url_needs():
    assert refused(kinds.url, "ftp://x.org") == "expected an http:// or https:// URL, or empty"
    assert refused(kinds.url, "http://x.org:99999") == ("expected an http:// or https:// URL with a valid host and "
                                                        "port, e.g. http://[::1]:8080/v1, or empty")
    assert refused(kinds.url, "http://:80/v1") == "expected an http:// or https:// URL with a host, or empty"


def test_a_credential_in_a_url_of_any_case_is_redacted():
    assert redact("HTTP://u:pw@h/x") == "HTTP://***@h/x"


def test_sender_ids_may_have_capitals():
    assert kinds.ids("ou_ABC123, OC_x") == ["ou_ABC123", "OC_x"]


def test_a_file_cut_short_is_refused_without_a_line_and_with_the_way_back(tmp_path):
    with pytest.raises(FormatError) as exc:
        config_mod.load(settings(tmp_path, '[user]\nname = "a'))
    assert exc.value.problem == "not valid TOML (Unterminated string)" and exc.value.line is None


def test_values_nested_too_deeply_say_how_to_take_the_file_back(tmp_path):
    with pytest.raises(FormatError) as exc:
        config_mod.load(settings(tmp_path, "x = " + "[" * 100_000 + "]" * 100_000 + "\n"))
    assert exc.value.hint == f"Fix the file, or take back the last committed version: git -C {tmp_path} checkout -- heartcompass.toml"


def test_a_missing_file_still_says_where_it_belongs(tmp_path):
    assert config_mod.load(tmp_path / config_mod.FILENAME).path == tmp_path / config_mod.FILENAME


def test_one_bad_value_set_aside_does_not_hide_the_values_after_it(tmp_path):
    cfg = config_mod.load(settings(tmp_path, '[user]\nname = 5\n[llm]\nmodel = "m"\n[git]\nhooks = false\n'), strict=False)
    assert cfg.invalid == {"user.name": 5} and cfg.get("llm.model") == "m" and cfg.get("git.hooks") is False


def test_a_name_in_full_width_letters_is_kept_as_typed():
    assert kinds.text(20)("Ｌｅｉ ﬁ") == "Ｌｅｉ ﬁ"
