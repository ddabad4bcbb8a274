"""The gardener proposes People-in-their-life lines (issue 28): judged like
every line (trusted entries that name them), someone already listed by any
of their names merged into their line, a person of the workspace linked."""

from __future__ import annotations

import datetime as dt

from conftest import Runner, git
from garden_helpers import proposal, say, user_prompt

from heartcompass.formats import mentions as mentions_fmt


def mentions(ws, slug: str = "alice") -> list[mentions_fmt.Mention]:
    return mentions_fmt.read((ws.people_dir / slug / "PROFILE.md").read_text(encoding="utf-8"))


SARA = {"name": "Sara", "role": "daughter", "aliases": ["小女儿"], "notes": ["started violin lessons"],
        "evidence": ["L1"]}
ROB = {"name": "Rob", "role": "colleague", "notes": ["from the yoga class"], "evidence": ["L2"]}


def first_chat(alice: Runner, fake_llm) -> None:
    say(alice.ws, "alice", "import:Alice", "My daughter Sara (小女儿) started violin lessons today!",
        day=dt.date(2026, 11, 20), time="10:00:00")
    say(alice.ws, "alice", "import:Alice", "Rob, my colleague from the yoga class, drove me home",
        day=dt.date(2026, 11, 20), time="10:05:00")
    fake_llm.enqueue(proposal(new_mentions=[SARA, ROB]))
    alice("garden")


def test_a_chat_naming_a_daughter_and_a_colleague_gives_two_lines(alice: Runner, fake_llm):
    first_chat(alice, fake_llm)
    found = mentions(alice.ws)
    assert [(m.id, m.name, m.role, m.aliases, m.notes, m.source) for m in found] == [
        ("m1", "Sara", "daughter", ["小女儿"], ["started violin lessons"], "log 2026-11-20"),
        ("m2", "Rob", "colleague", [], ["from the yoga class"], "log 2026-11-20")]
    assert git(alice.ws, "status", "--porcelain") == ""


def test_a_later_chat_about_my_daughter_updates_saras_line(alice: Runner, fake_llm):
    first_chat(alice, fake_llm)
    say(alice.ws, "alice", "import:Alice", "my daughter won her first violin contest", day=dt.date(2026, 11, 25))
    fake_llm.enqueue(proposal(new_mentions=[{"name": "my daughter", "role": "daughter",
                                             "notes": ["won her first violin contest"], "evidence": ["L1"]}]))
    alice("garden")
    assert "M1 - [m1] Sara (daughter; aka 小女儿)" in user_prompt(fake_llm, nth=1)  # the later chat's
    found = mentions(alice.ws)
    assert len(found) == 2 and found[0].name == "Sara"
    assert found[0].aliases == ["小女儿", "my daughter"]
    assert found[0].notes == ["started violin lessons", "won her first violin contest"]
    assert found[0].source == "log 2026-11-25"


def test_a_mention_the_entries_do_not_name_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "import:Alice", "I went hiking with my colleague today", day=dt.date(2026, 11, 20))
    made_up = proposal(new_mentions=[{"name": "Kevin", "role": "colleague", "notes": ["went hiking"],
                                      "evidence": ["L1"]}])
    fake_llm.enqueue(made_up, made_up)
    result = alice("garden", ok=False)
    assert "'Kevin' is not named in the entries it cites" in " ".join(result.output.split())
    assert mentions(alice.ws) == []


def test_a_mention_two_lines_could_be_is_refused_with_both_ids(alice: Runner, fake_llm):
    path = alice.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## People in their life\n\n"
                    "- [m1] Sam (brother): lives in Taipei (log 2026-01-01)\n"
                    "- [m2] Sam (colleague): the designer (log 2026-01-01)\n", encoding="utf-8")
    git(alice.ws, "commit", "-qam", "two Sams")
    say(alice.ws, "alice", "import:Alice", "Sam called about the weekend", day=dt.date(2026, 11, 20))
    either = proposal(new_mentions=[{"name": "Sam", "role": "", "notes": ["called about the weekend"],
                                     "evidence": ["L1"]}])
    fake_llm.enqueue(either, either)
    result = alice("garden", ok=False)
    assert "could be M1 or M2" in " ".join(result.output.split())
    assert [m.notes for m in mentions(alice.ws)] == [["lives in Taipei"], ["the designer"]]


def test_a_mention_of_a_person_of_the_workspace_is_linked(alice: Runner, fake_llm):
    alice("person", "add", "Rob", "--relation", "friend")
    first_chat(alice, fake_llm)
    assert [m.person for m in mentions(alice.ws)] == ["", "rob"]


def test_person_add_links_a_gardened_line_and_context_shows_it(alice: Runner, fake_llm):
    first_chat(alice, fake_llm)
    alice("person", "add", "Sara", "--relation", "friend")
    assert mentions(alice.ws)[0].person == "sara"
    out = alice("context", "alice", "--for", "How is Sara?").output
    assert "started violin lessons" in out


def test_news_about_a_line_the_user_wrote_is_asked_and_a_yes_writes_it(alice: Runner, fake_llm):
    from heartcompass.memory.questions import Questions

    path = alice.ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## People in their life\n\n- Sara (daughter): plays the "
                    "violin\n", encoding="utf-8")
    git(alice.ws, "commit", "-qam", "edit(alice): PROFILE.md by hand")
    say(alice.ws, "alice", "import:Alice", "Sara won her first violin contest", day=dt.date(2026, 11, 25))
    fake_llm.enqueue(proposal(new_mentions=[{"name": "Sara", "role": "daughter",
                                             "notes": ["won her first violin contest"], "evidence": ["L1"]}]))
    alice("garden")
    assert mentions(alice.ws)[0].raw == "- Sara (daughter): plays the violin"  # untouched until the user says
    asked = Questions(alice.ws).pending("alice")
    assert [q.kind for q in asked] == ["rewrite"] and "won her first violin contest" in asked[0].change["new"]
    alice("review", "yes", asked[0].id)
    assert mentions(alice.ws)[0].notes == ["plays the violin", "won her first violin contest"]
