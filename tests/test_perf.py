"""The speed-ups keep the behaviour: the people index never serves a stale
fact, the map is the same map (and survives long chains), the prompt is
built once per turn and still sees hand edits, read-only event parsing
cannot write. Timings live in benchmarks/, not here."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import time
from pathlib import Path

import pytest

from conftest import Runner
from heartcompass.memory import context as context_mod, graph as graph_mod
from heartcompass.formats import events as events_fmt
from heartcompass.store.people import create, list_people
from heartcompass.store.people_index import FILENAME, LINKS_DIR, PeopleIndex, for_workspace

NOW = dt.datetime(2026, 12, 2, 20, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def settled(monkeypatch):
    """Trust files at once: outside tests only a file unchanged for two
    seconds is cached (one written this instant could change again within
    the same timestamp)."""
    from heartcompass import stat_cache

    monkeypatch.setattr(stat_cache, "RACY_NS", 0)


def index_file(ws) -> Path:
    return ws.root / ".heartcompass" / FILENAME


def cached_names(ws) -> dict[str, str]:
    data = json.loads(index_file(ws).read_text(encoding="utf-8"))
    return {slug: e["summary"]["value"]["name"] for slug, e in data["people"].items() if "summary" in e}


# -- the people index -----------------------------------------------------------

def test_person_list_is_served_from_the_index_until_a_file_changes(cli: Runner, settled):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "小明", "--yes")
    first = cli("person", "list").output
    assert "Alice" in first and "小明" in first
    assert cached_names(cli.ws)["alice"] == "Alice"
    # Proof that the list comes from the index: doctor the cached name, touch no file.
    data = json.loads(index_file(cli.ws).read_text(encoding="utf-8"))
    data["people"]["alice"]["summary"]["value"]["name"] = "Served From Cache"
    index_file(cli.ws).write_text(json.dumps(data), encoding="utf-8")
    assert "Served From Cache" in cli("person", "list").output
    # A hand edit of the same size, dated back to the same second, is still seen (inode / ctime).
    profile = cli.ws.people_dir / "alice" / "PROFILE.md"
    stamp = profile.stat().st_mtime_ns
    profile.write_text(profile.read_text(encoding="utf-8").replace("name: Alice", "name: Alina"), encoding="utf-8")
    os.utime(profile, ns=(stamp, stamp))
    shown = cli("person", "list").output
    assert "Alina" in shown and "Served From Cache" not in shown


def test_a_file_written_this_instant_is_not_cached(cli: Runner, monkeypatch):
    from heartcompass import stat_cache

    cli("person", "add", "Alice", "--yes")
    events = cli.ws.people_dir / "alice" / "EVENTS.md"
    # "This instant" is the moment the files were written, however long the commands take on a busy machine.
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: events.stat().st_mtime_ns)
    cli("person", "list")
    assert not index_file(cli.ws).exists()  # everything is that fresh
    real = time.time_ns
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: real() + 3_000_000_000)  # three seconds later
    cli("person", "list")
    assert "alice" in cached_names(cli.ws)
    events.write_text(events.read_text(encoding="utf-8") + "- 2026-11-28 · w0.8 · Hiked Mount Takao\n",
                      encoding="utf-8")
    monkeypatch.setattr(stat_cache, "_now_ns", lambda: events.stat().st_mtime_ns)
    row = next(line for line in cli("person", "list").output.splitlines() if line.startswith("Alice"))
    assert row.split()[-3] == "1"  # the new event is counted: the stale entry is not served
    stale = json.loads(index_file(cli.ws).read_text(encoding="utf-8"))["people"]["alice"]["summary"]["value"]
    assert stale["events"] == 0  # nor replaced by one for a file this fresh


def test_a_broken_index_is_rebuilt_and_people_who_left_are_forgotten(cli: Runner, settled):
    cli("person", "add", "Alice", "--yes")
    cli("person", "add", "Bob", "--yes")
    index_file(cli.ws).parent.mkdir(exist_ok=True)
    index_file(cli.ws).write_text("{not json", encoding="utf-8")
    assert "Bob" in cli("person", "list").output
    assert set(cached_names(cli.ws)) == {"alice", "bob", "me"}
    cli("person", "archive", "bob")
    assert "Bob" not in cli("person", "list").output
    assert set(cached_names(cli.ws)) == {"alice", "me"}


def test_a_broken_profile_is_listed_with_its_problem_from_the_index_too(cli: Runner, settled):
    cli("person", "add", "Alice", "--yes")
    profile = cli.ws.people_dir / "alice" / "PROFILE.md"
    profile.write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    for _ in range(2):  # the second time from the index
        result = cli("person", "list", ok=False)
        assert result.exit_code == 1 and "a file is invalid" in result.output and "PROFILE.md" in result.output


def test_incoming_links_follow_hand_edits_between_turns(ws, settled):
    create(ws, "Alice", "friend")
    create(ws, "Bob", "friend", related=[{"person": "alice", "as": "her brother"}])
    alice = next(p for p in list_people(ws) if p.slug == "alice")
    first = context_mod.build(ws, alice, NOW)
    assert "Bob (to them, you are: her brother)" in first.system
    # Mid-chat the user edits Bob's profile by hand; the next turn (same process, same index) sees it.
    bob_profile = ws.people_dir / "bob" / "PROFILE.md"
    bob_profile.write_text(bob_profile.read_text(encoding="utf-8").replace("her brother", "her cousin"),
                           encoding="utf-8")
    second = context_mod.build(ws, alice, NOW)
    assert "her cousin" in second.system and "her brother" not in second.system
    assert for_workspace(ws) is for_workspace(ws)  # built once per process, reused across turns


def system_prompt(cli: Runner, slug: str) -> str:
    """The prompt `chat` would send now, from a fresh start (a command of its own)."""
    return json.loads(cli("context", slug, "--json").output)["messages"][0]["content"]


def test_a_relation_added_by_hand_in_place_shows_at_the_next_chat_start(cli: Runner, settled):
    """Chat's start reads nobody else's profile while none changed (one digest
    of their stats), yet a link written by hand into Bob's PROFILE.md, in
    place, is in Alice's very next prompt: no folder's stat changes for it."""
    create(cli.ws, "Alice", "friend")
    create(cli.ws, "Bob", "friend")
    before = system_prompt(cli, "alice")
    assert "You are Alice" in before and "Bob" not in before
    assert (cli.ws.root / ".heartcompass" / LINKS_DIR / "alice.json").exists()  # the next start uses it
    folders = [os.stat(p).st_mtime_ns for p in (cli.ws.people_dir, cli.ws.people_dir / "bob")]
    profile = cli.ws.people_dir / "bob" / "PROFILE.md"
    with profile.open("r+", encoding="utf-8") as f:  # as an editor saving in place does
        text = f.read().replace("related: []\n", "related:\n- person: alice\n  as: 表哥\n")
        f.seek(0)
        f.write(text)
    assert [os.stat(p).st_mtime_ns for p in (cli.ws.people_dir, cli.ws.people_dir / "bob")] == folders
    after = system_prompt(cli, "alice")
    assert "Bob (to them, you are: 表哥)" in after


def test_incoming_links_come_from_their_cache_until_any_profile_changes(cli: Runner, settled):
    create(cli.ws, "Alice", "friend")
    create(cli.ws, "Bob", "friend", related=[{"person": "alice", "as": "her brother"}])
    create(cli.ws, "Carol", "friend")
    assert "Bob (to them, you are: her brother)" in system_prompt(cli, "alice")
    cached = cli.ws.root / ".heartcompass" / LINKS_DIR / "alice.json"
    data = json.loads(cached.read_text(encoding="utf-8"))
    data["incoming"][0][1] = "served from the cache"  # proof of where the next start reads it
    cached.write_text(json.dumps(data), encoding="utf-8")
    assert "Bob (to them, you are: served from the cache)" in system_prompt(cli, "alice")
    carol = cli.ws.people_dir / "carol" / "PROFILE.md"  # a change to anyone's profile, even one naming nobody
    carol.write_text(carol.read_text(encoding="utf-8") + "\nLikes tea.\n", encoding="utf-8")
    again = system_prompt(cli, "alice")
    assert "Bob (to them, you are: her brother)" in again and "served from the cache" not in again
    (cli.ws.people_dir / "dan").mkdir()  # and a new person linking to her
    (cli.ws.people_dir / "dan" / "PROFILE.md").write_text(
        "---\nname: Dan\nrelation: friend\nrelated:\n- person: alice\n  as: 同事\n---\n", encoding="utf-8")
    assert "Dan (to them, you are: 同事)" in system_prompt(cli, "alice")


def test_the_index_answers_like_the_files(ws, settled):
    rnd = random.Random(3)
    slugs = []
    for i in range(30):
        links = [{"person": s, "as": f"friend {i}"} for s in rnd.sample(slugs, min(len(slugs), 2))]
        slugs.append(create(ws, f"Person {i}", "friend", aliases=[f"p{i}"], related=links).slug)
    for index in (PeopleIndex.load(ws), PeopleIndex.load(ws)):  # cold, then from the file it wrote
        facts = index.profiles(list_people(ws))
        for person in list_people(ws):
            prof = person.load_profile()
            assert facts[person.slug].names() == prof.names()
            assert list(facts[person.slug].related) == [(r["person"], r["as"]) for r in prof.related]
        index.save()
    assert index_file(ws).exists()


# -- graph ----------------------------------------------------------------------

def naive_walk(g: graph_mod.Graph, root: str, depth: int):
    """The map as it was drawn before edges were indexed (recursive, scanning every edge)."""
    seen = {root}

    def grow(slug, level):
        node = graph_mod.Node(slug, g.names.get(slug, slug))
        if level >= depth:
            return node
        near = {}
        for other, words, direction in ([(b, w, "out") for a, b, w in g.edges if a == slug] +
                                        [(a, w, "in") for a, b, w in g.edges if b == slug]):
            if other in seen:
                continue
            if other in near:
                words = " / ".join(w for w in (near[other][0], words) if w)
                direction = "both"
            near[other] = (words, direction)
        seen.update(near)
        for other, (words, direction) in near.items():
            child = grow(other, level + 1)
            child.words, child.direction = words, direction
            node.children.append(child)
        return node

    return grow(root, 0)


def test_the_indexed_walk_draws_the_same_map():
    rnd = random.Random(11)
    g = graph_mod.Graph()
    slugs = [f"p{i}" for i in range(120)]
    for s in slugs:
        g.names[s] = s.upper()
    for _ in range(300):
        g.edges.append((rnd.choice(slugs), rnd.choice(slugs + ["ghost"]), rnd.choice(["", "friend", "朋友"])))
    for root in slugs[:20]:
        for depth in (1, 2, 5, 1000):
            assert g.walk(root, depth) == naive_walk(g, root, depth)
    g.edges.append(("p0", "p119", "added later"))  # the index follows new edges
    assert ("p119", "added later") in g.out_of("p0")


def write_chain(ws, n: int) -> None:
    for i in range(n):
        folder = ws.people_dir / f"c{i:04d}"
        folder.mkdir(parents=True)
        link = f"\n- person: c{i - 1:04d}\n  as: next" if i else " []"
        (folder / "PROFILE.md").write_text(f"---\nname: Chain {i}\nrelation: friend\nrelated:{link}\n---\n",
                                           encoding="utf-8")


def test_a_chain_longer_than_the_recursion_limit_is_drawn_whole(cli: Runner):
    write_chain(cli.ws, 1_500)
    tree = cli("graph").output
    assert all(f"Chain {i}" in tree for i in range(1_500))  # rich's Tree dropped lines past the width
    mermaid = cli("graph", "c0000", "--depth", "1400", "--format", "mermaid").output
    assert "Chain 1400" in mermaid and "Chain 1401" not in mermaid


# -- the prompt: once per turn, read-only events ---------------------------------------

def count_builds(monkeypatch) -> list[int]:
    calls = []
    real = context_mod.build
    monkeypatch.setattr(context_mod, "build", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_chat_and_coach_build_the_prompt_once_per_turn(example_cli: Runner, fake_llm, monkeypatch):
    from test_coach_graph import ADVICE

    calls = count_builds(monkeypatch)
    fake_llm.enqueue("hello", "one back", "two back")
    example_cli("chat", "alice", "-m", "hi", "--no-delay")
    assert len(calls) == 1
    calls.clear()
    example_cli("chat", "alice", "--no-delay", input="one\ntwo\n")
    assert len(calls) == 2  # one per message sent, so a hand edit between them is seen
    calls.clear()
    fake_llm.enqueue(ADVICE)
    assert "What Alice Chen probably means" in example_cli("coach", "alice", "Busy today").output
    assert len(calls) == 1


def test_chat_still_warns_at_open_when_a_file_is_over_the_budget(example_cli: Runner, fake_llm):
    fake_llm.enqueue("hello")
    example_cli("config", "set", "memory.context_budget_tokens", "60")
    out = example_cli("chat", "alice", "-m", "hi", "--no-delay").output
    assert out.count("PROFILE.md is about") == 1


def test_events_parsed_read_only_cannot_be_written(tmp_path):
    path = tmp_path / "EVENTS.md"
    path.write_text("- 2026-11-28 · w0.8 · Hiked (told)\n- 2026-11-01 · Moved\n", encoding="utf-8")
    readonly = events_fmt.parse(path.read_text(encoding="utf-8"), path, readonly=True)
    assert [e.text for e in readonly.events] == ["Hiked", "Moved"]
    with pytest.raises(ValueError):
        events_fmt.render(readonly)
    writable = events_fmt.load(path)
    assert events_fmt.render(writable) == path.read_text(encoding="utf-8")  # unchanged: the same bytes
    writable.events[1].weight = 0.9  # changed in place: still a change
    assert "w0.9" in events_fmt.render(writable)


# -- startup ----------------------------------------------------------------------

def test_cli_modules_keep_evaluated_annotations():
    """typer reads every command's annotations at each start; as strings
    (from __future__ import annotations) each is evaluated again: a tenth
    of --help's time."""
    from heartcompass.cli.app import COMMANDS

    cli_dir = Path(__file__).resolve().parents[1] / "heartcompass" / "cli"
    modules = [cli_dir / f"{name}.py" for name in {*COMMANDS.values(), "app"}]
    offenders = [p.name for p in modules if "from __future__ import annotations" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_a_run_loads_only_the_command_it_names():
    import subprocess
    import sys

    from typer.main import get_command

    from heartcompass.cli import app as app_mod

    whole = get_command(app_mod.app)
    assert set(whole.commands) == set(app_mod.COMMANDS)  # the table names every command, and only those
    for name in app_mod.COMMANDS:
        assert name in get_command(app_mod.build({name})).commands
    assert app_mod.wanted(["-w", "x", "person", "list"]) == {"person"}
    assert app_mod.wanted(["--workspace=x", "chat", "alice"]) == {"chat"}
    for args in (["--help"], [], ["persn", "list"], ["-w", "x"], ["--version"]):
        assert app_mod.wanted(args) is None  # the whole app answers
    probe = ("import sys; sys.argv = ['heartcompass', 'person', '--help']\n"
             "from heartcompass.cli.app import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.endswith('_cmd')), file=sys.stderr)")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stderr.splitlines()[-1]
    assert loaded == "['heartcompass.cli.person_cmd']"


def test_the_index_follows_user_name_for_your_own_person(cli: Runner, settled):
    assert "Me" in cli("person", "list").output  # cached with no user.name
    cli("config", "set", "user.name", "王磊")
    assert "王磊" in cli("person", "list").output
