from __future__ import annotations

import json

import pytest

from conftest import Runner, git, subjects, tree_snapshot
from fakes import CTRL_C, Questions


def test_add_creates_three_files_and_one_commit(cli: Runner):
    cli("person", "add", "Alice Chen", "--relation", "friend", "--mbti", "enfp", "--alias", "Ali",
        "--alias", "小爱", "--gender", "female", "--about", "Met at university.")
    folder = cli.ws.people_dir / "alice-chen"
    prof = (folder / "PROFILE.md").read_text()
    assert "name: Alice Chen" in prof and "mbti: ENFP" in prof and "- 小爱" in prof
    assert "Met at university." in prof and "## How they talk" in prof
    assert (folder / "EVENTS.md").is_file() and (folder / "MEMORY.md").is_file()
    assert "## From our chats" in (folder / "MEMORY.md").read_text()
    assert subjects(cli.ws)[0] == "add(alice-chen): new person"
    assert git(cli.ws, "status", "--porcelain") == ""


@pytest.mark.parametrize("name, slug", [("小明", "小明"), ("José", "josé"), ("Mary Jane", "mary-jane")])
def test_unicode_names_make_readable_slugs(cli: Runner, name, slug):
    cli("person", "add", name, "--yes")
    assert (cli.ws.people_dir / slug / "PROFILE.md").is_file()
    listed = json.loads(cli("person", "list", "--json").output)
    assert name in [p["name"] for p in listed]


@pytest.mark.parametrize("name", ["../evil", "a/b", "a\\b", "..", "bell\x07", "   ", "___", "!!!", "/etc/passwd"])
def test_unsafe_names_are_refused_and_nothing_is_created(cli: Runner, name):
    before = tree_snapshot(cli.ws.root.parent)
    result = cli("person", "add", name, "--yes", ok=False)
    assert result.exit_code == 1 and "Error:" in result.output and "Traceback" not in result.output
    assert tree_snapshot(cli.ws.root.parent) == before


def test_collision_is_a_clear_error(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    result = cli("person", "add", "alice", "--yes", ok=False)
    assert result.exit_code == 1 and "people/alice" in result.output


def test_invalid_relation_and_mbti_are_refused(cli: Runner):
    result = cli("person", "add", "Bob", "--relation", "bff", "--yes", ok=False)
    assert result.exit_code == 1 and "broken_up" in result.output
    assert cli("person", "add", "Bob", "--mbti", "ABCD", "--yes", ok=False).exit_code == 1
    assert not (cli.ws.people_dir / "bob").exists()


def test_list_shows_counts(example_cli: Runner):
    rows = {p["slug"]: p for p in json.loads(example_cli("person", "list", "--json").output)}
    assert rows["alice"]["events"] == 5 and rows["alice"]["mbti"] == "ENFP"
    assert rows["alice"]["memory_tokens"] > 0 and rows["me"]["relation"] == "self"
    table = example_cli("person", "list").output
    assert "Alice Chen" in table and "ENFP" in table


def test_show_renders_all_three_files(example_cli: Runner):
    out = example_cli("person", "show", "小爱").output
    assert "Alice Chen" in out and "Hiked Mount Takao" in out and "Moves to Kyoto" in out
    assert "Facts" in out and "From our chats" in out


def test_resolve_by_alias_case_insensitive_and_ambiguous(cli: Runner):
    cli("person", "add", "Alice Chen", "--alias", "Ali", "--yes")
    refused = cli("person", "add", "Alison", "--alias", "ali", "--yes", ok=False)
    assert refused.exit_code == 1 and "'ali' is already the alias of people/alice-chen" in refused.output
    assert not (cli.ws.people_dir / "alison").exists()
    cli("person", "add", "Alison", "--alias", "ali", "--force")
    result = cli("person", "show", "ALI", ok=False)
    assert result.exit_code == 1 and "alice-chen" in result.output and "alison" in result.output
    assert "Alice Chen" in cli("person", "show", "alice chen").output
    missing = cli("person", "show", "Zed", ok=False)
    assert missing.exit_code == 1 and "person list" in missing.output


def test_rename_moves_folder_and_links_follow(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--related", "alice:her brother", "--yes")
    cli("person", "rename", "alice", "Alicia")
    assert not (cli.ws.people_dir / "alice").exists()
    prof = (cli.ws.people_dir / "alicia" / "PROFILE.md").read_text()
    assert "name: Alicia" in prof and "- Alice" in prof and "# Alicia" in prof
    assert "person: alicia" in (cli.ws.people_dir / "bob" / "PROFILE.md").read_text()
    assert "# Events — Alicia" in (cli.ws.people_dir / "alicia" / "EVENTS.md").read_text()
    assert subjects(cli.ws)[0] == "rename(alicia): from alice"
    stat = git(cli.ws, "show", "--stat", "--format=", "HEAD")
    assert "people/bob/PROFILE.md" in stat and "alicia" in stat
    assert git(cli.ws, "status", "--porcelain") == ""
    cli("undo")
    assert (cli.ws.people_dir / "alice" / "PROFILE.md").is_file()
    assert "person: alice\n" in (cli.ws.people_dir / "bob" / "PROFILE.md").read_text()


def test_rename_to_an_existing_name_is_refused(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--yes")
    result = cli("person", "rename", "bob", "alice", ok=False)
    assert result.exit_code == 1 and (cli.ws.people_dir / "bob").exists()


def test_archive_hides_but_keeps_in_git(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    cli("person", "archive", "alice")
    assert (cli.ws.archive_dir / "alice" / "PROFILE.md").is_file()
    assert "alice" not in [p["slug"] for p in json.loads(cli("person", "list", "--json").output)]
    assert subjects(cli.ws)[0].startswith("archive(alice)")
    assert "people/.archive/alice/PROFILE.md" in git(cli.ws, "ls-files")
    # the name stays taken while archived
    assert cli("person", "add", "Alice", "--yes", ok=False).exit_code == 1


def test_malformed_profile_is_reported_and_never_rewritten(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    path = cli.ws.people_dir / "alice" / "PROFILE.md"
    bad = path.read_text().replace("relation: friend", "relation: bestie")
    path.write_text(bad)
    result = cli("person", "show", "alice", ok=False)
    assert result.exit_code == 1
    assert "PROFILE.md:4" in result.output and "unknown relation" in result.output and "dating" in result.output
    assert "Traceback" not in result.output
    assert cli("person", "rename", "alice", "Alicia", ok=False).exit_code == 1
    assert path.read_text() == bad and (cli.ws.people_dir / "alice").exists()
    listed = cli("person", "list", ok=False)
    assert listed.exit_code == 1  # listed, named with the problem, and the exit says so
    assert "invalid" in listed.output and "PROFILE.md:4" in listed.output


def test_add_never_prompts_without_a_tty(cli: Runner):
    # CliRunner has no TTY: missing options take defaults instead of asking.
    cli("person", "add", "Quiet")
    assert "relation: friend" in (cli.ws.people_dir / "quiet" / "PROFILE.md").read_text()


def test_readme_sequence_does_not_make_a_second_alice(example_cli: Runner):
    head = git(example_cli.ws, "rev-parse", "HEAD")
    result = example_cli("person", "add", "Alice Chen", "--relation", "friend", "--alias", "小爱", "--yes", ok=False)
    assert result.exit_code == 1 and "'Alice Chen' is already the name of people/alice" in result.output
    assert "'小爱' is already the alias of people/alice" in result.output and "--force" in result.output
    assert git(example_cli.ws, "rev-parse", "HEAD") == head and not (example_cli.ws.people_dir / "alice-chen").exists()
    assert "Alice Chen" in example_cli("person", "show", "小爱").output


def test_taken_alias_and_slug_are_refused_case_insensitively(example_cli: Runner):
    result = example_cli("person", "add", "Bob", "--alias", "ALICE", "--yes", ok=False)
    assert "'ALICE' is already the alias of people/alice" in result.output
    result = example_cli("person", "add", "小明", "--alias", "alice", "--yes", ok=False)
    assert "is already the" in result.output and not (example_cli.ws.people_dir / "小明").exists()


def test_a_taken_name_is_asked_about_in_a_terminal(example_cli: Runner, monkeypatch):
    from heartcompass.cli import person_cmd

    monkeypatch.setattr(person_cmd, "interactive", lambda: True)
    questions = Questions(monkeypatch, False)
    result = example_cli("person", "add", "alice chen", "--relation", "friend", "--mbti", "", "--alias", "x",
                         "--about", "", ok=False)
    assert result.exit_code == 1 and "Warning:" in result.output and "Nothing was changed" in result.output
    assert questions.asked == ["Go ahead anyway?"] and not (example_cli.ws.people_dir / "alice-chen").exists()
    Questions(monkeypatch, True)
    example_cli("person", "add", "alice chen", "--relation", "friend", "--mbti", "", "--alias", "x", "--about", "")
    assert (example_cli.ws.people_dir / "alice-chen").exists()


def test_import_of_an_exported_card_is_not_a_silent_duplicate(example_cli: Runner, tmp_path):
    card = tmp_path / "alice.json"
    example_cli("person", "export", "alice", "-o", str(card))
    result = example_cli("person", "import-card", str(card), ok=False)
    assert result.exit_code == 1 and "already the name of people/alice" in result.output
    assert sorted(p.name for p in example_cli.ws.people_dir.iterdir() if not p.name.startswith(".")) == ["alice", "me"]


def test_rename_to_someone_elses_name_is_refused(example_cli: Runner):
    example_cli("person", "add", "Bob", "--yes")
    result = example_cli("person", "rename", "bob", "小爱", ok=False)
    assert result.exit_code == 1 and "'小爱' is already the alias of people/alice" in result.output
    assert (example_cli.ws.people_dir / "bob").exists()


def test_doctor_lists_names_shared_by_several_people(example_cli: Runner):
    assert "✓ names: every name and alias belongs to one person" in example_cli("doctor", ok=False).output
    example_cli("person", "add", "Alicia", "--alias", "小爱", "--force")
    out = example_cli("doctor", ok=False).output
    assert "! names: '小爱' is a name or alias of 2 people (alice, alicia)" in out


@pytest.mark.parametrize("at", range(4))
def test_ctrl_c_at_any_question_of_person_add_cancels_it(cli: Runner, monkeypatch, at):
    """questionary's .ask() turns Ctrl-C into None: read as an empty answer,
    the add went on and committed. Every question now cancels the whole add."""
    from heartcompass.cli import person_cmd

    monkeypatch.setattr(person_cmd, "interactive", lambda: True)
    answers = ["friend", "ENFP", "小雨", "met at work"]
    answers[at] = CTRL_C
    questions = Questions(monkeypatch, *answers[:at + 1])
    head = git(cli.ws, "rev-parse", "HEAD")
    result = cli("person", "add", "王磊", ok=False)
    assert result.exit_code == 130 and "Cancelled; nothing was added." in result.output
    assert "Added" not in result.output and len(questions.asked) == at + 1
    assert not (cli.ws.people_dir / "王磊").exists() and git(cli.ws, "rev-parse", "HEAD") == head
    assert git(cli.ws, "status", "--porcelain") == ""


def test_ctrl_c_at_a_taken_name_question_cancels(example_cli: Runner, monkeypatch):
    from heartcompass.cli import person_cmd

    monkeypatch.setattr(person_cmd, "interactive", lambda: True)
    Questions(monkeypatch, CTRL_C)
    result = example_cli("person", "add", "alice chen", ok=False)
    assert result.exit_code == 130 and "Cancelled; nothing was changed." in result.output
    assert not (example_cli.ws.people_dir / "alice-chen").exists()


def test_user_name_that_is_someone_elses_name_is_warned_about(cli: Runner):
    """The prompt read "You are 王磊, chatting with 王磊 ... 王磊 and 王磊 are dating"."""
    cli("person", "add", "王磊", "--relation", "dating", "--yes")
    result = cli("config", "set", "user.name", "王磊")
    assert "Warning: '王磊' is already the name of people/王磊" in result.output
    assert "user.name '王磊 (me)'" in result.output and cli.ws.config.get("user.name") == "王磊"
    doctor = cli("doctor", ok=False).output
    assert "! names: user.name '王磊' is also the name of people/王磊" in doctor
    cli("config", "set", "user.name", "Lei")  # the self person's own name or alias is no clash
    assert "Warning" not in cli("config", "set", "user.name", "Me").output


def test_yes_refuses_a_taken_name_without_asking_everywhere_readme_says(example_cli: Runner, monkeypatch,
                                                                         tmp_path):
    """README: add, rename and import-card refuse a taken name "also with --yes"."""
    from heartcompass.cli import person_cmd

    monkeypatch.setattr(person_cmd, "interactive", lambda: True)
    Questions(monkeypatch)  # any question fails the test
    example_cli("person", "add", "Bob", "--yes")
    card = tmp_path / "alice.json"
    example_cli("person", "export", "alice", "-o", str(card))
    for args in (("rename", "bob", "小爱", "--yes"), ("import-card", str(card), "--yes")):
        result = example_cli("person", *args, ok=False)
        assert result.exit_code == 1 and "is already the" in result.output and "--force" in result.output
    assert (example_cli.ws.people_dir / "bob").exists()


def test_show_skips_empty_sections(cli: Runner):
    cli("person", "add", "Bob", "--yes")
    shown = cli("person", "show", "bob").output
    for heading in ("Personality", "How they talk", "Likes", "Boundaries", "Facts", "Open threads"):
        assert heading not in shown, heading
    assert "nothing yet" in shown
    path = cli.ws.people_dir / "bob" / "PROFILE.md"
    path.write_text(path.read_text().replace("## Likes\n", "## Likes\n\n- 茉莉花茶\n"))
    shown = cli("person", "show", "bob").output
    assert "Likes" in shown and "茉莉花茶" in shown and "Dislikes" not in shown and "Personality" not in shown


def test_doctor_names_a_name_shared_by_many_briefly(cli: Runner):
    for i in range(12):
        cli("person", "add", f"Person {i}", "--alias", "Twin", "--yes", "--force")
    result = cli("doctor", ok=False)
    line = next(l for l in result.output.splitlines() if "'Twin' is a name or alias of 12 people" in l)
    assert "and 4 more" in line and "person-9" not in line  # sorted by slug: 0, 1, 10, 11, 2 ... 5
