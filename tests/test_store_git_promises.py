"""store/git's promises, tested on WorkspaceGit itself in a small repository
of the test's own (no CLI, no model): what the history says is read back
exactly (every commit, every file, renames followed, Chinese paths as they
are), git's own quirks (quoting, separators in messages, many commits) never
lose a commit or a file, and a commit holds exactly the files named."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from git_helpers import (add_hook, commit_files, new_repo, plain_tree, user_git,
                         write_file)

from heartcompass.errors import GitError
from heartcompass.store.githistory import Commit, _changes, _log_records, _unquoted
from heartcompass.store.gitrepo import WorkspaceGit


@pytest.fixture
def wg(tmp_path) -> WorkspaceGit:
    return new_repo(tmp_path)


# -- an empty repository: every question has an empty answer, never a git error ------------------------------------

def test_a_repository_without_commits_answers_every_history_question_with_nothing(wg):
    """A fresh workspace (init made no commit yet): log, blame, diffs and
    the rest say "nothing", so a first command never fails on them."""
    write_file(wg, "people/a/PROFILE.md", "x\n")
    assert wg.head() is None
    assert wg.log() == [] and wg.messages("x") == [] and wg.commit_messages() == []
    assert wg.changes_under("people") == [] and wg.tree_blobs("people") == {}
    assert wg.changed_from_head("people") == set() and wg.lines_added(["people"], "x") == []
    assert wg.blame("people/a/PROFILE.md") == [] and wg.diff(None, ["people"]) == ""
    assert wg.blob_ids(["people/a/PROFILE.md"]) == {} and wg.has_merges() is False
    assert wg.working_blob_ids([]) == {}
    # and the same questions do answer once there is a commit
    commit_files(wg, {"people/a/PROFILE.md": "x\n"}, "add(a): new person")
    assert [c.subject for c in wg.log()] == ["add(a): new person"]
    assert wg.blame("people/a/PROFILE.md") == [("add(a): new person", "x")]


# -- log, get, messages -------------------------------------------------------------------------------------------

def test_log_reads_back_each_commits_subject_body_author_date_and_files(wg):
    first = commit_files(wg, {"people/小明/PROFILE.md": "a\n", "notes.md": "n\n"}, "add(小明): new person",
                    "- line one\n- line two")
    second = commit_files(wg, {"people/小明/MEMORY.md": "m\n"}, "garden(小明): 1 fact")
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
    a = commit_files(wg, {"a.md": "1\n"}, "rename(bob): from robert", "Moved-from: people/robert/")
    commit_files(wg, {"b.md": "1\n"}, "chat(bob): 2 messages")
    c = commit_files(wg, {"c.md": "1\n"}, "archive(bob): moved")
    assert wg.messages("^(rename|archive)\\(") == [(c, "archive(bob): moved", ""),
                                                  (a, "rename(bob): from robert", "Moved-from: people/robert/")]
    assert wg.messages("^nothing") == []
    assert wg.messages("^(rename|archive)\\(", rev=a) == [(a, "rename(bob): from robert",
                                                          "Moved-from: people/robert/")]


def test_commit_messages_are_every_commits_whole_message_and_time_newest_first(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = commit_files(wg, {"a.md": "1\n"}, "add(a): new person", "the body")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    b = commit_files(wg, {"b.md": "1\n"}, "log(a): chat log 2024-03-02")
    assert wg.commit_messages() == [(b, 1709373600, "log(a): chat log 2024-03-02\n\n"),
                                    (a, 1709287200, "add(a): new person\n\nthe body\n\n")]


def test_a_hand_commit_whose_message_holds_any_separator_is_logged_as_itself_with_its_files(wg):
    """The audit trail never misreads a commit made by hand: a message with
    git's unit and record separators and blank lines in it keeps its subject,
    its body and its own files; the commits around it keep theirs."""
    first = commit_files(wg, {"people/a/PROFILE.md": "1\n"}, "add(a): new person")
    write_file(wg, "people/a/MEMORY.md", "2\n")
    write_file(wg, "people/小明/notes.md", "3\n")
    user_git(wg.root, "add", ".")
    user_git(wg.root, "commit", "-q", "-F", "-", stdin="by \x1f hand\n\nodd \x1f text \x1e here\n\nmore\n")
    last = commit_files(wg, {"people/a/EVENTS.md": "4\n"}, "garden(a): 1 event")
    newest, by_hand, oldest = wg.log()
    assert (newest.sha, newest.files) == (last, ["people/a/EVENTS.md"])
    assert by_hand.subject == "by \x1f hand" and by_hand.author == "The User"
    assert by_hand.body == "odd \x1f text \x1e here\n\nmore"
    assert by_hand.files == ["people/a/MEMORY.md", "people/小明/notes.md"]
    assert (oldest.sha, oldest.files) == (first, ["people/a/PROFILE.md"])
    assert [(c.sha, c.files) for c in wg.log(["people/小明"])] == [(by_hand.sha, ["people/小明/notes.md"])]


def test_a_file_whose_name_starts_with_a_newline_is_logged_with_it():
    """Each record's first file comes after a newline git writes: only that
    one newline is taken off, never one of the name's own."""
    sha = "a" * 40
    out = f"\0{sha}\0d\0u\0s\0b\0\0\n\nodd\0two\0\0{sha}\0d\0u\0\0\0\0"
    first, second = _log_records(out)
    assert first.files == ["\nodd", "two"] and (first.subject, first.body) == ("s", "b")
    assert (first.sha, first.date, first.author) == (sha, "d", "u")
    assert second.files == [] and second.subject == "" and _log_records("") == []
    # a listing that ends right after a record's fields, or in a file's name, is read whole too
    assert [(c.sha, c.files) for c in _log_records(f"\0{sha}\0d\0u\0s\0b\0")] == [(sha, [])]
    assert [(c.sha, c.files) for c in _log_records(f"\0{sha}\0d\0u\0s\0b\0\0\nlast.md")] == [(sha, ["last.md"])]


@pytest.mark.parametrize("out", ["x\0" + "a" * 40 + "\0d\0u\0s\0b\0\0", "\0not-a-sha\0d\0u\0s\0b\0\0",
                                 "\0" + "a" * 40 + "\0d\0u\0s\0b\0x\0", "\0" + "a" * 40 + "\0d\0u",
                                 "\0" + "a" * 40])
def test_a_log_record_not_in_its_shape_is_an_error(out):
    """Never a commit made up from a part of one: said, with what to do."""
    with pytest.raises(GitError) as said:
        _log_records(out)
    assert said.value.message == "git log could not be read."
    assert said.value.hint == "Run 'git log' in the workspace to see what it says."


def test_a_message_holding_the_listings_separators_is_an_error_not_a_wrong_history(wg):
    """A commit message made by hand with git's record separator in it would
    cut the listing wrongly: said, never read as commits that do not exist."""
    commit_files(wg, {"a.md": "1\n"}, "add(a): new person")
    write_file(wg, "b.md", "2\n")
    user_git(wg.root, "add", "b.md")
    user_git(wg.root, "commit", "-q", "-F", "-", stdin="by hand\n\nodd \x1e text\n")
    with pytest.raises(GitError) as listed:
        wg.commit_messages()
    assert "git log could not be read" in listed.value.message
    with pytest.raises(GitError) as changes:
        wg.changes_under(".")
    assert "git log could not be read" in changes.value.message


def test_file_messages_follow_a_file_across_its_rename(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = commit_files(wg, {"people/rob/PROFILE.md": "name: Rob\nline\nline\nline\n"}, "add(rob): new person")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    write_file(wg, "people/bob/PROFILE.md", "name: Rob\nline\nline\nline\n")
    (wg.root / "people/rob/PROFILE.md").unlink()
    b = wg.commit(["people/bob/PROFILE.md", "people/rob/PROFILE.md"], "rename(bob): from rob")
    assert wg.file_messages("people/bob/PROFILE.md") == [
        (b, 1709373600, "rename(bob): from rob\n\n"), (a, 1709287200, "add(rob): new person\n")]


def test_has_merges_is_true_only_once_a_merge_is_in_the_history(wg):
    commit_files(wg, {"a.md": "1\n"}, "one")
    assert wg.has_merges() is False
    user_git(wg.root, "checkout", "-q", "-b", "side")
    commit_files(wg, {"b.md": "1\n"}, "side")
    user_git(wg.root, "checkout", "-q", "main")
    commit_files(wg, {"c.md": "1\n"}, "main")
    user_git(wg.root, "merge", "-q", "--no-edit", "side")
    assert wg.has_merges() is True
    assert wg.parents(wg.head()) == 2


# -- what changed, file by file -----------------------------------------------------------------------------------

def test_changes_under_a_folder_name_each_file_added_changed_deleted_and_renamed(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    text = "name: Rob\n" + "a line that stays\n" * 5
    a = commit_files(wg, {"people/rob/PROFILE.md": text, "people/rob/MEMORY.md": "m\n", "other.md": "o\n"},
                "add(rob): new person", "body")
    b = commit_files(wg, {"people/rob/MEMORY.md": "m2\n"}, "garden(rob): 1 fact")
    (wg.root / "people/rob/MEMORY.md").unlink()
    write_file(wg, "people/bob/PROFILE.md", text)
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
        lines += ["commit refs/heads/main", f"mark :{n}", "committer U <u@x> 1700000000 +0000",
                  f"data {len(f'c{n}')}", f"c{n}"]
        if n > 1:
            lines.append(f"from :{n - 1}")
        lines += [f"M 100644 inline f{n}.md", "data 2", "x", ""]
    user_git(wg.root, "fast-import", "--quiet", stdin="\n".join(lines) + "\n")
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
    ("M\0a.md\0R100\0old.md\0new.md\0", [("M", "a.md", ""), ("R", "new.md", "old.md")]),
    ("M\0a.md", [("M", "a.md", "")]),  # the last entry's NUL missing: still read
    ("R100\0old.md\0new.md", [("R", "new.md", "old.md")]),
    ("C075\0src.md\0copy.md\0", [("C", "copy.md", "src.md")]),
    ("", []),
])
def test_a_change_listing_is_read_entry_by_entry(listing, changes):
    sha = "a" * 40
    out = f"\x1e{sha} 1700000000\nsubject\n\nbody\x1f\n\n{listing}"
    assert _changes(out) == [(sha, 1700000000, "subject\n\nbody", changes)]


def test_a_message_holding_the_unit_separator_is_read_whole_up_to_the_listing():
    """Only the last separator starts the file listing: one inside the
    message (a hand commit's) stays in the message."""
    sha = "c" * 40
    out = f"\x1e{sha} 1700000000\nby hand \x1f odd\n\x1f\n\nM\0a.md\0"
    assert _changes(out) == [(sha, 1700000000, "by hand \x1f odd\n", [("M", "a.md", "")])]


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
    first = commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n", "x.md": "x\n"}, "one")
    commit_files(wg, {"people/a/PROFILE.md": "p2\n"}, "two")
    now = wg.tree_blobs("people")
    assert now == {"people/a/PROFILE.md": user_git(wg.root, "rev-parse", "HEAD:people/a/PROFILE.md").strip(),
                   "people/a/logs/2024-01-01.md": user_git(wg.root, "rev-parse", "HEAD:people/a/logs/2024-01-01.md").strip()}
    then = wg.tree_blobs("people", rev=first)
    assert then["people/a/PROFILE.md"] == user_git(wg.root, "rev-parse", f"{first}:people/a/PROFILE.md").strip()
    assert then["people/a/PROFILE.md"] != now["people/a/PROFILE.md"]


def test_a_submodule_under_the_folder_is_no_file_of_the_tree(wg):
    commit_files(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    sha = wg.head()
    user_git(wg.root, "update-index", "--add", "--cacheinfo", f"160000,{sha},people/a/sub")
    user_git(wg.root, "commit", "-q", "-m", "a submodule")
    assert set(wg.tree_blobs("people")) == {"people/a/PROFILE.md"}


def test_changed_from_head_lists_changed_files_under_the_folder_only(wg):
    commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/b/PROFILE.md": "p\n", "x.md": "x\n"}, "one")
    write_file(wg, "people/a/PROFILE.md", "changed\n")
    write_file(wg, "x.md", "changed\n")
    (wg.root / "people/b/PROFILE.md").unlink()
    assert wg.changed_from_head("people") == {"people/a/PROFILE.md", "people/b/PROFILE.md"}


def test_file_commits_and_messages_before_a_commit(wg):
    a = commit_files(wg, {"f.md": "1\n"}, "first", "why one")
    commit_files(wg, {"g.md": "1\n"}, "elsewhere")
    b = commit_files(wg, {"f.md": "2\n"}, "second")
    c = commit_files(wg, {"f.md": "3\n"}, "third")
    assert wg.file_commits("f.md", 2) == [c, b]
    assert wg.file_commits("f.md", 10) == [c, b, a]
    assert wg.messages_before(c, ["f.md"]) == ["second\n\n", "first\n\nwhy one\n"]


def test_touched_names_each_commits_files_among_the_pathspecs_and_what_it_renamed(wg):
    text = "name: Rob\n" + "a line that stays\n" * 5
    a = commit_files(wg, {"people/rob/PROFILE.md": text, "people/rob/MEMORY.md": "m\n"}, "add(rob): new person")
    write_file(wg, "people/bob/PROFILE.md", text)
    (wg.root / "people/rob/PROFILE.md").unlink()
    b = wg.commit(["people/rob/PROFILE.md", "people/bob/PROFILE.md"], "rename(bob): from rob")
    c = commit_files(wg, {"people/bob/PROFILE.md": text + "more\n"}, "edit(bob): by hand")
    assert wg.touched([":(glob)people/*/PROFILE.md"]) == [
        (c, "edit(bob): by hand", ["people/bob/PROFILE.md"], []),
        (b, "rename(bob): from rob", ["people/bob/PROFILE.md"], ["people/bob/PROFILE.md"]),
        (a, "add(rob): new person", ["people/rob/PROFILE.md"], []),
    ]


def test_lines_added_are_each_matching_line_a_commit_added_oldest_first_even_under_a_chinese_name(wg, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = commit_files(wg, {"people/小明/PROFILE.md": "relation: friend\nother: x\n"}, "add(小明): new person")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-02T10:00:00+00:00")
    b = commit_files(wg, {"people/小明/PROFILE.md": "relation: dating\nother: y\n", "people/b/PROFILE.md": "relation: x\n"},
                "review(小明): relation friend → dating")
    found = wg.lines_added(["people/小明/PROFILE.md"], "^relation: ")
    assert found == [(a, 1709287200, "add(小明): new person", "people/小明/PROFILE.md", "relation: friend"),
                     (b, 1709373600, "review(小明): relation friend → dating", "people/小明/PROFILE.md",
                      "relation: dating")]


def test_a_line_removed_is_not_a_line_added(wg):
    commit_files(wg, {"p.md": "relation: friend\n"}, "one")
    commit_files(wg, {"p.md": "nothing\n"}, "two")
    assert [f[4] for f in wg.lines_added(["p.md"], "relation")] == ["relation: friend"]


@pytest.mark.parametrize("quoted, plain", [
    ('"b/people/小明\\tx.md"', "b/people/小明\tx.md"),
    ('"b/people/\\345\\260\\217\\346\\230\\216/PROFILE.md"', "b/people/小明/PROFILE.md"),
    ('"b/a\\"b.md"', 'b/a"b.md'),
    ("b/plain.md", "b/plain.md"),
    ('"b/x.md', '"b/x.md'),
    ('"b/caf\\351.md"', "b/caf\ufffd.md"),  # a name that is not UTF-8: read, its odd byte replaced
])
def test_a_path_git_quoted_in_a_diff_header_is_read_back(quoted, plain):
    """git quotes a name with a tab, a quote or a backslash in it, and with
    core.quotepath=false leaves its other characters (小明) as they are."""
    assert _unquoted(quoted) == plain


# -- ancestry, diffs, files at a commit, blame --------------------------------------------------------------------

def test_ancestry_and_the_commit_list(wg):
    a = commit_files(wg, {"a.md": "1\n"}, "one")
    b = commit_files(wg, {"a.md": "2\n"}, "two")
    assert wg.is_ancestor(a, b) is True and wg.is_ancestor(b, a) is False
    assert wg.rev_list() == [b, a] and wg.rev_list(a) == [a]


def test_diff_and_show_are_git_diffs_of_the_stored_text(wg):
    a = commit_files(wg, {"a.md": "one\n", "b.md": "bee\n"}, "first")
    write_file(wg, "a.md", "two\n")
    assert wg.diff(None, ["b.md"]) == ""
    working = wg.diff(None, ["a.md"])
    assert "-one" in working and "+two" in working
    b = commit_files(wg, {"a.md": "two\n"}, "second")
    assert "+two" in wg.diff(a, ["a.md"]) and wg.diff(b, ["a.md"]) == ""
    shown = wg.show(b)
    assert shown.startswith(f"{b[:7]} second\n") and "+two" in shown
    assert "bee" not in wg.show(a, ["a.md"]) and "+one" in wg.show(a, ["a.md"])


def test_a_file_as_it_was_and_the_files_of_a_folder_at_a_commit(wg):
    a = commit_files(wg, {"people/a/PROFILE.md": "one\n\n", "people/a/MEMORY.md": "m\n"}, "first")
    commit_files(wg, {"people/a/PROFILE.md": "two\n"}, "second")
    assert wg.file_at(a, "people/a/PROFILE.md") == "one\n\n"  # byte for byte: the trailing newlines too
    assert wg.file_at("HEAD", wg.root / "people/a/PROFILE.md") == "two\n"
    assert wg.file_at("HEAD", "people/a/GONE.md") is None
    assert wg.files_at("HEAD", "people") == ["people/a/MEMORY.md", "people/a/PROFILE.md"]


def test_working_blob_ids_are_the_ids_git_would_store(wg):
    write_file(wg, "a.md", "one\n")
    write_file(wg, "b.md", "two\n")
    ids = wg.working_blob_ids(["a.md", wg.root / "b.md"])
    assert ids == {"a.md": user_git(wg.root, "hash-object", "a.md").strip(),
                   "b.md": user_git(wg.root, "hash-object", "b.md").strip()}


def test_blame_names_the_commit_subject_of_each_line(wg):
    commit_files(wg, {"p.md": "one\ntwo\n"}, "add(a): new person")
    commit_files(wg, {"p.md": "one\nTWO\nthree\n"}, "edit(a): by hand")
    assert wg.blame("p.md") == [("add(a): new person", "one"), ("edit(a): by hand", "TWO"),
                                ("edit(a): by hand", "three")]
    assert wg.blame("never.md") == []


def test_commit_before_a_date_and_the_first_day_when_there_is_none(wg, monkeypatch):
    for day in ("2024-03-01", "2024-03-05"):
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T10:00:00+00:00")
        monkeypatch.setenv("GIT_AUTHOR_DATE", f"{day}T10:00:00+00:00")
        commit_files(wg, {"a.md": day}, day)
    first, second = wg.rev_list()[::-1]
    assert wg.commit_before("2024-03-03") == first
    assert wg.commit_before("2024-03-06") == second
    with pytest.raises(GitError) as none:
        wg.commit_before("2024-02-01")
    assert none.value.message == "The workspace has no commit from 2024-02-01 or before."
    assert none.value.hint == ("Its history starts on 2024-03-01: pick that day or later (YYYY-MM-DD), or a commit "
                               "from 'heartcompass log'.")


def test_status_lists_each_uncommitted_change_with_its_code(wg):
    commit_files(wg, {"a.md": "1\n", "b.md": "1\n", "old.md": "moved\n" * 5, "people/小明/x.md": "1\n"}, "one")
    write_file(wg, "a.md", "2\n")
    (wg.root / "b.md").unlink()
    write_file(wg, "new.md", "n\n")
    write_file(wg, "people/小明/y.md", "n\n")
    user_git(wg.root, "mv", "old.md", "renamed.md")
    assert sorted(wg.status()) == sorted([("M", "a.md"), ("D", "b.md"), ("??", "new.md"), ("??", "people/小明/y.md"),
                                          ("R", "renamed.md"), ("D", "old.md")])
    assert wg.status(["people"]) == [("??", "people/小明/y.md")]


def test_ignored_files_are_named_and_tracked_ones_are_not(wg):
    commit_files(wg, {".gitignore": "*.tmp\n", "kept.md": "k\n"}, "one")
    write_file(wg, "people/a/scratch.tmp", "t\n")
    write_file(wg, "people/a/PROFILE.md", "p\n")
    assert wg.ignored(["people"]) == ["people/a/scratch.tmp"]


def test_a_commit_record_is_what_log_reads():
    c = Commit("0123456789" * 4, "2024-01-01T00:00:00+00:00", "me", "s", "", [])
    assert c.short == "01234567"


def test_commit_contents_builds_the_same_tree_git_would_in_gits_order(wg, tmp_path):
    """The tree written in-process is byte for byte git's own (names sorted
    as git sorts them, a folder as "name/"): else fsck, clones and every
    later diff would see a broken tree."""
    before = {"a.b": "1\n", "a0": "2\n", "people/b/PROFILE.md": "p\n", "z.md": "z\n"}
    commit_files(wg, before, "one")
    texts = {"a/x.md": "new folder between a.b and a0\n", "people/a/PROFILE.md": "new person first\n",
             "people/b/PROFILE.md": "changed\n", "0.md": "a new first name\n"}
    sha = wg.commit_contents(texts, "garden(b): 1 fact", "- the body")
    assert sha == wg.head()
    assert user_git(wg.root, "rev-parse", "HEAD^{tree}").strip() == plain_tree(tmp_path, {**before, **texts})
    user_git(wg.root, "fsck", "--strict", "--no-dangling")
    assert user_git(wg.root, "log", "-1", "--format=%B") == "garden(b): 1 fact\n\n- the body\n\n"
    assert user_git(wg.root, "reflog", "-1", "--format=%gs").strip() == "commit: garden(b): 1 fact"
    assert user_git(wg.root, "rev-parse", "HEAD~1").strip() == wg.rev_list()[1]


def test_a_name_that_begins_another_sorts_first_as_git_sorts_it(wg, tmp_path):
    """Files "x" and "x-y" (git: the shorter first) and a new "x-z": the
    tree written in-process is git's own, byte for byte."""
    before = {"x": "1\n", "x-y": "2\n", "x.d/a.md": "3\n"}
    commit_files(wg, before, "one")
    texts = {"x-z": "new\n", "x0": "new too\n"}
    assert wg.commit_contents(texts, "two")
    assert user_git(wg.root, "rev-parse", "HEAD^{tree}").strip() == plain_tree(tmp_path, {**before, **texts})
    user_git(wg.root, "fsck", "--strict", "--no-dangling")


def test_a_file_that_becomes_a_folder_is_written_in_gits_order(wg, tmp_path):
    commit_files(wg, {"a": "was a file\n", "a.b": "1\n"}, "one")
    (wg.root / "a").unlink()
    assert wg.commit_contents({"a/x.md": "x\n"}, "two")
    assert user_git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["a.b", "a/x.md"]
    user_git(wg.root, "fsck", "--strict", "--no-dangling")


def test_commit_contents_commits_the_texts_given_and_leaves_a_hand_edit_pending(wg):
    """The commit holds the texts given, whatever the working file holds:
    the user's edit saved meanwhile stays uncommitted, for its own commit,
    and the index follows HEAD (a plain `git commit` would not undo ours)."""
    commit_files(wg, {"people/a/MEMORY.md": "one\n", "other.md": "o\n"}, "one")
    write_file(wg, "people/a/MEMORY.md", "one\nmine, by hand\n")
    write_file(wg, "other.md", "staged by the user\n")
    user_git(wg.root, "add", "other.md")
    assert wg.commit_contents({wg.root / "people/a/MEMORY.md": "one\nours\n"}, "garden(a): 1 fact")
    assert user_git(wg.root, "show", "HEAD:people/a/MEMORY.md") == "one\nours\n"
    assert (wg.root / "people/a/MEMORY.md").read_text(encoding="utf-8") == "one\nmine, by hand\n"
    assert user_git(wg.root, "show", "--name-only", "--format=", "HEAD").split() == ["people/a/MEMORY.md"]
    assert user_git(wg.root, "diff", "--cached", "--name-only").split() == ["other.md"]  # the user's staging kept
    assert wg.status(["people"]) == [("M", "people/a/MEMORY.md")]


def test_commit_contents_of_what_head_holds_makes_no_commit(wg):
    commit_files(wg, {"a.md": "same\n"}, "one")
    head = wg.head()
    assert wg.commit_contents({"a.md": "same\n"}, "nothing") is None
    assert wg.commit_contents({}, "nothing") is None
    assert wg.head() == head


def test_commit_contents_keeps_an_executable_files_mode_and_never_commits_a_link(wg):
    commit_files(wg, {"run.sh": "echo\n", "target.md": "t\n"}, "one")
    (wg.root / "run.sh").chmod(0o755)
    (wg.root / "link.md").symlink_to("target.md")
    user_git(wg.root, "add", "run.sh", "link.md")
    user_git(wg.root, "commit", "-q", "-m", "by hand")
    assert wg.commit_contents({"run.sh": "echo 2\n", "link.md": "now a text\n"}, "two")
    modes = {line.split("\t")[1]: line.split()[0] for line in user_git(wg.root, "ls-tree", "HEAD").splitlines()}
    assert modes == {"link.md": "100644", "run.sh": "100755", "target.md": "100644"}


def test_a_commit_hook_of_the_users_runs_on_commit_contents_and_what_it_refuses_is_not_committed(wg):
    commit_files(wg, {"a.md": "one\n"}, "one")
    add_hook(wg, "pre-commit", "echo ran >> hook-ran.txt\n")
    assert wg.commit_hooks() == ["pre-commit"]
    assert wg.commit_contents({"a.md": "two\n"}, "two", "the body")
    assert (wg.root / "hook-ran.txt").read_text() == "ran\n"
    assert user_git(wg.root, "log", "-1", "--format=%B") == "two\n\nthe body\n\n"
    assert wg.commit_contents({"a.md": "two\n"}, "again") is None  # HEAD holds it: no commit, no hook
    assert (wg.root / "hook-ran.txt").read_text() == "ran\n"
    add_hook(wg, "pre-commit", "echo refused >&2; exit 1\n")
    head = wg.head()
    with pytest.raises(GitError) as refused:
        wg.commit_contents({"a.md": "three\n"}, "three")
    assert "git commit failed" in refused.value.message and "refused" in refused.value.message
    assert wg.head() == head and not list((wg.root / ".git").glob("heartcompass-index*"))


def test_a_users_hook_that_fails_on_the_held_index_is_named_in_its_own_words_never_as_a_stale_lock(wg):
    """A hook of the user's that touches the real index (its index.lock is
    ours while the commit runs) and fails: the error is git commit's, with
    the hook's own output, not "a stale index.lock: remove it with rm" (the
    lock is gone once the commit is refused: nothing to remove). Nothing
    committed, no lock left."""
    commit_files(wg, {"a.md": "one\n"}, "one")
    add_hook(wg, "pre-commit", "unset GIT_INDEX_FILE\ngit add -A || exit 1\n")
    head = wg.head()
    with pytest.raises(GitError) as refused:
        wg.commit_contents({"a.md": "two\n"}, "two")
    assert refused.value.message.startswith("git commit failed: ") and "index.lock" in refused.value.message
    assert "stale" not in refused.value.message and "rm " not in refused.value.message
    assert wg.head() == head and not (wg.git_dir / "index.lock").exists()
    assert user_git(wg.root, "show", "HEAD:a.md") == "one\n"


def test_a_commit_a_users_hook_runs_on_holds_each_text_given_and_the_index_follows_it(wg, tmp_path, monkeypatch):
    """With a hook of the user's to run, commit_contents commits through a
    temporary index in .git (the system's temp folder may be unusable, the
    locale unable to write Chinese): new files, several at once, a name
    starting with a dash or holding a tab, an executable's mode kept; the
    message is the subject alone when there is no body; the real index
    follows HEAD (a later plain `git commit` would not take ours back); the
    hook runs with no optional locks and sees the other files unchanged
    (the index's stat data kept: else every file of the workspace is re-read)."""
    import tempfile

    commit_files(wg, {"a.md": "one\n", "run\tme.sh": "echo\n", "big.md": "b\n"}, "one")
    (wg.root / "run\tme.sh").chmod(0o755)
    user_git(wg.root, "add", "run\tme.sh")
    user_git(wg.root, "commit", "-q", "-m", "executable")
    seen = tmp_path / "seen.txt"
    add_hook(wg, "pre-commit", f'echo "locks=$GIT_OPTIONAL_LOCKS" > "{seen}"; git diff-files --name-only >> "{seen}"\n')
    texts = {"a.md": "two\n", "run\tme.sh": "echo 2\n", "-dash.md": "d\n", "people/新/PROFILE.md": "名字\n"}
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    monkeypatch.setattr(subprocess, "_text_encoding", lambda: "latin-1")
    sha = wg.commit_contents(texts, "garden(新): 1 fact")
    monkeypatch.undo()
    assert sha == wg.head()
    assert user_git(wg.root, "log", "-1", "--format=%B") == "garden(新): 1 fact\n\n"
    assert {rel: user_git(wg.root, "show", f"HEAD:{rel}") for rel in texts} == texts
    modes = {line.split("\t", 1)[1]: line.split()[0]
             for line in user_git(wg.root, "ls-tree", "-r", "-z", "HEAD").split("\0") if line}
    assert modes == {"-dash.md": "100644", "a.md": "100644", "big.md": "100644", "people/新/PROFILE.md": "100644",
                     "run\tme.sh": "100755"}
    assert user_git(wg.root, "diff", "--cached", "--name-only") == ""  # the index follows HEAD
    assert user_git(wg.root, "diff", "--name-only", "-z", "--diff-filter=M").split("\0") == ["a.md", "run\tme.sh", ""]
    hook_saw = seen.read_text(encoding="utf-8").splitlines()
    assert hook_saw[0] == "locks=0" and "a.md" in hook_saw and "big.md" not in hook_saw
    assert wg.commit_contents({"run\tme.sh": "echo 2\n"}, "again") is None  # HEAD holds it: no commit
    assert wg.head() == sha


def test_a_commit_made_without_an_index_has_the_subject_alone_as_its_message(wg):
    """No hook to run: the commit is built from objects; with no body its
    message is the subject and its newline, as `git commit` writes it (git
    commit-tree keeps every character it is given)."""
    commit_files(wg, {"a.md": "one\n"}, "one")
    assert wg.commit_contents({"a.md": "two\n"}, "garden(a): 1 fact")
    message = user_git(wg.root, "cat-file", "commit", "HEAD").split("\n\n", 1)[1]
    assert message == "garden(a): 1 fact\n"  # no empty body after it; ended as `git commit` ends it
    assert wg.commit_contents({"a.md": "three\n"}, "garden(a): 2 facts", "  - the body  \n")
    assert user_git(wg.root, "cat-file", "commit", "HEAD").split("\n\n", 1)[1] == \
        "garden(a): 2 facts\n\n- the body\n"


def test_a_commit_of_the_users_made_while_ours_was_built_is_never_lost(wg, monkeypatch):
    """The branch moves to our commit only if it is still where we started:
    a commit the user made meanwhile stays, and ours is refused, never
    written over theirs."""
    commit_files(wg, {"a.md": "one\n"}, "one")
    held = wg._held_index

    def the_user_commits_first():
        user_git(wg.root, "commit", "-q", "--allow-empty", "-m", "the user's")
        return held()

    monkeypatch.setattr(wg, "_held_index", the_user_commits_first)
    with pytest.raises(GitError):
        wg.commit_contents({"a.md": "two\n"}, "garden(a): 1 fact")
    assert [c.subject for c in wg.log()] == ["the user's", "one"]


def test_a_stale_index_lock_refuses_commit_contents_before_head_moves_and_says_how_to_clear_it(wg):
    """An index.lock left by a killed git: the commit is refused, HEAD and
    the index as they were, and the error names the lock and its fix."""
    commit_files(wg, {"a.md": "one\n"}, "one")
    head = wg.head()
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    with pytest.raises(GitError) as refused:
        wg.commit_contents({"a.md": "two\n"}, "two")
    assert refused.value.message.startswith(f"A stale {lock} is left by a git command that was killed")
    assert wg.head() == head and lock.exists()


def test_git_hooks_off_means_no_hook_of_the_users_runs_on_any_commit(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    wg = WorkspaceGit(root, hooks=lambda: False)
    wg.init()
    add_hook(wg, "pre-commit", "exit 1\n")
    add_hook(wg, "commit-msg", "exit 1\n")
    assert wg.commit_hooks() == [] and wg._verify() == ["--no-verify"]
    assert commit_files(wg, {"a.md": "one\n"}, "one")
    assert wg.commit_contents({"a.md": "two\n"}, "two")
    assert [c.subject for c in wg.log()] == ["two", "one"]


def test_git_hooks_off_means_no_hook_runs_on_a_first_commit_made_from_texts_either(tmp_path):
    """The first commit goes through an index (there is no HEAD to build
    on): with git.hooks off, the user's hooks stay silent there too."""
    root = tmp_path / "repo"
    root.mkdir()
    wg = WorkspaceGit(root, hooks=lambda: False)
    wg.init()
    add_hook(wg, "pre-commit", "exit 1\n")
    assert wg.commit_contents({"people/a/PROFILE.md": "p\n"}, "add(a): new person") == wg.head()
    assert [c.subject for c in wg.log()] == ["add(a): new person"]


def test_the_first_commit_of_a_workspace_can_be_made_from_texts(wg):
    write_file(wg, "b.md", "untouched\n")
    assert wg.commit_contents({"people/a/PROFILE.md": "p\n"}, "add(a): new person")
    assert user_git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["people/a/PROFILE.md"]
    assert sorted(wg.status()) == [("??", "b.md"), ("D", "people/a/PROFILE.md")]  # the index follows the commit


def test_commit_hooks_are_found_where_core_hookspath_says_and_only_when_runnable(wg, tmp_path):
    add_hook(wg, "commit-msg", "exit 0\n")
    (wg.root / ".git/hooks/pre-commit").write_text("#!/bin/sh\n", encoding="utf-8")  # not executable: git skips it
    assert wg.commit_hooks() == ["commit-msg"]
    add_hook(wg, "post-commit", "exit 0\n", folder=wg.root / "my-hooks")
    user_git(wg.root, "config", "core.hooksPath", "my-hooks")
    assert WorkspaceGit(wg.root).commit_hooks() == ["post-commit"]
    home_hooks = Path.home() / "hooks"
    add_hook(wg, "prepare-commit-msg", "exit 0\n", folder=home_hooks)
    user_git(wg.root, "config", "core.hooksPath", "~/hooks")
    assert WorkspaceGit(wg.root).commit_hooks() == ["prepare-commit-msg"]


@pytest.mark.parametrize("value, signs", [("true", True), ("yes", True), ("on", True), ("1", True), ("TRUE", True),
                                          ("2", True), ("-1", True),
                                          ("false", False), ("0", False), ("off", False)])
def test_signing_is_on_for_each_way_git_spells_true(wg, value, signs):
    """git takes any number but 0 for true: commit.gpgsign=2 signs too, so
    our commits go through `git commit` and are signed like the user's."""
    assert wg._signs() is False
    user_git(wg.root, "config", "commit.gpgsign", value)
    assert WorkspaceGit(wg.root)._signs() is signs


def test_commit_commits_exactly_the_paths_named_and_their_deletions(wg):
    commit_files(wg, {"a.md": "1\n", "b.md": "1\n", "c.md": "1\n"}, "one")
    write_file(wg, "a.md", "2\n")
    (wg.root / "b.md").unlink()
    write_file(wg, "c.md", "2\n")
    user_git(wg.root, "add", "c.md")  # staged by the user: not ours to commit
    sha = wg.commit([wg.root / "a.md", "b.md"], "two", "  the body  ")
    assert sha == wg.head()
    assert sorted(user_git(wg.root, "show", "--name-status", "--format=", "HEAD").splitlines()) == ["D\tb.md", "M\ta.md"]
    assert user_git(wg.root, "log", "-1", "--format=%B") == "two\n\nthe body\n\n"
    assert user_git(wg.root, "diff", "--cached", "--name-only").split() == ["c.md"]
    assert wg.commit(["a.md"], "nothing changed") is None and wg.commit([], "none") is None
    assert wg.head() == sha


def test_a_commit_git_refuses_leaves_the_files_and_the_index_as_they_were(wg):
    commit_files(wg, {"a.md": "1\n"}, "one")
    add_hook(wg, "pre-commit", "echo no >&2; exit 1\n")
    write_file(wg, "a.md", "2\n")
    write_file(wg, "new.md", "n\n")
    with pytest.raises(GitError) as refused:
        wg.commit(["a.md", "new.md"], "two")
    assert refused.value.message.startswith("git commit failed: ") and "no" in refused.value.message
    assert user_git(wg.root, "diff", "--cached", "--name-only") == ""
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "new.md").read_text() == "n\n"


def test_a_first_commit_takes_only_the_paths_named(wg):
    write_file(wg, "a.md", "1\n")
    write_file(wg, "b.md", "1\n")
    assert wg.commit(["a.md"], "first")
    assert user_git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["a.md"]


def test_a_first_commit_leaves_what_the_user_staged_by_hand_staged(wg):
    """The workspace's first commit is ours and holds only our file: a file
    the user staged by hand is theirs to commit (it stays staged, not in it)."""
    write_file(wg, "a.md", "1\n")
    write_file(wg, "mine.md", "m\n")
    user_git(wg.root, "add", "mine.md")
    assert wg.commit(["a.md"], "first") == wg.head()
    assert user_git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["a.md"]
    assert user_git(wg.root, "diff", "--cached", "--name-only").split() == ["mine.md"]


def test_a_file_whose_name_starts_with_a_dash_is_committed_and_deleted_as_a_file(wg):
    """A name such as "-draft.md" is a path to git, never an option: it is
    added, committed and its deletion committed like any other file."""
    commit_files(wg, {"a.md": "1\n"}, "one")
    write_file(wg, "-draft.md", "d\n")
    assert wg.commit(["-draft.md"], "two") == wg.head()
    assert user_git(wg.root, "show", "--name-status", "--format=", "HEAD").split("\n")[0] == "A\t-draft.md"
    (wg.root / "-draft.md").unlink()
    assert wg.commit(["-draft.md"], "three") == wg.head()
    assert user_git(wg.root, "show", "--name-status", "--format=", "HEAD").split("\n")[0] == "D\t-draft.md"
    assert user_git(wg.root, "ls-tree", "--name-only", "HEAD").split() == ["a.md"]


def test_a_folder_deleted_whole_and_a_new_file_are_committed_together_whatever_the_temp_folder(wg, tmp_path,
                                                                                                 monkeypatch):
    """commit() of a folder gone from the working tree stages the removal of
    every file in it (and a new file beside it); its message file is written
    in .git, so a system temp folder that cannot be used changes nothing."""
    import shutil
    import tempfile

    commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n", "b.md": "b\n"}, "one")
    shutil.rmtree(wg.root / "people/a")
    write_file(wg, "people/c/PROFILE.md", "c\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    assert wg.commit(["people/a", "people/c"], "two", "- the body") == wg.head()
    monkeypatch.undo()
    assert sorted(user_git(wg.root, "show", "--name-status", "--format=", "HEAD").splitlines()) == [
        "A\tpeople/c/PROFILE.md", "D\tpeople/a/PROFILE.md", "D\tpeople/a/logs/2024-01-01.md"]
    assert user_git(wg.root, "log", "-1", "--format=%B") == "two\n\n- the body\n\n"
    assert user_git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["b.md", "people/c/PROFILE.md"]


def test_a_link_named_with_a_dash_is_unstaged_and_a_link_that_became_a_file_is_committed(wg, tmp_path):
    """Only what is a link now is refused (unstaged, named): a committed
    link replaced by a plain file is the user's file to commit."""
    from heartcompass.errors import UnsafePathError

    write_file(wg, "a.md", "1\n")
    (wg.root / "was-a-link.md").symlink_to("a.md")
    user_git(wg.root, "add", "a.md", "was-a-link.md")
    user_git(wg.root, "commit", "-q", "-m", "by hand, with a link")
    (wg.root / "was-a-link.md").unlink()
    write_file(wg, "was-a-link.md", "a file now\n")
    assert wg.commit(["was-a-link.md"], "two") == wg.head()
    assert user_git(wg.root, "ls-tree", "HEAD", "was-a-link.md").split()[0] == "100644"
    (wg.root / "-link.md").symlink_to(tmp_path)
    write_file(wg, "b.md", "b\n")
    with pytest.raises(UnsafePathError) as refused:
        wg.commit(["b.md", "-link.md"], "three")
    assert refused.value.path == wg.root / "-link.md" and "(outside the workspace)" in str(refused.value)
    assert user_git(wg.root, "diff", "--cached", "--name-only").split() == ["b.md"]


def test_a_global_ignore_rule_never_leaves_our_file_uncommitted(wg):
    ignore = Path.home() / "global-ignore"
    ignore.write_text("*.md\n", encoding="utf-8")
    user_git(wg.root, "config", "core.excludesFile", str(ignore))
    assert commit_files(wg, {"a.md": "1\n", "b.txt": "2\n"}, "one")
    assert user_git(wg.root, "ls-tree", "--name-only", "HEAD").split() == ["a.md", "b.txt"]


def test_a_commit_message_is_kept_as_written_whatever_the_locale(wg, monkeypatch):
    """Names in a subject and a body (小明, José) are stored as UTF-8, as git
    reads a message, even where the locale's encoding is another (Latin-1):
    never a commit that fails on a Chinese name, nor one whose message
    reads back garbled."""
    import io

    real = io.text_encoding
    monkeypatch.setattr(io, "text_encoding", lambda encoding, stacklevel=2: real(encoding) if encoding else "latin-1")
    write_file(wg, "people/小明/PROFILE.md", "p\n")
    sha = wg.commit(["people/小明/PROFILE.md"], "add(小明): new person", "- José said 你好")
    monkeypatch.undo()
    assert sha == wg.head()
    assert user_git(wg.root, "log", "-1", "--format=%B") == "add(小明): new person\n\n- José said 你好\n\n"


def test_a_commit_starts_no_external_diff_tool_of_the_users_and_is_made_whatever_it_prints(wg, tmp_path):
    """A diff tool the user set for viewing (diff.external: difftastic, a
    window that prints nothing) is never started by a commit, and what it
    would print never decides whether there is anything to commit."""
    ran = tmp_path / "DIFF-TOOL-RAN"
    tool = tmp_path / "difftool"
    tool.write_text(f"#!/bin/sh\ntouch {ran}\n", encoding="utf-8")
    tool.chmod(0o755)
    commit_files(wg, {"a.md": "1\n"}, "one")
    user_git(wg.root, "config", "diff.external", str(tool))
    write_file(wg, "a.md", "2\n")
    write_file(wg, "b.md", "b\n")
    sha = wg.commit(["a.md", "b.md"], "two")
    assert sha is not None and sha == wg.head()
    assert sorted(user_git(wg.root, "show", "--name-status", "--format=", "HEAD").splitlines()) == ["A\tb.md",
                                                                                                   "M\ta.md"]
    assert not ran.exists()


def test_a_link_whose_target_is_gone_is_a_link_all_the_same_never_committed_never_removed(wg, tmp_path):
    """A link pointing nowhere (its target moved away, a disk not mounted,
    or pointed by hand at a path that is not there) is refused like any
    link: never committed (sync would spread it), nothing committed, the
    error saying where it points. Unchanged since the user committed it,
    it is nothing to commit; and it stays on disk, the user's to mend."""
    from heartcompass.errors import UnsafePathError

    target = tmp_path / "photo.md"
    target.write_text("p\n", encoding="utf-8")
    write_file(wg, "a.md", "1\n")
    link = wg.root / "people/photo.md"
    link.parent.mkdir()
    link.symlink_to(target)
    user_git(wg.root, "add", "a.md", "people/photo.md")
    user_git(wg.root, "commit", "-q", "-m", "by hand, with a link")
    head = wg.head()
    target.unlink()
    assert wg.commit(["people/photo.md"], "two") is None and wg.head() == head
    nowhere = tmp_path / "gone/secret.md"
    link.unlink()
    link.symlink_to(nowhere)
    write_file(wg, "a.md", "2\n")
    with pytest.raises(UnsafePathError) as refused:
        wg.commit(["a.md", "people/photo.md"], "three")
    assert refused.value.path == link and f"is a symbolic link to {nowhere} (outside the workspace)" in str(refused.value)
    assert wg.head() == head and user_git(wg.root, "diff", "--cached", "--name-only").split() == ["a.md"]
    new = wg.root / "people/new.md"
    new.symlink_to("nowhere.md")
    with pytest.raises(UnsafePathError) as inside:
        wg.commit(["people/new.md"], "four")
    assert inside.value.path == new and "is a symbolic link to nowhere.md (inside the workspace)" in str(inside.value)
    assert wg.head() == head and os.readlink(link) == str(nowhere) and os.readlink(new) == "nowhere.md"


def test_a_file_whose_folder_became_a_link_loop_is_committed_as_gone_and_the_loop_left_alone(wg):
    """A person's folder replaced by a link that points at itself (nothing
    can be read through it): its files are committed as gone, as for a
    folder deleted, never a git error; the link is the user's, left as is."""
    import shutil

    commit_files(wg, {"people/bob/PROFILE.md": "b\n", "a.md": "a\n"}, "one")
    shutil.rmtree(wg.root / "people/bob")
    (wg.root / "people/bob").symlink_to("bob")
    assert wg.commit(["people/bob/PROFILE.md"], "two") == wg.head()
    assert user_git(wg.root, "show", "--name-status", "--format=", "HEAD").splitlines() == ["D\tpeople/bob/PROFILE.md"]
    assert os.readlink(wg.root / "people/bob") == "bob"


def test_a_symbolic_link_is_never_committed_and_the_error_says_where_it_points(wg, tmp_path):
    from heartcompass.errors import UnsafePathError

    commit_files(wg, {"a.md": "1\n"}, "one")
    outside = tmp_path / "secret.md"
    outside.write_text("s\n", encoding="utf-8")
    (wg.root / "people").mkdir()
    (wg.root / "people/link.md").symlink_to(outside)
    write_file(wg, "a.md", "2\n")
    with pytest.raises(UnsafePathError) as refused:
        wg.commit(["a.md", "people/link.md"], "two")
    said = str(refused.value)
    assert "is a symbolic link to" in said and "(outside the workspace)" in said and str(outside) in said
    assert refused.value.problem.endswith("; HeartCompass commits no link (sync would spread it), so nothing was "
                                          "committed")
    assert user_git(wg.root, "diff", "--cached", "--name-only").split() == ["a.md"]  # the link unstaged, a.md not
    (wg.root / "people/inside.md").symlink_to(wg.root / "a.md")
    with pytest.raises(UnsafePathError) as inside:
        wg.commit(["people/inside.md"], "three")
    assert "(inside the workspace)" in str(inside.value)


def test_a_commit_carries_the_users_identity_when_git_has_one_else_heartcompasss(wg):
    commit_files(wg, {"a.md": "1\n"}, "one")
    assert user_git(wg.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip() == (
        "HeartCompass <heartcompass@localhost>|HeartCompass <heartcompass@localhost>")
    user_git(wg.root, "config", "user.name", "Ada")
    mine = WorkspaceGit(wg.root)
    assert commit_files(mine, {"a.md": "2\n"}, "two")
    assert user_git(wg.root, "log", "-1", "--format=%an <%ae>").strip() == "Ada <heartcompass@localhost>"
    user_git(wg.root, "config", "user.email", "ada@example.com")
    both = WorkspaceGit(wg.root)
    assert commit_files(both, {"a.md": "3\n"}, "three")
    assert user_git(wg.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip() == (
        "Ada <ada@example.com>|Ada <ada@example.com>")


def test_our_git_runs_with_no_optional_locks_and_no_password_prompt(wg, monkeypatch):
    """A read-only command never takes index.lock from a commit, and git
    never waits for a password nobody will type (cron, serve)."""
    monkeypatch.delenv("GIT_TERMINAL_PROMPT", raising=False)
    monkeypatch.setattr("os.isatty", lambda fd: fd != 0)  # no one to type: stdin is not a terminal, stdout is
    shown = wg._git("env-of-git", options=("-c", "alias.env-of-git=!printenv GIT_OPTIONAL_LOCKS GIT_TERMINAL_PROMPT"))
    assert shown.split() == ["0", "0"]
    monkeypatch.setattr("os.isatty", lambda fd: True)  # at a terminal: git may ask
    shown = wg._git("env-of-git", options=("-c", "alias.env-of-git=!printenv GIT_OPTIONAL_LOCKS; "
                                           "printenv GIT_TERMINAL_PROMPT || echo unset"))
    assert shown.split() == ["0", "unset"]


def test_a_failed_git_command_is_one_line_naming_it(wg):
    with pytest.raises(GitError) as failed:
        wg._git("rev-parse", "--verify", "no-such-thing")
    assert failed.value.message.startswith("git rev-parse failed: fatal: ")
    assert "stderr:" not in failed.value.message and not failed.value.message.endswith("'")


def test_reading_commands_run_none_of_the_users_programs(wg):
    """Each filter or diff program the config names is set to nothing for a
    read (a required filter made optional, so the read does not fail)."""
    user_git(wg.root, "config", "filter.crypt.clean", "touch CLEAN-RAN")
    user_git(wg.root, "config", "filter.crypt.required", "true")
    user_git(wg.root, "config", "diff.pdf.textconv", "touch TEXTCONV-RAN")
    user_git(wg.root, "config", "user.name", "not a program")
    options = wg.reading_options()
    assert options == ("-c", f"core.hooksPath={os.devnull}", "-c", "diff.pdf.textconv=", "-c", "filter.crypt.clean=",
                       "-c", "filter.crypt.required=false")
    user_git(wg.root, "config", "diff.other.command", "x")
    assert wg.reading_options() == options  # read once per process
    assert WorkspaceGit(wg.root).reading_options()[2:4] == ("-c", "diff.other.command=")
    other = wg.root.parent / "other"
    assert new_repo(other).reading_options() == ("-c", f"core.hooksPath={os.devnull}")  # hooks, with no program


def test_blob_ids_are_heads_blobs_of_the_files_asked_and_none_for_folders_or_absent_files(wg):
    commit_files(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n", "x.md": "x\n"}, "one")
    ids = wg.blob_ids(["people/a/PROFILE.md", wg.root / "x.md", "people/a/logs", "people/a/GONE.md",
                       "nowhere/a.md", "people/a/PROFILE.md/x", "people/a/logs/2024-01-01.md"])
    assert ids == {rel: user_git(wg.root, "rev-parse", f"HEAD:{rel}").strip()
                   for rel in ("people/a/PROFILE.md", "x.md", "people/a/logs/2024-01-01.md")}


def test_resolve_names_a_missing_commit_with_where_to_look(wg):
    sha = commit_files(wg, {"a.md": "1\n"}, "one")
    assert wg.resolve("HEAD") == sha and wg.resolve(sha[:8]) == sha
    with pytest.raises(GitError) as missing:
        wg.resolve("nope")
    assert missing.value.message == "No commit 'nope' in this workspace."
    assert missing.value.hint == "See 'heartcompass log' for commit ids."


def test_a_folder_that_is_no_repository_says_how_to_make_it_one(tmp_path):
    wg = WorkspaceGit(tmp_path)
    assert not wg.is_repo()
    with pytest.raises(GitError) as refused:
        wg.repo
    assert refused.value.message == f"{tmp_path.resolve()} is not a git repository."
    assert "heartcompass init" in refused.value.hint
    wg.init()
    assert wg.is_repo() and user_git(tmp_path, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_git_variables_pointing_elsewhere_are_dropped(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "index"))
    import os

    wg = WorkspaceGit(tmp_path / "repo")
    assert "GIT_DIR" not in os.environ and "GIT_INDEX_FILE" not in os.environ
    (tmp_path / "repo").mkdir()
    wg.init()
    assert commit_files(wg, {"a.md": "1\n"}, "one") and (tmp_path / "repo/.git").is_dir()


def test_move_is_a_git_mv(wg):
    commit_files(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    wg.move(wg.root / "people/a", wg.root / "people/b")
    assert wg.status() == [("R", "people/b/PROFILE.md"), ("D", "people/a/PROFILE.md")]


def test_a_file_name_that_is_not_utf8_survives_our_in_process_commits(wg):
    """git allows any bytes in a name: a tree written in-process keeps such
    a name byte for byte (else the file would vanish from the next commit)."""
    import os

    odd = os.fsencode(str(wg.root)) + b"/caf\xe9.md"
    with open(odd, "wb") as f:
        f.write(b"latin-1 name\n")
    user_git(wg.root, "add", "-A")
    user_git(wg.root, "commit", "-q", "-m", "by hand")
    before = subprocess.run(["git", "ls-tree", "-z", "HEAD"], cwd=wg.root, capture_output=True, check=True).stdout
    assert b"caf\xe9.md" in before
    assert wg.commit_contents({"people/a/PROFILE.md": "p\n"}, "add(a): new person")
    after = subprocess.run(["git", "ls-tree", "-z", "--name-only", "HEAD"], cwd=wg.root, capture_output=True,
                           check=True).stdout
    assert after.split(b"\0")[:2] == [b"caf\xe9.md", b"people"]
    user_git(wg.root, "fsck", "--strict", "--no-dangling")
    assert wg.blob_ids(["people/a/PROFILE.md"])


def test_gitpythons_long_lived_readers_run_in_a_session_of_their_own(wg):
    """A Ctrl-C at the terminal reaches the whole foreground group: the
    object readers GitPython keeps open must not be in it, or the next
    commit fails on a broken pipe."""
    import os

    commit_files(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    assert wg.blob_ids(["people/a/PROFILE.md"])  # read through `git cat-file --batch`
    readers = [getattr(wg.repo.git, name, None) for name in ("cat_file_all", "cat_file_header")]
    pids = [r.proc.pid for r in readers if r is not None and getattr(r, "proc", None) is not None]
    assert pids and all(os.getsid(pid) != os.getsid(0) for pid in pids)


def test_an_identity_git_itself_refuses_gives_way_to_heartcompasss_so_the_commit_is_made(wg):
    """GitPython reads a user.name git refuses (".", no letter in it): git
    is asked, once, and our commits carry HeartCompass's identity instead
    of failing."""
    user_git(wg.root, "config", "user.name", ".")
    user_git(wg.root, "config", "user.email", "dot@example.com")
    fresh = WorkspaceGit(wg.root)
    assert commit_files(fresh, {"a.md": "1\n"}, "one")
    assert fresh.commit_contents({"a.md": "2\n"}, "two")
    assert user_git(wg.root, "log", "--format=%an <%ae>").split("\n")[:2] == [
        "HeartCompass <heartcompass@localhost>"] * 2


def test_the_identity_in_the_environment_comes_first(wg, monkeypatch):
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Env Name")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "env@example.com")
    assert commit_files(wg, {"a.md": "1\n"}, "one")
    assert user_git(wg.root, "log", "-1", "--format=%an <%ae>").strip() == "Env Name <env@example.com>"


def test_an_author_in_the_environment_stays_the_author_when_only_the_committer_is_unknown(wg, monkeypatch):
    """GIT_AUTHOR_* set (a script, a hook) and no committer git can find: ours
    stands in as committer only; the commit is still the user's by its author."""
    monkeypatch.setenv("GIT_AUTHOR_NAME", "王蕾")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "lei@example.com")
    assert commit_files(wg, {"a.md": "1\n"}, "one")
    assert user_git(wg.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip() == (
        "王蕾 <lei@example.com>|HeartCompass <heartcompass@localhost>")


def test_status_and_a_working_diff_run_none_of_the_users_filters(wg, tmp_path):
    """Reading what changed must not run a program the repository's config
    names (a filter's clean command runs on every changed file)."""
    ran = tmp_path / "CLEAN-RAN"
    commit_files(wg, {".gitattributes": "*.md filter=crypt\n", "a.md": "1\n"}, "one")
    user_git(wg.root, "config", "filter.crypt.clean", f"touch {ran} && cat")
    write_file(wg, "a.md", "2\n")  # the same size: git must read the file through the filter to compare
    assert wg.status() == [("M", "a.md")] and not ran.exists()
    assert "+2" in wg.diff(None, ["a.md"]) and not ran.exists()
    user_git(wg.root, "status", "--porcelain")  # git itself, as the user runs it, does run it
    assert ran.exists()


def test_a_folder_or_file_gone_from_the_working_tree_is_still_asked_about_by_path(wg, monkeypatch):
    """A person's folder deleted by hand, a file renamed away: git is told
    that the name is a path (after --), not a commit it cannot find."""
    import shutil

    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = commit_files(wg, {"people/rob/PROFILE.md": "p\n", "people/rob/MEMORY.md": "m\n"}, "add(rob): new person")
    shutil.rmtree(wg.root / "people/rob")
    assert wg.changed_from_head("people/rob") == {"people/rob/PROFILE.md", "people/rob/MEMORY.md"}
    assert wg.file_messages("people/rob/PROFILE.md") == [(a, 1709287200, "add(rob): new person\n")]
    assert wg.file_commits("people/rob/PROFILE.md", 5) == [a]
    assert [sha for sha, *_ in wg.changes_under("people/rob")] == [a]


def test_blame_reads_heads_lines_even_when_the_file_is_changed_or_gone_from_the_working_tree(wg):
    """The user's own lines are told from ours by what HEAD holds: an
    uncommitted edit, or the file deleted, changes nothing blame says."""
    commit_files(wg, {"p.md": "one\ntwo\n"}, "add(a): new person")
    write_file(wg, "p.md", "one\nan edit not committed\n")
    assert wg.blame("p.md") == [("add(a): new person", "one"), ("add(a): new person", "two")]
    (wg.root / "p.md").unlink()
    assert wg.blame("p.md") == [("add(a): new person", "one"), ("add(a): new person", "two")]


def test_blame_names_each_lines_own_commit_when_an_older_one_comes_back_below(wg):
    """Porcelain output names a commit's subject only the first time: a
    later line of that older commit still gets its own subject."""
    commit_files(wg, {"p.md": "one\ntwo\nthree\n"}, "add(a): new person")
    commit_files(wg, {"p.md": "one\nTWO\nthree\n"}, "edit(a): by hand")
    assert wg.blame("p.md") == [("add(a): new person", "one"), ("edit(a): by hand", "TWO"),
                                ("add(a): new person", "three")]


# -- names and messages git's own listing would cut or take for options ------------------------------------------

def _hand_commit(wg: WorkspaceGit, files: dict[str, str], message: str) -> str:
    """A commit the user made with git itself, its message kept verbatim."""
    for rel, text in files.items():
        write_file(wg, rel, text)
    user_git(wg.root, "add", "--", *files)
    user_git(wg.root, "commit", "-q", "--cleanup=verbatim", "-F", "-", stdin=message)
    return user_git(wg.root, "rev-parse", "HEAD").strip()


def test_a_file_whose_name_starts_with_a_dash_is_read_back_by_every_history_question(wg):
    """A name such as "-notes.md" is a path to git, never an option: blame,
    diffs, blobs, the commits before, what each commit touched and added,
    and the ignore check answer for it as for any other file."""
    first = commit_files(wg, {"-d/-a.md": "one\n", "other.md": "o\n", ".gitignore": "*.tmp\n"}, "add(d): one")
    second = commit_files(wg, {"-d/-a.md": "one\nstage: two\n", "other.md": "o2\n"}, "garden(d): two")
    write_file(wg, "-d/-a.md", "one\nstage: two\nby hand\n")
    write_file(wg, "-d/-x.tmp", "scratch\n")
    write_file(wg, "elsewhere.tmp", "scratch\n")
    assert wg.blame("-d/-a.md") == [("add(d): one", "one"), ("garden(d): two", "stage: two")]
    working = wg.diff(None, ["-d/-a.md"])
    assert "+by hand" in working and "o2" not in working
    then = wg.diff(first, ["-d/-a.md"])
    assert "+stage: two" in then and "+o2" not in then  # only the files asked about
    assert wg.tree_blobs("-d") == {"-d/-a.md": user_git(wg.root, "rev-parse", "HEAD:-d/-a.md").strip()}
    assert wg.working_blob_ids(["-d/-a.md"]) == {
        "-d/-a.md": user_git(wg.root, "hash-object", "--", "-d/-a.md").strip()}
    assert wg.messages_before(second, ["-d/-a.md"]) == ["add(d): one\n"]
    assert wg.touched(["-d/-a.md"]) == [(second, "garden(d): two", ["-d/-a.md"], []),
                                        (first, "add(d): one", ["-d/-a.md"], [])]
    assert [(sha, path, line) for sha, _, _, path, line in wg.lines_added(["-d/-a.md"], "^stage:")] == [
        (second, "-d/-a.md", "stage: two")]
    assert wg.ignored(["-d"]) == ["-d/-x.tmp"]  # and not elsewhere.tmp: only under the paths asked
    assert wg.ignored(["."]) == ["-d/-x.tmp", "elsewhere.tmp"]


def test_what_each_commit_touched_is_read_whole_whatever_its_subject_or_file_names(wg):
    """A hand commit's subject that starts with a space or holds git's unit
    separator, a file name ending in a space or an X: each is read back as
    it is, never cut or trimmed."""
    a = _hand_commit(wg, {"odd/ends with space ": "1\n", "odd/endsX": "1\n"}, " indented\x1fand separated")
    b = _hand_commit(wg, {"odd/endsX": "2\n"}, "Xsubject")
    assert wg.touched(["odd"]) == [(b, "Xsubject", ["odd/endsX"], []),
                                   (a, " indented\x1fand separated", ["odd/ends with space ", "odd/endsX"], [])]


def test_a_rename_is_found_by_touched_even_when_the_users_config_turns_rename_detection_off(wg):
    """diff.renames=false in the user's config must not turn a rename into
    a delete and an add: the hand lines of a renamed file follow it."""
    text = "name: Rob\n" + "a line that stays\n" * 5
    commit_files(wg, {"people/rob/PROFILE.md": text}, "add(rob): new person")
    user_git(wg.root, "config", "diff.renames", "false")
    write_file(wg, "people/bob/PROFILE.md", text)
    (wg.root / "people/rob/PROFILE.md").unlink()
    b = wg.commit(["people/rob/PROFILE.md", "people/bob/PROFILE.md"], "rename(bob): from rob")
    assert wg.touched([":(glob)people/*/PROFILE.md"])[0] == (
        b, "rename(bob): from rob", ["people/bob/PROFILE.md"], ["people/bob/PROFILE.md"])


def test_lines_added_are_read_whatever_the_users_color_setting_the_subject_or_a_quoted_name(wg):
    """color.diff=always in the user's config, a subject holding git's unit
    separator or starting with a space, a file name git quotes (a tab in
    it): every added line is still found, in its file, under its subject."""
    user_git(wg.root, "config", "color.diff", "always")
    user_git(wg.root, "config", "color.ui", "always")
    a = _hand_commit(wg, {"people/a/PROFILE.md": "relation: friend\n"}, " by hand\x1fodd")
    b = _hand_commit(wg, {"people/a\tb/PROFILE.md": "relation: sister\n"}, "tab")
    found = wg.lines_added([":(glob)people/*/PROFILE.md"], "^relation: ")
    assert [(sha, subject, path, line) for sha, _, subject, path, line in found] == [
        (a, " by hand\x1fodd", "people/a/PROFILE.md", "relation: friend"),
        (b, "tab", "people/a\tb/PROFILE.md", "relation: sister")]


def test_a_message_holding_a_record_separator_then_a_false_header_is_an_error(wg):
    """A hand message with git's record separator followed by something
    shaped like "<not a sha> <digits>" is refused, never read as a commit."""
    commit_files(wg, {"a.md": "1\n"}, "one")
    _hand_commit(wg, {"b.md": "2\n"}, "by hand\n\n\x1enot-a-sha-at-all 1700000000\nrest\n")
    with pytest.raises(GitError) as refused:
        wg.commit_messages()
    assert refused.value.message == "git log could not be read at 'not-a-sha-at'."  # its first 12 characters


def test_a_working_diff_is_against_head_so_a_staged_change_shows_too(wg):
    """The user staged an edit by hand (git add): it is still an edit
    against what was committed, and shows in the diff."""
    commit_files(wg, {"a.md": "one\n"}, "first")
    write_file(wg, "a.md", "two\n")
    user_git(wg.root, "add", "a.md")
    working = wg.diff(None, ["a.md"])
    assert "-one" in working and "+two" in working


def test_changes_of_is_only_the_commits_asked_about(wg):
    a = commit_files(wg, {"a.md": "1\n"}, "one")
    b = commit_files(wg, {"b.md": "1\n"}, "two")
    c = commit_files(wg, {"c.md": "1\n"}, "three")
    assert wg.changes_of([c, a]) == {c: [("A", "c.md", "")], a: [("A", "a.md", "")]}
    assert b not in wg.changes_of([c])


def test_log_shows_the_last_fifty_commits_unless_asked_for_more(wg):
    for n in range(51):
        user_git(wg.root, "commit", "-q", "--allow-empty", "-m", f"c{n}")
    commits = wg.log()
    assert len(commits) == 50 and commits[0].subject == "c50" and commits[-1].subject == "c1"
    assert len(wg.log(limit=60)) == 51


def test_a_file_renamed_whole_shows_its_lines_as_added_under_its_new_name(wg):
    """Each file's lines are read on their own (no rename detection): after
    `person rename` the relation line is found in the new name's file, in
    the rename commit, so the new name's history starts with it."""
    a = commit_files(wg, {"people/rob/PROFILE.md": "name: Rob\nrelation: friend\n"}, "add(rob): new person")
    user_git(wg.root, "config", "diff.renames", "true")
    user_git(wg.root, "mv", "people/rob", "people/bob")
    b = wg.commit(["people/rob", "people/bob"], "rename(bob): from rob")
    found = wg.lines_added([":(glob)people/*/PROFILE.md"], "^relation:")
    assert [(sha, path, line) for sha, _, _, path, line in found] == [
        (a, "people/rob/PROFILE.md", "relation: friend"), (b, "people/bob/PROFILE.md", "relation: friend")]
