"""What a killed tell or garden left unfinished, and the names that become
folders (issue 29: store/unfinished's mutants, beside test_store_promises.py):
a journal keeps everything the next run needs to finish the work; finishing
never overwrites a hand edit that lands meanwhile, nor reads anything
outside people/ into a commit; a refused name says why and what to type
instead. Temporary workspaces and pure functions; no CLI, no subprocess
but the test's own look at git."""

from __future__ import annotations

import json

import pytest
from conftest import git

from heartcompass.atomic import file_checksum
from heartcompass.errors import HeartCompassError, PersonError
from heartcompass.store import unfinished
from heartcompass.store.slugs import clean_name, slugify

MEMORY = "people/alice/MEMORY.md"


def test_a_gardens_journal_keeps_the_consolidation_state_it_moves(example_ws):
    """The next garden moves these days with the files: they must be in the journal as given."""
    ws = example_ws
    journal = unfinished.garden_journal_path(ws, "alice")
    path = ws.root / MEMORY
    days = {"2026-12-01": [3, "5ca1ab1e"]}
    unfinished.save(ws, journal, {path: (file_checksum(path), "new text\n")}, "garden(alice): 1 fact", "body", days=days)
    data = json.loads(journal.read_text(encoding="utf-8"))
    assert data == {"subject": "garden(alice): 1 fact", "body": "body", "days": days, "keep": [],
                    "files": {MEMORY: {"old": file_checksum(path), "new": "new text\n"}}}
    unfinished.save(ws, journal, {path: (None, "x")}, "s", "")
    assert json.loads(journal.read_text(encoding="utf-8"))["days"] == {}


def test_a_hand_edit_landing_while_a_journal_is_finished_is_never_overwritten(example_ws, monkeypatch):
    """The file looked as the journal found it, then the user saved an edit
    before our write: the write is refused and their edit stays."""
    ws = example_ws
    path = ws.root / MEMORY
    old = path.read_text(encoding="utf-8")
    unfinished.save(ws, unfinished.tell_journal_path(ws, "alice"), {path: (file_checksum(path), old + "- told\n")},
                    "tell(alice): told", "")
    real = unfinished.file_checksum

    def checked_then_edited(p):
        found = real(p)
        p.write_text(old + "- mine, typed just now\n", encoding="utf-8")
        return found

    monkeypatch.setattr(unfinished, "file_checksum", checked_then_edited)
    with pytest.raises(HeartCompassError, match="changed on disk"):
        unfinished.finish_told(ws)
    assert path.read_text(encoding="utf-8") == old + "- mine, typed just now\n"


def test_a_kept_path_that_climbs_out_of_people_is_never_read_into_a_commit(example_ws):
    """A journal edited (or broken) to keep people/../notes.md: not committed."""
    ws = example_ws
    (ws.root / "notes.md").write_text("not for a commit\n", encoding="utf-8")
    path = ws.root / MEMORY
    new = path.read_text(encoding="utf-8") + "- told\n"
    journal = unfinished.tell_journal_path(ws, "alice")
    unfinished.save(ws, journal, {path: (file_checksum(path), new)}, "tell(alice): told", "")
    data = json.loads(journal.read_text(encoding="utf-8"))
    data["keep"] = ["people/../notes.md", 7]
    journal.write_text(json.dumps(data), encoding="utf-8")
    assert unfinished.finish_told(ws)
    assert git(ws, "show", "--name-only", "--format=", "HEAD").split() == [MEMORY]
    assert git(ws, "status", "--porcelain", "--", "notes.md").startswith("??")


# -- slugs: what a refused name says -----------------------------------------------------------------------------
def refusal(name) -> tuple[str, str | None]:
    with pytest.raises(PersonError) as exc:
        slugify(name)
    return exc.value.message, exc.value.hint


def test_a_missing_or_empty_name_says_so():
    with pytest.raises(PersonError) as exc:
        clean_name(None)  # type: ignore[arg-type]
    assert (exc.value.message, exc.value.hint) == ("A person needs a name.", None)
    assert refusal("  ") == ("A person's name cannot be empty.", None)


@pytest.mark.parametrize("ch", ["\x07", "\u200b", "\ud800", "\ue000", "\u2028", "\u2029"])
def test_a_control_surrogate_private_or_separator_character_is_named(ch):
    """Each kind is refused by its code point, before any cleaning could hide it."""
    assert refusal(f"Al{ch}ice") == (f"The name {'Al' + ch + 'ice'!r} contains a control or invisible character "
                                     f"(U+{ord(ch):04X}).", "Type the name again without it.")


def test_an_invisible_filler_says_to_type_the_name_again():
    assert refusal("Ali\u3164ce") == ("The name 'Ali\u3164ce' contains an invisible character.",
                                      "Type the name again without it.")


def test_a_name_without_letters_a_device_name_or_too_long_says_what_to_use():
    assert refusal("???") == ("The name '???' has no letters or digits left to name a folder with.",
                              "Use a name with at least one letter or digit.")
    assert refusal("Con") == ("The name 'Con' gives the folder name 'con', which Windows reserves for a device "
                              "(CON, PRN, AUX, NUL, COM1-9, LPT1-9), so the workspace could not sync to a Windows "
                              "machine.", "Use a longer name, e.g. with a last name or a nickname.")
    assert refusal("a" * 121) == (f"The name '{'a' * 121}' is too long for a folder name (120 bytes at most).", None)


def test_a_name_that_could_point_outside_says_what_to_type_instead():
    assert refusal("a/b") == ("The name 'a/b' contains '..', '/' or '\\', which could point outside the workspace.",
                              "Use a plain name such as 'Alice' or '小明'.")
