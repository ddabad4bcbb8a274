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
    root.mkdir(parents=True)
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


def _log(day: str, *entries: str) -> str:
    """A day's log as HeartCompass writes it; each entry "HH:MM · speaker · text"."""
    return f"---\ndate: {day}\n---\n\n" + "".join(f"- {e}\n" for e in entries)


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
        lines += ["commit refs/heads/main", f"mark :{n}", "committer U <u@x> 1700000000 +0000",
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
    ('"b/people/小明\\tx.md"', "b/people/小明\tx.md"),
    ('"b/people/\\345\\260\\217\\346\\230\\216/PROFILE.md"', "b/people/小明/PROFILE.md"),
    ('"b/a\\"b.md"', 'b/a"b.md'),
    ("b/plain.md", "b/plain.md"),
    ('"b/x.md', '"b/x.md'),
])
def test_a_path_git_quoted_in_a_diff_header_is_read_back(quoted, plain):
    """git quotes a name with a tab, a quote or a backslash in it, and with
    core.quotepath=false leaves its other characters (小明) as they are."""
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
    assert none.value.hint == ("Its history starts on 2024-03-01: pick that day or later (YYYY-MM-DD), or a commit "
                               "from 'heartcompass log'.")


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


# -- commits of exactly the files named (gitrepo.py) ---------------------------------------------------------------

def _plain_tree(tmp_path: Path, files: dict[str, str], name: str = "plain") -> str:
    """The tree id git itself makes of these files (git add, write-tree)."""
    root = tmp_path / name
    root.mkdir()
    _git(root, "init", "-q")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    _git(root, "add", "-A")
    return _git(root, "write-tree").strip()


def test_commit_contents_builds_the_same_tree_git_would_in_gits_order(wg, tmp_path):
    """The tree written in-process is byte for byte git's own (names sorted
    as git sorts them, a folder as "name/"): else fsck, clones and every
    later diff would see a broken tree."""
    before = {"a.b": "1\n", "a0": "2\n", "people/b/PROFILE.md": "p\n", "z.md": "z\n"}
    _commit(wg, before, "one")
    texts = {"a/x.md": "new folder between a.b and a0\n", "people/a/PROFILE.md": "new person first\n",
             "people/b/PROFILE.md": "changed\n", "0.md": "a new first name\n"}
    sha = wg.commit_contents(texts, "garden(b): 1 fact", "- the body")
    assert sha == wg.head()
    assert _git(wg.root, "rev-parse", "HEAD^{tree}").strip() == _plain_tree(tmp_path, {**before, **texts})
    _git(wg.root, "fsck", "--strict", "--no-dangling")
    assert _git(wg.root, "log", "-1", "--format=%B") == "garden(b): 1 fact\n\n- the body\n\n"
    assert _git(wg.root, "reflog", "-1", "--format=%gs").strip() == "commit: garden(b): 1 fact"
    assert _git(wg.root, "rev-parse", "HEAD~1").strip() == wg.rev_list()[1]


def test_a_file_that_becomes_a_folder_is_written_in_gits_order(wg, tmp_path):
    _commit(wg, {"a": "was a file\n", "a.b": "1\n"}, "one")
    (wg.root / "a").unlink()
    assert wg.commit_contents({"a/x.md": "x\n"}, "two")
    assert _git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["a.b", "a/x.md"]
    _git(wg.root, "fsck", "--strict", "--no-dangling")


def test_commit_contents_commits_the_texts_given_and_leaves_a_hand_edit_pending(wg):
    """The commit holds the texts given, whatever the working file holds:
    the user's edit saved meanwhile stays uncommitted, for its own commit,
    and the index follows HEAD (a plain `git commit` would not undo ours)."""
    _commit(wg, {"people/a/MEMORY.md": "one\n", "other.md": "o\n"}, "one")
    _write(wg, "people/a/MEMORY.md", "one\nmine, by hand\n")
    _write(wg, "other.md", "staged by the user\n")
    _git(wg.root, "add", "other.md")
    assert wg.commit_contents({wg.root / "people/a/MEMORY.md": "one\nours\n"}, "garden(a): 1 fact")
    assert _git(wg.root, "show", "HEAD:people/a/MEMORY.md") == "one\nours\n"
    assert (wg.root / "people/a/MEMORY.md").read_text(encoding="utf-8") == "one\nmine, by hand\n"
    assert _git(wg.root, "show", "--name-only", "--format=", "HEAD").split() == ["people/a/MEMORY.md"]
    assert _git(wg.root, "diff", "--cached", "--name-only").split() == ["other.md"]  # the user's staging kept
    assert wg.status(["people"]) == [("M", "people/a/MEMORY.md")]


def test_commit_contents_of_what_head_holds_makes_no_commit(wg):
    _commit(wg, {"a.md": "same\n"}, "one")
    head = wg.head()
    assert wg.commit_contents({"a.md": "same\n"}, "nothing") is None
    assert wg.commit_contents({}, "nothing") is None
    assert wg.head() == head


def test_commit_contents_keeps_an_executable_files_mode_and_never_commits_a_link(wg):
    _commit(wg, {"run.sh": "echo\n", "target.md": "t\n"}, "one")
    (wg.root / "run.sh").chmod(0o755)
    (wg.root / "link.md").symlink_to("target.md")
    _git(wg.root, "add", "run.sh", "link.md")
    _git(wg.root, "commit", "-q", "-m", "by hand")
    assert wg.commit_contents({"run.sh": "echo 2\n", "link.md": "now a text\n"}, "two")
    modes = {line.split("\t")[1]: line.split()[0] for line in _git(wg.root, "ls-tree", "HEAD").splitlines()}
    assert modes == {"link.md": "100644", "run.sh": "100755", "target.md": "100644"}


def _hook(wg: WorkspaceGit, name: str, script: str, folder: Path | None = None) -> Path:
    hooks = folder or wg.root / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / name
    hook.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    hook.chmod(0o755)
    return hook


def test_a_commit_hook_of_the_users_runs_on_commit_contents_and_what_it_refuses_is_not_committed(wg):
    _commit(wg, {"a.md": "one\n"}, "one")
    _hook(wg, "pre-commit", "echo ran >> hook-ran.txt\n")
    assert wg.commit_hooks() == ["pre-commit"]
    assert wg.commit_contents({"a.md": "two\n"}, "two", "the body")
    assert (wg.root / "hook-ran.txt").read_text() == "ran\n"
    assert _git(wg.root, "log", "-1", "--format=%B") == "two\n\nthe body\n\n"
    assert wg.commit_contents({"a.md": "two\n"}, "again") is None  # HEAD holds it: no commit, no hook
    assert (wg.root / "hook-ran.txt").read_text() == "ran\n"
    _hook(wg, "pre-commit", "echo refused >&2; exit 1\n")
    head = wg.head()
    with pytest.raises(GitError) as refused:
        wg.commit_contents({"a.md": "three\n"}, "three")
    assert "git commit failed" in refused.value.message and "refused" in refused.value.message
    assert wg.head() == head and not list((wg.root / ".git").glob("heartcompass-index*"))


def test_git_hooks_off_means_no_hook_of_the_users_runs_on_any_commit(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    wg = WorkspaceGit(root, hooks=lambda: False)
    wg.init()
    _hook(wg, "pre-commit", "exit 1\n")
    _hook(wg, "commit-msg", "exit 1\n")
    assert wg.commit_hooks() == [] and wg._verify() == ["--no-verify"]
    assert _commit(wg, {"a.md": "one\n"}, "one")
    assert wg.commit_contents({"a.md": "two\n"}, "two")
    assert [c.subject for c in wg.log()] == ["two", "one"]


def test_the_first_commit_of_a_workspace_can_be_made_from_texts(wg):
    _write(wg, "b.md", "untouched\n")
    assert wg.commit_contents({"people/a/PROFILE.md": "p\n"}, "add(a): new person")
    assert _git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["people/a/PROFILE.md"]
    assert sorted(wg.status()) == [("??", "b.md"), ("D", "people/a/PROFILE.md")]  # the index follows the commit


def test_commit_hooks_are_found_where_core_hookspath_says_and_only_when_runnable(wg, tmp_path):
    _hook(wg, "commit-msg", "exit 0\n")
    (wg.root / ".git/hooks/pre-commit").write_text("#!/bin/sh\n", encoding="utf-8")  # not executable: git skips it
    assert wg.commit_hooks() == ["commit-msg"]
    _hook(wg, "post-commit", "exit 0\n", folder=wg.root / "my-hooks")
    _git(wg.root, "config", "core.hooksPath", "my-hooks")
    assert WorkspaceGit(wg.root).commit_hooks() == ["post-commit"]
    home_hooks = Path.home() / "hooks"
    _hook(wg, "prepare-commit-msg", "exit 0\n", folder=home_hooks)
    _git(wg.root, "config", "core.hooksPath", "~/hooks")
    assert WorkspaceGit(wg.root).commit_hooks() == ["prepare-commit-msg"]


@pytest.mark.parametrize("value, signs", [("true", True), ("yes", True), ("on", True), ("1", True), ("TRUE", True),
                                          ("false", False), ("0", False), ("off", False)])
def test_signing_is_on_for_each_way_git_spells_true(wg, value, signs):
    assert wg._signs() is False
    _git(wg.root, "config", "commit.gpgsign", value)
    assert WorkspaceGit(wg.root)._signs() is signs


def test_commit_commits_exactly_the_paths_named_and_their_deletions(wg):
    _commit(wg, {"a.md": "1\n", "b.md": "1\n", "c.md": "1\n"}, "one")
    _write(wg, "a.md", "2\n")
    (wg.root / "b.md").unlink()
    _write(wg, "c.md", "2\n")
    _git(wg.root, "add", "c.md")  # staged by the user: not ours to commit
    sha = wg.commit([wg.root / "a.md", "b.md"], "two", "  the body  ")
    assert sha == wg.head()
    assert sorted(_git(wg.root, "show", "--name-status", "--format=", "HEAD").splitlines()) == ["D\tb.md", "M\ta.md"]
    assert _git(wg.root, "log", "-1", "--format=%B") == "two\n\nthe body\n\n"
    assert _git(wg.root, "diff", "--cached", "--name-only").split() == ["c.md"]
    assert wg.commit(["a.md"], "nothing changed") is None and wg.commit([], "none") is None
    assert wg.head() == sha


def test_a_commit_git_refuses_leaves_the_files_and_the_index_as_they_were(wg):
    _commit(wg, {"a.md": "1\n"}, "one")
    _hook(wg, "pre-commit", "echo no >&2; exit 1\n")
    _write(wg, "a.md", "2\n")
    _write(wg, "new.md", "n\n")
    with pytest.raises(GitError) as refused:
        wg.commit(["a.md", "new.md"], "two")
    assert refused.value.message.startswith("git commit failed: ") and "no" in refused.value.message
    assert _git(wg.root, "diff", "--cached", "--name-only") == ""
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "new.md").read_text() == "n\n"


def test_a_first_commit_takes_only_the_paths_named(wg):
    _write(wg, "a.md", "1\n")
    _write(wg, "b.md", "1\n")
    assert wg.commit(["a.md"], "first")
    assert _git(wg.root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["a.md"]


def test_a_global_ignore_rule_never_leaves_our_file_uncommitted(wg):
    ignore = Path.home() / "global-ignore"
    ignore.write_text("*.md\n", encoding="utf-8")
    _git(wg.root, "config", "core.excludesFile", str(ignore))
    assert _commit(wg, {"a.md": "1\n", "b.txt": "2\n"}, "one")
    assert _git(wg.root, "ls-tree", "--name-only", "HEAD").split() == ["a.md", "b.txt"]


def test_a_symbolic_link_is_never_committed_and_the_error_says_where_it_points(wg, tmp_path):
    from heartcompass.errors import UnsafePathError

    _commit(wg, {"a.md": "1\n"}, "one")
    outside = tmp_path / "secret.md"
    outside.write_text("s\n", encoding="utf-8")
    (wg.root / "people").mkdir()
    (wg.root / "people/link.md").symlink_to(outside)
    _write(wg, "a.md", "2\n")
    with pytest.raises(UnsafePathError) as refused:
        wg.commit(["a.md", "people/link.md"], "two")
    said = str(refused.value)
    assert "is a symbolic link to" in said and "(outside the workspace)" in said and str(outside) in said
    assert refused.value.problem.endswith("; HeartCompass commits no link (sync would spread it), so nothing was "
                                          "committed")
    assert _git(wg.root, "diff", "--cached", "--name-only").split() == ["a.md"]  # the link unstaged, a.md not
    (wg.root / "people/inside.md").symlink_to(wg.root / "a.md")
    with pytest.raises(UnsafePathError) as inside:
        wg.commit(["people/inside.md"], "three")
    assert "(inside the workspace)" in str(inside.value)


def test_a_commit_carries_the_users_identity_when_git_has_one_else_heartcompasss(wg):
    _commit(wg, {"a.md": "1\n"}, "one")
    assert _git(wg.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip() == (
        "HeartCompass <heartcompass@localhost>|HeartCompass <heartcompass@localhost>")
    _git(wg.root, "config", "user.name", "Ada")
    mine = WorkspaceGit(wg.root)
    assert _commit(mine, {"a.md": "2\n"}, "two")
    assert _git(wg.root, "log", "-1", "--format=%an <%ae>").strip() == "Ada <heartcompass@localhost>"
    _git(wg.root, "config", "user.email", "ada@example.com")
    both = WorkspaceGit(wg.root)
    assert _commit(both, {"a.md": "3\n"}, "three")
    assert _git(wg.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip() == (
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
    _git(wg.root, "config", "filter.crypt.clean", "touch CLEAN-RAN")
    _git(wg.root, "config", "filter.crypt.required", "true")
    _git(wg.root, "config", "diff.pdf.textconv", "touch TEXTCONV-RAN")
    _git(wg.root, "config", "user.name", "not a program")
    options = wg.reading_options()
    assert options == ("-c", "diff.pdf.textconv=", "-c", "filter.crypt.clean=", "-c", "filter.crypt.required=false")
    _git(wg.root, "config", "diff.other.command", "x")
    assert wg.reading_options() == options  # read once per process
    assert WorkspaceGit(wg.root).reading_options()[:2] == ("-c", "diff.other.command=")
    other = wg.root.parent / "other"
    assert _repo(other).reading_options() == ()


def test_blob_ids_are_heads_blobs_of_the_files_asked_and_none_for_folders_or_absent_files(wg):
    _commit(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n", "x.md": "x\n"}, "one")
    ids = wg.blob_ids(["people/a/PROFILE.md", wg.root / "x.md", "people/a/logs", "people/a/GONE.md",
                       "nowhere/a.md", "people/a/PROFILE.md/x", "people/a/logs/2024-01-01.md"])
    assert ids == {rel: _git(wg.root, "rev-parse", f"HEAD:{rel}").strip()
                   for rel in ("people/a/PROFILE.md", "x.md", "people/a/logs/2024-01-01.md")}


def test_resolve_names_a_missing_commit_with_where_to_look(wg):
    sha = _commit(wg, {"a.md": "1\n"}, "one")
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
    assert wg.is_repo() and _git(tmp_path, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_git_variables_pointing_elsewhere_are_dropped(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "index"))
    import os

    wg = WorkspaceGit(tmp_path / "repo")
    assert "GIT_DIR" not in os.environ and "GIT_INDEX_FILE" not in os.environ
    (tmp_path / "repo").mkdir()
    wg.init()
    assert _commit(wg, {"a.md": "1\n"}, "one") and (tmp_path / "repo/.git").is_dir()


def test_move_is_a_git_mv(wg):
    _commit(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    wg.move(wg.root / "people/a", wg.root / "people/b")
    assert wg.status() == [("R", "people/b/PROFILE.md"), ("D", "people/a/PROFILE.md")]


# -- may a commit be made now? (gitstate.py) ------------------------------------------------------------------------

def _committed(tmp_path: Path) -> WorkspaceGit:
    wg = _repo(tmp_path)
    _commit(wg, {"a.md": "1\n"}, "one")
    return wg


@pytest.mark.parametrize("made, words", [
    ("rebase-merge/", "git is in the middle of a rebase: finish it with 'git rebase --continue' or go back with "
                      "'git rebase --abort'."),
    ("rebase-apply/", "git is in the middle of a rebase"),
    ("MERGE_HEAD", "git is in the middle of a merge: finish it with 'git commit' or go back with 'git merge --abort'."),
    ("CHERRY_PICK_HEAD", "git is in the middle of a cherry-pick: finish it with 'git cherry-pick --continue' or go "
                         "back with 'git cherry-pick --abort'."),
    ("REVERT_HEAD", "git is in the middle of a revert: finish it with 'git revert --continue' or go back with "
                    "'git revert --abort'."),
])
def test_each_unfinished_git_operation_is_named_with_its_fix(tmp_path, made, words):
    wg = _committed(tmp_path)
    assert wg.state_problem() is None
    where = wg.git_dir / made.rstrip("/")
    where.mkdir() if made.endswith("/") else where.write_text(wg.head() + "\n")
    assert words in wg.state_problem()
    with pytest.raises(GitError) as refused:
        wg.check_writable()
    assert words in refused.value.message


def test_a_stopped_sync_is_named_as_ours_and_the_mark_goes_once_the_rebase_does(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    wg = _committed(tmp_path)
    (wg.git_dir / "rebase-merge").mkdir()
    (wg.git_dir / "rebase-merge/head-name").write_text("refs/heads/work\n")
    (wg.git_dir / SYNC_MARK).write_text("origin main\n")
    assert wg.rebase_in_progress() and wg.rebased_branch() == "work"
    assert wg.state_problem() == ("A 'heartcompass sync' conflict is still being resolved: fix the marked files, "
                                  "then run 'heartcompass sync --continue' (or 'heartcompass sync --abort' to go back).")
    (wg.git_dir / "rebase-merge/head-name").unlink()
    (wg.git_dir / "rebase-merge").rmdir()
    (wg.git_dir / "rebase-apply").mkdir()
    (wg.git_dir / "rebase-apply/head-name").write_text("refs/heads/other\n")
    assert wg.rebased_branch() == "other" and "heartcompass sync" in wg.state_problem()
    (wg.git_dir / "rebase-apply/head-name").unlink()
    assert wg.rebased_branch() == "main"
    (wg.git_dir / "rebase-apply").rmdir()
    assert not wg.rebase_in_progress()
    assert wg.state_problem() is None and not (wg.git_dir / SYNC_MARK).exists()


def test_an_undo_killed_mid_revert_is_ours_and_taken_back_by_the_next_writer(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = _committed(tmp_path)
    _commit(wg, {"a.md": "2\n", "b.md": "b\n"}, "two")
    _write(wg, "mine.md", "the user's own file\n")
    _git(wg.root, "revert", "--no-commit", "HEAD")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    assert wg.state_problem() == ("A 'heartcompass undo' was interrupted; the next command that writes takes it back "
                                  "(nothing was committed), or run: heartcompass undo again.")
    wg.check_writable()
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert (wg.root / "a.md").read_text() == "2\n" and (wg.root / "b.md").exists()
    assert (wg.root / "mine.md").read_text() == "the user's own file\n"


def test_a_revert_the_user_started_is_theirs_and_a_stray_undo_mark_is_cleared(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = _committed(tmp_path)
    _commit(wg, {"a.md": "2\n"}, "two")
    (wg.git_dir / UNDO_MARK).write_text("x\n")
    wg.check_writable()  # no revert in progress: the mark alone is stale
    assert not (wg.git_dir / UNDO_MARK).exists()
    _git(wg.root, "revert", "--no-commit", "HEAD")
    with pytest.raises(GitError) as refused:
        wg.check_writable()
    assert "git is in the middle of a revert" in refused.value.message
    assert (wg.git_dir / "REVERT_HEAD").exists()  # left to the user


def test_a_detached_head_names_the_branch_to_go_back_to(tmp_path):
    wg = _committed(tmp_path)
    sha = wg.head()
    _git(wg.root, "checkout", "-q", "--detach")
    assert wg.state_problem() == (f"git is on a detached HEAD (commit {sha[:8]}), not a branch: "
                                  "go back with: git checkout main")
    _git(wg.root, "branch", "-m", "main", "mine")
    assert wg.state_problem().endswith("go back with: git checkout mine")  # the only branch there is
    _git(wg.root, "branch", "other")
    assert wg.state_problem().endswith("go back with: git checkout main")  # several: main is the guess


def test_an_orphan_branch_without_our_history_is_refused_but_a_fresh_repository_is_not(tmp_path):
    fresh = _repo(tmp_path / "fresh")
    assert fresh.state_problem() is None
    wg = _committed(tmp_path)
    _git(wg.root, "checkout", "-q", "--orphan", "empty")
    assert wg.state_problem() == ("git is on branch 'empty', which has no commits and none of this workspace's "
                                  "history (git checkout --orphan?): go back with: git checkout main")


def test_a_branch_whose_commits_are_in_packed_refs_is_a_branch(tmp_path):
    wg = _committed(tmp_path)
    _git(wg.root, "tag", "-a", "v1", "-m", "an annotated tag: packed with a peeled line of its own")
    _git(wg.root, "pack-refs", "--all")
    assert not (wg.git_dir / "refs/heads/main").exists()
    assert wg.state_problem() is None
    _git(wg.root, "checkout", "-q", "--orphan", "empty")
    assert "which has no commits" in wg.state_problem()
    assert wg._packed_refs() == ["refs/heads/main", "refs/tags/v1"]


def test_a_stale_index_lock_is_named_with_the_command_that_removes_it(tmp_path):
    wg = _committed(tmp_path)
    assert wg.index_lock_problem(settle=0) is None
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    problem = wg.index_lock_problem(settle=0)
    assert problem == (f"A stale {lock} is left by a git command that was killed (no git process is running): "
                       f"remove it with: rm {lock}")
    assert wg.index_lock_error().message == problem
    with pytest.raises(GitError) as refused:
        wg._git("add", "a.md")
    assert refused.value.message == problem
    lock.unlink()
    assert wg.index_lock_error().message == "git found an index.lock; try again."


def test_doctor_can_tell_when_no_commit_can_be_made(tmp_path):
    wg = _committed(tmp_path)
    assert wg.commit_problem() is None
    _git(wg.root, "config", "commit.gpgsign", "true")
    _git(wg.root, "config", "gpg.program", "false")
    problem = WorkspaceGit(wg.root).commit_problem()
    assert problem and problem.startswith("commit.gpgsign is on and signing fails (")
    fresh = _repo(tmp_path / "fresh")
    _git(fresh.root, "config", "commit.gpgsign", "true")
    _git(fresh.root, "config", "gpg.program", "false")
    assert fresh.commit_problem() is None  # nothing to sign yet: the first commit will say


def test_a_repository_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    """A backup or a mounted snapshot: doctor says no commit can be made, and why."""
    wg = _committed(tmp_path)

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("tempfile.NamedTemporaryFile", read_only)
    assert wg.commit_problem() == "the repository cannot be written (Read-only file system)"


def test_conflicted_files_are_listed_by_name(tmp_path):
    wg = _committed(tmp_path)
    _git(wg.root, "checkout", "-q", "-b", "side")
    _commit(wg, {"a.md": "side\n", "小明.md": "side\n"}, "side")
    _git(wg.root, "checkout", "-q", "main")
    _commit(wg, {"a.md": "main\n", "小明.md": "main\n"}, "main")
    subprocess.run(["git", "-c", "user.name=U", "-c", "user.email=u@x", "merge", "-q", "side"], cwd=wg.root,
                   capture_output=True)
    assert wg.conflicted() == ["a.md", "小明.md"]
    assert "merge" in wg.state_problem()


# -- the real index, held while HEAD moves (gitindex.py) -------------------------------------------------------------

def test_a_held_index_replaces_the_index_only_on_a_clean_exit_and_always_lets_go_of_the_lock(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").write_bytes(b"old")
    busy = GitError("busy")
    with HeldIndex(tmp_path, lambda: busy, settle=0) as held:
        assert (tmp_path / "index.lock").exists() and held.copy.read_bytes() == b"old"
        held.copy.write_bytes(b"new")
    assert (tmp_path / "index").read_bytes() == b"new"
    assert not (tmp_path / "index.lock").exists() and not held.copy.exists()
    with pytest.raises(RuntimeError):
        with HeldIndex(tmp_path, lambda: busy, settle=0) as held:
            held.copy.write_bytes(b"half")
            raise RuntimeError("git failed")
    assert (tmp_path / "index").read_bytes() == b"new"
    assert not (tmp_path / "index.lock").exists() and not held.copy.exists()


def test_an_index_lock_someone_else_holds_refuses_before_anything_moves(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").write_bytes(b"theirs")
    (tmp_path / "index.lock").write_bytes(b"held")
    with pytest.raises(GitError) as refused:
        with HeldIndex(tmp_path, lambda: GitError("busy here"), settle=0):
            raise AssertionError("entered")
    assert refused.value.message == "busy here"
    assert (tmp_path / "index.lock").read_bytes() == b"held" and (tmp_path / "index").read_bytes() == b"theirs"


def test_a_held_index_without_an_index_yet_makes_none_unless_written(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    with HeldIndex(tmp_path, lambda: GitError("busy"), settle=0) as held:
        assert not held.copy.exists()
    assert not (tmp_path / "index").exists() and not (tmp_path / "index.lock").exists()


# -- putting files back (gitrollback.py) ----------------------------------------------------------------------------

def test_a_roll_back_puts_tracked_files_back_removes_ours_and_never_touches_logs_or_dot_files(tmp_path):
    wg = _committed(tmp_path)
    _commit(wg, {"people/a/PROFILE.md": "p\n", "people/a/logs/2024-01-01.md": "l\n"}, "two")
    _write(wg, "people/a/PROFILE.md", "changed\n")
    _write(wg, "people/a/logs/2024-01-01.md", "l\nappended by a chat\n")
    _write(wg, "people/a/logs/2024-01-02.md", "a new day's log\n")
    _write(wg, "people/a/.PROFILE.md.swp", "an editor's\n")
    _write(wg, "people/b/PROFILE.md", "a new person\n")
    _write(wg, "people/b/sub/deeper/x.md", "x\n")
    _git(wg.root, "add", "people/b/PROFILE.md")
    (wg.root / "people/a/gone-folder").mkdir()
    wg.roll_back([wg.root / "people/a", "people/b"])
    assert (wg.root / "people/a/PROFILE.md").read_text() == "p\n"
    assert (wg.root / "people/a/logs/2024-01-01.md").read_text() == "l\nappended by a chat\n"
    assert (wg.root / "people/a/logs/2024-01-02.md").exists() and (wg.root / "people/a/.PROFILE.md.swp").exists()
    assert not (wg.root / "people/b").exists() and not (wg.root / "people/a/gone-folder").exists()
    assert _git(wg.root, "diff", "--cached", "--name-only") == ""
    wg.roll_back([])


def test_a_roll_back_brings_back_a_deleted_file_and_its_folder(tmp_path):
    wg = _committed(tmp_path)
    _commit(wg, {"people/a/PROFILE.md": "p\n\n"}, "two")
    (wg.root / "people/a/PROFILE.md").unlink()
    (wg.root / "people/a").rmdir()
    wg.roll_back(["people/a/PROFILE.md"])
    assert (wg.root / "people/a/PROFILE.md").read_text() == "p\n\n"


def test_a_roll_back_before_the_first_commit_removes_what_we_made(tmp_path):
    wg = _repo(tmp_path)
    _write(wg, "people/a/PROFILE.md", "p\n")
    _git(wg.root, "add", "-A")
    wg.roll_back(["people/a"])
    assert not (wg.root / "people").exists() or not any((wg.root / "people").iterdir())
    assert _git(wg.root, "status", "--porcelain") == ""


@pytest.mark.parametrize("rel, kept", [
    ("people/a/logs/2024-01-01.md", True), ("people/a/.x.swp", True), (".gitignore", True),
    ("people/a/MEMORY.md", False), ("people/a/logs", False), ("logs", False),
])
def test_logs_and_dot_files_are_never_taken_back(rel, kept):
    from heartcompass.store.gitrollback import _kept

    assert _kept(rel) is kept


def test_revert_takes_a_commit_back_as_a_new_commit(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = _committed(tmp_path)
    target = _commit(wg, {"a.md": "2\n"}, "two")
    sha = wg.revert(target, "undo: two", "  This reverts commit x.  ")
    assert sha == wg.head() and (wg.root / "a.md").read_text() == "1\n"
    assert _git(wg.root, "log", "-1", "--format=%B") == "undo: two\n\nThis reverts commit x.\n\n"
    assert not (wg.git_dir / UNDO_MARK).exists()


def test_a_revert_that_conflicts_is_abandoned_and_names_the_files(tmp_path):
    from heartcompass.store.gitrollback import RevertConflict
    from heartcompass.store.gitstate import UNDO_MARK

    wg = _committed(tmp_path)
    target = _commit(wg, {"a.md": "2\n"}, "two")
    head = _commit(wg, {"a.md": "3\n"}, "three")
    with pytest.raises(RevertConflict) as conflict:
        wg.revert(target, "undo: two", "")
    assert conflict.value.files == ["a.md"]
    assert conflict.value.message == "later changes touch the same lines of a.md"
    assert wg.head() == head and (wg.root / "a.md").read_text() == "3\n"
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()
    assert _git(wg.root, "status", "--porcelain") == ""


def test_a_revert_git_cannot_make_says_so_and_leaves_nothing_half_done(tmp_path):
    from heartcompass.store.gitstate import UNDO_MARK

    wg = _committed(tmp_path)
    _commit(wg, {"a.md": "2\n"}, "two")
    with pytest.raises(GitError) as refused:
        wg.revert("0" * 40, "undo", "")
    assert refused.value.message.startswith("That change cannot be undone: git revert failed")
    assert not (wg.git_dir / UNDO_MARK).exists()
    target = wg.head()
    _hook(wg, "pre-commit", "exit 1\n")
    with pytest.raises(GitError) as hooked:
        wg.revert(target, "undo: two", "")
    assert hooked.value.message.startswith("git commit failed")
    assert wg.head() == target and (wg.root / "a.md").read_text() == "2\n"
    assert not (wg.git_dir / "REVERT_HEAD").exists() and not (wg.git_dir / UNDO_MARK).exists()


# -- sync's git (gitremote.py) --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, seconds", [
    (None, 120.0), ("", 120.0), ("5", 5.0), ("0.5", 0.5), ("abc", 120.0), ("0", 120.0), ("-3", 120.0),
    ("86400", 120.0), ("86399", 86399.0),
])
def test_the_network_timeout_is_the_variable_when_it_is_a_sane_number(monkeypatch, value, seconds):
    from heartcompass.store.gitremote import network_timeout

    if value is None:
        monkeypatch.delenv("HEARTCOMPASS_GIT_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("HEARTCOMPASS_GIT_TIMEOUT", value)
    assert network_timeout() == seconds


# -- sync's git with a remote that is a folder here (no network) -----------------------------------------------------

def _bare(tmp_path: Path, name: str = "remote.git") -> Path:
    bare = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(bare)], check=True)
    return bare


def test_push_then_pull_with_rebase_carries_commits_between_two_clones(tmp_path):
    bare = _bare(tmp_path)
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", str(bare))
    assert one.remotes() == ["origin"] and one.branch() == "main"
    assert one.pull_rebase("origin", "main") == []  # the remote has no main yet: nothing to pull
    one.push("origin", "main")
    # a plain `git init --bare` remote's HEAD named master, which it does not have: now the branch pushed
    assert _git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    two = _repo(tmp_path / "two")
    assert two.adopt("origin", str(bare)) == "main"
    assert (two.root / "a.md").read_text() == "1\n" and two.branch() == "main"
    _commit(two, {"b.md": "from two\n"}, "two")
    two.push("origin", "main")
    _commit(one, {"c.md": "from one\n"}, "three")
    assert one.pull_rebase("origin", "main") == []
    assert [c.subject for c in one.log()] == ["three", "two", "one"]
    assert (one.root / "b.md").read_text() == "from two\n"


def test_a_remotes_head_on_a_branch_it_has_is_left_alone(tmp_path):
    bare = _bare(tmp_path)
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", f"file://{bare}")
    one.push("origin", "main")
    assert _git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"  # file:// too
    _git(one.root, "checkout", "-q", "-b", "other")
    one.push("origin", "other")
    assert _git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_the_same_days_log_from_two_devices_is_merged_and_a_real_conflict_is_left_marked_as_ours(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    bare = _bare(tmp_path)
    log = "people/a/logs/2024-01-01.md"
    start = _log("2024-01-01", "10:00:00 · me · hello")
    one = _repo(tmp_path / "one")
    _commit(one, {log: start, "people/a/MEMORY.md": "m\n"}, "one")
    _git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = _repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    _commit(two, {log: start + "- 11:00:00 · me · from two\n"}, "two's chat")
    two.push("origin", "main")
    _commit(one, {log: start + "- 12:00:00 · me · from one\n"}, "one's chat")
    assert one.pull_rebase("origin", "main") == []
    merged = (one.root / log).read_text(encoding="utf-8")
    assert "from two" in merged and "from one" in merged and "<<<<<<<" not in merged
    assert not one.rebase_in_progress()
    one.push("origin", "main")
    two.pull_rebase("origin", "main")
    _commit(two, {"people/a/MEMORY.md": "two's edit\n"}, "two's edit")
    two.push("origin", "main")
    _commit(one, {"people/a/MEMORY.md": "one's edit\n"}, "one's edit")
    assert one.pull_rebase("origin", "main") == ["people/a/MEMORY.md"]
    assert (one.git_dir / SYNC_MARK).read_text() == "origin main\n"
    assert "heartcompass sync --continue" in one.state_problem()
    _write(one, "people/a/MEMORY.md", "both\n")
    _write(one, "people/a/logs/2024-01-02.md", _log("2024-01-02", "09:00:00 · me · typed meanwhile"))
    changed, new = one.changed_in_worktree()
    assert set(changed) == {"people/a/MEMORY.md"} and new == ["people/a/logs/2024-01-02.md"]
    one.stage(["people/a/MEMORY.md"])
    assert one.rebase_continue() == []
    assert (one.root / "people/a/MEMORY.md").read_text() == "both\n" and not one.rebase_in_progress()


def test_a_stopped_rebase_can_be_abandoned_and_the_mark_goes_with_it(tmp_path):
    from heartcompass.store.gitstate import SYNC_MARK

    bare = _bare(tmp_path)
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = _repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    _commit(two, {"a.md": "two\n"}, "two")
    two.push("origin", "main")
    mine = _commit(one, {"a.md": "one\n"}, "mine")
    assert one.pull_rebase("origin", "main") == ["a.md"]
    assert one.rebase_continue() == ["a.md"]  # not fixed yet: still in conflict
    one.rebase_abort()
    assert not one.rebase_in_progress() and not (one.git_dir / SYNC_MARK).exists()
    assert one.head() == mine and (one.root / "a.md").read_text() == "one\n"


def test_adopting_a_remote_takes_its_heads_branch_else_main_else_its_only_one(tmp_path):
    bare = _bare(tmp_path)
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", str(bare))
    _git(one.root, "push", "-q", "origin", "main:work", "main:other")
    _git(bare, "symbolic-ref", "HEAD", "refs/heads/work")
    assert _repo(tmp_path / "a").adopt("origin", str(bare)) == "work"
    _git(bare, "symbolic-ref", "HEAD", "refs/heads/gone")
    with pytest.raises(GitError) as none:
        _repo(tmp_path / "b").adopt("origin", str(bare))
    assert none.value.message == f"{bare} has no HeartCompass workspace to copy: its branches are other, work, and none is main."
    assert none.value.hint == "Run 'heartcompass sync' on the device that has the workspace first."
    _git(one.root, "push", "-q", "origin", "main:master")
    assert _repo(tmp_path / "c").adopt("origin", str(bare)) == "master"
    _git(one.root, "push", "-q", "origin", "main:main")
    assert _repo(tmp_path / "d").adopt("origin", str(bare)) == "main"
    only = _bare(tmp_path, "only.git")
    _git(one.root, "push", "-q", str(only), "main:solo")
    assert _repo(tmp_path / "e").adopt("origin", str(only)) == "solo"
    empty = _bare(tmp_path, "empty.git")
    with pytest.raises(GitError) as nothing:
        _repo(tmp_path / "f").adopt("origin", str(empty))
    assert nothing.value.message.endswith("has no HeartCompass workspace to copy: it has no commits yet.")


@pytest.mark.parametrize("said", ["Timeout: kill_after_timeout=7 s", "git fetch did not complete in 7 s"])
def test_a_remote_that_does_not_answer_in_time_is_named_and_nothing_is_lost(tmp_path, monkeypatch, said):
    """A fetch or push killed at the timeout: one line with the time, and
    what to check; the commits are all still here."""
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    monkeypatch.setenv("HEARTCOMPASS_GIT_TIMEOUT", "7")
    seen = {}

    def timing_out(*args, options=(), **kwargs):
        seen.update(options=options, kwargs=kwargs)
        raise GitError(f"git ls-remote failed: {said}")

    monkeypatch.setattr(one, "_git", timing_out)
    with pytest.raises(GitError) as gave_up:
        one.pull_rebase("origin", "main")
    assert gave_up.value.message == "git ls-remote gave up: the remote did not answer within 7 s."
    assert gave_up.value.hint == ("Check the remote's address and your connection (git remote -v), then sync "
                                  "again. Nothing was lost: your commits are all here.")
    assert seen == {"options": ("-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=30"),
                    "kwargs": {"kill_after_timeout": 7.0}}

    def refusing(*args, **kwargs):
        raise GitError("git push failed: rejected")

    monkeypatch.setattr(one, "_git", refusing)
    with pytest.raises(GitError) as other:
        one.push("origin", "main")
    assert other.value.message == "git push failed: rejected"


# -- the lock (lock.py) ---------------------------------------------------------------------------------------------

def test_a_lock_says_who_holds_it_and_is_gone_once_released(tmp_path):
    import os
    import socket

    from heartcompass.store.lock import FileLock, holder

    path = tmp_path / "state" / "lock"
    assert holder(path) is None
    with FileLock(path, "chat") as lock:
        assert lock.held
        owner = holder(path)
        assert owner["pid"] == os.getpid() and owner["purpose"] == "chat" and owner["host"] == socket.gethostname()
        assert len(owner["since"]) == 19
        assert not lock.waited()
    assert not lock.held and not path.exists() and holder(path) is None
    lock.release()  # twice: harmless


def test_a_second_gardener_fails_fast_naming_the_first_and_the_first_sees_it_waited(tmp_path):
    from heartcompass.store.lock import FileLock, LockBusy

    path = tmp_path / "garden.lock"
    with FileLock(path, "gardener") as first:
        with pytest.raises(LockBusy) as busy:
            FileLock(path, "gardener", wait=0).acquire()
        assert busy.value.message.startswith("Another HeartCompass gardener is running (pid ")
        assert busy.value.hint == ("Wait for it to finish and try again. The lock is released by the system when "
                                   f"that process ends, so there is no lock file ({path}) to delete.")
        assert first.waited()
    with FileLock(path, "gardener", wait=0) as second:  # free again
        assert second.held


def test_a_lock_held_without_a_word_of_who_is_still_busy(tmp_path):
    import fcntl
    import os

    from heartcompass.store.lock import busy_error, holder

    path = tmp_path / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert holder(path) == {"pid": "?", "host": "?", "since": "?", "purpose": "command"}
        os.write(fd, b"[1, 2]")
        assert holder(path) == {"pid": "?", "host": "?", "since": "?", "purpose": "command"}
    finally:
        os.close(fd)
    assert busy_error(path, None).message == "Another HeartCompass command is running (pid ? on ?, since ?)."


def test_a_lock_where_no_file_can_be_made_says_so(tmp_path):
    from heartcompass.errors import HeartCompassError
    from heartcompass.store.lock import FileLock

    (tmp_path / "state").write_text("a file where a folder should be")
    path = tmp_path / "state" / "lock"
    with pytest.raises(HeartCompassError) as refused:
        FileLock(path, "chat").acquire()
    assert refused.value.message.startswith(f"{path}: cannot be written (")
    assert refused.value.hint == ("HeartCompass needs to write in the workspace: check its permissions "
                                  "(and that the disk is not full or read-only).")


def test_a_short_commands_holder_is_waited_for_longer_than_a_gardeners(tmp_path, monkeypatch):
    """wait=0 fails fast only against a gardener (or a sync); a chat's commit
    is waited for up to SHORT_WAIT, then named. (A clock that moves one
    second per look: the number of looks is the time waited.)"""
    from heartcompass.store import lock as lock_mod

    tries: list[float] = []
    clock = iter(range(0, 10_000))
    monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
    path = tmp_path / "lock"
    with lock_mod.FileLock(path, "chat"):
        with pytest.raises(lock_mod.LockBusy) as busy:
            lock_mod.FileLock(path, "gardener", wait=0).acquire()
    assert "Another HeartCompass chat is running" in busy.value.message
    assert tries == [lock_mod.POLL] * 29  # SHORT_WAIT (30 s): looks at 1, 2 ... 30
    tries.clear()
    with lock_mod.FileLock(path, "sync"):
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path, "gardener", wait=0).acquire()
    assert tries == []  # a sync or a gardener: failed at the first look
    with lock_mod.FileLock(path, "gardener"):
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path, "chat", wait=5).acquire()
    assert tries == [lock_mod.POLL] * 4


def test_a_lock_made_with_no_purpose_is_a_gardeners_that_fails_fast(tmp_path, monkeypatch):
    from heartcompass.store import lock as lock_mod

    tries: list[float] = []
    monkeypatch.setattr(lock_mod.time, "sleep", tries.append)
    path = tmp_path / "deep" / "er" / "garden.lock"  # folders made as needed
    with lock_mod.FileLock(path) as first:
        assert lock_mod.holder(path)["purpose"] == "gardener" and first.wait == 0.0
        clock = iter(range(0, 10_000))
        monkeypatch.setattr(lock_mod.time, "monotonic", lambda: float(next(clock)))
        with pytest.raises(lock_mod.LockBusy):
            lock_mod.FileLock(path).acquire()
        assert tries == []
    with lock_mod.FileLock(path):  # the folders are there now
        pass


def test_a_lock_file_left_by_a_killed_holder_is_taken_and_rewritten(tmp_path):
    from heartcompass.store.lock import FileLock, holder

    path = tmp_path / "lock"
    path.write_text('{"pid": 1, "host": "old", "since": "long ago", "purpose": "a very long purpose" }' * 3)
    with FileLock(path, "chat"):
        owner = holder(path)
        assert owner["purpose"] == "chat" and owner["host"] != "old"


def test_a_lock_file_removed_under_a_waiter_is_taken_anew(tmp_path, monkeypatch):
    """The previous holder removed the file the waiter opened: the waiter
    locks the file that is there now, so two never hold it at once."""
    import os

    from heartcompass.store import lock as lock_mod

    path = tmp_path / "lock"
    real_open = lock_mod.paths.open_regular
    opened = []

    def swapped(where, flags):
        fd = real_open(where, flags)
        if flags == os.O_RDONLY:  # holder()'s peek
            return fd
        opened.append(fd)
        if len(opened) == 2:  # the first try: its file is replaced before it checks
            path.unlink()
            path.write_text("")
        if len(opened) == 5:  # the next holder's first try: its file is removed
            path.unlink()
        return fd

    monkeypatch.setattr(lock_mod.paths, "open_regular", swapped)
    with lock_mod.FileLock(path, "chat") as first:
        assert lock_mod.holder(path)["purpose"] == "chat"
    assert len(opened) == 3 and not first.held
    with lock_mod.FileLock(path, "sync"):
        assert path.exists() and lock_mod.holder(path)["purpose"] == "sync"
    assert len(opened) == 6


def test_a_lock_file_removed_by_hand_while_held_is_let_go_quietly(tmp_path):
    from heartcompass.store.lock import FileLock

    path = tmp_path / "lock"
    lock = FileLock(path, "chat")
    lock.acquire()
    path.unlink()
    lock.release()
    assert not lock.held and not lock.waited()
    with FileLock(path, "chat") as again:
        assert again.held


# -- a folder moved back after a refused commit (move_back.py) -------------------------------------------------------

def test_a_folder_goes_back_with_what_a_chat_logged_by_the_old_path_meanwhile(tmp_path):
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "people/bob", tmp_path / "people/robert"
    (away / "logs").mkdir(parents=True)
    (away / "PROFILE.md").write_text("p\n")
    (away / "logs/2024-01-01.md").write_text(_log("2024-01-01", "10:00:00 · me · first"))
    (home / "logs").mkdir(parents=True)
    (home / "logs/2024-01-01.md").write_text(_log("2024-01-01", "10:05:00 · me · typed meanwhile"))
    (home / "logs/2024-01-02.md").write_text(_log("2024-01-02", "09:00:00 · me · a new day"))
    move_back(away, home)
    assert not away.exists() and (home / "PROFILE.md").read_text() == "p\n"
    assert [e.text for e in dailylog.load(home / "logs/2024-01-01.md")] == ["first", "typed meanwhile"]
    assert [e.text for e in dailylog.load(home / "logs/2024-01-02.md")] == ["a new day"]


def test_a_folder_goes_back_where_nothing_was_made_meanwhile(tmp_path):
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    away.mkdir()
    (away / "PROFILE.md").write_text("p\n")
    move_back(away, home)
    assert (home / "PROFILE.md").read_text() == "p\n" and not away.exists()


def test_something_other_than_a_log_made_by_the_old_path_keeps_both_folders(tmp_path):
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    (away / "logs").mkdir(parents=True)
    (away / "PROFILE.md").write_text("p\n")
    (home / "logs").mkdir(parents=True)
    (home / "notes.txt").write_text("the user's\n")
    (home / "logs/not-a-day.md").write_text("x\n")
    (home / "logs/2024-01-03.md").write_text("not a log at all\n- ??\n")
    move_back(away, home)
    assert (away / "PROFILE.md").exists() and (home / "notes.txt").read_text() == "the user's\n"
    assert (home / "logs/not-a-day.md").exists() and (home / "logs/2024-01-03.md").exists()


def test_a_move_back_refused_for_another_reason_is_raised(tmp_path):
    from heartcompass.store.move_back import move_back

    away = tmp_path / "robert"
    away.mkdir()
    with pytest.raises(OSError):
        move_back(away, tmp_path / "no-such-folder" / "bob")
    assert away.exists()


# -- a git of the user's, running in the workspace (gitstate.git_processes) ------------------------------------------

def _users_git(cwd: Path, command: str = "git hash-object --stdin") -> subprocess.Popen:
    """A git the user started in another terminal: not a child of this process."""
    return subprocess.Popen(["sh", "-c", f"{command}; true"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)


def test_a_git_running_in_the_workspace_or_below_is_found_and_named_in_the_lock_problem(tmp_path):
    from waits import wait_until

    from heartcompass.store.gitstate import git_processes

    wg = _committed(tmp_path)
    (wg.root / "people").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = _users_git(elsewhere)
    below = _users_git(wg.root / "people")
    try:
        found = wait_until(lambda: git_processes(wg.root), what="the user's git to start")
        assert len(found) == 1 and all(isinstance(pid, int) for pid in found)
        (wg.git_dir / "index.lock").write_text("")
        problem = wg.index_lock_problem(settle=0)
        assert problem == (f"git is busy in this workspace (git process {found[0]} holds {wg.git_dir / 'index.lock'}): "
                           "wait for it to finish and try again.")
    finally:
        for running in (other, below):
            running.communicate(b"x")
    assert git_processes(wg.root) == []


def test_gitpythons_own_readers_and_our_children_are_never_taken_for_the_users_git(tmp_path):
    from waits import wait_until

    from heartcompass.store.gitstate import git_processes

    wg = _committed(tmp_path)
    reader = _users_git(wg.root, "git cat-file --batch")
    child = subprocess.Popen(["git", "hash-object", "--stdin"], cwd=wg.root, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)
    users = _users_git(wg.root)
    try:
        found = wait_until(lambda: git_processes(wg.root), what="the user's git to start")
        assert child.pid not in found and len(found) == 1
    finally:
        for running in (reader, child, users):
            running.communicate(b"x")


def test_without_proc_any_git_but_our_children_counts(tmp_path, monkeypatch):
    """Elsewhere than Linux: any git process found by ps, to be safe."""
    from waits import wait_until

    from heartcompass.store import gitstate

    class NoProc(type(Path())):
        def is_dir(self):
            return False if str(self) == "/proc" else super().is_dir()

    wg = _committed(tmp_path)
    monkeypatch.setattr(gitstate, "Path", NoProc)
    child = subprocess.Popen(["git", "hash-object", "--stdin"], cwd=tmp_path, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)
    users = _users_git(tmp_path)
    try:
        def users_git() -> int | None:
            ps = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,comm="], capture_output=True, text=True).stdout
            return next((int(p[0]) for p in (line.split() for line in ps.splitlines())
                         if len(p) == 3 and p[1] == str(users.pid) and p[2] == "git"), None)

        pid = wait_until(users_git, what="the user's git to start")
        found = gitstate.git_processes(wg.root)
        assert pid in found and child.pid not in found and all(isinstance(p, int) for p in found)
    finally:
        for running in (child, users):
            running.communicate(b"x")

    def no_ps(*args, **kwargs):
        raise OSError("no ps here")

    monkeypatch.setattr(gitstate.subprocess, "run", no_ps)
    assert gitstate.git_processes(wg.root) == []


def test_a_file_name_that_is_not_utf8_survives_our_in_process_commits(wg):
    """git allows any bytes in a name: a tree written in-process keeps such
    a name byte for byte (else the file would vanish from the next commit)."""
    import os

    odd = os.fsencode(str(wg.root)) + b"/caf\xe9.md"
    with open(odd, "wb") as f:
        f.write(b"latin-1 name\n")
    _git(wg.root, "add", "-A")
    _git(wg.root, "commit", "-q", "-m", "by hand")
    before = subprocess.run(["git", "ls-tree", "-z", "HEAD"], cwd=wg.root, capture_output=True, check=True).stdout
    assert b"caf\xe9.md" in before
    assert wg.commit_contents({"people/a/PROFILE.md": "p\n"}, "add(a): new person")
    after = subprocess.run(["git", "ls-tree", "-z", "--name-only", "HEAD"], cwd=wg.root, capture_output=True,
                           check=True).stdout
    assert after.split(b"\0")[:2] == [b"caf\xe9.md", b"people"]
    _git(wg.root, "fsck", "--strict", "--no-dangling")
    assert wg.blob_ids(["people/a/PROFILE.md"])


def test_a_held_index_waits_for_a_git_of_the_users_to_let_go(tmp_path, monkeypatch):
    """index.lock taken by the user's git for a moment: the commit waits
    for it (up to the settle time), then goes on."""
    from heartcompass.store import gitindex

    (tmp_path / "index").write_bytes(b"old")
    lock = tmp_path / "index.lock"
    lock.write_bytes(b"the user's")
    waits: list[float] = []

    def users_git_finishes(seconds: float) -> None:
        waits.append(seconds + 0)  # a number, as time.sleep needs
        lock.unlink()

    monkeypatch.setattr(gitindex.time, "sleep", users_git_finishes)
    with gitindex.HeldIndex(tmp_path, lambda: GitError("busy")) as held:
        held.copy.write_bytes(b"new")
    assert waits and (tmp_path / "index").read_bytes() == b"new" and not lock.exists()


def test_a_held_index_that_cannot_copy_the_index_lets_go_of_the_lock(tmp_path):
    from heartcompass.store.gitindex import HeldIndex

    (tmp_path / "index").mkdir()  # not a file: the copy fails
    with pytest.raises(OSError):
        with HeldIndex(tmp_path, lambda: GitError("busy"), settle=0):
            raise AssertionError("entered")
    assert not (tmp_path / "index.lock").exists()


def test_what_was_gathered_back_keeps_its_markers_pointing_at_the_right_entries(tmp_path):
    """A chat's marker ("supersedes 1") names an entry by its place: once
    the entries join the log that goes back, after the ones it holds, the
    marker still names the same entry. Odd files that sort first are passed
    over, not taken as the end."""
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "people/bob", tmp_path / "people/robert"
    (away / "logs").mkdir(parents=True)
    (away / "logs/2024-01-01.md").write_text(_log("2024-01-01", "09:00:00 · me · kept", "09:01:00 · me · kept too"))
    (home / "logs").mkdir(parents=True)
    (home / "logs/0-notes.md").unlink(missing_ok=True)
    (home / "logs/2024-01-01.md").write_text(_log("2024-01-01", "10:05:00 · me · tpyo", "10:06:00 · mark [supersedes 1] · fixed",
                                                  "10:06:01 · me · typo"))
    (home / "logs/2024-01-02.md").write_text(_log("2024-01-02", "10:05:00 · me · new day", "10:06:00 · mark [supersedes 1] · x",
                                                  "10:06:01 · me · new day!"))
    (home / "logs/0000-00-00.md").write_text("not a day\n")  # sorts first, and is no date
    move_back(away, home)
    assert away.exists() and (home / "logs/0000-00-00.md").exists()  # both stay: something else was made there
    merged = (away / "logs/2024-01-01.md").read_text(encoding="utf-8")
    assert "- 10:06:00 · mark [supersedes 3] · fixed" in merged
    assert [e.text for e in dailylog.effective_entries(dailylog.load(away / "logs/2024-01-01.md"))] == [
        "kept", "kept too", "typo"]
    new_day = (away / "logs/2024-01-02.md").read_text(encoding="utf-8")
    assert "- 10:06:00 · mark [supersedes 1] · x" in new_day


def test_a_log_that_cannot_be_read_is_left_and_the_next_one_still_goes_back(tmp_path):
    from heartcompass.formats import dailylog
    from heartcompass.store.move_back import move_back

    home, away = tmp_path / "bob", tmp_path / "robert"
    (away / "logs").mkdir(parents=True)
    (home / "logs").mkdir(parents=True)
    (home / "logs/2024-01-01.md").write_text("# broken by hand\n")
    (home / "logs/2024-01-02.md").write_text(_log("2024-01-02", "10:00:00 · me · typed meanwhile"))
    move_back(away, home)
    assert [e.text for e in dailylog.load(away / "logs/2024-01-02.md")] == ["typed meanwhile"]
    assert not (home / "logs/2024-01-02.md").exists() and (home / "logs/2024-01-01.md").exists()


def test_gitpythons_long_lived_readers_run_in_a_session_of_their_own(wg):
    """A Ctrl-C at the terminal reaches the whole foreground group: the
    object readers GitPython keeps open must not be in it, or the next
    commit fails on a broken pipe."""
    import os

    _commit(wg, {"people/a/PROFILE.md": "p\n"}, "one")
    assert wg.blob_ids(["people/a/PROFILE.md"])  # read through `git cat-file --batch`
    readers = [getattr(wg.repo.git, name, None) for name in ("cat_file_all", "cat_file_header")]
    pids = [r.proc.pid for r in readers if r is not None and getattr(r, "proc", None) is not None]
    assert pids and all(os.getsid(pid) != os.getsid(0) for pid in pids)


def test_the_identity_in_the_environment_comes_first(wg, monkeypatch):
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Env Name")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "env@example.com")
    assert _commit(wg, {"a.md": "1\n"}, "one")
    assert _git(wg.root, "log", "-1", "--format=%an <%ae>").strip() == "Env Name <env@example.com>"


def test_a_remote_named_relative_to_the_workspace_gets_its_head_on_our_branch(tmp_path, monkeypatch):
    """`git remote add origin ../remote.git` is relative to the workspace,
    wherever the command is run from: a clone of it must check out our branch."""
    bare = _bare(tmp_path)
    one = _repo(tmp_path / "one")  # tmp_path/one/repo
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", "../../remote.git")
    elsewhere = tmp_path / "elsewhere"  # not as deep as the workspace: "../.." from here is not the remote
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    one.push("origin", "main")
    assert _git(bare, "symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_a_hosted_remote_is_left_to_choose_its_own_head(tmp_path, monkeypatch):
    one = _repo(tmp_path / "one")
    _commit(one, {"a.md": "1\n"}, "one")
    _git(one.root, "remote", "add", "origin", "git@example.com:me/brain.git")
    calls: list[tuple] = []
    real = one._git

    def recording(*args, options=(), **kwargs):
        calls.append(args)
        if args[0] == "push":
            return ""
        return real(*args, options=options, **kwargs)

    monkeypatch.setattr(one, "_git", recording)
    one.push("origin", "main")
    assert [c[0] for c in calls] == ["push", "remote"]  # no symbolic-ref on a remote that is not a folder here


def test_each_replayed_commit_that_stops_on_a_days_log_is_merged_in_turn(tmp_path):
    """Two commits of this device appended to a log the other device also
    appended to: the rebase stops on each, and each is merged as a union."""
    bare = _bare(tmp_path)
    log = "people/a/logs/2024-01-01.md"
    start = _log("2024-01-01", "10:00:00 · me · hello")
    one = _repo(tmp_path / "one")
    _commit(one, {log: start}, "one")
    _git(one.root, "remote", "add", "origin", str(bare))
    one.push("origin", "main")
    two = _repo(tmp_path / "two")
    two.adopt("origin", str(bare))
    _commit(two, {log: start + "- 11:00:00 · me · from two\n"}, "two's chat")
    two.push("origin", "main")
    _commit(one, {log: start + "- 12:00:00 · me · first here\n"}, "chat 1")
    _commit(one, {log: start + "- 12:00:00 · me · first here\n- 13:00:00 · me · second here\n"}, "chat 2")
    assert one.pull_rebase("origin", "main") == []
    assert not one.rebase_in_progress()
    assert [c.subject for c in one.log()] == ["chat 2", "chat 1", "two's chat", "one"]
    from heartcompass.formats import dailylog

    texts = [e.text for e in dailylog.parse(_git(one.root, "show", f"HEAD:{log}"), log)]
    assert texts == ["hello", "from two", "first here", "second here"]


def test_an_index_lock_a_git_of_the_users_lets_go_of_meanwhile_is_no_problem(tmp_path, monkeypatch):
    from heartcompass.store import gitstate

    wg = _committed(tmp_path)
    lock = wg.git_dir / "index.lock"
    lock.write_text("")
    waits: list[float] = []

    def users_git_finishes(seconds: float) -> None:
        waits.append(seconds + 0)
        lock.unlink()

    monkeypatch.setattr(gitstate.time, "sleep", users_git_finishes)
    assert wg.index_lock_problem() is None and len(waits) == 1


def test_status_and_a_working_diff_run_none_of_the_users_filters(wg, tmp_path):
    """Reading what changed must not run a program the repository's config
    names (a filter's clean command runs on every changed file)."""
    ran = tmp_path / "CLEAN-RAN"
    _commit(wg, {".gitattributes": "*.md filter=crypt\n", "a.md": "1\n"}, "one")
    _git(wg.root, "config", "filter.crypt.clean", f"touch {ran} && cat")
    _write(wg, "a.md", "2\n")  # the same size: git must read the file through the filter to compare
    assert wg.status() == [("M", "a.md")] and not ran.exists()
    assert "+2" in wg.diff(None, ["a.md"]) and not ran.exists()
    _git(wg.root, "status", "--porcelain")  # git itself, as the user runs it, does run it
    assert ran.exists()


def test_a_folder_or_file_gone_from_the_working_tree_is_still_asked_about_by_path(wg, monkeypatch):
    """A person's folder deleted by hand, a file renamed away: git is told
    that the name is a path (after --), not a commit it cannot find."""
    import shutil

    monkeypatch.setenv("GIT_COMMITTER_DATE", "2024-03-01T10:00:00+00:00")
    a = _commit(wg, {"people/rob/PROFILE.md": "p\n", "people/rob/MEMORY.md": "m\n"}, "add(rob): new person")
    shutil.rmtree(wg.root / "people/rob")
    assert wg.changed_from_head("people/rob") == {"people/rob/PROFILE.md", "people/rob/MEMORY.md"}
    assert wg.file_messages("people/rob/PROFILE.md") == [(a, 1709287200, "add(rob): new person\n")]
