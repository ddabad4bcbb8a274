"""`heartcompass review` on a real pseudo-terminal: each question asked in
turn (yes, no, edit, skip), and Ctrl-C saying what was applied so far."""

from __future__ import annotations

from conftest import Runner, subjects
from terminal import CTRL_C, DOWN, ENTER, assert_clean_end, finish, screen_text, spawn
from test_review import HAND, TOLD, asked, memory, profile, relation

from heartcompass.memory.questions import Questions


def three(ws):
    relation(ws)
    asked(ws, "removal", {"file": "MEMORY.md", "section": "Facts", "old": TOLD}, "remove Mochi")
    asked(ws, "rewrite", {"file": "MEMORY.md", "section": "Facts", "old": HAND,
                          "new": "- Prefers calls after 22:00 (log 2026-12-01)"}, "calls later")


def test_review_asks_each_question_yes_no_and_edit(example_cli: Runner):
    ws = example_cli.ws
    three(ws)
    child = spawn(ws.root, "review")
    child.expect("Apply this change")
    assert "relation: friend → dating" in screen_text(child.logfile_read.getvalue())
    child.send(ENTER)                       # q1: yes (the default)
    child.expect("Applied and committed")
    child.expect("remove Mochi")           # q2 shown
    child.expect("Apply this change")
    child.send(DOWN + ENTER)                # q2: no
    child.expect("not asked again")
    child.expect("calls later")            # q3 shown
    child.expect("Apply this change")
    child.send(DOWN * 2 + ENTER)            # q3: edit, with the user's own line
    child.expect("Your value or line instead:")
    child.expect("after 22:00")             # the line a Yes would write, to edit (no source marker)
    child.send("\x15")                      # cleared (Ctrl-U)
    child.send("Prefers calls after 21:30, 周末随时 " + ENTER)
    code, raw = finish(child)
    assert code == 0, screen_text(raw)[-2000:]
    assert_clean_end(raw)
    assert "relation: dating" in profile(ws)
    text = memory(ws)
    assert TOLD in text and "- Prefers calls after 21:30, 周末随时 (hand)" in text and HAND not in text
    assert [s.split(":")[0] for s in subjects(ws)[:2]] == ["review(alice)", "review(alice)"]
    assert Questions(ws).pending() == []


def test_ctrl_c_exits_130_saying_what_was_applied(example_cli: Runner):
    ws = example_cli.ws
    three(ws)
    child = spawn(ws.root, "review")
    child.expect("Apply this change")
    child.send(ENTER)
    child.expect("Applied and committed")
    child.expect("remove Mochi")           # q2 shown
    child.expect("Apply this change")
    child.send(DOWN * 3 + ENTER)            # q2: skip
    child.expect("calls later")            # q3 shown
    child.expect("Apply this change")
    child.send(CTRL_C)
    code, raw = finish(child)
    assert code == 130 and "Stopped; 1 applied (q1). The others still wait." in screen_text(raw)
    assert "Traceback" not in screen_text(raw)
    assert [q.id for q in Questions(ws).pending()] == ["q2", "q3"]
    assert subjects(ws)[0] == "review(alice): relation friend → dating"
