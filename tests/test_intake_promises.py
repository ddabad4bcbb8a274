"""The importers' promises about who gets which line, tested on the pure
parts (intake/importers.Router, intake/routing, the parsers) without a
workspace: in a group chat each member's own lines go to them alone, with
the lines just before as context, once; the user is the user by their own
handle; `import NAME` of a group takes only NAME's part; three senders in a
WeChat CSV are a group."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from heartcompass.formats.profile import handle_key
from heartcompass.intake.exports import Context, Export, Message, Report, Source, parse
from heartcompass.intake.importers import Router
from heartcompass.intake.routing import Directory

NOW = dt.datetime(2026, 12, 1, 20, 0)
DAY = dt.datetime(2026, 11, 28, 9, 0)


def _directory(mine: tuple[str, ...] = ()) -> Directory:
    return Directory(names={"alice": ["Alice", "小艾"], "bob": ["Bob"], "me": ["Sam"]},
                     display={"alice": "Alice", "bob": "Bob", "me": "Sam"},
                     mine={handle_key(h) for h in mine}, self_slug="me")


def _export(said: list[tuple[str, str, str]], group: str | None = "周末徒步群") -> Export:
    """An export read once through, as `parse` counts it: (speaker, handle, text) a minute apart."""
    msgs = [Message(DAY + dt.timedelta(minutes=i), speaker, text, i + 1, handle=handle)
            for i, (speaker, handle, text) in enumerate(said)]
    export = Export(lambda: iter(msgs), Report(group=group))
    for m in msgs:
        export.senders[(m.speaker, m.handle, m.mine)] += 1
    return export


def _routed(router: Router, export: Export) -> list[tuple[str, str, str]]:
    return [(slug, line.speaker, line.text) for msg in export.messages() for slug, line in router.lines(msg)]


GROUP = [("Bob", "", "周六去爬山吗？"), ("Alice", "", "好啊！"), ("Carol", "", "I'm in"),
         ("Bob", "", "7点出发"), ("Alice", "", "收到")]


def test_import_name_of_a_group_files_only_that_persons_lines():
    """`import alice group.txt`: Alice's part of the group (her lines, and
    what came just before them as context); Bob, known too, gets nothing."""
    export = _export(GROUP)
    router = Router(export, None, _directory(), NOW, person="alice", group=True)
    routed = _routed(router, export)
    assert {slug for slug, _, _ in routed} == {"alice"}
    assert [(s, t) for _, s, t in routed if s.startswith("import:")] == [("import:Alice", "好啊！"),
                                                                          ("import:Alice", "收到")]
    assert router.slugs == ["alice"] and router.counted == Counter({"alice": 2})
    assert router.unknown == Counter({("Carol", ""): 1})  # Bob is known: left out, not a member to add


def test_a_group_goes_to_each_known_member_and_no_one_else():
    """Without NAME: each known member gets their own lines; an unknown
    member is counted (to be added), and gets no log."""
    export = _export(GROUP)
    router = Router(export, None, _directory(), NOW, group=True)
    routed = _routed(router, export)
    own = Counter(slug for slug, speaker, _ in routed if speaker.startswith("import:"))
    assert own == Counter({"alice": 2, "bob": 2})
    assert router.unknown == Counter({("Carol", ""): 1})
    assert all(line.tags == ["group 周末徒步群"] for msg in export.messages() for _, line in router.lines(msg))


def test_context_lines_are_not_repeated_for_a_member_who_speaks_twice():
    """Alice answers Bob in two messages: Bob's question is her context once,
    and her own first message is never context for her second."""
    export = _export([("Bob", "", "周六去爬山吗？"), ("Alice", "", "好啊！"), ("Alice", "", "几点？")])
    router = Router(export, None, _directory(), NOW, group=True)
    alice = [(s, t) for slug, s, t in _routed(router, export) if slug == "alice"]
    assert alice == [("context:Bob", "周六去爬山吗？"), ("import:Alice", "好啊！"), ("import:Alice", "几点？")]


def test_context_is_the_lines_just_before_and_each_shown_once_per_member():
    """Up to CONTEXT_LINES lines before a member's message are their context,
    oldest first; a line already shown to them is not shown again."""
    export = _export([("Carol", "", "one"), ("Dan", "", "two"), ("Bob", "", "three"), ("Alice", "", "four"),
                      ("Bob", "", "five"), ("Alice", "", "six")])
    router = Router(export, None, _directory(), NOW, group=True)
    alice = [(s, t) for slug, s, t in _routed(router, export) if slug == "alice"]
    assert alice == [("context:Dan", "two"), ("context:Bob", "three"), ("import:Alice", "four"),
                     ("context:Bob", "five"), ("import:Alice", "six")]


def test_the_users_own_handle_marks_their_lines_in_a_group():
    """The user writes under a display name no profile lists, with a handle
    their own profile lists: their lines are `me` (context for the others),
    never an unknown member to add."""
    export = _export([("Sammy W", "wxid_sam", "大家周六见"), ("Alice", "wxid_alice", "好的")])
    router = Router(export, None, _directory(mine=("wxid_sam",)), NOW, group=True)
    routed = _routed(router, export)
    assert routed == [("alice", "context:me", "大家周六见"), ("alice", "import:Alice", "好的")]
    assert router.is_user(next(iter(export.messages())))
    assert not router.unknown and router.slugs == ["alice"]


def test_a_sender_with_someone_elses_display_name_but_another_id_is_filed_under_no_one():
    """Two ids share Alice's name in a group: either may be someone else, so
    neither is filed under Alice; the one Bob lists by handle still is Bob."""
    directory = _directory()
    directory.handles[handle_key("wxid_bob")] = "bob"
    export = _export([("Alice", "wxid_1", "hi"), ("Alice", "wxid_2", "hello"), ("Bob", "wxid_bob", "yo")])
    router = Router(export, None, directory, NOW, group=True)
    assert [slug for slug, s, _ in _routed(router, export) if s.startswith("import:")] == ["bob"]
    assert router.not_sure == {("Alice", "wxid_1"): "alice", ("Alice", "wxid_2"): "alice"}


MEMOTRACE = ("localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender\n"
             "{rows}")


def _memotrace(tmp_path, rows: list[tuple[str, str, str]], name="hiking.csv"):
    """A MemoTrace CSV of text rows (IsSender, NickName, Sender), a minute apart, no @chatroom talker."""
    lines = [f"{i},wxid_talker,1,0,{mine},{1764320400 + 60 * i},2,message {i},,,{nick},{sender}"
             for i, (mine, nick, sender) in enumerate(rows)]
    path = tmp_path / name
    path.write_text(MEMOTRACE.format(rows="\n".join(lines) + "\n"), encoding="utf-8")
    return parse("wechat", Source(path), Context(dt.date(2026, 12, 1), dt.timezone.utc))


def test_three_senders_in_a_wechat_csv_are_a_group(tmp_path):
    """MemoTrace writes no chat room id for some groups: three people
    talking is a group all the same, named after the file."""
    export = _memotrace(tmp_path, [("1", "Sam", "wxid_sam"), ("0", "Alice", "wxid_alice"),
                                   ("0", "Bob", "wxid_bob")])
    assert export.group == "hiking"
    assert export.total == 3


def test_two_senders_in_a_wechat_csv_are_a_one_to_one_chat(tmp_path):
    """The user and one other, however many messages: not a group."""
    export = _memotrace(tmp_path, [("1", "Sam", "wxid_sam"), ("0", "Alice", "wxid_alice"),
                                   ("1", "Sam", "wxid_sam"), ("0", "Alice", "wxid_alice")])
    assert export.group is None
    assert export.total == 4 and {s for s, _, _ in export.senders} == {"Sam", "Alice"}
