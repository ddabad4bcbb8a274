"""`person import-vcf` on the core (intake/contacts.py): a vCard export is
read as phones write it (folded lines, escapes, quoted-printable UTF-8,
Chinese names family first); each card is a new person or adds only what
is missing to the one who answers to its name or a handle, in one commit;
a card without a name is reported by its line, never guessed."""

from __future__ import annotations

import pytest

from conftest import git, subjects
from heartcompass.errors import FormatError
from heartcompass.intake import contacts
from heartcompass.intake.contacts import Card, Change


def _one(body: str) -> Card:
    cards, bad = contacts.parse(f"BEGIN:VCARD\nVERSION:3.0\n{body}\nEND:VCARD\n", "c.vcf")
    assert bad == [] and len(cards) == 1
    return cards[0]


def test_a_card_gives_its_name_nicknames_handles_and_birthday():
    card = _one("FN:Carol Smith\nN:Smith;Carol;;;\nNICKNAME:Caz,CJ\nTEL;TYPE=CELL:+1 (555) 867-5309\n"
                "EMAIL;TYPE=INTERNET:carol@example.com\nBDAY:1990-07-14")
    assert card == Card("Carol Smith", 1, ["Caz", "CJ"], ["+1 (555) 867-5309", "carol@example.com"], "1990-07-14")


def test_the_line_of_each_card_is_where_it_begins():
    cards, _ = contacts.parse("junk\nBEGIN:VCARD\nFN:A\nEND:VCARD\n\nBEGIN:vcard\nFN:B\nEND:VCARD", "c.vcf")
    assert [(c.name, c.line) for c in cards] == [("A", 2), ("B", 6)]


def test_without_fn_the_structured_name_is_given_then_family_or_chinese_family_first():
    assert _one("N:Smith;Carol;;;").name == "Carol Smith"
    assert _one("N:Smith;;;;").name == "Smith" and _one("N:;Carol").name == "Carol"
    assert _one("N:王;芳;;;").name == "王芳"
    assert _one("N:Smith;Carol\nFN:C. Smith").name == "C. Smith"  # FN wins, wherever it is


def test_quoted_printable_utf8_is_read_even_across_a_soft_line_break():
    card = _one("N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E7=8E=8B;=E8=8A=\n=B3;;;")
    assert card.name == "王芳"
    assert _one("FN;ENCODING=QUOTED-PRINTABLE:=E7=8E=8B=E8=8A=B3").name == "王芳"  # utf-8 when no charset is said
    assert _one("FN;CHARSET=latin-1;ENCODING=QUOTED-PRINTABLE:Zo=EB").name == "Zoë"
    assert _one("FN;CHARSET=nonsense;ENCODING=QUOTED-PRINTABLE:=E7=8E=8B").name == "王"  # unknown: utf-8
    assert _one("FN:a=\nB:c").name == "a="  # a plain value ending in = is not continued


def test_folded_lines_and_line_endings_of_any_kind_are_unfolded():
    cards, _ = contacts.parse("BEGIN:VCARD\r\nFN:Carol\r\n  Smith\r\nNICKNAME:C\r\n\tJ\rEND:VCARD\r\n", "c.vcf")
    assert [(c.name, c.nicknames) for c in cards] == [("Carol Smith", ["CJ"])]


def test_escapes_are_read_and_nothing_hidden_reaches_a_profile():
    assert _one("FN:Smith\\, Carol\\nJr\\; \\\\x").name == "Smith, Carol Jr; \\x"
    assert _one("FN:A\u200bnn\u202e  a\\NB").name == "Ann a B"


def test_nicknames_split_on_unescaped_commas_only():
    assert _one("FN:A\nNICKNAME:a\\,b,c,,d\nNICKNAME:e").nicknames == ["a,b", "c", "d", "e"]


@pytest.mark.parametrize("line, handle", [
    ("TEL:tel:+15551234", "+15551234"), ("EMAIL:mailto:a@b.c", "a@b.c"), ("item1.EMAIL:x@y.z", "x@y.z"),
    ("X-WECHAT:wechat:lei_88", "lei_88"), ("X-QQ:qq:12345", "12345"), ("IMPP:xmpp:a@j.org", "a@j.org"),
    ("IMPP:sip:a@s.org", "a@s.org"), ("IMPP:im:a@i.org", "a@i.org"), ("X-SOCIALPROFILE:weixin:wx1", "wx1"),
    ("TEL;TYPE=CELL:  13800138000 ", "13800138000"), ("IMPP:QQ:777", "777"),
])
def test_phones_mails_and_chat_ids_are_handles_without_their_scheme(line, handle):
    assert _one(f"FN:A\n{line}").handles == [handle]


def test_a_handle_given_twice_is_kept_once_and_an_empty_one_not_at_all():
    assert _one("FN:A\nTEL:123\nTEL:123\nEMAIL:\nTEL:tel:\nX-FOO:bar\nNOTE:456").handles == ["123"]


@pytest.mark.parametrize("bday, kept", [("1990-07-14", "1990-07-14"), ("19900714", "1990-07-14"),
                                        ("--0302", "03-02"), ("--03-02", "03-02"),
                                        ("1990-07-14T00:00:00Z", "1990-07-14")])
def test_a_birthday_with_or_without_a_year(bday, kept):
    assert _one(f"FN:A\nBDAY:{bday}").birthday == kept


def test_a_birthday_that_is_no_date_is_reported_by_its_line_and_the_card_kept():
    cards, bad = contacts.parse("BEGIN:VCARD\nFN:A\nBDAY:  sometime in spring of the year I was born  \n"
                                "END:VCARD\n", "c.vcf")
    assert [c.name for c in cards] == ["A"] and cards[0].birthday is None
    assert bad == [(3, "BDAY 'sometime in spring of the year' is not a date (the rest of the card is kept)")]


def test_a_card_with_no_name_is_reported_by_its_line_and_skipped():
    cards, bad = contacts.parse("BEGIN:VCARD\nFN:A\nEND:VCARD\nBEGIN:VCARD\nTEL:1\nFN:\nN:;;;;\nEND:VCARD\n", "c.vcf")
    assert [c.name for c in cards] == ["A"] and bad == [(4, "a card with no name (FN or N)")]
    assert contacts.parse("BEGIN:VCARD\nTEL:1\nEND:VCARD", "c.vcf") == ([], [(1, "a card with no name (FN or N)")])


def test_lines_outside_a_card_or_without_a_colon_are_ignored():
    cards, bad = contacts.parse("FN:Outside\nBEGIN:VCARD\nno colon here\nFN:In\nEND:VCARD\nTEL:1\n", "c.vcf")
    assert [(c.name, c.handles) for c in cards] == [("In", [])] and bad == []


def test_a_file_with_no_vcard_is_an_error_saying_how_to_export_one():
    with pytest.raises(FormatError) as refused:
        contacts.parse("hello\nFN:A\n", "c.vcf")
    assert "no vCard found (no BEGIN:VCARD)" in str(refused.value) and "c.vcf" in str(refused.value)
    assert refused.value.hint == ("Export contacts as a .vcf file (vCard 3.0 or 4.0) from your phone or address "
                                  "book.")


def test_a_change_is_empty_only_when_it_merges_nothing():
    card = Card("A", 1)
    assert Change(card, "a").empty and not Change(card).empty
    assert not Change(card, "a", aliases=["x"]).empty and not Change(card, "a", handles=["1"]).empty
    assert not Change(card, "a", birthday="01-02").empty


# -- planning and writing: plan, apply -------------------------------------------------------------------------------

def _cards(text: str) -> list[Card]:
    return contacts.parse(text, "c.vcf")[0]


VCF = ("BEGIN:VCARD\nFN:Carol Smith\nNICKNAME:Caz,Alice\nTEL:+1 (555) 867-5309\nBDAY:1990-07-14\nEND:VCARD\n"
       "BEGIN:VCARD\nFN:Alice Chen\nEMAIL:alice@example.com\nNICKNAME:Ali,小爱,me\nBDAY:2000-01-01\nEND:VCARD\n")


def test_a_new_card_is_a_new_person_and_a_known_name_adds_only_what_is_missing(example_ws):
    carol, alice = contacts.plan(example_ws, _cards(VCF))
    assert (carol.slug, carol.aliases, carol.handles, carol.birthday) == (
        None, ["Caz"], ["+1 (555) 867-5309"], "1990-07-14")  # "Alice" is someone else's name: no alias of Carol's
    assert (alice.slug, alice.aliases, alice.handles, alice.birthday) == (
        "alice", ["Ali"], ["alice@example.com"], None)  # her birthday is known: kept; 小爱 she has; me is the user


def test_a_handle_finds_the_person_whatever_their_name_on_the_card(example_ws):
    from conftest import subjects

    contacts.apply(example_ws, contacts.plan(example_ws, _cards(VCF)), "friend")
    again = _cards(VCF.replace("+1 (555) 867-5309", "+15558675309").replace("FN:Carol Smith", "FN:C. Smith"))
    carol, alice = contacts.plan(example_ws, again)
    assert (carol.slug, carol.aliases, carol.handles, carol.birthday) == ("carol-smith", ["C. Smith"], [], None)
    assert alice.empty  # all of it is there now
    added, updated, sha = contacts.apply(example_ws, [carol, alice], "friend")
    assert (added, updated) == ([], ["carol-smith"]) and sha
    assert subjects(example_ws)[0] == "add(carol-smith): from contacts (1 updated)"


def test_apply_writes_new_people_and_merges_in_one_commit(example_ws):
    from conftest import git, subjects

    from heartcompass.formats import profile as profile_fmt

    changes = contacts.plan(example_ws, _cards(VCF))
    added, updated, sha = contacts.apply(example_ws, changes, "family")
    assert (added, updated) == (["carol-smith"], ["alice"]) and sha == git(example_ws, "rev-parse", "HEAD").strip()
    assert subjects(example_ws)[0] == "add: from contacts (1 new, 1 updated)"
    assert git(example_ws, "log", "-1", "--format=%b").strip() == "- carol-smith\n- alice"
    carol = profile_fmt.load(example_ws.people_dir / "carol-smith" / "PROFILE.md")
    assert (carol.name, carol.relation, carol.aliases, carol.handles, carol.birthday) == (
        "Carol Smith", "family", ["Caz"], ["+1 (555) 867-5309"], "1990-07-14")
    alice = profile_fmt.load(example_ws.people_dir / "alice" / "PROFILE.md")
    assert alice.aliases == ["Alice", "小爱", "Ali"] and alice.handles == ["alice@example.com"]
    assert alice.birthday == "1996-04-12" and alice.relation == "friend"  # never replaced
    assert git(example_ws, "status", "--porcelain") == ""


def test_one_new_person_is_the_commits_scope_and_nothing_to_do_is_no_commit(example_ws):
    from conftest import subjects

    changes = contacts.plan(example_ws, _cards("BEGIN:VCARD\nFN:Dana\nEND:VCARD\n"))
    assert contacts.apply(example_ws, changes, "friend")[:2] == (["dana"], [])
    assert subjects(example_ws)[0] == "add(dana): from contacts (1 new)"
    head = subjects(example_ws)
    nothing = contacts.plan(example_ws, _cards("BEGIN:VCARD\nFN:Dana\nEND:VCARD\n"))
    assert nothing[0].empty and contacts.apply(example_ws, nothing, "friend") == ([], [], None)
    assert subjects(example_ws) == head


def test_a_merge_without_handles_or_birthday_keeps_theirs(example_ws):
    from heartcompass.formats import profile as profile_fmt

    path = example_ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("birthday: 1996-04-12\n", ""), encoding="utf-8")
    from conftest import git

    git(example_ws, "commit", "-qam", "no birthday")
    card = Card("Alice Chen", 1, ["Allie"], [], "04-12")
    (change,) = contacts.plan(example_ws, [card])
    assert change.birthday == "04-12" and change.aliases == ["Allie"] and change.handles == []
    contacts.apply(example_ws, [change], "friend")
    alice = profile_fmt.load(path)
    assert alice.birthday == "04-12" and alice.aliases[-1] == "Allie" and alice.handles == []


def test_a_failed_write_puts_back_what_was_written_and_commits_nothing(example_ws, monkeypatch):
    from conftest import git, subjects

    from heartcompass.store import people

    head = subjects(example_ws)
    before = (example_ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")
    changes = contacts.plan(example_ws, _cards(VCF.split("END:VCARD\n", 1)[1] + VCF.split("END:VCARD\n")[0]
                                               + "END:VCARD\n"))
    assert [c.slug for c in changes] == ["alice", None]

    def broken(*a, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(people, "create", broken)
    with pytest.raises(OSError):
        contacts.apply(example_ws, changes, "friend")
    assert (example_ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8") == before
    assert subjects(example_ws) == head and git(example_ws, "status", "--porcelain") == ""


def test_a_new_person_someone_names_is_linked_in_the_same_commit(example_ws):
    """A new person from the contacts is linked where alice's People in their
    life names them: that profile is in the import's own commit."""
    from conftest import git

    prof = example_ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text(encoding="utf-8") + "\n## People in their life\n\n- Dana Park (sister): visits\n",
                    encoding="utf-8")
    git(example_ws, "commit", "-qam", "a mention")
    added, _, sha = contacts.apply(example_ws, contacts.plan(example_ws, _cards(
        "BEGIN:VCARD\nFN:Dana Park\nEND:VCARD\n")), "family")
    assert added == ["dana-park"] and sha
    assert "people/alice/PROFILE.md" in git(example_ws, "show", "--name-only", "--format=", "HEAD").split()
    assert prof.read_text(encoding="utf-8").endswith("- [m1] Dana Park (sister; → dana-park): visits\n")
    assert git(example_ws, "status", "--porcelain") == ""


# -- more of reading and merging ------------------------------------------------------------------------------------

def test_a_blank_first_line_or_a_leading_space_is_no_continuation():
    cards_, bad = contacts.parse(" \nBEGIN:VCARD\nFN:A\nEND:VCARD\n", "c.vcf")
    assert [(c.name, c.line) for c in cards_] == [("A", 2)] and bad == []


def test_parameters_and_properties_in_lower_case_are_read():
    assert _one("n;charset=utf-8;encoding=quoted-printable:=E7=8E=8B;=E8=8A=\n=B3;;;").name == "王芳"
    assert _one("fn;charset=latin-1;encoding=quoted-printable:Zo=EB").name == "Zoë"
    assert _one("fn:lower").name == "lower" and _one("FN:A\ntel:1").handles == ["1"]


def test_a_structured_name_of_one_part_is_that_name():
    assert _one("N:Smith").name == "Smith"


def test_no_vcard_is_an_error_at_line_one_of_the_file():
    with pytest.raises(FormatError) as refused:
        contacts.parse("hello\n", "c.vcf")
    assert refused.value.message == "c.vcf:1: no vCard found (no BEGIN:VCARD)"


def test_a_nickname_that_is_the_cards_own_name_is_no_alias(example_ws):
    (change,) = contacts.plan(example_ws, _cards("BEGIN:VCARD\nFN:Dana\nNICKNAME:Dana,Dee,Dee\nEND:VCARD\n"))
    assert change.aliases == ["Dee"]


def test_a_new_person_without_handles_or_birthday_has_none_written(example_ws):
    contacts.apply(example_ws, contacts.plan(example_ws, _cards("BEGIN:VCARD\nFN:Dana\nEND:VCARD\n")), "friend")
    text = (example_ws.people_dir / "dana" / "PROFILE.md").read_text(encoding="utf-8")
    assert "name: Dana" in text and "handles" not in text and "birthday" not in text


def test_two_new_people_are_one_commit_without_a_scope(example_ws):
    added, updated, _ = contacts.apply(example_ws, contacts.plan(example_ws, _cards(
        "BEGIN:VCARD\nFN:Dana\nEND:VCARD\nBEGIN:VCARD\nFN:Eve\nEND:VCARD\n")), "friend")
    assert (added, updated) == (["dana", "eve"], [])
    assert subjects(example_ws)[0] == "add: from contacts (2 new)"


def test_a_hand_edit_of_someone_merged_is_committed_as_theirs_first(example_ws):
    path = example_ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nLikes rain.\n", encoding="utf-8")
    contacts.apply(example_ws, contacts.plan(example_ws, _cards(
        "BEGIN:VCARD\nFN:Alice Chen\nEMAIL:alice@example.com\nEND:VCARD\n")), "friend")
    assert subjects(example_ws)[:2] == ["add(alice): from contacts (1 updated)", "edit(alice): by hand"]
    assert "Likes rain." in git(example_ws, "show", "HEAD~1:people/alice/PROFILE.md")
