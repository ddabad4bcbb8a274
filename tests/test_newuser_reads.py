"""Dates and names read right (issue 30): WhatsApp's date order from the
whole file, iOS's year-first stamps, names that resolve as people say them."""

from __future__ import annotations

from conftest import Runner, log_entries


def _days(ws, slug="alice") -> list[str]:
    from heartcompass.formats import dailylog

    return dailylog.log_dates(ws.people_dir / slug)


def test_whatsapp_dates_that_only_run_forwards_month_first_are_read_month_first(example_cli: Runner, tmp_path):
    export = tmp_path / "pustur.txt"  # the public sample's shape: no field over 12, a 24-hour clock
    export.write_text("06/03/2017, 21:03 - Alice: hola\n06/03/2017, 21:04 - Bo: hi\n"
                      "08/05/2017, 10:00 - Alice: otra vez\n09/04/2017, 11:00 - Bo: ok\n", encoding="utf-8")
    example_cli("import", "alice", str(export), "--me", "Bo")
    assert _days(example_cli.ws) == ["2017-06-03", "2017-08-05", "2017-09-04"]


def test_whatsapp_dates_that_run_forwards_day_first_stay_day_first(example_cli: Runner, tmp_path):
    export = tmp_path / "eu.txt"
    export.write_text("03/06/2017, 21:03 - Alice: hola\n05/08/2017, 10:00 - Bo: hi\n04/09/2017, 11:00 - Alice: ok\n",
                      encoding="utf-8")
    example_cli("import", "alice", str(export), "--me", "Bo")
    assert _days(example_cli.ws) == ["2017-06-03", "2017-08-05", "2017-09-04"]


def test_ios_year_first_stamps_in_chinese_and_english_are_whatsapp(example_cli: Runner, tmp_path):
    cn = tmp_path / "cn.txt"
    cn.write_text("[2025/11/14 下午9:03:15] 小爱: 你好\n[2025/11/14 上午12:04:00] 我: 嗨\n", encoding="utf-8")
    example_cli("import", "alice", str(cn), "--me", "我")
    en = tmp_path / "en.txt"
    en.write_text("[2025/11/15 9:03:15 PM] Alice: hello\n[2025/11/15 9:04:00 PM] Me: hi\n", encoding="utf-8")
    example_cli("import", "alice", str(en), "--me", "Me")
    got = [(e.time, e.text) for e in log_entries(example_cli.ws, "alice")]
    assert got == [("00:04:00", "嗨"), ("21:03:15", "你好"), ("21:03:15", "hello"), ("21:04:00", "hi")]


def test_an_export_no_reader_recognises_but_whatsapp_suggests_format_whatsapp(example_cli: Runner, tmp_path):
    odd = tmp_path / "odd.txt"
    odd.write_text("[2025-11-14 21.03.15 PM] Alice: one\n", encoding="utf-8")
    result = example_cli("import", "alice", str(odd), ok=False)
    assert result.exit_code == 1 and "--format whatsapp" in result.output


# -- names as people say them ------------------------------------------------------------------
def _shown(cli: Runner, name: str) -> str:
    result = cli("person", "show", name, ok=False)
    first = result.output.splitlines()[0] if result.output else ""
    return first if result.exit_code == 0 else f"error: {result.output}"


def test_a_unique_first_name_prefix_alias_or_chinese_given_name_resolves(example_cli: Runner, fake_llm):
    for name in ("Bob Stone", "Bobby", "欧阳明月", "王小明"):
        example_cli("person", "add", name, "-y")
    assert "people/bob-stone" in _shown(example_cli, "bob")     # a first name, though Bobby starts so too
    assert "people/bob-stone" in _shown(example_cli, "BOB")     # any case
    assert "people/bobby" in _shown(example_cli, "bobb")        # the start of a name
    assert "people/alice" in _shown(example_cli, "ali")
    assert "people/alice" in _shown(example_cli, "小爱")         # an alias
    assert "people/欧阳明月" in _shown(example_cli, "明月")       # a given name after a two-character family name
    assert "people/王小明" in _shown(example_cli, "小明")
    fake_llm.enqueue("hey you")
    assert "hey you" in example_cli("chat", "bob", "-m", "hi").output
    assert [e.text for e in log_entries(example_cli.ws, "bob-stone")] == ["hi", "hey you"]


def test_only_an_ambiguous_name_asks_which_one(example_cli: Runner):
    for name in ("Bob Stone", "Bobby"):
        example_cli("person", "add", name, "-y")
    result = example_cli("person", "show", "bo", ok=False)
    assert result.exit_code == 1 and "could be several people: bob-stone, bobby" in result.output
    assert "people/bob-stone" in _shown(example_cli, "bob-stone")


def test_slugs_drop_punctuation(cli: Runner):
    cli("person", "add", "Dr. Feather", "-y")
    cli("person", "add", "Seán O'Brien", "-y")
    assert {p.name for p in cli.ws.people_dir.iterdir()} >= {"dr-feather", "seán-obrien"}
    assert "people/dr-feather" in _shown(cli, "Dr. Feather")


# -- the map --------------------------------------------------------------------------------------
def test_graph_names_the_user_by_user_name(example_cli: Runner):
    example_cli("config", "set", "user.name", "王磊")
    shown = example_cli("graph").output
    assert shown.startswith("王磊 (self)") and "Me (self)" not in shown


def test_person_add_related_links_both_sides_in_one_commit(example_cli: Runner):
    from conftest import git

    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text().replace("Warm, restless", "Warm, kind, restless"))  # a hand edit
    example_cli("person", "add", "Carol", "--related", "alice:her sister", "-y")
    assert "- person: carol" in profile.read_text() and "Warm, kind, restless" in profile.read_text()
    assert git(example_cli.ws, "log", "-2", "--format=%s").splitlines() == ["add(carol): new person",
                                                                           "edit(alice): by hand"]
    doctor = example_cli("doctor", ok=False).output
    assert "does not name" not in doctor and "all mutual" in doctor


# -- scripts and small words -------------------------------------------------------------------
def test_doctor_json_lists_every_check_even_when_one_stops_it(example_cli: Runner, monkeypatch):
    import json

    result = example_cli("doctor", "--json", ok=False)  # no key: the model check fails, and stops the run
    data = json.loads(result.output)
    assert result.exit_code == 1 and data["ok"] is False
    by_check = {c["check"]: c for c in data["checks"]}
    assert by_check["workspace"]["status"] == "ok" and by_check["model"]["status"] == "failed"
    assert "OPENAI_API_KEY" in by_check["model"]["detail"] and by_check["model"]["fix"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123456")
    data = json.loads(example_cli("doctor", "--json").output)
    assert data["ok"] is True and all(c["status"] == "ok" for c in data["checks"])


def test_person_show_json(example_cli: Runner):
    import json

    data = json.loads(example_cli("person", "show", "小爱", "--json").output)
    assert data["slug"] == "alice" and data["name"] == "Alice Chen" and data["mbti"] == "ENFP"
    assert data["related"] == [{"person": "me", "as": "close friend since university"}]
    assert data["events"][0]["when"] >= data["events"][-1]["when"] and data["events"][0]["source"]
    assert any("oolong" in data["profile"] for _ in [0]) and data["memory"]["sections"]["Facts"]


def test_import_help_shows_name_as_optional_and_a_missing_file_is_a_usage_error(example_cli: Runner):
    shown = example_cli("import", "--help").output
    assert "[NAME]" in shown and "[required]" not in shown
    missing = example_cli("import", ok=False)
    assert missing.exit_code == 2 and "FILE" in missing.output and "Traceback" not in missing.output


def test_a_card_whose_name_is_taken_says_to_give_another_with_name(example_cli: Runner, tmp_path):
    card = tmp_path / "alice.json"
    example_cli("person", "export", "alice", "-o", str(card))
    refused = example_cli("person", "import-card", str(card), ok=False)
    assert refused.exit_code == 1 and "already the name of people/alice" in refused.output
    assert "--name" in refused.output
    example_cli("person", "import-card", str(card), "--name", "Alice (card)", "--force")  # aliases still shared
    assert (example_cli.ws.people_dir / "alice-card" / "PROFILE.md").is_file()


# -- README says what happens ---------------------------------------------------------------------
README = __import__("pathlib").Path(__file__).resolve().parents[1] / "README.md"


def test_tells_lines_cite_the_notes_day_as_readme_says(example_cli: Runner, fake_llm):
    from test_tell import NO_ONE_NEW, berlin

    from heartcompass.store import clock

    day = clock.now(example_cli.ws).date().isoformat()
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    example_cli("tell", "alice", "She got promoted and moves to Berlin in March", "--yes")
    memory = (example_cli.ws.people_dir / "alice" / "MEMORY.md").read_text()
    assert f"- Moves to Berlin in March after a promotion (log {day})" in memory
    assert "the lines it\nwrites cite that note's day, `(log 2026-12-04)`" in README.read_text()


def test_readmes_first_commands_say_clone_and_venv_and_how_long_the_tests_take():
    text = README.read_text()
    first = text[text.index("```bash"):text.index("```", text.index("```bash") + 7)]
    assert "git clone" in first and "python3 -m venv .venv && . .venv/bin/activate" in first
    assert first.index("git clone") < first.index("pip install .")
    assert "10-17 minutes on two cores" in first

