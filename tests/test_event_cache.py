"""A big EVENTS.md read through its cache (memory/event_cache.py): the
prompt is the one the parsed file gives, to the byte, in English and
Chinese, after hand edits; a cache that is stale, cut short or changed in
place is never trusted."""

from __future__ import annotations

import dataclasses
import datetime as dt
import errno
import os
import random
from pathlib import Path

import pytest

from heartcompass.errors import FormatError
from heartcompass.formats import events as events_fmt
from heartcompass.memory import context, event_cache, event_pool, relevance_index
from heartcompass.store.creation import copy_template
from heartcompass.store.people import create
from heartcompass.store.workspace import Workspace

NOW = dt.datetime(2026, 12, 2, 20, 0, tzinfo=dt.timezone.utc)
WORDS = ("hiked", "dinner", "called mom", "moved", "夜市", "聊天", "birthday party", "parties", "Kyoto", "her cat",
         "一起散步", "她的猫很可爱", "吃糖葫芦", "哈哈哈", "İstanbul", "pottery")
MESSAGES = (None, "remember the rainbow sidewalk?", "how was the pottery class? 还想吃糖葫芦吗", "猫呢", "dinner party",
            "哈哈 Kyoto")


def _line(rnd: random.Random, i: int) -> str:
    day = NOW.date() - dt.timedelta(days=rnd.randint(-30, 3000))  # some to come: all of them "today" in standing
    when = rnd.choice([day.isoformat()] * 6 + [day.isoformat()[:7], day.isoformat()[:4], "~" + day.isoformat()])
    weight = rnd.choice(["", "w0.5 · ", "w0.9 · ", "w0.1 · ", f"w{rnd.random():.2f} · "])
    text = " ".join(rnd.choices(WORDS, k=rnd.randint(1, 9)))
    if i % 97 == 0:
        text += " on the rainbow sidewalk"
    return f"- {when} · {weight}{text}" + rnd.choice(["", " (told)", " (log 2026-11-28)"])


@pytest.fixture
def alice(tmp_path, monkeypatch):
    root = tmp_path / "brain"
    root.mkdir()
    copy_template(root)
    ws = Workspace(root)
    person = create(ws, "Alice", "friend", mbti="ENFP", about="Grew up in Taipei.")
    rnd = random.Random(7)
    lines = [_line(rnd, i) for i in range(600)]
    person.events_path.write_text("# Events — Alice\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(event_cache, "SMALLEST", 0)  # every EVENTS.md is a big one here
    return ws, person


def _build(ws, person, about, cached: bool, monkeypatch) -> dict:
    monkeypatch.setattr(event_cache, "SMALLEST", 0 if cached else 10 ** 12)
    built = context.build(ws, person, NOW, **({"about": about} if about else {}))
    return dataclasses.asdict(built)


def _same_either_way(ws, person, monkeypatch) -> list[dict]:
    prompts = []
    for about in MESSAGES:
        plain = _build(ws, person, about, False, monkeypatch)
        assert _build(ws, person, about, True, monkeypatch) == plain, about
        prompts.append(plain)
    return prompts


def test_the_cached_prompt_is_the_parsed_files_to_the_byte_in_english_and_chinese(alice, monkeypatch):
    ws, person = alice
    prompts = _same_either_way(ws, person, monkeypatch)
    cache = event_cache.path_for(ws.state_dir, person.slug)
    assert cache.is_file() and cache.parent.parent == ws.root / ".heartcompass"  # git-ignored local state
    # the prompts hold events, and the messages chose some: the comparison compared something
    assert all("## Things that happened" in p["system"] and p["left_out"]["events"] for p in prompts)
    assert prompts[1]["relevant"] > 0 and "rainbow sidewalk" in prompts[1]["system"]
    assert prompts[2]["relevant"] > 0 and prompts[3]["relevant"] > 0


def test_a_hand_edit_in_place_of_the_same_length_is_seen_through_the_cache(alice, monkeypatch):
    ws, person = alice
    _same_either_way(ws, person, monkeypatch)
    text = person.events_path.read_text(encoding="utf-8")
    first = text.index("\n- ") + 1
    line = text[first:text.index("\n", first)]
    edited = line[:2] + "2026-12-01 · w1.0 · 吃糖葫芦在夜市" + line[2 + len("2026-12-01 · w1.0 · 吃糖葫芦在夜市"):]
    assert len(edited) == len(line) and edited != line
    person.events_path.write_text(text.replace(line, edited, 1), encoding="utf-8")
    prompts = _same_either_way(ws, person, monkeypatch)
    assert events_fmt.parse_line(edited, "EVENTS.md", 1).render() in prompts[0]["system"]
    # then lines added at the top and some removed, by hand
    rnd = random.Random(3)
    lines = person.events_path.read_text(encoding="utf-8").splitlines()
    added = "- 2026-12-02 · w1.0 · 第一次一起去看海 at Enoshima"
    person.events_path.write_text("\n".join([*lines[:2], added, *lines[2:300:2], *(_line(rnd, 0) for _ in range(50))])
                                  + "\n", encoding="utf-8")
    prompts = _same_either_way(ws, person, monkeypatch)
    assert added in prompts[0]["system"]


def _cache(alice, monkeypatch) -> tuple[Path, dict]:
    ws, person = alice
    plain = _build(ws, person, MESSAGES[2], False, monkeypatch)
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == plain
    return event_cache.path_for(ws.state_dir, person.slug), plain


@pytest.mark.parametrize("damage", ["a byte changed in place", "cut short", "not a cache", "another file's",
                                    "another format's"])
def test_a_broken_or_stale_cache_is_never_trusted(alice, monkeypatch, damage):
    ws, person = alice
    path, plain = _cache(alice, monkeypatch)
    data = bytearray(path.read_bytes())
    if damage == "a byte changed in place":
        data[-200] ^= 0x01  # same length: only its checksum tells
    elif damage == "cut short":
        data = data[:len(data) // 2]
    elif damage == "not a cache":
        data = bytearray(b"\x00garbage\n" * 10)
    path.write_bytes(bytes(data))
    if damage == "another file's":  # a whole cache, for other events: the prompt must not be built from it
        other = create(ws, "Bob", "friend")
        other.events_path.write_text("# Events\n\n" + "- 2026-11-30 · w1.0 · Bob's only event, a ski trip\n" * 30,
                                     encoding="utf-8")
        _build(ws, other, None, True, monkeypatch)
        path.write_bytes(event_cache.path_for(ws.state_dir, other.slug).read_bytes())
    if damage == "another format's":  # kept by a version that kept other columns: rebuilt, not read
        monkeypatch.setattr(event_cache, "FORMAT", event_cache.FORMAT + 1)
    written = path.read_bytes()
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == plain
    assert "ski trip" not in plain["system"] and "Alice" in plain["system"]
    broken = path.with_suffix(".broken")
    assert broken.exists() == (damage not in ("another file's", "another format's"))  # stale: rebuilt over
    assert path.read_bytes() != written and path.read_bytes().startswith(event_cache.MAGIC)  # rebuilt
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == plain


def test_a_cache_that_cannot_be_saved_still_gives_the_prompt(alice, monkeypatch):
    ws, person = alice
    plain = _build(ws, person, MESSAGES[1], False, monkeypatch)
    path = event_cache.path_for(ws.state_dir, person.slug)
    path.parent.mkdir(parents=True)
    path.mkdir()  # a folder where the cache goes: it cannot be written, nor read
    assert _build(ws, person, MESSAGES[1], True, monkeypatch) == plain
    assert "rainbow sidewalk" in plain["system"]


def test_a_big_events_file_that_does_not_parse_is_the_same_error_with_the_cache(alice, monkeypatch):
    ws, person = alice
    with person.events_path.open("a", encoding="utf-8") as fh:
        fh.write("- 2026-13-40 · not a real date\n")
    errors = []
    for cached in (False, True):
        with pytest.raises(FormatError) as caught:
            _build(ws, person, None, cached, monkeypatch)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "2026-13-40" in errors[0]
    assert not event_cache.path_for(ws.state_dir, person.slug).exists()


def test_only_an_events_file_of_smallest_bytes_or_more_is_cached(alice, monkeypatch):
    """Below SMALLEST, parsing costs less than a cache: none is written."""
    ws, person = alice
    size = person.events_path.stat().st_size
    path = event_cache.path_for(ws.state_dir, person.slug)
    monkeypatch.setattr(event_cache, "SMALLEST", size + 1)
    small = context.build(ws, person, NOW)
    assert not path.exists() and "## Things that happened" in small.system
    monkeypatch.setattr(event_cache, "SMALLEST", size)
    assert context.build(ws, person, NOW).system == small.system
    assert path.is_file()


def test_a_warm_prompt_is_built_from_the_cache_without_parsing_events_md_again(alice, monkeypatch):
    """What the cache is for: once built, the next prompt neither parses
    nor indexes EVENTS.md (a cache read back wrongly would be rebuilt, and
    the prompt would only look right)."""
    ws, person = alice
    first = _build(ws, person, MESSAGES[2], True, monkeypatch)
    path = event_cache.path_for(ws.state_dir, person.slug)
    kept = path.read_bytes()

    def parse_again(*args, **kwargs):
        raise AssertionError("EVENTS.md parsed again")

    monkeypatch.setattr(event_cache.events_fmt, "parse", parse_again)
    for about in MESSAGES:
        warm = _build(ws, person, about, True, monkeypatch)
        assert "## Things that happened" in warm["system"]
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == first and first["relevant"] > 0
    assert path.read_bytes() == kept and not path.with_suffix(".broken").exists()


def test_an_events_file_that_is_not_utf8_names_itself_with_the_cache_or_without(alice, monkeypatch):
    ws, person = alice
    person.events_path.write_bytes(person.events_path.read_bytes() + b"- 2026-11-30 \xff\xfe broken bytes\n")
    for cached in (False, True):
        with pytest.raises(FormatError) as caught:
            _build(ws, person, None, cached, monkeypatch)
        assert "EVENTS.md" in str(caught.value) and "not UTF-8" in str(caught.value), cached


def test_a_link_in_place_of_the_cache_is_set_aside_and_not_followed(alice, monkeypatch, tmp_path):
    ws, person = alice
    path, plain = _cache(alice, monkeypatch)
    elsewhere = tmp_path / "elsewhere.events"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == plain
    assert path.with_suffix(".broken").is_symlink() and not path.is_symlink() and path.is_file()


@pytest.mark.parametrize("few, big_run", [(0, 1), (0, 40), (10 ** 9, 1)])
def test_the_cached_prompt_is_the_parsed_files_whichever_way_the_walk_goes(alice, monkeypatch, few, big_run):
    """At 100,000 events a common word's lines are read through bitmaps of
    its lines and of the groups they are in, and its events walked group by
    group: the cache keeps those per group, and the prompt is the parsed
    file's, to the byte, made to go that way on 600 events."""
    monkeypatch.setattr(event_pool, "FEW_NAMED", few)
    monkeypatch.setattr(relevance_index, "BIG_RUN", big_run)
    ws, person = alice
    prompts = _same_either_way(ws, person, monkeypatch)
    assert prompts[2]["relevant"] > 0 and "rainbow sidewalk" in prompts[1]["system"]
    cached = event_cache.load(ws.state_dir, person.slug, person.events_path.read_bytes(), person.events_path)
    assert len(cached.table.groups) > 8 and cached.terms.groups == len(cached.table.groups)  # kept, not rebuilt


def test_a_cache_that_fails_to_read_is_set_aside_and_the_prompt_goes_on(alice, monkeypatch):
    """An I/O error reading the cache (a failing disk) is no error of the
    prompt's: the cache is set aside as .broken and rebuilt."""
    ws, person = alice
    path, plain = _cache(alice, monkeypatch)
    written = path.read_bytes()

    class Failing:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            raise OSError(errno.EIO, "Input/output error")

    class FailingReads:  # event_cache's os, but its reads fail
        def __getattr__(self, name):
            return getattr(os, name)

        def fdopen(self, fd, *args, **kwargs):
            return Failing()

    monkeypatch.setattr(event_cache, "os", FailingReads())
    assert _build(ws, person, MESSAGES[2], True, monkeypatch) == plain and plain["relevant"] > 0
    assert path.with_suffix(".broken").read_bytes() == written  # set aside as it was
    assert path.read_bytes().startswith(event_cache.MAGIC)  # and rebuilt
