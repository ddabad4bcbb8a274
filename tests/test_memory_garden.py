"""Details kept while gardening (issue 18, §3 and §4): a rewrite carries its
line's details forward, profile notes are named by id, open threads close
when their time has passed, and dates are written as people say them (a
month, an approximate day, "three years ago" counted from the entry)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from conftest import Runner, git, subjects
from garden_helpers import consolidated, events, memory, proposal, questions, say, user_prompt
from heartcompass.formats import events as events_fmt, memory as memory_fmt
from heartcompass.memory import context as context_mod
from heartcompass.store.people import resolve


def _garden_commit(ws, message="garden(alice): 1 new event from 2023-05-01 log"):
    """Commit the files as the gardener would have (its subject): lines that are not the user's."""
    git(ws, "commit", "-qam", message)


def _profile_ids(ws, slug="alice") -> dict[str, str]:
    """P ids as the gardener shows them, by the line."""
    prof = resolve(ws, slug).load_profile()
    return {line: f"P{i}" for i, (_, line) in enumerate(prof.notes(), 1)}


# -- §3: a rewrite may cite the line it rewrites -------------------------------------------------
def test_a_rewrite_citing_its_own_line_keeps_the_old_detail(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "note", "Mochi sleeps in the carrier happily now")
    text = "Her cat Mochi is 6 and now sleeps in the carrier happily"
    # resting on the new entry alone, the old detail (6) has no evidence: rejected, nothing written
    alone = proposal(rewritten_facts=[{"id": "F2", "text": text, "evidence": ["L1"]}])
    fake_llm.enqueue(alone, alone)
    result = alice("garden", ok=False)
    assert result.exit_code == 1 and "6 does not appear" in " ".join(result.output.split())
    assert consolidated(ws) == {}
    # citing the line it rewrites carries the detail forward
    fake_llm.enqueue(proposal(rewritten_facts=[{"id": "F2", "text": text, "evidence": ["F2", "L1"]}]))
    alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)  # a told line: the rewrite waits for the user's Yes
    assert [q["change"]["new"] for q in questions(ws)] == [f"- {text} (log 2026-12-01)"]
    assert "- Her cat Mochi is 6 and hates the carrier (told)" in facts
    spec = fake_llm.request("garden", 1).schema  # the second run's
    cited = spec["properties"]["rewritten_facts"]["items"]["properties"]["evidence"]["items"]["enum"]
    assert {"F2", "L1", "T1"} <= set(cited) and "C1" not in cited  # a fact never rests on a chat note
    assert "cite the line itself" in json_text(spec)


def json_text(spec) -> str:
    import json

    return json.dumps(spec)


def test_two_facts_merged_into_one_keep_both_details(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "note", "The Kyoto studio job starts in January, Mochi comes along")
    fake_llm.enqueue(proposal(
        rewritten_facts=[{"id": "F1", "text": "Moves to Kyoto in January for the studio job with Mochi, who is 6 "
                                              "and hates the carrier", "evidence": ["F1", "F2", "L1"]}],
        removed_facts=["F2"]))
    alice("garden")
    # told lines: the merge and the removal of the merged line both wait for the user's Yes
    changes = [q["change"] for q in questions(ws)]
    assert changes[0]["new"] == ("- Moves to Kyoto in January for the studio job with Mochi, who is 6 and hates the "
                                 "carrier (log 2026-12-01)")
    assert changes[1] == {"file": "MEMORY.md", "section": memory_fmt.FACTS,
                          "old": "- Her cat Mochi is 6 and hates the carrier (told)"}
    assert len(memory(ws).items(memory_fmt.FACTS)) == 3


def test_a_merge_needs_no_new_entry_but_never_rests_on_a_chat_note(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "me", "ok good night")
    bad = proposal(rewritten_facts=[{"id": "F1", "text": "Moves to Kyoto in January; wants to learn pour-over "
                                                         "coffee", "evidence": ["F1", "C1"]}])
    fake_llm.enqueue(bad, bad)
    result = alice("garden", ok=False)
    assert "unknown ids: ['C1']" in result.output
    # facts merged on their own lines only: the newest source of theirs (told, told: told)
    fake_llm.enqueue(proposal(rewritten_facts=[{"id": "F1", "text": "Moves to Kyoto in January with Mochi (6)",
                                                "evidence": ["F1", "F2"]}], removed_facts=["F2"]))
    alice("garden")
    assert questions(ws)[0]["change"]["new"] == "- Moves to Kyoto in January with Mochi (6) (told)"


# -- §3: profile notes get ids ----------------------------------------------------------------
def test_a_profile_note_is_rewritten_and_another_removed_by_id(alice: Runner, fake_llm):
    ws = alice.ws
    path = ws.people_dir / "alice" / "PROFILE.md"
    before = path.read_text()
    ids = _profile_ids(ws)
    likes = "Mountains, bad puns, oolong tea, night markets, her cat Mochi."
    bounds = "Does not want to talk about her ex. Needs a day before answering big questions."
    say(ws, "alice", "note", "Alice gave up oolong tea, she drinks matcha now")
    say(ws, "alice", "note", "She talks about her ex openly again, it is fine now", time="20:01:00")
    fake_llm.enqueue(proposal(
        rewritten_profile_notes=[{"id": ids[likes], "text": "Mountains, bad puns, matcha, night markets, her cat Mochi",
                                  "evidence": [ids[likes], "L1"]}],
        removed_profile_notes=[{"id": ids[bounds], "evidence": ["L2"]}]))
    alice("garden")
    prompt = user_prompt(fake_llm)
    assert f"### Likes\n{ids[likes]} {likes}" in prompt
    after = path.read_text()
    assert "- Mountains, bad puns, matcha, night markets, her cat Mochi (log 2026-12-01)" in after
    assert "oolong" not in after and "her ex" in after  # a profile line's removal is asked
    # every other byte stays put
    assert after == before.replace(likes, "- Mountains, bad puns, matcha, night markets, her cat Mochi (log 2026-12-01)")
    assert [q["change"] for q in questions(ws)] == [{"file": "PROFILE.md", "section": "Boundaries", "old": bounds}]
    assert "profile updated" in subjects(ws)[0]
    body = git(ws, "log", "-1", "--format=%b")
    assert "~ profile Likes: Mountains, bad puns, oolong tea" in body


def test_a_profile_note_the_user_wrote_becomes_a_question(alice: Runner, fake_llm):
    ws = alice.ws
    path = ws.people_dir / "alice" / "PROFILE.md"
    path.write_text(path.read_text().replace("cilantro.", "cilantro.\n- 讨厌香菜和早起"))
    git(ws, "commit", "-qam", "my own line")
    say(ws, "alice", "note", "她现在喜欢早起跑步了")
    pid = _profile_ids(ws)["- 讨厌香菜和早起"]
    fake_llm.enqueue(proposal(rewritten_profile_notes=[{"id": pid, "text": "讨厌香菜，现在喜欢早起跑步",
                                                        "evidence": ["L1"]}],
                              removed_profile_notes=[{"id": pid, "evidence": ["L1"]}]))
    alice("garden")
    assert "- 讨厌香菜和早起" in path.read_text()
    assert [(q["kind"], q["change"]["old"], q["reason"]) for q in questions(ws)] == [
        ("rewrite", "- 讨厌香菜和早起", "you wrote this line by hand"),
        ("removal", "- 讨厌香菜和早起", "you wrote this line by hand")]
    assert "早起跑步" in questions(ws)[0]["change"]["new"]
    assert f"{pid} - 讨厌香菜和早起   [hand-written]" in user_prompt(fake_llm)


# -- §3: open threads expire ----------------------------------------------------------------
def _threads(ws, *lines):
    path = ws.people_dir / "alice" / "MEMORY.md"
    text = path.read_text()
    path.write_text(text.replace("- Ask how the farewell party at her old job went (log 2026-11-28)\n",
                                 "".join(f"{line}\n" for line in lines)))


def test_a_thread_past_its_time_is_closed_and_a_new_one_gets_its_end(alice: Runner, fake_llm):
    ws = alice.ws
    _threads(ws, "- Plan a trip together for summer 2023 (until 2023-08) (log 2023-05-01)",
             "- Ask about her sister's wedding (until 2024-02-10) (log 2023-11-20)",
             "- Ask whether she kept up the pottery class (log 2023-06-20)")
    _garden_commit(ws)
    say(ws, "alice", "note", "She is going to Sapporo for New Year", day=dt.date(2023, 12, 5))
    say(ws, "alice", "note", "We did take the summer trip together", day=dt.date(2023, 12, 5), time="20:01:00")
    fake_llm.enqueue(proposal(
        new_threads=[{"text": "Ask how the Sapporo New Year trip went", "evidence": ["L1"], "until": "2024-01"}],
        new_facts=[{"text": "Planned a summer 2023 trip together", "evidence": ["T1", "L2"]}]))
    alice("garden")
    prompt = user_prompt(fake_llm)
    assert "T1 - Plan a trip together for summer 2023 (until 2023-08) (log 2023-05-01)   [its time has passed" in prompt
    assert "T2 - Ask about her sister's wedding (until 2024-02-10) (log 2023-11-20)\n" in prompt
    threads = memory(ws).items(memory_fmt.THREADS)
    assert threads == ["- Ask about her sister's wedding (until 2024-02-10) (log 2023-11-20)",
                       "- Ask whether she kept up the pottery class (log 2023-06-20)",
                       "- Ask how the Sapporo New Year trip went (until 2024-01) (log 2023-12-05)"]
    # what the plan was is kept as a fact, resting on the thread and on the entry that says it happened
    assert "- Planned a summer 2023 trip together (log 2023-12-05)" in memory(ws).items(memory_fmt.FACTS)
    assert "✓ past Open threads: Plan a trip together for summer 2023" in git(ws, "log", "-1", "--format=%b")


def test_a_rewritten_thread_keeps_its_end_unless_given_a_new_one(alice: Runner, fake_llm):
    ws = alice.ws
    _threads(ws, "- Ask about her sister's wedding (until 2024-02) (log 2023-11-20)",
             "- Ask about the Sapporo trip (until 2024-01) (log 2023-11-20)")
    _garden_commit(ws)
    say(ws, "alice", "note", "The wedding is in Taipei; the Sapporo trip moved to March", day=dt.date(2023, 12, 5))
    fake_llm.enqueue(proposal(rewritten_threads=[
        {"id": "T1", "text": "Ask about her sister's wedding in Taipei", "evidence": ["T1", "L1"]},
        {"id": "T2", "text": "Ask about the Sapporo trip in March", "evidence": ["T2", "L1"], "until": "2024-03"}]))
    alice("garden")
    assert memory(ws).items(memory_fmt.THREADS) == [
        "- Ask about her sister's wedding in Taipei (until 2024-02) (log 2023-12-05)",
        "- Ask about the Sapporo trip in March (until 2024-03) (log 2023-12-05)"]


def test_a_past_thread_the_user_wrote_stays_but_the_prompt_no_longer_shows_it(alice: Runner, fake_llm):
    ws = alice.ws
    _threads(ws, "- 夏天一起去北海道 (until 2023-08)", "- Ask about the wedding (until 2024-02) (log 2023-11-20)")
    git(ws, "commit", "-qam", "my threads")
    person = resolve(ws, "alice")
    december = context_mod.build(ws, person, dt.datetime(2023, 12, 10, 20, 0, tzinfo=dt.timezone.utc)).system
    assert "Ask about the wedding" in december and "北海道" not in december
    july = context_mod.build(ws, person, dt.datetime(2023, 7, 1, 20, 0, tzinfo=dt.timezone.utc)).system
    assert "北海道" in july
    later = context_mod.build(ws, person, dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)).system
    assert "Ask about the wedding" not in later
    # the gardener leaves the user's own line in the file
    say(ws, "alice", "note", "Nothing much happened today", day=dt.date(2023, 12, 5))
    fake_llm.enqueue(proposal(nothing_worth_keeping=True))
    alice("garden")
    assert "- 夏天一起去北海道 (until 2023-08)" in memory(ws).items(memory_fmt.THREADS)


def test_a_thread_end_that_is_not_a_date_is_refused_with_its_line(alice: Runner, fake_llm):
    ws = alice.ws
    _threads(ws, "- Plan the trip (until 2023-13) (log 2023-05-01)")
    before = (ws.people_dir / "alice" / "MEMORY.md").read_bytes()
    result = alice("context", "alice", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "MEMORY.md:19" in out and "'until 2023-13' is not a real date" in out
    assert "(until YYYY-MM-DD)" in out and "Traceback" not in result.output
    assert (ws.people_dir / "alice" / "MEMORY.md").read_bytes() == before
    # and from the model: rejected before anything is written
    _threads(ws)
    git(ws, "checkout", "--", "people/alice/MEMORY.md")
    say(ws, "alice", "note", "Trip to Sapporo at New Year")
    bad = proposal(new_threads=[{"text": "Ask about the Sapporo trip", "evidence": ["L1"], "until": "~2027-01"}])
    fake_llm.enqueue(bad, bad)
    result = alice("garden", ok=False)
    assert "without '~'" in result.output and consolidated(ws) == {}


# -- §4: dates as people say them -----------------------------------------------------------
EVENTS_BY_HAND = """
# Events — Alice Chen

- 2023-06-20 · w0.5 · 第一次陶艺课 (hand)
- 2023-06 · w0.6 · Started a pottery class (log 2023-06-20)
- ～2023-06-02 | Went camping with the kids
- ~ 2023-07 · w0.4 · Around July: moved desks at work
- 2023-06-01 · w0.3 · Birthday dinner
"""


def test_month_and_approximate_dates_round_trip_sort_and_show(alice: Runner, fake_llm):
    ws = alice.ws
    path = ws.people_dir / "alice" / "EVENTS.md"
    path.write_text(EVENTS_BY_HAND)
    ef = events_fmt.load(path)
    assert events_fmt.render(ef) == EVENTS_BY_HAND  # byte for byte, as typed
    assert [(e.when, e.date, e.month_only, e.approx) for e in ef.events] == [
        ("2023-06-20", dt.date(2023, 6, 20), False, False), ("2023-06", dt.date(2023, 6, 1), True, False),
        ("~2023-06-02", dt.date(2023, 6, 2), False, True), ("~2023-07", dt.date(2023, 7, 1), True, True),
        ("2023-06-01", dt.date(2023, 6, 1), False, False)]
    # sorted newest first: a day before its month, which is the first of the month
    assert [e.when for e in ef.sorted_events()] == ["~2023-07", "2023-06-20", "~2023-06-02", "2023-06-01", "2023-06"]
    shown = alice("person", "show", "alice").output
    assert re.search(r"~2023-07 +w0\.4 +Around July", shown) and re.search(r"2023-06 +w0\.6 +Started a pottery", shown)
    assert shown.index("~2023-07") < shown.index("2023-06-20") < shown.index("~2023-06-02")
    git(ws, "commit", "-qam", "my events")
    # the gardener writes them too; the file is then rendered in order, with '~' as the marker
    say(ws, "alice", "note", "She is starting a pottery course in September, and went camping around the end of May",
        day=dt.date(2023, 6, 9))
    fake_llm.enqueue(proposal(new_events=[
        {"date": "2023-09", "text": "Starts a pottery course", "weight": 0.6, "evidence": ["L1"]},
        {"date": "~2023-05-30", "text": "Went camping", "weight": 0.4, "evidence": ["L1"]}]))
    alice("garden")
    text = path.read_text()
    assert "- 2023-09 · w0.6 · Starts a pottery course (log 2023-06-09)\n" in text
    assert "- ~2023-05-30 · w0.4 · Went camping (log 2023-06-09)\n" in text
    assert "- ~2023-06-02 · Went camping with the kids\n" in text and "- ~2023-07 · w0.4 · Around July" in text
    assert text.index("2023-09 ·") < text.index("~2023-07") < text.index("2023-06 ·") < text.index("~2023-05-30")
    schema = fake_llm.request("garden").schema["properties"]["new_events"]["items"]["properties"]["date"]
    assert re.fullmatch(schema["pattern"], "~2023-06-02") and re.fullmatch(schema["pattern"], "2023-06")
    context = alice("context", "alice").output
    assert "2023-09 · w0.6 · Starts a pottery course" in context


def test_an_event_date_that_is_no_real_month_is_refused(alice: Runner, fake_llm):
    ws = alice.ws
    path = ws.people_dir / "alice" / "EVENTS.md"
    path.write_text(path.read_text() + "- 2023-13 · w0.4 · A month that does not exist\n")
    result = alice("person", "show", "alice", ok=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "EVENTS.md:" in out and "2023-13 is not a real month" in out
    assert "Traceback" not in result.output
    git(ws, "checkout", "--", "people/alice/EVENTS.md")
    say(ws, "alice", "note", "Pottery course starting soon")
    bad = proposal(new_events=[{"date": "2023-13", "text": "Pottery course", "weight": 0.5, "evidence": ["L1"]}])
    fake_llm.enqueue(bad, bad)
    result = alice("garden", ok=False)
    assert "2023-13 is not a real month" in result.output and consolidated(ws) == {}


def test_three_years_ago_is_counted_from_the_entry_and_an_invented_year_is_rejected(alice: Runner, fake_llm):
    ws = alice.ws
    june = dt.date(2023, 6, 9)
    say(ws, "alice", "note", "Alice moved to Berlin three years ago", day=june)
    say(ws, "alice", "note", "她去年开始学大提琴", day=june, time="20:05:00")
    invented = proposal(new_facts=[{"text": "Moved to Berlin in 2019", "evidence": ["L1"]}])
    fake_llm.enqueue(invented, invented)
    result = alice("garden", ok=False)
    assert "2019 does not appear" in " ".join(result.output.split()) and consolidated(ws) == {}
    fake_llm.enqueue(proposal(new_facts=[{"text": "Moved to Berlin in 2020", "evidence": ["L1"]},
                                         {"text": "2022年开始学大提琴", "evidence": ["L2"]}]))
    alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)
    assert "- Moved to Berlin in 2020 (log 2023-06-09)" in facts and "- 2022年开始学大提琴 (log 2023-06-09)" in facts
    system = fake_llm.request("garden", 1).system  # the second run's first try
    assert "three years ago" in system and "2020" in system  # the gardener prompt says how
    assert "L1 [2023-06-09 20:00 · note" in user_prompt(fake_llm, nth=1)  # the model is told each entry's date


def test_relative_times_said_in_an_entry_are_the_spans_they_can_mean(alice: Runner):
    from heartcompass.memory.proposal.said_dates import said_dates

    day = dt.date(2023, 6, 9)  # a Friday
    d = dt.date

    def one(text):
        found = said_dates(text, day)
        assert len(found) == 1, found
        return found[0]

    assert one("I moved here three years ago") == (d(2020, 1, 1), d(2020, 12, 31))
    assert one("we went camping last week") == (d(2023, 5, 29), d(2023, 6, 4))
    assert said_dates("see you in September", day)[0] == (d(2023, 9, 1), d(2023, 9, 30))
    assert one("last September was hard") == (d(2022, 9, 1), d(2022, 9, 30))
    assert said_dates("she may come along", day) == []
    assert said_dates("last Friday", day)[0] == (d(2023, 6, 2), d(2023, 6, 2))
    assert one("我三年前搬来的") == (d(2020, 1, 1), d(2020, 12, 31))
    assert one("上个月") == (d(2023, 5, 1), d(2023, 5, 31)) and one("两个月前") == (d(2023, 4, 1), d(2023, 4, 30))
    assert said_dates("九月见", day)[0] == (d(2023, 9, 1), d(2023, 9, 30)) and one("明天见") == (d(2023, 6, 10),) * 2
    assert one("in two years") == (d(2025, 1, 1), d(2025, 12, 31))


def test_a_card_keeps_month_and_approximate_dates(alice: Runner, tmp_path: Path):
    ws = alice.ws
    path = ws.people_dir / "alice" / "EVENTS.md"
    path.write_text(EVENTS_BY_HAND)
    git(ws, "commit", "-qam", "my events")
    alice("person", "export", "alice", "--format", "card", "-o", str(tmp_path / "alice.json"))
    alice("person", "import-card", str(tmp_path / "alice.json"), "--name", "Alice Copy", "--force")
    whens = {e.when for e in events(ws, "alice-copy")}
    assert {"2023-06", "~2023-06-02", "~2023-07", "2023-06-20"} <= whens


def test_the_follow_up_digest_skips_a_thread_past_its_end(alice: Runner):
    from heartcompass.memory.followups import followups

    ws = alice.ws
    _threads(ws, "- Plan a trip together for summer 2023 (until 2023-08) (log 2023-05-01)",
             "- Ask about her sister's wedding (until 2024-02) (log 2023-11-20)")
    texts = [i.text for i in followups(ws, dt.date(2023, 12, 10)) if i.kind == "thread"]
    assert texts == ["Ask about her sister's wedding (until 2024-02) (log 2023-11-20)"]
