"""The first garden on a second device (issue 32): with no consolidation
state on disk, everyone's is rebuilt from ONE pass over the history
(memory/consolidation_history.py), exactly as the per-person rebuild
(State.rebuild, three `git log --follow` each) finds it, saved in one file,
and a log git vouches was read to its end is not read again."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from conftest import Runner, git, subjects
from garden_helpers import consolidated, proposal, say
from heartcompass.memory import consolidation_history
from heartcompass.memory.consolidation import State
from heartcompass.memory.new_entries import EntryCounts, new_entries
from heartcompass.store.people import Person, list_people
from heartcompass.store.workspace import Workspace

DAY1, DAY2 = dt.date(2026, 11, 30), dt.date(2026, 12, 1)


def _fact(text: str, evidence: str = "L1") -> dict:
    return proposal(new_facts=[{"text": text, "evidence": [evidence]}])


@pytest.fixture
def lived_in(example_cli: Runner, fake_llm) -> Runner:
    """A workspace with a history: gardens, a hand edit committed with the
    user's own git, a rename after a garden, an undone garden, and people
    with entries the gardener has not read yet."""
    cli, ws = example_cli, example_cli.ws
    for name in ("Bob", "Carol", "Dave"):
        cli("person", "add", name, "--relation", "friend", "--yes")
    say(ws, "alice", "me", "She moved to Kyoto", day=DAY1)
    say(ws, "alice", "note", "Her new address is in Sakyo-ku", day=DAY1, time="20:01:00")
    fake_llm.enqueue(_fact("Lives in Sakyo-ku", "L2"))
    cli("garden", "-p", "alice")
    memory = ws.people_dir / "alice" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\nMy own line about Alice.\n", encoding="utf-8")
    git(ws, "commit", "-qam", "my own notes")  # the user's git, not ours
    say(ws, "alice", "me", "She got a bike", day=DAY2)
    fake_llm.enqueue(_fact("Rides a bike"))
    cli("garden", "-p", "alice")
    say(ws, "alice", "me", "She plans a trip to Nara", day=DAY2, time="21:00:00")  # not gardened yet

    say(ws, "bob", "note", "Bob works at the bakery", day=DAY1)
    fake_llm.enqueue(_fact("Works at the bakery"))
    cli("garden", "-p", "bob")
    cli("person", "rename", "bob", "Robert")
    say(ws, "robert", "note", "Robert starts a pottery class", day=DAY2)
    fake_llm.enqueue(_fact("Takes a pottery class"))
    cli("garden", "-p", "robert")

    say(ws, "carol", "note", "Carol adopted a cat named Miso", day=DAY1)
    fake_llm.enqueue(_fact("Has a cat named Miso"))
    cli("garden", "-p", "carol")
    cli("undo")  # the garden taken back: her entry is unread again

    say(ws, "dave", "note", "Dave runs marathons", day=DAY1)
    fake_llm.enqueue(_fact("Runs marathons"))
    cli("garden", "-p", "dave")
    say(ws, "dave", "note", "Dave hurt his knee", day=DAY1, time="21:00:00")  # partly read log
    assert subjects(ws)[0].startswith("garden(dave)") and "undo(carol)" in "\n".join(subjects(ws))
    return cli


def _read_everyone(cli: Runner, fake_llm) -> None:
    """A garden that reads every unread entry and keeps a line of each (so its commits say what was read)."""
    fake_llm.enqueue(_fact("Plans a trip to Nara"), _fact("Has a cat named Miso"), _fact("Hurt his knee"))
    cli("garden")
    assert not fake_llm.script


def _slow(ws: Workspace) -> dict[str, dict]:
    """Each person's state as State.rebuild finds it, alone (three `git log --follow` each)."""
    out = {}
    for person in list_people(ws):
        state = State.__new__(State)
        state.ws, state.person = ws, person
        out[person.slug] = state.rebuild()
    return out


def _forget_state(ws: Workspace) -> None:
    shutil.rmtree(ws.state_dir / "consolidated", ignore_errors=True)
    consolidation_history._built.clear()
    consolidation_history._vouched.clear()


def test_the_one_pass_finds_exactly_what_the_per_person_rebuild_finds(lived_in: Runner, monkeypatch):
    """Hand edits, a rename, an undo and partly read logs: the same days,
    counts and checksums for everyone, by the garden commits' subjects and
    by the exact walk over every commit's files alike."""
    ws = lived_in.ws
    _forget_state(ws)
    slow = _slow(ws)
    assert slow["alice"]["2026-12-01"][0] == 1 and slow["robert"]["2026-11-30"][0] == 1
    assert slow["carol"] == {"2026-11-30": [0, None]}  # the undo's trailer hands her entry back
    assert slow["dave"]["2026-11-30"][0] == 1  # of two entries
    fast = consolidation_history.rebuild_all(ws)
    assert fast == slow
    consolidation_history._built.clear()
    monkeypatch.setattr(consolidation_history, "_commits", lambda ws: (_ for _ in ()).throw(
        consolidation_history._Unsure()))
    assert consolidation_history.rebuild_all(ws) == slow


def test_a_lost_state_is_rebuilt_with_one_git_log_whatever_the_number_of_people(lived_in: Runner, fake_llm,
                                                                                monkeypatch):
    """No `git log --follow` per person: one log of the commits' messages
    (plus the few commits that may move files), then the unread entries,
    and only they, go to the model."""
    ws = lived_in.ws
    before = {slug: consolidated(ws, slug) for slug in ("alice", "robert", "carol", "dave")}
    _forget_state(ws)
    from heartcompass.store import gitrepo

    calls: list[tuple[str, ...]] = []
    real = gitrepo.WorkspaceGit._git

    def counted(self, *args, **kwargs):
        calls.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(gitrepo.WorkspaceGit, "_git", counted)
    fake_llm.enqueue(proposal(nothing_worth_keeping=True), proposal(nothing_worth_keeping=True),
                     proposal(nothing_worth_keeping=True))
    asked_before = len(fake_llm.requests("garden"))
    result = lived_in("garden", "--json")
    gardened = {r["slug"]: r["status"] for r in json.loads(result.output)}
    assert gardened["carol"] == "nothing kept" and gardened["dave"] == "nothing kept"  # it ran, and read these
    this_run = fake_llm.requests("garden")[asked_before:]
    assert len(this_run) == 3
    prompts = "\n".join(r.prompt for r in this_run)
    assert "Carol adopted a cat" in prompts and "Dave hurt his knee" in prompts and "Nara" in prompts
    assert "Dave runs marathons" not in prompts and "Sakyo-ku" not in prompts.split("## New log entries")[-1]
    logs = [args for args in calls if args[0] == "log"]
    assert not [args for args in logs if "--follow" in args], "a per-person git log --follow came back"
    whole = [args for args in logs if not any(a.startswith(("-n", "--no-walk")) or ".." in a for a in args)]
    assert len(whole) == 1 and "--name-status" not in whole[0]  # the messages alone: no file lists
    after = {slug: _state(ws, slug) for slug in before}
    assert after["robert"] == before["robert"] and after["alice"][DAY1.isoformat()] == 2
    assert after["carol"] == {DAY1.isoformat(): 1} and after["dave"] == {DAY1.isoformat(): 2}


def test_the_rebuilt_state_is_saved_in_one_file_and_an_idle_rerun_starts_no_git(lived_in: Runner, fake_llm,
                                                                                monkeypatch):
    ws = lived_in.ws
    _read_everyone(lived_in, fake_llm)  # everyone read: nothing new
    kept = {slug: consolidated(ws, slug) for slug in ("alice", "robert", "carol", "dave")}
    _forget_state(ws)
    lived_in("garden")
    saved = ws.state_dir / "consolidated" / consolidation_history.FILENAME
    people = json.loads(saved.read_text(encoding="utf-8"))["people"]
    assert {slug: {d: n for d, (n, _) in days.items()} for slug, days in people.items() if slug in kept} == kept
    assert not list((ws.state_dir / "consolidated").glob("[!.]*.json"))  # no file per person
    from heartcompass.store import gitrepo

    monkeypatch.setattr(gitrepo.WorkspaceGit, "_git", lambda *a, **k: pytest.fail(f"git ran: {a[1:]}"))
    _forget_memo()
    result = lived_in("garden", "--json")
    assert {r["status"] for r in json.loads(result.output)} == {"up to date"}
    assert len(json.loads(result.output)) == len(list_people(ws))


def _state(ws: Workspace, slug: str) -> dict[str, int]:
    """The state the gardener reads for this person (their own file, else the shared one, else rebuilt)."""
    _forget_memo()
    return {day: n for day, (n, _) in State(ws, Person(slug, ws.people_dir / slug)).days.items()}


def _forget_memo() -> None:
    consolidation_history._built.clear()
    consolidation_history._vouched.clear()


def test_a_person_whose_state_moves_gets_their_own_file_which_wins(lived_in: Runner, fake_llm):
    """After the shared file is written, the gardener moves one person's
    state: their own file holds it, the shared one is not rewritten."""
    ws = lived_in.ws
    _forget_state(ws)
    _read_everyone(lived_in, fake_llm)
    saved = ws.state_dir / "consolidated" / consolidation_history.FILENAME
    shared = saved.read_bytes()
    say(ws, "robert", "note", "Robert moved to Osaka", day=DAY2, time="22:00:00")
    fake_llm.enqueue(_fact("Lives in Osaka"))
    lived_in("garden")
    assert consolidated(ws, "robert")[DAY2.isoformat()] == 2 and saved.read_bytes() == shared
    _forget_memo()
    assert State(ws, Person("robert", ws.people_dir / "robert")).count(DAY2.isoformat()) == 2


def test_a_clone_reads_no_log_git_vouches_was_read_to_its_end(lived_in: Runner, fake_llm, tmp_path, monkeypatch):
    """`init --from`, then garden: the logs whose bytes a garden commit
    names as read to their end are not opened; one appended since is."""
    ws = lived_in.ws
    _read_everyone(lived_in, fake_llm)
    original = {slug: consolidated(ws, slug) for slug in ("alice", "robert", "carol", "dave")}
    phone = tmp_path / "phone"
    lived_in("init", str(phone), "--from", str(ws.root))
    clone = Runner(Workspace(phone))
    monkeypatch.setattr("heartcompass.stat_cache._now_ns", lambda: 10**19)  # every file settled
    say(clone.ws, "dave", "note", "Dave signed up for Tokyo", day=DAY2)  # a new log on the new device
    opened: list[str] = []
    from heartcompass.memory import new_entries as module

    real = module.read_text
    monkeypatch.setattr(module, "read_text", lambda path: opened.append(Path(path).name) or real(path))
    before, gardens = len(fake_llm.purposes), len(fake_llm.requests("garden"))
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    clone("garden")
    assert fake_llm.purposes[before:] == ["garden"]
    this_run = fake_llm.request("garden", gardens)
    assert "Dave signed up for Tokyo" in this_run.prompt and "Signed up for Tokyo" not in this_run.text
    assert opened == [f"{DAY2.isoformat()}.md"]  # Dave's new log alone
    assert {slug: _state(clone.ws, slug) for slug in original if slug != "dave"} == \
        {slug: days for slug, days in original.items() if slug != "dave"}
    assert _state(clone.ws, "dave") == {**original["dave"], DAY2.isoformat(): 1}


def test_an_entry_appended_after_the_pass_is_read(lived_in: Runner, fake_llm, monkeypatch):
    """git vouched for the log's bytes; a chat appends to it before the
    gardener gets there: its stat changed, so it is read, the new entry with it."""
    ws = lived_in.ws
    _read_everyone(lived_in, fake_llm)
    _forget_state(ws)
    monkeypatch.setattr("heartcompass.stat_cache._now_ns", lambda: 10**19)
    robert = Person("robert", ws.people_dir / "robert")
    state = State(ws, robert)
    assert DAY2.isoformat() in state.all_read  # vouched for, before the append
    assert new_entries(robert, state, EntryCounts(ws))[0] == []
    say(ws, "robert", "note", "Robert bought a kiln", day=DAY2, time="23:00:00")
    items, _ = new_entries(robert, state, EntryCounts(ws))
    assert [i.entry.text for i in items] == ["Robert bought a kiln"]


def test_a_crash_while_saving_the_rebuilt_state_leaves_files_that_parse(lived_in: Runner, fake_llm, monkeypatch):
    """Killed while the shared file is written: the old file or none is
    there, every state file parses, and the next garden finishes the rebuild."""
    ws = lived_in.ws
    _read_everyone(lived_in, fake_llm)
    expected = {slug: consolidated(ws, slug) for slug in ("alice", "robert", "carol", "dave")}
    _forget_state(ws)
    import os

    real_replace = os.replace

    def killed(src, dst):
        if str(dst).endswith(consolidation_history.FILENAME):
            raise KeyboardInterrupt  # the process dies between the temporary file and its rename
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        consolidation_history.lookup(ws, Person("alice", ws.people_dir / "alice"))
    monkeypatch.setattr(os, "replace", real_replace)
    folder = ws.state_dir / "consolidated"
    for path in folder.glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    assert not (folder / consolidation_history.FILENAME).exists()
    _forget_memo()
    lived_in("garden")
    people = json.loads((folder / consolidation_history.FILENAME).read_text(encoding="utf-8"))["people"]
    assert {slug: {d: n for d, (n, _) in people[slug].items()} for slug in expected} == expected
