"""store/history's promises that only the CLI's tests checked before
(githistory.py, audit.py): a diff shows what git stored, whatever program
the user's git names; a folder's files are that folder's; odd file names
come back whole; what was pending before a command is committed for the
people it names only, under the lock that says which command holds it, for
as long as that command waits."""

from __future__ import annotations

import pytest
from conftest import subjects
from git_helpers import commit_files, new_repo, user_git, write_file

from heartcompass.store.gitrepo import WorkspaceGit


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

def _append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


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
    tries: list[float] = []
    with lock_mod.FileLock(ws.state_dir / "lock", "gardener"):
        clock = iter(range(0, 10_000))
        monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
        monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
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
