"""What the bot says in the app, in one place: short, plain text (no
markup: the apps get it as typed, so a name can never become formatting)."""

from __future__ import annotations

from typing import Any

from heartcompass.errors import HeartCompassError

HELP = """Talk to one person at a time:
/switch NAME - talk to someone (slug, name or alias)
/who - who you are talking to
/list - everyone
/new - a fresh short-term history (memory stays)
/retry - ask again for a reply to your last message
/note TEXT - a fact for memory (the gardener reads it)
/quote TEXT - their real words, kept in VOICE.md
/tell TEXT - tell what happened; a photo with the caption /tell works too. You see the change and say Yes or No
/review - what the gardener asks before it changes who someone is: Yes or No
/help - this help
Your messages are answered once you have been quiet for a moment."""

# (command, description) for the apps' command menus
MENU = [("switch", "talk to someone: /switch NAME"), ("who", "who you are talking to"), ("list", "everyone"),
        ("new", "a fresh short-term history"), ("retry", "ask again"), ("note", "a fact for memory: /note TEXT"),
        ("quote", "their real words: /quote TEXT"), ("tell", "tell what happened: /tell TEXT"),
        ("review", "the gardener's questions: Yes or No"),
        ("help", "what I understand")]

REFUSED = ("This is a private HeartCompass bot. If it is yours, run `heartcompass serve --pair` "
           "and send me the code it prints.")
PAIRED = "Paired: this account may talk to your personas now. /help shows how."
NOBODY = "Who would you like to talk to? /list shows everyone, /switch NAME picks one."
PHOTO = "To tell me about a photo, send it with the caption /tell."
BROKEN = "Something went wrong on my side; your messages are saved. The operator's log says what."
GROUP = ("I only talk in a private chat with my owner: nothing here is read, kept or answered. "
         "Write to me directly.")
NO_OFFER = "There is no proposal waiting for that answer: it was answered already, or it expired (after 3 days)."


QUOTED = 300  # characters of each evidence entry a question quotes on the phone


def question(q: Any) -> str:
    """One of the gardener's questions (memory/questions.py), as the phone shows it."""
    from heartcompass.memory.review import old_and_new, quoted

    lines = [f"{q.person}: {q.what}"]
    if q.kind in ("rewrite", "removal"):
        old, new = old_and_new(q)
        lines += [f"- {str(old).removeprefix('- ')}"] + ([f"+ {str(new).removeprefix('- ')}"] if new else [])
    if q.reason:
        lines.append(f"Why asked: {q.reason}")
    lines += [f"“{quoted(e)[:QUOTED]}”" for e in q.evidence[:5]]  # a message of the app holds 4,096
    return "\n".join([*lines, f"Apply it? ({q.id}, asked {q.asked})"])


def expired(questions: list, days: object) -> str:
    return f"Expired unanswered after {days} days: " + "; ".join(f"{q.person}: {q.what}" for q in questions)


def error(exc: HeartCompassError) -> str:
    return exc.message + (f" {exc.hint}" if exc.hint else "")


def model_down(exc: HeartCompassError) -> str:
    return f"(No reply: the model cannot be reached: {exc.message} Your messages are saved; /retry asks again.)"


def not_committed(exc: HeartCompassError) -> str:
    return (f"(Not committed yet: {exc.message} Your messages are saved in the log and will be committed "
            "once that is fixed.)")


def offer_person(name: str, relation: str, about: str) -> str:
    return f"Not in your workspace: {name}" + (f" ({about})" if about else "") + \
        f". Add {name} as a new person ({relation})?"


def not_answered(slug: str, exc: HeartCompassError) -> str:
    return (f"(Your last messages to {slug}, sent before serve stopped, are saved but cannot be answered: "
            f"{error(exc)})")


def who(name: str, slug: str) -> str:
    return f"You are talking to {name} ({slug})."


def listing(rows: list[tuple[str, str, str]], current: str | None) -> str:
    if not rows:
        return "Nobody yet: add people with `heartcompass person add NAME`."
    return "\n".join(f"{'> ' if slug == current else ''}{name} ({slug}, {relation})" for slug, name, relation in rows)
