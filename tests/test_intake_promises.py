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


# -- a one-to-one chat, labels and tags ----------------------------------------------------------------------------

def test_a_one_to_one_chat_goes_whole_to_its_person_with_each_speaker_labelled():
    """Both sides of the chat go to the person's log, on their own dates:
    the user's lines as `import:me`, theirs under their name; a stand-in
    ("<Media omitted>") is left out; an undated line takes the import's time of day."""
    msgs = [Message(DAY, "Sam", "周末有空吗", 1, mine=True), Message(DAY + dt.timedelta(minutes=1), "Alice", "有！", 2),
            Message(DAY + dt.timedelta(minutes=2), "Alice", "<Media omitted>", 3, placeholder="media"),
            Message(dt.datetime(2026, 12, 1, 0, 0), "Alice", "undated line", 4, undated=True)]
    export = Export(lambda: iter(msgs), Report())
    for m in msgs:
        if not m.placeholder:
            export.senders[(m.speaker, m.handle, m.mine)] += 1
    now = dt.datetime(2026, 12, 1, 20, 15, 30, 123456)
    router = Router(export, None, _directory(), now, person="alice", group=False)
    lines = [(slug, line) for msg in export.messages() for slug, line in router.lines(msg)]
    assert [(slug, line.when, line.speaker, line.text, line.tags, line.undated) for slug, line in lines] == [
        ("alice", DAY, "import:me", "周末有空吗", [], False),
        ("alice", DAY + dt.timedelta(minutes=1), "import:Alice", "有！", [], False),
        ("alice", dt.datetime(2026, 12, 1, 20, 15, 30), "import:Alice", "undated line", [], True)]
    assert router.group is None and router.counted == Counter({"alice": 3}) and router.slugs == ["alice"]


def test_a_contact_named_me_is_not_the_user_and_speakers_are_one_token():
    from heartcompass.intake.importers import label

    assert label(Message(DAY, "Me", "hi", 1), False) == "import:contact_Me"
    assert label(Message(DAY, "me", "hi", 1), False, "context") == "context:contact_me"
    assert label(Message(DAY, "Anyone", "hi", 1), True) == "import:me"
    assert label(Message(DAY, " Mary [Ann]: Lee ", "hi", 1), False) == "import:Mary_Ann_Lee"
    assert label(Message(DAY, "王·小明", "hi", 1), False) == "import:王_小明"
    assert label(Message(DAY, "  ", "hi", 1), False) == "import:unknown"


def test_a_groups_name_in_a_tag_is_one_short_line_without_brackets():
    export = _export([("Alice", "", "hi")], group="[Family], 家 · 群\n2")
    assert Router(export, None, _directory(), NOW, group=True).tag == ["group Family 家 群 2"]
    long = _export([("Alice", "", "hi")], group="x" * 70)
    assert Router(long, None, _directory(), NOW, group=True).tag == ["group " + "x" * 60]
    empty = _export([("Alice", "", "hi")], group="[ ]")
    assert Router(empty, None, _directory(), NOW, group=True).tag == ["group group"]


def test_a_group_without_a_name_is_named_after_its_chat_or_the_file():
    export = _export([("Alice", "", "hi"), ("Bob", "", "yo")], group=None)
    assert Router(export, None, _directory(), NOW, group=True, fallback="hike-2026").group == "hike-2026"
    export.report.chat = "Hiking club"
    assert Router(export, None, _directory(), NOW, group=True, fallback="hike-2026").group == "Hiking club"
    assert Router(export, None, _directory(), NOW, person="alice", group=False).group is None


def test_a_member_known_by_name_and_by_handle_counts_all_their_messages():
    directory = _directory()
    directory.handles[handle_key("wxid_alice")] = "alice"
    export = _export([("Alice", "", "one"), ("Ali", "wxid_alice", "two"), ("Ali", "wxid_alice", "three")])
    router = Router(export, None, directory, NOW, group=True)
    assert router.counted == Counter({"alice": 3})
    assert [t for slug, s, t in _routed(router, export) if s.startswith("import:")] == ["one", "two", "three"]


def test_someone_using_a_persons_alias_under_an_id_they_do_not_list_is_not_them():
    """Alice lists her id; an author with another id who calls themselves by
    her nickname is not filed under her; her own id under the nickname is her,
    and her own name under another id is her too."""
    from heartcompass.intake.routing import not_sure

    directory = _directory()
    directory.handles[handle_key("id_alice")] = "alice"
    senders = [("小艾", "id_999"), ("小艾", "id_alice"), ("Alice", "id_998"), ("Bob", "")]
    assert not_sure(senders, directory, directory.person_for) == {("小艾", "id_999"): "alice"}


def test_a_display_name_shared_by_two_ids_is_not_sure_even_with_different_spacing():
    from heartcompass.intake.routing import not_sure

    directory = _directory()
    senders = [("Alice", "1"), ("  alice ", "2"), ("Bob", "3")]
    assert not_sure(senders, directory, directory.person_for) == {("Alice", "1"): "alice", ("  alice ", "2"): "alice"}


def test_a_sender_is_a_person_by_handle_first_then_by_a_whole_name_never_a_part():
    directory = _directory()
    directory.handles[handle_key("@Alice_Chen")] = "alice"
    assert directory.person_for("Someone", "alice_chen") == "alice"       # the handle, any case or @
    assert directory.person_for("@alice_chen") == "alice"                 # a speaker that is an id (PyWxDump)
    assert directory.person_for("小 艾") == "alice"                        # an alias, spacing aside
    assert directory.person_for("Al_ice") == "alice"                      # underscores aside
    assert directory.person_for("Alice Wong") is None                     # not a first name alone
    assert directory.person_for("Sam") is None                            # the user's own profile is no one
    assert directory.by_handle("x", "@alice_chen") == "alice" and directory.by_handle("x", "y") is None
    assert directory.by_own_name("alice", "alice") and not directory.by_own_name("小艾", "alice")
    assert not Directory().is_user("", "")


# -- writing to the logs (importers.to_logs): nothing lost, nothing twice ------------------------------------------

def _line(when, speaker, text, undated=False):
    from heartcompass.intake.importers import Line

    return Line(when, speaker, text, undated=undated)


def test_an_import_writes_each_line_on_its_day_and_a_rerun_adds_nothing(tmp_path):
    from heartcompass.formats import dailylog
    from heartcompass.intake.importers import to_logs

    d1, d2 = dt.datetime(2026, 11, 28, 9, 0, 5), dt.datetime(2026, 11, 29, 23, 59)
    lines = [_line(d2, "import:Alice", "晚安"), _line(d1, "import:me", "早"), _line(d1, "context:Bob", "who?")]
    assert to_logs(tmp_path, lines, durable=False) == {"2026-11-28": 1, "2026-11-29": 1}  # context is not counted
    day1 = dailylog.load(dailylog.log_path(tmp_path, d1.date()))
    assert [(e.time, e.speaker, e.text) for e in day1] == [("09:00:05", "import:me", "早"), ("09:00:05", "context:Bob", "who?")]
    assert to_logs(tmp_path, lines, durable=False) == {}
    assert len(dailylog.load(dailylog.log_path(tmp_path, d1.date()))) == 2


def test_a_repeated_message_in_one_minute_is_kept_as_often_as_it_was_sent(tmp_path):
    """"ok" twice at 14:02: two messages. A log holding one takes one more, not two."""
    from heartcompass.formats import dailylog
    from heartcompass.intake.importers import to_logs

    at = dt.datetime(2026, 11, 28, 14, 2)
    assert to_logs(tmp_path, [_line(at, "import:Alice", "ok")], durable=False) == {"2026-11-28": 1}
    twice = [_line(at, "import:Alice", "ok"), _line(at + dt.timedelta(seconds=30), "import:Alice", "ok")]
    assert to_logs(tmp_path, twice, durable=False) == {"2026-11-28": 1}
    assert [e.text for e in dailylog.load(dailylog.log_path(tmp_path, at.date()))] == ["ok", "ok"]


def test_the_same_chat_from_another_phone_matches_by_minute_speaker_and_normalised_text(tmp_path):
    """Android drops the seconds, iOS adds direction marks and narrow spaces,
    the speaker's case differs: the same messages, not new ones."""
    from heartcompass.intake.importers import to_logs

    at = dt.datetime(2026, 11, 28, 14, 2, 41)
    to_logs(tmp_path, [_line(at, "import:Alice", "see you at 5 pm"), _line(at, "import:Alice", "ＯＫ")], durable=False)
    again = [_line(at.replace(second=0), "import:alice", "\u200esee you  at\u202f5\npm"),
             _line(at.replace(second=0), "import:Alice", "OK")]
    assert to_logs(tmp_path, again, durable=False) == {}
    later = [_line(at.replace(minute=3), "import:Alice", "see you at 5 pm")]  # another minute: another message
    assert to_logs(tmp_path, later, durable=False) == {"2026-11-28": 1}


def test_an_undated_line_matches_the_same_words_any_time_that_day(tmp_path):
    from heartcompass.intake.importers import to_logs

    to_logs(tmp_path, [_line(dt.datetime(2026, 11, 28, 9, 0), "import:Alice", "早上好")], durable=False)
    undated = [_line(dt.datetime(2026, 11, 28, 21, 30), "import:Alice", "早上好", undated=True),
               _line(dt.datetime(2026, 11, 28, 21, 30), "import:Alice", "晚上好", undated=True)]
    assert to_logs(tmp_path, undated, durable=False) == {"2026-11-28": 1}
