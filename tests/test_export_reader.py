"""The one reader of header-then-body exports (WhatsApp, iMessage, Signal,
WeChat TXT, QQ): one message at a time, each with its header's line number."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from heartcompass.intake.exports import Context, Report, parse, reader
from heartcompass.intake.exports.common import Source

_HEAD = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (.+)$")
CTX = Context(dt.date(2026, 12, 3), dt.timezone.utc)


def _source(tmp_path, text: str) -> Source:
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    return Source(path)


def test_records_keep_each_headers_line_number_and_report_stray_lines(tmp_path):
    text = "前言一行\n\n2024-01-01 09:00:00 小爱\n早安\n第二行\n\n2024-01-01 09:01:00 磊\n在吗\n"
    report = Report()
    got = [(n, m[2], body) for n, m, body in reader.records(_source(tmp_path, text), _HEAD.match, report, "not a header")]
    assert got == [(3, "小爱", ["早安", "第二行", ""]), (7, "磊", ["在吗"])]
    assert report.bad == [(1, "not a header: '前言一行'")]


def test_a_line_before_the_first_header_may_be_taken_by_the_format(tmp_path):
    text = "消息记录\n2024-01-01 09:00:00 小爱\nhi\n"
    report = Report()
    seen: list[tuple[int, str]] = []
    list(reader.records(_source(tmp_path, text), _HEAD.match, report, "x", lambda n, line: bool(seen.append((n, line))) or True))
    assert seen == [(1, "消息记录")] and report.bad == []


def test_a_runaway_message_is_cut_and_reported_once(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_BODY_LINES", 5)
    text = "2024-01-01 09:00:00 小爱\n" + "".join(f"行{i}\n" for i in range(50)) + "2024-01-01 09:01:00 磊\nok\n"
    report = Report()
    got = list(reader.records(_source(tmp_path, text), _HEAD.match, report, "x"))
    assert [len(body) for _, _, body in got] == [6, 1]  # five lines and the cut's blank
    assert report.bad_count == 1 and report.bad[0][0] == 7 and "line 1 goes on past" in report.bad[0][1]
    assert got[1][0] == 52


@pytest.mark.parametrize("fmt, text, first", [
    ("wechat", "2024-01-01 09:00:00 小爱\n早安\n\n2024-13-01 09:01:00 磊\n坏的\n\n2024-01-01 09:02:00 磊\n在吗\n", 4),
    ("qq", "消息记录\n消息对象:小爱\n2024-01-01 09:00:00 小爱(12345678)\n早安\n2024-01-01 25:01:00 磊(87654321)\n坏的\n"
           "2024-01-01 09:02:00 磊(87654321)\n在吗\n", 5),
    ("signal", "[2024-01-01 09:00] 小爱: 早安\n[2024-01-01 29:01] 磊: 坏的\n续行\n[2024-01-01 09:02] 磊: 在吗\n", 2),
    ("imessage", "Jan 01, 2024  9:00:00 AM\n+15558675309\n早安\n\nJan 01, 2024  13:01:00 PM\nMe\n坏的\n\n"
                 "Jan 01, 2024  9:02:00 AM\nMe\n在吗\n", 5),
])
def test_a_bad_header_skips_its_whole_message_once_and_the_rest_comes_in(tmp_path, fmt, text, first):
    export = parse(fmt, _source(tmp_path, text), CTX)
    texts = [m.text for m in export.messages()]
    assert texts == ["早安", "在吗"]
    assert export.report.bad_count == 1 and export.bad[0][0] == first


@pytest.mark.parametrize("fmt, text", [
    ("signal", "[2024-01-01 09:00] 小爱: 第一段\n\n第二段\n\n[2024-01-01 09:01] 磊: ok\n"),
    ("imessage", "Jan 01, 2024  9:00:00 AM\n+15558675309\n第一段\n\n第二段\n\nJan 01, 2024  9:01:00 AM\nMe\nok\n"),
    ("wechat", "2024-01-01 09:00:00 小爱\n第一段\n\n第二段\n\n2024-01-01 09:01:00 磊\nok\n"),
    ("qq", "消息记录\n消息对象:小爱\n2024-01-01 09:00:00 小爱(12345678)\n第一段\n\n第二段\n\n"
           "2024-01-01 09:01:00 磊(87654321)\nok\n"),
])
def test_a_message_of_paragraphs_keeps_its_blank_line_and_loses_the_one_after_it(tmp_path, fmt, text):
    assert [m.text for m in parse(fmt, _source(tmp_path, text), CTX).messages()] == ["第一段\n\n第二段", "ok"]
