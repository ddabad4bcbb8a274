"""The people around them (issue 28): the people a person mentions, linked
when they join the workspace; the names people use; each relationship's
history and strength on the map, in `today` and in `person show`; the coach
sees across people, a persona only its own lines."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import Runner, git, subjects
from test_coach_graph import ADVICE
from test_edit import scripted_editor

from heartcompass import names
from heartcompass.formats import dailylog
from heartcompass.formats import mentions as mentions_fmt

CIRCLE = """
## People in their life

<!-- who Alice talks about -->
- [m1] Sara (daughter; aka 小女儿): Plays the violin; 8 years old (log 2026-03-02)
- Rob (colleague; aka Robert): From the yoga class (told)
"""


def with_circle(ws, slug: str = "alice", text: str = CIRCLE) -> None:
    path = ws.people_dir / slug / "PROFILE.md"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", f"edit({slug}): PROFILE.md by hand")


def mentions(ws, slug: str = "alice") -> list[mentions_fmt.Mention]:
    return mentions_fmt.read((ws.people_dir / slug / "PROFILE.md").read_text(encoding="utf-8"))


def set_clock(monkeypatch, day: dt.date) -> None:
    class At(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(day.year, day.month, day.day, 12, 0, tzinfo=tz or dt.timezone.utc)

    monkeypatch.setattr("heartcompass.store.clock.dt.datetime", At)


def real_messages(ws, slug: str, first: dt.date, days: int, texts: list[str]) -> None:
    """A run of days, each with the person's real messages (as an import writes them)."""
    for n in range(days):
        day = first + dt.timedelta(n)
        path = dailylog.log_path(ws.people_dir / slug, day)
        path.parent.mkdir(exist_ok=True)
        dailylog.append_many(path, [dailylog.Entry(f"10:{i:02d}:00", "import:Alice", text)
                                    for i, text in enumerate(texts)], day)


# -- the section's format ---------------------------------------------------------------------------

def test_the_section_round_trips_byte_for_byte_and_a_hand_line_gets_an_id():
    body = "# Alice\n\n## Likes\n\nTea.\n" + CIRCLE + "\n## Background\n\nTaipei.\n"
    found = mentions_fmt.read(body)
    assert [(m.id, m.name, m.role, m.aliases, m.source) for m in found] == [
        ("m1", "Sara", "daughter", ["小女儿"], "log 2026-03-02"), ("", "Rob", "colleague", ["Robert"], "told")]
    assert mentions_fmt.write(body, found) == body
    again = mentions_fmt.write(body, mentions_fmt.with_ids(found))
    assert "- [m2] Rob (colleague; aka Robert): From the yoga class (told)\n\n## Background" in again
    assert "<!-- who Alice talks about -->" in again and again.count("[m1]") == 1
    added = mentions_fmt.write("# Bob\n", [mentions_fmt.Mention("Max", "dog", notes=["a beagle"], id="m1",
                                                                  source="log 2026-01-01")])
    assert added.endswith("## People in their life\n\n- [m1] Max (dog): a beagle (log 2026-01-01)\n")
    assert mentions_fmt.read(added)[0].notes == ["a beagle"]


# -- names people use -------------------------------------------------------------------------------

PEOPLE = [names.Candidate("m1", ["Sara", "小女儿"], "daughter"), names.Candidate("m2", ["Rob"], "colleague"),
          names.Candidate("wang", ["王建国"]), names.Candidate("li", ["李明"]), names.Candidate("lin", ["李娜"])]


@pytest.mark.parametrize("query, kind, match", [
    ("my daughter", "kin", "m1"), ("女儿", "kin", "m1"), ("Bobby", "nickname", "m2"), ("Robert", "nickname", "m2"),
    ("老王", "nickname", "wang"), ("王总", "nickname", "wang"), ("Sarra", "typo", "m1"), ("SARA", "exact", "m1")])
def test_nicknames_kinship_forms_of_address_and_typos_resolve_to_one(query, kind, match):
    found = names.resolve(query, PEOPLE)
    assert (found.kind, found.one) == (kind, match)


def test_an_ambiguous_name_is_asked_never_merged():
    found = names.resolve("小李", PEOPLE)
    assert found.ambiguous and sorted(found.matches) == ["li", "lin"] and found.one is None
    assert names.resolve("Ann", [names.Candidate("a", ["Amy"])]).matches == []  # short names take no typo


# -- linked when they join -------------------------------------------------------------------------

def test_person_add_links_the_mention_instead_of_duplicating(example_cli: Runner):
    with_circle(example_cli.ws)
    example_cli("person", "add", "Sara", "--relation", "friend")
    sara = next(m for m in mentions(example_cli.ws) if m.name == "Sara")
    assert sara.person == "sara" and sara.notes == ["Plays the violin", "8 years old"]
    assert subjects(example_cli.ws)[0].startswith("add(sara)")
    assert git(example_cli.ws, "status", "--porcelain") == ""  # Alice's line went in with the new person
    assert "people/alice/PROFILE.md" in git(example_cli.ws, "show", "--name-only", "--format=", "HEAD")


def test_a_mention_two_lines_could_mean_is_left_unlinked(example_cli: Runner):
    with_circle(example_cli.ws, text=CIRCLE + "- Sara (colleague): the other Sara (told)\n")
    example_cli("person", "add", "Sara", "--relation", "friend")
    assert [m.person for m in mentions(example_cli.ws) if m.name == "Sara"] == ["", ""]


# -- in the prompt ----------------------------------------------------------------------------------

def test_context_for_a_question_about_a_mention_shows_their_line(example_cli: Runner):
    with_circle(example_cli.ws)
    out = example_cli("context", "alice", "--for", "How is Sara?").output
    assert "People you have mentioned" in out and "Plays the violin" in out


def bob_with_notes(cli: Runner) -> None:
    cli("person", "add", "Bob Li", "--relation", "friend")
    memory = cli.ws.people_dir / "bob-li" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8").replace("## Facts\n", "## Facts\n\n- Bob is secretly "
                                                                 "planning to quit his job\n", 1), encoding="utf-8")
    profile = cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8").replace(
        "related:\n", "related:\n- person: bob-li\n  as: her colleague\n", 1), encoding="utf-8")
    git(cli.ws, "add", "-A")
    git(cli.ws, "commit", "-qm", "edit(bob-li): by hand")


def test_the_coach_sees_bobs_notes_and_the_path_the_persona_does_not(example_cli: Runner, fake_llm):
    bob_with_notes(example_cli)
    fake_llm.enqueue(ADVICE)
    example_cli("coach", "alice", "Should I tell Bob about Alice's new job?")
    system = fake_llm.request("coach", 0).system
    assert "secretly planning to quit" in system
    assert "Alice Chen → (her colleague) → Bob Li" in system
    persona = example_cli("context", "alice", "--for", "Should I tell Bob about your new job?").output
    assert "secretly planning to quit" not in persona and "Others this conversation names" not in persona
    fake_llm.enqueue(ADVICE)
    example_cli("coach", "alice", "老李 said hi")  # no one of that name: nobody else's notes
    second = fake_llm.request("coach", 1).system
    assert "老李 said hi" in fake_llm.request("coach", 1).prompt and "Alice Chen" in second
    assert "secretly planning" not in second


# -- history, strength, the map, today -------------------------------------------------------------

def test_a_hand_edit_of_relation_is_in_the_history_with_its_date(example_cli: Runner, tmp_path):
    from heartcompass.store import clock

    example_cli("edit", "alice", env={"EDITOR": scripted_editor(tmp_path, ("relation: friend", "relation: dating"))})
    data = json.loads(example_cli("graph", "--json").output)
    alice = next(p for p in data["people"] if p["slug"] == "alice")
    today = clock.today(example_cli.ws).isoformat()
    assert [(s["stage"], s["evidence"]) for s in alice["relation_history"]] == [
        ("friend", "added"), ("dating", "a hand edit")]
    assert alice["relation_history"][-1]["since"] == today
    shown = example_cli("person", "show", "alice").output
    assert f"friend since {today}, dating since {today}" in " ".join(shown.split())


def test_strength_rises_with_a_week_of_messages_and_falls_after_months_of_silence(example_cli: Runner,
                                                                                   monkeypatch):
    ws = example_cli.ws
    first = dt.date(2026, 3, 1)
    real_messages(ws, "alice", first, 7, ["haha thank you!!"] * 10)
    set_clock(monkeypatch, first + dt.timedelta(6))
    week = json.loads(example_cli("graph", "--json").output)
    link = next(k for k in week["links"] if k["to"] == "alice" and k.get("user"))
    assert link["strength"] > 0.8 and link["kind"] == "warm"
    assert link["last_evidence"] == {"day": "2026-03-07", "text": "haha thank you!!"}
    assert "penwidth=" in example_cli("graph", "--format", "dot").output
    assert "linkStyle" in example_cli("graph", "--format", "mermaid").output
    assert "Cooling" not in example_cli("today").output

    set_clock(monkeypatch, first + dt.timedelta(200))
    later = json.loads(example_cli("graph", "--json").output)
    faded = next(k for k in later["links"] if k["to"] == "alice" and k.get("user"))
    assert faded["strength"] < link["strength"] / 2 and faded["peak"] == link["peak"]
    assert "Alice Chen: cooling" in example_cli("today").output
    assert "cooling" in example_cli("person", "show", "alice").output


def test_the_strength_setting_is_the_half_life(example_cli: Runner, monkeypatch):
    first = dt.date(2026, 3, 1)
    real_messages(example_cli.ws, "alice", first, 1, ["ok"] * 10)
    set_clock(monkeypatch, first + dt.timedelta(30))
    example_cli("config", "set", "relations.half_life_days", "30")
    data = json.loads(example_cli("graph", "--json").output)
    link = next(k for k in data["links"] if k["to"] == "alice" and k.get("user"))
    assert link["strength"] == pytest.approx(0.15, abs=0.001)  # 0.3, halved once


def test_three_conflicts_in_a_row_against_friend_become_a_question_not_a_change(alice: Runner, fake_llm):
    from garden_helpers import proposal, say

    from heartcompass.memory.questions import Questions
    from heartcompass.store import clock

    ws = alice.ws
    for n, text in enumerate(["I am so angry you forgot my birthday", "You yelled at me again, I'm upset",
                              "Sorry is not enough, we fight every time"], 1):
        say(ws, "alice", "import:Alice", text, day=clock.today(ws) - dt.timedelta(4 - n))
    fake_llm.enqueue(proposal(new_facts=[{"text": "Alice is upset that the user forgot her birthday",
                                          "evidence": ["L1"]}]))
    alice("garden")
    asked = Questions(ws).pending("alice")
    assert [(q.kind, q.change, q.what) for q in asked] == [
        ("field", {"field": "relation", "value": "tension", "old": "friend"}, "relation: friend → tension")]
    assert len(asked[0].evidence) == 3 and "forgot my birthday" in asked[0].evidence[0]["text"]
    assert "relation: friend" in (ws.people_dir / "alice" / "PROFILE.md").read_text(encoding="utf-8")
    alice("review", "yes", asked[0].id)  # the user's Yes is the evidence the history names
    data = json.loads(alice("graph", "--json").output)
    stages = next(p for p in data["people"] if p["slug"] == "alice")["relation_history"]
    assert [(s["stage"], s["evidence"]) for s in stages] == [("friend", "added"), ("tension", "a review Yes")]


def test_a_descriptive_name_answers_to_its_noun_not_to_its_possessive():
    """'his kids' is named by 'your kids' (seen with a capable model), and 'the Canadian woman'
    never by a lone 'the'; a first name stays a first name."""
    from heartcompass.names import Candidate, named_in

    kids, woman = Candidate("m1", ("his kids",)), Candidate("m2", ("the Canadian woman",))
    assert named_in("How are your kids doing?", [kids, woman]) == {"m1": "his kids"}
    assert named_in("I saw the game last night", [kids, woman]) == {}
    assert named_in("Alice is here", [Candidate("a", ("Alice Chen",))]) == {"a": "Alice Chen"}


def test_a_note_holding_the_separator_keeps_its_two_clauses():
    """A ';' inside one note would split it on the next read: it becomes a comma, never a silent join."""
    from heartcompass.formats.mentions import Mention, parse_line, render_line

    line = render_line(Mention(id="m1", name="Rob", role="colleague", notes=["met at yoga; now a friend"],
                               source="log 2023-05-01"))
    assert "met at yoga, now a friend" in line
    assert parse_line(line).notes == ["met at yoga, now a friend"]
