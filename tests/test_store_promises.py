"""The store's promises, tested on its parts: what HeartCompass wrote and
could not commit (a killed tell's or garden's files) is never the user's
hand edit; a workspace that is a git worktree is a repository."""

from __future__ import annotations

import pytest
from conftest import git

from heartcompass.atomic import file_checksum
from heartcompass.errors import PersonError
from heartcompass.store import audit, unfinished
from heartcompass.store.gitrepo import WorkspaceGit
from heartcompass.store.slugs import clean_name, is_safe_slug, slugify, windows_reserved


def _journaled_write(ws, journal, rel: str, text: str) -> None:
    """What tell (or the gardener) does before its commit: the journal, then the file."""
    path = ws.root / rel
    unfinished.save(ws, journal, {path: (file_checksum(path), text)}, "tell(alice): 1 fact", "")
    path.write_text(text, encoding="utf-8")


def test_a_killed_tells_files_are_not_counted_as_hand_edits(example_ws):
    """A tell killed between its write and its commit: its file is not a
    pending hand edit; the user's own edit beside it still is."""
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    told = (ws.root / memory).read_text(encoding="utf-8") + "\n- She is moving to Berlin (told)\n"
    _journaled_write(ws, unfinished.tell_journal_path(ws, "alice"), memory, told)
    profile = ws.root / "people/alice/PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    pending = [(p.path, p.kind) for p in audit.pending(ws)]
    assert pending == [("people/alice/PROFILE.md", "hand edit")]
    assert unfinished.journaled_writes(ws) == {memory}
    assert unfinished.told_unfinished(ws)


def test_a_killed_gardens_files_are_not_counted_as_hand_edits(example_ws):
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    gardened = (ws.root / memory).read_text(encoding="utf-8") + "\n- Keeps a tortoise\n"
    _journaled_write(ws, unfinished.garden_journal_path(ws, "alice"), memory, gardened)
    assert unfinished.journaled_writes(ws) == {memory}
    assert audit.pending(ws) == []
    assert git(ws, "status", "--porcelain").strip() == f"M {memory}"  # it is there, uncommitted
    assert not unfinished.told_unfinished(ws)  # a garden's journal is not a tell's


def test_a_file_changed_by_hand_after_the_killed_tell_is_the_users_edit(example_ws):
    """The journal claims only the exact text it wrote: the user's edit on top is theirs."""
    ws = example_ws
    memory = "people/alice/MEMORY.md"
    told = (ws.root / memory).read_text(encoding="utf-8") + "\n- She is moving to Berlin (told)\n"
    _journaled_write(ws, unfinished.tell_journal_path(ws, "alice"), memory, told)
    (ws.root / memory).write_text(told + "- and I wrote this myself\n", encoding="utf-8")
    assert unfinished.journaled_writes(ws) == set()
    assert [(p.path, p.kind) for p in audit.pending(ws)] == [(memory, "hand edit")]


def test_a_workspace_that_is_a_git_worktree_is_a_repository(example_ws, tmp_path):
    """`git worktree add`: the workspace's .git is a file pointing at the
    main repository, and it is a repository all the same (init keeps it)."""
    other = tmp_path / "second"
    git(example_ws, "worktree", "add", "-q", "-b", "second", str(other))
    assert (other / ".git").is_file()
    wt = WorkspaceGit(other)
    assert wt.is_repo()
    head = wt.head()
    wt.init()  # a no-op on a repository: never a second repository inside the worktree
    assert (other / ".git").is_file() and wt.head() == head
    assert not WorkspaceGit(tmp_path / "nowhere").is_repo()


# -- finishing what a killed tell or garden wrote (store/unfinished.py) ---------------------------------------------

MEMORY = "people/alice/MEMORY.md"


def _told(ws, write: bool = True) -> tuple[str, str]:
    """A tell's journal for MEMORY.md (its new text written to disk, or not yet); (old text, new text)."""
    old = (ws.root / MEMORY).read_text(encoding="utf-8")
    new = old + "\n- 她三月搬去柏林 (told)\n"
    unfinished.save(ws, unfinished.tell_journal_path(ws, "alice"), {ws.root / MEMORY: (file_checksum(ws.root / MEMORY), new)},
                    "tell(alice): moving to Berlin", "- 她三月搬去柏林")
    if write:
        (ws.root / MEMORY).write_text(new, encoding="utf-8")
    return old, new


def test_a_killed_tell_is_finished_as_its_own_commit(example_ws):
    """Its journal's texts, committed under the tell's own subject and body,
    said to be finished after an interruption; the journal goes."""
    ws = example_ws
    _, new = _told(ws)
    assert unfinished.told_unfinished(ws)
    shas = unfinished.finish_told(ws)
    assert len(shas) == 1 and git(ws, "rev-parse", "HEAD").strip() == shas[0]
    assert git(ws, "log", "-1", "--format=%s%n%b").strip() == (
        f"tell(alice): moving to Berlin\n- 她三月搬去柏林\n\n{unfinished.FINISHED}")
    assert git(ws, "show", f"HEAD:{MEMORY}") == new
    assert not unfinished.told_unfinished(ws) and git(ws, "status", "--porcelain") == ""


def test_a_tell_killed_before_its_write_is_written_then_committed(example_ws):
    ws = example_ws
    _, new = _told(ws, write=False)
    assert unfinished.finish_told(ws)
    assert (ws.root / MEMORY).read_text(encoding="utf-8") == new
    assert git(ws, "status", "--porcelain") == ""


def test_a_killed_tell_whose_file_was_edited_by_hand_since_is_dropped_not_committed(example_ws):
    """Neither the text before the tell nor the tell's: the user's edit wins,
    nothing of the tell is written or committed, and the journal goes."""
    ws = example_ws
    old, _ = _told(ws, write=False)
    (ws.root / MEMORY).write_text(old + "- my own line\n", encoding="utf-8")
    head = git(ws, "rev-parse", "HEAD")
    assert unfinished.finish_told(ws) == []
    assert git(ws, "rev-parse", "HEAD") == head
    assert (ws.root / MEMORY).read_text(encoding="utf-8") == old + "- my own line\n"
    assert not unfinished.told_unfinished(ws)


def test_a_text_this_process_wrote_then_edited_by_hand_is_not_written_again(example_ws):
    """`written`: the journal's text did reach the disk (this process wrote
    it) and the user has edited it since: committed as the tell's, the edit
    kept on disk for its own commit."""
    from heartcompass.atomic import checksum

    ws = example_ws
    _, new = _told(ws)
    (ws.root / MEMORY).write_text(new + "- then mine\n", encoding="utf-8")
    sha = unfinished.finish(ws, unfinished.tell_journal_path(ws, "alice"), written={ws.root / MEMORY: checksum(new)})
    assert sha and git(ws, "show", f"HEAD:{MEMORY}") == new
    assert (ws.root / MEMORY).read_text(encoding="utf-8") == new + "- then mine\n"


def test_a_broken_journal_claims_nothing_and_is_cleared(example_ws):
    ws = example_ws
    journal = unfinished.tell_journal_path(ws, "alice")
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text('{"files": ', encoding="utf-8")
    assert unfinished.journaled_writes(ws) == set()
    head = git(ws, "rev-parse", "HEAD")
    assert unfinished.finish(ws, journal) is None and not journal.exists()
    assert git(ws, "rev-parse", "HEAD") == head
    assert unfinished.finish(ws, journal) is None  # none at all: nothing to finish


def test_a_tells_kept_log_goes_into_its_commit_and_nothing_outside_people(example_ws):
    """`keep`: the day's log with the tell's note, committed as it is then;
    a path outside people/ or climbing out is never read into a commit."""
    ws = example_ws
    log = ws.root / "people/alice/logs/2026-12-01.md"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("# 2026-12-01\n\n- 10:00 [note] 她三月搬去柏林\n", encoding="utf-8")
    secret = ws.root / "notes.md"
    secret.write_text("not for a commit\n", encoding="utf-8")
    new = (ws.root / MEMORY).read_text(encoding="utf-8") + "\n- Moving to Berlin (told)\n"
    unfinished.save(ws, unfinished.tell_journal_path(ws, "alice"), {ws.root / MEMORY: (file_checksum(ws.root / MEMORY), new)},
                    "tell(alice): moving", "", keep=[secret, ws.root / "people/alice/logs/gone.md", log])
    assert unfinished.finish_told(ws)
    changed = git(ws, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == [MEMORY, "people/alice/logs/2026-12-01.md"]
    assert git(ws, "status", "--porcelain", "--", "notes.md").startswith("??")


# -- slugs (store/slugs.py): a person's folder never escapes the workspace -------------------------------------------

@pytest.mark.parametrize("name, slug", [
    ("小明", "小明"), ("José", "josé"), ("Dr. Feather", "dr-feather"), ("O'Brien", "obrien"), ("D’Angelo", "dangelo"),
    ("Anne  Marie_Smith", "anne-marie-smith"), ("--Bo--", "bo"), (".hidden", "hidden"), ("a -- b", "a-b"),
    ("王 小明", "王-小明"), ("e\u0301mile", "émile"), ("Zoë-Jane", "zoë-jane"), ("R2-D2", "r2-d2"),
    ("com1.txt", "com1-txt"), ("ConSole", "console"), ("हिंदी", "हिंदी"), ("a" * 120, "a" * 120), ("<Alice>", "alice"),
])
def test_a_name_becomes_a_readable_folder_name(name, slug):
    assert slugify(name) == slug
    assert is_safe_slug(slug)


@pytest.mark.parametrize("name, words", [
    ("..", "outside the workspace"), ("a/b", "outside the workspace"), ("a\\b", "outside the workspace"),
    ("Al\x07ice", "U+0007"), ("Ali\u200bce", "U+200B"),
    ("???", "Use a name with at least one letter or digit."), ("-", "no letters or digits"),
    ("\u0301", "no letters or digits"), ("CON", "so the workspace could not sync to a Windows machine."),
    ("nul", "Use a longer name, e.g. with a last name or a nickname."), ("LPT9", "Windows reserves"), ("a" * 121, "too long"), ("明" * 41, "too long"),
    ("", "cannot be empty"), ("   ", "cannot be empty"), ("Ali\u3164ce", "invisible"),
])
def test_a_name_that_could_act_as_a_path_or_a_device_is_refused(name, words):
    with pytest.raises(PersonError) as refused:
        slugify(name)
    assert words in refused.value.message + (refused.value.hint or "")


def test_a_person_needs_a_name_and_it_is_kept_as_typed_but_normalised():
    with pytest.raises(PersonError):
        clean_name(None)  # type: ignore[arg-type]
    assert clean_name("  e\u0301mile Zola ") == "émile Zola"


@pytest.mark.parametrize("slug, safe", [
    ("dr.-feather", True),  # made before punctuation was dropped: still ours
    ("alice", True), ("Alice", False), (".alice", False), ("a b", False), ("a:b", False), ("a|b", False),
    ("a_b", False), ("..", False), ("../x", False), ("con", False), ("", False),
])
def test_only_folder_names_of_ours_are_safe_slugs(slug, safe):
    assert is_safe_slug(slug) is safe


@pytest.mark.parametrize("name, reserved", [
    ("Nul.md", True), ("com1.txt", True), ("CON. ", True), ("con .x", True), ("com¹", True), ("lpt9", True),
    ("console", False), ("CONX", False), ("com1.txt.md", True), ("con\t", False), ("com0", False), ("com10", False), ("conin$", True), ("aux-1", False),
])
def test_windows_device_names_are_known_whatever_the_extension_or_case(name, reserved):
    assert windows_reserved(name) is reserved


def test_a_broken_journal_does_not_hide_the_claims_of_the_next_one(example_ws):
    ws = example_ws
    broken = unfinished.garden_journal_path(ws, "aaa")
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("not json", encoding="utf-8")
    _told(ws)
    assert unfinished.journaled_writes(ws) == {MEMORY}


def test_a_journal_from_before_keep_existed_is_finished_and_shown_to_the_caller_first(example_ws):
    """A journal without a `keep` list still finishes; before_commit sees the journal itself."""
    import json

    ws = example_ws
    _, new = _told(ws)
    journal = unfinished.tell_journal_path(ws, "alice")
    data = json.loads(journal.read_text(encoding="utf-8"))
    del data["keep"]
    journal.write_text(json.dumps(data), encoding="utf-8")
    seen: list[dict] = []
    assert unfinished.finish(ws, journal, before_commit=seen.append)
    assert [d["subject"] for d in seen] == ["tell(alice): moving to Berlin"]
    assert git(ws, "show", f"HEAD:{MEMORY}") == new
