"""One clock: every date we write is the user's date, in user.timezone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from heartcompass.store import clock
from heartcompass.formats import voice as voice_fmt
from heartcompass.store.people import resolve
from heartcompass.store.workspace import Workspace

# Kiritimati is UTC+14 and Pago Pago UTC-11: at any moment one of them is on
# another calendar day than this machine (UTC here), so the test always bites.
ZONES = ("Pacific/Kiritimati", "Pacific/Pago_Pago")


def users_date(zone: str) -> dt.date:
    return dt.datetime.now(ZoneInfo(zone)).date()


@pytest.mark.parametrize("zone", ZONES)
def test_clock_reads_the_users_zone(cli, zone):
    cli("config", "set", "user.timezone", zone)
    ws = Workspace(cli.ws.root)  # the settings as now on disk
    assert clock.today(ws) == users_date(zone)
    assert clock.now(ws).utcoffset() == dt.datetime.now(ZoneInfo(zone)).utcoffset()


def test_machine_zone_when_unset(ws):
    assert clock.now(ws).tzinfo is not None and clock.today(ws) == dt.datetime.now().astimezone().date()


@pytest.mark.parametrize("zone", ZONES)
def test_quote_chat_and_gardener_use_the_users_date(example_cli, fake_llm, zone):
    example_cli("config", "set", "user.timezone", zone)
    day = users_date(zone)
    example_cli("quote", "alice", "see you soon")
    alice = resolve(example_cli.ws, "alice")
    assert voice_fmt.load(alice.dir / voice_fmt.FILENAME).lines(voice_fmt.THEIRS)[0].source == f"quote {day}"

    fake_llm.enqueue("hi!")
    example_cli("chat", "alice", "-m", "hello")
    assert (alice.logs_dir / f"{day}.md").exists()

    from heartcompass.memory.gardener import Gardener

    assert Gardener(Workspace(example_cli.ws.root), lambda: fake_llm).today == day
