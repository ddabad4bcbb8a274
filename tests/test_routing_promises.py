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
from heartcompass.store.people import Person

NOW = dt.datetime(2026, 12, 1, 20, 0)
D1, D2, D3 = dt.datetime(2026, 11, 27, 9, 0), dt.datetime(2026, 11, 28, 9, 0), dt.datetime(2026, 11, 29, 9, 0)


def _profile(ws, slug: str, name: str, relation: str, handles: list[str], aliases: list[str] = ()) -> None:
    """A PROFILE.md as `person add` writes one (written here directly: a test pays for one workspace, not five adds)."""
    listed = lambda items: "".join(f"\n- '{i}'" for i in items) or " []"  # noqa: E731
    (ws.people_dir / slug).mkdir(exist_ok=True)
    (ws.people_dir / slug / "PROFILE.md").write_text(
        f"---\nname: {name}\naliases:{listed(aliases)}\nrelation: {relation}\ntags: []\nrelated: []\n"
        f"handles:{listed(handles)}\n---\n\n# {name}\n", encoding="utf-8")


@pytest.fixture
def peopled(tmp_path):
    """A workspace with Alice, Bob, Nina, the user (Sam, relation self) and a
    broken profile (abby, sorted first), all committed."""
    from heartcompass.store.creation import create_workspace

    ws, _ = create_workspace(tmp_path / "brain")
    _profile(ws, "alice", "Alice", "friend", ["@Alice_C", "alice_c", "wxid_a"], ["小艾"])
    _profile(ws, "bob", "Bob", "friend", ["WXID_A", "wxid_bob"])
    _profile(ws, "nina", "Nina", "friend", ["nina_n"])
    _profile(ws, "me", "Sam", "self", ["wxid_sam"])
    (ws.people_dir / "abby").mkdir()
    (ws.people_dir / "abby" / "PROFILE.md").write_text("---\nname: [Abby\n---\n", encoding="utf-8")  # not YAML
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "the people")
    return ws


# -- who is who: routing.directory and claimed_twice ---------------------------------------------------------------

def test_the_directory_knows_everyone_by_name_and_handle_and_the_user_by_their_own(peopled):
    """Every readable profile's names and handles (a broken one skipped, not
    a crash); the user's handles mark the user, never a person to file under;
    a handle Alice and Bob both list stays Alice's (the first), not moved to Bob."""
    ws = peopled
    who = routing.directory(ws)
    assert who.names == {"alice": ["Alice", "小艾"], "bob": ["Bob"], "me": ["Sam"], "nina": ["Nina"]}
    assert who.display == {"alice": "Alice", "bob": "Bob", "me": "Sam", "nina": "Nina"}
    assert who.self_slug == "me" and who.mine == {"wxid_sam"}
    assert who.handles == {"alice_c": "alice", "wxid_a": "alice", "wxid_bob": "bob", "nina_n": "nina"}
    assert who.person_for("Sam W", "WXID_SAM") is None and who.is_user("WXID_SAM")
    assert who.person_for("Sam") is None  # the user's own name is no one to file under
    assert who.person_for("B O B") == "bob" and who.person_for("x", "@wxid_bob") == "bob"


def test_an_exports_other_handle_reaches_the_person_or_the_user_it_belongs_to(peopled):
    """A Discord id whose username a profile lists is that person's (or the
    user's); an id already someone's is not taken from them; an unknown pair adds nobody."""
    ws = peopled
    aka = {"ID_Alice": "@ALICE_C", "id_sam": "WXID_sam", "id_x": "nobody", "wxid_bob": "wxid_a"}
    who = routing.directory(ws, aka)
    assert who.person_for("someone", "id_alice") == "alice"
    assert who.is_user("ID_SAM") and who.person_for("someone", "id_sam") is None
    assert who.person_for("someone", "id_x") is None and not who.is_user("id_x")
    assert who.handles["wxid_bob"] == "bob"
    assert who.mine == {"wxid_sam", "id_sam"}
    assert set(who.handles) == {"alice_c", "wxid_a", "wxid_bob", "nina_n", "id_alice"}


def test_doctor_hears_of_each_handle_two_people_list_once_whatever_its_spelling(peopled):
    """Alice lists @Alice_C and alice_c (one handle, hers alone); WXID_A and
    wxid_a are listed by Alice and Bob: that one is named, with both; a broken
    profile is skipped."""
    ws = peopled
    assert routing.claimed_twice(ws) == [("wxid_a", ["alice", "bob"])]


def test_no_handle_claimed_twice_is_no_complaint(peopled):
    ws = peopled
    profile = ws.people_dir / "bob" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace("WXID_A", "wxid_b"), encoding="utf-8")
    assert routing.claimed_twice(ws) == []
    assert routing.directory(ws).handles["wxid_b"] == "bob"  # ... and Bob's handles were read


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


def test_an_import_writes_each_message_on_its_day_in_one_commit_that_says_so(peopled, monkeypatch):
    """Both sides of the chat on their own dates, a stand-in left out; one
    commit naming how many messages from which app, day by day; the voice
    file in it, tallied from the lines as they were written (no log read
    back); nothing left uncommitted."""
    ws = peopled
    opened: list[str] = []
    real = voice_tally.read_text
    monkeypatch.setattr(voice_tally, "read_text", lambda path: opened.append(path.name) or real(path))
    added, sha = _import(ws, _chat())
    assert opened == []
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


def test_importing_the_same_chat_again_adds_nothing_and_commits_nothing(peopled):
    ws = peopled
    _import(ws, _chat())
    head = git(ws, "rev-parse", "HEAD")
    assert _import(ws, _chat()) == ({}, None)
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""
    assert len(_log(ws, "alice", D1)) == 2  # ... and the first import's lines are still there, once


def test_an_apps_name_starting_with_a_vowel_takes_an(peopled):
    ws = peopled
    _import(ws, _chat()[:2], fmt="imessage")
    assert _subject_and_body(ws) == ("import(alice): 2 messages from an imessage export", "- 2026-11-27: 2")


def test_a_later_export_adds_only_its_new_lines_and_keeps_the_voice_as_the_logs_give_it(peopled, monkeypatch):
    """The same chat exported later: the days already there gain only what
    they lack; the voice tallied while writing (from the tally the first
    import kept, no log read back) is what every log gives."""
    ws = peopled
    _import(ws, _chat())
    opened: list[str] = []
    real = voice_tally.read_text
    monkeypatch.setattr(voice_tally, "read_text", lambda path: opened.append(path.name) or real(path))
    later = [*_chat(), Message(D2 + dt.timedelta(minutes=6), "Sam", "OK 到时见", 6, mine=True),
             Message(D3, "Alice", "昨天很开心 thanks for coming", 7)]
    added, sha = _import(ws, later)
    assert added == {"alice": {"2026-11-28": 1, "2026-11-29": 1}} and sha
    assert opened == []
    assert [t for _, _, t in _log(ws, "alice", D2)] == ["早上好 see you at the trailhead", "line one\nline two",
                                                        "OK 到时见"]
    assert _subject_and_body(ws) == ("import(alice): 2 messages from a whatsapp export",
                                     "- 2026-11-28: 1\n- 2026-11-29: 1")
    _same_tally(ws, "alice")


GROUP = [Message(D1, "Bob", "周六去爬山吗？", 1), Message(D1 + dt.timedelta(minutes=1), "Alice", "好啊！", 2),
         Message(D1 + dt.timedelta(minutes=2), "Carol", "I'm in", 3),
         Message(D2, "Bob", "7点出发", 4), Message(D2 + dt.timedelta(minutes=1), "Alice", "收到", 5)]


def test_a_group_import_is_one_commit_naming_each_member_and_the_group(peopled):
    """Each known member's own lines to their log, with what came just before
    as context; one commit for all of them, each named with their days."""
    ws = peopled
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


def test_a_context_line_from_the_day_before_waits_for_the_members_answer(peopled):
    """Bob asks at 23:59, Alice answers after midnight: his question is her
    context on the day it was said, in the same one write of that day."""
    ws = peopled
    late = [Message(D1.replace(hour=23, minute=59), "Bob", "明天几点？", 1),
            Message(D2.replace(hour=0, minute=1), "Alice", "八点", 2)]
    added, _ = _import(ws, late, group="周末徒步群", person=None)
    assert added == {"bob": {"2026-11-27": 1}, "alice": {"2026-11-28": 1}}
    assert [(s, t) for _, s, t in _log(ws, "alice", D1)] == [("context:Bob", "明天几点？")]
    assert [(s, t) for _, s, t in _log(ws, "alice", D2)] == [("import:Alice", "八点")]
    _same_tally(ws, "alice")


def test_only_context_lines_new_is_still_a_commit_of_them(peopled):
    """Alice's own lines are already in her log; the group brings the lines
    around them: those are committed, and nothing counts as a message added."""
    ws = peopled
    importers.to_logs(ws.people_dir / "alice", [importers.Line(GROUP[1].when, "import:Alice", "好啊！"),
                                                importers.Line(GROUP[4].when, "import:Alice", "收到")], durable=False)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "alice's own lines")
    assert _import(ws, GROUP, group="周末徒步群", person="alice") == ({}, None)
    assert _subject_and_body(ws)[0] == "import(alice): context lines from a group export"
    assert git(ws, "status", "--porcelain") == ""
    assert [s for _, s, _ in _log(ws, "alice", D1)] == ["import:Alice", "context:Bob", "context:Carol"]
    assert [s for _, s, _ in _log(ws, "alice", D2)] == ["import:Alice", "context:Bob"]


def test_an_export_out_of_day_order_lands_each_line_on_its_day(peopled):
    """A day that comes back later in the export is written again, adding
    only its new lines; the voice is read back from the logs, the same."""
    ws = peopled
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
def test_a_big_export_is_written_in_bounded_batches_and_nothing_is_lost_or_doubled(peopled, monkeypatch, in_order):
    """Past FLUSH_LINES held lines the held part is written: every line lands
    once, on its day, in time order, however the batches fall."""
    ws = peopled
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


def test_a_damaged_day_log_stops_the_import_before_anything_is_written(peopled):
    """One day file the logs hold is broken: the import refuses before any
    write, and nothing is committed."""
    from heartcompass.errors import FormatError

    ws = peopled
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


# -- who the user is, and who a sender is, on the pure parts (no workspace) -----------------------------------------

def _directory(**people) -> routing.Directory:
    """slug -> (name and aliases, handles); the user is Sam (people/me), by the handle wxid_sam."""
    from heartcompass.formats.profile import handle_key

    who = routing.Directory(mine={"wxid_sam"}, self_slug="me")
    for slug, (names, handles) in {"me": (["Sam"], []), **people}.items():
        who.names[slug], who.display[slug] = list(names), names[0]
        for h in handles:
            who.handles.setdefault(handle_key(h), slug)
    return who


def _router(msgs, who, me=None, **kw) -> tuple[importers.Router, list[tuple[str, str, str]]]:
    export = _export(msgs, kw.pop("group_name", None))
    router = importers.Router(export, me, who, NOW, **kw)
    routed = [(slug, line.speaker, line.text) for msg in export.messages() for slug, line in router.lines(msg)]
    return router, routed


@pytest.mark.parametrize("how", ["--me", "the app's mark", "their handle", "a speaker that is their id"])
def test_the_user_is_the_user_however_the_export_says_so_and_never_a_member(how):
    """The user writes as "Alice", like their friend Alice: by --me, the
    app's own mark, their handle or a speaker that is their id, their lines
    are `me` (context for Alice), never filed under Alice nor counted as hers."""
    who = _directory(alice=(["Alice"], []))
    speaker, handle, mine, me = {"--me": ("Alice", "u1", False, "Alice"),
                                 "the app's mark": ("Alice", "u1", True, None),
                                 "their handle": ("Alice", "WXID_SAM", False, None),
                                 "a speaker that is their id": ("wxid_sam", "", False, None)}[how]
    msgs = [Message(D1, speaker, "我们周六去吧", 1, handle=handle, mine=mine),
            Message(D1 + dt.timedelta(minutes=1), "Alice" if how != "--me" else "Alice Chen", "好！", 2, handle="u2")]
    if how == "--me":
        who.names["alice"].append("Alice Chen")
    router, routed = _router(msgs, who, me, group=True, group_name="hike")
    assert routed == [("alice", "context:me", "我们周六去吧"), ("alice", f"import:{msgs[1].speaker.replace(' ', '_')}",
                                                                 "好！")]
    assert router.counted == Counter({"alice": 1}) and not router.unknown and router.not_sure == {}
    assert router.is_user(msgs[0]) and not router.is_user(msgs[1])
    assert router.expected("alice", _export(msgs, "hike")) == ({f"import:{msgs[1].speaker.replace(' ', '_')}"},
                                                              "2026-11-27")  # the voice is told only Alice's lines


@pytest.mark.parametrize("how", ["--me", "the app's mark", "their handle", "a speaker that is their id"])
def test_in_a_one_to_one_chat_the_users_lines_are_import_me(how):
    """The voice tally is told which speakers the import writes: the user's
    as `import:me`, the other side's under their name, whoever they say they are."""
    who = _directory(alice=(["Alice"], []))
    speaker, handle, me = {"--me": ("Sam W", "", "Sam W"), "the app's mark": ("Sam W", "", None),
                           "their handle": ("Sam W", "wxid_sam", None), "a speaker that is their id": ("wxid_sam", "", None)}[how]
    msgs = [Message(D1, speaker, "在吗", 1, handle=handle, mine=how == "the app's mark"),
            Message(D2, "Ali", "在", 2)]  # Ali: no name of hers
    export = _export(msgs)
    router = importers.Router(export, me, who, NOW, "alice")  # group: not unless said
    routed = [(slug, line.speaker) for msg in export.messages() for slug, line in router.lines(msg)]
    assert routed == [("alice", "import:me"), ("alice", "import:Ali")]
    assert router.group is None and router.tag == [] and router.not_sure == {}
    assert router.counted == Counter({"alice": 2}) and router.slugs == ["alice"]
    assert router.expected("alice", export) == ({"import:me", "import:Ali"}, "2026-11-28")


def test_a_one_to_one_chat_from_two_of_their_phones_is_all_theirs():
    """Alice writes from two ids under one name: in a one-to-one chat that is
    no reason for doubt (only a group's may be someone else)."""
    who = _directory(alice=(["Alice"], []))
    msgs = [Message(D1, "Alice", "one", 1, handle="id1"), Message(D1 + dt.timedelta(minutes=1), "Alice", "two", 2,
                                                                 handle="id2")]
    router, routed = _router(msgs, who, person="alice", group=False)
    assert [t for _, _, t in routed] == ["one", "two"] and router.not_sure == {}
    assert router.counted == Counter({"alice": 2})


def test_a_group_with_no_name_and_no_file_name_is_called_group():
    who = _directory(alice=(["Alice"], []))
    router, routed = _router([Message(D1, "Alice", "hi", 1)], who, group=True)
    assert router.group == "group" and router.tag == ["group group"] and routed == [("alice", "import:Alice", "hi")]


def test_an_undated_group_line_shown_as_context_takes_the_imports_time_of_day():
    """A transcript without times: the line before Alice's is her context at
    the import's time of day, as her own line is, not at midnight before the day's log."""
    who = _directory(alice=(["Alice"], []))
    day = dt.datetime(2026, 12, 1)
    msgs = [Message(day, "Bob", "走吗", 1, undated=True), Message(day, "Alice", "走", 2, undated=True)]
    export = _export(msgs, "hike")
    router = importers.Router(export, None, who, NOW.replace(minute=7, second=9, microsecond=5), group=True)
    lines = [line for msg in export.messages() for _, line in router.lines(msg)]
    assert [(line.speaker, line.when) for line in lines] == [("context:Bob", dt.datetime(2026, 12, 1, 20, 7, 9)),
                                                             ("import:Alice", dt.datetime(2026, 12, 1, 20, 7, 9))]


def test_who_is_not_sure_is_decided_for_every_sender_whatever_comes_first():
    """A sender skipped (no id, or known by id) does not end the check: the
    two ids sharing Alice Chen's name after them are both in doubt, written
    with a space or without; unknown names sharing ids are nobody's to doubt;
    a speaker that is Bob's id is Bob's, whatever other handle it carries."""
    who = _directory(alice=(["Alice Chen"], []), bob=(["Bob"], ["wxid_bob"]))
    senders = [("Bob", ""), ("wxid_bob", "x9"), ("Carol", "c1"), ("Carol", "c2"),
               ("Alice Chen", "1"), ("AliceChen", "2")]
    assert routing.not_sure(senders, who, who.person_for) == {("Alice Chen", "1"): "alice", ("AliceChen", "2"): "alice"}


def test_an_alias_taken_by_an_unknown_id_is_doubted_only_when_the_person_lists_ids_of_their_own():
    """Bob lists ids, Alice lists none: "小艾" under an id no one lists is
    still Alice (she has no id to tell them apart by); with an id of hers
    listed, it is someone who took her nickname; her own full name is hers."""
    who = _directory(alice=(["Alice Chen", "小艾"], []), bob=(["Bob"], ["wxid_bob"]))
    assert routing.not_sure([("小艾", "id_999")], who, who.person_for) == {}
    who.handles["id_alice"] = "alice"
    assert routing.not_sure([("小艾", "id_999")], who, who.person_for) == {("小艾", "id_999"): "alice"}
    assert routing.not_sure([("Alice Chen", "id_998")], who, who.person_for) == {}


def test_a_sender_without_a_handle_is_found_by_name_never_by_a_handle_someone_lists():
    """Some apps mask ids ("XXXX"); a profile listing one does not catch every sender who has no handle."""
    who = _directory(alice=(["Alice"], []), bob=(["Bob"], ["XXXX"]))
    assert who.person_for("Alice") == "alice" and who.person_for("Nobody") is None
    assert who.person_for("Alice", "xxxx") == "bob"  # ... a sender with that handle is Bob's


# -- writing a day: importers.write_day and to_logs ------------------------------------------------------------------

def test_a_days_write_returns_the_files_text_only_when_asked(tmp_path):
    """The voice feed gets the whole day file after the append (to checksum
    it); an import without a feed does not pay for building it."""
    lines = [importers.Line(D1, "import:Alice", "早"), importers.Line(D1.replace(minute=5), "import:me", "早呀")]
    new, text = importers.write_day(tmp_path, D1.date(), lines[:1], text_after=True)
    path = dailylog.log_path(tmp_path, D1.date())
    assert [e.text for e in new] == ["早"] and text == path.read_text(encoding="utf-8")
    new, text = importers.write_day(tmp_path, D1.date(), lines, text_after=True)
    assert [e.text for e in new] == ["早呀"] and text == path.read_text(encoding="utf-8")
    new, text = importers.write_day(tmp_path, D2.date(), [importers.Line(D2, "import:Alice", "hi")])
    assert [e.text for e in new] == ["hi"] and text == ""
    assert importers.write_day(tmp_path, D1.date(), lines, text_after=True) == ([], "")  # nothing new: nothing written


def test_a_group_line_keeps_its_tag_in_the_log(tmp_path):
    tagged = importers.Line(D1, "import:Alice", "好啊！", ["group 周末徒步群"])
    importers.to_logs(tmp_path, [tagged], durable=False)
    assert [e.tags for e in dailylog.load(dailylog.log_path(tmp_path, D1.date()))] == [["group 周末徒步群"]]


def test_a_message_the_log_holds_twice_is_matched_twice_not_once(tmp_path):
    at = dt.datetime(2026, 11, 28, 14, 2)
    twice = [importers.Line(at, "import:Alice", "ok"), importers.Line(at, "import:Alice", "ok")]
    assert importers.to_logs(tmp_path, twice, durable=False) == {"2026-11-28": 2}
    assert importers.to_logs(tmp_path, twice, durable=False) == {}
    assert len(dailylog.load(dailylog.log_path(tmp_path, at.date()))) == 2


def test_a_damaged_day_log_is_named_when_a_write_reaches_it(tmp_path):
    from heartcompass.errors import FormatError

    path = dailylog.log_path(tmp_path, D1.date())
    path.parent.mkdir(parents=True)
    path.write_text("# 2026-11-27\n\nnot an entry\n", encoding="utf-8")
    with pytest.raises(FormatError) as refused:
        importers.write_day(tmp_path, D1.date(), [importers.Line(D1, "import:Alice", "hi")])
    assert str(path) in str(refused.value) or path.name in str(refused.value)
    assert path.read_text(encoding="utf-8") == "# 2026-11-27\n\nnot an entry\n"


def test_an_import_flushes_the_disk_once_not_once_per_day(tmp_path, monkeypatch):
    """Each day file is appended without a flush of its own; the whole write
    is made durable once (os.sync), and not at all when nothing was added."""
    import os

    calls: list[str] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync"))
    monkeypatch.setattr(os, "sync", lambda: calls.append("sync"))
    lines = [importers.Line(day, "import:Alice", "hi") for day in (D1, D2, D3)]
    assert importers.to_logs(tmp_path, lines) == {"2026-11-27": 1, "2026-11-28": 1, "2026-11-29": 1}
    assert calls == ["sync"]
    assert importers.to_logs(tmp_path, lines) == {} and calls == ["sync"]  # nothing new: no flush
    more = [importers.Line(D3.replace(hour=10), "import:Alice", "again")]
    assert importers.to_logs(tmp_path, more, durable=False) == {"2026-11-29": 1} and calls == ["sync"]


def test_an_export_is_opened_where_it_is():
    from pathlib import Path

    source = importers.open_export(Path(__file__))
    assert source.path == Path(__file__) and source.size == Path(__file__).stat().st_size


def test_a_lone_carriage_return_is_tallied_as_the_log_gives_it_back(peopled):
    """The log writes a carriage return as a line break: the voice fed while
    writing sees the line as the log will give it (a line break: no quote
    to pick), counted the same as a rebuild from the logs."""
    ws = peopled
    msgs = [Message(D1, "Alice", "好的\r明天见", 1), Message(D1 + dt.timedelta(minutes=1), "Alice", "嗯嗯", 2)]
    added, _ = _import(ws, msgs)
    assert added == {"alice": {"2026-11-27": 2}}
    assert [t for _, _, t in _log(ws, "alice", D1)] == ["好的\n明天见", "嗯嗯"]
    _same_tally(ws, "alice")


def _written_before_each_message(ws, monkeypatch, msgs, group=None, person="alice") -> list[int]:
    """How many lines were in the logs as each message was read: what the import held at that moment."""
    written = [0]
    real = importers.write_day

    def counting(person_dir, day, lines, text_after=False):
        written[0] += len(lines)
        return real(person_dir, day, lines, text_after)

    monkeypatch.setattr(importers, "write_day", counting)
    seen: list[int] = []
    export = _export(msgs, group)
    read = export.read
    export.read = lambda: (seen.append(written[0]) or m for m in read())
    router = importers.Router(export, None, routing.directory(ws), NOW, person, group is not None, "chat")
    importers.import_and_commit(ws, export, router, "whatsapp")
    return seen


def _days(n: int, days=(D1, D2, D3), speaker: str = "Alice") -> list[Message]:
    return [Message(day + dt.timedelta(minutes=i), speaker, f"{day.day}日 第{i}句", i) for day in days for i in range(n)]


def test_an_export_in_day_order_writes_each_day_once_the_next_begins(peopled, monkeypatch):
    """A day is held only until the next day's first message: memory holds one day, not the export."""
    assert _written_before_each_message(peopled, monkeypatch, _days(3)) == [0, 0, 0, 0, 3, 3, 3, 6, 6]


def test_a_day_longer_than_flush_lines_is_written_in_parts_as_it_comes(peopled, monkeypatch):
    """One day of more lines than FLUSH_LINES: written each time that many are held, never more held."""
    monkeypatch.setattr(importers, "FLUSH_LINES", 3)
    assert _written_before_each_message(peopled, monkeypatch, _days(8, (D1,))) == [0, 0, 0, 3, 3, 3, 6, 6]
    assert len(_log(peopled, "alice", D1)) == 8


def test_an_export_out_of_day_order_is_written_a_batch_of_flush_lines_at_a_time(peopled, monkeypatch):
    monkeypatch.setattr(importers, "FLUSH_LINES", 3)
    jumbled = _days(3, (D2, D1, D3))
    assert _written_before_each_message(peopled, monkeypatch, jumbled) == [0, 0, 0, 3, 3, 3, 6, 6, 6]
    assert [len(_log(peopled, "alice", day)) for day in (D1, D2, D3)] == [3, 3, 3]


def test_a_stand_in_dated_ahead_of_the_chat_does_not_close_the_days_after_it(peopled):
    """A "<Media omitted>" stamped a day later than the messages after it
    (the day order counts real messages only): the days are still written
    once each, whole, and the voice is the logs' voice."""
    ws = peopled
    msgs = [Message(D1, "Alice", "早", 1), Message(D3, "Alice", "<Media omitted>", 2, placeholder="media"),
            Message(D1 + dt.timedelta(minutes=1), "Alice", "在吗", 3), Message(D2, "Alice", "晚安", 4)]
    added, _ = _import(ws, msgs)
    assert added == {"alice": {"2026-11-27": 2, "2026-11-28": 1}}
    assert [t for _, _, t in _log(ws, "alice", D1)] == ["早", "在吗"]
    _same_tally(ws, "alice")


def test_an_import_holds_the_workspace_as_import_and_commits_a_hand_edit_of_its_person_first(peopled, monkeypatch):
    """Another command waiting is told an import holds the workspace; Alice's
    profile edited by hand beforehand is committed as her own edit, not
    mixed into the import's commit; Bob's, whom the import does not touch, is left pending."""
    from heartcompass.store import audit
    from heartcompass.store.lock import holder

    ws = peopled
    profile = ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\n## Background\nLoves hiking.\n", encoding="utf-8")
    bobs = ws.people_dir / "bob" / "PROFILE.md"
    bobs.write_text(bobs.read_text(encoding="utf-8") + "\n## Background\nA climber.\n", encoding="utf-8")
    held = []
    real = audit.commit_or_roll_back
    monkeypatch.setattr(audit, "commit_or_roll_back",
                        lambda *a, **kw: held.append((holder(ws.state_dir / "lock") or {}).get("purpose")) or real(*a, **kw))
    added, sha = _import(ws, _chat()[:2])
    assert held == ["import"] and added == {"alice": {"2026-11-27": 2}}
    assert git(ws, "status", "--porcelain") == " M people/bob/PROFILE.md\n"
    assert git(ws, "show", "--name-only", "--format=", "HEAD~1").split() == ["people/alice/PROFILE.md"]
    assert "people/alice/PROFILE.md" not in git(ws, "show", "--name-only", "--format=", "HEAD").split()


def test_a_one_to_one_chat_counts_both_sides_whoever_writes_first():
    """Alice writes first, then the user (by the app's mark and by --me): all three are the chat's."""
    who = _directory(alice=(["Alice"], []))
    msgs = [Message(D1, "Alice", "在吗", 1), Message(D1, "Sam", "在", 2, mine=True), Message(D1, "Sam W", "怎么了", 3)]
    router, routed = _router(msgs, who, "Sam W", person="alice", group=False)
    assert router.counted == Counter({"alice": 3}) and [s for _, s, _ in routed] == ["import:Alice", "import:me",
                                                                                      "import:me"]
