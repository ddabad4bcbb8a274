"""The prompt is chosen for the conversation at hand: what the user names
comes back, however faint or old; without a message the choice is by
weight and recency, as always."""

from __future__ import annotations

import datetime as dt
import json

from conftest import Runner, tree_snapshot
from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.memory import relevance

TODAY = dt.date.today()
RAINBOW = "Walked the rainbow sidewalk in the Castro after the parade"
TANGHULU = "在后海一起吃糖葫芦，她说小时候最爱吃"


def _events(ws, slug, events):
    path = ws.people_dir / slug / "EVENTS.md"
    ef = events_fmt.load(path)
    ef.events = [events_fmt.Event(d, t, w, "told") for d, t, w in events]
    path.write_text(events_fmt.render(ef), encoding="utf-8")


def _crowded(cli: Runner) -> None:
    """Alice with 80 heavy recent events, two faint ones from years ago, and
    a budget that holds only some of them."""
    recent = [(TODAY - dt.timedelta(days=1 + i % 50), f"Coffee catch-up number {i} about her new job", 0.9)
              for i in range(80)]
    _events(cli.ws, "alice", recent + [(dt.date(2019, 5, 1), RAINBOW, 0.1), (dt.date(2018, 2, 10), TANGHULU, 0.1)])
    cli("config", "set", "memory.context_budget_tokens", "1500")


def _prompt(cli: Runner, *args: str) -> dict:
    return json.loads(cli("context", "alice", "--json", *args).output)


def test_a_faint_old_event_comes_back_when_the_message_names_it(example_cli: Runner):
    _crowded(example_cli)
    plain = _prompt(example_cli)
    assert plain["left_out"]["events"] and RAINBOW not in plain["messages"][0]["content"]  # too faint by weight
    named = _prompt(example_cli, "--for", "remember the rainbow sidewalk?")
    system = named["messages"][0]["content"]
    assert RAINBOW in system and TANGHULU not in system
    assert named["tokens"] <= named["budget"] and named["chosen_for_it"] >= 1
    assert named["left_out"]["events"]  # heavier recent ones made room for it
    assert named["messages"][-1] == {"role": "user", "content": "remember the rainbow sidewalk?"}


def test_the_same_in_chinese(example_cli: Runner):
    _crowded(example_cli)
    assert TANGHULU not in _prompt(example_cli)["messages"][0]["content"]
    system = _prompt(example_cli, "--for", "你还记得糖葫芦吗？")["messages"][0]["content"]
    assert TANGHULU in system and RAINBOW not in system


def test_context_without_a_message_is_what_it_was(example_cli: Runner):
    """No message: chosen by weight and recency alone; a message that names
    nothing in the files changes nothing either."""
    _crowded(example_cli)
    plain = _prompt(example_cli)
    assert plain["chosen_for"] == [] and plain["chosen_for_it"] == 0
    system = plain["messages"][0]["content"]
    shown = [line for line in system.splitlines() if line.startswith("- 20") and " · w" in line]
    assert shown and all("Coffee catch-up" in line for line in shown)  # the heavy recent ones
    unrelated = _prompt(example_cli, "--for", "ok")
    assert unrelated["messages"][0]["content"] == system


def test_chat_chooses_for_what_the_user_just_said(example_cli: Runner, fake_llm):
    _crowded(example_cli)
    fake_llm.enqueue("hey!", "haha yes", "糖葫芦！")
    example_cli("chat", "alice", "-m", "how are you")
    example_cli("chat", "alice", "-m", "remember the rainbow sidewalk?")
    example_cli("chat", "alice", "-m", "还有那次的糖葫芦")
    first, second, third = [r.system for r in fake_llm.requests("chat")]
    assert RAINBOW not in first and TANGHULU not in first
    assert RAINBOW in second and TANGHULU not in second
    assert TANGHULU in third and RAINBOW in third  # the conversation so far: the sidewalk is still in it


def test_facts_are_chosen_for_the_message_too(example_cli: Runner):
    path = example_cli.ws.people_dir / "alice" / "MEMORY.md"
    mem = memory_fmt.load(path)
    mem.sections[memory_fmt.FACTS] += [f"- Likes plain fact number {i} (told)" for i in range(300)]
    mem.sections[memory_fmt.FACTS].append("- Her grandmother taught her to fold origami cranes (told)")
    path.write_text(memory_fmt.render(mem), encoding="utf-8")
    plain = _prompt(example_cli)
    assert "origami" not in plain["messages"][0]["content"]  # the file holds more than a prompt
    assert plain["warnings"] == []  # and that is no problem any more
    named = _prompt(example_cli, "--for", "want to fold Origami together?")
    assert "origami cranes" in named["messages"][0]["content"]


def test_a_big_memory_leaves_room_for_events(example_cli: Runner):
    path = example_cli.ws.people_dir / "alice" / "MEMORY.md"
    mem = memory_fmt.load(path)
    mem.sections[memory_fmt.FACTS] += [f"- Likes plain fact number {i} (told)" for i in range(300)]
    path.write_text(memory_fmt.render(mem), encoding="utf-8")
    data = _prompt(example_cli)
    events = {s["key"]: s for s in data["sections"]}["events"]
    assert events["included"] == 5 and events["left_out"] == 0  # all of Alice's events, facts or not
    sections = {s["key"]: s for s in data["sections"]}
    assert sections["facts"]["left_out"] and sections["threads"]["included"] == 1  # the few open threads stay
    assert data["tokens"] <= data["budget"]
    assert data["budget"] - sum(s["tokens"] for s in data["sections"]) < 20  # facts take what events leave


def test_a_common_word_does_not_crowd_out_the_rest(example_cli: Runner):
    _events(example_cli.ws, "alice", [(TODAY - dt.timedelta(days=i + 1), f"Dinner together, round {i}", 0.3)
                                      for i in range(400)])
    data = _prompt(example_cli, "--for", "dinner tonight?")
    sections = {s["key"]: s for s in data["sections"]}
    assert sections["facts"]["included"] == 3 and sections["threads"]["included"] == 1
    assert 0 < sections["events"]["tokens"] and data["tokens"] <= data["budget"]


def test_a_message_with_markup_and_escapes_is_shown_harmlessly(example_cli: Runner):
    before = tree_snapshot(example_cli.ws.root)
    result = example_cli("context", "alice", "--for", "[red]Takao[/red] \x1b[31mhike\x1b]0;x\x07")
    chosen = next(line for line in result.output.splitlines() if line.startswith("Chosen for:"))
    assert "[red]Takao[/red] hike" in chosen  # shown as typed, not as markup
    assert "\x1b" not in result.output and "Traceback" not in result.output
    assert tree_snapshot(example_cli.ws.root) == before  # nothing written


def test_an_empty_message_is_a_clear_error(example_cli: Runner):
    before = tree_snapshot(example_cli.ws.root)
    result = example_cli("context", "alice", "--for", "  ", ok=False)
    assert result.exit_code == 1 and "--for needs the message" in result.output
    assert "Traceback" not in result.output and tree_snapshot(example_cli.ws.root) == before


def test_terms_are_words_and_cjk_bigrams():
    assert relevance.terms("Remember the Rainbow sidewalks? We hiked!") == ["rainbow", "sidewalk", "hik"]
    assert relevance.terms("hiking") == relevance.terms("hike") == relevance.terms("hikes")
    assert relevance.terms("吃糖葫芦") == ["吃糖", "糖葫", "葫芦"]
    assert relevance.terms("还记得") == []  # "remember" says nothing about what


def test_rare_terms_outweigh_common_ones_and_single_characters_count():
    docs = ["dinner with mom"] * 10 + ["a walk in the park"] * 20 + [
        "dinner on the rainbow sidewalk", "a cat named Mochi", "她的猫很可爱"]
    scores = relevance.scores(relevance.query(["dinner by the rainbow?"]), docs)
    assert max(scores, key=scores.get) == 30 and scores[30] > 2 * scores[0] > 0
    assert 31 not in scores and 10 not in scores
    cat = relevance.scores(relevance.query(["猫呢"]), docs)  # no line holds 猫呢: the character counts
    assert list(cat) == [32]
    # a word in most lines tells none apart: not counted at all
    assert relevance.scores(relevance.query(["a walk?"]), docs) == {}


def test_a_term_in_a_third_of_the_lines_lifts_them_only_about_half_as_much_as_a_rare_one():
    """The floor under the best score: a query whose only term is in a third
    of the lines ("dinner") lifts those lines about half way, not to the top
    a line naming a rare term reaches; else it would outrank what matters."""
    docs = ["dinner with friends at home" if i % 3 == 0 else "walked the dog in the park" for i in range(30)]
    docs[1] = "saw the rainbow sidewalk downtown"
    common = relevance.scores(relevance.query(["dinner"]), docs)
    rare = relevance.scores(relevance.query(["rainbow"]), docs)
    assert sorted(common) == list(range(0, 30, 3)) and list(rare) == [1]  # both found their lines
    assert rare[1] > 0.85
    assert all(0.4 < score < 0.65 for score in common.values()), common


def test_words_match_whole_words_only():
    docs = ["her birthday party", "a long day at work", "Day trip to Nara", "parties every day"]
    day = relevance.scores(relevance.query(["what a day"]), docs)
    assert set(day) == {1, 2, 3}  # not inside "birthday"
    assert set(relevance.scores(relevance.query(["the party"]), docs)) == {0, 3}  # parties, party
    assert set(relevance.scores(relevance.query(["糖葫芦"]), ["吃糖葫芦", "糖果", "葫芦娃"])) == {0, 2}


def test_a_word_that_only_starts_like_a_term_does_not_count_for_it():
    """'part' starts like 'party' (whose key is 'part') but is another word:
    a line saying 'part' three times is no more about the party than a line
    of the same length naming it once."""
    docs = ["party part part part", "party game at noon.", "a walk"]
    scores = relevance.scores(relevance.query(["the party"]), docs)
    assert set(scores) == {0, 1}
    assert abs(scores[0] - scores[1]) < 0.02, scores


def test_newer_messages_weigh_more():
    weights = relevance.query(["rainbow", "sidewalk", "mochi", "castro"])  # newest first
    assert weights["rainbow"] > weights["sidewalk"] > weights["mochi"] >= weights["castro"] > 0


def test_the_coach_chooses_for_their_message(example_cli: Runner, fake_llm):
    from test_coach_graph import ADVICE

    _crowded(example_cli)
    fake_llm.enqueue(ADVICE, ADVICE)
    example_cli("coach", "alice", "haha ok")
    example_cli("coach", "alice", "好想再去后海吃一次糖葫芦")
    plain, named = [r.system for r in fake_llm.requests("coach")]
    assert TANGHULU not in plain and TANGHULU in named


def test_chat_on_a_terminal_chooses_for_what_was_typed(example_cli: Runner):
    """The real chat on a pseudo-terminal, against the stub server: the
    request after naming the sidewalk holds it, /context says what it was
    chosen for, and nothing is left broken on the screen."""
    from stub_server import start
    from terminal import ENTER, assert_clean_end, finish, screen_text, spawn

    _crowded(example_cli)
    server, state = start()
    try:
        example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
        example_cli("config", "set", "llm.model", "stub")
        child = spawn(example_cli.ws.root, "chat", "alice", "--no-delay")
        child.expect("you ›")
        child.send("how are you" + ENTER)
        child.expect("you ›")
        child.send("remember the [bold]rainbow[/bold] sidewalk?" + ENTER)
        child.expect("you ›")
        child.send("/context" + ENTER)
        child.expect("Chosen for")
        child.expect("you ›")
        child.send("/exit" + ENTER)
        code, raw = finish(child)
    finally:
        server.shutdown()
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    chosen = next(line for line in screen_text(raw).splitlines() if "Chosen for:" in line)
    assert "[bold]rainbow[/bold] sidewalk?" in chosen  # shown as typed, not as markup
    systems = [r["messages"][0]["content"] for r in state.requests]
    assert len(systems) == 2 and RAINBOW not in systems[0] and RAINBOW in systems[1]


def test_context_for_a_message_on_a_terminal(example_cli: Runner):
    from terminal import assert_clean_end, finish, screen_text, spawn

    _crowded(example_cli)
    code, raw = finish(spawn(example_cli.ws.root, "context", "alice", "--for", "还记得糖葫芦吗？\x1b[2J"))
    assert code == 0 and TANGHULU in screen_text(raw) and "Chosen for: 还记得糖葫芦吗？" in screen_text(raw)
    assert "\x1b[2J" not in raw
    assert_clean_end(raw)


def test_a_pasted_page_is_cut_to_its_first_terms(example_cli: Runner):
    page = " ".join(f"word{i}" for i in range(5000)) + " " + "汉字" * 2000
    terms = relevance.query(["rainbow sidewalk", page])  # newest first
    assert len(terms) == relevance.MAX_TERMS and list(terms)[:3] == ["rainbow", "sidewalk", "word0"]
    _crowded(example_cli)
    data = _prompt(example_cli, "--for", "remember the rainbow sidewalk? " + page)
    assert RAINBOW in data["messages"][0]["content"]
