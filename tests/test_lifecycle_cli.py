"""Person lifecycle from the command line: rename says what it keeps,
unarchive brings someone back, import-card takes a name, and an undo that
would conflict says so in one line and changes nothing."""

from __future__ import annotations

import json
import shutil

from conftest import Runner, git, subjects, tree_snapshot
from heartcompass.formats import profile as profile_fmt


def _profile(ws, slug):
    return profile_fmt.load(ws.people_dir / slug / "PROFILE.md")


def _active(ws):
    return sorted(p.name for p in ws.people_dir.iterdir() if not p.name.startswith("."))


# -- rename: the old name kept as an alias, said out loud -------------------------------
def test_rename_says_it_kept_the_old_name_as_an_alias(cli: Runner):
    cli("person", "add", "小明", "--yes")
    result = cli("person", "rename", "小明", "王小明")
    assert "Kept '小明' as an alias" in result.output and "people/王小明/PROFILE.md" in result.output
    assert "--no-alias" in result.output
    assert _profile(cli.ws, "王小明").aliases == ["小明"]


def test_rename_with_no_alias_keeps_nothing_and_says_nothing_of_it(cli: Runner):
    cli("person", "add", "Alice", "--yes")
    result = cli("person", "rename", "alice", "Alicia", "--no-alias")
    assert "alias" not in result.output
    assert _profile(cli.ws, "alicia").aliases == []
    assert cli("person", "show", "Alice", ok=False).exit_code == 1  # nobody answers to the old name


def test_a_rename_that_only_changes_case_keeps_no_alias(cli: Runner):
    cli("person", "add", "alice chen", "--yes")
    result = cli("person", "rename", "alice-chen", "Alice Chen")
    assert "alias" not in result.output and _profile(cli.ws, "alice-chen").aliases == []
    assert _profile(cli.ws, "alice-chen").name == "Alice Chen"


# -- unarchive --------------------------------------------------------------------------
def test_unarchive_brings_them_back_with_one_commit_and_their_whole_history(example_cli: Runner):
    ws = example_cli.ws
    before = tree_snapshot(ws.people_dir / "alice")
    example_cli("person", "archive", "alice")
    count = len(subjects(ws))
    result = example_cli("person", "unarchive", "Alice Chen")  # by name, as well as by folder name
    assert "people/alice/" in result.output
    assert tree_snapshot(ws.people_dir / "alice") == before and not (ws.archive_dir / "alice").exists()
    assert subjects(ws)[0] == "unarchive(alice): back from people/.archive" and len(subjects(ws)) == count + 1
    assert git(ws, "status", "--porcelain") == ""
    history = example_cli("log", "alice").output
    assert "add(alice): example person" in history and "archive(alice)" in history
    example_cli("undo")  # an unarchive is undone like any change: back in the archive
    assert (ws.archive_dir / "alice" / "PROFILE.md").exists() and not (ws.people_dir / "alice").exists()


def test_archive_points_to_unarchive(example_cli: Runner):
    assert "heartcompass person unarchive alice" in example_cli("person", "archive", "alice").output


def test_unarchive_refuses_when_the_folder_name_is_in_use_again(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "archive", "alice")
    shutil.copytree(ws.archive_dir / "alice", ws.people_dir / "alice")  # someone put a folder there by hand
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "Alice again, by hand")
    before, log = tree_snapshot(ws.root), subjects(ws)
    result = example_cli("person", "unarchive", "alice", ok=False)
    assert result.exit_code == 1 and "people/alice exists" in result.output and "Traceback" not in result.output
    assert tree_snapshot(ws.root) == before and subjects(ws) == log


def test_unarchive_refuses_an_archived_folder_with_uncommitted_changes(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "archive", "alice")
    events = ws.archive_dir / "alice" / "EVENTS.md"
    events.write_text(events.read_text(encoding="utf-8") + "- 2026-11-30 · w0.5 · edited in the archive\n",
                      encoding="utf-8")
    before, log = tree_snapshot(ws.root), subjects(ws)
    result = example_cli("person", "unarchive", "alice", ok=False)
    assert result.exit_code == 1 and "people/.archive/alice/EVENTS.md" in result.output
    assert "nothing was moved" in result.output and "git checkout -- people/.archive/alice" in result.output
    assert tree_snapshot(ws.root) == before and subjects(ws) == log


def test_unarchive_of_someone_not_archived_is_a_clear_error(example_cli: Runner):
    result = example_cli("person", "unarchive", "alice", ok=False)
    assert result.exit_code == 1 and "No archived person 'alice' (people/alice/ is not archived)" in result.output
    result = example_cli("person", "unarchive", "nobody", ok=False)
    assert result.exit_code == 1 and "No archived person 'nobody'" in result.output
    assert "Archived people: none" in result.output


def test_unarchive_asks_for_force_when_their_name_was_taken_meanwhile(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "archive", "alice")
    example_cli("person", "add", "Alice Chen", "--yes")  # allowed: archived people answer to no name
    result = example_cli("person", "unarchive", "alice", ok=False)
    assert result.exit_code == 1 and "--force" in result.output and (ws.archive_dir / "alice").exists()
    example_cli("person", "unarchive", "alice", "--force")
    assert (ws.people_dir / "alice" / "PROFILE.md").exists()


# -- import-card --name -----------------------------------------------------------------
def _card(tmp_path, name="Alice Chen"):
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": "{{char}} lives in Kyoto.", "personality": "", "scenario": "",
        "first_mes": "", "mes_example": ""}}), encoding="utf-8")
    return path


def test_import_card_with_a_name_of_your_choosing(example_cli: Runner, tmp_path):
    ws = example_cli.ws
    card = _card(tmp_path)
    assert example_cli("person", "import-card", str(card), ok=False).exit_code == 1  # Alice Chen is taken
    result = example_cli("person", "import-card", str(card), "--name", "爱丽丝")
    assert "爱丽丝" in result.output and "people/爱丽丝/" in result.output
    prof = _profile(ws, "爱丽丝")
    assert prof.name == "爱丽丝" and "爱丽丝 lives in Kyoto." in prof.body
    assert subjects(ws)[0] == "add(爱丽丝): from character card card.json"


def test_import_card_name_follows_the_rules_of_add(example_cli: Runner, tmp_path):
    ws = example_cli.ws
    card, before = _card(tmp_path, "Rin"), tree_snapshot(ws.root)
    for name, said in (("../x", "could point outside the workspace"), ("alice", "which someone already uses"),
                       ("Alice Chen", "already the name of"), ("", "cannot be empty")):
        result = example_cli("person", "import-card", str(card), "--name", name, ok=False)
        assert result.exit_code == 1 and said in result.output and "Traceback" not in result.output, name
    assert tree_snapshot(ws.root) == before and _active(ws) == ["alice", "me"]


# -- undo that would conflict -----------------------------------------------------------
def test_an_undo_that_conflicts_says_so_in_one_line_and_changes_nothing(example_cli: Runner):
    ws = example_cli.ws
    path = ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("name: Alice Chen", "name: Alicia Chen"),
                    encoding="utf-8")
    git(ws, "commit", "-qam", "first change")
    path.write_text(path.read_text(encoding="utf-8").replace("name: Alicia Chen", "name: Alixia Chen"),
                    encoding="utf-8")
    git(ws, "commit", "-qam", "second change")
    before, log = tree_snapshot(ws.root), subjects(ws)
    result = example_cli("undo", "HEAD~1", ok=False)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 2, result.output
    assert "later changes touch the same lines of people/alice/PROFILE.md; nothing was changed" in lines[0]
    assert "heartcompass restore alice profile --at" in lines[1]
    assert "hint:" not in result.output and "git revert" not in result.output
    assert tree_snapshot(ws.root) == before and subjects(ws) == log
    assert git(ws, "status", "--porcelain") == "" and not (ws.root / ".git" / "REVERT_HEAD").exists()


# -- the user's own person, and links to an archived one ---------------------------------
def test_renaming_or_archiving_yourself_needs_force(example_cli: Runner):
    ws = example_cli.ws
    before, log = tree_snapshot(ws.root), subjects(ws)
    for args in (("rename", "me", "小雨"), ("archive", "me")):
        result = example_cli("person", *args, ok=False)
        assert result.exit_code == 1 and "people/me is you (relation: self)" in result.output
        assert "--force" in result.output and "Nothing was changed" in result.output
        assert tree_snapshot(ws.root) == before and subjects(ws) == log
    assert "user.name" in example_cli("person", "rename", "me", "小雨", ok=False).output
    example_cli("person", "rename", "me", "小雨", "--force")
    assert subjects(ws)[0] == "rename(小雨): from me"
    assert any(link["person"] == "小雨" for link in _profile(ws, "alice").related)  # her link followed, same commit
    assert "people/alice/PROFILE.md" in git(ws, "show", "--name-only", "--format=", "HEAD")
    example_cli("person", "archive", "小雨", "--force")
    assert (ws.archive_dir / "小雨").is_dir()


def test_archiving_someone_others_link_to_warns_and_doctor_says_how_to_fix(example_cli: Runner):
    result = example_cli("person", "archive", "alice")
    assert "Warning:" in result.output and "me still name alice in 'related'" in result.output
    doctor = example_cli("doctor", ok=False).output
    assert "people/me/PROFILE.md links to 'alice', who is archived" in doctor
    assert "heartcompass person unarchive alice" in doctor and "heartcompass edit me" in doctor


def test_looking_up_an_archived_person_points_to_unarchive(example_cli: Runner):
    """It said "add them with 'heartcompass person add'", which then refused the name."""
    example_cli("person", "archive", "alice")
    for name in ("alice", "小爱"):
        result = example_cli("person", "show", name, ok=False)
        assert result.exit_code == 1 and "is archived (people/.archive/alice/)" in result.output
        assert "heartcompass person unarchive alice" in result.output and "person add" not in result.output


def test_a_lookup_that_misses_names_the_profiles_it_could_not_read(cli: Runner):
    cli("person", "add", "王磊", "--alias", "磊磊", "--yes")
    path = cli.ws.people_dir / "王磊" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", "relation: [broken"))
    result = cli("context", "磊磊", ok=False)
    assert result.exit_code == 1 and "people/王磊/PROFILE.md could not" in result.output
    assert "heartcompass doctor" in result.output


def test_someone_whose_committed_profile_does_not_parse_can_still_be_archived(example_cli: Runner):
    ws = example_cli.ws
    path = ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("relation: friend", "relation: [broken"))
    git(ws, "commit", "-qam", "broken by hand, committed")
    example_cli("person", "archive", "alice")
    assert (ws.archive_dir / "alice").is_dir()


def test_printed_fix_commands_are_shell_quoted(cli: Runner):
    """A name with a quote: the command we print works when pasted."""
    import shlex

    slug = cli("person", "add", "Bo O'Neil", "--yes").output.split("people/")[1].split("/")[0]
    out = cli("person", "archive", slug).output
    assert f"heartcompass person unarchive {shlex.quote(slug)}" in out, out
    miss = cli("chat", slug, "-m", "hi", ok=False).output
    assert f"heartcompass person unarchive {shlex.quote(slug)}" in miss, miss
