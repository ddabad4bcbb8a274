"""The user's own side (issue 18 §1, §4, §5): what the user told a person
about their own life is gardened into that person's MEMORY.md (## About me)
from the user's own lines only and reaches the next prompt; the user's own
basics reach every persona; a note shows at once, marked as not yet
gardened; the persona knows when you last talked."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import Runner, log_entries
from garden_helpers import consolidated, memory, proposal, say
from heartcompass.formats import dailylog, memory as memory_fmt
from heartcompass.store import clock

SELF_PROFILE = """---
name: 王磊
aliases: [Lei]
relation: self
pronouns: he/him
tags: []
related: []
---

# 王磊

## Personality

Quiet, plans everything, runs to think.

## Background

A nurse in Osaka; two kids, Kenji (9) and Mei (6).
"""


def files(ws, slug="alice"):
    return {p.name: p.read_bytes() for p in (ws.people_dir / slug).glob("*.md")}


def system_of(fake_llm, purpose: str, nth: int | None = None) -> str:
    """The system prompt of the request made for this purpose (tests/purposes.py)."""
    return fake_llm.request(purpose, nth).system


def section(system: str, heading_start: str) -> str:
    """The body of the prompt section whose heading starts so ('' if none)."""
    for part in system.split("\n\n"):
        if part.startswith(f"## {heading_start}"):
            return part
    return ""


# -- the round trip: said in a chat, gardened, in the next prompt ----------------
def test_what_the_user_tells_a_person_about_their_life_is_kept_and_comes_back(alice: Runner, fake_llm):
    alice("config", "set", "user.name", "Lei")
    fake_llm.enqueue("oh no!! is your son ok?")
    alice("chat", "alice", "-m", "my son broke his arm at the race")
    day = clock.today(alice.ws).isoformat()
    assert [e.speaker for e in log_entries(alice.ws, "alice")] == ["me", "persona"]
    fake_llm.enqueue(proposal(new_about_user=[{"text": "Lei's son broke his arm at the race", "evidence": ["L1"]}],
                              new_chat_notes=[{"text": "Asked whether the son is ok", "evidence": ["L2"]}]))
    out = alice("garden").output
    assert "gardened" in out
    # the gardener was shown the user's side, with ids, and the user's lines as the user's
    garden_prompt = fake_llm.request("garden").prompt
    assert "### About me" in garden_prompt and "· me · trusted: the user]" in garden_prompt
    mem = memory(alice.ws)
    assert mem.items(memory_fmt.ABOUT_ME) == [f"- Lei's son broke his arm at the race (log {day})"]
    text = (alice.ws.people_dir / "alice" / "MEMORY.md").read_text()
    assert text.index("## Open threads") < text.index("## About me")  # where a reader looks for it
    assert memory_fmt.render(memory_fmt.parse(text, alice.ws.people_dir / "alice" / "MEMORY.md")) == text
    # the next prompt: what Lei told her, as such, with its source
    fake_llm.enqueue("how is his arm?")
    alice("chat", "alice", "-m", "hey")
    told = section(system_of(fake_llm, "chat", 1), "What Lei has told you about Lei's own life")
    assert f"- Lei's son broke his arm at the race (log {day})" in told
    # the coach knows it too
    from test_coach_graph import ADVICE

    fake_llm.enqueue(ADVICE)
    alice("coach", "alice", "how's the little one?")
    assert "Lei's son broke his arm at the race" in section(
        system_of(fake_llm, "coach"), "What Lei has told Alice Chen about Lei's own life")


def test_the_users_side_in_chinese_and_from_an_import(alice: Runner, fake_llm):
    say(alice.ws, "alice", "import:me", "我儿子在比赛中摔断了胳膊")
    say(alice.ws, "alice", "import:Alice", "天哪！他还好吗？", time="20:01:00")
    fake_llm.enqueue(proposal(new_about_user=[{"text": "用户的儿子在比赛中摔断了胳膊", "evidence": ["L1"]}]))
    alice("garden")
    assert "· import:me · trusted: the user]" in fake_llm.request("garden").prompt
    assert memory(alice.ws).items(memory_fmt.ABOUT_ME) == ["- 用户的儿子在比赛中摔断了胳膊 (log 2026-12-01)"]


def _rejected(alice: Runner, fake_llm, bad: dict) -> str:
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    assert result.exit_code == 1
    assert files(alice.ws) == before and consolidated(alice.ws) == {}
    return " ".join(result.output.split())


def test_a_personas_claim_about_the_user_is_never_stored_as_trusted(alice: Runner, fake_llm):
    say(alice.ws, "alice", "me", "how was your week?")
    say(alice.ws, "alice", "persona", "you told me your son won the race!", time="20:00:05")
    say(alice.ws, "alice", "import:Alice", "your son won the race, right?", time="20:00:09")
    claim = {"text": "The user's son won the race", "evidence": ["L2"]}
    out = _rejected(alice, fake_llm, proposal(new_about_user=[claim]))
    assert "rests only on the user's own entries" in out
    out = _rejected(alice, fake_llm, proposal(new_facts=[claim]))
    assert "rests on what the simulated persona said" in out
    # what someone else says about the user is not the user's own line either
    out = _rejected(alice, fake_llm, proposal(new_about_user=[{**claim, "evidence": ["L3"]}]))
    assert "rests only on the user's own entries" in out
    # a rewrite of the user's side is held to the same rule
    mem_path = alice.ws.people_dir / "alice" / "MEMORY.md"
    mem_path.write_text(mem_path.read_text() + "- The user's son runs the 5k (told)\n")
    from conftest import git

    git(alice.ws, "commit", "-qam", "about me line")
    out = _rejected(alice, fake_llm, proposal(rewritten_about_user=[{"id": "U1", **claim}]))
    assert "rests only on the user's own entries" in out
    # the schema offers only the user's own entries as evidence
    from heartcompass.memory.proposal.schema import proposal_schema
    from heartcompass.memory.proposal.workbench import LogItem, read_person, workbench
    from heartcompass.store.people import resolve

    person = resolve(alice.ws, "alice")
    _, prof, evs, mem = read_person(person)
    wb = workbench(alice.ws, person, prof, evs, mem, dt.date(2026, 12, 1))
    entries = dailylog.load(person.logs_dir / "2026-12-01.md")
    items = [LogItem(f"L{i + 1}", "2026-12-01", e, i) for i, e in enumerate(entries)]
    spec = proposal_schema(wb, items, [])
    evidence = spec["properties"]["new_about_user"]["items"]["properties"]["evidence"]["items"]["enum"]
    assert evidence == ["L1"]


def test_compression_keeps_the_users_side_when_the_model_leaves_it_out(alice: Runner, fake_llm):
    from heartcompass.formats.sources import without_source
    from heartcompass.memory.proposal.compression import apply_compression as checked
    from heartcompass.memory.proposal.model import Compressed
    from heartcompass.memory.proposal.workbench import read_person, workbench
    from heartcompass.store.people import resolve

    person = resolve(alice.ws, "alice")
    _, prof, evs, mem = read_person(person)
    memory_fmt.ensure_section(mem, memory_fmt.ABOUT_ME).append("- Lei's son broke his arm (log 2026-12-01)")
    wb = workbench(alice.ws, person, prof, evs, mem, dt.date(2026, 12, 1))
    # each line kept as it is, named by its id (the compressor's shape); the source comes from the line
    def as_kept():  # the ids of the memory as it is now (a compression puts the user's own lines first)
        return {t: [{"text": without_source(line[2:]), "lines": [f"{p}{i + 1}"]}
                    for i, line in enumerate(wb.memory.items(t))]
                for p, t in (("F", memory_fmt.FACTS), ("C", memory_fmt.CHATS), ("T", memory_fmt.THREADS))}

    def apply_compression(wb, result):
        return checked(wb, result, 50)

    kept = as_kept()
    assert apply_compression(wb, Compressed(facts=kept[memory_fmt.FACTS], chat_notes=kept[memory_fmt.CHATS],
                                            threads=kept[memory_fmt.THREADS])) == []
    assert wb.memory.items(memory_fmt.ABOUT_ME) == ["- Lei's son broke his arm (log 2026-12-01)"]
    kept = as_kept()
    assert apply_compression(wb, Compressed(facts=kept[memory_fmt.FACTS], chat_notes=kept[memory_fmt.CHATS],
                                            threads=kept[memory_fmt.THREADS],
                                            about_user=[{"text": "Lei's son hurt his arm", "lines": ["U1"]}])) == []
    assert wb.memory.items(memory_fmt.ABOUT_ME) == ["- Lei's son hurt his arm (log 2026-12-01)"]


# -- the file: optional, tolerant, byte-exact -------------------------------------
def test_about_me_is_optional_tolerant_and_round_trips(tmp_path):
    path = tmp_path / "MEMORY.md"
    old = ("---\nbudget_tokens: 1200\n---\n\n# Memory — Bob\n\n## Facts\n\n- Likes jazz (told)\n\n"
           "## From our chats\n\n## Open threads\n\n## My own notes\n\n- call him on Sundays\n")
    mem = memory_fmt.parse(old, path)
    assert memory_fmt.render(mem) == old and mem.items(memory_fmt.ABOUT_ME) == []
    memory_fmt.ensure_section(mem, memory_fmt.ABOUT_ME).append("- 我在学陶艺 (log 2026-12-01)")
    new = memory_fmt.render(mem)
    assert new.index("## Open threads") < new.index("## About me") < new.index("## My own notes")
    assert "- call him on Sundays" in new
    hand = new.replace("## About me\n\n", "## About me\n\n\n- I run on Sundays   \n")  # spacing by hand
    again = memory_fmt.parse(hand, path)
    assert memory_fmt.render(again) == hand
    assert again.items(memory_fmt.ABOUT_ME) == ["- I run on Sundays", "- 我在学陶艺 (log 2026-12-01)"]


# -- the user's basics, in every persona's prompt -----------------------------------
def test_the_users_own_basics_reach_every_persona_and_the_coach(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    (ws.people_dir / "me" / "PROFILE.md").write_text(SELF_PROFILE)
    example_cli("person", "add", "小明", "--relation", "family")
    for slug in ("alice", "小明"):
        system = " ".join(example_cli("context", slug).output.split())
        assert "## Who 王磊 is (from 王磊's own notes)" in system, slug
        assert "- Name: 王磊; Pronouns: he/him; Also called: Lei" in system
        assert "- Background: A nurse in Osaka; two kids, Kenji (9) and Mei (6)." in system
    from test_coach_graph import ADVICE

    fake_llm.enqueue(ADVICE)
    example_cli("coach", "alice", "hi")
    assert "Kenji (9)" in section(system_of(fake_llm, "coach"), "Who 王磊 is")
    # the user's own person is a reflection partner: it has it all already, once
    system = example_cli("context", "me").output
    assert "Who 王磊 is (from 王磊's own notes)" not in system


def test_the_basics_stay_short(example_cli: Runner):
    from heartcompass.memory import user_side
    from heartcompass.tokens import estimate_tokens

    long = SELF_PROFILE + "".join(f"\n- detail number {i} about my life and work\n" for i in range(200))
    (example_cli.ws.people_dir / "me" / "PROFILE.md").write_text(long)
    lines = user_side.self_basics(example_cli.ws, "Lei")
    assert lines[0].startswith("Name: 王磊") and "detail number 0" in " ".join(lines)
    assert sum(estimate_tokens(line) + 1 for line in lines) <= user_side.SELF_BASICS_TOKENS + 20
    assert "detail number 199" not in " ".join(lines)
    # an empty self profile adds nothing the prompt does not already say
    (example_cli.ws.people_dir / "me" / "PROFILE.md").write_text(
        "---\nname: Me\nrelation: self\n---\n\n# Me\n\n## Personality\n")
    assert user_side.self_basics(example_cli.ws, "Lei") == []


# -- a note shows at once ------------------------------------------------------------
@pytest.fixture
def view(example_ws, fake_llm):
    from heartcompass.cli.chat_cmd import ChatView
    from heartcompass.llm import providers as llm
    from heartcompass.store.people import resolve

    v = ChatView(example_ws, llm.settings(example_ws), fake_llm, None, delays=False, as_json=False)
    v.open(resolve(example_ws, "alice"))
    return v


def test_a_note_is_in_the_very_next_prompt_until_the_gardener_has_it(view, example_ws, fake_llm):
    view.command("/note 她下个月搬去柏林")
    fake_llm.enqueue("wait what")
    view.send("did you hear?")
    pending = section(system_of(fake_llm, "chat", 0), "Just noted by")
    assert "- 她下个月搬去柏林 (noted " in pending and "not yet gardened" in pending
    from conftest import Runner

    runner = Runner(example_ws)
    fake_llm.enqueue(proposal(new_facts=[{"text": "她下个月搬去柏林", "evidence": ["L1"]}]))
    assert "gardened" in runner("garden").output
    fake_llm.enqueue("so Berlin!")
    view.send("and now?")
    assert [e.text for e in log_entries(example_ws, "alice") if e.speaker == "persona"][-1] == "so Berlin!"
    assert fake_llm.purposes == ["chat", "garden", "chat"] and not fake_llm.script
    system = system_of(fake_llm, "chat", 1)
    assert section(system, "Just noted by") == ""  # gardened: a fact now, and only once
    assert system.count("她下个月搬去柏林") == 1 and "她下个月搬去柏林" in section(system, "Known facts")


def test_a_note_tell_applied_or_dropped_is_not_pending(example_ws):
    from heartcompass.memory import user_side
    from heartcompass.store.people import resolve

    person = resolve(example_ws, "alice")
    now = clock.now(example_ws)
    day = now.date()
    path = dailylog.log_path(person.dir, day)
    for text in ("applied by tell", "discarded", "kept for the gardener"):
        dailylog.append(path, dailylog.Entry("09:00:00", "note", text), day)
    dailylog.append(path, dailylog.Entry("09:00:01", "note", "a relayed message", ["coach"]), day)
    dailylog.append(path, dailylog.marker("09:00:02", "applied", [0], "tell applied it to the files"), day)
    dailylog.append(path, dailylog.marker("09:00:03", "discards", [1], "tell declined"), day)
    lines = user_side.pending_notes(example_ws, person, now)
    assert lines == [f"- kept for the gardener (noted {day} 09:00, not yet gardened)"]


# -- how long it has been --------------------------------------------------------------
def test_the_persona_knows_when_you_last_talked(example_cli: Runner, fake_llm):
    ws = example_cli.ws
    example_cli("config", "set", "user.name", "Lei")
    assert "No earlier chat between you and Lei is logged." in example_cli("context", "alice").output
    then = clock.today(ws) - dt.timedelta(days=3)
    say(ws, "alice", "me", "good luck at the interview!", day=then, time="21:40:00")
    say(ws, "alice", "persona", "thanks!! so nervous", day=then, time="21:40:09")
    fake_llm.enqueue("hiii")
    example_cli("chat", "alice", "-m", "how did it go?")
    system = system_of(fake_llm, "chat")
    assert f"You and Lei last talked 3 days ago ({then:%A} {then.isoformat()} 21:40)" in system
    turns = fake_llm.request("chat").turns
    # the earlier sitting's turn carries its time; the one going on now does not
    assert turns == [f"[{then:%a} {then.isoformat()} 21:40] good luck at the interview!", "thanks!! so nervous",
                     "how did it go?"]


def test_last_talked_reads_a_day_by_time_when_an_import_came_after(example_cli: Runner, fake_llm, tmp_path):
    """The log is append-only, so a chat export of that morning imported
    later sits after the evening's chat: the evening is still the last talk."""
    ws = example_cli.ws
    example_cli("config", "set", "user.name", "Lei")
    then = clock.today(ws) - dt.timedelta(days=3)
    say(ws, "alice", "me", "good luck at the interview!", day=then, time="21:40:00")
    say(ws, "alice", "persona", "thanks!! so nervous", day=then, time="21:40:09")
    export = tmp_path / "morning.txt"
    export.write_text(f"[{then.isoformat()} 09:00] Alice Chen: 早！面试是下午三点\n"
                      f"[{then.isoformat()} 09:01] Lei: 加油！\n", encoding="utf-8")
    example_cli("import", "alice", str(export), "--format", "plain", "--me", "Lei")
    assert [e.time for e in log_entries(ws, "alice")][-2:] == ["09:00:00", "09:01:00"]  # appended, not sorted
    fake_llm.enqueue("hiii")
    example_cli("chat", "alice", "-m", "how did it go?")
    assert f"You and Lei last talked 3 days ago ({then:%A} {then.isoformat()} 21:40)" in system_of(fake_llm, "chat")


# -- on a real terminal, against the HTTP stub ---------------------------------------------
def test_on_a_terminal_a_note_and_the_users_news_reach_the_persona(example_cli: Runner):
    from stub_server import start
    from terminal import assert_clean_end, finish, spawn

    server, stub = start()
    try:
        example_cli("config", "set", "llm.base_url", f"http://127.0.0.1:{server.server_port}/v1")
        example_cli("config", "set", "llm.model", "stub")
        example_cli("config", "set", "user.name", "Lei")
        child = spawn(example_cli.ws.root, "chat", "alice", "--no-delay")
        child.expect("you ›")
        child.send("my son broke his arm at the race\r")
        child.expect("I know:")
        child.send("/note She adopted a second cat\r")
        child.expect("Noted")
        child.send("how are you?\r")
        child.expect("you said: how are you\\?")
        child.send("/exit\r")
        code, raw = finish(child)
        assert code == 0
        assert_clean_end(raw)
        system = stub.request("chat", -1)["messages"][0]["content"]
        # the note, in the very next prompt, before any garden
        assert "- She adopted a second cat (noted " in system and "not yet gardened" in system
        example_cli("garden")
        mem = memory(example_cli.ws)
        day = clock.today(example_cli.ws).isoformat()
        assert mem.items(memory_fmt.ABOUT_ME) == [f"- The user's son broke his arm at the race (log {day})"]
        assert f"- She adopted a second cat (log {day})" in mem.items(memory_fmt.FACTS)
        example_cli("chat", "alice", "-m", "hi again")
        system = stub.request("chat", -1)["messages"][0]["content"]
        assert "## What Lei has told you about Lei's own life" in system
        assert "The user's son broke his arm at the race" in system and "not yet gardened" not in system
    finally:
        server.shutdown()


def test_the_users_own_person_keeps_their_life_in_facts(alice: Runner, fake_llm):
    say(alice.ws, "me", "me", "my son broke his arm at the race")
    out = _rejected_for(alice, fake_llm, "me", proposal(
        new_about_user=[{"text": "The user's son broke his arm at the race", "evidence": ["L1"]}]))
    assert "put them in new_facts" in out
    fake_llm.enqueue(proposal(new_facts=[{"text": "The user's son broke his arm at the race", "evidence": ["L1"]}]))
    alice("garden")
    assert memory(alice.ws, "me").items(memory_fmt.FACTS)[-1].startswith("- The user's son broke his arm")


def _rejected_for(alice: Runner, fake_llm, slug: str, bad: dict) -> str:
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws, slug)
    result = alice("garden", ok=False)
    assert result.exit_code == 1 and files(alice.ws, slug) == before
    return " ".join(result.output.split())


@pytest.mark.parametrize("heading", ["About Me", "关于我"])
def test_a_hand_spelled_about_me_is_the_users_side_and_keeps_its_spelling(tmp_path, heading):
    path = tmp_path / "MEMORY.md"
    text = (f"---\nbudget_tokens: 1200\n---\n\n## Facts\n\n## From our chats\n\n## Open threads\n\n"
            f"## {heading}\n\n- I started pottery (hand)\n")
    mem = memory_fmt.parse(text, path)
    assert mem.items(memory_fmt.ABOUT_ME) == ["- I started pottery (hand)"]
    assert memory_fmt.render(mem) == text
    memory_fmt.ensure_section(mem, memory_fmt.ABOUT_ME).append("- 我在学游泳 (log 2026-12-01)")
    out = memory_fmt.render(mem)
    assert out.count("## ") == 4 and f"## {heading}\n\n- I started pottery (hand)\n- 我在学游泳" in out


@pytest.mark.parametrize("attack", ["link", "binary", "markup"])
def test_a_hostile_self_profile_never_breaks_or_leaks_into_another_chat(example_cli: Runner, tmp_path, attack):
    ws = example_cli.ws
    me = ws.people_dir / "me" / "PROFILE.md"
    secret = tmp_path / "secret.md"
    secret.write_text(SELF_PROFILE.replace("A nurse in Osaka", "SECRET-TOKEN"))
    if attack == "link":
        me.unlink()
        me.symlink_to(secret)
    elif attack == "binary":
        me.write_bytes(b"---\nname: \xff\xfe\nrelation: self\n---\n")
    else:
        me.write_text(SELF_PROFILE.replace("name: 王磊", "name: '[red]Lei[/red]'").replace("A nurse", "\x1b[31mA nurse"))
    result = example_cli("context", "alice")
    assert "SECRET-TOKEN" not in result.output and "Traceback" not in result.output
    assert "\x1b[31m" not in result.output
    if attack == "markup":  # shown as written, never as markup or a colour
        assert "Who [red]Lei[/red] is" in result.output and "A nurse in Osaka" in result.output


def test_tell_what_you_told_them_about_your_life(example_cli: Runner, fake_llm):
    example_cli("config", "set", "user.name", "王磊")
    fake_llm.enqueue({"summary": "told her about the race", "new_about_user": [
        {"text": "王磊的儿子在比赛中摔断了胳膊", "evidence": ["L1"]}]}, {"people": []})
    result = example_cli("tell", "alice", "我告诉小爱我儿子在比赛中摔断了胳膊", "--yes")
    assert "+- 王磊的儿子在比赛中摔断了胳膊 (log " in result.output
    about = memory(example_cli.ws).items(memory_fmt.ABOUT_ME)
    assert len(about) == 1 and about[0].startswith("- 王磊的儿子在比赛中摔断了胳膊 (log ")
    # applied by tell: in the prompt as what she knows, not as a note still waiting
    system = example_cli("context", "alice").output
    assert "王磊的儿子在比赛中摔断了胳膊" in system and "not yet gardened" not in system
