"""Which lines are the user's (hand_lines) is decided as git blame decides
it, but blame runs only where it can change the answer: never on a file only
our commits touched, never on one only the user's commits touched (a bulk
commit of their own: every line is theirs), at most once per file that both
wrote, and not again on the next garden (issue 32)."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import Runner, git
from garden_helpers import proposal, say
from heartcompass.memory.hand_lines import hand_history, hand_lines
from heartcompass.store.gitrepo import WorkspaceGit
from heartcompass.store.people import create, list_people, resolve
from heartcompass.store.subjects import Verb, is_hand_subject, subject

BULK_LINE = "- 周末喜欢去爬山,不吃香菜"
CRLF_LINE = "- Keeps a paper diary\r"
HAND_LINE = "- Bob told me himself: he is allergic to peanuts (hand)"
OUR_LINE = "- Works at the bakery (log 2026-12-01)"


def _by_blame(ws, person) -> set[str]:
    """Today's definition: every line git blame credits to a hand commit."""
    return {text for path in person.files() for subj, text in ws.git.blame(path)
            if is_hand_subject(subj) and text.strip() not in ("", "---")}


def _append(path, line: str) -> None:
    path.write_bytes(path.read_bytes() + line.encode("utf-8") + b"\n")


def _ours(ws, slug: str, what: str) -> None:
    """A commit with HeartCompass's own subject, as the gardener makes it."""
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", subject(Verb.GARDEN, slug, what))


def _bulk(ws, names: list[str]) -> None:
    """People that came in by the user's own plain commit (a migration)."""
    for name in names:
        person = create(ws, name, "friend", facts=["Likes tea"])
        _append(person.memory_path, BULK_LINE)
        _append(person.memory_path, CRLF_LINE)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "import my old notes")


@pytest.fixture
def garden(cli: Runner):
    """A workspace with every kind of history a person's files can have."""
    ws = cli.ws
    _bulk(ws, ["Dora", "Eve"])
    cli("person", "add", "Ours", "--relation", "friend")  # only our commits
    cli("person", "add", "Bob", "--relation", "friend")
    _append(ws.people_dir / "bob" / "MEMORY.md", OUR_LINE)
    _ours(ws, "bob", "memory updated")
    _append(ws.people_dir / "bob" / "MEMORY.md", HAND_LINE)
    git(ws, "commit", "-qam", "my note on bob")  # a hand edit over our lines
    _append(ws.people_dir / "eve" / "MEMORY.md", OUR_LINE)
    _ours(ws, "eve", "memory updated")  # the gardener wrote over a bulk person's file
    cli("person", "add", "Finn", "--relation", "friend")
    git(ws, "mv", "people/finn", "people/moved")  # the user moved a folder only we wrote: blame follows it back
    git(ws, "commit", "-qm", "rename finn's folder")
    return cli


def test_the_hand_lines_found_are_those_blame_finds_on_every_kind_of_history(garden: Runner, monkeypatch):
    """Old vs new: the first look decides exactly what blaming every file
    decides, for a bulk plain commit, a hand edit over our lines, our
    commits over a bulk person, a moved folder, and our commits only."""
    ws = garden.ws
    history = hand_history(ws)
    found = {}
    for person in list_people(ws):
        heads = ws.git.blob_ids(person.files())
        found[person.slug] = hand_lines(ws, person, heads, history.get(person.slug))
        assert found[person.slug] == _by_blame(ws, person), person.slug
    assert CRLF_LINE.rstrip("\r") in found["dora"]  # blame's reader ends its line at the "\r"
    assert BULK_LINE in found["dora"] and "- Likes tea (import)" in found["dora"]
    assert BULK_LINE in found["eve"] and OUR_LINE not in found["eve"]
    assert HAND_LINE in found["bob"] and OUR_LINE not in found["bob"]
    assert not found["moved"] and (ws.people_dir / "moved" / "MEMORY.md").read_text().strip()
    assert found["ours"] == set() and (ws.people_dir / "ours" / "PROFILE.md").read_text().strip()


def test_a_committed_file_read_from_git_when_the_working_file_changed(garden: Runner):
    """A bulk person's file edited since the commit: its lines are the
    committed ones (as blame's), not the working file's."""
    ws = garden.ws
    dora = resolve(ws, "dora")
    heads = ws.git.blob_ids(dora.files())
    _append(dora.memory_path, "- not committed yet")
    lines = hand_lines(ws, dora, heads, hand_history(ws)["dora"])
    assert BULK_LINE in lines and "- not committed yet" not in lines


def _count_blames(monkeypatch) -> Counter:
    blamed: Counter = Counter()
    real = WorkspaceGit._git

    def counting(self, *args, **kwargs):
        if args and args[0] == "blame":
            blamed[args[-1]] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WorkspaceGit, "_git", counting)
    return blamed


def test_blame_runs_only_on_files_both_we_and_the_user_wrote_and_once(garden: Runner, fake_llm, monkeypatch):
    """First garden: no blame for a person only our commits (or only the
    user's bulk commit) touched, one per file both wrote; second garden:
    none, while the hand lines still reach the model."""
    ws = garden.ws
    blamed = _count_blames(monkeypatch)
    slugs = sorted(p.slug for p in list_people(ws))
    for round_ in (1, 2):
        for slug in slugs:
            say(ws, slug, "me", f"news from {slug}, round {round_}", time=f"2{round_}:00:00")
        fake_llm.enqueue(*[proposal(nothing_worth_keeping=True) for _ in slugs])
        garden("garden")
        asked = fake_llm.requests("garden")
        assert len(asked) == round_ * len(slugs)  # every person was gardened
        prompts = "\n".join(request.prompt for request in asked[-len(slugs):])
        assert BULK_LINE in prompts and HAND_LINE in prompts  # their hand lines still shown as theirs
        if round_ == 1:
            assert set(blamed) == {"people/bob/MEMORY.md", "people/eve/MEMORY.md", "people/moved/PROFILE.md",
                                   "people/moved/EVENTS.md", "people/moved/MEMORY.md"}
            assert max(blamed.values()) == 1
            first = dict(blamed)
    assert dict(blamed) == first  # the second garden blamed nothing
