from __future__ import annotations

import datetime as dt
import json

from conftest import Runner
from heartcompass.memory import context as context_mod
from heartcompass.formats import events as events_fmt
from heartcompass.store.people import resolve
from heartcompass.tokens import estimate_tokens

NOW = dt.datetime(2026, 12, 2, 20, 15, tzinfo=dt.timezone.utc)


def _context(ws, name="alice", **kw):
    return context_mod.build(ws, resolve(ws, name), NOW, **kw)


def _add_events(ws, slug, events):
    path = ws.people_dir / slug / "EVENTS.md"
    ef = events_fmt.load(path)
    ef.events = [events_fmt.Event(d, t, w, "told") for d, t, w in events]
    path.write_text(events_fmt.render(ef))


def test_context_json_reports_sections_and_stays_in_budget(example_cli: Runner):
    data = json.loads(example_cli("context", "alice", "--json").output)
    assert data["tokens"] <= data["budget"] == 3000
    assert data["messages"][0]["role"] == "system"
    system = data["messages"][0]["content"]
    assert estimate_tokens(system) == data["tokens"]
    keys = {s["key"]: s for s in data["sections"]}
    assert keys["events"]["included"] == 5 and keys["facts"]["included"] == 3
    assert data["left_out"] == {} and data["warnings"] == []


def test_context_text_shows_prompt_and_token_table(example_cli: Runner):
    out = example_cli("context", "alice").output
    assert "You are Alice Chen" in out and "Tokens (estimated)" in out and "system prompt" in out


def test_events_are_ranked_by_weight_and_recency_and_never_cut(example_ws):
    ws = example_ws
    _add_events(ws, "alice", [
        (dt.date(2026, 12, 1), "yesterday, small", 0.2),
        (dt.date(2026, 11, 30), "recent and big", 0.9),
        (dt.date(2016, 1, 1), "ten years ago, big", 1.0),
    ] + [(dt.date(2020, 1, 1) + dt.timedelta(days=i), f"filler event number {i}", 0.1) for i in range(400)])
    half_life = 90
    ranked = sorted(events_fmt.load(ws.people_dir / "alice" / "EVENTS.md").events,
                    key=lambda e: events_fmt.score(e, NOW.date(), half_life), reverse=True)
    assert ranked[0].text == "recent and big" and ranked[1].text == "yesterday, small"
    c = _context(ws)
    assert c.tokens <= c.budget
    assert "recent and big" in c.system and "yesterday, small" in c.system
    assert c.left_out["events"]  # 400 fillers do not fit in 3000 tokens
    included = [line for line in c.system.splitlines() if line.startswith("- 20") and "·" in line]
    for line in included:  # whole entries only
        assert line.endswith("(told)")
    # what was left out scores no higher than what was kept
    kept_min = min(events_fmt.score(events_fmt.parse_line(line, "x", 1), NOW.date(), half_life)
                   for line in included)
    left_max = max(events_fmt.score(events_fmt.parse_line(line, "x", 1), NOW.date(), half_life)
                   for line in c.left_out["events"])
    assert left_max <= kept_min + 1e-9


def test_a_tiny_budget_keeps_rules_and_warns_about_big_files(example_cli: Runner):
    example_cli("config", "set", "memory.context_budget_tokens", "400")
    data = json.loads(example_cli("context", "alice", "--json").output)
    assert data["tokens"] <= 400
    assert "You are Alice Chen" in data["messages"][0]["content"]
    assert data["left_out"]
    example_cli("config", "set", "memory.context_budget_tokens", "100")
    result = example_cli("context", "alice")
    assert "PROFILE.md is about" in result.output and "memory.context_budget_tokens" in result.output


def test_a_chat_never_reads_another_persons_memory(example_cli: Runner):
    ws = example_cli.ws
    example_cli("person", "add", "Bob", "--yes")
    mem = ws.people_dir / "bob" / "MEMORY.md"
    mem.write_text(mem.read_text().replace("## Facts\n", "## Facts\n\n- Bob's secret diagnosis (told)\n"))
    prof = ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text().replace("related:\n", "related:\n- person: bob\n  as: her brother\n"))
    system = _context(ws).system
    assert "- Bob: her brother" in system
    assert "secret diagnosis" not in system


def test_workspace_prompt_files_override_shipped_ones(example_ws):
    ws = example_ws
    (ws.prompts_dir / "relation").mkdir(parents=True, exist_ok=True)
    (ws.prompts_dir / "persona.md").write_text("Be $name, always in rhyme. Today is $weekday.")
    (ws.prompts_dir / "relation" / "friend.md").write_text("$name and you go way back.")
    system = _context(ws).system
    assert system.startswith("Be Alice Chen, always in rhyme. Today is Wednesday.")
    assert "Alice Chen and you go way back." in system


def test_relation_stage_and_self_choose_their_prompt(example_cli: Runner):
    ws = example_cli.ws
    me = _context(ws, "me").system
    assert "reflection partner" in me
    prof = ws.people_dir / "alice" / "PROFILE.md"
    prof.write_text(prof.read_text().replace("relation: friend", "relation: broken_up"))
    assert "broken up" in _context(ws).system


def test_memory_labels_facts_apart_from_chat_impressions(example_ws):
    system = _context(example_ws).system
    facts = system.index("## Known facts (true)")
    chats = system.index("## Said in earlier simulated chats")
    assert system.index("Moves to Kyoto") > facts and system.index("Moves to Kyoto") < chats
    assert system.index("pour-over coffee") > chats


def test_history_takes_today_and_the_last_chat_day_when_today_is_short(example_ws):
    from heartcompass.formats import dailylog

    person = resolve(example_ws, "alice")
    old = dt.date(2026, 11, 28)
    dailylog.append(dailylog.log_path(person.dir, old), dailylog.Entry("10:00:00", "me", "hike tomorrow?"), old)
    dailylog.append(dailylog.log_path(person.dir, old), dailylog.Entry("10:00:05", "persona", "yes!!"), old)
    today = NOW.date()
    dailylog.append(dailylog.log_path(person.dir, today), dailylog.Entry("09:00:00", "me", "morning"), today)
    dailylog.append(dailylog.log_path(person.dir, today), dailylog.Entry("09:00:01", "note", "a fact"), today)
    hist = _context(example_ws).history
    # turns of earlier sittings carry their time (now is 20:15: the morning was one too)
    assert hist == [("user", "[Sat 2026-11-28 10:00] hike tomorrow?"), ("assistant", "yes!!"),
                    ("user", "[Wed 2026-12-02 09:00] morning")]
    assert _context(example_ws, fresh_after=1).history == []
    assert _context(example_ws, fresh_after=0).history == [("user", "[Wed 2026-12-02 09:00] morning")]


def test_history_respects_its_budget_but_keeps_the_newest_turn(example_ws):
    from heartcompass.formats import dailylog

    person = resolve(example_ws, "alice")
    today = NOW.date()
    for i in range(60):
        speaker = "me" if i % 2 == 0 else "persona"
        dailylog.append(dailylog.log_path(person.dir, today),
                        dailylog.Entry(f"10:{i:02d}:00", speaker, f"message {i} " + "blah " * 40), today)
    c = _context(example_ws)
    assert c.history_tokens <= c.history_budget
    assert c.history[-1][1].startswith("message 59") and len(c.history) < 60


def test_the_self_person_gets_one_coherent_reflection_prompt(example_cli: Runner):
    system = _context(example_cli.ws, "me").system
    assert "reflection partner" in system
    for contradiction in ("you are a simulated", "not a simulated other person", "You are Me", "Who you are"):
        assert contradiction not in system, contradiction
    assert "## Who the user is (from their own PROFILE.md)" in system


def test_user_name_names_the_default_self_person(example_cli: Runner):
    from heartcompass.store.workspace import Workspace

    example_cli("config", "set", "user.name", "王磊")
    system = _context(Workspace(example_cli.ws.root), "me").system
    assert system.startswith("You are 王磊's reflection partner") and "Name: 王磊" in system
    assert "Me" not in system.split("\n")[0]
    listed = example_cli("person", "list").output
    assert "王磊" in listed and "\nMe " not in listed
    assert "王磊" in example_cli("person", "show", "王磊").output
    # a self person renamed by hand keeps that name, and others call the user by it
    example_cli("config", "set", "user.name", "")
    example_cli("person", "rename", "me", "Lei Wang", "--force")  # the self person: only on purpose
    assert "chatting by text message with Lei Wang" in _context(Workspace(example_cli.ws.root), "alice").system


def test_recent_turns_never_exceed_their_budget_whatever_one_message_holds(example_cli: Runner, fake_llm):
    """One pasted 2 MB message, and a day of 5,000 messages in a row: the
    history keeps the newest part within chat.history_budget_tokens."""
    import datetime as dt

    from heartcompass.formats import dailylog

    day = dt.date.today()
    path = dailylog.log_path(example_cli.ws.people_dir / "alice", day)
    dailylog.append_many(path, [dailylog.Entry(f"09:{i // 60 % 60:02d}:{i % 60:02d}", "me", f"在吗 message {i}", [])
                                for i in range(5000)], day)
    dailylog.append(path, dailylog.Entry("10:00:00", "me", "x" * 2_000_000 + " the very end", []), day)
    budget = int(example_cli.ws.config.get("chat.history_budget_tokens"))
    data = json.loads(example_cli("context", "alice", "--json").output)
    assert data["history_tokens"] <= budget
    assert data["messages"][-1]["content"].endswith("the very end")
    fake_llm.enqueue("ok!")
    example_cli("chat", "alice", "-m", "hello?")
    sent = len(fake_llm.request("chat").text)
    assert "hello?" in fake_llm.request("chat").prompt  # the request was made, with the message
    assert sent < 40_000  # the prompt and its turns, not two megabytes
