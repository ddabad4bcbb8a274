"""A name several people answer to (issue 30, "Names"): at a terminal the
command asks which one and acts on the chosen person; piped or with --json
it fails in one line listing each candidate's slug, changing nothing; the
phone's /switch answers with the candidates as buttons and the slugs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import Runner, subjects
from terminal import CTRL_C, DOWN, ENTER, assert_clean_end, finish, screen_text, spawn

CLI = Path(__file__).resolve().parent.parent / "heartcompass" / "cli"


@pytest.fixture
def two_bos(example_cli: Runner) -> Runner:
    """Bob Stone and 博文 (alias Bobby): "bo" could be either."""
    example_cli("person", "add", "Bob Stone", "--relation", "friend", "-y")
    example_cli("person", "add", "王博文", "--alias", "Bobby", "--relation", "friend", "-y")
    return example_cli


COMMANDS = [("person", "show", "bo"), ("person", "show", "bo", "--json"), ("context", "bo"),
            ("chat", "bo", "-m", "hi"), ("tell", "bo", "She moved", "-y"), ("voice", "bo"),
            ("quote", "bo", "see you!"), ("edit", "bo"), ("person", "rename", "bo", "Robert"),
            ("person", "archive", "bo"), ("person", "export", "bo"), ("log", "bo"), ("diff", "bo"), ("import", "bo", "nothing.txt"),
            ("graph", "bo"),
            ("coach", "bo", "what now?"), ("garden", "-p", "bo")]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_without_a_terminal_an_ambiguous_name_fails_listing_the_slugs_and_changes_nothing(two_bos: Runner, args):
    before, people = subjects(two_bos.ws), sorted(p.name for p in two_bos.ws.people_dir.iterdir())
    result = two_bos(*args, ok=False)
    assert result.exit_code == 1, result.output
    assert "'bo' could be several people: bob-stone, 王博文." in result.output and "slug" in result.output
    assert "Traceback" not in result.output
    assert subjects(two_bos.ws) == before and sorted(p.name for p in two_bos.ws.people_dir.iterdir()) == people


def test_the_error_carries_each_candidates_slug_and_name(two_bos: Runner):
    from heartcompass.errors import AmbiguousPerson
    from heartcompass.store.people import resolve

    with pytest.raises(AmbiguousPerson) as caught:
        resolve(two_bos.ws, "BO")
    assert caught.value.name == "BO" and caught.value.candidates == [("bob-stone", "Bob Stone"), ("王博文", "王博文")]


def test_every_cli_person_lookup_goes_through_the_one_that_asks():
    """A command that resolved names itself would fail where it should ask."""
    imports = 0
    for module in CLI.glob("*.py"):
        if module.name == "lookup.py":
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "heartcompass.store.people":
                imports += 1
                assert "resolve" not in {a.name for a in node.names}, module.name
    assert imports > 0  # the commands do import from store.people: the check had something to look at


def test_on_a_terminal_person_show_asks_which_one_and_shows_the_chosen(two_bos: Runner):
    child = spawn(two_bos.ws.root, "person", "show", "bo")
    child.expect("could be several people: which one")
    child.expect("王博文")
    child.send(DOWN + ENTER)  # the second: 王博文
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert "Bobby" in screen_text(raw).split("which one")[-1]


def test_on_a_terminal_rename_acts_on_the_chosen_person(two_bos: Runner):
    child = spawn(two_bos.ws.root, "person", "rename", "bo", "Robert Stone")
    child.expect("could be several people: which one")
    child.send(ENTER)  # the first: Bob Stone
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    names = sorted(p.name for p in two_bos.ws.people_dir.iterdir())
    assert "robert-stone" in names and "bob-stone" not in names and "王博文" in names
    assert "Bob Stone" in two_bos("person", "show", "robert-stone", "--json").output  # the old name, an alias


def test_with_json_on_a_terminal_no_question_is_asked(two_bos: Runner):
    code, raw = finish(spawn(two_bos.ws.root, "person", "show", "bo", "--json"))
    assert code == 1 and "bob-stone, 王博文" in screen_text(raw) and "which one" not in screen_text(raw)


def test_ctrl_c_at_the_question_exits_130_and_changes_nothing(two_bos: Runner):
    before = subjects(two_bos.ws)
    child = spawn(two_bos.ws.root, "person", "archive", "bo")
    child.expect("could be several people: which one")
    child.send(CTRL_C)
    code, raw = finish(child)
    assert code == 130 and "Cancelled; nothing was done." in screen_text(raw)
    assert subjects(two_bos.ws) == before and (two_bos.ws.people_dir / "bob-stone").is_dir()
    assert (two_bos.ws.people_dir / "王博文").is_dir()
