"""The promises of formats/ tested on their pure functions (issue 29:
mutants that survived the suite): a thread `(until 2023-08)` is open to the
end of August; a file that does not parse says which line and why; an
unchanged file renders byte for byte; sections we add land where they
belong. No workspace, no git: texts in, values out."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from heartcompass.errors import FormatError
from heartcompass.formats import memory as memory_fmt

d = dt.date
MEMORY = Path("MEMORY.md")


def memory_text(threads: str = "", extra: str = "", meta: str = "budget_tokens: 6000\n") -> str:
    return (f"---\n{meta}---\n\n# Memory — Alice\n\n## Facts\n\n- Likes tea (hand)\n\n## From our chats\n\n"
            f"## Open threads\n\n{threads}\n## About me\n\n{extra}")


# -- until ------------------------------------------------------------------------------
@pytest.mark.parametrize("written, last_day", [
    ("(until 2023-08)", d(2023, 8, 31)), ("(until 2023-12)", d(2023, 12, 31)), ("(until 2024-02)", d(2024, 2, 29)),
    ("(until 2023-02)", d(2023, 2, 28)), ("(until 2023-01)", d(2023, 1, 31)), ("(until 2023-04)", d(2023, 4, 30)),
    ("(until 2023-8)", d(2023, 8, 31)), ("(until 2023-08-10)", d(2023, 8, 10)), ("（until: 2023-08）", d(2023, 8, 31)),
    ("(Until 2023-08-01)", d(2023, 8, 1)),
])
def test_a_thread_is_open_until_the_last_day_it_names(written, last_day):
    """A month means its last day, not its first: `(until 2023-08)` is open
    through 31 August."""
    assert memory_fmt.until(f"- Plan a trip {written} (log 2023-05-01)") == last_day


def test_a_thread_of_a_month_has_passed_only_after_that_month_ends():
    line = "- Plan a trip for the summer (until 2023-08) (log 2023-05-01)"
    assert not memory_fmt.is_past(line, d(2023, 8, 1))
    assert not memory_fmt.is_past(line, d(2023, 8, 31))
    assert memory_fmt.is_past(line, d(2023, 9, 1))
    assert not memory_fmt.is_past("- Ask about her sister (log 2023-05-01)", d(2099, 1, 1))  # no end: open


@pytest.mark.parametrize("line", ["- Trip (until 2023-13) (log 2023-05-01)", "- Trip (until 2023-02-30) (told)",
                                  "- Trip (until 2023-00) (told)", "- Trip until 2023-08 (told)", "- Trip (told)"])
def test_a_thread_without_a_real_end_has_none(line):
    assert memory_fmt.until(line) is None
    assert not memory_fmt.is_past(line, d(2099, 1, 1))


def test_setting_a_threads_end_replaces_the_old_one_and_none_drops_it():
    assert memory_fmt.with_until("Plan a trip (until 2023-08)", "2023-09") == "Plan a trip (until 2023-09)"
    assert memory_fmt.with_until("Plan a trip （until: 2023-08）  ", None) == "Plan a trip"
    assert memory_fmt.with_until("Plan a trip", "2024-01-15") == "Plan a trip (until 2024-01-15)"


def test_a_thread_with_an_impossible_end_is_a_format_error_on_its_line():
    text = memory_text("- Ask about the trip (log 2023-05-01)\n- Plan a trip (until 2023-13) (log 2023-05-01)\n")
    with pytest.raises(FormatError) as err:
        memory_fmt.parse(text, MEMORY)
    assert err.value.line == text.splitlines().index("- Plan a trip (until 2023-13) (log 2023-05-01)") + 1
    assert "'until 2023-13' is not a real date" in str(err.value)
    ok = memory_fmt.parse(memory_text("- Plan a trip (until 2023-12) (log 2023-05-01)\n"), MEMORY)
    assert ok.items(memory_fmt.THREADS) == ["- Plan a trip (until 2023-12) (log 2023-05-01)"]
