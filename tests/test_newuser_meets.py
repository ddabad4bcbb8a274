"""What a new user still met (issue 30): nothing typed is lost in a sync
conflict, and the doctor tells the truth about it."""

from __future__ import annotations

from conftest import log_entries
from test_sync import _conflict, two_devices  # noqa: F401 - the fixture is used by name


def test_a_message_typed_during_a_sync_conflict_on_its_persona_is_logged(two_devices, fake_llm):  # noqa: F811
    _, laptop = _conflict(two_devices)  # alice's PROFILE.md has conflict marks: her persona cannot answer
    result = laptop("chat", "alice", "-m", "are you still there?", ok=False)
    assert result.exit_code == 1 and "has unresolved conflict marks" in result.output
    assert "logged in people/alice/logs/" in result.output
    assert [e.text for e in log_entries(laptop.ws, "alice")][-1:] == ["are you still there?"]
    assert fake_llm.purposes == []  # the persona declined; the log did not


def test_piped_lines_and_notes_during_a_conflict_are_all_logged(two_devices, fake_llm):  # noqa: F811
    _, laptop = _conflict(two_devices)
    result = laptop("chat", "alice", input="first\n/note 她搬去柏林了\n/context\nsecond\n", ok=False)
    assert result.exit_code == 1 and "messages are logged" in result.output
    entries = [(e.speaker, e.text) for e in log_entries(laptop.ws, "alice")]
    assert entries[-3:] == [("me", "first"), ("note", "她搬去柏林了"), ("me", "second")]


def test_a_message_whose_log_is_in_conflict_is_kept_aside_and_printed_back(two_devices, fake_llm):  # noqa: F811
    from heartcompass.formats import dailylog
    from heartcompass.store import clock

    _, laptop = _conflict(two_devices)
    log = dailylog.log_path(laptop.ws.people_dir / "alice", clock.now(laptop.ws).date())
    log.parent.mkdir(exist_ok=True)
    log.write_text("<<<<<<< HEAD\n- 09:00 me: a\n=======\n- 09:00 me: b\n>>>>>>> 1234567 (chat)\n")
    result = laptop("chat", "alice", "-m", "don't lose me", ok=False)
    assert result.exit_code == 1 and "don't lose me" in result.output and ".heartcompass/rejected/" in result.output
    kept = list((laptop.ws.state_dir / "rejected").glob("alice-typed.md.*"))
    assert len(kept) == 1 and kept[0].read_text() == "don't lose me\n"


def test_doctor_during_a_conflict_reports_no_one_way_link_it_cannot_know(two_devices):  # noqa: F811
    _, laptop = _conflict(two_devices)
    me = laptop.ws.people_dir / "me" / "PROFILE.md"
    me.write_text(me.read_text().replace("related: []", "related:\n- person: alice\n  as: friend"))
    result = laptop("doctor", ok=False)
    assert "has unresolved conflict marks" in result.output  # alice's links cannot be read...
    assert "does not name" not in result.output  # ...so no link of hers is said to be missing


# -- undo and restore keep what the user did -------------------------------------------------------
def test_undo_commits_the_touched_persons_hand_edit_first_and_keeps_it(example_cli):
    from conftest import git, subjects

    example_cli("person", "add", "Carol", "--related", "alice:her sister", "-y")  # also links alice back
    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text().replace("Warm, restless", "Warm, kind, restless"))  # by hand, meanwhile
    example_cli("undo")
    assert subjects(example_cli.ws)[:3] == ["undo(carol): add(carol): new person", "edit(alice): by hand",
                                            "add(carol): new person"]
    text = profile.read_text()
    assert "Warm, kind, restless" in text and "carol" not in text
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_restore_at_a_commit_before_a_rename_keeps_the_folders_name(cli):
    from conftest import git

    cli("person", "add", "Bob", "--about", "likes tea", "-y")
    before = git(cli.ws, "rev-parse", "HEAD").strip()
    profile = cli.ws.people_dir / "bob" / "PROFILE.md"
    profile.write_text(profile.read_text().replace("likes tea", "likes tea and coffee"))
    cli("person", "rename", "bob", "Robert")
    cli("restore", "robert", "profile", "--at", before)
    restored = (cli.ws.people_dir / "robert" / "PROFILE.md").read_text()
    assert "name: Robert" in restored and "- Bob" in restored  # the name now, the old one an alias
    assert "likes tea\n" in restored and "coffee" not in restored  # the rest as it was
    assert "Robert" in cli("person", "show", "robert").output.splitlines()[0]



def test_a_time_travel_message_to_broken_files_is_kept_aside_not_logged_as_today(example_cli, fake_llm):
    from conftest import git

    profile = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    good = profile.read_text()
    profile.write_text(good.replace("relation: friend", "<<<<<<< HEAD\nrelation: friend\n=======\n"
                                    "relation: dating\n>>>>>>> 1234567 (x)"))
    git(example_cli.ws, "commit", "-qam", "conflict marks committed by hand")
    broken = git(example_cli.ws, "rev-parse", "HEAD").strip()
    profile.write_text(good)
    git(example_cli.ws, "commit", "-qam", "fixed by hand")
    result = example_cli("chat", "alice", "--as-of", broken, "-m", "back then?", ok=False)
    assert result.exit_code == 1 and "has unresolved conflict marks" in result.output
    assert "back then?" in result.output and ".heartcompass/rejected/" in result.output
    assert log_entries(example_cli.ws, "alice") == [] and fake_llm.purposes == []
