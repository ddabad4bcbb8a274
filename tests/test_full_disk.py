"""A full disk: said in words, what was typed and not saved is given back to
copy, and no empty or half log is left behind."""

from __future__ import annotations

import errno
import os

import pytest

from conftest import Runner, subjects


@pytest.fixture
def full_disk(monkeypatch):
    real = os.write

    def write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".md"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr("heartcompass.formats.dailylog.os.write", write)


@pytest.mark.parametrize("args, typed", [(["chat", "alice", "-m", "are you packing yet?"], "are you packing yet?"),
                                         (["chat", "alice", "-m", "/note 她搬去京都了"], "她搬去京都了")])
def test_a_message_the_full_disk_did_not_take_is_given_back(example_cli: Runner, fake_llm, full_disk, args, typed):
    before = subjects(example_cli.ws)
    result = example_cli(*args, ok=False)
    assert result.exit_code == 1 and "the disk is full" in result.output
    assert f"here it is to copy: {typed}" in result.output and "Traceback" not in result.output
    logs = example_cli.ws.people_dir / "alice" / "logs"
    assert not logs.exists() or not list(logs.iterdir())  # no empty day log left behind
    assert subjects(example_cli.ws) == before


def test_a_write_that_fails_after_its_open_is_named_not_a_traceback(example_cli: Runner, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")  # no file name: it failed at a flush

    monkeypatch.setattr("heartcompass.store.lifecycle.add_person", full)
    result = example_cli("person", "add", "Zed", "--yes", ok=False)
    assert result.exit_code == 1 and "the disk is full" in result.output and "Traceback" not in result.output
