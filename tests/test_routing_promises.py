"""The import's promises on a real workspace, tested through the core API
(intake/routing.directory, importers.import_and_commit) with no CLI: who
each sender is comes from everyone's profiles (a broken one is skipped, the
user's own handles are the user's, a handle two people list stays with the
first); an import writes each line once, on its day, in one commit that
says what it brought, and the voice it tallies as it writes is the voice
the logs give."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from conftest import git

from heartcompass.formats import dailylog
from heartcompass.intake import importers, routing
from heartcompass.intake.exports import Export, Message, Report
from heartcompass.memory import voice, voice_tally
from heartcompass.store.people import Person, create

NOW = dt.datetime(2026, 12, 1, 20, 0)
D1, D2, D3 = dt.datetime(2026, 11, 27, 9, 0), dt.datetime(2026, 11, 28, 9, 0), dt.datetime(2026, 11, 29, 9, 0)


def _as_sam(ws, handles: list[str]) -> None:
    """The workspace's own person (relation: self), renamed Sam, with the user's handles."""
    listed = "".join(f"- {h}\n" for h in handles)
    (ws.people_dir / "me" / "PROFILE.md").write_text(
        f"---\nname: Sam\naliases: []\nrelation: self\ntags: []\nrelated: []\nhandles:\n{listed}---\n\n# Sam\n",
        encoding="utf-8")


def _people(ws) -> None:
    create(ws, "Alice", "friend", aliases=["小艾"], extra={"handles": ["@Alice_C", "alice_c", "wxid_a"]})
    create(ws, "Bob", "friend", extra={"handles": ["WXID_A", "wxid_bob"]})
    _as_sam(ws, ["wxid_sam"])
    broken = ws.people_dir / "zed"
    broken.mkdir()
    (broken / "PROFILE.md").write_text("---\nname: [Zed\n---\n", encoding="utf-8")  # not YAML: doctor's to name
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "the people")


# -- who is who: routing.directory and claimed_twice ---------------------------------------------------------------

def test_the_directory_knows_everyone_by_name_and_handle_and_the_user_by_their_own(ws):
    """Every readable profile's names and handles (a broken one skipped, not
    a crash); the user's handles mark the user, never a person to file under;
    a handle Alice and Bob both list stays Alice's (the first), not moved to Bob."""
    _people(ws)
    who = routing.directory(ws)
    assert who.names == {"alice": ["Alice", "小艾"], "bob": ["Bob"], "me": ["Sam"]}
    assert who.display == {"alice": "Alice", "bob": "Bob", "me": "Sam"}
    assert who.self_slug == "me" and who.mine == {"wxid_sam"}
    assert who.handles == {"alice_c": "alice", "wxid_a": "alice", "wxid_bob": "bob"}
    assert who.person_for("Sam W", "WXID_SAM") is None and who.is_user("WXID_SAM")
    assert who.person_for("Sam") is None  # the user's own name is no one to file under
    assert who.person_for("B O B") == "bob" and who.person_for("x", "@wxid_bob") == "bob"


def test_an_exports_other_handle_reaches_the_person_or_the_user_it_belongs_to(ws):
    """A Discord id whose username a profile lists is that person's (or the
    user's); an id already someone's is not taken from them; an unknown pair adds nobody."""
    _people(ws)
    aka = {"ID_Alice": "@ALICE_C", "id_sam": "WXID_sam", "id_x": "nobody", "wxid_bob": "wxid_a"}
    who = routing.directory(ws, aka)
    assert who.person_for("someone", "id_alice") == "alice"
    assert who.is_user("ID_SAM") and who.person_for("someone", "id_sam") is None
    assert who.person_for("someone", "id_x") is None and not who.is_user("id_x")
    assert who.handles["wxid_bob"] == "bob"
    assert who.mine == {"wxid_sam", "id_sam"}
    assert set(who.handles) == {"alice_c", "wxid_a", "wxid_bob", "id_alice"}


def test_doctor_hears_of_each_handle_two_people_list_once_whatever_its_spelling(ws):
    """Alice lists @Alice_C and alice_c (one handle, hers alone); WXID_A and
    wxid_a are listed by Alice and Bob: that one is named, with both; a broken
    profile is skipped."""
    _people(ws)
    assert routing.claimed_twice(ws) == [("wxid_a", ["alice", "bob"])]


def test_no_handle_claimed_twice_is_no_complaint(ws):
    create(ws, "Alice", "friend", extra={"handles": ["a1"]})
    create(ws, "Bob", "friend", extra={"handles": ["b1"]})
    assert routing.claimed_twice(ws) == []
    assert routing.directory(ws).handles == {"a1": "alice", "b1": "bob"}  # ... and both were read


# -- the import itself: importers.import_and_commit -----------------------------------------------------------------

def _export(msgs: list[Message], group: str | None = None) -> Export:
    """The export as the first read counts it (exports._read), its messages kept in memory."""
    export = Export(lambda: iter(msgs), Report(group=group))
    previous = None
    for msg in msgs:
        export.total += 1
        export.days.add(msg.when.date())
        export.undated += msg.undated
        if msg.placeholder:
            export.placeholders[msg.placeholder] += 1
            continue
        sender = (msg.speaker, msg.handle, msg.mine)
        export.senders[sender] += 1
        export.last[sender] = msg.when.date()
        if previous is not None and msg.when.date() < previous:
            export.in_order = False
        previous = msg.when.date()
    return export


def _chat() -> list[Message]:
    """A one-to-one chat with Alice over two days, the user writing as Sam."""
    return [Message(D1, "Sam", "周末有空吗", 1, mine=True),
            Message(D1 + dt.timedelta(minutes=1), "Alice", "有！去爬山吧", 2),
            Message(D1 + dt.timedelta(minutes=2), "Alice", "<Media omitted>", 3, placeholder="media"),
            Message(D2, "Alice", "早上好 see you at the trailhead", 4),
            Message(D2 + dt.timedelta(minutes=5), "Alice", "line one\r\nline two", 5)]


def _import(ws, msgs: list[Message], fmt: str = "whatsapp", group: str | None = None, person: str | None = "alice"):
    export = _export(msgs, group)
    who = routing.directory(ws, export.aka)
    router = importers.Router(export, None, who, NOW, person, group is not None, "chat")
    return importers.import_and_commit(ws, export, router, fmt)


def _log(ws, slug: str, day: dt.datetime) -> list[tuple[str, str, str]]:
    path = dailylog.log_path(ws.people_dir / slug, day.date())
    return [(e.time, e.speaker, e.text) for e in dailylog.load(path)] if path.exists() else []


def _subject_and_body(ws) -> tuple[str, str]:
    subject, _, body = git(ws, "log", "-1", "--format=%B").strip().partition("\n")
    return subject, body.strip()


def _names(ws, slug: str) -> list[str]:
    return Person(slug, ws.people_dir / slug).load_profile().names()


def _same_tally(ws, slug: str) -> None:
    """The tally the import kept is the one every log gives, line for line."""
    names = _names(ws, slug)
    kept = voice_tally.Tally.load(voice.tally_path(ws, slug).read_text(encoding="utf-8"), names, [])
    full = voice_tally.rebuild(ws.people_dir / slug, names, [])
    assert kept is not None
    assert kept.them == full.them and kept.speakers == full.speakers
    assert {k: vars(c) for k, c in kept.theirs.items()} == {k: vars(c) for k, c in full.theirs.items()}
    assert {k: vars(c) for k, c in kept.mine.items()} == {k: vars(c) for k, c in full.mine.items()}
    assert kept.runs == full.runs and kept.files == full.files


def test_an_import_writes_each_message_on_its_day_in_one_commit_that_says_so(ws):
    """Both sides of the chat on their own dates, a stand-in left out; one
    commit naming how many messages from which app, day by day; the voice
    file in it; nothing left uncommitted."""
    _people(ws)
    added, sha = _import(ws, _chat())
    assert added == {"alice": {"2026-11-27": 2, "2026-11-28": 2}}
    assert _log(ws, "alice", D1) == [("09:00:00", "import:me", "周末有空吗"), ("09:01:00", "import:Alice", "有！去爬山吧")]
    assert _log(ws, "alice", D2) == [("09:00:00", "import:Alice", "早上好 see you at the trailhead"),
                                     ("09:05:00", "import:Alice", "line one\nline two")]
    assert sha == git(ws, "rev-parse", "HEAD").strip()
    assert _subject_and_body(ws) == ("import(alice): 4 messages from a whatsapp export",
                                     "- 2026-11-27: 2\n- 2026-11-28: 2")
    assert "people/alice/VOICE.md" in git(ws, "show", "--name-only", "--format=", "HEAD").split()
    assert git(ws, "status", "--porcelain") == ""
    assert "有！去爬山吧" in (ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")
    _same_tally(ws, "alice")


def test_importing_the_same_chat_again_adds_nothing_and_commits_nothing(ws):
    _people(ws)
    _import(ws, _chat())
    head = git(ws, "rev-parse", "HEAD")
    assert _import(ws, _chat()) == ({}, None)
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""
    assert len(_log(ws, "alice", D1)) == 2  # ... and the first import's lines are still there, once


def test_an_apps_name_starting_with_a_vowel_takes_an(ws):
    _people(ws)
    _import(ws, _chat()[:2], fmt="imessage")
    assert _subject_and_body(ws) == ("import(alice): 2 messages from an imessage export", "- 2026-11-27: 2")


def test_a_later_export_adds_only_its_new_lines_and_keeps_the_voice_as_the_logs_give_it(ws):
    """The same chat exported later: the days already there gain only what
    they lack; the voice tallied while writing is what every log gives."""
    _people(ws)
    _import(ws, _chat())
    later = [*_chat(), Message(D2 + dt.timedelta(minutes=6), "Sam", "OK 到时见", 6, mine=True),
             Message(D3, "Alice", "昨天很开心 thanks for coming", 7)]
    added, sha = _import(ws, later)
    assert added == {"alice": {"2026-11-28": 1, "2026-11-29": 1}} and sha
    assert [t for _, _, t in _log(ws, "alice", D2)] == ["早上好 see you at the trailhead", "line one\nline two",
                                                        "OK 到时见"]
    assert _subject_and_body(ws) == ("import(alice): 2 messages from a whatsapp export",
                                     "- 2026-11-28: 1\n- 2026-11-29: 1")
    _same_tally(ws, "alice")


GROUP = [Message(D1, "Bob", "周六去爬山吗？", 1), Message(D1 + dt.timedelta(minutes=1), "Alice", "好啊！", 2),
         Message(D1 + dt.timedelta(minutes=2), "Carol", "I'm in", 3),
         Message(D2, "Bob", "7点出发", 4), Message(D2 + dt.timedelta(minutes=1), "Alice", "收到", 5)]


def test_a_group_import_is_one_commit_naming_each_member_and_the_group(ws):
    """Each known member's own lines to their log, with what came just before
    as context; one commit for all of them, each named with their days."""
    _people(ws)
    added, sha = _import(ws, GROUP, group="周末徒步群", person=None)
    assert added == {"bob": {"2026-11-27": 1, "2026-11-28": 1}, "alice": {"2026-11-27": 1, "2026-11-28": 1}}
    assert list(added) == ["bob", "alice"]  # in the order of their first line in the export
    assert _subject_and_body(ws) == (
        "import: 4 messages from a whatsapp export of 周末徒步群 (alice, bob)",
        "- bob 2026-11-27: 1\n- bob 2026-11-28: 1\n- alice 2026-11-27: 1\n- alice 2026-11-28: 1")
    # a context line is on the day it was said: Carol's "I'm in" is context for both, on the 27th
    assert [(s, t) for _, s, t in _log(ws, "alice", D1)] == [("context:Bob", "周六去爬山吗？"), ("import:Alice", "好啊！"),
                                                             ("context:Carol", "I'm in")]
    assert [(s, t) for _, s, t in _log(ws, "alice", D2)] == [("context:Bob", "7点出发"), ("import:Alice", "收到")]
    assert [(s, t) for _, s, t in _log(ws, "bob", D1)] == [("import:Bob", "周六去爬山吗？"), ("context:Alice", "好啊！"),
                                                           ("context:Carol", "I'm in")]
    assert [(s, t) for _, s, t in _log(ws, "bob", D2)] == [("import:Bob", "7点出发")]
    assert git(ws, "status", "--porcelain") == ""
    _same_tally(ws, "alice")
    _same_tally(ws, "bob")


def test_a_context_line_from_the_day_before_waits_for_the_members_answer(ws):
    """Bob asks at 23:59, Alice answers after midnight: his question is her
    context on the day it was said, in the same one write of that day."""
    _people(ws)
    late = [Message(D1.replace(hour=23, minute=59), "Bob", "明天几点？", 1),
            Message(D2.replace(hour=0, minute=1), "Alice", "八点", 2)]
    added, _ = _import(ws, late, group="周末徒步群", person=None)
    assert added == {"bob": {"2026-11-27": 1}, "alice": {"2026-11-28": 1}}
    assert [(s, t) for _, s, t in _log(ws, "alice", D1)] == [("context:Bob", "明天几点？")]
    assert [(s, t) for _, s, t in _log(ws, "alice", D2)] == [("import:Alice", "八点")]
    _same_tally(ws, "alice")


def test_only_context_lines_new_is_still_a_commit_of_them(ws):
    """Alice's own lines are already in her log; the group brings the lines
    around them: those are committed, and nothing counts as a message added."""
    _people(ws)
    importers.to_logs(ws.people_dir / "alice", [importers.Line(GROUP[1].when, "import:Alice", "好啊！"),
                                                importers.Line(GROUP[4].when, "import:Alice", "收到")], durable=False)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "alice's own lines")
    assert _import(ws, GROUP, group="周末徒步群", person="alice") == ({}, None)
    assert _subject_and_body(ws)[0] == "import(alice): context lines from a group export"
    assert git(ws, "status", "--porcelain") == ""
    assert [s for _, s, _ in _log(ws, "alice", D1)] == ["import:Alice", "context:Bob", "context:Carol"]
    assert [s for _, s, _ in _log(ws, "alice", D2)] == ["import:Alice", "context:Bob"]


def test_an_export_out_of_day_order_lands_each_line_on_its_day(ws):
    """A day that comes back later in the export is written again, adding
    only its new lines; the voice is read back from the logs, the same."""
    _people(ws)
    jumbled = [Message(D2, "Alice", "second day", 1), Message(D1, "Alice", "first day", 2),
               Message(D2 + dt.timedelta(minutes=1), "Sam", "again the second", 3, mine=True),
               Message(D3, "Alice", "third day 很好", 4)]
    added, sha = _import(ws, jumbled)
    assert added == {"alice": {"2026-11-27": 1, "2026-11-28": 2, "2026-11-29": 1}} and sha
    assert [t for _, _, t in _log(ws, "alice", D2)] == ["second day", "again the second"]
    assert [t for _, _, t in _log(ws, "alice", D1)] == ["first day"]
    assert git(ws, "status", "--porcelain") == ""
    _same_tally(ws, "alice")


@pytest.mark.parametrize("in_order", [True, False])
def test_a_big_export_is_written_in_bounded_batches_and_nothing_is_lost_or_doubled(ws, monkeypatch, in_order):
    """Past FLUSH_LINES held lines the held part is written: every line lands
    once, on its day, in time order, however the batches fall."""
    _people(ws)
    monkeypatch.setattr(importers, "FLUSH_LINES", 3)
    msgs = [Message(day + dt.timedelta(minutes=i), "Alice" if i % 2 else "Sam", f"{day.day} 第{i}句", i, mine=not i % 2)
            for day in (D1, D2, D3) for i in range(5)]
    if not in_order:
        msgs = msgs[5:] + msgs[:5]
    added, _ = _import(ws, msgs)
    assert added == {"alice": {"2026-11-27": 5, "2026-11-28": 5, "2026-11-29": 5}}
    for day in (D1, D2, D3):
        assert [t for _, _, t in _log(ws, "alice", day)] == [f"{day.day} 第{i}句" for i in range(5)]
    assert git(ws, "status", "--porcelain") == ""
    _same_tally(ws, "alice")


def test_a_damaged_day_log_stops_the_import_before_anything_is_written(ws):
    """One day file the logs hold is broken: the import refuses before any
    write, and nothing is committed."""
    from heartcompass.errors import FormatError

    _people(ws)
    path = dailylog.log_path(ws.people_dir / "alice", D2.date())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# 2026-11-28\n\nnot an entry\n", encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "a broken log")
    head = git(ws, "rev-parse", "HEAD")
    with pytest.raises(FormatError):
        _import(ws, _chat())
    assert not dailylog.log_path(ws.people_dir / "alice", D1.date()).exists()
    assert git(ws, "rev-parse", "HEAD") == head
    assert Counter(git(ws, "status", "--porcelain").split()) == Counter()
