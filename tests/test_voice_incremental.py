"""An import's VOICE.md refresh reads only what the logs gained (issue 21),
and comes out as a refresh from every log would."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import Runner, git
from heartcompass.formats import dailylog
from heartcompass.memory import voice, voice_tally

FIRST = """01/11/2026, 09:00 - 小爱: 早安！
01/11/2026, 09:00 - 小爱: 昨晚睡得好吗？
01/11/2026, 09:05 - Lei: 还行 you?
01/11/2026, 09:06 - 小爱: 哈哈哈 barely 😂
01/11/2026, 09:30 - 小爱: 好呀
02/11/2026, 20:00 - 小爱: 周六有空吗？
02/11/2026, 20:02 - Lei: maybe! what's up
02/11/2026, 20:03 - 小爱: 去爬山 🥾
03/11/2026, 08:00 - 小爱: OK ok
"""
# The same chat exported later from another phone: the same days, more lines, new days; a line said again
# (counted twice), one newer wording of it, and a reply that continues the run the first import ended with.
SECOND = FIRST.replace("03/11/2026, 08:00 - 小爱: OK ok\n", "") + """01/11/2026, 09:31 - 小爱: 好呀
02/11/2026, 20:05 - 小爱: 带上水
03/11/2026, 08:00 - 小爱: OK ok
03/11/2026, 08:01 - 小爱: ok, OK!
05/11/2026, 21:00 - 小爱: 晚安 🌙
05/11/2026, 21:00 - Lei: 晚安
"""


def _import(cli: Runner, tmp_path, text: str, name: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    cli("import", "alice", str(path), "--format", "whatsapp", "--me", "Lei")


@pytest.fixture
def xiaoai(example_cli: Runner) -> Runner:
    return example_cli  # Alice Chen, alias 小爱, in the example workspace


def _names(cli: Runner) -> list[str]:
    from heartcompass.store.people import Person

    return Person("alice", cli.ws.people_dir / "alice").load_profile().names()


def _tally(cli: Runner, private: list[str] | None = None) -> voice_tally.Tally:
    kept = voice.tally_path(cli.ws, "alice")
    tally = voice_tally.Tally.load(kept.read_text(encoding="utf-8"), _names(cli), private or [])
    assert tally is not None
    return tally


def _rebuilt(cli: Runner) -> voice_tally.Tally:
    return voice_tally.rebuild(cli.ws.people_dir / "alice", _names(cli), [])


def _same(a: voice_tally.Tally, b: voice_tally.Tally) -> None:
    assert a.them == b.them and a.speakers == b.speakers
    assert {k: vars(c) for k, c in a.theirs.items()} == {k: vars(c) for k, c in b.theirs.items()}
    assert {k: vars(c) for k, c in a.mine.items()} == {k: vars(c) for k, c in b.mine.items()}
    assert a.runs == b.runs and a.replies() == b.replies()


def test_a_refresh_after_two_imports_equals_one_from_every_log(xiaoai: Runner, tmp_path):
    person_dir = xiaoai.ws.people_dir / "alice"
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    _import(xiaoai, tmp_path, SECOND, "b.txt")
    incremental = _tally(xiaoai)
    full = _rebuilt(xiaoai)
    _same(incremental, full)
    assert incremental.theirs[voice_tally.key_of("ok ok")].count == 2      # counted across the two imports
    assert incremental.theirs[voice_tally.key_of("ok ok")].text == "ok, OK!"  # the newest wording
    assert incremental.theirs[voice_tally.key_of("好呀")].count == 2
    voice_md = (person_dir / "VOICE.md").read_bytes()
    assert not voice.refresh(person_dir, _names(xiaoai))  # a rebuild from every log writes nothing new
    assert (person_dir / "VOICE.md").read_bytes() == voice_md
    assert "晚安 🌙" in voice_md.decode("utf-8")


def test_an_import_in_day_order_tallies_its_lines_as_it_writes_them_and_reads_no_log(xiaoai: Runner, tmp_path,
                                                                                     monkeypatch):
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    opened: list[str] = []
    real = voice_tally.read_text
    monkeypatch.setattr(voice_tally, "read_text", lambda path: opened.append(path.name) or real(path))
    _import(xiaoai, tmp_path, FIRST + "03/11/2026, 08:05 - 小爱: 在吗\n", "c.txt")
    assert opened == []  # no log read back: the tally was fed the line as it was appended
    tally = _tally(xiaoai)
    assert voice_tally.key_of("在吗") in tally.theirs  # ... and it has it
    _same(tally, _rebuilt(xiaoai))


def test_an_import_out_of_day_order_reads_only_the_logs_it_added_to(xiaoai: Runner, tmp_path, monkeypatch):
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    opened: list[str] = []
    real = voice_tally.read_text
    monkeypatch.setattr(voice_tally, "read_text", lambda path: opened.append(path.name) or real(path))
    _import(xiaoai, tmp_path, "03/11/2026, 08:05 - 小爱: 在吗\n" + FIRST, "c.txt")  # the 3rd before the 1st
    assert set(opened) == {"2026-11-03.md"}  # the two other days' logs were not opened
    assert voice_tally.key_of("在吗") in _tally(xiaoai).theirs
    _same(_tally(xiaoai), _rebuilt(xiaoai))


def test_a_log_changed_otherwise_than_appended_to_is_read_again_whole(xiaoai: Runner, tmp_path):
    person_dir = xiaoai.ws.people_dir / "alice"
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    log = person_dir / "logs" / "2026-11-01.md"
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace("早安！", "早上好"), encoding="utf-8")  # same length, rewritten by hand
    git(xiaoai.ws, "commit", "-qam", "a hand edit of a log")
    _import(xiaoai, tmp_path, FIRST + "05/11/2026, 21:00 - 小爱: 晚安\n", "d.txt")
    tally = _tally(xiaoai)
    assert voice_tally.key_of("早上好") in tally.theirs  # the edited line, read again
    _same(tally, _rebuilt(xiaoai))


def test_undo_of_an_import_then_a_new_import_matches_a_rebuild(xiaoai: Runner, tmp_path):
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    _import(xiaoai, tmp_path, SECOND, "b.txt")
    xiaoai("undo")  # the second import's lines and days go away
    _import(xiaoai, tmp_path, FIRST + "06/11/2026, 10:00 - 小爱: 早\n", "e.txt")
    tally = _tally(xiaoai)
    assert voice_tally.key_of("晚安 🌙") not in tally.theirs
    _same(tally, _rebuilt(xiaoai))


def test_a_damaged_tally_or_new_private_words_mean_a_rebuild(xiaoai: Runner, tmp_path):
    person_dir = xiaoai.ws.people_dir / "alice"
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    voice.tally_path(xiaoai.ws, "alice").write_text("{not json", encoding="utf-8")
    _import(xiaoai, tmp_path, SECOND, "b.txt")
    _same(_tally(xiaoai), _rebuilt(xiaoai))
    path = person_dir / "VOICE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("private: []", "private: [爬山]"), encoding="utf-8")
    _import(xiaoai, tmp_path, SECOND + "07/11/2026, 10:00 - 小爱: 明天见\n", "f.txt")
    assert "去爬山" not in path.read_text(encoding="utf-8")
    assert voice_tally.key_of("去爬山 🥾") not in _tally(xiaoai, ["爬山"]).theirs


def test_a_hand_edited_voice_file_is_kept_by_an_incremental_refresh(xiaoai: Runner, tmp_path):
    person_dir = xiaoai.ws.people_dir / "alice"
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    path = person_dir / "VOICE.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## Their words\n\n", '## Their words\n\n- "嘿嘿嘿"\n'),
                    encoding="utf-8")
    _import(xiaoai, tmp_path, SECOND, "b.txt")
    assert '- "嘿嘿嘿"\n' in path.read_text(encoding="utf-8")
    assert "edit(alice): by hand" in git(xiaoai.ws, "log", "--format=%s")


def test_runs_beyond_the_newest_are_left_out_as_a_rebuild_leaves_them(tmp_path, monkeypatch):
    monkeypatch.setattr(voice_tally, "MAX_RUNS", 3)
    person_dir = tmp_path / "p"
    tally = voice_tally.Tally(["Alice"], [])
    for i, day in enumerate(dt.date(2026, 1, d) for d in range(1, 6)):
        entries = [dailylog.Entry("10:00:00", "import:Alice", f"hi {i}"), dailylog.Entry("10:01:00", "import:me", "yo"),
                   dailylog.Entry("10:02:00", "import:Alice", f"晚安 {i}")]
        dailylog.append_many(dailylog.log_path(person_dir, day), entries, day)
    tally = voice_tally.rebuild(person_dir, ["Alice"], [])
    assert len(tally.replies()) == 3 and [d for d, s in tally.runs.items() if s is None] == ["2026-01-01",
                                                                                               "2026-01-02",
                                                                                               "2026-01-03"]
    day = dt.date(2026, 1, 2)  # an old day gains lines: its runs stay out, its lines still count
    dailylog.append_many(dailylog.log_path(person_dir, day), [dailylog.Entry("11:00:00", "import:Alice", "hi 1")], day)
    assert voice_tally.update(tally, person_dir)
    _same(tally, voice_tally.rebuild(person_dir, ["Alice"], []))
    assert tally.theirs[voice_tally.key_of("hi 1")].count == 2


def test_a_day_taken_back_by_undo_leaves_the_tally(xiaoai: Runner, tmp_path):
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    _import(xiaoai, tmp_path, "09/11/2026, 10:00 - 小爱: 新的一天\n09/11/2026, 10:01 - Lei: 嗯\n", "g.txt")  # a new day only
    xiaoai("undo")
    _import(xiaoai, tmp_path, FIRST + "03/11/2026, 09:00 - 小爱: 嗯嗯\n", "h.txt")
    tally = _tally(xiaoai)
    assert voice_tally.key_of("新的一天") not in tally.theirs
    _same(tally, _rebuilt(xiaoai))


def test_someone_new_who_changes_whose_lines_are_theirs_means_a_rebuild(xiaoai: Runner, tmp_path):
    # "Ally" is no name of hers, but the only one besides you: hers, until "小爱" (her alias) speaks too.
    _import(xiaoai, tmp_path, "01/11/2026, 09:00 - Ally: 我是谁\n01/11/2026, 09:01 - Lei: 你是 Ally\n", "i.txt")
    assert voice_tally.key_of("我是谁") in _tally(xiaoai).theirs
    _import(xiaoai, tmp_path, "02/11/2026, 09:00 - 小爱: 我是小爱\n02/11/2026, 09:01 - Lei: 好\n", "j.txt")
    tally = _tally(xiaoai)
    assert voice_tally.key_of("我是谁") not in tally.theirs and tally.them == {"import:小爱"}
    _same(tally, _rebuilt(xiaoai))


def test_a_linked_tally_folder_is_neither_read_nor_written(xiaoai: Runner, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "alice.json").write_text("{}", encoding="utf-8")
    state = xiaoai.ws.root / ".heartcompass"
    state.mkdir(exist_ok=True)
    (state / "voice").symlink_to(outside)
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    assert [p.name for p in outside.iterdir()] == ["alice.json"]
    assert (outside / "alice.json").read_text(encoding="utf-8") == "{}"
    assert "去爬山 🥾" in (xiaoai.ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")


def test_a_day_longer_than_a_batch_is_written_in_parts_and_its_voice_read_from_the_logs(xiaoai: Runner, tmp_path,
                                                                                       monkeypatch):
    """Memory stays bounded on a day of more lines than FLUSH_LINES: held lines
    are written as they are, and the voice, not fed a day in parts, reads
    the logs after, as it did before the feed."""
    from heartcompass.intake import importers

    monkeypatch.setattr(importers, "FLUSH_LINES", 3)  # 1 November has five messages
    opened: list[str] = []
    real = voice_tally.read_text
    monkeypatch.setattr(voice_tally, "read_text", lambda path: opened.append(path.name) or real(path))
    _import(xiaoai, tmp_path, FIRST, "a.txt")
    entries = [e.text for day in dailylog.log_dates(xiaoai.ws.people_dir / "alice")
               for e in dailylog.load(xiaoai.ws.people_dir / "alice" / "logs" / f"{day}.md")]
    assert entries == ["早安！", "昨晚睡得好吗？", "还行 you?", "哈哈哈 barely 😂", "好呀", "周六有空吗？",
                       "maybe! what's up", "去爬山 🥾", "OK ok"]  # every line, once, in order
    assert "2026-11-01.md" in opened  # the logs were read for the voice
    _same(_tally(xiaoai), _rebuilt(xiaoai))
