"""The audit trail's promises (store/audit.py, lineage.py, sync.py's kept
entries), tested on the core in a temporary workspace: the user's hand
edits are committed on their own, by person, before anything of ours; an
undo or a restore changes exactly one commit's worth, or nothing and says
why; a person is followed across renames; messages typed during a stopped
sync are never lost nor written anywhere but their own log."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import git, subjects
from git_helpers import commit_files, held_by_a_gardener, new_repo, user_git, write_file

from heartcompass.errors import FormatError, GitError, HeartCompassError
from heartcompass.store import audit, lineage
from heartcompass.store.gitrepo import WorkspaceGit
from heartcompass.store.people import Person


def _person(ws, slug: str = "alice") -> Person:
    return Person(slug, ws.people_dir / slug)


def _log(day: str, *entries: str) -> str:
    return f"---\ndate: {day}\n---\n\n" + "".join(f"- {e}\n" for e in entries)


def _append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


# -- pending: what is the user's, what is a chat's ------------------------------------------------------------------

def test_pending_sorts_hand_edits_from_appended_chat_logs(example_ws):
    ws = example_ws
    logs = ws.people_dir / "alice/logs"
    logs.mkdir()
    (logs / "2024-01-01.md").write_text(_log("2024-01-01", "10:00:00 · me · hi"), encoding="utf-8")
    (logs / "2024-01-02.md").write_text(_log("2024-01-02", "10:00:00 · me · hi"), encoding="utf-8")
    (logs / "2024-01-03.md").write_text(_log("2024-01-03", "10:00:00 · me · hi"), encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "logs")
    _append(logs / "2024-01-01.md", "- 11:00:00 · me · appended\n")
    (logs / "2024-01-02.md").write_text(_log("2024-01-02", "10:00:00 · me · rewritten by hand"), encoding="utf-8")
    (logs / "2024-01-03.md").unlink()
    (logs / "2024-01-04.md").write_text(_log("2024-01-04", "10:00:00 · me · a new day"), encoding="utf-8")
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    (ws.people_dir / "alice/.MEMORY.md.swp").write_text("an editor's\n")
    (ws.people_dir / "alice/.new-x").mkdir()
    (ws.people_dir / "alice/.new-x/PROFILE.md").write_text("our staging\n")
    (logs / "2024-01-05.md").write_text(_log("2024-01-05", "10:00:00 · me · staged"), encoding="utf-8")
    git(ws, "add", "people/alice/logs/2024-01-05.md")
    (ws.people_dir / ".archive").mkdir(exist_ok=True)
    (ws.people_dir / ".archive/x.md").write_text("x\n")
    (ws.root / "notes.md").write_text("outside people\n")
    found = sorted((p.slug, p.path, p.code, p.kind) for p in audit.pending(ws))
    assert found == [
        ("alice", "people/alice/MEMORY.md", "M", "hand edit"),
        ("alice", "people/alice/logs/2024-01-01.md", "M", "chat log"),
        ("alice", "people/alice/logs/2024-01-02.md", "M", "hand edit"),  # a log is append-only: a rewrite is theirs
        ("alice", "people/alice/logs/2024-01-03.md", "D", "hand edit"),
        ("alice", "people/alice/logs/2024-01-04.md", "??", "chat log"),
        ("alice", "people/alice/logs/2024-01-05.md", "A", "chat log"),
    ]
    assert audit.pending(ws, [_person(ws, "bob")]) == []


def test_a_command_that_names_no_one_commits_no_ones_edits(example_ws):
    """An import-vcf that merges no one, an undo touching no person's folder:
    commit_pending of no one leaves every hand edit the user's, uncommitted
    (it meant everyone's, and a broken edit of anyone stopped the command)."""
    ws = example_ws
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    head = ws.git.head()
    assert audit.pending(ws, []) == [] and audit.commit_pending(ws, []) == []
    assert ws.git.head() == head
    assert [(p.slug, p.kind) for p in audit.pending(ws)] == [("alice", "hand edit")]  # still there, still theirs


def test_a_folder_moved_by_hand_is_one_hand_edit_of_the_new_person_and_followed_after(example_ws):
    """mv people/alice people/alicia: the new folder's files and the old
    one's deletions are one commit of alicia's, and her history goes on
    across the move."""
    ws = example_ws
    (ws.people_dir / "alice/logs").mkdir()
    (ws.people_dir / "alice/logs/2024-01-01.md").write_text(_log("2024-01-01", "10:00:00 · me · hi"))
    ws.git.commit([ws.people_dir / "alice/logs"], "log(alice): chat log 2024-01-01")
    (ws.people_dir / "alice").rename(ws.people_dir / "alicia")
    (ws.people_dir / "zed").mkdir()
    (ws.people_dir / "zed/PROFILE.md").write_text((ws.people_dir / "alicia/PROFILE.md").read_text(encoding="utf-8")
                                                  .replace("Alice", "Zed"), encoding="utf-8")
    found = audit.pending(ws)
    assert {(p.slug, p.kind) for p in found} == {("alicia", "hand edit"), ("zed", "hand edit")}
    assert {p.path for p in found if p.code == "D"} == {f"people/alice/{name}" for name in
                                                         ("PROFILE.md", "MEMORY.md", "EVENTS.md", "logs/2024-01-01.md")}
    only = audit.pending(ws, [_person(ws, "alicia")])
    assert {p.slug for p in only} == {"alicia"} and any(p.code == "D" for p in only)
    shas = audit.commit_pending(ws, [_person(ws, "alicia")])
    assert len(shas) == 1 and subjects(ws)[0] == "edit(alicia): by hand"
    body = git(ws, "log", "-1", "--format=%b")
    assert "- people/alicia/PROFILE.md (new)" in body and "- people/alice/PROFILE.md (deleted)" in body
    assert "Moved by hand from people/alice/" in body
    assert [e.slug for e in lineage.eras(ws, _person(ws, "alicia"))] == ["alicia", "alice"]


def test_a_folder_deleted_by_hand_is_refused_with_the_way_back(example_ws):
    ws = example_ws
    import shutil

    shutil.rmtree(ws.people_dir / "alice")
    with pytest.raises(FormatError) as refused:
        audit.commit_pending(ws)
    assert refused.value.problem == "was deleted or moved by hand, and is no person's folder now"
    assert refused.value.hint == ("Bring it back with: git checkout -- people/alice  (a person is renamed with "
                                  "'heartcompass person rename', put away with 'heartcompass person archive').")
    assert subjects(ws)[0] != "edit(alice): by hand"


def test_a_deleted_profile_is_refused_and_a_deleted_memory_is_a_hand_edit(example_ws):
    ws = example_ws
    (ws.people_dir / "alice/PROFILE.md").unlink()
    with pytest.raises(FormatError) as refused:
        audit.commit_pending(ws)
    assert refused.value.problem == "was deleted by hand; a person needs a PROFILE.md"
    assert refused.value.hint == ("Bring it back with: git checkout -- people/alice/PROFILE.md  (or archive the "
                                  "person).")
    git(ws, "checkout", "--", "people/alice/PROFILE.md")
    (ws.people_dir / "alice/MEMORY.md").unlink()
    assert len(audit.commit_pending(ws)) == 1
    assert subjects(ws)[0] == "edit(alice): by hand"
    assert git(ws, "log", "-1", "--format=%b").strip() == "- people/alice/MEMORY.md (deleted)"


def test_an_invalid_hand_edit_stops_everything_and_is_never_committed(example_ws):
    ws = example_ws
    before = subjects(ws)
    events = ws.people_dir / "alice/EVENTS.md"
    _append(events, "- 2026-13-01 · impossible month\n")
    _append(ws.people_dir / "alice/MEMORY.md", "- fine\n")
    with pytest.raises(FormatError):
        audit.commit_pending(ws)
    assert subjects(ws) == before and "impossible month" in events.read_text(encoding="utf-8")
    sha, invalid = audit.commit_valid_edits(ws, _person(ws))
    assert sha and [e.path.name for e in invalid] == ["EVENTS.md"]
    assert subjects(ws)[0] == "edit(alice): by hand"
    assert git(ws, "show", "--name-only", "--format=", "HEAD").split() == ["people/alice/MEMORY.md"]
    assert git(ws, "log", "-1", "--format=%b").strip() == "- people/alice/MEMORY.md (changed)"
    assert audit.commit_valid_edits(ws, _person(ws, "bob")) == (None, [])


def test_hand_edits_and_logs_are_committed_per_person_and_per_kind(example_ws):
    ws = example_ws
    from heartcompass.store.lifecycle import add_person

    add_person(ws, "Bob", "friend")
    for slug in ("alice", "bob"):
        _append(ws.people_dir / slug / "MEMORY.md", "- mine\n")
        (ws.people_dir / slug / "logs").mkdir(exist_ok=True)
        (ws.people_dir / slug / "logs/2024-01-05.md").write_text(_log("2024-01-05", "10:00:00 · me · hi"))
    (ws.people_dir / "alice/logs/2024-01-06.md").write_text(_log("2024-01-06", "10:00:00 · me · hi"))
    shas = audit.commit_pending(ws, hand_edits_only=True)
    assert len(shas) == 2 and subjects(ws)[:2] == ["edit(bob): by hand", "edit(alice): by hand"]
    assert audit.commit_logs(ws, [ws.people_dir / "alice/logs/2024-01-05.md", ws.people_dir / "alice/logs/2024-01-06.md"])
    assert subjects(ws)[0] == "log(alice): chat log 2024-01-05, 2024-01-06"
    assert git(ws, "log", "-1", "--format=%b").strip() == (
        "- people/alice/logs/2024-01-05.md (new)\n- people/alice/logs/2024-01-06.md (new)")
    assert len(audit.commit_pending(ws)) == 1 and subjects(ws)[0] == "log(bob): chat log 2024-01-05"
    assert audit.commit_pending(ws) == [] and audit.commit_logs(ws, []) == []


def test_commit_earlier_commits_what_was_pending_in_its_own_transaction(example_ws):
    ws = example_ws
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    assert len(audit.commit_earlier(ws, None, "chat")) == 1
    assert subjects(ws)[0] == "edit(alice): by hand"
    assert not (ws.state_dir / "lock").exists()  # the lock let go


# -- commits of ours, and their roll back --------------------------------------------------------------------------

def test_a_refused_commit_rolls_our_change_back_keeps_the_log_and_says_both(example_ws):
    ws = example_ws
    hook = ws.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho no >&2\nexit 1\n")
    hook.chmod(0o755)
    memory = ws.people_dir / "alice/MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    memory.write_text(before + "- ours\n", encoding="utf-8")
    log = ws.people_dir / "alice/logs/2024-01-01.md"
    log.parent.mkdir()
    log.write_text(_log("2024-01-01", "10:00:00 · me · hi"))
    with pytest.raises(GitError) as refused:
        audit.commit_or_roll_back(ws, [memory], "garden(alice): 1 fact", keep=[log], what="the garden")
    said = refused.value.message
    assert said.startswith("git commit failed") and (
        "(Not committed: the garden was rolled back; people/alice/logs/2024-01-01.md stays as it is, "
        "to be committed by the next command.)") in said
    assert memory.read_text(encoding="utf-8") == before and log.exists()


def test_a_refused_move_puts_the_folder_back(example_ws):
    ws = example_ws
    hook = ws.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    old, new = ws.people_dir / "alice", ws.people_dir / "alicia"
    old.rename(new)
    with pytest.raises(GitError) as refused:
        audit.commit_or_roll_back(ws, [old, new], "rename(alicia): from alice", moved=(old, new), what="the rename")
    assert "the rename was rolled back" in refused.value.message
    assert (old / "PROFILE.md").exists() and not new.exists()
    assert audit.commit_or_roll_back(ws, [], "nothing", what="x") is None


def test_save_edit_commits_the_users_text_as_their_hand_edit_or_refuses_a_changed_file(example_ws):
    from heartcompass.atomic import file_checksum
    from heartcompass.errors import HeartCompassError as Any

    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    text = memory.read_text(encoding="utf-8") + "- typed in the editor\n"
    assert audit.save_edit(ws, _person(ws), memory, text, file_checksum(memory))
    assert subjects(ws)[0] == "edit(alice): MEMORY.md by hand"
    with pytest.raises(Any):
        audit.save_edit(ws, _person(ws), memory, text + "more\n", "not the checksum")
    assert memory.read_text(encoding="utf-8") == text


def test_a_chats_commit_holds_its_logs_and_says_how_many_messages(example_ws):
    ws = example_ws
    logs = ws.people_dir / "alice/logs"
    logs.mkdir()
    a, b = logs / "2024-01-02.md", logs / "2024-01-01.md"
    a.write_text(_log("2024-01-02", "10:00:00 · me · hi"))
    b.write_text(_log("2024-01-01", "10:00:00 · me · hi"))
    assert audit.commit_chat(ws, _person(ws), [], 0) is None
    assert audit.commit_chat(ws, _person(ws), {a, b}, 1, time_travel="as of 2023-12-31")
    assert subjects(ws)[0] == "chat(alice): 1 message on 2024-01-01, 2024-01-02 (time travel, as of 2023-12-31)"
    assert sorted(git(ws, "show", "--name-only", "--format=", "HEAD").split()) == [
        "people/alice/logs/2024-01-01.md", "people/alice/logs/2024-01-02.md"]
    _append(a, "- 11:00:00 · me · again\n")
    a_link = logs / "2024-01-03.md"
    a_link.symlink_to(a)
    from heartcompass.errors import UnsafePathError

    with pytest.raises(UnsafePathError):
        audit.commit_chat(ws, _person(ws), [a, a_link], 2)


# -- undo and restore ------------------------------------------------------------------------------------------------

def test_undo_takes_back_one_commit_as_a_new_one_and_names_it(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    _append(memory, "- a fact\n")
    sha = ws.git.commit([memory], "garden(alice): 1 fact")
    done = []
    target, new = audit.undo(ws, note=lambda c: f"note on {c.short}", then=done.append)
    assert target.sha == sha and new == ws.git.head() and done == [target]
    assert memory.read_text(encoding="utf-8") == before
    assert subjects(ws)[0] == "undo(alice): garden(alice): 1 fact"
    assert git(ws, "log", "-1", "--format=%b").strip() == f"This reverts commit {sha}.\n\nnote on {sha[:8]}"


def test_undo_refuses_the_first_commit_and_a_merge(example_ws):
    ws = example_ws
    first = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    with pytest.raises(HeartCompassError) as first_refused:
        audit.undo(ws, first)
    assert first_refused.value.message == ("That is the workspace's first commit; there is nothing before it to "
                                           "go back to.")
    git(ws, "checkout", "-q", "-b", "side")
    _append(ws.people_dir / "alice/EVENTS.md", "\n")
    git(ws, "commit", "-q", "-am", "side")
    git(ws, "checkout", "-q", "main")
    git(ws, "merge", "-q", "--no-ff", "-m", "merge", "side")
    with pytest.raises(HeartCompassError) as merge:
        audit.undo(ws)
    assert "is a merge (from sync); undo cannot take it back safely." in merge.value.message
    assert merge.value.hint == "Undo the single changes inside it instead (see 'heartcompass log')."


def test_undo_commits_the_users_edit_first_and_refuses_to_mix_with_other_changes(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- a fact\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    readme = ws.root / "README.md"
    git(ws, "add", "-A")
    _append(readme, "x\n") if readme.exists() else readme.write_text("x\n")
    git(ws, "add", "README.md")
    git(ws, "commit", "-q", "-m", "readme by hand")
    _append(readme, "y\n")
    with pytest.raises(HeartCompassError) as clash:
        audit.undo(ws)
    assert clash.value.message == "These files have uncommitted changes that the undo would mix with: README.md."
    assert clash.value.hint == ("Let HeartCompass commit them first (any command that writes does), or revert them "
                                "yourself.")
    git(ws, "checkout", "--", "README.md")
    from heartcompass.store.lifecycle import add_person

    add_person(ws, "Bob", "friend")
    _append(ws.people_dir / "bob/MEMORY.md", "- bob's, by hand\n")  # not a person the undo touches
    log = ws.people_dir / "alice/logs/2024-01-01.md"
    log.parent.mkdir()
    log.write_text(_log("2024-01-01", "10:00:00 · me · a chat not committed yet"))
    _append(ws.people_dir / "alice/EVENTS.md", "\n")
    target, _ = audit.undo(ws, "HEAD~2")  # the garden, with a hand edit of alice's pending
    assert target.subject == "garden(alice): 1 fact"
    assert subjects(ws)[:2] == ["undo(alice): garden(alice): 1 fact", "edit(alice): by hand"]
    assert git(ws, "show", "--name-only", "--format=", "HEAD~1").split() == ["people/alice/EVENTS.md"]
    assert sorted((p.slug, p.kind) for p in audit.pending(ws)) == [("alice", "chat log"), ("bob", "hand edit")]


def test_an_undo_that_conflicts_changes_nothing_and_names_the_fix(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- a fact\n")
    sha = ws.git.commit([memory], "garden(alice): 1 fact")
    memory.write_text(memory.read_text(encoding="utf-8").replace("- a fact\n", "- a fact, edited\n"))
    ws.git.commit([memory], "edit(alice): by hand")
    head = ws.git.head()
    with pytest.raises(HeartCompassError) as conflict:
        audit.undo(ws, sha)
    assert conflict.value.message == (f"Cannot undo {sha[:8]} (garden(alice): 1 fact): later changes touch the same "
                                      "lines of people/alice/MEMORY.md; nothing was changed.")
    assert conflict.value.hint.endswith(f"heartcompass restore alice memory --at {sha[:8]}~1.")
    assert ws.git.head() == head


@pytest.mark.parametrize("rel, command", [
    ("people/alice/MEMORY.md", "heartcompass restore alice memory --at abc~1"),
    ("people/alice/PROFILE.md", "heartcompass restore alice profile --at abc~1"),
    ("people/alice/logs/2024-01-01.md", "git checkout abc~1 -- people/alice/logs/2024-01-01.md"),
    ("people/alice/NOTES.md", "git checkout abc~1 -- people/alice/NOTES.md"),
    ("heartcompass.toml", "git checkout abc~1 -- heartcompass.toml"),
    ("people/o'neil/MEMORY.md", "heartcompass restore 'o'\"'\"'neil' memory --at abc~1"),
])
def test_the_fix_an_undo_conflict_names_is_a_command_that_works(rel, command):
    assert audit._restore_command(rel, "abc") == command


def test_restore_brings_one_file_back_as_a_new_commit(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    old = ws.git.head()
    before = memory.read_text(encoding="utf-8")
    _append(memory, "- later\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    assert audit.restore(ws, _person(ws), "memory", old)
    assert memory.read_text(encoding="utf-8") == before
    assert subjects(ws)[0] == f"restore(alice): MEMORY.md as of {old[:8]}"
    assert audit.restore(ws, _person(ws), "memory", old) is None  # already as it was: no commit
    with pytest.raises(HeartCompassError) as missing:
        audit.restore(ws, _person(ws), "memory", "HEAD~99")
    assert "HEAD~99" in missing.value.message


def test_restore_from_before_a_rename_keeps_the_current_name(example_ws):
    from heartcompass.formats import profile as profile_fmt
    from heartcompass.store.lifecycle import rename_person

    ws = example_ws
    old = ws.git.head()
    rename_person(ws, "alice", "Alicia")
    person = _person(ws, "alicia")
    events = person.dir / "EVENTS.md"
    before = git(ws, "show", f"{old}:people/alice/EVENTS.md")
    _append(events, "- 2024-01-01 · a day\n")
    ws.git.commit([events], "edit(alicia): by hand")
    assert audit.restore(ws, person, "events", old)
    assert events.read_text(encoding="utf-8") == before
    assert [str(p.name) for p in lineage.folders(ws, person)] == ["alicia", "alice"]
    assert lineage.dir_at(ws, person, old) == ws.people_dir / "alice"
    assert lineage.dir_at(ws, person, "HEAD") == person.dir
    assert [c.subject for c in audit.history(ws, person)][:3] == [f"restore(alicia): EVENTS.md as of {old[:8]}",
                                                                   "edit(alicia): by hand", "rename(alicia): from alice"]
    assert any(c.subject.startswith("add(alice)") for c in audit.history(ws, person))
    assert [c.subject for c in audit.history(ws, None, 1)] == ["restore(alicia): EVENTS.md as of " + old[:8]]
    profile = person.dir / "PROFILE.md"
    _append(profile, "\nA line added after the rename\n")
    ws.git.commit([profile], "edit(alicia): by hand")
    assert audit.restore(ws, person, "profile", old)  # the old profile, under the name she has now
    restored = profile_fmt.load(profile)
    assert restored.name == "Alicia" and "Alice Chen" in restored.aliases
    assert "A line added after the rename" not in profile.read_text(encoding="utf-8")


def test_a_file_that_did_not_exist_then_is_said_with_where_to_look(example_ws):
    ws = example_ws
    first = git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    with pytest.raises(HeartCompassError) as missing:
        audit.restore(ws, _person(ws), "memory", first)
    assert missing.value.message == f"people/alice/MEMORY.md did not exist at {first}."
    assert missing.value.hint == "See the commits that touched it: heartcompass log alice"


# -- lineage: a person across renames and archives -------------------------------------------------------------------

def test_a_rename_undone_is_no_era_and_an_archive_taken_back_is_none(example_ws):
    from heartcompass.store.lifecycle import archive_person, rename_person, unarchive_person

    ws = example_ws
    rename_person(ws, "alice", "Alicia")
    audit.undo(ws)
    person = _person(ws)
    assert [e.slug for e in lineage.eras(ws, person)] == ["alice"]
    assert lineage.eras(ws, person)[0].since is None
    archive_person(ws, "alice")
    unarchive_person(ws, "alice")
    assert [e.slug for e in lineage.eras(ws, person)] == ["alice"]
    assert lineage._moves(ws) == []


def test_the_oldest_era_starts_after_an_earlier_occupant_of_the_name_left(example_ws):
    """Bob renamed away from "bob", then a new Bob: the new one's history is
    theirs alone, not the first Bob's."""
    from heartcompass.store.lifecycle import add_person, rename_person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    rename_person(ws, "bob", "Robert", keep_alias=False)
    left = ws.git.head()
    add_person(ws, "Bob", "friend")
    eras = lineage.eras(ws, _person(ws, "bob"))
    assert [(e.slug, e.since, e.until) for e in eras] == [("bob", left, None)]
    mine = [c.subject for c in lineage.history(ws, _person(ws, "bob"))]
    assert mine[0] == "add(bob): new person" and mine.count("add(bob): new person") == 1  # not the first Bob's
    assert "rename(robert): from bob" not in mine  # the first Bob leaving is his, not the new Bob's
    robert = lineage.eras(ws, _person(ws, "robert"))
    assert [(e.slug, e.until) for e in robert] == [("robert", None), ("bob", left)]


def test_a_workspace_without_commits_has_one_era(tmp_path):
    from heartcompass.store.workspace import Workspace

    root = tmp_path / "w"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    ws = Workspace(root)
    person = Person("a", ws.people_dir / "a")
    assert lineage.eras(ws, person) == [lineage.Era("a", None, None)]


# -- what was typed during a stopped sync (sync.py) ------------------------------------------------------------------

@pytest.mark.parametrize("kept, problem", [
    ("not json", "cannot be read (Expecting value: line 1 column 1 (char 0))"),
    ('{"log": "x"}', "is not a list of kept entries"),
    ('["x"]', None),
    ('[{"log": "people/a/logs/2024-01-01.md", "base": -1, "text": ""}]', None),
    ('[{"log": "people/a/logs/2024-01-01.md", "base": 0}]', None),
    ('[{"log": "people/../logs/2024-01-01.md", "base": 0, "text": ""}]', None),
    ('[{"log": "notes/2024-01-01.md", "base": 0, "text": ""}]', None),
    ('[{"log": 7, "base": 0, "text": ""}]', None),
    ('[{"log": "people/a/logs/2024-01-01.md", "base": "0", "text": ""}]', None),
    ('[{"log": "people/a/logs/2024-01-01.md", "base": 0, "text": ""}, {"log": "people/a/logs/2024-02-30.md", '
     '"base": 0, "text": ""}]', "entry 2: people/a/logs/2024-02-30.md is not a real day"),
])
def test_a_kept_file_edited_into_nonsense_is_a_clear_error_that_writes_nowhere(example_ws, kept, problem):
    from heartcompass.store import sync

    ws = example_ws
    path = ws.state_dir / sync.KEPT
    path.write_text(kept, encoding="utf-8")
    head = ws.git.head()
    with pytest.raises(FormatError) as refused:
        sync.put_back(ws)
    assert refused.value.problem == (problem or "entry 1 is not a person's day log (people/<slug>/logs/YYYY-MM-DD.md) "
                                                "with a base and the text kept")
    assert refused.value.hint == ("It holds messages a stopped sync set aside. Repair it by hand, or move it away "
                                  f"(mv {path} ~/) to drop them; then run the command again.")
    assert ws.git.head() == head and path.read_text(encoding="utf-8") == kept
    assert not (ws.people_dir / "a").exists()


def test_kept_messages_go_back_once_and_are_committed(example_ws):
    from heartcompass.formats import dailylog
    from heartcompass.store import sync

    ws = example_ws
    log = ws.people_dir / "alice/logs/2024-01-01.md"
    log.parent.mkdir()
    log.write_text(_log("2024-01-01", "10:00:00 · me · before"))
    ws.git.commit([log], "log(alice): chat log 2024-01-01")
    kept = [{"log": "people/alice/logs/2024-01-01.md", "base": 1,
             "text": "- 10:05:00 · me · typed\n- 10:06:00 · persona · answered\n"}]
    (ws.state_dir / sync.KEPT).write_text(json.dumps(kept), encoding="utf-8")
    assert sync.put_back(ws) == "kept 1 message typed during the sync; committed"
    assert [e.text for e in dailylog.load(log)] == ["before", "typed", "answered"]
    assert not (ws.state_dir / sync.KEPT).exists() and subjects(ws)[0] == "log(alice): chat log 2024-01-01"
    (ws.state_dir / sync.KEPT).write_text(json.dumps(kept), encoding="utf-8")  # a crash before the file went
    assert sync.put_back(ws) == "kept 1 message typed during the sync; committed"
    assert [e.text for e in dailylog.load(log)] == ["before", "typed", "answered"]  # not twice
    assert sync.put_back(ws) == ""


def test_kept_entries_are_found_anywhere_in_the_log_but_only_in_a_row():
    from heartcompass.formats.dailylog import Entry
    from heartcompass.store.sync import _holds

    a, b, c = Entry("10:00:00", "me", "a"), Entry("10:01:00", "me", "b"), Entry("10:02:00", "me", "c")
    assert _holds([a, b, c], [b, c]) and _holds([a, b, c], [a]) and _holds([a], [a])
    assert not _holds([a, c, b], [b, c]) and not _holds([a], [a, b]) and not _holds([], [a])


def test_a_sync_to_go_on_or_back_from_needs_a_stopped_one(example_ws):
    from heartcompass.store import sync

    ws = example_ws
    git(ws, "remote", "add", "origin", str(ws.root))
    for action in ("continue", "abort"):
        with pytest.raises(HeartCompassError) as refused:
            sync.sync(ws, action)
        assert refused.value.message == f"There is no stopped sync to {action}."
        assert refused.value.hint == "Run 'heartcompass sync'."


def test_a_sync_without_its_remote_says_how_to_add_one(example_ws):
    from heartcompass.store import sync

    ws = example_ws
    with pytest.raises(HeartCompassError) as refused:
        sync.sync(ws)
    assert refused.value.message == "This workspace has no git remote 'origin'."
    assert refused.value.hint == (f"Add one: git -C {ws.root} remote add origin <url>  (or set sync.remote).")


def _stopped_sync(ws, tmp_path):
    """ws and a clone of its remote change the same line; ws's sync stops on it."""
    from heartcompass.store import sync
    from heartcompass.store.workspace import Workspace

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(ws, "remote", "add", "origin", str(bare))
    assert sync.sync(ws).pushed
    other = Workspace(tmp_path / "other")
    subprocess.run(["git", "clone", "-q", str(bare), str(other.root)], check=True)
    for each, line in ((other, "- from the other device\n"), (ws, "- from here\n")):
        _append(each.people_dir / "alice/MEMORY.md", line)
    done = sync.sync(other)
    assert done.pushed and done.committed == 1
    stopped = sync.sync(ws)
    assert stopped.conflicts == ["people/alice/MEMORY.md"] and not stopped.pushed and stopped.committed == 1
    return other


def test_a_stopped_sync_goes_on_only_once_the_marks_are_gone_then_pushes(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    _stopped_sync(ws, tmp_path)
    with pytest.raises(HeartCompassError) as marks:
        sync.sync(ws, "continue")
    assert marks.value.message == "people/alice/MEMORY.md still has conflict marks (<<<<<<< ... >>>>>>>)."
    assert marks.value.hint == ("Keep the lines you want, delete the marks, then run 'heartcompass sync --continue' "
                                "again.")
    memory = ws.people_dir / "alice/MEMORY.md"
    import re

    memory.write_text(re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2",
                             memory.read_text(encoding="utf-8"), flags=re.S), encoding="utf-8")
    done = sync.sync(ws, "continue")
    assert done.pushed and done.conflicts == [] and done.branch == "main" and done.remote == "origin"
    assert not ws.git.rebase_in_progress() and ws.git.state_problem() is None
    text = memory.read_text(encoding="utf-8")
    assert "- from here" in text and "- from the other device" in text


def test_a_stopped_sync_abandoned_goes_back_to_the_devices_own_commit(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    _stopped_sync(ws, tmp_path)
    done = sync.sync(ws, "abort")
    assert not done.pushed and done.conflicts == [] and not ws.git.rebase_in_progress()
    text = (ws.people_dir / "alice/MEMORY.md").read_text(encoding="utf-8")
    assert "- from here" in text and "- from the other device" not in text and "<<<<<<<" not in text


def test_kept_messages_whose_log_is_still_in_conflict_wait_and_say_so(example_ws, monkeypatch):
    from heartcompass.store import sync

    ws = example_ws
    rel = "people/alice/logs/2024-01-01.md"
    kept = [{"log": rel, "base": 1, "text": "- 09:55:06 · me · typed while stopped\n"}]
    path = ws.state_dir / sync.KEPT
    path.write_text(json.dumps(kept), encoding="utf-8")
    monkeypatch.setattr(type(ws.git), "rebase_in_progress", lambda self: True)
    monkeypatch.setattr(type(ws.git), "conflicted", lambda self: [rel])
    assert sync.put_back(ws) == ("1 log with messages typed during the sync still in conflict: the messages are kept "
                                 "aside and go back once the sync goes on")
    assert json.loads(path.read_text(encoding="utf-8")) == kept and not (ws.root / rel).exists()


def test_a_file_deleted_by_hand_is_not_a_move_because_a_new_person_holds_the_same_bytes(example_ws):
    """alice's MEMORY.md deleted, and a new person's MEMORY.md happens to be
    the same text: alice is still alice, her deletion her own hand edit."""
    ws = example_ws
    memory = (ws.people_dir / "alice/MEMORY.md").read_text(encoding="utf-8")
    (ws.people_dir / "alice/MEMORY.md").unlink()
    (ws.people_dir / "zed").mkdir()
    (ws.people_dir / "zed/PROFILE.md").write_text((ws.people_dir / "alice/PROFILE.md").read_text(encoding="utf-8")
                                                  .replace("Alice", "Zed"), encoding="utf-8")
    (ws.people_dir / "zed/MEMORY.md").write_text(memory, encoding="utf-8")
    found = sorted((p.slug, p.path, p.code) for p in audit.pending(ws))
    assert found == [("alice", "people/alice/MEMORY.md", "D"), ("zed", "people/zed/MEMORY.md", "??"),
                     ("zed", "people/zed/PROFILE.md", "??")]


def test_watch_commits_a_hand_edit_listed_after_a_chats_log(example_ws):
    """commit_valid_edits passes over a chat's appended log (not a hand
    edit) and still commits the hand edit that comes after it."""
    ws = example_ws
    logs = ws.people_dir / "alice/logs"
    logs.mkdir()
    for day in ("2024-01-01", "2024-01-02"):
        (logs / f"{day}.md").write_text(_log(day, "10:00:00 · me · hi"), encoding="utf-8")
    ws.git.commit([logs], "log(alice): chat log 2024-01-01, 2024-01-02")
    _append(logs / "2024-01-01.md", "- 11:00:00 · me · appended by a chat\n")
    (logs / "2024-01-02.md").write_text(_log("2024-01-02", "10:00:00 · me · rewritten by hand"), encoding="utf-8")
    sha, invalid = audit.commit_valid_edits(ws, _person(ws))
    assert sha and invalid == []
    assert git(ws, "show", "--name-only", "--format=", "HEAD").split() == ["people/alice/logs/2024-01-02.md"]
    assert [(p.path, p.kind) for p in audit.pending(ws)] == [("people/alice/logs/2024-01-01.md", "chat log")]


# -- what each command says and holds -------------------------------------------------------------------------------

def test_undo_restore_and_edit_each_hold_the_workspace_lock_under_their_own_name(example_ws, monkeypatch):
    """Another command that finds the lock taken is told which one holds it
    ("Another HeartCompass undo is running"), and waits for it as for a
    short command."""
    from heartcompass.atomic import file_checksum
    from heartcompass.store import lock

    ws = example_ws
    held = []
    real = ws.git.check_writable

    def noting_the_holder():
        held.append((lock.holder(ws.state_dir / "lock") or {}).get("purpose"))
        real()

    monkeypatch.setattr(ws.git, "check_writable", noting_the_holder)
    memory = ws.people_dir / "alice/MEMORY.md"
    before = ws.git.head()
    _append(memory, "- a fact\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    audit.undo(ws)
    audit.restore(ws, _person(ws), "memory", "HEAD~1")
    audit.save_edit(ws, _person(ws), memory, memory.read_text(encoding="utf-8") + "- typed\n",
                    file_checksum(memory))
    assert held == ["undo", "restore", "edit"] and before != ws.git.head()


def test_an_undo_without_a_note_says_only_which_commit_it_reverts(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- a fact\n")
    sha = ws.git.commit([memory], "garden(alice): 1 fact")
    audit.undo(ws)
    assert subjects(ws)[0] == "undo(alice): garden(alice): 1 fact"
    assert git(ws, "log", "-1", "--format=%B").rstrip("\n") == (
        f"undo(alice): garden(alice): 1 fact\n\nThis reverts commit {sha}.")


def test_an_older_merge_is_refused_by_undo_too(example_ws):
    """Not only HEAD: a merge named by its id, with commits after it, is
    still a merge undo cannot take back."""
    ws = example_ws
    git(ws, "checkout", "-q", "-b", "side")
    _append(ws.people_dir / "alice/EVENTS.md", "\n")
    git(ws, "commit", "-q", "-am", "side")
    git(ws, "checkout", "-q", "main")
    git(ws, "merge", "-q", "--no-ff", "-m", "merge", "side")
    merge = ws.git.head()
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- a fact\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    with pytest.raises(HeartCompassError) as refused:
        audit.undo(ws, merge)
    assert f"{merge[:8]} is a merge (from sync)" in refused.value.message
    assert subjects(ws)[0] == "garden(alice): 1 fact"


def test_an_undo_names_every_file_that_clashes_or_conflicts(example_ws):
    ws = example_ws
    memory, events = ws.people_dir / "alice/MEMORY.md", ws.people_dir / "alice/EVENTS.md"
    _append(memory, "- a fact\n")
    _append(events, "- 2024-01-01 · a day\n")
    sha = ws.git.commit([memory, events], "garden(alice): 2 facts")
    for path in (memory, events):
        path.write_text(path.read_text(encoding="utf-8").replace("- a fact\n", "- a fact, edited\n")
                        .replace("- 2024-01-01 · a day\n", "- 2024-01-01 · a day, edited\n"), encoding="utf-8")
    ws.git.commit([memory, events], "edit(alice): by hand")
    with pytest.raises(HeartCompassError) as conflict:
        audit.undo(ws, sha)
    assert ("later changes touch the same lines of people/alice/EVENTS.md, people/alice/MEMORY.md; nothing was "
            "changed.") in conflict.value.message
    notes, readme = ws.root / "notes.md", ws.root / "other.md"
    notes.write_text("n\n")
    readme.write_text("r\n")
    git(ws, "add", "notes.md", "other.md")
    git(ws, "commit", "-q", "-m", "two files by hand")
    notes.write_text("n2\n")
    readme.write_text("r2\n")
    with pytest.raises(HeartCompassError) as clash:
        audit.undo(ws)
    assert clash.value.message == ("These files have uncommitted changes that the undo would mix with: notes.md, "
                                   "other.md.")


def test_restore_refuses_an_old_text_that_is_no_valid_file_and_writes_nothing(example_ws):
    """A version committed by hand with git, invalid: brought back, it
    would be a file HeartCompass cannot read. Refused before anything."""
    ws = example_ws
    events = ws.people_dir / "alice/EVENTS.md"
    good = events.read_text(encoding="utf-8")
    _append(events, "- 2026-13-01 · impossible month\n")
    git(ws, "commit", "-q", "-am", "by hand, with git")
    bad = ws.git.head()
    events.write_text(good, encoding="utf-8")
    git(ws, "commit", "-q", "-am", "fixed by hand")
    head = ws.git.head()
    with pytest.raises(FormatError):
        audit.restore(ws, _person(ws), "events", bad)
    assert events.read_text(encoding="utf-8") == good and ws.git.head() == head


def test_restore_commits_only_the_persons_own_pending_edits_first(example_ws):
    from heartcompass.store.lifecycle import add_person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    memory = ws.people_dir / "alice/MEMORY.md"
    old = ws.git.head()
    _append(memory, "- later\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    _append(ws.people_dir / "alice/EVENTS.md", "\n")
    _append(ws.people_dir / "bob/MEMORY.md", "- bob's, by hand\n")
    assert audit.restore(ws, _person(ws), "memory", old)
    assert subjects(ws)[:2] == [f"restore(alice): MEMORY.md as of {old[:8]}", "edit(alice): by hand"]
    assert [(p.slug, p.kind) for p in audit.pending(ws)] == [("bob", "hand edit")]  # bob's stays bob's to commit


def test_restore_of_a_memory_from_before_a_rename_is_the_text_as_it_was(example_ws):
    from heartcompass.store.lifecycle import rename_person

    ws = example_ws
    old = ws.git.head()
    before = git(ws, "show", f"{old}:people/alice/MEMORY.md")
    rename_person(ws, "alice", "Alicia")
    person = _person(ws, "alicia")
    _append(person.dir / "MEMORY.md", "- later\n")
    ws.git.commit([person.dir / "MEMORY.md"], "garden(alicia): 1 fact")
    assert audit.restore(ws, person, "memory", old)
    assert (person.dir / "MEMORY.md").read_text(encoding="utf-8") == before


def test_restore_of_a_profile_whose_name_was_edited_by_hand_brings_the_old_name_back(example_ws):
    """Only a rename keeps today's name: a name changed in the file by hand
    is part of the text, and goes back with it."""
    ws = example_ws
    profile = ws.people_dir / "alice/PROFILE.md"
    old = ws.git.head()
    before = profile.read_text(encoding="utf-8")
    profile.write_text(before.replace("name: Alice Chen", "name: Alice C."), encoding="utf-8")
    ws.git.commit([profile], "edit(alice): by hand")
    assert audit.restore(ws, _person(ws), "profile", old)
    assert profile.read_text(encoding="utf-8") == before


def test_a_restore_git_refuses_names_the_file_it_put_back(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    old = ws.git.head()
    _append(memory, "- later\n")
    ws.git.commit([memory], "garden(alice): 1 fact")
    later = memory.read_text(encoding="utf-8")
    hook = ws.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    with pytest.raises(GitError) as refused:
        audit.restore(ws, _person(ws), "memory", old)
    assert "(Not committed: people/alice/MEMORY.md was rolled back.)" in refused.value.message
    assert memory.read_text(encoding="utf-8") == later


def test_a_chats_log_gone_meanwhile_is_committed_as_gone_under_the_chats_subject(example_ws):
    ws = example_ws
    logs = ws.people_dir / "alice/logs"
    logs.mkdir()
    log = logs / "2024-01-01.md"
    log.write_text(_log("2024-01-01", "10:00:00 · me · hi"))
    assert audit.commit_chat(ws, _person(ws), [log], 1)
    log.unlink()
    assert audit.commit_chat(ws, _person(ws), [log], 1)
    assert subjects(ws)[0] == "chat(alice): 1 message on 2024-01-01"
    assert git(ws, "show", "--name-status", "--format=", "HEAD").split() == ["D", "people/alice/logs/2024-01-01.md"]


def test_a_folder_moved_by_hand_with_every_top_file_edited_is_still_found_by_the_files_below(example_ws):
    """mv people/alice people/alicia, and her profile, memory and events
    edited too: the day logs below, the same bytes, still say where she went."""
    ws = example_ws
    (ws.people_dir / "alice/logs").mkdir()
    (ws.people_dir / "alice/logs/2024-01-01.md").write_text(_log("2024-01-01", "10:00:00 · me · hi"))
    ws.git.commit([ws.people_dir / "alice/logs"], "log(alice): chat log 2024-01-01")
    (ws.people_dir / "alice").rename(ws.people_dir / "alicia")
    for name in ("PROFILE.md", "MEMORY.md", "EVENTS.md"):
        _append(ws.people_dir / "alicia" / name, "\n")
    assert {(p.slug, p.kind) for p in audit.pending(ws)} == {("alicia", "hand edit")}
    assert len(audit.commit_pending(ws)) == 1 and subjects(ws)[0] == "edit(alicia): by hand"


def test_history_shows_the_last_fifty_commits_unless_asked_for_more(example_ws):
    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    for n in range(51):
        _append(memory, f"- fact {n}\n")
        git(ws, "commit", "-q", "-am", f"garden(alice): fact {n}")
    assert len(audit.history(ws)) == 50 and len(audit.history(ws, _person(ws))) == 50
    assert audit.history(ws, _person(ws))[0].subject == "garden(alice): fact 50"
    assert len(lineage.history(ws, _person(ws), 3)) == 3
    assert len(audit.history(ws, None, 60)) == min(60, len(git(ws, "rev-list", "HEAD").split()))


def test_a_person_renamed_twice_has_three_eras_each_ending_where_the_next_began(example_ws):
    """Moved by hand first (mv, committed as her edit), renamed with
    `person rename` later: both moves are followed, in order."""
    from heartcompass.store.lifecycle import rename_person

    ws = example_ws
    (ws.people_dir / "alice").rename(ws.people_dir / "alicia")
    audit.commit_pending(ws)
    by_hand = ws.git.head()
    rename_person(ws, "alicia", "Ali")
    renamed = ws.git.head()
    eras = lineage.eras(ws, _person(ws, "ali"))
    assert [(e.slug, e.since, e.until) for e in eras] == [("ali", renamed, None), ("alicia", by_hand, renamed),
                                                          ("alice", None, by_hand)]
    assert any(c.subject.startswith("add(alice)") for c in lineage.history(ws, _person(ws, "ali")))


def test_an_archive_of_someone_else_leaves_a_persons_eras_as_they_were(example_ws):
    from heartcompass.store.lifecycle import add_person, archive_person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    archive_person(ws, "bob")
    assert [(e.slug, e.since, e.until) for e in lineage.eras(ws, _person(ws))] == [("alice", None, None)]
    assert [m[1:] for m in lineage._moves(ws)] == [("", "bob")]


# -- nothing to commit? A chat's quick look, through plain git ---------------------------------------------------------

def _edit(ws, rel: str, text: str = "\n手写\n") -> None:
    path = ws.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((path.read_text(encoding="utf-8") if path.exists() else "") + text, encoding="utf-8")


@pytest.mark.parametrize("change", [
    "a hand edit", "a new file", "a crashed chat's log", "a deleted file", "a merge in progress", "an index.lock",
    "a detached HEAD", "a tell to finish", "a killed undo", "a broken index",
])
def test_anything_of_the_persons_to_commit_or_in_the_way_is_seen_by_the_quick_look(example_ws, change):
    """nothing_to_commit is True only when commit_earlier would do nothing:
    a chat that skipped it would leave the user's edit uncommitted."""
    ws, alice = example_ws, _person(example_ws)
    assert audit.nothing_to_commit(ws, [alice])  # a clean workspace: the quick way
    gd = ws.root / ".git"
    if change == "a hand edit":
        _edit(ws, "people/alice/MEMORY.md")
    elif change == "a new file":
        _edit(ws, "people/alice/notes.md", "新的\n")
    elif change == "a crashed chat's log":
        _edit(ws, "people/alice/logs/2026-11-01.md", "---\ndate: 2026-11-01\n---\n\n- 10:00:00 · me · 你好\n")
    elif change == "a deleted file":
        (ws.people_dir / "alice" / "EVENTS.md").unlink()
    elif change == "a merge in progress":
        (gd / "MERGE_HEAD").write_text(git(ws, "rev-parse", "HEAD"))
    elif change == "an index.lock":
        (gd / "index.lock").write_bytes(b"")
    elif change == "a detached HEAD":
        git(ws, "checkout", "-q", "--detach")
    elif change == "a tell to finish":
        _edit(ws, ".heartcompass/tell/bob.json", "{}")
    elif change == "a killed undo":
        (gd / "heartcompass-undo").write_text("")
    elif change == "a broken index":  # git status fails: the long way says why
        (gd / "index").write_bytes(b"not an index")
    assert not audit.nothing_to_commit(ws, [alice])


def test_what_is_not_the_persons_to_commit_keeps_the_quick_way(example_ws):
    """Another person's hand edit, our own temp and staging files, a file
    beside the people's folders or under a dot folder (the archive), and a
    file a garden's journal wrote are no reason to take the lock."""
    from heartcompass.store.unfinished import garden_journal_path, save

    ws, alice = example_ws, _person(example_ws)
    _edit(ws, "people/bob/PROFILE.md")
    _edit(ws, "people/alice/.PROFILE.md.tmp123", "half written")
    _edit(ws, "people/alice/logs/.new-2026-11-01.md", "staged")
    _edit(ws, "people/.new-carol.x1/PROFILE.md", "a person being made")
    _edit(ws, "people/README.md", "not a person's file\n")
    _edit(ws, "people/.archive/dan/MEMORY.md", "someone put away\n")
    memory = ws.people_dir / "alice/MEMORY.md"
    old = memory.read_text(encoding="utf-8")
    save(ws, garden_journal_path(ws, "alice"), {memory: (None, old + "- the garden's\n")}, "garden(alice): 1", "")
    memory.write_text(old + "- the garden's\n", encoding="utf-8")
    assert audit.nothing_to_commit(ws, [alice])
    assert not audit.nothing_to_commit(ws, [_person(ws, "bob")])  # bob's edit is seen, for bob
    assert [i.slug for i in audit.pending(ws)] == ["bob"]  # and the long way agrees: nothing of alice's
    _edit(ws, "people/alice/MEMORY.md", "- and mine, by hand\n")
    assert not audit.nothing_to_commit(ws, [alice])  # no longer the journal's text: the user's


# -- a sync stopped on a file the user then fixes --------------------------------------------------------------------

def _stopped_on(ws, tmp_path, rel: str, base: bytes, here: bytes, there: bytes):
    """rel committed as base and synced; then ws and a clone of its remote each commit their own version of
    it; ws's sync stops on it."""
    from heartcompass.store import sync
    from heartcompass.store.workspace import Workspace

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(ws, "remote", "add", "origin", str(bare))
    if not (ws.root / rel).exists() or (ws.root / rel).read_bytes() != base:
        (ws.root / rel).write_bytes(base)
        git(ws, "add", "--", rel)
        git(ws, "commit", "-q", "-m", "the base, by hand")
    first = sync.sync(ws)
    assert (first.remote, first.branch, first.conflicts, first.pushed) == ("origin", "main", [], True)
    other = Workspace(tmp_path / "other")
    subprocess.run(["git", "clone", "-q", str(bare), str(other.root)], check=True)
    (other.root / rel).write_bytes(there)
    subprocess.run(["git", "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-q", "-am", "there"],
                   cwd=other.root, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=other.root, check=True)
    (ws.root / rel).write_bytes(here)
    git(ws, "commit", "-q", "-am", "here")
    stopped = sync.sync(ws)
    assert (stopped.remote, stopped.branch, stopped.conflicts, stopped.pushed) == ("origin", "main", [rel], False)
    return stopped


def test_a_person_file_fixed_into_one_that_does_not_parse_is_refused_before_the_sync_goes_on(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    events = ws.people_dir / "alice/EVENTS.md"
    base = events.read_bytes()
    _stopped_on(ws, tmp_path, "people/alice/EVENTS.md", base, base + "- 2024-01-02 · here\n".encode(),
                base + "- 2024-01-03 · there\n".encode())
    events.write_bytes(base + "- 2026-13-01 · an impossible month, by hand\n".encode())
    with pytest.raises(FormatError):
        sync.sync(ws, "continue")
    assert ws.git.rebase_in_progress()
    events.write_bytes(base + "- 2024-01-02 · here\n- 2024-01-03 · there\n".encode())
    assert sync.sync(ws, "continue").pushed is True


def test_a_conflict_mark_half_deleted_is_still_a_conflict_mark(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    base = memory.read_bytes()
    _stopped_on(ws, tmp_path, "people/alice/MEMORY.md", base, base + b"- here\n", base + b"- there\n")
    memory.write_bytes(base + b"- here\n- there\n>>>>>>> there\n")
    with pytest.raises(HeartCompassError) as marks:
        sync.sync(ws, "continue")
    assert marks.value.message == "people/alice/MEMORY.md still has conflict marks (<<<<<<< ... >>>>>>>)."


def test_settings_fixed_with_a_credential_in_them_are_never_committed_nor_pushed(example_ws, tmp_path):
    from heartcompass.store import sync
    from heartcompass.store.config import ConfigError

    ws = example_ws
    toml = ws.root / "heartcompass.toml"
    base = toml.read_bytes()
    _stopped_on(ws, tmp_path, "heartcompass.toml", base, base + b"# here\n", base + b"# there\n")
    toml.write_bytes(base.replace(b'model = "gpt-4o-mini"', b'model = "sk-abcdefghijklmnopqrstuvwx"'))
    with pytest.raises(ConfigError):
        sync.sync(ws, "continue")
    assert ws.git.rebase_in_progress()


def test_a_fixed_file_that_is_not_text_lets_the_sync_go_on(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    _stopped_on(ws, tmp_path, "people/alice/photo.bin", b"\xff\xfe base \x01", b"\xff\xfe here \x01",
                b"\xff\xfe there \x01")
    (ws.people_dir / "alice/photo.bin").write_bytes(b"\xff\xfe kept \x01")
    done = sync.sync(ws, "continue")
    assert done.pushed is True and done.conflicts == []
    shown = subprocess.run(["git", "show", "HEAD:people/alice/photo.bin"], cwd=ws.root, capture_output=True).stdout
    assert shown == b"\xff\xfe kept \x01" and not ws.git.rebase_in_progress()


def test_a_sync_counts_the_persons_hand_edit_and_the_settings_hand_edit_it_commits(example_ws, tmp_path):
    from heartcompass.store import sync

    ws = example_ws
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(ws, "remote", "add", "origin", str(bare))
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    _append(ws.root / "heartcompass.toml", "# mine\n")
    done = sync.sync(ws)
    assert (done.remote, done.branch, done.committed, done.conflicts, done.pushed) == ("origin", "main", 2, [], True)
    assert subjects(ws)[:2] == ["edit(config): by hand", "edit(alice): by hand"]


def test_a_log_bigger_than_one_read_is_read_whole(tmp_path):
    import os

    from heartcompass.store.sync import _read_all

    data = os.urandom((1 << 20) * 2 + 12345)
    (tmp_path / "big").write_bytes(data)
    fd = os.open(tmp_path / "big", os.O_RDONLY)
    try:
        assert _read_all(fd) == data
    finally:
        os.close(fd)


def test_kept_messages_go_back_to_each_log_not_in_conflict_and_wait_for_the_one_that_is(example_ws, monkeypatch):
    """A sync still stopped: the kept entries of a log in conflict wait
    (kept aside alone), those of another log, a new day's, go back now and
    are committed once the sync is done; the persona's lines count when
    nothing typed was kept."""
    from heartcompass.formats import dailylog
    from heartcompass.store import sync

    ws = example_ws
    in_conflict, new_day = "people/alice/logs/2024-01-01.md", "people/alice/logs/2024-01-02.md"
    waiting = {"log": in_conflict, "base": 1, "text": "- 09:55:06 · me · typed while stopped\n"}
    kept = [waiting, {"log": new_day, "base": 0,
                      "text": "- 10:00:00 · persona · one\n- 10:01:00 · persona · two\n"}]
    path = ws.state_dir / sync.KEPT
    path.write_text(json.dumps(kept), encoding="utf-8")
    monkeypatch.setattr(type(ws.git), "rebase_in_progress", lambda self: True)
    monkeypatch.setattr(type(ws.git), "conflicted", lambda self: [in_conflict])
    head = ws.git.head()
    assert sync.put_back(ws) == "kept 2 messages typed during the sync; back in the logs, committed once the sync is done"
    assert json.loads(path.read_text(encoding="utf-8")) == [waiting]
    log = ws.root / new_day
    assert [e.text for e in dailylog.load(log)] == ["one", "two"] and "date: 2024-01-02" in log.read_text("utf-8")
    assert ws.git.head() == head and not (ws.root / in_conflict).exists()


def test_kept_messages_put_back_but_refused_by_git_stay_in_the_log_for_the_next_command(example_ws):
    from heartcompass.formats import dailylog
    from heartcompass.store import sync

    ws = example_ws
    rel = "people/alice/logs/2024-01-01.md"
    (ws.state_dir / sync.KEPT).write_text(json.dumps([{"log": rel, "base": 0, "text": "- 10:00:00 · me · hi\n"}]),
                                          encoding="utf-8")
    hook = ws.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho refused by the hook >&2\nexit 1\n")
    hook.chmod(0o755)
    said = sync.put_back(ws)
    assert said.startswith("kept 1 message typed during the sync; back in the logs, not committed (git commit failed")
    assert said.endswith("): the next command will commit them") and "refused by the hook" in said
    assert [e.text for e in dailylog.load(ws.root / rel)] == ["hi"] and not (ws.state_dir / sync.KEPT).exists()


def test_hand_commits_that_merely_mention_a_move_never_hide_an_older_rename(example_ws):
    """Commits the user made with git whose message has a line the move
    search looks for ("Moved by hand from ..."), under a subject that is
    not ours or names nobody: skipped, and the rename before them is still
    followed."""
    from heartcompass.store.lifecycle import rename_person

    ws = example_ws
    rename_person(ws, "alice", "Alicia")
    renamed = ws.git.head()
    for message in ("fix typo\n\nMoved by hand from people/zed/\n", "archive: old notes\n\nMoved by hand from people/zed/\n"):
        git(ws, "commit", "-q", "--allow-empty", "-m", message)
    assert [(e.slug, e.since) for e in lineage.eras(ws, _person(ws, "alicia"))] == [("alicia", renamed),
                                                                                    ("alice", None)]


# == store history promises (kept in this file: a new file in a part's test list makes mutmut start the part over)
# store/history's promises that only the CLI's tests checked before
# (githistory.py, audit.py): a diff shows what git stored, whatever program
# the user's git names; a folder's files are that folder's; odd file names
# come back whole; what was pending before a command is committed for the
# people it names only, under the lock that says which command holds it, for
# as long as that command waits.

@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return new_repo(tmp_path)


# -- what a diff shows (githistory.py) -------------------------------------------------------------------------------

def test_a_diff_is_gits_own_patch_even_when_the_user_names_an_external_diff_program(wg, tmp_path, monkeypatch):
    """GIT_EXTERNAL_DIFF in the user's environment: `heartcompass diff`
    shows the stored lines (+/-), and the program never runs."""
    ran = tmp_path / "EXTERNAL-RAN"
    program = tmp_path / "external-diff"
    program.write_text(f"#!/bin/sh\ntouch {ran}\necho not a patch\n", encoding="utf-8")
    program.chmod(0o755)
    first = commit_files(wg, {"a.md": "one\n"}, "first")
    commit_files(wg, {"a.md": "two\n"}, "second")
    write_file(wg, "a.md", "three\n")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(program))
    working, since_first = wg.diff(None, ["a.md"]), wg.diff(first, ["a.md"])
    assert "-two" in working and "+three" in working
    assert "-one" in since_first and "+three" in since_first
    assert "not a patch" not in working + since_first and not ran.exists()


def test_a_diff_against_an_older_commit_runs_none_of_the_users_filters(wg, tmp_path):
    """Comparing a past version with the working file reads the file: a
    clean filter the repository's config names must not run."""
    ran = tmp_path / "CLEAN-RAN"
    first = commit_files(wg, {".gitattributes": "*.md filter=crypt\n", "a.md": "1\n"}, "one")
    commit_files(wg, {"a.md": "2\n"}, "two")
    user_git(wg.root, "config", "filter.crypt.clean", f"touch {ran} && cat")
    write_file(wg, "a.md", "3\n")
    shown = wg.diff(first, ["a.md"])
    assert "-1" in shown and "+3" in shown and not ran.exists()


# -- the files of a folder, and names with odd characters ------------------------------------------------------------

def test_the_files_at_a_commit_are_those_of_the_folder_asked_only(wg):
    commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/b/MEMORY.md": "m\n", "notes.md": "n\n",
                      "peoplex/c.md": "c\n"}, "one")
    assert wg.files_at("HEAD", "people/a") == ["people/a/PROFILE.md"]
    assert wg.files_at("HEAD", "people") == ["people/a/PROFILE.md", "people/b/MEMORY.md"]


def test_a_file_whose_name_ends_in_a_space_is_named_whole_in_what_touched_it(wg):
    first = commit_files(wg, {"people/a/notes ": "1\n"}, "one")
    second = commit_files(wg, {"people/a/notes ": "2\n", "people/a/PROFILE.md": "p\n"}, "two")
    assert wg.touched(["people/a"]) == [(second, "two", ["people/a/PROFILE.md", "people/a/notes "], []),
                                        (first, "one", ["people/a/notes "], [])]


def test_a_file_whose_name_holds_a_tab_keeps_its_blob(wg):
    commit_files(wg, {"people/a/x\ty.md": "t\n", "people/a/PROFILE.md": "p\n"}, "one")
    blobs = wg.tree_blobs("people")
    assert blobs == {rel: user_git(wg.root, "rev-parse", f"HEAD:{rel}").strip()
                     for rel in ("people/a/PROFILE.md", "people/a/x\ty.md")}


# -- what was pending before a command (audit.py) --------------------------------------------------------------------

def test_earlier_edits_are_committed_for_the_people_a_command_names_only(example_ws):
    """`tell alice` commits alice's earlier hand edit first (its own
    commit); bob's stays the user's, uncommitted."""
    from heartcompass.store import audit
    from heartcompass.store.lifecycle import add_person
    from heartcompass.store.people import Person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    for slug in ("alice", "bob"):
        _append(ws.people_dir / slug / "MEMORY.md", "- mine\n")
    shas = audit.commit_earlier(ws, [Person("alice", ws.people_dir / "alice")], "tell")
    assert len(shas) == 1 and subjects(ws)[0] == "edit(alice): by hand"
    assert [(p.slug, p.kind) for p in audit.pending(ws)] == [("bob", "hand edit")]


def test_earlier_edits_are_committed_under_a_lock_that_names_the_command(example_ws, monkeypatch):
    """Another command that finds the workspace busy meanwhile is told
    which one holds it ("Another HeartCompass tell is running")."""
    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    ws = example_ws
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    seen = []
    real = audit.commit_pending

    def looking(ws_, people=None, **kwargs):
        seen.append((holder(ws.state_dir / "lock") or {}).get("purpose"))
        return real(ws_, people, **kwargs)

    monkeypatch.setattr(audit, "commit_pending", looking)
    assert len(audit.commit_earlier(ws, None, "tell")) == 1
    assert seen == ["tell"] and holder(ws.state_dir / "lock") is None


def test_earlier_edits_wait_for_the_lock_as_long_as_the_command_says(example_ws, monkeypatch):
    """A chat told to wait 3 s for a gardener waits 3 s (a clock that moves
    one second per look), then names it; nothing is committed meanwhile."""
    from heartcompass.store import audit
    from heartcompass.store import lock as lock_mod

    ws = example_ws
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    head = ws.git.head()
    with held_by_a_gardener(ws, monkeypatch) as tries:
        with pytest.raises(lock_mod.LockBusy) as busy:
            audit.commit_earlier(ws, None, "chat", wait=3)
    assert busy.value.message.startswith("Another HeartCompass gardener is running")
    assert tries == [lock_mod.POLL] * 2 and ws.git.head() == head
    monkeypatch.undo()
    assert len(audit.commit_earlier(ws, None, "chat", wait=3)) == 1  # free again: committed


def test_a_day_log_deleted_by_hand_or_made_a_link_is_the_users_edit_not_a_chats(example_ws):
    """A day's log the user staged and then deleted, or replaced by a link
    to nowhere: a hand edit, never committed as a chat's log; a new day's
    log staged as it is stays a chat's."""
    from heartcompass.store import audit

    ws = example_ws
    logs = ws.people_dir / "alice/logs"
    logs.mkdir()
    for day in ("2024-01-01", "2024-01-02", "2024-01-03"):
        (logs / f"{day}.md").write_text(_log_text(day), encoding="utf-8")
    ws.git.commit([logs / "2024-01-01.md"], "log(alice): chat log 2024-01-01")
    user_git(ws.root, "add", "people/alice/logs/2024-01-02.md", "people/alice/logs/2024-01-03.md")
    (logs / "2024-01-02.md").unlink()
    (logs / "2024-01-01.md").unlink()
    (logs / "2024-01-01.md").symlink_to(ws.root / "nowhere.md")
    found = sorted((p.path, p.code, p.kind) for p in audit.pending(ws))
    assert found == [("people/alice/logs/2024-01-01.md", "T", "hand edit"),
                     ("people/alice/logs/2024-01-02.md", "AD", "hand edit"),
                     ("people/alice/logs/2024-01-03.md", "A", "chat log")]


def _log_text(day: str) -> str:
    return f"---\ndate: {day}\n---\n\n- 10:00:00 · me · hi\n"


def test_a_persons_history_is_as_long_as_asked(example_ws):
    from heartcompass.store import audit
    from heartcompass.store.people import Person

    ws = example_ws
    for n in range(3):
        _append(ws.people_dir / "alice/MEMORY.md", f"- {n}\n")
        audit.commit_pending(ws)
    alice = Person("alice", ws.people_dir / "alice")
    assert [c.subject for c in audit.history(ws, alice, limit=2)] == ["edit(alice): by hand"] * 2
    assert len(audit.history(ws, alice)) == 4  # the three edits and the workspace's first commit


def test_undoing_a_commit_of_the_users_own_files_commits_no_persons_edit_first(example_ws):
    """notes/alice/todo.md is the user's own file, beside people/: undoing
    its commit leaves alice's pending hand edit the user's, uncommitted."""
    from heartcompass.store import audit

    ws = example_ws
    todo = ws.root / "notes/alice/todo.md"
    todo.parent.mkdir(parents=True)
    todo.write_text("- call\n", encoding="utf-8")
    ws.git.commit([todo], "my notes")
    _append(ws.people_dir / "alice/MEMORY.md", "- mine\n")
    target, _ = audit.undo(ws)
    assert target.subject == "my notes" and not todo.exists()
    assert [(p.slug, p.kind) for p in audit.pending(ws)] == [("alice", "hand edit")]


def test_a_persons_history_across_a_rename_is_theirs_only_and_as_long_as_asked(example_ws):
    """alice renamed Alicia: her history is her commits under both names
    (newest first), never bob's; a limit past 50 is honoured across names."""
    from heartcompass.store import audit
    from heartcompass.store.lifecycle import add_person, rename_person
    from heartcompass.store.people import Person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    _append(ws.people_dir / "alice/MEMORY.md", "- as alice\n")
    audit.commit_pending(ws)
    rename_person(ws, "alice", "Alicia")
    renamed = ws.git.head()
    for slug in ("bob", "alicia"):
        _append(ws.people_dir / slug / "MEMORY.md", "- later\n")
        audit.commit_pending(ws)
    alicia, bob = Person("alicia", ws.people_dir / "alicia"), Person("bob", ws.people_dir / "bob")
    mine = audit.history(ws, alicia)
    assert [c.subject for c in mine[:1] + mine[2:3]] == ["edit(alicia): by hand", "edit(alice): by hand"]
    assert mine[1].sha == renamed and len(mine) == 4  # and the workspace's first commit, alice's start
    assert all("bob" not in c.subject for c in mine)
    assert [c.subject for c in audit.history(ws, bob)][:1] == ["edit(bob): by hand"]
    assert all("alic" not in c.subject for c in audit.history(ws, bob))
    for n in range(55):
        (ws.people_dir / "alicia/MEMORY.md").write_text(f"- {n}\n", encoding="utf-8")
        user_git(ws.root, "commit", "-q", "-am", f"edit {n}")
    assert len(audit.history(ws, alicia, limit=70)) == 59 and len(audit.history(ws, alicia, limit=57)) == 57


def test_an_edit_staged_then_changed_again_is_listed_with_gits_own_code(example_ws):
    """The commit of a hand edit lists each file and what happened to it; a
    state with no word of ours (staged, then changed again: MM) keeps git's code."""
    from heartcompass.store import audit

    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- staged\n")
    user_git(ws.root, "add", "people/alice/MEMORY.md")
    _append(memory, "- and more\n")
    _append(ws.people_dir / "alice/PROFILE.md", "\nLikes rain.\n")
    assert len(audit.commit_pending(ws)) == 1
    assert user_git(ws.root, "log", "-1", "--format=%b").strip() == (
        "- people/alice/MEMORY.md (MM)\n- people/alice/PROFILE.md (changed)")


@pytest.mark.parametrize("message", ["rename(bob): tidy up", "garden(bob): tidy\n\nMoved by hand from people/zed/"])
def test_a_commit_that_only_looks_like_a_move_moves_no_one(example_ws, message):
    """A `rename(...)` subject that names no old name, a gardener's commit
    whose message has a line the move search looks for: bob keeps one name."""
    from heartcompass.store import lineage
    from heartcompass.store.lifecycle import add_person
    from heartcompass.store.people import Person

    ws = example_ws
    add_person(ws, "Bob", "friend")
    user_git(ws.root, "commit", "-q", "--allow-empty", "-m", message)
    assert [(e.slug, e.since) for e in lineage.eras(ws, Person("bob", ws.people_dir / "bob"))] == [("bob", None)]


def test_a_folder_moved_by_hand_is_followed_to_its_old_name_whole(example_ws):
    from heartcompass.store import lineage
    from heartcompass.store.people import Person

    ws = example_ws
    user_git(ws.root, "commit", "-q", "--allow-empty", "-m", "edit(alice): by hand\n\nMoved by hand from people/maX/")
    moved = ws.git.head()
    eras = lineage.eras(ws, Person("alice", ws.people_dir / "alice"))
    assert [(e.slug, e.since) for e in eras] == [("alice", moved), ("maX", None)]


# -- a commit of ours, or its roll back (audit.py) -------------------------------------------------------------------

def test_a_commit_of_ours_has_the_body_given_and_none_else(example_ws):
    from heartcompass.store import audit

    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    _append(memory, "- one\n")
    assert audit.commit_or_roll_back(ws, [memory], "garden(alice): 1 fact")
    assert user_git(ws.root, "log", "-1", "--format=%s|%b").strip() == "garden(alice): 1 fact|"
    _append(memory, "- two\n")
    assert audit.commit_or_roll_back(ws, [memory], "garden(alice): 1 fact", "from the log of 2024-01-01")
    assert user_git(ws.root, "log", "-1", "--format=%b").strip() == "from the log of 2024-01-01"


def test_a_refused_commit_names_each_log_kept_and_keeps_gits_hint(example_ws, monkeypatch):
    """git refused (here: a full disk, with its hint): the change is rolled
    back, each log kept is named, and git's hint is still the fix shown."""
    from heartcompass.errors import GitError
    from heartcompass.store import audit

    ws = example_ws
    memory = ws.people_dir / "alice/MEMORY.md"
    before = memory.read_text(encoding="utf-8")
    logs = [ws.people_dir / f"alice/logs/2024-01-0{n}.md" for n in (1, 2)]
    logs[0].parent.mkdir()
    for n, log in enumerate(logs, 1):
        log.write_text(_log_text(f"2024-01-0{n}"), encoding="utf-8")
    _append(memory, "- ours\n")
    tried = []

    def refusing(paths, subject, body=""):
        tried.append(subject)
        raise GitError("git commit failed: No space left on device", "Free some disk space, then run it again.")

    monkeypatch.setattr(ws.git, "commit", refusing)
    with pytest.raises(GitError) as refused:
        audit.commit_or_roll_back(ws, [memory], "garden(alice): 1 fact", keep=logs)
    assert refused.value.message == (
        "git commit failed: No space left on device (Not committed: the change was rolled back; "
        "people/alice/logs/2024-01-01.md, people/alice/logs/2024-01-02.md stays as it is, to be committed by the "
        "next command.)")
    assert refused.value.hint == "Free some disk space, then run it again." and tried == ["garden(alice): 1 fact"]
    assert all(log.exists() for log in logs) and memory.read_text(encoding="utf-8") == before


def test_a_refused_move_takes_what_was_not_committed_yet_back_to_the_old_folder(example_ws):
    """A chat's log not yet committed moved with the folder: a refused
    rename puts it back where it was, with the folder."""
    from heartcompass.errors import GitError
    from heartcompass.store import audit

    ws = example_ws
    hook = ws.root / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    old, new = ws.people_dir / "alice", ws.people_dir / "alicia"
    (old / "logs").mkdir()
    (old / "logs/2024-01-01.md").write_text(_log_text("2024-01-01"), encoding="utf-8")
    old.rename(new)
    with pytest.raises(GitError):
        audit.commit_or_roll_back(ws, [old, new], "rename(alicia): from alice", moved=(old, new), what="the rename")
    assert (old / "logs/2024-01-01.md").read_text(encoding="utf-8") == _log_text("2024-01-01")
    assert (old / "PROFILE.md").exists() and not new.exists()


def test_a_folder_the_user_moved_with_git_mv_is_one_hand_edit_of_the_new_name(example_ws):
    """`git mv people/alice people/alicia`: every file, and the old
    folder's deletions, are alicia's hand edits, committed together."""
    from heartcompass.store import audit

    ws = example_ws
    user_git(ws.root, "mv", "people/alice", "people/alicia")
    found = sorted((p.slug, p.path, p.code, p.kind) for p in audit.pending(ws))
    assert {(slug, kind) for slug, _, _, kind in found} == {("alicia", "hand edit")}
    assert ("alicia", "people/alice/PROFILE.md", "D", "hand edit") in found
    assert ("alicia", "people/alicia/PROFILE.md", "R", "hand edit") in found
