"""VOICE.md: the person's own real words and rhythm (issue 13)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import Runner, git, subjects
from heartcompass.memory import voice
from heartcompass.formats import dailylog, voice as voice_fmt

EXPORT = """01/11/2026, 09:00 - Alice Chen: morning!! ☀️
01/11/2026, 09:00 - Alice Chen: did you sleep ok?
01/11/2026, 09:01 - Alice Chen: <Media omitted>
01/11/2026, 09:05 - Lei: yes! you?
01/11/2026, 09:06 - Alice Chen: hahaha barely 😂
01/11/2026, 09:06 - Alice Chen: call me at 0176 555 12345
01/11/2026, 09:07 - Alice Chen: my salary talk went badly
01/11/2026, 09:10 - Lei: oh no, hugs
01/11/2026, 09:12 - Alice Chen: nah it's fine, don't worry
02/11/2026, 20:00 - Alice Chen: are you free saturday?
02/11/2026, 20:02 - Lei: maybe! what's up
02/11/2026, 20:03 - Alice Chen: hiking 🥾
02/11/2026, 20:03 - Alice Chen: takao again
02/11/2026, 20:03 - Alice Chen: you in?
"""


def _import(cli: Runner, tmp_path, text: str = EXPORT) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    cli("import", "alice", str(path), "--format", "whatsapp", *(["--me", "Lei"] if "Lei:" in text else []))


def _voice(cli: Runner) -> voice_fmt.Voice:
    return voice_fmt.load(cli.ws.people_dir / "alice" / "VOICE.md")


def test_import_picks_their_real_lines_and_rhythm(example_cli: Runner, tmp_path):
    _import(example_cli, tmp_path)
    v = _voice(example_cli)
    theirs = [line.text for line in v.lines(voice_fmt.THEIRS)]
    mine = [line.text for line in v.lines(voice_fmt.MINE)]
    assert "morning!! ☀️" in theirs and "hahaha barely 😂" in theirs and "you in?" in theirs
    assert "<Media omitted>" not in theirs                     # a placeholder, not words
    assert not any("0176" in t for t in theirs)                # private data never picked
    assert "yes! you?" in mine and "yes! you?" not in theirs   # the user's words are apart
    assert all(line.source == "import 2026-11-01" or line.source == "import 2026-11-02"
               for line in v.lines(voice_fmt.THEIRS))
    assert v.rhythm["messages"] == 10 and v.rhythm["burst_p75"] == 3 and v.rhythm["median_words"] <= 4
    assert subjects(example_cli.ws)[0].startswith("import(alice)")
    assert "people/alice/VOICE.md" in git(example_cli.ws, "show", "--name-only", "--format=", "HEAD")


def test_private_words_keep_lines_out(example_cli: Runner, tmp_path):
    path = example_cli.ws.people_dir / "alice" / "VOICE.md"
    v = voice_fmt.new(path, "Alice Chen")
    v.doc.meta["private"] = ["salary"]
    path.write_text(voice_fmt.render(v), encoding="utf-8")
    _import(example_cli, tmp_path)
    theirs = _voice(example_cli).lines(voice_fmt.THEIRS)
    assert theirs and not any("salary" in line.text for line in theirs)  # their other lines made it


def test_persona_lines_never_qualify(example_cli: Runner, fake_llm, tmp_path):
    fake_llm.enqueue("i am the simulated alice, honestly")
    example_cli("chat", "alice", "-m", "hi")
    _import(example_cli, tmp_path)
    text = (example_cli.ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")
    assert _voice(example_cli).lines(voice_fmt.THEIRS)  # the import's own lines qualified
    assert "simulated" not in text and '"hi"' not in text


def test_context_shows_their_words_and_rhythm_before_events(example_cli: Runner, tmp_path):
    _import(example_cli, tmp_path)
    data = json.loads(example_cli("context", "alice", "--json").output)
    system = data["messages"][0]["content"]
    assert "## How you write (your own real messages" in system
    assert '- "hahaha barely 😂"' in system
    assert "Write like you do in real chats: usually 1–3 messages in a row" in system
    assert system.index("How you write") < system.index("Things that happened")
    words = next(s for s in data["sections"] if s["key"] == "words")
    assert words["included"] >= 4


def test_coach_prompt_has_both_their_words_and_mine(example_cli: Runner, tmp_path):
    from heartcompass.memory import context as context_mod
    from heartcompass.store.people import resolve

    _import(example_cli, tmp_path)
    ws = example_cli.ws
    ctx = context_mod.build(ws, resolve(ws, "alice"), dt.datetime(2026, 12, 3, 10), rules="coach.md", voice="about")
    assert "How Alice Chen writes" in ctx.system and '"yes! you?"' in ctx.system
    assert "writes usually 1–3 messages in a row" in ctx.system


def test_hand_lines_stay_and_picked_lines_follow_newer_chats(example_cli: Runner, tmp_path):
    _import(example_cli, tmp_path)
    path = example_cli.ws.people_dir / "alice" / "VOICE.md"
    text = path.read_text(encoding="utf-8").replace("## Their words\n\n", '## Their words\n\n- "ugh, mondays"\n')
    path.write_text(text, encoding="utf-8")
    later = "\n".join(f"0{d}/12/2026, 10:0{i} - Alice Chen: new habit {d}{i} lol" for d in range(1, 10)
                      for i in range(3)) + "\n"
    _import(example_cli, tmp_path, later)
    v = _voice(example_cli)
    theirs = v.lines(voice_fmt.THEIRS)
    assert theirs[0].text == "ugh, mondays" and theirs[0].source == "hand"     # the user's line, first, kept
    assert len(theirs) <= voice.MAX_THEIRS
    assert sum(voice_fmt.Line(l.text, l.source).render().__len__() for l in theirs) > 0
    assert any(l.text.startswith("new habit 9") for l in theirs)   # newest habits win
    assert "edit(alice): by hand" in subjects(example_cli.ws)      # the hand line was committed as the user's


def test_selection_is_bounded_diverse_and_deterministic(tmp_path):
    person_dir = tmp_path / "alice"
    day = dt.date(2026, 11, 1)
    entries = [dailylog.Entry(f"10:{i:02d}:00", "import:Alice", f"haha number {i} 😂") for i in range(40)]
    entries += [dailylog.Entry("11:00:00", "import:Alice", "good morning sunshine"),
                dailylog.Entry("11:01:00", "import:Alice", "不要啦"),
                dailylog.Entry("11:02:00", "import:Alice", "are you home?"),
                dailylog.Entry("11:03:00", "persona", "I am not real"),
                dailylog.Entry("11:04:00", "import:Alice", "see https://example.com"),
                dailylog.Entry("11:05:00", "import:Alice", "x" * 200)]
    dailylog.append_many(dailylog.log_path(person_dir, day), entries, day)
    assert voice.refresh(person_dir, ["Alice"])
    first = (person_dir / "VOICE.md").read_bytes()
    v = voice_fmt.load(person_dir / "VOICE.md")
    texts = [line.text for line in v.lines(voice_fmt.THEIRS)]
    assert {"good morning sunshine", "不要啦", "are you home?"} <= set(texts)   # one of each kind first
    assert len(texts) <= voice.MAX_THEIRS
    assert sum(voice.estimate_tokens(l.render()) for l in v.lines(voice_fmt.THEIRS)) <= v.budget_tokens * 2 // 3
    assert not any("real" in t or "http" in t or "xxxx" in t for t in texts)
    assert not voice.refresh(person_dir, ["Alice"])            # same logs, same file: nothing written
    assert (person_dir / "VOICE.md").read_bytes() == first
    assert voice_fmt.render(voice_fmt.load(person_dir / "VOICE.md")) == first.decode("utf-8")


def test_chinese_rhythm_counts_characters(tmp_path):
    person_dir = tmp_path / "xm"
    day = dt.date(2026, 11, 1)
    lines = ["好呀", "明天见", "我刚下班，累死了", "你吃饭了吗"]
    dailylog.append_many(dailylog.log_path(person_dir, day),
                         [dailylog.Entry(f"20:0{i}:00", "import:小明", t) for i, t in enumerate(lines)], day)
    voice.refresh(person_dir, ["小明"])
    rhythm = voice_fmt.load(person_dir / "VOICE.md").rhythm
    assert rhythm["unit"] == "characters" and rhythm["median_words"] == 4   # 2, 3, 5, 8 characters
    assert "characters" in voice.guidance(rhythm, "小明", persona=True)


def test_quote_command_and_chat_quote(example_cli: Runner, fake_llm):
    example_cli("quote", "alice", "好呀～明天见")
    example_cli("quote", "alice", "see you there!", "--mine")
    assert example_cli("quote", "alice", "好呀～明天见").output.startswith("Already")
    v = _voice(example_cli)
    assert [l.text for l in v.lines(voice_fmt.THEIRS)] == ["好呀～明天见"]
    assert v.lines(voice_fmt.THEIRS)[0].source.startswith("quote ")
    assert [l.text for l in v.lines(voice_fmt.MINE)] == ["see you there!"]
    assert subjects(example_cli.ws)[0].startswith("quote(alice)")
    shown = example_cli("voice", "alice").output
    assert "好呀～明天见" in shown and "see you there!" in shown


def test_quoted_lines_survive_refresh_and_garden(example_cli: Runner, fake_llm, tmp_path):
    example_cli("quote", "alice", "ugh fine 🙄")
    _import(example_cli, tmp_path)
    fake_llm.enqueue(json.dumps({"summary": "nothing new worth keeping"}))
    before = (example_cli.ws.people_dir / "alice" / "VOICE.md").read_bytes()
    example_cli("garden", ok=False)
    assert (example_cli.ws.people_dir / "alice" / "VOICE.md").read_bytes() == before
    assert "ugh fine 🙄" in before.decode("utf-8")


def test_invalid_hand_edit_is_reported_with_the_line(example_cli: Runner):
    example_cli("quote", "alice", "hello there")
    path = example_cli.ws.people_dir / "alice" / "VOICE.md"
    path.write_text(path.read_text(encoding="utf-8") + "just some words without quotes\n", encoding="utf-8")
    result = example_cli("quote", "alice", "another", ok=False)
    assert result.exit_code != 0 and "VOICE.md:" in result.output and "not a quoted line" in result.output
    assert "just some words" in path.read_text(encoding="utf-8")


def test_cards_carry_voice_both_ways(example_cli: Runner, tmp_path):
    example_cli("quote", "alice", "omg yes!!")
    example_cli("quote", "alice", "ok ok coming")
    card = json.loads(example_cli("person", "export", "alice", "--format", "card").output)
    assert "{{char}}: omg yes!!" in card["data"]["mes_example"]
    card["data"]["name"] = "Kaito"
    card["data"]["extensions"]["heartcompass"]["aliases"] = []
    card["data"]["first_mes"] = "Yo {{user}}, ramen tonight?"
    path = tmp_path / "kaito.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    example_cli("person", "import-card", str(path))
    v = voice_fmt.load(example_cli.ws.people_dir / "kaito" / "VOICE.md")
    texts = [(l.text, l.source) for l in v.lines(voice_fmt.THEIRS)]
    assert ("omg yes!!", "card") in texts and ("ok ok coming", "card") in texts


def test_edit_and_restore_know_voice(example_cli: Runner):
    from heartcompass import formats

    assert formats.file_for("voice") == "VOICE.md"


@pytest.mark.parametrize("line", ['- "fine" (import 2026-11-01)', '- "fine"', '- "fine" (quote 2026-11-02)',
                                  '- "fine" (card)', '- "fine" (hand)'])
def test_line_formats_round_trip(tmp_path, line):
    text = f"---\nbudget_tokens: 300\n---\n# Voice\n\n## Their words\n\n{line}\n"
    v = voice_fmt.parse(text, tmp_path / "VOICE.md")
    assert v.lines(voice_fmt.THEIRS)[0].text == "fine"
    assert voice_fmt.render(v) == text


# -- burst mode -------------------------------------------------------------------------
def test_burst_waits_for_quiet_and_each_message_restarts_the_wait():
    from heartcompass.talk.burst import Burst

    now = [100.0]
    burst = Burst(8.0, clock=lambda: now[0])
    assert burst.remaining() is None and not burst.due()
    burst.add("hey")
    now[0] += 5
    assert not burst.due() and burst.remaining() == 3.0
    burst.add("you there?")          # restarts the wait
    now[0] += 5
    assert not burst.due() and burst.remaining() == 3.0
    now[0] += 3
    assert burst.due() and burst.take() == ["hey", "you there?"]
    assert burst.remaining() is None and not burst.due()


def test_a_burst_is_logged_as_typed_and_answered_once(example_ws, fake_llm):
    from heartcompass.talk.chat import ChatSession
    from heartcompass.store.people import resolve
    from conftest import log_entries

    session = ChatSession(example_ws, resolve(example_ws, "alice"), fake_llm)
    session.hold("hey")
    session.hold("guess what")
    session.hold("I got the job!!")
    assert [e.text for e in log_entries(example_ws, "alice")][-3:] == ["hey", "guess what", "I got the job!!"]
    fake_llm.enqueue("no way!!|||tell me everything")
    replies = [e.text for e in session.reply() if e.kind == "message"]
    assert replies == ["no way!!", "tell me everything"]
    assert fake_llm.purposes == ["chat"]
    last_user = fake_llm.request("chat").prompt
    assert last_user == "hey\nguess what\nI got the job!!"


def test_voice_benchmark_names_the_speakers_when_me_or_them_is_wrong(tmp_path):
    """With the defaults (--them Alice --me Lei) on a chat between other
    people, it ended in an IndexError traceback inside iqr()."""
    import subprocess
    import sys
    from pathlib import Path

    export = tmp_path / "chat.txt"
    export.write_text("".join(f"0{d}/03/2024, 10:0{i} - {who}: hi {d}{i}\n" for d in range(1, 9)
                              for i, who in enumerate(("王磊", "小雨", "小雨"))), encoding="utf-8")
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "voice.py"
    run = subprocess.run([sys.executable, str(script), str(export)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "--them 'Alice' and --me 'Lei': no such speaker" in run.stderr and "小雨, 王磊" in run.stderr


def test_a_quote_keeps_no_terminal_controls_or_bidi_overrides(example_cli: Runner):
    example_cli("quote", "alice", "q \x1b[31mred\u202e done")
    text = (example_cli.ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")
    assert "\x1b" not in text and "\u202e" not in text and "q red done" in text
    subject = subjects(example_cli.ws)[0]
    assert subject.startswith("quote(alice):") and "\x1b" not in subject and "\u202e" not in subject
