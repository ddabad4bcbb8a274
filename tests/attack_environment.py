"""The hostile tour's cases about the environment a command runs in (issue
23): git's redirecting variables, a worktree, a global ignore rule, signing
and hooks, FIFOs where our files should be, settings that crashed, a killed
undo, the user's own git mv, a garden whose commit failed. Registered into
tests/attack_run.py's list (ENV_CASES); each takes its Trial."""

from __future__ import annotations

import datetime as dt
import os
import subprocess


def _said(proc, *words: str) -> list[str]:
    text = (proc.stdout + proc.stderr).lower()
    if proc.returncode == 0:
        return [f"exit 0, expected a refusal: {text[:300]}"]
    missing = [w for w in words if w.lower() not in text]
    return [f"the message does not mention {missing}: {text[:300]}"] if missing else []


def _clean(t) -> list[str]:
    status = t.git("status", "--porcelain")
    return [f"left uncommitted: {status[:300]}"] if status.strip() else []


def _hand_edits(t) -> list[str]:
    hand = [s for s in t.git("log", "--format=%s").splitlines() if s.startswith("edit(")]
    return [f"our own lines were committed as the user's: {hand}"] if hand else []


def git_redirecting_variables(t) -> list[str]:
    elsewhere = t.base / "elsewhere"
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    head = t.head()
    bad = {"GIT_INDEX_FILE": "/nonexistent/index", "GIT_DIR": str(elsewhere / ".git"), "GIT_WORK_TREE": str(elsewhere)}
    t.hc("chat", "alice", "-m", "/note she keeps a tortoise named Shelly", env=bad)
    t.hc("garden", env=bad)
    t.hc("undo", env=bad)
    problems = _clean(t) + _hand_edits(t)
    if t.git("rev-list", "--count", f"{head}..HEAD").strip() != "3":
        problems.append("chat, garden and undo did not each commit once to the workspace")
    if not (t.root / "people" / "alice" / "PROFILE.md").exists() or "people/alice/PROFILE.md" not in \
            t.git("ls-tree", "-r", "--name-only", "HEAD"):
        problems.append("the tree lost a file")
    if subprocess.run(["git", "-C", str(elsewhere), "log"], capture_output=True).returncode == 0:
        problems.append("a commit went to the repository the variables pointed at")
    return problems


def workspace_is_a_worktree(t) -> list[str]:
    other = t.base / "second"
    t.git("worktree", "add", "-q", "-b", "second", str(other))
    root, t.root = t.root, other
    try:
        t.hc("chat", "alice", "-m", "/note she keeps a tortoise named Shelly")
        t.hc("garden")
        problems = _clean(t) + _hand_edits(t)
        log = t.git("log", "--format=%s", "second")
        if "garden(alice)" not in log:
            problems.append(f"garden did not commit on the worktree's branch: {log[:200]}")
        return problems
    finally:
        t.root = root


def global_ignore_markdown(t) -> list[str]:
    (t.home / "ignore").write_text("*.md\n", encoding="utf-8")
    (t.home / ".gitconfig").write_text(f"[core]\n\texcludesFile = {t.home / 'ignore'}\n", encoding="utf-8")
    t.hc("person", "add", "Carol", "--yes")
    t.hc("chat", "carol", "-m", "/note she sings")
    tracked = t.git("ls-files")
    problems = [] if "people/carol/PROFILE.md" in tracked and "people/carol/logs/" in tracked else \
        ["a person or a log was left uncommitted under a global '*.md' ignore rule"]
    (t.root / "people" / "carol" / "notes.md").write_text("mine\n", encoding="utf-8")
    problems += _said(t.hc("doctor", check=False), "git ignores", "people/carol/notes.md")
    return problems


def signing_without_a_key(t) -> list[str]:
    t.git("config", "commit.gpgsign", "true")
    t.git("config", "gpg.program", str(t.base / "no-gpg"))
    problems = _said(t.hc("doctor", check=False), "commit.gpgsign")
    proc = t.hc("chat", "alice", "-m", "/note typed while signing fails", check=False)
    if "typed while signing fails" not in t.log_text("alice"):
        problems.append("the message was not kept in the log")
    problems += [] if proc.returncode else ["a commit that cannot be signed was reported as done"]
    t.git("config", "commit.gpgsign", "false")
    return problems


def fifos_where_our_files_are(t) -> list[str]:
    problems = []
    log = t.root / "people" / "alice" / "logs" / f"{dt.date.today()}.md"
    log.parent.mkdir(exist_ok=True)
    for path, args in ((log, ("chat", "alice", "-m", "/note into a pipe")),
                       (t.root / ".heartcompass" / "lock", ("person", "add", "Dora", "--yes")),
                       (t.root / "people" / "bob" / "PROFILE.md", ("person", "show", "bob"))):
        keep = path.with_name(path.name + ".kept")
        if path.exists():
            path.rename(keep)
        os.mkfifo(path)
        try:
            problems += [f"{path.name}: {p}" for p in _said(t.hc(*args, check=False, timeout=30), "named pipe")]
        except subprocess.TimeoutExpired:
            problems.append(f"{' '.join(args)} hung on a FIFO at {path.name}")
        path.unlink()
        if keep.exists():
            keep.rename(path)
    return problems


def settings_that_crashed(t) -> list[str]:
    config = t.root / "heartcompass.toml"
    good = config.read_text(encoding="utf-8")
    config.write_text(good + "deep = " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    problems = _said(t.hc("person", "list", check=False), "nested too deeply")
    config.write_text(good, encoding="utf-8")
    problems += _said(t.hc("config", "set", "llm.base_url", "http://[::1/v1", check=False), "host and port")
    problems += _said(t.hc("config", "set", "--", "sync.remote", "--upload-pack=touch /tmp/owned", check=False),
                      "not starting with '-'")
    return problems


def killed_undo(t) -> list[str]:
    t.hc("chat", "alice", "-m", "/note before the undo")
    head = t.head()
    (t.root / ".git" / "heartcompass-undo").write_text(head + "\n", encoding="utf-8")  # where a kill leaves it
    t.git("revert", "--no-commit", head)
    t.hc("chat", "alice", "-m", "/note after the killed undo")
    problems = _clean(t)
    if (t.root / ".git" / "REVERT_HEAD").exists():
        problems.append("the killed undo's revert is still in progress")
    if "before the undo" not in t.log_text("alice") or "after the killed undo" not in t.log_text("alice"):
        problems.append("a message was lost")
    return problems


def users_own_git_mv(t) -> list[str]:
    t.git("mv", "people/bob", "people/robert")
    t.hc("chat", "robert", "-m", "/note moved by hand")
    tree = t.git("ls-tree", "-r", "--name-only", "HEAD")
    problems = _clean(t)
    if "people/bob/" in tree:
        problems.append("HEAD keeps both the old and the new folder")
    return problems


def prefixing_commit_hook(t) -> list[str]:
    hook = t.root / ".git" / "hooks" / "commit-msg"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text('#!/bin/sh\nsed -i "1s/^/[ABC-1] /" "$1"\n', encoding="utf-8")
    hook.chmod(0o755)
    t.hc("chat", "bob", "-m", "/note likes jazz")
    t.hc("undo")
    first = t.git("log", "-1", "--format=%s")
    hook.unlink()
    return [] if first.startswith("[ABC-1] undo(bob): ") else [f"undo named the wrong scope: {first.strip()}"]


def garden_commit_refused_then_chat(t) -> list[str]:
    t.hc("chat", "alice", "-m", "/note she keeps a tortoise named Shelly")
    hook = t.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    t.hc("garden", check=False)
    hook.unlink()
    t.hc("chat", "alice", "-m", "/note and a cat")
    t.hc("garden")
    problems = _hand_edits(t) + _clean(t)
    if "Shelly" not in t.git("show", "HEAD:people/alice/MEMORY.md") + t.git("show", "HEAD~1:people/alice/MEMORY.md"):
        problems.append("the garden's work was lost")
    return problems


ENV_CASES = [git_redirecting_variables, workspace_is_a_worktree, global_ignore_markdown, signing_without_a_key,
             fifos_where_our_files_are, settings_that_crashed, killed_undo, users_own_git_mv, prefixing_commit_hook,
             garden_commit_refused_then_chat]
