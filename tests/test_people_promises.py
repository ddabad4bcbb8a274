"""The people's promises, tested on the store's core API (issue 29:
store/people's mutants): a name, alias or slug finds one person or says who
it could be; no one is added under a name someone else answers to; a new
person's folder appears whole; `person list` shows every person, a broken
file named beside them. Workspaces in temporary folders, most without git;
no CLI, no subprocess."""

from __future__ import annotations

import datetime as dt
import os

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
    edit = Person("me", crowd.people_dir / "me")
    prof = edit.load_profile()
    prof.set("aliases", ["Sam"])
    edit.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    sam = add(crowd, "Sam", allow_taken=True)  # after people/me in the list: the user's own is passed over, not the end
    assert people.user_name_taken(crowd, "sam") == [people.Collision("sam", sam, "name")]


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


# -- names as people say them (name_match) -----------------------------------------------------------------------
def test_a_first_or_given_name_finds_whoever_has_it(bare):
    from heartcompass.store.name_match import loosely

    add(bare, "Bob Stone")
    add(bare, "王小明")
    add(bare, "欧阳明月")
    add(bare, "Li")
    add(bare, "小")
    everyone = people.list_people(bare)
    found = lambda name: [p.slug for p in loosely(everyone, name)]  # noqa: E731
    assert found("bob") == ["bob-stone"] and found("  BOB ") == ["bob-stone"]
    assert found("小明") == ["王小明"] and found("明月") == ["欧阳明月"] and found("阳明月") == ["欧阳明月"]
    assert found("月") == [] and found("") == [] and found("   ") == []
    assert found("stone") == []  # a last name is not a first name, nor the start of one
    assert found("bo") == ["bob-stone"] and found("b") == []  # a start of two characters or more
    assert found("王小") == ["王小明"] and found("li") == ["li"]


def test_a_given_name_is_read_only_from_a_chinese_name():
    from heartcompass.store.name_match import _cjk, _first_names

    assert _first_names("Bob Stone") == {"bob"} and _first_names("Bob") == set()
    assert _first_names("王小明") == {"小明"} and _first_names("欧阳明月") == {"阳明月", "明月"}
    assert _first_names("王明") == {"明"} and _first_names("王") == set() and _first_names("Anna") == set()
    assert _first_names("김민준") == {"민준"}
    assert _cjk("王小明") and not _cjk("") and not _cjk("王a") and not _cjk("ひら")


def test_a_broken_profile_is_found_only_by_its_folder_name(bare):
    from heartcompass.store.name_match import loosely, titled

    zed = broken(bare, "zedd")
    bob = add(bare, "Bob Stone")
    assert loosely([zed, bob], "ze") == [] and loosely([zed, bob], "bo") == [bob]
    assert titled([zed, bob]) == [("zedd", "zedd"), ("bob-stone", "Bob Stone")]


def test_a_question_of_which_shows_the_folder_for_a_nameless_profile(bare):
    from heartcompass.store.name_match import titled

    p = add(bare, "Bob")
    prof = p.load_profile()
    prof.set("name", "")
    p.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    assert titled([p]) == [("bob", "bob")]


# -- aliases: never the user, a speaker, or someone else's ------------------------------------------------------------
def test_an_alias_that_is_the_user_a_speaker_or_someone_elses_is_refused(crowd):
    from heartcompass.store.aliases import alias_refusal, taken_names

    (crowd.root / "heartcompass.toml").write_text('[user]\nname = "王磊"\n', encoding="utf-8")
    crowd.reload_config()
    prof = Person("bob-stone", crowd.people_dir / "bob-stone").load_profile()
    prof.set("handles", ["@bobby", "+1 (555) 867-5309"])
    (crowd.people_dir / "bob-stone" / "PROFILE.md").write_text(profile_fmt.render(prof), encoding="utf-8")
    broken(crowd, "zed")
    refusal = lambda alias, slug="alice-chen", **kw: alias_refusal(crowd, alias, slug, **kw)  # noqa: E731
    assert refusal("  ") == "it is empty"
    assert refusal("ME") == "'ME' is how the user speaks of themselves"
    assert refusal("我") == "'我' is how the user speaks of themselves"
    assert refusal(" 王磊 ") == "' 王磊 ' is how the user speaks of themselves"
    assert refusal("Lei", user_names=("lei", " ")) == "'Lei' is how the user speaks of themselves"
    assert refusal("import:me") == "'import:me' is a speaker of the logs, not a name"
    assert refusal("Note") == "'Note' is a speaker of the logs, not a name"
    assert refusal("bob  stone") == "'bob  stone' is already the name of people/bob-stone"
    assert refusal("Bob-Stone") == "'Bob-Stone' is already the folder name of people/bob-stone"
    assert refusal("Zed") == "'Zed' is already the folder name of people/zed"
    assert refusal("小爱", slug="bob-stone") == "'小爱' is already the alias of people/alice-chen"
    assert refusal("小爱") is None  # her own alias again
    assert refusal("BOBBY") == "'BOBBY' is a handle of people/bob-stone"
    assert refusal("+15558675309") == "'+15558675309' is a handle of people/bob-stone"
    assert refusal("Ally") is None and alias_refusal(crowd, "Ally", None) is None
    taken = taken_names(crowd)
    assert taken["zed"] == ({"zed": "folder name"}, set())
    assert refusal("bob stone", taken=taken) == "'bob stone' is already the name of people/bob-stone"
    assert refusal("bob stone", taken={}) is None  # the names given are the ones checked


def test_an_empty_user_name_refuses_nothing(crowd):
    from heartcompass.store.aliases import alias_refusal

    assert alias_refusal(crowd, "Ally", "alice-chen", user_names=("",)) is None


# -- the people index: facts from everyone's files, read once ---------------------------------------------------------
@pytest.fixture
def settled_now(monkeypatch):
    """Every file counts as settled: written longer ago than the racy window."""
    from heartcompass import stat_cache

    real = stat_cache._now_ns
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: real() + 3_000_000_000)


def test_the_index_gives_each_persons_facts_and_keeps_them(bare, settled_now, monkeypatch):
    from heartcompass.store.people_index import PeopleIndex, ProfileFacts

    add(bare, "Bob")
    alice = add(bare, "Alice", mbti="INFJ", aliases=["Ali"], related=[{"person": "bob", "as": "brother"}])
    zed = broken(bare, "zed")
    index = PeopleIndex.load(bare)
    assert index.entries == {} and index.path == bare.root / ".heartcompass" / "people-index.json"
    facts = index.profile(alice)
    assert facts == ProfileFacts("Alice", "friend", "INFJ", ("Ali",), (("bob", "brother"),), None)
    assert facts.names() == ["Alice", "Ali"]
    bad = index.profile(zed)
    assert (bad.name, bad.relation, bad.mbti, bad.aliases) == ("zed", "?", None, ()) and "PROFILE.md" in bad.error
    assert index.dirty
    index.save()
    assert not index.dirty
    monkeypatch.setattr(Person, "load_profile", lambda self: pytest.fail("parsed again"))
    again = PeopleIndex.load(bare)
    assert again.profile(alice) == facts and again.profile(zed) == bad and not again.dirty


def test_a_person_added_since_is_read_and_one_gone_is_forgotten(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob, carol = add(bare, "Bob"), add(bare, "Carol")
    index = PeopleIndex.load(bare)
    index.profiles([bob, carol])
    assert sorted(PeopleIndex.load(bare).entries) == ["bob", "carol"]
    import shutil

    shutil.rmtree(carol.dir)
    index = PeopleIndex.load(bare)
    index.profiles([bob])
    assert sorted(PeopleIndex.load(bare).entries) == ["bob"]
    (bare.people_dir / "carol").mkdir()  # a folder still there (no profile): its entry is kept a while
    index = PeopleIndex(bare, {"carol": {}, "bob": {}})
    index._forget_all_but([bob])
    assert sorted(index.entries) == ["bob", "carol"] and not index.dirty


def test_a_changed_profile_is_read_again(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    index = PeopleIndex.load(bare)
    assert index.profile(bob).name == "Bob"
    index.save()
    prof = bob.load_profile()
    prof.set("name", "Robert")
    bob.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    assert PeopleIndex.load(bare).profile(bob).name == "Robert"


def test_a_profile_written_just_now_is_not_cached(bare):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    index = PeopleIndex.load(bare)
    assert index.profile(bob).name == "Bob" and not index.dirty and index.entries == {}
    index.save()
    assert not index.path.exists()


@pytest.mark.parametrize("text", ["not json", '["a list"]', '{"format": 0, "people": {"bob": {}}}',
                                  '{"format": 1, "people": []}', '{"format": 1}'])
def test_a_broken_or_older_index_is_rebuilt(bare, text):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    path = bare.root / ".heartcompass" / "people-index.json"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    index = PeopleIndex.load(bare)
    assert index.entries == {} and index.profile(bob).name == "Bob"


def test_a_cached_entry_under_other_keys_is_not_used(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    index = PeopleIndex(bare, {"bob": {"profile": {"keys": [[1, 2, 3, 4]], "value": {"name": "Stale"}},
                                       "summary": "not a dict"}})
    assert index.profile(bob).name == "Bob" and index.summary(bob).name == "Bob"


def test_the_summaries_are_kept_and_follow_user_name(bare, settled_now, monkeypatch):
    from heartcompass.store.people_index import PeopleIndex

    me, bob = add(bare, "Me", "self"), add(bare, "Bob")
    (bob.logs_dir).mkdir()
    (bob.logs_dir / "2024-05-01.md").write_text("# 2024-05-01\n", encoding="utf-8")
    rows = PeopleIndex.load(bare).summaries([bob, me], "王磊")
    assert rows == [people.summarize(bob, "王磊"), people.summarize(me, "王磊")]
    assert rows[0].last_chat == "2024-05-01" and rows[1].name == "王磊"
    real = people.summarize
    monkeypatch.setattr("heartcompass.store.people_index.summarize", lambda p, u="": pytest.fail("summarized again"))
    assert PeopleIndex.load(bare).summaries([bob, me], "王磊") == rows
    monkeypatch.setattr("heartcompass.store.people_index.summarize", real)
    assert PeopleIndex.load(bare).summaries([me], "Lei")[0].name == "Lei"


def test_a_summary_cached_by_an_older_version_is_made_again(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    index = PeopleIndex.load(bare)
    index.summary(bob)
    entry = index.entries["bob"]["summary"]
    entry["value"] = {**entry["value"], "retired_field": 1}
    assert index.summary(bob) == people.summarize(bob)


def test_who_names_someone_in_their_related(bare, settled_now, monkeypatch):
    from heartcompass.store import people_index

    add(bare, "Bob")
    alice = add(bare, "Alice", related=[{"person": "bob", "as": "brother"}])
    add(bare, "Carol", related=[{"person": "alice"}])
    broken(bare, "zed")
    found = people_index.incoming(bare, "bob")
    assert [(other, words, facts.name) for other, words, facts in found] == [("alice", "brother", "Alice")]
    assert found[0][2] == people_index.PeopleIndex(bare).profile(alice)
    assert people_index.for_workspace(bare) is people_index.for_workspace(bare)
    link = bare.root / ".heartcompass" / "links" / "bob.json"
    assert link.is_file()
    monkeypatch.setattr(people_index.PeopleIndex, "incoming", lambda *a: pytest.fail("worked out again"))
    assert people_index.incoming(bare, "bob") == found


def test_who_names_someone_is_worked_out_again_when_a_profile_changes(bare, settled_now):
    from heartcompass.store import people_index

    bob = add(bare, "Bob")
    alice = add(bare, "Alice")
    assert people_index.incoming(bare, "bob") == []
    prof = alice.load_profile()
    prof.set("related", [{"person": "bob", "as": "brother"}])
    alice.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    assert [o for o, _, _ in people_index.incoming(Workspace(bare.root), "bob")] == ["alice"]
    assert people_index.PeopleIndex(bare).incoming("alice", [bob, alice]) == []


def test_who_names_someone_just_now_is_not_kept(bare):
    from heartcompass.store import people_index

    add(bare, "Bob")
    add(bare, "Alice", related=[{"person": "bob"}])
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]
    assert not (bare.root / ".heartcompass" / "links" / "bob.json").exists()


@pytest.mark.parametrize("text", ["nope", '{"format": 1, "digest": "x", "incoming": []}', '[]',
                                  '{"format": 1, "digest": "DIGEST", "incoming": [[1]]}'])
def test_a_broken_or_stale_links_file_is_worked_out_again(bare, settled_now, text):
    from heartcompass.store import people_index

    add(bare, "Bob")
    add(bare, "Alice", related=[{"person": "bob"}])
    digest, steady = people_index.profiles_digest(bare)
    assert steady
    link = bare.root / ".heartcompass" / "links" / "bob.json"
    link.parent.mkdir(parents=True)
    link.write_text(text.replace("DIGEST", digest), encoding="utf-8")
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]


def test_the_profiles_digest_changes_with_any_profile(bare):
    from heartcompass.store.people_index import profiles_digest

    empty = profiles_digest(bare)
    assert empty[1] is True
    bob = add(bare, "Bob")
    first, steady = profiles_digest(bare)
    assert first != empty[0] and steady is False  # written just now
    (bare.people_dir / ".hidden").mkdir()
    (bare.people_dir / ".hidden" / "PROFILE.md").write_text("x", encoding="utf-8")
    (bare.people_dir / "noprofile").mkdir()
    (bare.people_dir / "dir" / "PROFILE.md").mkdir(parents=True)
    assert profiles_digest(bare)[0] == first
    with bob.profile_path.open("a", encoding="utf-8") as f:
        f.write("\n")
    assert profiles_digest(bare)[0] != first


# -- more of what a user would lose -------------------------------------------------------------------------------
def test_a_hidden_folder_is_never_a_person_even_by_its_folder_name(bare):
    add(bare, "Bob")
    (bare.people_dir / ".trash").mkdir()
    (bare.people_dir / ".trash" / "PROFILE.md").write_text("---\nname: Trash\n---\n", encoding="utf-8")
    with pytest.raises(PersonError):
        people.resolve(bare, ".trash")
    assert people.resolve(bare, "bob").slug == "bob"


def test_no_one_is_found_in_a_workspace_without_people(bare):
    with pytest.raises(PersonError) as exc:
        people.resolve(bare, "Alice")
    assert exc.value.message == "No person called 'Alice' in this workspace."


def test_at_most_three_close_names_are_suggested(bare):
    for name in ("Anna", "Annb", "Annc", "Annd"):
        add(bare, name)
    with pytest.raises(PersonError) as exc:
        people.resolve(bare, "Anne")
    assert exc.value.message == "No person called 'Anne' in this workspace. Did you mean 'Annd' or 'Annc' or 'Annb'?"


def test_a_new_persons_name_someone_else_answers_to_is_refused(bare):
    add(bare, "Alice", aliases=["Ali"])
    with pytest.raises(people.NameTakenError) as exc:
        add(bare, "Ali")
    assert exc.value.message == "'Ali' is already the alias of people/alice."
    with pytest.raises(people.NameTakenError) as exc:
        add(bare, "Bob", aliases=["alice", "ALI"])
    assert exc.value.message == ("'alice' is already the name of people/alice; "
                                 "'ALI' is already the alias of people/alice.")


def test_a_half_made_folder_is_never_a_person(bare, monkeypatch):
    """Killed between writing the files and the rename (no cleanup ran): the
    staging folder is hidden, so no one is listed or found by it."""
    def killed(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(people.shutil, "rmtree", lambda *a, **k: None)
    monkeypatch.setattr(people.os, "rename", killed)
    with pytest.raises(KeyboardInterrupt):
        add(bare, "Bob")
    left = os.listdir(bare.people_dir)
    assert len(left) == 1 and (bare.people_dir / left[0] / "PROFILE.md").is_file()
    assert people.list_people(bare) == []


def test_a_summary_joins_the_problems_one_a_line(bare):
    from heartcompass.errors import FormatError
    from heartcompass.formats import dailylog

    p = broken(bare, "zed")
    (p.dir / "logs").write_text("a file", encoding="utf-8")
    problems = []
    for read in (lambda: dailylog.log_dates(p.dir), p.load_profile):
        with pytest.raises(FormatError) as exc:
            read()
        problems.append(str(exc.value))
    assert people.summarize(p).error == "\n".join(problems)


def test_a_memory_body_with_a_rule_in_it_is_counted_whole(bare):
    from heartcompass.tokens import estimate_tokens

    p = add(bare, "Bob")
    p.memory_path.write_text("---\nbudget_tokens: 10\n---\n\n# Memory\n\n---\n\nmore words after the rule here\n",
                             encoding="utf-8")
    assert people.summarize(p).memory_tokens == estimate_tokens(
        "\n# Memory\n\n---\n\nmore words after the rule here\n")


def test_a_collision_is_found_whatever_the_spaces_around_it(crowd):
    assert [c.as_what for c in people.collisions(crowd, [" Ali "])] == ["alias"]


@pytest.mark.parametrize("word", ["me", "Myself", "I", "user", "The User", "you", "我", "自己", "本人", "你"])
def test_every_word_the_user_calls_themselves_is_never_an_alias(crowd, word):
    from heartcompass.store.aliases import alias_refusal

    assert alias_refusal(crowd, word, "bob-stone") == f"{word!r} is how the user speaks of themselves"


@pytest.mark.parametrize("word", ["persona", "MARK", "note", "a:b"])
def test_a_speaker_of_the_logs_is_never_an_alias(crowd, word):
    from heartcompass.store.aliases import alias_refusal

    assert alias_refusal(crowd, word, "bob-stone") == f"{word!r} is a speaker of the logs, not a name"


def test_an_index_that_cannot_be_saved_is_said_once_and_listing_goes_on(bare, settled_now):
    from heartcompass.atomic import unsaved_caches
    from heartcompass.store import people_index

    bob = add(bare, "Bob")
    add(bare, "Alice", related=[{"person": "bob"}])
    (bare.root / ".heartcompass").write_text("a file where the folder goes", encoding="utf-8")
    unsaved_caches()
    index = people_index.PeopleIndex.load(bare)
    assert index.profiles([bob])["bob"].name == "Bob" and index.dirty
    assert [path for path, _ in unsaved_caches()] == [bare.root / ".heartcompass" / "people-index.json"]
    (bare.root / ".heartcompass").unlink()
    (bare.root / ".heartcompass").mkdir()
    (bare.root / ".heartcompass" / "links").write_text("a file where the folder goes", encoding="utf-8")
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]
    assert [path for path, _ in unsaved_caches()] == [bare.root / ".heartcompass" / "links" / "bob.json"]


def test_a_links_file_of_another_format_is_worked_out_again(bare, settled_now):
    from heartcompass.store import people_index

    add(bare, "Bob")
    add(bare, "Alice", related=[{"person": "bob"}])
    digest, _ = people_index.profiles_digest(bare)
    link = bare.root / ".heartcompass" / "links" / "bob.json"
    link.parent.mkdir(parents=True)
    link.write_text(f'{{"format": 0, "digest": "{digest}", "incoming": []}}', encoding="utf-8")
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]
    import json

    saved = json.loads(link.read_text(encoding="utf-8"))
    assert saved["format"] == people_index.FORMAT and saved["digest"] == digest and len(saved["incoming"]) == 1


def test_without_user_name_the_users_person_is_shown_by_its_own_name(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    me = add(bare, "Me", "self")
    assert PeopleIndex.load(bare).summary(me).name == "Me"
    assert PeopleIndex.load(bare).summaries([me])[0].name == "Me"


def test_a_cached_summary_follows_a_new_log_and_an_edited_profile(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    bob.logs_dir.mkdir()
    (bob.logs_dir / "2024-05-01.md").write_text("# 2024-05-01\n", encoding="utf-8")
    assert PeopleIndex.load(bare).summaries([bob])[0].last_chat == "2024-05-01"
    (bob.logs_dir / "2024-06-01.md").write_text("# 2024-06-01\n", encoding="utf-8")
    assert PeopleIndex.load(bare).summaries([bob])[0].last_chat == "2024-06-01"
    prof = bob.load_profile()
    prof.set("relation", "family")
    bob.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    assert PeopleIndex.load(bare).summaries([bob])[0].relation == "family"


def test_a_broken_profile_first_does_not_hide_the_names_shared_after_it(bare):
    broken(bare, "aaa")
    a, b = add(bare, "Ann"), add(bare, "Bea", aliases=["Ann"], allow_taken=True)
    assert people.all_collisions(bare) == [("ann", [a, b])]


def test_a_taken_name_says_how_to_go_on(bare):
    add(bare, "Ann")
    with pytest.raises(people.NameTakenError) as exc:
        people.refuse_taken(bare, ["ann"])
    assert exc.value.hint == ("Use another name or alias (e.g. with a last name), or add --force to allow it "
                              "anyway.")


def test_an_unset_user_name_refuses_no_word_as_an_alias(crowd):
    from heartcompass.store.aliases import alias_refusal

    assert crowd.config.get("user.name") == ""
    assert alias_refusal(crowd, "XXXX", "bob-stone") is None and alias_refusal(crowd, "Robbie", "bob-stone") is None


def test_every_profile_that_could_not_be_read_is_named(bare):
    broken(bare, "xan")
    broken(bare, "zed")
    with pytest.raises(PersonError) as exc:
        people.resolve(bare, "Alice")
    assert ("people/xan/PROFILE.md, people/zed/PROFILE.md could not, so the names and aliases there were not "
            "searched.") in exc.value.message


@pytest.mark.parametrize("text", ["plain words\n---\nmore words after a rule\n", "---\nno end to this frontmatter\n"])
def test_a_memory_without_a_whole_frontmatter_is_counted_whole(bare, text):
    from heartcompass.tokens import estimate_tokens

    p = add(bare, "Bob")
    p.memory_path.write_text(text, encoding="utf-8")
    assert people.summarize(p).memory_tokens == estimate_tokens(text)


def test_a_person_is_never_their_own_incoming_link(bare, settled_now):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    prof = bob.load_profile()
    prof.set("related", [{"person": "bob", "as": "myself"}])
    bob.profile_path.write_text(profile_fmt.render(prof), encoding="utf-8")
    carol = add(bare, "Carol", related=[{"person": "bob", "as": "friend"}])
    assert [(o, w) for o, w, _ in PeopleIndex(bare).incoming("bob", [bob, carol])] == [("carol", "friend")]


def test_a_folder_name_is_found_without_reading_everyone(bare, monkeypatch):
    """The common case, a slug as it is: found at once, even among 10,000 people."""
    bob = add(bare, "Bob")
    monkeypatch.setattr(people, "list_people", lambda ws: pytest.fail("read everyone"))
    assert people.resolve(bare, "bob") == bob


def test_an_unset_user_name_names_no_one(crowd):
    with pytest.raises(PersonError):
        people.resolve(crowd, "XXXX")
    assert people.resolve(crowd, "Me").slug == "me"


def test_a_broken_profile_first_hides_no_one_after_it(bare):
    broken(bare, "aaa")
    bob = add(bare, "Bob")
    me = add(bare, "Me", "self")
    assert people.matching(people.list_people(bare), "BOB") == [bob]
    assert people.matching(people.list_people(bare), "Me") == [me]
    assert people.self_people(bare) == [me]


def test_a_summary_without_a_memory_file_counts_no_tokens(bare):
    p = add(bare, "Bob")
    p.memory_path.unlink()
    p.events_path.unlink()
    s = people.summarize(p)
    assert (s.memory_tokens, s.events, s.error) == (0, 0, None)


def test_a_name_with_an_unassigned_character_is_not_a_chinese_name():
    from heartcompass.store.name_match import _cjk, _first_names

    assert not _cjk("王\u0378") and _first_names("王\u0378") == set()


def test_who_names_someone_is_kept_with_their_facts_whole(bare, settled_now, monkeypatch):
    from heartcompass.store import people_index

    add(bare, "Bob")
    add(bare, "Alice", mbti="INTJ", aliases=["Ali"], related=[{"person": "bob", "as": "sister"}])
    found = people_index.incoming(bare, "bob")
    assert found[0][2].mbti == "INTJ" and found[0][2].aliases == ("Ali",)
    monkeypatch.setattr(people_index.PeopleIndex, "incoming", lambda *a: pytest.fail("worked out again"))
    assert people_index.incoming(Workspace(bare.root), "bob") == found


def test_who_names_someone_is_kept_again_after_the_state_folder_went(bare, settled_now):
    import shutil

    from heartcompass.store import people_index

    add(bare, "Bob")
    add(bare, "Alice", related=[{"person": "bob"}])
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]
    shutil.rmtree(bare.root / ".heartcompass")  # the index in memory is not dirty: nothing saves the folder
    assert [o for o, _, _ in people_index.incoming(bare, "bob")] == ["alice"]
    assert (bare.root / ".heartcompass" / "links" / "bob.json").is_file()


def test_who_names_someone_among_the_people_given(bare):
    from heartcompass.store.people_index import PeopleIndex

    bob = add(bare, "Bob")
    carol = add(bare, "Carol", related=[{"person": "bob"}])
    assert PeopleIndex(bare).incoming("bob", [bob]) == []
    assert [o for o, _, _ in PeopleIndex(bare).incoming("bob", [bob, carol])] == ["carol"]
