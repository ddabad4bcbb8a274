"""`heartcompass today` and serve's morning digest: what is worth acting on.

- birthdays in the next 7 days (PROFILE.md `birthday`, YYYY-MM-DD or MM-DD);
- open threads (MEMORY.md `## Open threads`);
- people not talked to for longer than usual *for them*: the days since
  their last log are more than twice their usual gap between logs (the
  median), and at least a week. Someone talked to once a month is not
  "quiet" after ten days; someone talked to daily is.

Reads files only (no model, no git). A person whose file does not parse is
listed with the problem, and the others still are."""

from __future__ import annotations

import datetime as dt
import re
import statistics
from dataclasses import dataclass

from heartcompass.errors import FormatError
from heartcompass.formats import dailylog
from heartcompass.formats import memory as memory_fmt
from heartcompass.store.people import Person, display_name, list_people
from heartcompass.store.workspace import Workspace

BIRTHDAY_DAYS = 7
MIN_QUIET_DAYS = 7
MAX_THREADS = 3  # per person: the digest is a glance, MEMORY.md has them all


@dataclass
class Item:
    kind: str   # "birthday", "thread", "quiet", "problem"; "question" (with_questions)
    slug: str
    name: str
    text: str


def birthday_in(value: str | None, today: dt.date) -> int | None:
    """Days until the next birthday (0: today), or None."""
    m = re.fullmatch(r"(?:\d{4}-)?(\d{1,2})-(\d{1,2})", (value or "").strip())
    if not m:
        return None
    month, day = int(m.group(1)), int(m.group(2))
    for year in (today.year, today.year + 1):
        try:
            date = dt.date(year, month, day)
        except ValueError:  # 29 February in a common year: the 28th
            try:
                date = dt.date(year, month, day - 1)
            except ValueError:
                return None
        if date >= today:
            return (date - today).days
    return None


def quiet_days(days: list[str], today: dt.date) -> tuple[int, float] | None:
    """(days since the last log, the usual gap) when longer than usual."""
    dates = sorted({dt.date.fromisoformat(d) for d in days if d <= today.isoformat()})
    if len(dates) < 3:  # too little to know what is usual
        return None
    usual = statistics.median((b - a).days for a, b in zip(dates, dates[1:]))
    since = (today - dates[-1]).days
    if since >= max(MIN_QUIET_DAYS, 2 * usual):
        return since, usual
    return None


def followups(ws: Workspace, today: dt.date) -> list[Item]:
    user = ws.config.get("user.name")
    items: list[Item] = []
    for person in list_people(ws):
        items += _of(person, today, user)
    order = {"birthday": 0, "thread": 1, "quiet": 2, "problem": 3}
    return sorted(items, key=lambda i: (order[i.kind], i.slug))


def _of(person: Person, today: dt.date, user: str) -> list[Item]:
    try:
        prof = person.load_profile()
        if prof.relation == "self":
            return []
        name = display_name(prof, user)
        found: list[Item] = []
        days = birthday_in(prof.birthday, today)
        if days is not None and days <= BIRTHDAY_DAYS:
            when = "today" if days == 0 else "tomorrow" if days == 1 else f"in {days} days"
            found.append(Item("birthday", person.slug, name, f"{name}'s birthday is {when}"))
        if person.memory_path.exists():
            threads = [t for t in person.load_memory().items(memory_fmt.THREADS) if not memory_fmt.is_past(t, today)]
            for line in threads[:MAX_THREADS]:  # a thread past its '(until ...)' is not open any more
                found.append(Item("thread", person.slug, name, line.lstrip("- ").strip()))
        quiet = quiet_days(dailylog.log_dates(person.dir), today)
        if quiet:
            found.append(Item("quiet", person.slug, name, f"no chat with {name} for {quiet[0]} days "
                                                          f"(usually every {quiet[1]:g})"))
        return found
    except FormatError as exc:
        return [Item("problem", person.slug, person.slug, str(exc))]


def digest(items: list[Item]) -> str:
    """Plain text, for the terminal's --plain and the chat apps."""
    if not items:
        return "Nothing needs you today."
    titles = {"birthday": "Birthdays", "thread": "Open threads", "quiet": "Been a while",
              "problem": "Files to fix"}
    lines: list[str] = []
    for kind, title in titles.items():
        mine = [i for i in items if i.kind == kind]
        if mine:
            lines.append(f"{title}:")
            lines += [f"- {i.text}" if kind != "thread" else f"- {i.name}: {i.text}" for i in mine]
    asked = [f"- {i.text}" for i in items if i.kind == "question"]  # first: they wait for an answer
    return "\n".join([f"{QUESTIONS}:", *asked, *lines] if asked else lines)


QUESTIONS = "Waiting for your answer (heartcompass review; /review on the phone)"


def with_questions(ws: Workspace, today: dt.date) -> list[Item]:
    """The gardener's questions waiting for the user's Yes, then the followups (today, the digest)."""
    from heartcompass.memory.review import unexpired

    return [Item("question", q.person, q.person, f"{q.person}: {q.what} ({q.id})") for q in unexpired(ws, today)] \
        + followups(ws, today)
