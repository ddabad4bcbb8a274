"""A WhatsApp export is read once: its day order (D/M or M/D) is guessed from
the first messages and checked against the whole file; a wrong guess, or a
broken line met while guessing, reads it again, so no message is ever dated
or refused by a guess. The spill gives the write the same messages."""

from __future__ import annotations

import datetime as dt

import pytest

from heartcompass.errors import FormatError
from heartcompass.intake.exports import Context, parse, whatsapp
from heartcompass.intake.exports.common import Source

CTX = Context(dt.date(2026, 12, 3), dt.timezone.utc)
# 01/02 and 02/02 could be either order; 05/13 only month first: the first two guess wrong.
LATE_MONTH_FIRST = ("01/02/2023, 09:00 - Alice: one\n01/02/2023, 09:05 - Lei: two\n02/02/2023, 10:00 - Alice: three\n"
                    "05/13/2023, 11:00 - Lei: four\n")


def _reads(tmp_path, text: str, monkeypatch) -> tuple[list[tuple[dt.datetime, str]], int, object]:
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    source = Source(path)
    reads = []
    real = Source.lines

    def counted(self):
        reads.append(1)
        return real(self)

    monkeypatch.setattr(Source, "lines", counted)
    export = parse("whatsapp", source, CTX)
    return [(m.when, m.text) for m in export.messages()], len(reads), export


def test_a_wrong_guess_of_the_day_order_is_read_again_in_the_whole_files_order(tmp_path, monkeypatch):
    monkeypatch.setattr(whatsapp, "GUESS_AFTER", 2)
    got, reads, export = _reads(tmp_path, LATE_MONTH_FIRST, monkeypatch)
    assert got == [(dt.datetime(2023, 1, 2, 9, 0), "one"), (dt.datetime(2023, 1, 2, 9, 5), "two"),
                   (dt.datetime(2023, 2, 2, 10, 0), "three"), (dt.datetime(2023, 5, 13, 11, 0), "four")]
    assert reads == 2 and export.total == 4 and not export.report.bad  # guessed day first, read again


def test_a_right_guess_reads_the_export_once(tmp_path, monkeypatch):
    monkeypatch.setattr(whatsapp, "GUESS_AFTER", 2)
    text = "13/01/2023, 09:00 - Alice: one\n14/01/2023, 09:05 - Lei: two\n02/02/2023, 10:00 - Alice: three\n"
    got, reads, _ = _reads(tmp_path, text, monkeypatch)
    assert [when.date() for when, _ in got] == [dt.date(2023, 1, 13), dt.date(2023, 1, 14), dt.date(2023, 2, 2)]
    assert reads == 1


def test_a_small_file_is_dated_in_its_whole_order_without_guessing(tmp_path, monkeypatch):
    got, reads, _ = _reads(tmp_path, LATE_MONTH_FIRST, monkeypatch)  # fewer than GUESS_AFTER messages
    assert got[0][0] == dt.datetime(2023, 1, 2, 9, 0) and got[-1][0] == dt.datetime(2023, 5, 13, 11, 0)
    assert reads == 1


def test_a_broken_year_met_while_guessing_is_judged_in_the_whole_files_order(tmp_path, monkeypatch):
    """01/13/2099 is a broken date month first (the guess) but no date at all
    day first (what 25/01 makes the whole file): skipped and reported, as a
    read knowing the order from the start does, not a refused import."""
    monkeypatch.setattr(whatsapp, "GUESS_AFTER", 2)
    text = ("01/13/2023, 09:00 - Alice: one\n01/13/2099, 09:05 - Lei: broken\n02/02/2023, 10:00 - Alice: three\n"
            "25/01/2024, 11:00 - Lei: four\n")
    got, reads, export = _reads(tmp_path, text, monkeypatch)
    assert [t for _, t in got] == ["three", "four"]  # 01/13 is no date day first: skipped too
    assert [n for n, _ in export.bad] == [1, 2] and reads >= 2


def test_a_broken_year_is_still_refused_once_the_order_is_known(tmp_path, monkeypatch):
    monkeypatch.setattr(whatsapp, "GUESS_AFTER", 2)
    text = "13/01/2023, 09:00 - Alice: one\n14/01/2099, 09:05 - Lei: broken\n02/02/2023, 10:00 - Alice: three\n"
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        parse("whatsapp", Source(path), CTX)
    assert caught.value.line == 2 and "2099" in str(caught.value)


def test_the_spill_is_kept_in_the_workspace_and_leaves_nothing_behind(example_cli, tmp_path, monkeypatch):
    """The parsed messages wait in the workspace's state folder (a disk; /tmp
    may be memory), in a file no one can see or leave behind."""
    import tempfile

    from heartcompass.intake.exports import spill

    folders = []
    real = tempfile.TemporaryFile

    def recorded(*args, **kwargs):
        folders.append(kwargs.get("dir"))
        return real(*args, **kwargs)

    monkeypatch.setattr(spill.tempfile, "TemporaryFile", recorded)
    export = tmp_path / "chat.txt"
    export.write_text("13/01/2023, 09:00 - Alice Chen: one\n14/01/2023, 09:05 - Lei: two\n", encoding="utf-8")
    result = example_cli("import", "alice", str(export), "--me", "Lei")
    assert "Imported 2 messages" in result.output
    assert folders == [example_cli.ws.state_dir]
    assert not [p for p in example_cli.ws.state_dir.rglob("*") if "heartcompass-import" in p.name]


def test_the_spilled_messages_read_the_same_twice_and_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setattr("heartcompass.intake.exports.spill.BATCH", 2)  # several batches
    text = "".join(f"{13 + i}/01/2023, 09:0{i} - {'Alice' if i % 2 else 'Lei'}: line {i}\n" for i in range(7))
    _, _, export = _reads(tmp_path, text, monkeypatch)
    first, second = export.messages(), export.messages()
    pairs = list(zip(first, second))  # two reads at once share no file position
    assert [(a.text, b.text) for a, b in pairs] == [(f"line {i}", f"line {i}") for i in range(7)]
    assert [m.speaker for m in export.messages()] == ["Lei", "Alice"] * 3 + ["Lei"]
    assert pairs[3][0].when == dt.datetime(2023, 1, 16, 9, 3)
