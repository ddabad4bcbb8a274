"""A note the gardener has not read yet reaches the next prompt as pending,
and only such a note (issue 29: an old told note was shown as pending when
the check of its tag broke): what `tell` already applied (tagged told, or
marked applied), a note with an as-of date, a relayed coach note and the
screenshots placeholder are not the user's pending words."""

from __future__ import annotations

from heartcompass.formats import dailylog
from heartcompass.memory import user_side
from heartcompass.store import clock
from heartcompass.store.people import resolve


def test_a_told_or_dated_note_is_not_pending_and_a_plain_one_is(example_ws):
    person = resolve(example_ws, "alice")
    now = clock.now(example_ws)
    day = now.date()
    path = dailylog.log_path(person.dir, day)
    dailylog.append(path, dailylog.Entry("09:00:00", "note", "she moved to Berlin", ["told"]), day)
    dailylog.append(path, dailylog.Entry("09:00:01", "note", "she was born in Lyon", ["as-of 2020-01-01"]), day)
    dailylog.append(path, dailylog.Entry("09:00:02", "note", "(screenshots)"), day)
    dailylog.append(path, dailylog.Entry("09:00:03", "note", "she  adopted\na cat"), day)
    dailylog.append(path, dailylog.Entry("09:00:04", "me", "how is the cat?"), day)
    assert user_side.pending_notes(example_ws, person, now) == [
        f"- she adopted a cat (noted {day} 09:00, not yet gardened)"]
