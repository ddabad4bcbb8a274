"""The workspace is a boundary: symbolic links, Windows device names, bad
bytes, unwritable folders, and text that could drive the terminal."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import subprocess

import pytest

from conftest import Runner, git, subjects, tree_snapshot
from garden_helpers import DAY, say
from heartcompass.formats import dailylog

SECRET = "TOP-SECRET-ssh-key-material"


def no_traceback(result):
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


@pytest.fixture
def two(example_cli: Runner) -> Runner:
    """Alice (the example) and Bob, everything committed."""
    example_cli("person", "add", "Bob", "--yes")
    return example_cli


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(f"{SECRET}\n", encoding="utf-8")
    return folder


def link(path, target):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


# -- symbolic links --------------------------------------------------------------------
def test_memory_linked_outside_is_never_sent_to_the_model(two: Runner, fake_llm, outside):
    ws = two.ws
    link(ws.people_dir / "bob" / "MEMORY.md", outside / "secret.md")
    fake_llm.enqueue("hi")
    result = two("chat", "bob", "-m", "hello", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "MEMORY.md" in result.output and "symbolic link" in result.output
    assert "outside the workspace" in result.output
    assert fake_llm.purposes == []
    shown = two("context", "bob", ok=False)
    assert shown.exit_code == 1 and SECRET not in shown.output and "symbolic link" in shown.output


def test_links_inside_the_workspace_are_refused_too(two: Runner, fake_llm):
    """Policy (paths.py): no link is followed, even one that stays inside, so
    a MEMORY.md linked to ../../.env cannot leak the key."""
    ws = two.ws
    (ws.root / ".env").write_text("OPENAI_API_KEY=sk-inside-secret\n", encoding="utf-8")
    link(ws.people_dir / "bob" / "MEMORY.md", "../../.env")
    result = two("context", "bob", ok=False)
    assert result.exit_code == 1 and "sk-inside-secret" not in result.output
    assert "inside the workspace" in result.output


@pytest.mark.parametrize("what", ["log", "logs folder", "person folder"])
def test_chat_never_appends_through_a_link(two: Runner, fake_llm, outside, what):
    ws = two.ws
    bob = ws.people_dir / "bob"
    if what == "log":
        (bob / "logs").mkdir(exist_ok=True)
        target = outside / "log.md"
        target.write_text("", encoding="utf-8")
        link(dailylog.log_path(bob, dt.date.today()), target)
    elif what == "logs folder":
        link(bob / "logs", outside)
    else:
        shutil.copytree(bob, outside / "bob")
        link(bob, outside / "bob")
    before = tree_snapshot(outside)
    fake_llm.enqueue("hi")
    result = two("chat", "bob", "-m", "hello", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "symbolic link" in result.output
    assert tree_snapshot(outside) == before  # nothing appended or written outside


@pytest.mark.parametrize("linked", ["folder", "file"])
def test_core_readers_and_writers_refuse_links(ws, outside, linked):
    """Each layer on its own: the log append, the atomic write and the reader."""
    from heartcompass.atomic import write_atomic
    from heartcompass.errors import UnsafePathError
    from heartcompass.formats import read_text

    person = ws.people_dir / "bob"
    person.mkdir(parents=True)
    if linked == "folder":
        link(person / "logs", outside)
        log, memory = person / "logs" / "2026-12-01.md", person / "logs" / "secret.md"
    else:
        (person / "logs").mkdir()
        log, memory = person / "logs" / "2026-12-01.md", person / "MEMORY.md"
        link(log, outside / "secret.md")
        link(memory, outside / "secret.md")
    before = tree_snapshot(outside)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        dailylog.append(log, dailylog.Entry("20:00:00", "me", "hi", []), DAY)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        write_atomic(memory, "overwritten\n")
    with pytest.raises(UnsafePathError, match="symbolic link"):
        read_text(memory)
    assert tree_snapshot(outside) == before
    assert os.path.islink(memory if linked == "file" else person / "logs")  # the link itself is left alone


@pytest.mark.parametrize("what", ["memory", "person folder"])
def test_garden_skips_a_linked_person_and_gardens_the_others(two: Runner, fake_llm, outside, what):
    ws = two.ws
    say(ws, "alice", "note", "Alice adopted a cat")
    say(ws, "bob", "note", "Bob runs marathons")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "logs")
    if what == "memory":
        link(ws.people_dir / "bob" / "MEMORY.md", outside / "secret.md")
    else:
        shutil.copytree(ws.people_dir / "bob", outside / "bob")
        (outside / "bob" / "MEMORY.md").write_text(f"{SECRET}\n", encoding="utf-8")
        link(ws.people_dir / "bob", outside / "bob")
    before = tree_snapshot(outside)
    fake_llm.enqueue({"summary": "cat", "new_facts": [{"text": "Adopted a cat", "evidence": ["L1"]}]})
    result = two("garden", "--json", ok=False)
    no_traceback(result)
    assert result.exit_code == 1
    rows = {r["slug"]: r for r in json.loads(result.output[:result.output.rindex("]") + 1])}
    assert rows["alice"]["status"] == "gardened"
    assert rows["bob"]["status"] == "failed" and "symbolic link" in rows["bob"]["message"]
    assert fake_llm.requests("garden") and SECRET not in fake_llm.sent()  # alice was gardened; bob's secret never sent
    assert tree_snapshot(outside) == before


def test_a_linked_prompt_file_is_refused(two: Runner, fake_llm, outside):
    ws = two.ws
    ws.prompts_dir.mkdir(exist_ok=True)
    link(ws.prompts_dir / "persona.md", outside / "secret.md")
    fake_llm.enqueue("hi")
    result = two("chat", "alice", "-m", "hello", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "persona.md" in result.output and "symbolic link" in result.output
    assert fake_llm.purposes == []


def test_doctor_lists_links(two: Runner, outside):
    ws = two.ws
    link(ws.people_dir / "bob" / "MEMORY.md", outside / "secret.md")
    (ws.root / "notes").symlink_to("people")
    result = two("doctor", ok=False)
    no_traceback(result)
    assert result.exit_code == 1
    assert "people/bob/MEMORY.md" in result.output and str(outside / "secret.md") in result.output
    assert "notes" in result.output


def test_links_are_never_committed(two: Runner, outside):
    ws = two.ws
    (ws.people_dir / "bob" / "notes.md").symlink_to(outside / "secret.md")
    from heartcompass.errors import UnsafePathError

    with pytest.raises(UnsafePathError, match="symbolic link"):
        ws.git.commit([ws.people_dir / "bob"], "edit(bob): by hand")
    assert "notes.md" not in git(ws, "ls-files", "people/bob")
    assert "people/bob/notes.md" not in git(ws, "diff", "--cached", "--name-only")
    result = two("log", "bob", ok=False)  # reading history still works
    no_traceback(result)


def test_a_person_folder_linked_outside_is_reported_by_person_list(two: Runner, outside):
    ws = two.ws
    shutil.copytree(ws.people_dir / "bob", outside / "bob")
    link(ws.people_dir / "bob", outside / "bob")
    result = two("person", "list", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Alice Chen" in result.output and "symbolic link" in result.output


# -- Windows device names -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["CON", "nul", "Aux", "PRN", "COM1", "lpt9", "con.", "COM1 "])
def test_windows_device_names_are_refused(cli: Runner, name):
    result = cli("person", "add", name, "--yes", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Windows" in result.output
    assert [p.name for p in cli.ws.people_dir.iterdir() if not p.name.startswith(".")] == ["me"]


def test_names_that_only_start_like_a_device_are_fine(cli: Runner):
    from heartcompass.store.slugs import slugify

    assert [slugify(n) for n in ("Connie", "com10", "Con Smith", "nully", "小明", "com1.txt", "NUL.tar.gz")] == [
        "connie", "com10", "con-smith", "nully", "小明", "com1-txt", "nul-tar-gz"]  # a dot parts words: no device
    cli("person", "add", "Con Smith", "--yes")
    assert cli("person", "rename", "con-smith", "con", ok=False).exit_code == 1


# -- bad bytes, folders, unreadable files ------------------------------------------------------
BAD_CONTENT = {
    "latin-1 memory": ("MEMORY.md", "# Memory - Bob\n\n## Facts\n- Café au lait every morning\n".encode("latin-1")),
    "binary events": ("EVENTS.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
    "latin-1 profile": ("PROFILE.md", "---\nname: José\nrelation: friend\n---\n".encode("latin-1")),
}


@pytest.mark.parametrize("case", sorted(BAD_CONTENT))
def test_a_bad_file_is_named_and_the_others_still_listed(two: Runner, case):
    ws = two.ws
    filename, data = BAD_CONTENT[case]
    path = ws.people_dir / "bob" / filename
    path.write_bytes(data)
    result = two("person", "list", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Alice Chen" in result.output
    assert f"people/bob/{filename}" in result.output and ("UTF-8" in result.output or "binary" in result.output)
    for args in (["doctor"], ["context", "bob"], ["person", "show", "bob"]):
        result = two(*args, ok=False)
        no_traceback(result)
        assert result.exit_code == 1 and f"bob/{filename}" in result.output, args
    assert path.read_bytes() == data  # never rewritten


def test_garden_skips_a_person_with_a_latin1_log(two: Runner, fake_llm):
    ws = two.ws
    say(ws, "alice", "note", "Alice adopted a cat")
    log = dailylog.log_path(ws.people_dir / "bob", DAY)
    log.parent.mkdir(parents=True, exist_ok=True)
    data = "---\ndate: 2026-12-01\n---\n\n- 20:00:00 · note · Caf\xe9\n".encode("latin-1")
    log.write_bytes(data)
    fake_llm.enqueue({"summary": "cat", "new_facts": [{"text": "Adopted a cat", "evidence": ["L1"]}]})
    result = two("garden", "--json", ok=False)
    no_traceback(result)
    rows = {r["slug"]: r for r in json.loads(result.output[:result.output.rindex("]") + 1])}
    assert rows["alice"]["status"] == "gardened"
    assert rows["bob"]["status"] == "failed" and "2026-12-01.md:5" in rows["bob"]["message"]
    assert result.exit_code == 1 and log.read_bytes() == data


def test_chat_with_a_latin1_log_says_which_file(two: Runner, fake_llm):
    ws = two.ws
    log = dailylog.log_path(ws.people_dir / "bob", dt.date.today())
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes("---\ndate: x\n---\n\n- 20:00:00 · me · Caf\xe9\n".encode("latin-1"))
    fake_llm.enqueue("hi")
    result = two("chat", "bob", "-m", "hello", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and log.name in result.output and "UTF-8" in result.output


def test_a_folder_in_place_of_a_file(two: Runner):
    ws = two.ws
    path = ws.people_dir / "bob" / "MEMORY.md"
    path.unlink()
    path.mkdir()
    result = two("person", "list", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Alice Chen" in result.output and "is a folder" in result.output
    result = two("doctor", ok=False)
    no_traceback(result)
    assert "people/bob/MEMORY.md" in result.output


def test_an_unreadable_file(two: Runner, monkeypatch):
    # Tests may run as root, where chmod 000 does not stop a read: the OS's
    # refusal is simulated for that one file.
    ws = two.ws
    target = str(ws.people_dir / "bob" / "EVENTS.md")
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if str(path) == target and not flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    result = two("person", "list", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Alice Chen" in result.output and "permission denied" in result.output


def test_non_utf8_settings_and_env(two: Runner, fake_llm):
    ws = two.ws
    (ws.root / ".env").write_bytes(b"OPENAI_API_KEY=caf\xe9\n")
    result = two("chat", "alice", "-m", "hi", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and ".env:1" in result.output and "UTF-8" in result.output
    (ws.root / ".env").unlink()
    config = ws.config_path.read_bytes()
    ws.config_path.write_bytes(config + "\n# caf\xe9\n".encode("latin-1"))
    for args in (["doctor"], ["chat", "alice", "-m", "hi"], ["config", "show"], ["person", "list"]):
        result = two(*args, ok=False)
        no_traceback(result)
        assert result.exit_code == 1 and "heartcompass.toml" in result.output and "UTF-8" in result.output, args


def test_read_text_names_the_line_of_the_bad_byte(tmp_path):
    from heartcompass.errors import FormatError
    from heartcompass.formats import read_text

    path = tmp_path / "x.md"
    path.write_bytes(b"ok\nstill ok\nbad \xff here\n")
    with pytest.raises(FormatError) as info:
        read_text(path)
    assert info.value.line == 3 and "0xff" in info.value.message
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match="not a regular file"):  # and no hang
        read_text(fifo)


# -- a read-only workspace ------------------------------------------------------------------------
@contextlib.contextmanager
def read_only(folder):
    """Really unwritable, even for root: the immutable attribute (chattr +i),
    else a plain chmod when not root."""
    immutable = shutil.which("chattr") and subprocess.run(["chattr", "+i", str(folder)],
                                                           capture_output=True).returncode == 0
    if not immutable:
        if os.geteuid() == 0:
            pytest.skip("no way to make a folder read-only for root here (chattr failed)")
        folder.chmod(0o555)
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


def test_read_only_workspace_says_which_file(two: Runner, fake_llm):
    ws = two.ws
    logs = ws.people_dir / "bob" / "logs"
    logs.mkdir(exist_ok=True)
    fake_llm.enqueue("hi")
    with read_only(logs):
        result = two("chat", "bob", "-m", "hello", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "cannot be written" in result.output and "logs" in result.output
    with read_only(ws.people_dir):
        result = two("person", "add", "Carol", "--yes", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "permission denied" in result.output and "people" in result.output
    with read_only(ws.people_dir / "bob"):
        say(ws, "alice", "note", "Alice adopted a cat")
        result = two("config", "set", "user.name", "Sam")  # elsewhere, writing still works
    assert subjects(ws)[0].startswith("config: user.name")


def test_garden_with_one_read_only_person_gardens_the_others(two: Runner, fake_llm):
    ws = two.ws
    say(ws, "alice", "note", "Alice adopted a cat")
    say(ws, "bob", "note", "Bob runs marathons")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "logs")
    fake_llm.enqueue({"summary": "cat", "new_facts": [{"text": "Adopted a cat", "evidence": ["L1"]}]},
                     {"summary": "marathons", "new_facts": [{"text": "Runs marathons", "evidence": ["L1"]}]})
    with read_only(ws.people_dir / "alice"):
        result = two("garden", "--json", ok=False)
    no_traceback(result)
    rows = {r["slug"]: r for r in json.loads(result.output[:result.output.rindex("]") + 1])}
    assert rows["alice"]["status"] == "failed" and "cannot be written" in rows["alice"]["message"]
    assert rows["bob"]["status"] == "gardened" and result.exit_code == 1, [(r["status"], r["message"]) for r in rows.values()]


# -- terminal safety: markup and escape sequences ------------------------------------------------------
@pytest.mark.parametrize("name", ["[/] weird", "[/x]"])
def test_markup_in_a_refused_name_is_quoted_as_typed(cli: Runner, name):
    result = cli("person", "add", name, "--yes", ok=False)  # '/' is refused: the error quotes the name
    no_traceback(result)
    assert result.exit_code == 1 and repr(name) in result.output
    missing = cli("person", "show", name, ok=False)
    no_traceback(missing)
    assert missing.exit_code == 1 and repr(name) in missing.output


@pytest.mark.parametrize("name", ["[bold]Bo", "Zoë [red]", "[dim]", "小明 [link=x]y"])
def test_markup_in_names_is_shown_as_typed(cli: Runner, name):
    result = cli("person", "add", name, "--yes")
    assert name in result.output
    slug = [p.name for p in cli.ws.people_dir.iterdir() if p.name not in ("me", ".archive")][0]
    shown = cli("person", "show", slug)
    assert name in shown.output
    assert name in cli("person", "list").output
    missing = cli("person", "show", "[/x] nobody", ok=False)  # the error quotes the name
    no_traceback(missing)
    assert missing.exit_code == 1 and "[/x] nobody" in missing.output


def test_config_set_markup_is_printed_and_committed_once(cli: Runner):
    result = cli("config", "set", "user.name", "[/]")
    assert "[/]" in result.output
    assert subjects(cli.ws)[0] == "config: user.name = '[/]'"
    assert "[/]" in cli("config", "show").output


def test_a_memory_line_that_looks_like_markup(two: Runner):
    ws = two.ws
    path = ws.people_dir / "bob" / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## Facts\n", "## Facts\n\n[dim][/x] odd\n"),
                    encoding="utf-8")
    result = two("person", "show", "bob")
    assert "[dim][/x] odd" in result.output


ESCAPES = "\x1b]0;pwned title\x07\x1b[2J\x1b[31m"


def test_persona_escape_sequences_are_stripped_on_screen_and_kept_in_the_log(example_cli: Runner, fake_llm):
    fake_llm.enqueue(f"hello {ESCAPES}there")
    result = example_cli("chat", "alice", "-m", "hi")
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "hello there" in result.output
    from conftest import log_entries

    assert log_entries(example_cli.ws, "alice")[-1].text == f"hello {ESCAPES}there"  # verbatim


def test_escape_sequences_in_files_never_reach_the_terminal(two: Runner):
    ws = two.ws
    path = ws.people_dir / "bob" / "PROFILE.md"
    text = path.read_text(encoding="utf-8").replace("## Likes\n", f"## Likes\n\nTea {ESCAPES}\n")
    path.write_text(text, encoding="utf-8")
    for args in (["person", "show", "bob"], ["context", "bob"], ["diff", "bob"]):
        result = two(*args)
        assert result.exit_code == 0 and "Tea" in result.output, args  # the line is shown, cleaned
        assert "\x1b" not in result.output and "\x07" not in result.output, args


def test_strip_controls():
    from heartcompass.sanitize import strip_controls

    assert strip_controls("a\x1b]0;title\x07b\x1b]52;c;aGk=\x1b\\c") == "abc"
    assert strip_controls("x\x1b[2J\x1b[1;31my\x9b2Jz") == "xyz"
    assert strip_controls("line\r\nnext\rover\x08\x00") == "line\nnext\nover"
    assert strip_controls("中文\tok\n") == "中文\tok\n"


def test_no_terminal_library_outside_the_cli():
    """Core knows nothing of the terminal: no typer, rich, questionary or
    prompt_toolkit import outside heartcompass/cli/."""
    import ast
    from pathlib import Path

    import heartcompass

    root = Path(heartcompass.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if "cli" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.split(".")[0] in ("typer", "rich", "questionary", "prompt_toolkit", "click"):
                    offenders.append(f"{path.relative_to(root)}: {name}")
    assert offenders == []


def test_coach_tell_and_reasoning_output_is_stripped(example_cli: Runner, fake_llm):
    from langchain_core.messages import AIMessage

    advice = {"reading": f"She is nervous {ESCAPES}", "candidates": [
        {"reply": f"You'll do great{ESCAPES}", "tone": "warm", "why": f"reassures{ESCAPES}"},
        {"reply": "Want help packing?", "tone": "practical", "why": "offers help"}],
        "risks": [f"risk{ESCAPES}"], "suggestions": [f"ask{ESCAPES}"]}
    fake_llm.enqueue(advice)
    result = example_cli("coach", "alice", "so stressed")
    assert "You'll do great" in result.output and "\x1b" not in result.output and "\x07" not in result.output
    plain = "\x1b]pwned\x07\x1b[J\x1bc"  # no digits: the evidence check refuses numbers not in the entries
    today = dt.date.today().isoformat()  # the day it is told: an event's date stands on its entries
    told = {"summary": "She got a cat", "new_events": [{"date": today, "text": f"Got a cat{plain}",
                                                        "weight": 0.5, "evidence": ["L1"]}]}
    fake_llm.enqueue(told, {"people": [{"name": f"Mei{ESCAPES}", "relation": "family", "about": f"sister{ESCAPES}"}]})
    result = example_cli("tell", "alice", "She got a cat", "--dry-run")
    assert "Got a cat" in result.output and "Mei" in result.output and "\x1b" not in result.output
    fake_llm.enqueue(AIMessage(content="Kyoto!", additional_kwargs={"reasoning_content": f"think{ESCAPES}ing"}))
    result = example_cli("chat", "alice", "-m", "where?")
    assert "thinking" in result.output and "\x1b" not in result.output and "\x07" not in result.output


def test_a_link_swapped_in_after_the_check_is_still_refused(ws, outside, monkeypatch):
    """O_NOFOLLOW: the race between the check and the open is closed too."""
    from heartcompass import paths
    from heartcompass.errors import UnsafePathError
    from heartcompass.formats import read_text

    monkeypatch.setattr(paths, "check", lambda path: path)  # as if the link appeared just after it
    (ws.people_dir / "bob" / "logs").mkdir(parents=True)
    log = ws.people_dir / "bob" / "logs" / "2026-12-01.md"
    log.symlink_to(outside / "secret.md")
    with pytest.raises(UnsafePathError):
        read_text(log)
    before = tree_snapshot(outside)
    with pytest.raises(UnsafePathError):
        dailylog.append(log, dailylog.Entry("20:00:00", "me", "hi", []), DAY)
    assert tree_snapshot(outside) == before


def test_doctor_names_a_bad_log(two: Runner):
    ws = two.ws
    log = dailylog.log_path(ws.people_dir / "bob", DAY)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"---\ndate: 2026-12-01\n---\n\n- 20:00:00 \xb7 me \xb7 hi\n")
    result = two("doctor", ok=False)
    no_traceback(result)
    assert "people/bob/logs/2026-12-01.md:5" in result.output and "UTF-8" in result.output


def test_a_file_in_place_of_the_logs_folder(two: Runner, fake_llm):
    ws = two.ws
    (ws.people_dir / "bob" / "logs").write_text("not a folder\n", encoding="utf-8")
    say(ws, "alice", "note", "Alice adopted a cat")
    result = two("person", "list", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "Alice Chen" in result.output and "people/bob/logs" in result.output
    fake_llm.enqueue({"summary": "cat", "new_facts": [{"text": "Adopted a cat", "evidence": ["L1"]}]})
    result = two("garden", "--json", ok=False)
    no_traceback(result)
    rows = {r["slug"]: r for r in json.loads(result.output[:result.output.rindex("]") + 1])}
    assert rows["alice"]["status"] == "gardened" and rows["bob"]["status"] == "failed"


def test_a_linked_state_folder_is_refused(two: Runner, fake_llm, outside):
    ws = two.ws
    shutil.rmtree(ws.root / ".heartcompass", ignore_errors=True)
    (ws.root / ".heartcompass").symlink_to(outside)
    before = tree_snapshot(outside)
    say(ws, "alice", "note", "Alice adopted a cat")
    result = two("garden", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and ".heartcompass" in result.output and "symbolic link" in result.output
    assert tree_snapshot(outside) == before
    from heartcompass.errors import UnsafePathError

    with pytest.raises(UnsafePathError):  # for every writer there: locks, journals, run logs, chat history
        ws.state_dir  # noqa: B018


def test_a_full_disk_is_named(two: Runner, fake_llm, monkeypatch):
    import errno

    real_write = os.write

    def full(fd, data):
        if b"disk-full-probe" in data:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    fake_llm.enqueue("hi")
    result = two("chat", "bob", "-m", "disk-full-probe", ok=False)
    no_traceback(result)
    assert result.exit_code == 1 and "disk is full" in result.output and "logs" in result.output
