"""Commit subjects: one builder and one parser (subjects.subject, subjects.parse_subject),
and every commit a typical workspace's life makes reads back with them."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import Runner, git, subjects
from heartcompass.store.subjects import OURS, Subject, Verb, is_hand_subject, parse_subject, scope_of, subject

SCOPES = ["alice", "小明", "josé", "alice-(work)", "config", None]
WHATS = ["new person", "KEY = 'a: b'", "“好呀～明天见”", "from 老王", "add(alice): new person",
         "nothing new"]


@pytest.mark.parametrize("verb", list(Verb))
def test_every_subject_reads_back_as_it_was_built(verb):
    for scope in SCOPES:
        for what in WHATS:
            assert parse_subject(subject(verb, scope, what)) == Subject(verb.value, scope, what)


def test_the_shapes_we_have_always_written_are_unchanged():
    assert subject(Verb.ADD, "alice", "new person") == "add(alice): new person"
    assert subject(Verb.INIT, None, "new HeartCompass workspace") == "init: new HeartCompass workspace"
    assert subject(Verb.CONFIG, None, "user.name = 'Lei'") == "config: user.name = 'Lei'"
    assert subject(Verb.UNDO, "小明", "add(小明): new person") == "undo(小明): add(小明): new person"


def test_what_is_the_users_and_what_is_ours():
    assert is_hand_subject("edit(alice): by hand") and is_hand_subject("edit(config): by hand")
    assert is_hand_subject("Fix a typo in Alice's profile") and is_hand_subject("fix(alice): typo")
    assert is_hand_subject("Merge branch 'main' of github.com:me/brain")
    assert not any(is_hand_subject(subject(v, "alice", "x")) for v in Verb if v is not Verb.EDIT)
    assert OURS == {v.value for v in Verb} - {"edit"}


def test_scope_of_a_subject_whose_slug_holds_a_parenthesis():
    assert scope_of("add(alice-(work)): new person") == "alice-(work)"
    assert scope_of("undo(alice): add(alice): new person") == "alice"
    assert scope_of("init: new HeartCompass workspace") == "workspace"
    assert scope_of("Fix typo") == "workspace"


def test_every_commit_of_a_typical_life_parses(example_cli: Runner, fake_llm, tmp_path):
    from test_coach_graph import ADVICE
    from test_garden import proposal
    from test_import import WHATSAPP_24H
    from test_tell import NO_ONE_NEW, berlin

    cli, ws = example_cli, example_cli.ws
    cli("person", "add", "小明", "--yes")
    cli("person", "add", "Bob (work)", "--yes")
    fake_llm.enqueue("hi!")
    cli("chat", "alice", "-m", "hello from the hike")  # "hello" alone supports nothing: a stop word
    fake_llm.enqueue(proposal(new_events=[{"date": dt.date.today().isoformat(), "text": "Said hello from the hike",
                                           "weight": 0.3, "evidence": ["L1"]}]))
    cli("garden")
    profile = ws.people_dir / "小明" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace("## Likes\n", "## Likes\n\n奶茶\n"),
                       encoding="utf-8")
    cli("person", "rename", "小明", "王小明")
    cli("person", "archive", "bob-work")  # "Bob (work)": slugs drop punctuation
    cli("person", "unarchive", "bob-work")
    cli("config", "set", "user.name", "王磊")
    (ws.root / "heartcompass.toml").write_text((ws.root / "heartcompass.toml").read_text() + "\n# mine\n")
    cli("config", "unset", "user.name")
    export = tmp_path / "chat.txt"
    export.write_text(WHATSAPP_24H, encoding="utf-8")
    cli("import", "alice", str(export), "--me", "王磊")
    cli("quote", "alice", "好呀～明天见: 9点")
    cli("voice", "alice", "--refresh")
    fake_llm.enqueue(berlin(), NO_ONE_NEW)
    cli("tell", "alice", "She got promoted and is moving to Berlin in March", "--yes")
    fake_llm.enqueue(ADVICE)
    cli("coach", "alice", "are you coming?", "--save")
    cli("restore", "alice", "memory", "--at", "HEAD~3")
    cli("undo")
    made = subjects(ws)
    verbs = set()
    for text in made:
        parsed = parse_subject(text)
        assert parsed is not None, text
        assert subject(Verb(parsed.verb), parsed.scope, parsed.what) == text
        assert is_hand_subject(text) == (parsed.verb == "edit"), text
        verbs.add(parsed.verb)
    assert {"init", "add", "chat", "edit", "rename", "archive", "unarchive", "config", "import", "quote",
            "voice", "tell", "coach", "garden", "restore", "undo"} <= verbs, sorted(verbs)
    assert git(ws, "status", "--porcelain") == ""
