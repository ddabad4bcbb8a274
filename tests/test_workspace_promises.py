"""The workspace's promises, tested on the store's core API (issue 29:
store/people's mutants): a workspace is found where the user said, made
without overwriting a file, its paths never named outside it; every date
is the user's; each add, rename, archive and unarchive is one commit whose
subject reads back, hand edits committed first, links following; a setting
changed by a command is its own commit. Temporary workspaces, git through
the store; no CLI, no subprocess but the test's own look at git."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from conftest import git, subjects

from heartcompass.errors import (ConfigError, FormatError, GitError, HeartCompassError, PersonError,
                                 WorkspaceNotFound)
from heartcompass.formats import profile as profile_fmt
from heartcompass.store import clock, creation, lifecycle, people, workspace
from heartcompass.store.people import Person
from heartcompass.store.subjects import (MOVED_FROM, REVERTS_PREFIX, Subject, Verb, is_hand_subject, parse_subject,
                                         reverted_by, scope_of, subject)
from heartcompass.store.workspace import Workspace


def edit_profile(person: Person, **meta) -> None:
    prof = person.load_profile()
    for key, value in meta.items():
        prof.set(key, value)
    person.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")


# -- finding the workspace ---------------------------------------------------------------------------------------
def made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "heartcompass.toml").write_text("", encoding="utf-8")
    return path


def test_a_workspace_is_found_where_the_user_said_first(tmp_path, monkeypatch):
    given, home, here = made(tmp_path / "given"), made(tmp_path / "home"), made(tmp_path / "here")
    monkeypatch.setenv("HEARTCOMPASS_HOME", str(home))
    assert workspace.discover(given, cwd=here).root == given
    assert workspace.discover(None, cwd=here).root == home
    monkeypatch.delenv("HEARTCOMPASS_HOME")
    (here / "a" / "b").mkdir(parents=True)
    assert workspace.discover(None, cwd=here / "a" / "b").root == here


def test_a_named_folder_that_is_not_a_workspace_says_which_and_how_to_make_one(tmp_path, monkeypatch):
    with pytest.raises(WorkspaceNotFound) as exc:
        workspace.discover(tmp_path / "nope", cwd=tmp_path)
    assert exc.value.message == f"--workspace {tmp_path / 'nope'} is not a HeartCompass workspace (no heartcompass.toml)."
    assert exc.value.hint == workspace.NOT_FOUND_HINT
    monkeypatch.setenv("HEARTCOMPASS_HOME", str(tmp_path / "gone"))
    with pytest.raises(WorkspaceNotFound) as exc:
        workspace.discover(None, cwd=made(tmp_path / "here"))
    assert exc.value.message.startswith(f"$HEARTCOMPASS_HOME {tmp_path / 'gone'} is not")


def test_the_default_workspace_is_found_last(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    lost = tmp_path / "lost"
    lost.mkdir()
    with pytest.raises(WorkspaceNotFound) as exc:
        workspace.discover(None, cwd=lost)
    assert exc.value.message == "No HeartCompass workspace here or in any parent folder."
    assert exc.value.hint == workspace.NOT_FOUND_HINT
    made(tmp_path / "HeartCompass")
    assert workspace.discover(None, cwd=lost).root == tmp_path / "HeartCompass"
    assert workspace.discover("~/HeartCompass", cwd=lost).root == tmp_path / "HeartCompass"


def test_a_workspace_is_a_folder_with_its_settings_file(tmp_path):
    assert not workspace.is_workspace(tmp_path)
    (tmp_path / "heartcompass.toml").mkdir()
    assert not workspace.is_workspace(tmp_path)


def test_paths_inside_are_named_from_the_root_and_outside_as_they_are(tmp_path):
    ws = Workspace(made(tmp_path / "brain"))
    assert (ws.people_dir, ws.archive_dir, ws.prompts_dir, ws.config_path) == (
        ws.root / "people", ws.root / "people" / ".archive", ws.root / "prompts", ws.root / "heartcompass.toml")
    assert ws.rel(ws.root / "people" / "a" / "PROFILE.md") == "people/a/PROFILE.md" and ws.rel(ws.root) == "."
    assert ws.rel(tmp_path / "elsewhere") == str(tmp_path / "elsewhere")
    os.symlink(ws.root, tmp_path / "link")
    assert ws.rel(tmp_path / "link" / "people") == "people"  # through a link to it: still inside
    assert Workspace(tmp_path / "link").root == ws.root


def test_a_file_reached_through_a_link_inside_is_named_where_the_user_sees_it(tmp_path):
    """A link planted inside the workspace (refused elsewhere) is named by its
    place in the workspace, not by where it leads: the user finds it there."""
    ws = Workspace(made(tmp_path / "brain"))
    (tmp_path / "outside").mkdir()
    (ws.root / "people").mkdir()
    os.symlink(tmp_path / "outside", ws.root / "people" / "planted")
    assert ws.rel(ws.root / "people" / "planted" / "PROFILE.md") == "people/planted/PROFILE.md"


def test_the_state_folder_is_made_once_and_never_a_link(tmp_path):
    ws = Workspace(made(tmp_path / "brain"))
    assert ws.state_dir == ws.root / ".heartcompass" and ws.state_dir.is_dir()
    os.rmdir(ws.root / ".heartcompass")
    os.symlink(tmp_path, ws.root / ".heartcompass")
    with pytest.raises(HeartCompassError):
        ws.state_dir  # noqa: B018 - a link put there since is refused, not followed


def test_a_read_only_workspace_still_reads(tmp_path, monkeypatch):
    """A state folder that cannot be made (permission, read-only disk) is
    said once and reading goes on; any other failure is not hidden."""
    import errno

    from heartcompass import paths
    from heartcompass.atomic import unsaved_caches

    root = made(tmp_path / "brain")
    unsaved_caches()
    for error in (PermissionError(errno.EACCES, "Permission denied"), OSError(errno.EROFS, "Read-only file system")):
        monkeypatch.setattr(paths, "ensure_folder", lambda path, error=error: (_ for _ in ()).throw(error))
        ws = Workspace(root)
        assert ws.state_dir == root / ".heartcompass" and not (root / ".heartcompass").exists()
        assert ws.state_dir == root / ".heartcompass"  # asked again: tried again, not taken as made
        assert [path for path, _ in unsaved_caches()] == [root / ".heartcompass"] * 2
    monkeypatch.setattr(paths, "ensure_folder", lambda path: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    with pytest.raises(OSError):
        Workspace(root).state_dir  # noqa: B018


def test_settings_are_read_once_until_reloaded(tmp_path):
    ws = Workspace(made(tmp_path / "brain"))
    assert ws.config.get("user.name") == ""
    ws.config_path.write_text('[user]\nname = "A"\n', encoding="utf-8")
    assert ws.config.get("user.name") == ""
    ws.reload_config()
    assert ws.config.get("user.name") == "A"


def test_rejected_text_is_kept_and_never_overwritten(tmp_path, monkeypatch):
    ws = Workspace(made(tmp_path / "brain"))
    moment = dt.datetime(2026, 3, 2, 10, 20, 30, tzinfo=dt.timezone.utc)
    monkeypatch.setattr(clock, "now", lambda ws: moment)
    first = workspace.keep_rejected(ws, "alice", "PROFILE.md", "mine")
    second = workspace.keep_rejected(ws, "alice", "PROFILE.md", "mine too")
    third = workspace.keep_rejected(ws, "alice", "PROFILE.md", "and this")
    assert first == ws.root / ".heartcompass" / "rejected" / "alice-PROFILE.md.20260302-102030"
    assert second.name == "alice-PROFILE.md.20260302-102030-2" and third.name == "alice-PROFILE.md.20260302-102030-3"
    assert [p.read_text(encoding="utf-8") for p in (first, second, third)] == ["mine", "mine too", "and this"]


def test_rejected_text_is_stamped_with_the_users_own_time(tmp_path, monkeypatch):
    """The stamp on a kept rejection is the user's clock (user.timezone), so
    it sorts beside their day's logs, not the machine's."""
    ws = Workspace(made(tmp_path / "brain"))
    ws.config_path.write_text('[user]\ntimezone = "Pacific/Kiritimati"\n', encoding="utf-8")

    class Fixed(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(2026, 3, 2, 10, 20, 30, tzinfo=dt.timezone.utc).astimezone(tz)

    monkeypatch.setattr(clock.dt, "datetime", Fixed)
    kept = workspace.keep_rejected(ws, "bob", "EVENTS.md", "我的")
    assert kept.name == "bob-EVENTS.md.20260303-002030" and kept.read_text(encoding="utf-8") == "我的"


# -- the user's clock ----------------------------------------------------------------------------------------------
def test_the_date_is_the_users_in_their_zone(tmp_path):
    from zoneinfo import ZoneInfo

    ws = Workspace(made(tmp_path / "brain"))
    ws.config_path.write_text('[user]\ntimezone = "Pacific/Kiritimati"\n', encoding="utf-8")
    now = clock.now(ws)
    assert now.utcoffset() == dt.timedelta(hours=14)
    assert clock.today(ws) == dt.datetime.now(ZoneInfo("Pacific/Kiritimati")).date()


def test_a_clock_set_wildly_wrong_is_refused_with_how_to_fix_it(tmp_path, monkeypatch):
    ws = Workspace(made(tmp_path / "brain"))

    class Broken(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(1970, 1, 1, 3, 4, tzinfo=tz or dt.timezone.utc)

    monkeypatch.setattr(clock.dt, "datetime", Broken)
    with pytest.raises(HeartCompassError) as exc:
        clock.now(ws)
    assert exc.value.message == ("This machine's clock says 1970-01-01 03:04, and every message and event is dated by it.")
    assert exc.value.hint == "Set the clock right (e.g. 'timedatectl' or 'date -s'), then run the command again."
    assert 1971 in clock.SANE_YEARS and 8999 in clock.SANE_YEARS and 9000 not in clock.SANE_YEARS


# -- commit subjects -----------------------------------------------------------------------------------------------
def test_a_subject_is_one_line_without_terminal_controls():
    assert subject(Verb.TELL, "alice", "moving\nto \x1b[31mBerlin") == "tell(alice): moving to Berlin"
    assert subject(Verb.CONFIG, "", "x") == "config: x"


def test_a_prefix_a_hook_put_before_our_subject_is_read_past():
    assert parse_subject("[ABC-1] chat(bob): 3 messages") == Subject("chat", "bob", "3 messages")
    assert parse_subject("[ABC-1] unarchive(bob): back") == Subject("unarchive", "bob", "back")
    assert parse_subject("[ABC-1] fix: typo") is None and is_hand_subject("[ABC-1] fix: typo")
    assert parse_subject("Merge branch 'x'") is None and scope_of("garden: all") == "workspace"
    assert scope_of("[ABC-1] tell(小明): x") == "小明" and scope_of("edit(config): by hand") == "config"
    assert parse_subject("add(a): line one\nline two") == Subject("add", "a", "line one\nline two")


def test_a_hand_edit_and_a_foreign_verb_are_the_users():
    assert Subject("edit", "a", "by hand").by_hand and Subject("fix", None, "x").by_hand
    assert not Subject("add", "a", "x").by_hand and not is_hand_subject("add(a): x")


def test_an_undo_names_the_commits_it_takes_back():
    sha, other = "a" * 40, "0123456789abcdef0123456789abcdef01234567"
    assert reverted_by(f"{REVERTS_PREFIX}{sha}.\n\n{REVERTS_PREFIX}{other}.") == [sha, other]
    assert reverted_by(f"{REVERTS_PREFIX}{'a' * 39}.") == [] and reverted_by("") == []
    assert MOVED_FROM == "Moved by hand from "


# -- making a workspace ------------------------------------------------------------------------------------------
def test_init_builds_where_the_user_said_in_the_order_commands_find_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HEARTCOMPASS_HOME", "~/env")
    assert creation.init_target("~/p", "~/w") == (tmp_path / "p", "the PATH given")
    assert creation.init_target(None, "~/w") == (tmp_path / "w", "--workspace")
    assert creation.init_target(None) == (tmp_path / "env", "$HEARTCOMPASS_HOME")
    monkeypatch.delenv("HEARTCOMPASS_HOME")
    assert creation.init_target("", "") == (tmp_path / "HeartCompass", "the default")


def test_a_new_workspace_is_the_template_committed(tmp_path):
    ws, created = creation.create_workspace(tmp_path / "a" / "brain")
    assert created and workspace.is_workspace(ws.root) and (ws.root / "people" / "me" / "PROFILE.md").is_file()
    assert subjects(ws) == ["init: new HeartCompass workspace"] and git(ws, "status", "--porcelain") == ""
    assert "people/me/PROFILE.md" in git(ws, "ls-files").split()
    assert not (ws.root / "people" / "alice").exists()
    again, created = creation.create_workspace(ws.root, example=True)
    assert not created and again.root == ws.root and subjects(ws) == ["init: new HeartCompass workspace"]


def test_init_never_overwrites_a_file(tmp_path):
    folder = tmp_path / "brain"
    (folder / "people" / "me").mkdir(parents=True)
    (folder / "people" / "me" / "PROFILE.md").write_text("---\nname: Mine\nrelation: self\n---\n", encoding="utf-8")
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.create_workspace(folder)
    assert exc.value.message == f"{folder} is not empty and is not a HeartCompass workspace."
    assert "--force" in exc.value.hint
    ws, created = creation.create_workspace(folder, force=True)
    assert created and Person("me", folder / "people" / "me").load_profile().name == "Mine"
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine" and (folder / "heartcompass.toml").is_file()
    assert "notes.txt" not in git(ws, "ls-files").split()  # not ours: left out of the first commit


def test_the_template_copy_skips_caches_and_keeps_what_is_there(tmp_path):
    (tmp_path / "README.md").write_text("mine", encoding="utf-8")
    created = creation.copy_template(tmp_path)
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "mine"
    assert tmp_path / "README.md" not in created and tmp_path / "heartcompass.toml" in created
    assert not list(tmp_path.rglob("__pycache__")) and (tmp_path / "prompts").is_dir()


def test_init_on_a_file_or_an_unwritable_place_is_one_clear_line(tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.create_workspace(tmp_path / "file")
    assert exc.value.message == f"{tmp_path / 'file'} is a file, not a folder."
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.create_workspace(tmp_path / "file" / "under")
    assert exc.value.message.startswith(f"{tmp_path / 'file' / 'under'}: cannot create this folder (")
    assert exc.value.hint == "Choose a folder you can write to, e.g. 'heartcompass init ~/HeartCompass'."


def test_an_init_stopped_before_its_commit_is_finished(tmp_path):
    folder = tmp_path / "brain"
    creation.copy_template(folder)
    ws, created = creation.create_workspace(folder, example=True)
    assert created and subjects(ws) == ["add(alice): example person", "init: new HeartCompass workspace"]


def test_the_example_person_is_added_once_and_linked_both_ways(ws):
    assert creation.add_example(ws)
    alice = people.resolve(ws, "alice")
    assert alice.load_profile().name == "Alice Chen"
    me = Person("me", ws.people_dir / "me").load_profile()
    assert me.related == [{"person": "alice", "as": creation.EXAMPLE_LINK_BACK}]
    assert subjects(ws)[0] == "add(alice): example person" and git(ws, "status", "--porcelain") == ""
    assert not creation.add_example(ws)
    lifecycle.rename_person(ws, "alice", "Alicia")
    assert not creation.add_example(ws)  # she is there under another name


def test_the_example_is_not_added_beside_an_archived_alice(ws):
    (ws.archive_dir / "alice").mkdir(parents=True)
    assert not creation.add_example(ws) and not (ws.people_dir / "alice").exists()


def test_the_users_profile_links_back_to_the_example_only_when_it_can(ws):
    me = Person("me", ws.people_dir / "me")
    edit_profile(me, related=[{"person": "alice", "as": "old friend"}])
    git(ws, "commit", "-qam", "mine")
    assert creation.add_example(ws)
    assert me.load_profile().related == [{"person": "alice", "as": "old friend"}]  # already linked: as it was


def test_a_hand_edit_of_the_users_profile_is_its_own_commit_before_the_example(ws):
    me = Person("me", ws.people_dir / "me")
    edit_profile(me, tags=["mine"])
    assert creation.add_example(ws)
    assert subjects(ws)[:2] == ["add(alice): example person", "edit(me): by hand"]
    assert me.load_profile().tags == ["mine"] and me.load_profile().related[0]["person"] == "alice"


def test_no_link_back_from_a_users_profile_that_is_not_the_user(ws):
    me = Person("me", ws.people_dir / "me")
    edit_profile(me, relation="friend")
    git(ws, "commit", "-qam", "mine")
    assert creation.add_example(ws)
    assert me.load_profile().related == []
    me.profile_path.unlink()
    git(ws, "commit", "-qam", "gone")
    shutil_rm(ws.people_dir / "alice")
    git(ws, "commit", "-qam", "gone too")
    assert creation.add_example(ws)  # no profile of the user's at all: added, nothing linked


def test_a_users_profile_that_does_not_parse_is_left_as_it_is(ws):
    me = Person("me", ws.people_dir / "me")
    me.profile_path.write_text("---\nname: [x\n---\n", encoding="utf-8")
    git(ws, "commit", "-qam", "broken")
    assert creation.add_example(ws)
    assert me.profile_path.read_text(encoding="utf-8") == "---\nname: [x\n---\n"


def shutil_rm(path: Path) -> None:
    import shutil

    shutil.rmtree(path)


def test_a_second_device_copies_the_workspace_and_a_failure_leaves_the_folder_as_found(ws, tmp_path):
    copy, branch = creation.clone_workspace(tmp_path / "second", str(ws.root))
    assert workspace.is_workspace(copy.root) and branch == git(ws, "branch", "--show-current").strip()
    (tmp_path / "empty").mkdir()
    with pytest.raises(HeartCompassError):
        creation.clone_workspace(tmp_path / "empty", str(tmp_path / "no-such-repo"))
    assert (tmp_path / "empty").is_dir() and os.listdir(tmp_path / "empty") == []
    with pytest.raises(HeartCompassError):
        creation.clone_workspace(tmp_path / "new", str(tmp_path / "no-such-repo"))
    assert not (tmp_path / "new").exists()
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.clone_workspace(tmp_path / "second", str(ws.root))
    assert exc.value.message == f"{tmp_path / 'second'} is not empty; a workspace is copied into a new or empty folder."
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound):
        creation.clone_workspace(tmp_path / "afile", str(ws.root))


def test_a_second_device_copies_into_an_empty_folder_or_a_new_nested_one_with_origin_set(ws, tmp_path):
    """`init --from` takes an empty folder the user made, or makes the
    folders on the way; the copy syncs with `origin`, as sync expects."""
    (tmp_path / "empty").mkdir()
    copy, _ = creation.clone_workspace(tmp_path / "empty", str(ws.root))
    assert copy.root == tmp_path / "empty" and workspace.is_workspace(copy.root)
    assert git(copy, "remote").split() == ["origin"]
    nested, _ = creation.clone_workspace(tmp_path / "a" / "b" / "copy", str(ws.root))
    assert workspace.is_workspace(nested.root) and nested.root == tmp_path / "a" / "b" / "copy"


def test_a_second_device_refused_says_why_and_what_to_do(ws, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.clone_workspace(tmp_path / "full", str(ws.root))
    assert exc.value.hint == "Choose another folder, e.g. 'heartcompass init ~/HeartCompass --from URL'."
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.clone_workspace(tmp_path / "afile" / "under", str(ws.root))
    assert exc.value.message == f"{tmp_path / 'afile' / 'under'}: cannot create this folder (Not a directory)."
    assert (tmp_path / "full" / "mine.txt").read_text(encoding="utf-8") == "x"


def test_a_copy_that_failed_says_why_even_when_its_cleanup_could_not_remove_everything(ws, tmp_path, monkeypatch):
    """What the user needs is why `init --from` failed; a folder the cleanup
    could not remove (permissions, a file held open) must not hide it."""

    real_rmdir = os.rmdir

    def stuck(path, *args, **kwargs):
        if os.path.basename(path) == "refs":
            raise PermissionError(13, "Permission denied", path)
        return real_rmdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "rmdir", stuck)
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "new", tmp_path / "empty"):
        with pytest.raises(GitError) as exc:
            creation.clone_workspace(folder, str(tmp_path / "no-such-repo"))
        assert str(tmp_path / "no-such-repo") in exc.value.message
        assert not (folder / ".git" / "HEAD").exists()  # the rest was removed all the same


def test_a_repository_that_is_not_a_workspace_is_not_copied(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess_git(plain, "init", "-q")
    (plain / "x.txt").write_text("x", encoding="utf-8")
    subprocess_git(plain, "add", "x.txt")
    subprocess_git(plain, "commit", "-qm", "x")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.clone_workspace(tmp_path / "copy", str(plain))
    assert exc.value.message.startswith(f"{plain} is a git repository but not a HeartCompass workspace")
    assert exc.value.hint == "Give the remote that 'heartcompass sync' pushes to (git remote -v on the first device)."
    assert not (tmp_path / "copy").exists()


def subprocess_git(cwd: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-c", "user.name=U", "-c", "user.email=u@x", *args], cwd=cwd, check=True)


# -- a person added, renamed, archived, brought back: one commit each ---------------------------------------------------
def test_a_new_person_is_one_commit_and_the_people_they_name_link_back(ws):
    me = Person("me", ws.people_dir / "me")
    edit_profile(me, tags=["mine"])
    bob = lifecycle.add_person(ws, "Bob", "friend", related=[{"person": "me", "as": "friend"}])
    assert subjects(ws)[:2] == ["add(bob): new person", "edit(me): by hand"]
    assert me.load_profile().related == [{"person": "bob", "as": ""}] and git(ws, "status", "--porcelain") == ""
    seen = []
    carol = lifecycle.add_person(ws, "Carol", "friend", why="from a card", related=[{"person": "bob"}],
                                 then=lambda p: seen.append(p) or (p.dir / "avatar.png").write_bytes(b"png"))
    assert seen == [carol] and subjects(ws)[0] == "add(carol): from a card"
    assert "people/carol/avatar.png" in git(ws, "ls-files").split()
    assert [link["person"] for link in bob.load_profile().related] == ["me", "carol"]


def test_a_link_back_is_not_written_twice_nor_into_a_broken_profile(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    bob = Person("bob", ws.people_dir / "bob")
    edit_profile(bob, related=[{"person": "carol", "as": "sister"}])
    zed = ws.people_dir / "zed"
    zed.mkdir()
    (zed / "PROFILE.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "mine")
    lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob"}, {"person": "zed"}])
    assert bob.load_profile().related == [{"person": "carol", "as": "sister"}]
    assert (zed / "PROFILE.md").read_text(encoding="utf-8") == "---\nname: [x\n---\n"
    assert git(ws, "status", "--porcelain") == ""


def test_a_rename_moves_the_folder_keeps_the_old_name_and_links_follow(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    carol = lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob", "as": "brother"}])
    bob = Person("bob", ws.people_dir / "bob")
    for path in (bob.events_path, bob.memory_path):
        path.write_text(path.read_text(encoding="utf-8").replace("— Bob\n", "— Bob  \n"), encoding="utf-8")
    git(ws, "commit", "-qam", "spaces")
    done = lifecycle.rename_person(ws, "bob", "Robert Stone")
    assert done.person == Person("robert-stone", ws.people_dir / "robert-stone") and not bob.dir.exists()
    assert done.linkers == ["carol"] and done.kept_alias == "Bob"
    prof = done.person.load_profile()
    assert (prof.name, prof.aliases) == ("Robert Stone", ["Bob"])
    assert "\n# Robert Stone\n" in prof.body
    assert "# Events — Robert Stone\n" in done.person.events_path.read_text(encoding="utf-8")
    assert "# Memory — Robert Stone\n" in done.person.memory_path.read_text(encoding="utf-8")
    assert carol.load_profile().related == [{"person": "robert-stone", "as": "brother"}]
    assert subjects(ws)[0] == "rename(robert-stone): from bob"
    assert git(ws, "log", "-1", "--format=%b").strip() == "Bob is now Robert Stone.\nLinks updated in: carol"
    assert git(ws, "status", "--porcelain") == ""


def test_a_rename_in_place_or_of_case_keeps_no_alias_it_does_not_need(ws):
    lifecycle.add_person(ws, "Bob", "friend", aliases=["Bobby"])
    done = lifecycle.rename_person(ws, "bob", "BOB")
    assert done.person.slug == "bob" and done.kept_alias is None and done.linkers == []
    assert done.person.load_profile().aliases == ["Bobby"] and done.person.load_profile().name == "BOB"
    assert git(ws, "log", "-1", "--format=%b").strip() == "Bob is now BOB."
    done = lifecycle.rename_person(ws, "bob", "Robert", keep_alias=False)
    assert done.kept_alias is None and done.person.load_profile().aliases == ["Bobby"]
    lifecycle.rename_person(ws, "robert", "Bobby Tables")
    assert Person("bobby-tables", ws.people_dir / "bobby-tables").load_profile().aliases == ["Bobby", "Robert"]
    done = lifecycle.rename_person(ws, "bobby-tables", "bobby")
    assert done.kept_alias == "Bobby Tables"


def test_a_rename_to_the_same_name_a_taken_name_or_of_the_user_is_refused(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Carol", "friend", aliases=["Caz"])
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(PersonError) as exc:
        lifecycle.rename_person(ws, "bob", "Bob")
    assert exc.value.message == "bob is already called 'Bob'; nothing to rename."
    with pytest.raises(PersonError) as exc:
        lifecycle.rename_person(ws, "bob", "carol")
    assert exc.value.message == "The name 'carol' gives the folder people/carol, which someone already uses."
    with pytest.raises(people.NameTakenError):
        lifecycle.rename_person(ws, "bob", "Caz")
    with pytest.raises(PersonError) as exc:
        lifecycle.rename_person(ws, "me", "Myself")
    assert exc.value.message.startswith("people/me is you (relation: self): renaming it moves your folder")
    assert exc.value.message.endswith("Nothing was changed.") and "user.name" in exc.value.hint
    assert git(ws, "rev-parse", "HEAD") == head
    assert lifecycle.rename_person(ws, "bob", "Caz", allow_taken=True).person.slug == "caz"
    assert lifecycle.rename_person(ws, "me", "Myself", allow_self=True).person.slug == "myself"


def test_a_person_is_archived_and_brought_back_one_commit_each(ws):
    lifecycle.add_person(ws, "Bob", "friend", aliases=["Bobby"])
    lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob"}])
    bob = Person("bob", ws.people_dir / "bob")
    edit_profile(bob, tags=["mine"])
    done = lifecycle.archive_person(ws, "Bobby")
    assert done == lifecycle.Archived(ws.archive_dir / "bob", ["carol"]) and not bob.dir.exists()
    assert subjects(ws)[:2] == ["archive(bob): moved to people/.archive", "edit(bob): by hand"]
    assert git(ws, "status", "--porcelain") == ""
    assert lifecycle.unarchive_person(ws, "BOBBY") == bob and bob.profile_path.is_file()
    assert subjects(ws)[0] == "unarchive(bob): back from people/.archive"
    assert bob.load_profile().tags == ["mine"]


def test_archiving_the_user_or_onto_an_archived_folder_is_refused(ws):
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(PersonError) as exc:
        lifecycle.archive_person(ws, "me")
    assert exc.value.message.startswith("people/me is you (relation: self): archiving it leaves")
    assert exc.value.hint == "Edit people/me/PROFILE.md instead; add --force to archive it anyway."
    lifecycle.add_person(ws, "Bob", "friend")
    (ws.archive_dir / "bob").mkdir(parents=True)
    with pytest.raises(PersonError) as exc:
        lifecycle.archive_person(ws, "bob")
    assert exc.value.message == "people/.archive/bob already exists."
    assert Person("bob", ws.people_dir / "bob").profile_path.is_file()
    assert lifecycle.archive_person(ws, "me", allow_self=True).dest == ws.archive_dir / "me"
    assert head != git(ws, "rev-parse", "HEAD")


def test_a_broken_profile_named_me_counts_as_the_user(ws):
    me = ws.people_dir / "me" / "PROFILE.md"
    me.write_text("---\nname: [x\n---\n", encoding="utf-8")
    git(ws, "commit", "-qam", "broken")
    with pytest.raises(PersonError, match="is you"):
        lifecycle.archive_person(ws, "me")
    zed = ws.people_dir / "zed"
    zed.mkdir()
    (zed / "PROFILE.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "zed")
    assert lifecycle.archive_person(ws, "zed").dest == ws.archive_dir / "zed"


def test_unarchive_refuses_a_taken_folder_uncommitted_changes_or_a_taken_name(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.archive_person(ws, "bob")
    (ws.people_dir / "bob").mkdir()
    (ws.people_dir / "bob" / "PROFILE.md").write_text("---\nname: Bob\nrelation: friend\n---\n", encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "another bob, by hand")
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "bob")
    assert exc.value.message == ("people/bob exists: someone else has that folder name now, so 'bob' cannot come "
                                 "back there.")
    assert exc.value.hint == ("Rename that person first (heartcompass person rename bob NEW-NAME), then unarchive "
                              "again.")
    git(ws, "rm", "-rq", "people/bob")
    git(ws, "commit", "-qm", "not that bob")
    archived = Person("bob", ws.archive_dir / "bob")
    edit_profile(archived, tags=["x"])
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "bob")
    assert exc.value.message == ("people/.archive/bob has uncommitted changes (people/.archive/bob/PROFILE.md); "
                                 "nothing was moved.")
    assert exc.value.hint.endswith("git checkout -- people/.archive/bob ; then unarchive again.")
    git(ws, "commit", "-qam", "mine")
    lifecycle.add_person(ws, "Robert", "friend", aliases=["Bob"])
    with pytest.raises(people.NameTakenError):
        lifecycle.unarchive_person(ws, "bob")
    assert lifecycle.unarchive_person(ws, "bob", allow_taken=True).dir == ws.people_dir / "bob"


def test_an_archived_person_not_found_says_who_is_archived(ws):
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "bob")
    assert exc.value.message == "No archived person 'bob'." and exc.value.hint == "Archived people: none."
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Carol", "friend")
    lifecycle.archive_person(ws, "carol")
    (ws.archive_dir / "stray.txt").write_text("x", encoding="utf-8")
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "Bob")
    assert exc.value.message == "No archived person 'Bob' (people/bob/ is not archived)."
    assert exc.value.hint == "Archived people: carol."
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "??")
    assert exc.value.message == "No archived person '??'."  # no folder name at all


def test_a_name_several_archived_people_answer_to_asks_for_the_folder(ws):
    for name in ("Ann", "Anne"):
        lifecycle.add_person(ws, name, "friend", aliases=["Annie"], allow_taken=True)
        lifecycle.archive_person(ws, name)
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "annie")
    assert exc.value.message == "'annie' matches several archived people: ann, anne."
    assert exc.value.hint == "Use the folder name under people/.archive/."


def test_a_title_line_is_retitled_only_when_it_is_exactly_the_old_one():
    text = "# Events — Bob Jr\n# Events — Bob\n# Events — Bob\n"
    assert lifecycle._retitle_text(text, "# Events — Bob", "# Events — Rob") == (
        "# Events — Bob Jr\n# Events — Rob\n# Events — Bob\n")
    assert lifecycle._retitle_text("# Bob\t \nx", "# Bob", "# A\\g<0>") == "# A\\g<0>\nx"


# -- mentions that become people ---------------------------------------------------------------------------------
MENTIONS = "\n## People in their life\n\n- [m1] Sara (daughter): Plays the violin (told)\n- [m2] Rob: Yoga (told)\n"


def test_a_mention_of_someone_new_links_to_them(ws):
    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    carol = lifecycle.add_person(ws, "Carol", "friend")  # mentioned by no one: nothing changes
    assert "→" not in bob.profile_path.read_text(encoding="utf-8") and subjects(ws)[0] == "add(carol): new person"
    assert git(ws, "status", "--porcelain").splitlines() == [" M people/bob/PROFILE.md"]  # Bob's, till his is written
    lifecycle.add_person(ws, "Sara", "family")
    assert subjects(ws)[:2] == ["add(sara): new person", "edit(bob): by hand"]
    text = bob.profile_path.read_text(encoding="utf-8")
    assert "- [m1] Sara (daughter; → sara): Plays the violin (told)" in text and "- [m2] Rob: Yoga (told)" in text
    assert "people/bob/PROFILE.md" in git(ws, "show", "--name-only", "--format=", "HEAD").split()
    assert git(ws, "status", "--porcelain") == "" and carol.profile_path.is_file()


def test_a_mention_by_alias_or_nickname_links_but_two_that_fit_do_not(ws):
    from heartcompass.store.mention_links import link_new_people

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write("\n## People in their life\n\n- [m1] Robbie (aka Rob Stone): Yoga (told)\n"
                "- [m2] Al: x (told)\n- [m3] Al (colleague): y (told)\n")
    git(ws, "commit", "-qam", "mine")
    rob = people.create(ws, "Rob Stone", "friend")
    al = people.create(ws, "Al", "friend")
    assert link_new_people(ws, [rob, al]) == [bob.profile_path]
    text = bob.profile_path.read_text(encoding="utf-8")
    assert "- [m1] Robbie (aka Rob Stone; → rob-stone): Yoga (told)" in text
    assert "- [m2] Al: x (told)" in text and "- [m3] Al (colleague): y (told)" in text


def test_mentions_already_linked_or_in_broken_profiles_are_left_alone(ws):
    from heartcompass.store.mention_links import link_new_people

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write("\n## People in their life\n\n- [m1] Sara (→ other): x (told)\n")
    zed = ws.people_dir / "zed"
    zed.mkdir()
    (zed / "PROFILE.md").write_text("---\nname: [x\n---\n\n## People in their life\n\n- Sara: x\n", encoding="utf-8")
    nobody = ws.people_dir / "nobody"
    nobody.mkdir()
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "mine")
    sara = people.create(ws, "Sara", "family")
    assert link_new_people(ws, [sara]) == []
    sara.profile_path.write_text("---\nname: [x\n---\n", encoding="utf-8")
    assert link_new_people(ws, [sara]) == []  # a newcomer whose profile does not parse is no one to link


def test_a_mention_is_sure_only_for_its_own_newcomer():
    from heartcompass import names
    from heartcompass.formats.mentions import Mention
    from heartcompass.store.mention_links import _means

    sara = names.Candidate("sara", ["Sara Lee"])
    assert _means(Mention("Sara Lee"), sara) and _means(Mention("Sal", aliases=["sara lee"]), sara)
    assert not _means(Mention("Bob", aliases=["Rob"]), sara)
    assert _means(Mention("Sara"), sara)  # a first name is a sure form of the whole name
    assert not _means(Mention("Sarra Lee"), sara)  # one letter off may be someone else: not linked


# -- settings changed by a command -------------------------------------------------------------------------------
def test_config_set_and_unset_are_one_commit_each_after_the_users_own(ws):
    from heartcompass.store.config_edit import set_config, unset_config

    ws.config_path.write_text(ws.config_path.read_text(encoding="utf-8") + "\n# mine\n", encoding="utf-8")
    assert ws.config.get("user.name") != "王磊"  # read before: the change is seen by this workspace too
    value, sha = set_config(ws, "user.name", "王磊")
    assert value == "王磊" and sha == git(ws, "rev-parse", "HEAD").strip()
    assert subjects(ws)[:2] == ["config: user.name = '王磊'", "edit(config): by hand"]
    assert ws.config.get("user.name") == "王磊" and "# mine" in ws.config_path.read_text(encoding="utf-8")
    assert unset_config(ws, "user.name")[0] is True and subjects(ws)[0] == "config: unset user.name"
    assert Workspace(ws.root).config.get("user.name") == "" and ws.config.get("user.name") == ""  # this one too
    assert unset_config(ws, "user.name") == (False, None)
    with pytest.raises(ConfigError) as exc:
        unset_config(ws, "user.nmae")
    assert exc.value.message == "Unknown setting 'user.nmae'." and "user.name" in exc.value.hint
    with pytest.raises(ConfigError):
        set_config(ws, "llm.temperature", "hot")
    assert git(ws, "status", "--porcelain") == ""


def test_while_a_setting_is_changed_another_command_is_told_which(ws, monkeypatch):
    """The workspace lock names `config set` / `config unset` while they run:
    a second command waiting on it says what it waits for."""
    from heartcompass.store import config_edit, lock

    seen = []
    for name in ("set_value", "unset_value"):
        real = getattr(config_edit, name)

        def watched(*args, real=real):
            seen.append((lock.holder(ws.state_dir / "lock") or {}).get("purpose"))
            return real(*args)

        monkeypatch.setattr(config_edit, name, watched)
    config_edit.set_config(ws, "user.name", "Lei")
    config_edit.unset_config(ws, "user.name")
    assert seen == ["config set", "config unset"] and subjects(ws)[0] == "config: unset user.name"


def test_config_set_and_unset_fix_a_bad_value_the_user_typed(ws):
    """A hand-typed value that does not validate is what `config unset` and
    `config set` are for: the user's line is committed as they wrote it,
    then removed or replaced."""
    from heartcompass.store.config_edit import set_config, unset_config

    text = ws.config_path.read_text(encoding="utf-8")
    assert "temperature = 0.8\n" in text
    ws.config_path.write_text(text.replace("temperature = 0.8\n", 'temperature = "hot"\n'), encoding="utf-8")
    done, sha = unset_config(ws, "llm.temperature")
    assert done and sha == git(ws, "rev-parse", "HEAD").strip()
    assert subjects(ws)[:2] == ["config: unset llm.temperature", "edit(config): by hand"]
    assert "hot" not in ws.config_path.read_text(encoding="utf-8") and git(ws, "status", "--porcelain") == ""
    text = ws.config_path.read_text(encoding="utf-8")
    ws.config_path.write_text(text.replace("timeout = 60", 'timeout = "long"'), encoding="utf-8")
    assert set_config(ws, "llm.timeout", "90")[0] == 90  # `config set` fixes it the same way
    assert subjects(ws)[:2] == ["config: llm.timeout = 90.0", "edit(config): by hand"]


def test_a_mistyped_setting_to_unset_is_answered_with_the_close_one(ws):
    from heartcompass.store.config_edit import unset_config

    with pytest.raises(ConfigError) as exc:
        unset_config(ws, "user.nmae")
    assert exc.value.hint.startswith("Did you mean user.name?")


def test_an_unset_refused_by_a_hook_is_put_back_and_says_which_file(ws):
    from heartcompass.store.config_edit import set_config, unset_config

    set_config(ws, "user.name", "Lei")
    refuse_commits(ws)
    before = ws.config_path.read_text(encoding="utf-8")
    with pytest.raises(GitError) as exc:
        unset_config(ws, "user.name")
    assert "(Not committed: heartcompass.toml was rolled back.)" in exc.value.message
    assert ws.config_path.read_text(encoding="utf-8") == before and Workspace(ws.root).config.get("user.name") == "Lei"
    assert ws.config.get("user.name") == "Lei"  # read again once the file was put back


def test_a_hand_edit_of_the_settings_with_a_credential_is_never_committed(ws):
    from heartcompass.store.config_edit import commit_hand_edit

    assert commit_hand_edit(ws) is False
    edit_profile(Person("me", ws.people_dir / "me"), tags=["mine"])  # someone's edit is not the settings'
    assert commit_hand_edit(ws) is False and subjects(ws) == ["init: new HeartCompass workspace"]
    ws.config_path.write_text('[llm]\nmodel = "sk-abcdefghijklmnopqrstuvwx"\n', encoding="utf-8")
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(ConfigError):
        commit_hand_edit(ws)
    assert git(ws, "rev-parse", "HEAD") == head
    ws.config_path.write_text('[llm]\ntemperature = 9\n', encoding="utf-8")
    with pytest.raises(HeartCompassError):
        commit_hand_edit(ws)
    assert commit_hand_edit(ws, strict=False) is True and subjects(ws)[0] == "edit(config): by hand"


# -- a refused commit puts everything back, and says what --------------------------------------------------------------
def refuse_commits(ws: Workspace) -> None:
    hook = ws.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'refused by a hook' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)


def test_each_change_of_who_is_there_refused_by_a_hook_is_put_back(ws):

    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Carol", "friend")
    lifecycle.archive_person(ws, "carol")
    head = git(ws, "rev-parse", "HEAD")
    refuse_commits(ws)
    cases = [(lambda: lifecycle.add_person(ws, "Dan", "friend"), "people/dan/ (nothing was added) was rolled back"),
             (lambda: lifecycle.rename_person(ws, "bob", "Rob"), "the rename (people/bob is as it was) was rolled back"),
             (lambda: lifecycle.archive_person(ws, "bob"), "the move (people/bob is where it was) was rolled back"),
             (lambda: lifecycle.unarchive_person(ws, "carol"),
              "the move (people/.archive/carol is where it was) was rolled back")]
    for change, said in cases:
        with pytest.raises(GitError) as exc:
            change()
        assert f"(Not committed: {said}.)" in exc.value.message
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""
    assert sorted(os.listdir(ws.people_dir)) == [".archive", "bob", "me"]
    assert Person("bob", ws.people_dir / "bob").load_profile().name == "Bob"


def test_a_setting_refused_by_a_hook_is_put_back_and_hooks_can_be_turned_off(ws):
    from heartcompass.store.config_edit import set_config

    refuse_commits(ws)
    before = ws.config_path.read_text(encoding="utf-8")
    with pytest.raises(GitError) as exc:
        set_config(ws, "user.name", "Lei")
    assert "(Not committed: heartcompass.toml was rolled back.)" in exc.value.message
    assert ws.config_path.read_text(encoding="utf-8") == before and ws.config.get("user.name") == ""
    (ws.root / ".git" / "hooks" / "pre-commit").unlink()
    set_config(ws, "git.hooks", "false")
    refuse_commits(ws)
    lifecycle.add_person(ws, "Bob", "friend")  # the user turned their hooks off: ours commit anyway
    assert subjects(ws)[0] == "add(bob): new person"


def test_a_rename_commits_the_hand_edits_of_those_linking_first_and_retitles_what_is_there(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    carol = lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob"}])
    bob = Person("bob", ws.people_dir / "bob")
    bob.events_path.unlink()
    git(ws, "commit", "-qam", "no events")
    edit_profile(carol, tags=["mine"])
    lifecycle.rename_person(ws, "bob", "Rob")
    assert subjects(ws)[:2] == ["rename(rob): from bob", "edit(carol): by hand"]
    rob = Person("rob", ws.people_dir / "rob")
    assert not rob.events_path.exists() and "# Memory — Rob\n" in rob.memory_path.read_text(encoding="utf-8")
    assert carol.load_profile().tags == ["mine"] and git(ws, "status", "--porcelain") == ""


def fake_shipped(tmp_path: Path, monkeypatch) -> None:
    """The shipped folders as they are, each with a __pycache__ a build left in it."""
    import shutil

    from heartcompass.resources import shipped_dir

    for name in ("workspace_template", "examples"):
        copy = tmp_path / "shipped" / name
        shutil.copytree(shipped_dir(name), copy)
        for folder in (copy, *(p for p in copy.rglob("*") if p.is_dir())):
            (folder / "__pycache__").mkdir(exist_ok=True)
            (folder / "__pycache__" / "x.pyc").write_bytes(b"\0")
    monkeypatch.setattr(creation, "shipped_dir", lambda name: tmp_path / "shipped" / name)


def test_no_cache_a_build_left_in_the_shipped_folders_reaches_a_workspace(tmp_path, monkeypatch):
    fake_shipped(tmp_path, monkeypatch)
    folder = tmp_path / "brain"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "__pycache__" / "mine.pyc").write_bytes(b"\0")
    ws, _ = creation.create_workspace(folder, force=True, example=True)
    assert not [p for p in ws.root.rglob("__pycache__") if p != folder / "__pycache__"]
    assert "__pycache__" not in git(ws, "ls-files")
    assert (ws.people_dir / "alice" / "PROFILE.md").is_file() and (ws.people_dir / "me" / "PROFILE.md").is_file()


def test_the_example_is_not_added_beside_someone_called_by_her_chinese_name(ws):
    lifecycle.add_person(ws, "Xiao", "friend", aliases=["小爱"])
    assert not creation.add_example(ws) and not (ws.people_dir / "alice").exists()


def test_a_failed_copy_into_an_empty_folder_leaves_it_empty(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess_git(plain, "init", "-q")
    (plain / "x.txt").write_text("x", encoding="utf-8")
    (plain / "sub").mkdir()
    (plain / "sub" / "y.txt").write_text("y", encoding="utf-8")
    subprocess_git(plain, "add", "-A")
    subprocess_git(plain, "commit", "-qm", "x")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(WorkspaceNotFound):
        creation.clone_workspace(empty, str(plain))
    assert empty.is_dir() and os.listdir(empty) == []


def test_a_hand_edit_saved_while_a_mention_is_linked_is_never_overwritten(ws, monkeypatch):
    from heartcompass.store import mention_links

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    git(ws, "commit", "-qam", "mine")
    real = mention_links.read_text

    def read_then_edited(path):
        text = real(path)
        path.write_text(text + "\n- typed just now\n", encoding="utf-8")
        return text

    monkeypatch.setattr(mention_links, "read_text", read_then_edited)
    sara = people.create(ws, "Sara", "family")
    with pytest.raises(HeartCompassError, match="changed on disk"):
        mention_links.link_new_people(ws, [sara])
    assert bob.profile_path.read_text(encoding="utf-8").endswith("\n- typed just now\n")


def test_a_profile_that_is_not_utf8_is_left_alone_when_linking(ws):
    from heartcompass.store.mention_links import link_new_people

    bob = lifecycle.add_person(ws, "Bob", "friend")
    bob.profile_path.write_bytes(bob.profile_path.read_bytes() + MENTIONS.encode("utf-8") + b"\xff\n")
    git(ws, "commit", "-qam", "mine")
    sara = people.create(ws, "Sara", "family")
    assert link_new_people(ws, [sara]) == []
    assert bob.profile_path.read_bytes().endswith(b"\xff\n")


# -- making a workspace: only what is ours is committed, and it says what stopped it -----------------------------
def test_the_first_commit_holds_the_templates_files_not_the_users(tmp_path, monkeypatch):
    """`init --force` in the user's folder commits the template's files only:
    the user's own files there (even one under a template folder, or a
    cache named like one a build left in the shipped folder) stay theirs."""
    fake_shipped(tmp_path, monkeypatch)
    folder = tmp_path / "brain"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (folder / "people").mkdir()
    (folder / "people" / "notes.txt").write_text("mine", encoding="utf-8")
    ws, created = creation.create_workspace(folder, force=True)
    tracked = git(ws, "ls-files").split()
    assert created and "people/me/PROFILE.md" in tracked and "heartcompass.toml" in tracked
    assert "__pycache__/x.pyc" not in tracked and "people/notes.txt" not in tracked
    assert (folder / "people" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_template_is_copied_into_a_new_nested_folder(tmp_path):
    created = creation.copy_template(tmp_path / "a" / "b" / "brain")
    assert tmp_path / "a" / "b" / "brain" / "people" / "me" / "PROFILE.md" in created
    assert (tmp_path / "a" / "b" / "brain" / "prompts").is_dir()


def test_init_refused_says_exactly_why_and_what_to_do(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.create_workspace(tmp_path / "full")
    assert exc.value.hint == ("Choose an empty or new folder, or add --force to set up a workspace here (no file is "
                              "overwritten).")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceNotFound) as exc:
        creation.create_workspace(tmp_path / "file" / "under")
    assert exc.value.message == f"{tmp_path / 'file' / 'under'}: cannot create this folder (Not a directory)."


def test_the_example_keeps_the_links_the_user_already_has(ws):
    me = Person("me", ws.people_dir / "me")
    lifecycle.add_person(ws, "Bob", "friend", related=[{"person": "me", "as": "brother"}])
    assert creation.add_example(ws)
    assert me.load_profile().related == [{"person": "bob", "as": ""},
                                         {"person": "alice", "as": creation.EXAMPLE_LINK_BACK}]


def test_the_example_is_not_added_beside_someone_called_alice_chen(ws):
    lifecycle.add_person(ws, "Alice Chen", "friend")
    assert not creation.add_example(ws) and not (ws.people_dir / "alice").exists()
    assert (ws.people_dir / "alice-chen" / "PROFILE.md").is_file()


def test_while_the_example_is_added_another_command_is_told_which(ws, monkeypatch):
    from heartcompass.store import lock

    seen = []
    real = creation._link_back_to_example

    def watched(w):
        seen.append((lock.holder(ws.state_dir / "lock") or {}).get("purpose"))
        return real(w)

    monkeypatch.setattr(creation, "_link_back_to_example", watched)
    assert creation.add_example(ws)
    assert seen == ["init --example"] and subjects(ws)[0] == "add(alice): example person"


def test_the_example_refused_by_a_hook_is_taken_back_and_says_so(ws):
    refuse_commits(ws)
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(GitError) as exc:
        creation.add_example(ws)
    assert "(Not committed: people/alice/ was rolled back.)" in exc.value.message
    assert not (ws.people_dir / "alice").exists() and git(ws, "rev-parse", "HEAD") == head
    assert git(ws, "status", "--porcelain") == ""


# -- add, rename, archive, unarchive ------------------------------------------------------------------------------
def test_while_a_person_is_added_renamed_archived_or_brought_back_another_command_is_told_which(ws, monkeypatch):
    """The workspace lock names the command that holds it: a second command
    waiting on it says what it waits for."""
    from heartcompass.store import lock

    seen = []
    real = lifecycle.commit_or_roll_back

    def watched(*args, **kwargs):
        seen.append((lock.holder(ws.state_dir / "lock") or {}).get("purpose"))
        return real(*args, **kwargs)

    monkeypatch.setattr(lifecycle, "commit_or_roll_back", watched)
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Carol", "friend", purpose="import-card")
    lifecycle.rename_person(ws, "bob", "Rob")
    lifecycle.archive_person(ws, "rob")
    lifecycle.unarchive_person(ws, "rob")
    assert seen == ["person add", "import-card", "rename", "archive", "unarchive"]
    assert subjects(ws)[0] == "unarchive(rob): back from people/.archive"


def test_a_broken_hand_edit_of_someone_else_stops_no_command_and_stays_the_users(ws):
    """Each command commits the pending hand edits of the people it changes,
    no one else's: a half-done (here unparseable) edit of Dan's stays as the
    user left it, uncommitted, and stops neither an add, a rename, an
    archive, an unarchive nor a mention linked."""
    lifecycle.add_person(ws, "Bob", "friend")
    carol = lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob"}])
    dan = lifecycle.add_person(ws, "Dan", "friend")
    lifecycle.archive_person(ws, "carol")
    with Person("bob", ws.people_dir / "bob").profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    git(ws, "commit", "-qam", "mine")
    broken = dan.events_path.read_text(encoding="utf-8") + "- not an event\n"
    dan.events_path.write_text(broken, encoding="utf-8")
    lifecycle.add_person(ws, "Eve", "friend", related=[{"person": "bob"}])
    lifecycle.add_person(ws, "Sara", "family")
    lifecycle.rename_person(ws, "bob", "Rob")
    lifecycle.unarchive_person(ws, "carol")
    lifecycle.archive_person(ws, "eve")
    assert subjects(ws)[:5] == ["archive(eve): moved to people/.archive", "unarchive(carol): back from people/.archive",
                                "rename(rob): from bob", "add(sara): new person", "add(eve): new person"]
    assert "→ sara" in Person("rob", ws.people_dir / "rob").profile_path.read_text(encoding="utf-8")
    assert git(ws, "status", "--porcelain").splitlines() == [" M people/dan/EVENTS.md"]
    assert dan.events_path.read_text(encoding="utf-8") == broken and carol.profile_path.is_file()


def test_a_link_back_skips_a_broken_profile_and_one_already_linked_and_goes_on(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Dan", "friend")
    zed = ws.people_dir / "zed"
    zed.mkdir()
    (zed / "PROFILE.md").write_text("---\nname: [x\n---\n", encoding="utf-8")
    bob = Person("bob", ws.people_dir / "bob")
    edit_profile(bob, related=[{"person": "carol", "as": "sister"}])
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "mine")
    lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "zed"}, {"person": "bob"}, {"person": "dan"}])
    assert Person("dan", ws.people_dir / "dan").load_profile().related == [{"person": "carol", "as": ""}]
    assert bob.load_profile().related == [{"person": "carol", "as": "sister"}]
    assert git(ws, "status", "--porcelain") == ""


def test_a_rename_stopped_by_a_file_that_does_not_parse_moves_nothing(ws):
    """A bad line in EVENTS.md (committed by hand) stops the rename before
    the folder moves: the error names the file where the user finds it,
    and no half-done rename is left behind. Fixed, the rename goes through."""
    bob = lifecycle.add_person(ws, "Bob", "friend")
    good = bob.events_path.read_text(encoding="utf-8")
    bob.events_path.write_text(good + "- not an event\n", encoding="utf-8")
    git(ws, "commit", "-qam", "mine")
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(FormatError) as exc:
        lifecycle.rename_person(ws, "bob", "Rob")
    assert exc.value.path == bob.events_path and "not an event line" in exc.value.message
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""
    assert bob.load_profile().name == "Bob" and not (ws.people_dir / "rob").exists()
    bob.events_path.write_text(good, encoding="utf-8")
    git(ws, "commit", "-qam", "fixed")
    assert lifecycle.rename_person(ws, "bob", "Rob").person.load_profile().name == "Rob"


def test_a_rename_changes_only_the_links_to_the_renamed_and_names_every_linker(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.add_person(ws, "Dan", "friend", related=[{"person": "bob"}])
    carol = lifecycle.add_person(ws, "Carol", "friend", related=[{"person": "bob", "as": "brother"},
                                                                 {"person": "dan", "as": "cousin"}])
    done = lifecycle.rename_person(ws, "bob", "Rob")
    assert carol.load_profile().related == [{"person": "rob", "as": "brother"}, {"person": "dan", "as": "cousin"}]
    assert done.linkers == ["carol", "dan"]
    assert git(ws, "log", "-1", "--format=%b").strip() == "Bob is now Rob.\nLinks updated in: carol, dan"
    assert "\n# Events — Rob\n" in done.person.events_path.read_text(encoding="utf-8")
    assert "\n# Memory — Rob\n" in done.person.memory_path.read_text(encoding="utf-8")


def test_renaming_the_user_is_refused_with_why_and_how(ws):
    with pytest.raises(PersonError) as exc:
        lifecycle.rename_person(ws, "me", "Myself")
    assert exc.value.message == ("people/me is you (relation: self): renaming it moves your folder and replaces the "
                                 "name chats call you by (user.name). Nothing was changed.")
    assert exc.value.hint == ("What you are called comes from user.name: set it with 'heartcompass config set "
                              "user.name NAME'. Add --force to rename the folder anyway (links follow).")


def test_a_rename_in_place_refused_by_a_hook_is_put_back_with_its_chat_logs(ws):
    """A new name with the same folder (a change of case) refused by a hook:
    the profile is as it was and the chat logs are all there, untouched
    (no folder moved, so none is moved back over itself)."""
    import datetime as dt

    from heartcompass.formats import dailylog

    bob = lifecycle.add_person(ws, "Bob", "friend")
    day = dt.date(2026, 3, 1)
    log = dailylog.log_path(bob.dir, day)
    dailylog.append(log, dailylog.Entry("20:00:00", "me", "你好 Bob", []), day)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "a chat")
    before = log.read_bytes()
    refuse_commits(ws)
    with pytest.raises(GitError) as exc:
        lifecycle.rename_person(ws, "bob", "BOB")
    assert "(Not committed: the rename (people/bob is as it was) was rolled back.)" in exc.value.message
    assert bob.load_profile().name == "Bob" and git(ws, "status", "--porcelain") == ""
    assert log.read_bytes() == before and [e.text for e in dailylog.load(log)] == ["你好 Bob"]


def test_archiving_onto_an_archived_folder_says_what_to_rename(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    (ws.archive_dir / "bob").mkdir(parents=True)
    with pytest.raises(PersonError) as exc:
        lifecycle.archive_person(ws, "bob")
    assert exc.value.hint == "Rename the archived folder first, or this person."


def test_unarchive_names_every_uncommitted_change_and_how_to_take_them_back(ws):
    lifecycle.add_person(ws, "Bob", "friend")
    lifecycle.archive_person(ws, "bob")
    archived = Person("bob", ws.archive_dir / "bob")
    edit_profile(archived, tags=["x"])
    archived.memory_path.write_text(archived.memory_path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "bob")
    assert exc.value.message == ("people/.archive/bob has uncommitted changes (people/.archive/bob/MEMORY.md, "
                                 "people/.archive/bob/PROFILE.md); nothing was moved.")
    assert exc.value.hint == ("Commit them with git, or take them back with: git checkout -- people/.archive/bob ; "
                              "then unarchive again.")
    assert archived.profile_path.is_file() and not (ws.people_dir / "bob").exists()


def test_an_archived_person_not_found_lists_everyone_archived(ws):
    for name in ("Carol", "Ann"):
        lifecycle.add_person(ws, name, "friend")
        lifecycle.archive_person(ws, name)
    with pytest.raises(PersonError) as exc:
        lifecycle.unarchive_person(ws, "bob")
    assert exc.value.message == "No archived person 'bob'." and exc.value.hint == "Archived people: ann, carol."


# -- mentions ------------------------------------------------------------------------------------------------------
def test_a_newcomers_profile_is_not_linked_nor_committed_as_a_hand_edit(ws):
    """Two people added together: the newcomers' own folders are the add's to
    commit, so a mention in one of them of the other is not linked (that
    would commit the new folder early, as if the user had typed it)."""
    from heartcompass.store.mention_links import link_new_people

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    git(ws, "commit", "-qam", "mine")
    before = subjects(ws)
    rob = people.create(ws, "Rob Stone", "friend")
    with rob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    sara = people.create(ws, "Sara", "family")
    assert link_new_people(ws, [rob, sara]) == [bob.profile_path]
    assert "- [m1] Sara (daughter): Plays the violin (told)" in rob.profile_path.read_text(encoding="utf-8")
    assert subjects(ws) == before and "?? people/rob-stone/" in git(ws, "status", "--porcelain")


def test_a_newcomer_whose_profile_does_not_parse_does_not_stop_the_others(ws):
    from heartcompass.store.mention_links import link_new_people

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    git(ws, "commit", "-qam", "mine")
    zed = people.create(ws, "Zed", "friend")
    zed.profile_path.write_text("---\nname: [x\n---\n", encoding="utf-8")
    sara = people.create(ws, "Sara", "family")
    assert link_new_people(ws, [zed, sara]) == [bob.profile_path]
    assert "(daughter; → sara)" in bob.profile_path.read_text(encoding="utf-8")


def test_a_linked_profile_that_would_not_read_back_is_never_written(ws, monkeypatch):
    """The guard before writing: were the rendered profile ever unparseable,
    the error names the file and the user's profile is left as it was."""
    from heartcompass.store import mention_links

    bob = lifecycle.add_person(ws, "Bob", "friend")
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write(MENTIONS)
    git(ws, "commit", "-qam", "mine")
    before = bob.profile_path.read_text(encoding="utf-8")
    sara = people.create(ws, "Sara", "family")
    monkeypatch.setattr(mention_links.profile_fmt, "render", lambda prof: "---\nname: [x\n---\n")
    with pytest.raises(FormatError) as exc:
        mention_links.link_new_people(ws, [sara])
    assert exc.value.path == bob.profile_path and bob.profile_path.read_text(encoding="utf-8") == before
