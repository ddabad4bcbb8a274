"""The people's promises, tested on the store's core API (issue 29:
store/people's mutants): a name, alias or slug finds one person or says who
it could be; no one is added under a name someone else answers to; a new
person's folder appears whole; `person list` shows every person, a broken
file named beside them. Workspaces in temporary folders, most without git;
no CLI, no subprocess."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from heartcompass.errors import AmbiguousPerson, PersonError
from heartcompass.formats import events as events_fmt
from heartcompass.formats import memory as memory_fmt
from heartcompass.formats import profile as profile_fmt
from heartcompass.store import people
from heartcompass.store.people import Person
from heartcompass.store.workspace import Workspace


@pytest.fixture
def bare(tmp_path) -> Workspace:
    """A workspace folder without git: people are files, found and made without it."""
    root = tmp_path / "brain"
    root.mkdir()
    (root / "heartcompass.toml").write_text("[memory]\nmemory_budget_tokens = 500\n", encoding="utf-8")
    return Workspace(root)


def add(ws: Workspace, name: str, relation: str = "friend", **fields) -> Person:
    return people.create(ws, name, relation, **fields)


def broken(ws: Workspace, slug: str) -> Person:
    """A person whose PROFILE.md does not parse."""
    folder = ws.people_dir / slug
    folder.mkdir(parents=True)
    (folder / "PROFILE.md").write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    return Person(slug, folder)


# -- a person's files ----------------------------------------------------------------------------------------------
def test_a_persons_files_are_in_their_folder(bare):
    p = Person("alice", bare.people_dir / "alice")
    assert p.profile_path == bare.people_dir / "alice" / "PROFILE.md"
    assert p.events_path == bare.people_dir / "alice" / "EVENTS.md"
    assert p.memory_path == bare.people_dir / "alice" / "MEMORY.md"
    assert p.logs_dir == bare.people_dir / "alice" / "logs"
    assert p.files() == [p.profile_path, p.events_path, p.memory_path]


def test_a_person_without_events_or_memory_reads_as_empty_new_files(bare):
    p = add(bare, "Alice")
    p.events_path.unlink()
    p.memory_path.unlink()
    evs, mem = p.load_events(), p.load_memory()
    assert evs.events == [] and evs.path == p.events_path and "# Events — alice" in events_fmt.render(evs)
    assert mem.path == p.memory_path and "# Memory — alice" in memory_fmt.render(mem)


def test_a_new_persons_three_files_say_who_they_are(bare):
    p = add(bare, "Alice Chen", aliases=["Ali", "  "], mbti="infj", gender="female", about="Met at uni.",
            tags=["uni"], sections={"Likes": "tea"}, facts=["Has a cat", "Plays go (log 2024-01-02)"],
            extra={"birthday": "05-06"},
            past_events=[events_fmt.Event(dt.date(2020, 1, 2), "Moved to Berlin", 0.5, "import")])
    assert p == Person("alice-chen", bare.people_dir / "alice-chen") and p.dir.is_dir()
    prof = p.load_profile()
    assert (prof.name, prof.aliases, prof.relation, prof.mbti, prof.gender, prof.tags) == (
        "Alice Chen", ["Ali"], "friend", "INFJ", "female", ["uni"])
    assert prof.birthday == "05-06" and prof.sections()["Likes"] == "tea" and "Met at uni." in prof.sections()["Background"]
    mem = p.load_memory()
    assert mem.sections[memory_fmt.FACTS] == ["- Has a cat (import)", "- Plays go (log 2024-01-02)"]
    assert mem.budget_tokens == 500 and "# Memory — Alice Chen" in p.memory_path.read_text(encoding="utf-8")
    assert [(e.date, e.text) for e in p.load_events().events] == [(dt.date(2020, 1, 2), "Moved to Berlin")]
    assert "# Events — Alice Chen" in p.events_path.read_text(encoding="utf-8")
    assert sorted(os.listdir(bare.people_dir)) == ["alice-chen"]  # no staging folder left behind


def test_a_new_persons_name_is_cleaned_as_typed(bare):
    p = add(bare, "  e\u0301mile  ")
    assert p.slug == "émile" and p.load_profile().name == "émile"


def test_a_new_person_with_nothing_more_has_empty_lists(bare):
    p = add(bare, "Bob", "family")
    prof = p.load_profile()
    assert (prof.aliases, prof.related, prof.tags, prof.mbti, prof.gender) == ([], [], [], None, None)
    assert p.load_memory().sections[memory_fmt.FACTS] == [] and p.load_events().events == []


def test_a_folder_that_could_not_be_made_whole_leaves_nothing(bare, monkeypatch):
    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    add(bare, "Alice")
    monkeypatch.setattr(people, "write_atomic", full)
    with pytest.raises(OSError):
        add(bare, "Bob")
    assert sorted(os.listdir(bare.people_dir)) == ["alice"]


def test_a_name_that_is_a_folder_already_is_refused_and_says_whose(bare):
    add(bare, "Alice")
    with pytest.raises(PersonError) as exc:
        add(bare, "ALICE", allow_taken=True)
    assert exc.value.message == "The name 'ALICE' gives the folder people/alice, which someone already uses."
    assert exc.value.hint == "Choose a different name, e.g. with a last name or a nickname."
    (bare.archive_dir / "bob").mkdir(parents=True)
    with pytest.raises(PersonError) as exc:
        people.check_new_name(bare, "Bob")
    assert exc.value.message == "The name 'Bob' gives the folder people/bob, which an archived person uses."
    assert people.check_new_name(bare, "Carol") == "carol"


def test_only_one_person_is_the_user(bare):
    add(bare, "Me", "self")
    with pytest.raises(PersonError) as exc:
        add(bare, "Also Me", "self")
    assert exc.value.message == "people/me is already you (relation: self); only one person can be."
    assert "--relation friend" in exc.value.hint
    assert add(bare, "Friend").load_profile().relation == "friend"


def test_a_broken_profile_is_not_the_user_and_does_not_stop_adding_one(bare):
    broken(bare, "zed")
    add(bare, "Bob")
    assert people.self_people(bare) == []
    me = add(bare, "Me", "self")
    assert people.self_people(bare) == [me]


def test_a_new_name_or_alias_someone_answers_to_is_refused_unless_allowed(bare):
    alice = add(bare, "Alice", aliases=["Ali"])
    with pytest.raises(people.NameTakenError) as exc:
        add(bare, "Alicia", aliases=["ali "])
    assert exc.value.taken == [people.Collision("ali", alice, "alias")]  # as cleaned
    assert exc.value.message == "'ali' is already the alias of people/alice."
    assert exc.value.hint.endswith("or add --force to allow it anyway.")
    assert not (bare.people_dir / "alicia").exists()
    assert add(bare, "Alicia", aliases=["Ali"], allow_taken=True).load_profile().aliases == ["Ali"]


def test_a_related_person_must_be_there(bare):
    add(bare, "Bob")
    with pytest.raises(PersonError) as exc:
        add(bare, "Carol", related=[{"person": "zed", "as": "friend"}])
    assert exc.value.message == "Unknown related person 'zed'." and exc.value.hint == "Add them first, or use their slug."
    carol = add(bare, "Carol", related=[{"person": "bob", "as": "brother"}])
    assert carol.load_profile().related == [{"person": "bob", "as": "brother"}]
    assert people.linking_profiles(bare, "bob") == [carol] and people.linking_profiles(bare, "carol") == []


def test_who_links_to_someone_skips_themselves_and_broken_profiles(bare):
    bob = add(bare, "Bob")
    broken(bare, "aaa")
    prof = bob.load_profile()
    prof.set("related", [{"person": "bob"}])
    bob.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    carol = add(bare, "Carol", related=[{"person": "bob"}])
    assert people.linking_profiles(bare, "bob") == [carol]


# -- who is there ------------------------------------------------------------------------------------------------
def test_everyone_with_a_profile_is_listed_in_order(bare):
    assert people.list_people(bare) == []  # no people/ folder yet
    for name in ("Carol", "Alice", "Bob"):
        add(bare, name)
    (bare.people_dir / "empty").mkdir()
    (bare.people_dir / ".hidden").mkdir()
    (bare.people_dir / ".hidden" / "PROFILE.md").write_text("---\nname: H\n---\n", encoding="utf-8")
    (bare.people_dir / "folder" / "PROFILE.md").mkdir(parents=True)
    fifo = bare.people_dir / "piped"
    fifo.mkdir()
    os.mkfifo(fifo / "PROFILE.md")
    assert [p.slug for p in people.list_people(bare)] == ["alice", "bob", "carol", "piped"]
    assert people.list_people(bare)[0] == Person("alice", bare.people_dir / "alice")


# -- finding someone ---------------------------------------------------------------------------------------------
@pytest.fixture
def crowd(bare) -> Workspace:
    add(bare, "Alice Chen", aliases=["Ali", "小爱"])
    add(bare, "Bob Stone")
    add(bare, "欧阳明月")
    add(bare, "Me", "self")
    return bare


@pytest.mark.parametrize("asked, slug", [
    ("alice-chen", "alice-chen"), ("Alice-Chen", "alice-chen"), ("alice chen", "alice-chen"), ("ALI", "alice-chen"),
    ("小爱", "alice-chen"), ("bob", "bob-stone"), ("ali", "alice-chen"), ("明月", "欧阳明月"), ("Bob S", "bob-stone"),
    ("me", "me"), ("  Bob Stone ", "bob-stone"),
])
def test_a_slug_name_alias_or_first_name_finds_one_person(crowd, asked, slug):
    assert people.resolve(crowd, asked).slug == slug


def test_the_users_person_answers_to_user_name_while_named_me(crowd):
    (crowd.root / "heartcompass.toml").write_text('[user]\nname = " 王磊 "\n', encoding="utf-8")
    crowd.reload_config()
    assert people.resolve(crowd, "王磊").slug == "me"
    prof = Person("me", crowd.people_dir / "me").load_profile()
    assert people.display_name(prof, " 王磊 ") == "王磊" and people.display_name(prof, "  ") == "Me"
    alice = Person("alice-chen", crowd.people_dir / "alice-chen").load_profile()
    assert people.display_name(alice, "王磊") == "Alice Chen"
    prof.set("name", "Lei")
    assert people.display_name(prof, "王磊") == "Lei"


def test_a_name_several_people_answer_to_is_a_question_of_which(crowd):
    add(crowd, "Bob Marley")
    with pytest.raises(AmbiguousPerson) as exc:
        people.resolve(crowd, "bob")
    assert exc.value.candidates == [("bob-marley", "Bob Marley"), ("bob-stone", "Bob Stone")]
    assert exc.value.message == "'bob' could be several people: bob-marley, bob-stone."
    add(crowd, "Ali Baba", aliases=["ali"], allow_taken=True)
    with pytest.raises(AmbiguousPerson) as exc:
        people.resolve(crowd, "Ali")
    assert [slug for slug, _ in exc.value.candidates] == ["ali-baba", "alice-chen"]


def test_a_name_no_one_answers_to_suggests_the_close_ones(crowd):
    with pytest.raises(PersonError) as exc:
        people.resolve(crowd, "Alise Chen")
    assert exc.value.message == "No person called 'Alise Chen' in this workspace. Did you mean 'alice chen'?" or \
        exc.value.message.startswith("No person called 'Alise Chen' in this workspace. Did you mean ")
    assert "'Alice Chen'" in exc.value.message or "'alice-chen'" in exc.value.message
    assert exc.value.hint == "See 'heartcompass person list', or add them with 'heartcompass person add'."
    with pytest.raises(PersonError) as exc:
        people.resolve(crowd, "Zebulon")
    assert exc.value.message == "No person called 'Zebulon' in this workspace."


def test_a_close_name_is_suggested_as_it_is_written(crowd):
    with pytest.raises(PersonError) as exc:
        people.resolve(crowd, "Bobb Stone")
    assert exc.value.message == "No person called 'Bobb Stone' in this workspace. Did you mean 'Bob Stone' or 'bob-stone'?"


def test_an_archived_person_is_said_to_be_archived_with_the_way_back(crowd):
    (crowd.archive_dir / "dora").mkdir(parents=True)
    (crowd.archive_dir / "dora" / "PROFILE.md").write_text("---\nname: Dora X\n---\n", encoding="utf-8")
    (crowd.archive_dir / "stray.md").write_text("x", encoding="utf-8")
    with pytest.raises(PersonError) as exc:
        people.resolve(crowd, "dora x")
    assert exc.value.message == "'dora x' is archived (people/.archive/dora/)."
    assert exc.value.hint == "Bring them back with: heartcompass person unarchive dora"


def test_a_profile_that_does_not_parse_is_named_when_no_one_is_found(crowd):
    broken(crowd, "zed")
    assert people.resolve(crowd, "zed").slug == "zed"  # its folder name still finds it
    with pytest.raises(PersonError) as exc:
        people.resolve(crowd, "Zedediah")
    assert exc.value.message == ("No person called 'Zedediah' among those whose profile could be read; "
                                 "people/zed/PROFILE.md could not, so the names and aliases there were not searched.")
    assert exc.value.hint == "Fix that file ('heartcompass doctor' names the line), or use the folder name."


def test_a_dot_folder_or_a_folder_without_a_profile_is_no_one(crowd):
    (crowd.people_dir / "ghost").mkdir()
    (crowd.people_dir / ".alice-chen").mkdir()
    for name in ("ghost", ".alice-chen"):
        with pytest.raises(PersonError):
            people.resolve(crowd, name)
    assert people.resolve(crowd, "Bob Stone").slug == "bob-stone"


def test_matching_prefers_a_folder_name_then_every_name_and_alias(crowd):
    everyone = people.list_people(crowd)
    assert [p.slug for p in people.matching(everyone, "ALICE-CHEN")] == ["alice-chen"]
    assert [p.slug for p in people.matching(everyone, "小爱")] == ["alice-chen"]
    assert people.matching(everyone, "bob") == []  # a first name is name_match's, not an exact match
    asked = []
    assert [p.slug for p in people.matching(everyone, "Lei", lambda: asked.append(1) or "Lei")] == ["me"]
    assert asked == [1]  # user.name read once, however many profiles


def test_a_slug_that_names_another_persons_alias_is_that_folder(bare):
    first = add(bare, "Ann")
    add(bare, "Zed", aliases=["ann2"])
    second = add(bare, "Ann 2", allow_taken=True)
    assert people.matching(people.list_people(bare), "ann-2") == [second]
    assert people.matching(people.list_people(bare), "ann") == [first]


# -- what `person list` shows ------------------------------------------------------------------------------------
def test_a_summary_is_what_person_list_shows(bare):
    p = add(bare, "Alice", mbti="ENFP", facts=["Has a cat"],
            past_events=[events_fmt.Event(dt.date(2020, 1, 2), "A"), events_fmt.Event(dt.date(2021, 1, 2), "B")])
    p.logs_dir.mkdir()
    for day in ("2024-03-01", "2024-01-05"):
        (p.logs_dir / f"{day}.md").write_text(f"# {day}\n", encoding="utf-8")
    s = people.summarize(p)
    assert (s.slug, s.name, s.relation, s.mbti, s.last_chat, s.events, s.error) == (
        "alice", "Alice", "friend", "ENFP", "2024-03-01", 2, None)
    body = p.memory_path.read_text(encoding="utf-8").split("\n---\n", 1)[1]
    from heartcompass.tokens import estimate_tokens

    assert s.memory_tokens == estimate_tokens(body) and 0 < s.memory_tokens < estimate_tokens(
        p.memory_path.read_text(encoding="utf-8"))


def test_a_summary_of_the_user_shows_user_name(bare):
    me = add(bare, "Me", "self")
    assert people.summarize(me, "王磊").name == "王磊" and people.summarize(me).name == "Me"


def test_a_summary_without_logs_events_or_memory(bare):
    p = add(bare, "Bob")
    p.events_path.unlink()
    p.memory_path.write_text("no frontmatter here", encoding="utf-8")
    s = people.summarize(p)
    assert (s.last_chat, s.events, s.error) == (None, 0, None)
    from heartcompass.tokens import estimate_tokens

    assert s.memory_tokens == estimate_tokens("no frontmatter here")


def test_a_summary_names_each_broken_file_and_still_shows_the_rest(bare):
    p = broken(bare, "zed")
    (p.dir / "logs").write_text("a file, not a folder", encoding="utf-8")
    (p.dir / "EVENTS.md").write_bytes(b"\xff\xfe bad")
    (p.dir / "MEMORY.md").write_bytes(b"\xff bad")
    s = people.summarize(p)
    assert (s.slug, s.name, s.relation, s.mbti, s.last_chat, s.events, s.memory_tokens) == ("zed", "zed", "?", None, None, 0, 0)
    named = [name for name in ("logs:", "PROFILE.md", "EVENTS.md", "MEMORY.md") if name in s.error]
    assert named == ["logs:", "PROFILE.md", "EVENTS.md", "MEMORY.md"]
    assert s.error.index("logs:") < s.error.index("PROFILE.md") < s.error.index("EVENTS.md") < s.error.index("MEMORY.md")


# -- names already taken -----------------------------------------------------------------------------------------
def test_collisions_name_who_answers_and_as_what(crowd):
    alice = Person("alice-chen", crowd.people_dir / "alice-chen")
    bob = Person("bob-stone", crowd.people_dir / "bob-stone")
    found = people.collisions(crowd, ["ALICE CHEN", "ali", "Bob-Stone", "nobody", "", "  "])
    assert found == [people.Collision("ALICE CHEN", alice, "name"), people.Collision("ali", alice, "alias"),
                     people.Collision("Bob-Stone", bob, "folder name")]
    assert found[0].describe() == "'ALICE CHEN' is already the name of people/alice-chen"
    assert people.collisions(crowd, ["Ali"], exclude="alice-chen") == []
    assert people.collisions(crowd, ["e\u0301mile"]) == []


def test_a_name_in_another_normal_form_is_the_same_name(bare):
    emile = add(bare, "Émile")
    assert [c.person for c in people.collisions(bare, ["E\u0301MILE"])] == [emile]


def test_a_broken_profile_still_holds_its_folder_name(bare):
    zed = broken(bare, "zed")
    assert people.collisions(bare, ["Zed"]) == [people.Collision("Zed", zed, "folder name")]
    with pytest.raises(people.NameTakenError):
        people.refuse_taken(bare, ["zed"])
    people.refuse_taken(bare, ["zed"], exclude="zed")
    people.refuse_taken(bare, ["someone else"])


def test_the_users_name_taken_by_someone_else(crowd):
    assert people.user_name_taken(crowd, "Me") == []  # the user's own person may be called so
    bob = Person("bob-stone", crowd.people_dir / "bob-stone")
    assert people.user_name_taken(crowd, "bob stone") == [people.Collision("bob stone", bob, "name")]
    zed = broken(crowd, "zed")
    assert people.user_name_taken(crowd, "zed") == [people.Collision("zed", zed, "folder name")]


def test_the_fix_for_a_taken_user_name_is_two_commands_that_run():
    assert people.user_name_fix("王 磊", "wang") == (
        "Set user.name to what sets you apart, e.g. heartcompass config set user.name '王 磊 (me)'; "
        "or rename them: heartcompass person rename wang NEW-NAME")
    assert people.user_name_fix("Lei", "it's") .endswith("heartcompass person rename 'it'\"'\"'s' NEW-NAME")


def test_doctor_lists_every_name_more_than_one_person_answers_to(bare):
    a = add(bare, "Ann", aliases=["Sam"])
    b = add(bare, "Sam", aliases=["ann"], allow_taken=True)
    add(bare, "Solo", aliases=["solo", " "])
    broken(bare, "zed")
    found = people.all_collisions(bare)
    assert found == [("ann", [a, b]), ("Sam", [a, b])]  # as the first of them writes it
