"""store/git's promises, tested on WorkspaceGit itself in a small repository
of the test's own (no CLI, no model): what the history says is read back
exactly (every commit, every file, renames followed, Chinese paths as they
are), and git's own quirks (quoting, separators in messages, many commits)
never lose a commit or a file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from heartcompass.errors import GitError
from heartcompass.store.githistory import Commit, _changes, _unquoted
from heartcompass.store.gitrepo import WorkspaceGit


def _git(root: Path, *args: str, stdin: str | None = None, env: dict | None = None) -> str:
    """git as the user runs it by hand."""
    import os

    who = ["-c", "user.name=The User", "-c", "user.email=user@example.com"]
    return subprocess.run(["git", *who, *args], cwd=root, capture_output=True, text=True, check=True, input=stdin,
                          env={**os.environ, **(env or {})}).stdout


def _repo(tmp_path: Path) -> WorkspaceGit:
    root = tmp_path / "repo"
    root.mkdir()
    wg = WorkspaceGit(root)
    wg.init()
    return wg


def _write(wg: WorkspaceGit, rel: str, text: str) -> Path:
    path = wg.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _commit(wg: WorkspaceGit, files: dict[str, str], subject: str, body: str = "") -> str:
    paths = [_write(wg, rel, text) for rel, text in files.items()]
    sha = wg.commit(paths, subject, body)
    assert sha
    return sha


@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return _repo(tmp_path)


# -- an empty repository: every question has an empty answer, never a git error ------------------------------------

def test_a_repository_without_commits_answers_every_history_question_with_nothing(wg):
    """A fresh workspace (init made no commit yet): log, blame, diffs and
    the rest say "nothing", so a first command never fails on them."""
    _write(wg, "people/a/PROFILE.md", "x\n")
    assert wg.head() is None
    assert wg.log() == [] and wg.messages("x") == [] and wg.commit_messages() == []
    assert wg.changes_under("people") == [] and wg.tree_blobs("people") == {}
    assert wg.changed_from_head("people") == set() and wg.lines_added(["people"], "x") == []
    assert wg.blame("people/a/PROFILE.md") == [] and wg.diff(None, ["people"]) == ""
    assert wg.blob_ids(["people/a/PROFILE.md"]) == {} and wg.has_merges() is False
    assert wg.working_blob_ids([]) == {}
    # and the same questions do answer once there is a commit
    _commit(wg, {"people/a/PROFILE.md": "x\n"}, "add(a): new person")
    assert [c.subject for c in wg.log()] == ["add(a): new person"]
    assert wg.blame("people/a/PROFILE.md") == [("add(a): new person", "x")]


# -- log, get, messages -------------------------------------------------------------------------------------------

def test_log_reads_back_each_commits_subject_body_author_date_and_files(wg):
    first = _commit(wg, {"people/小明/PROFILE.md": "a\n", "notes.md": "n\n"}, "add(小明): new person",
                    "- line one\n- line two")
    second = _commit(wg, {"people/小明/MEMORY.md": "m\n"}, "garden(小明): 1 fact")
    commits = wg.log()
    assert [c.sha for c in commits] == [second, first]
    newest, oldest = commits
    assert oldest.subject == "add(小明): new person" and oldest.body == "- line one\n- line two"
    assert oldest.files == ["notes.md", "people/小明/PROFILE.md"]  # not quoted, every file
    assert newest.files == ["people/小明/MEMORY.md"] and newest.body == ""
    assert oldest.author == "HeartCompass" and oldest.date[:4].isdigit() and "T" in oldest.date
    assert newest.short == second[:8]
    assert wg.log(limit=1) == [newest]
    assert [c.sha for c in wg.log(["notes.md"])] == [first]
    assert [c.sha for c in wg.log(None, 5, rev=first)] == [first]
    assert wg.get(first) == oldest


def test_messages_finds_commits_by_an_extended_regex_newest_first_with_their_bodies(wg):
    a = _commit(wg, {"a.md": "1\n"}, "rename(bob): from robert", "Moved-from: people/robert/")
    _commit(wg, {"b.md": "1\n"}, "chat(bob): 2 messages")
    c = _commit(wg, {"c.md": "1\n"}, "archive(bob): moved")
    assert wg.messages("^(rename|archive)\\(") == [(c, "archive(bob): moved", ""),
                                                  (a, "rename(bob): from robert", "Moved-from: people/robert/")]
    assert wg.messages("^nothing") == []
    assert wg.messages("^(rename|archive)\\(", rev=a) == [(a, "rename(bob): from robert",
                                                          "Moved-from: people/robert/")]


def test_commit_messages_are_every_commits_whole_message_and_time_newest_first(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = _commit(wg, {"a.md": "1\n"}, "add(a): new person", "the body")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    b = _commit(wg, {"b.md": "1\n"}, "log(a): chat log 2024-03-02")
    assert wg.commit_messages() == [(b, 1709373600, "log(a): chat log 2024-03-02\n\n"),
                                    (a, 1709287200, "add(a): new person\n\nthe body\n\n")]


def test_a_message_holding_the_listings_separators_is_an_error_not_a_wrong_history(wg):
    """A commit message made by hand with git's record separator in it would
    cut the listing wrongly: said, never read as commits that do not exist."""
    _commit(wg, {"a.md": "1\n"}, "add(a): new person")
    _write(wg, "b.md", "2\n")
    _git(wg.root, "add", "b.md")
    _git(wg.root, "commit", "-q", "-F", "-", stdin="by hand\n\nodd \x1e text\n")
    with pytest.raises(GitError) as listed:
        wg.commit_messages()
    assert "git log could not be read" in listed.value.message
    with pytest.raises(GitError) as changes:
        wg.changes_under(".")
    assert "git log could not be read" in changes.value.message


def test_file_messages_follow_a_file_across_its_rename(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = _commit(wg, {"people/rob/PROFILE.md": "name: Rob\nline\nline\nline\n"}, "add(rob): new person")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    _write(wg, "people/bob/PROFILE.md", "name: Rob\nline\nline\nline\n")
    (wg.root / "people/rob/PROFILE.md").unlink()
    b = wg.commit(["people/bob/PROFILE.md", "people/rob/PROFILE.md"], "rename(bob): from rob")
    assert wg.file_messages("people/bob/PROFILE.md") == [
        (b, 1709373600, "rename(bob): from rob\n\n"), (a, 1709287200, "add(rob): new person\n")]


def test_has_merges_is_true_only_once_a_merge_is_in_the_history(wg):
    _commit(wg, {"a.md": "1\n"}, "one")
    assert wg.has_merges() is False
    _git(wg.root, "checkout", "-q", "-b", "side")
    _commit(wg, {"b.md": "1\n"}, "side")
    _git(wg.root, "checkout", "-q", "main")
    _commit(wg, {"c.md": "1\n"}, "main")
    _git(wg.root, "merge", "-q", "--no-edit", "side")
    assert wg.has_merges() is True
    assert wg.parents(wg.head()) == 2


# -- what changed, file by file -----------------------------------------------------------------------------------

def test_changes_under_a_folder_name_each_file_added_changed_deleted_and_renamed(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    text = "name: Rob\n" + "a line that stays\n" * 5
    a = _commit(wg, {"people/rob/PROFILE.md": text, "people/rob/MEMORY.md": "m\n", "other.md": "o\n"},
                "add(rob): new person", "body")
    b = _commit(wg, {"people/rob/MEMORY.md": "m2\n"}, "garden(rob): 1 fact")
    (wg.root / "people/rob/MEMORY.md").unlink()
    _write(wg, "people/bob/PROFILE.md", text)
    (wg.root / "people/rob/PROFILE.md").unlink()
    c = wg.commit(["people/rob", "people/bob"], "rename(bob): from rob")
    found = wg.changes_under("people")
    assert found == [
        (c, 1709287200, "rename(bob): from rob\n",
         [("R", "people/bob/PROFILE.md", "people/rob/PROFILE.md"), ("D", "people/rob/MEMORY.md", "")]),
        (b, 1709287200, "garden(rob): 1 fact\n", [("M", "people/rob/MEMORY.md", "")]),
        (a, 1709287200, "add(rob): new person\n\nbody\n",
         [("A", "people/rob/MEMORY.md", ""), ("A", "people/rob/PROFILE.md", "")]),
    ]
    # a commit's own changes, in the whole tree: not only under the folder
    assert wg.changes_of([b, a]) == {b: found[1][3], a: [("A", "other.md", "")] + found[2][3]}


def test_changes_of_many_commits_misses_none(wg):
    """More commits than one `git log --no-walk` is given at once: every one is read."""
    lines = []
    for n in range(1, 1004):
        lines += [f"commit refs/heads/main", f"mark :{n}", "committer U <u@x> 1700000000 +0000",
                  f"data {len(f'c{n}')}", f"c{n}"]
        if n > 1:
            lines.append(f"from :{n - 1}")
        lines += [f"M 100644 inline f{n}.md", "data 2", "x", ""]
    _git(wg.root, "fast-import", "--quiet", stdin="\n".join(lines) + "\n")
    shas = wg.rev_list("main")
    assert len(shas) == 1003
    found = wg.changes_of(shas)
    assert len(found) == 1003
    assert found[shas[0]] == [("A", "f1003.md", "")] and found[shas[-1]] == [("A", "f1.md", "")]
    assert found[shas[500]] == [("A", "f503.md", "")] and found[shas[1000]] == [("A", "f3.md", "")]


@pytest.mark.parametrize("listing, changes", [
    ("M\0a.md\0", [("M", "a.md", "")]),
    ("T\0a.md\0A\0b.md\0D\0c.md\0", [("T", "a.md", ""), ("A", "b.md", ""), ("D", "c.md", "")]),
    ("R100\0old.md\0new.md\0M\0x.md\0", [("R", "new.md", "old.md"), ("M", "x.md", "")]),
    ("C075\0src.md\0copy.md\0", [("C", "copy.md", "src.md")]),
    ("", []),
])
def test_a_change_listing_is_read_entry_by_entry(listing, changes):
    sha = "a" * 40
    out = f"\x1e{sha} 1700000000\nsubject\n\nbody\x1f\n\n{listing}"
    assert _changes(out) == [(sha, 1700000000, "subject\n\nbody", changes)]


@pytest.mark.parametrize("listing", ["X\0a.md\0", "M", "R100\0old.md"])
def test_a_change_listing_cut_short_or_unknown_is_an_error(listing):
    sha = "b" * 40
    with pytest.raises(GitError) as refused:
        _changes(f"\x1e{sha} 1700000000\ns\x1f\n{listing}")
    assert refused.value.message == f"git log could not be read at {sha[:12]}."


@pytest.mark.parametrize("head", ["notasha 1700000000", "a" * 40 + " soon", "a" * 39 + " 1"])
def test_a_commit_header_that_is_not_a_sha_and_time_is_an_error(head):
    with pytest.raises(GitError) as refused:
        _changes(f"\x1e{head}\ns\x1f\n")
    assert refused.value.message == f"git log could not be read at {head.split()[0][:12]!r}."


def test_tree_blobs_are_every_file_under_a_folder_at_a_commit_with_its_blob(wg):
    first = _commit(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n", "x.md": "x\n"}, "one")
    _commit(wg, {"people/a/PROFILE.md": "p2\n"}, "two")
    now = wg.tree_blobs("people")
    assert now == {"people/a/PROFILE.md": _git(wg.root, "rev-parse", "HEAD:people/a/PROFILE.md").strip(),
                   "people/a/logs/2024-01-01.md": _git(wg.root, "rev-parse", "HEAD:people/a/logs/2024-01-01.md").strip()}
    then = wg.tree_blobs("people", rev=first)
    assert then["people/a/PROFILE.md"] == _git(wg.root, "rev-parse", f"{first}:people/a/PROFILE.md").strip()
    assert then["people/a/PROFILE.md"] != now["people/a/PROFILE.md"]


def test_a_submodule_under_the_folder_is_no_file_of_the_tree(wg):
    _commit(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    sha = wg.head()
    _git(wg.root, "update-index", "--add", "--cacheinfo", f"160000,{sha},people/a/sub")
    _git(wg.root, "commit", "-q", "-m", "a submodule")
    assert set(wg.tree_blobs("people")) == {"people/a/PROFILE.md"}


def test_changed_from_head_lists_changed_files_under_the_folder_only(wg):
    _commit(wg, {"people/a/PROFILE.md": "p\n", "people/b/PROFILE.md": "p\n", "x.md": "x\n"}, "one")
    _write(wg, "people/a/PROFILE.md", "changed\n")
    _write(wg, "x.md", "changed\n")
    (wg.root / "people/b/PROFILE.md").unlink()
    assert wg.changed_from_head("people") == {"people/a/PROFILE.md", "people/b/PROFILE.md"}


def test_file_commits_and_messages_before_a_commit(wg):
    a = _commit(wg, {"f.md": "1\n"}, "first", "why one")
    _commit(wg, {"g.md": "1\n"}, "elsewhere")
    b = _commit(wg, {"f.md": "2\n"}, "second")
    c = _commit(wg, {"f.md": "3\n"}, "third")
    assert wg.file_commits("f.md", 2) == [c, b]
    assert wg.file_commits("f.md", 10) == [c, b, a]
    assert wg.messages_before(c, ["f.md"]) == ["second\n\n", "first\n\nwhy one\n"]


def test_touched_names_each_commits_files_among_the_pathspecs_and_what_it_renamed(wg):
    text = "name: Rob\n" + "a line that stays\n" * 5
    a = _commit(wg, {"people/rob/PROFILE.md": text, "people/rob/MEMORY.md": "m\n"}, "add(rob): new person")
    _write(wg, "people/bob/PROFILE.md", text)
    (wg.root / "people/rob/PROFILE.md").unlink()
    b = wg.commit(["people/rob/PROFILE.md", "people/bob/PROFILE.md"], "rename(bob): from rob")
    c = _commit(wg, {"people/bob/PROFILE.md": text + "more\n"}, "edit(bob): by hand")
    assert wg.touched([":(glob)people/*/PROFILE.md"]) == [
        (c, "edit(bob): by hand", ["people/bob/PROFILE.md"], []),
        (b, "rename(bob): from rob", ["people/bob/PROFILE.md"], ["people/bob/PROFILE.md"]),
        (a, "add(rob): new person", ["people/rob/PROFILE.md"], []),
    ]


def test_lines_added_are_each_matching_line_a_commit_added_oldest_first_even_under_a_chinese_name(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = _commit(wg, {"people/小明/PROFILE.md": "relation: friend\nother: x\n"}, "add(小明): new person")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    b = _commit(wg, {"people/小明/PROFILE.md": "relation: dating\nother: y\n", "people/b/PROFILE.md": "relation: x\n"},
                "review(小明): relation friend → dating")
    found = wg.lines_added(["people/小明/PROFILE.md"], "^relation: ")
    assert found == [(a, 1709287200, "add(小明): new person", "people/小明/PROFILE.md", "relation: friend"),
                     (b, 1709373600, "review(小明): relation friend → dating", "people/小明/PROFILE.md",
                      "relation: dating")]


def test_a_line_removed_is_not_a_line_added(wg):
    _commit(wg, {"p.md": "relation: friend\n"}, "one")
    _commit(wg, {"p.md": "nothing\n"}, "two")
    assert [f[4] for f in wg.lines_added(["p.md"], "relation")] == ["relation: friend"]


@pytest.mark.parametrize("quoted, plain", [
    ('"b/people/\\345\\260\\217\\346\\230\\216/PROFILE.md"', "b/people/小明/PROFILE.md"),
    ('"b/a\\"b.md"', 'b/a"b.md'),
    ("b/plain.md", "b/plain.md"),
    ('"b/x.md', '"b/x.md'),
])
def test_a_path_git_quoted_in_a_diff_header_is_read_back(quoted, plain):
    assert _unquoted(quoted) == plain


# -- ancestry, diffs, files at a commit, blame --------------------------------------------------------------------

def test_ancestry_and_the_commit_list(wg):
    a = _commit(wg, {"a.md": "1\n"}, "one")
    b = _commit(wg, {"a.md": "2\n"}, "two")
    assert wg.is_ancestor(a, b) is True and wg.is_ancestor(b, a) is False
    assert wg.rev_list() == [b, a] and wg.rev_list(a) == [a]


def test_diff_and_show_are_git_diffs_of_the_stored_text(wg):
    a = _commit(wg, {"a.md": "one\n", "b.md": "bee\n"}, "first")
    _write(wg, "a.md", "two\n")
    assert wg.diff(None, ["b.md"]) == ""
    working = wg.diff(None, ["a.md"])
    assert "-one" in working and "+two" in working
    b = _commit(wg, {"a.md": "two\n"}, "second")
    assert "+two" in wg.diff(a, ["a.md"]) and wg.diff(b, ["a.md"]) == ""
    shown = wg.show(b)
    assert shown.startswith(f"{b[:7]} second\n") and "+two" in shown
    assert "bee" not in wg.show(a, ["a.md"]) and "+one" in wg.show(a, ["a.md"])


def test_a_file_as_it_was_and_the_files_of_a_folder_at_a_commit(wg):
    a = _commit(wg, {"people/a/PROFILE.md": "one\n\n", "people/a/MEMORY.md": "m\n"}, "first")
    _commit(wg, {"people/a/PROFILE.md": "two\n"}, "second")
    assert wg.file_at(a, "people/a/PROFILE.md") == "one\n\n"  # byte for byte: the trailing newlines too
    assert wg.file_at("HEAD", wg.root / "people/a/PROFILE.md") == "two\n"
    assert wg.file_at("HEAD", "people/a/GONE.md") is None
    assert wg.files_at("HEAD", "people") == ["people/a/MEMORY.md", "people/a/PROFILE.md"]


def test_working_blob_ids_are_the_ids_git_would_store(wg):
    _write(wg, "a.md", "one\n")
    _write(wg, "b.md", "two\n")
    ids = wg.working_blob_ids(["a.md", wg.root / "b.md"])
    assert ids == {"a.md": _git(wg.root, "hash-object", "a.md").strip(),
                   "b.md": _git(wg.root, "hash-object", "b.md").strip()}


def test_blame_names_the_commit_subject_of_each_line(wg):
    _commit(wg, {"p.md": "one\ntwo\n"}, "add(a): new person")
    _commit(wg, {"p.md": "one\nTWO\nthree\n"}, "edit(a): by hand")
    assert wg.blame("p.md") == [("add(a): new person", "one"), ("edit(a): by hand", "TWO"),
                                ("edit(a): by hand", "three")]
    assert wg.blame("never.md") == []


def test_commit_before_a_date_and_the_first_day_when_there_is_none(wg, monkeypatch):
    for day in ("2024-03-01", "2024-03-05"):
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T10:00:00+00:00")
        monkeypatch.setenv("GIT_AUTHOR_DATE", f"{day}T10:00:00+00:00")
        _commit(wg, {"a.md": day}, day)
    first, second = wg.rev_list()[::-1]
    assert wg.commit_before("2024-03-03") == first
    assert wg.commit_before("2024-03-06") == second
    with pytest.raises(GitError) as none:
        wg.commit_before("2024-02-01")
    assert none.value.message == "The workspace has no commit from 2024-02-01 or before."
    assert none.value.hint.startswith("Its history starts on 2024-03-01: pick that day or later")


def test_status_lists_each_uncommitted_change_with_its_code(wg):
    _commit(wg, {"a.md": "1\n", "b.md": "1\n", "old.md": "moved\n" * 5, "people/小明/x.md": "1\n"}, "one")
    _write(wg, "a.md", "2\n")
    (wg.root / "b.md").unlink()
    _write(wg, "new.md", "n\n")
    _write(wg, "people/小明/y.md", "n\n")
    _git(wg.root, "mv", "old.md", "renamed.md")
    assert sorted(wg.status()) == sorted([("M", "a.md"), ("D", "b.md"), ("??", "new.md"), ("??", "people/小明/y.md"),
                                          ("R", "renamed.md"), ("D", "old.md")])
    assert wg.status(["people"]) == [("??", "people/小明/y.md")]


def test_ignored_files_are_named_and_tracked_ones_are_not(wg):
    _commit(wg, {".gitignore": "*.tmp\n", "kept.md": "k\n"}, "one")
    _write(wg, "people/a/scratch.tmp", "t\n")
    _write(wg, "people/a/PROFILE.md", "p\n")
    assert wg.ignored(["people"]) == ["people/a/scratch.tmp"]


def test_a_commit_record_is_what_log_reads():
    c = Commit("0123456789" * 4, "2024-01-01T00:00:00+00:00", "me", "s", "", [])
    assert c.short == "01234567"
