"""Numbers and dates through `garden` (issue 27, item 3): the correct lines
a capable model had refused are kept (a date "last weekend" or "last summer"
means, the surname 陆, the place 九寨沟, "5K" for 5000), the attacks on the
number check are refused (500.000 for 500, "cinq mille", "오천", an event
dated 1950 from "November 1"), and an event's date is corrected only by
entries that say the new one."""

from __future__ import annotations

import datetime as dt

from conftest import Runner, git
from garden_helpers import answer_with, consolidated, events, memory, proposal, say
from heartcompass.memory.questions import Questions
from heartcompass.formats import memory as memory_fmt

FRIDAY = dt.date(2023, 4, 7)


def files(ws):
    return {p.name: p.read_bytes() for p in (ws.people_dir / "alice").glob("*.md")}


def refused(alice: Runner, fake_llm, bad: dict) -> str:
    """The proposal (sent again after the correction request) is refused and nothing is written; the reason."""
    fake_llm.enqueue(bad, bad)
    before = files(alice.ws)
    result = alice("garden", ok=False)
    assert result.exit_code == 1
    assert files(alice.ws) == before and consolidated(alice.ws) == {}
    return " ".join(result.output.split())


def test_the_lines_a_capable_model_had_refused_are_kept(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "note", "We went hiking on Mount Tam last weekend", day=FRIDAY)
    say(ws, "alice", "note", "She spent last summer in Lisbon", day=FRIDAY, time="20:01:00")
    say(ws, "alice", "me", "我最喜欢九寨沟的秋天", day=FRIDAY, time="20:02:00")
    say(ws, "alice", "note", "Her rent is 5000 a month", day=FRIDAY, time="20:03:00")
    fake_llm.enqueue(proposal(
        new_facts=[{"text": "Hiked Mount Tam on 2023-04-01", "evidence": ["L1"]},
                   {"text": "Spent the summer of 2022 in Lisbon", "evidence": ["L2"]},
                   {"text": "Pays 5K a month in rent", "evidence": ["L4"]}],
        new_about_user=[{"text": "陆琳最喜欢九寨沟的秋天", "evidence": ["L3"]}],
        new_events=[{"date": "2023-04-01", "text": "Hiked Mount Tam", "weight": 0.5, "evidence": ["L1"]},
                    {"date": "~2022-07", "text": "Summer in Lisbon", "weight": 0.6, "evidence": ["L2"]},
                    {"date": "2022", "text": "Lived in Lisbon for the summer", "weight": 0.4,
                     "evidence": ["L2"]}]))
    alice("garden")
    facts = memory(ws).items(memory_fmt.FACTS)
    for line in ("- Hiked Mount Tam on 2023-04-01 (log 2023-04-07)",
                 "- Spent the summer of 2022 in Lisbon (log 2023-04-07)",
                 "- Pays 5K a month in rent (log 2023-04-07)"):
        assert line in facts
    assert "- 陆琳最喜欢九寨沟的秋天 (log 2023-04-07)" in memory(ws).items(memory_fmt.ABOUT_ME)
    lines = [e.render() for e in events(ws)]
    for line in ("- 2023-04-01 · w0.5 · Hiked Mount Tam (log 2023-04-07)",
                 "- ~2022-07 · w0.6 · Summer in Lisbon (log 2023-04-07)",
                 "- 2022 · w0.4 · Lived in Lisbon for the summer (log 2023-04-07)"):
        assert line in lines
    text = (ws.people_dir / "alice" / "EVENTS.md").read_text()
    assert text.index("- ~2022-07 ·") < text.index("- 2022 ·")  # a year sorts after its months


def test_a_date_a_relative_phrase_cannot_mean_is_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "We went hiking on Mount Tam last weekend", day=FRIDAY)
    out = refused(alice, fake_llm, proposal(new_facts=[{"text": "Hiked Mount Tam on 2023-03-25",
                                                        "evidence": ["L1"]}]))
    assert "2023-03-25 does not appear in the entries it cites (L1)" in out
    assert "(their relative times: L1 (2023-04-07) says 2023-04-01..2023-04-02)" in out  # for the corrected try
    out = refused(alice, fake_llm, proposal(new_events=[{"date": "2022-07", "text": "Hiked Mount Tam",
                                                         "weight": 0.5, "evidence": ["L1"]}]))
    assert "2022-07 is not a date its entries say" in out and "L1 (2023-04-07) says 2023-04-01..2023-04-02" in out


def test_an_event_dated_1950_from_november_1_is_refused_and_its_own_day_is_kept(alice: Runner, fake_llm):
    ws = alice.ws
    said = dt.date(2023, 10, 30)
    say(ws, "alice", "note", "Her exhibition opens on November 1", day=said)
    out = refused(alice, fake_llm, proposal(new_events=[{"date": "1950-11-01", "text": "Her exhibition opens",
                                                         "weight": 0.7, "evidence": ["L1"]}]))
    assert "1950-11-01 is not a date its entries say" in out
    fake_llm.enqueue(proposal(new_events=[
        {"date": "2023-11-01", "text": "Her exhibition opens", "weight": 0.7, "evidence": ["L1"]},
        {"date": "2023-10-30", "text": "Told me about her exhibition", "weight": 0.3, "evidence": ["L1"]}]))
    alice("garden")
    lines = [e.render() for e in events(ws)]
    assert "- 2023-11-01 · w0.7 · Her exhibition opens (log 2023-10-30)" in lines
    assert "- 2023-10-30 · w0.3 · Told me about her exhibition (log 2023-10-30)" in lines


def test_the_attacks_on_the_number_check_are_refused(alice: Runner, fake_llm):
    say(alice.ws, "alice", "note", "She lent me 500 dollars for the deposit")
    out = refused(alice, fake_llm, proposal(new_facts=[{"text": "Lent the user 500.000 dollars for the deposit",
                                                        "evidence": ["L1"]}]))
    assert "500000 does not appear in the entries it cites (L1)" in out
    for words in ("cinq mille", "오천", "fünfhundert"):
        out = refused(alice, fake_llm, proposal(new_facts=[{"text": f"Lent the user {words} dollars for the "
                                                                    "deposit", "evidence": ["L1"]}]))
        assert f"'{words}' (number words we do not read: write the amount in digits)" in out
    say(alice.ws, "alice", "note", "她借了我五百五", time="20:01:00")
    out = refused(alice, fake_llm, proposal(new_facts=[{"text": "借给我505块", "evidence": ["L2"]}]))
    assert "505 does not appear in the entries it cites (L2)" in out


def test_an_event_date_is_corrected_only_by_entries_that_say_the_new_one(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    say(ws, "alice", "note", "Her pottery class starts on May 1", day=FRIDAY)
    fake_llm.enqueue(proposal(new_events=[{"date": "2023-05-01", "text": "Her pottery class starts",
                                           "weight": 0.5, "evidence": ["L1"]}]))
    alice("garden")
    say(ws, "alice", "note", "The pottery class was moved, it now starts next month on the 8th",
        day=dt.date(2023, 4, 20))

    def correct_to(date: str):
        def answer(messages):  # the id the gardener's request gives the pottery class
            said = "\n".join(str(message.content) for message in messages)  # a correction round's too
            shown = [line for line in said.splitlines() if "pottery class starts" in line and line[:1] == "E"]
            ident = shown[0].split(" ", 1)[0]
            assert ident.startswith("E"), shown
            return proposal(changed_events=[{"id": ident, "date": date, "evidence": ["L1"]}])
        return answer

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, correct_to("2023-06-30"))
        result = alice("garden", ok=False)
    assert "2023-06-30 is not a date its entries say" in " ".join(result.output.split())
    with monkeypatch.context() as m:
        answer_with(m, fake_llm, correct_to("2023-05-08"))
        alice("garden")
    lines = [e.render() for e in events(ws)]
    assert "- 2023-05-08 · w0.5 · Her pottery class starts (log 2023-04-20)" in lines
    assert not any(line.startswith("- 2023-05-01 ·") for line in lines)


def test_a_year_dated_event_goes_through_a_card_and_back(alice: Runner, tmp_path):
    ws = alice.ws
    path = ws.people_dir / "alice" / "EVENTS.md"
    path.write_text("\n# Events — Alice Chen\n\n- 2019 · w0.5 · Moved to Berlin\n- ~2022 · Learned the cello\n")
    git(ws, "commit", "-qam", "my events")
    shown = alice("person", "show", "alice").output
    assert "2019" in shown and "Moved to Berlin" in shown
    alice("person", "export", "alice", "--format", "card", "-o", str(tmp_path / "alice.json"))
    alice("person", "import-card", str(tmp_path / "alice.json"), "--name", "Alice Copy", "--force")
    assert {"2019", "~2022"} <= {e.when for e in events(ws, "alice-copy")}


def test_a_date_correction_of_an_event_the_user_wrote_waits_for_the_users_yes(alice: Runner, fake_llm, monkeypatch):
    ws = alice.ws
    path = ws.people_dir / "alice" / "EVENTS.md"
    path.write_text("\n# Events — Alice Chen\n\n- 2023-05-01 · Her pottery class starts\n")
    git(ws, "commit", "-qam", "my event")  # the user's own line
    say(ws, "alice", "note", "The pottery class was moved, it now starts next month on the 8th",
        day=dt.date(2023, 4, 20))

    def answer(messages):
        shown = [line for line in str(messages[-1].content).splitlines() if "pottery class starts" in line]
        return proposal(changed_events=[{"id": shown[0].split(" ", 1)[0], "date": "2023-05-08", "evidence": ["L1"]}])

    with monkeypatch.context() as m:
        answer_with(m, fake_llm, answer)
        alice("garden")
    assert [e.render() for e in events(ws)] == ["- 2023-05-01 · Her pottery class starts"]
    asked = Questions(ws).pending("alice")
    assert [(q.kind, q.change["old"], q.change["new"]) for q in asked] == [
        ("rewrite", "- 2023-05-01 · Her pottery class starts", "- 2023-05-08 · Her pottery class starts (log 2023-04-20)")]



def test_a_count_said_in_words_and_written_in_digits_is_kept(alice: Runner, fake_llm):
    ws = alice.ws
    say(ws, "alice", "me", "我们第一次见面是在九寨沟", day=FRIDAY)
    say(ws, "alice", "note", "She has been to Lisbon twice", day=FRIDAY, time="20:01:00")
    fake_llm.enqueue(proposal(
        new_facts=[{"text": "Has been to Lisbon 2 times", "evidence": ["L2"]}],
        new_about_user=[{"text": "和陆琳第1次见面是在九寨沟", "evidence": ["L1"]}]))
    alice("garden")
    assert "- Has been to Lisbon 2 times (log 2023-04-07)" in memory(ws).items(memory_fmt.FACTS)
    assert "- 和陆琳第1次见面是在九寨沟 (log 2023-04-07)" in memory(ws).items(memory_fmt.ABOUT_ME)
