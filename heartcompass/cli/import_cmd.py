"""heartcompass import — bring a real chat export into someone's logs."""


import datetime as dt
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import complete_person
from heartcompass.cli.common import escape, interactive, out, print_columns, print_json, workspace
from heartcompass.errors import HeartCompassError
from heartcompass.wording import counted


def register(app: typer.Typer) -> None:
    app.command("import")(import_)


def import_(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Whose chat it is (slug, name or alias).",
                                                  autocompletion=complete_person)],
    file: Annotated[Path, typer.Argument(help="The export: WhatsApp .txt, Telegram result.json, or a transcript.")],
    fmt: Annotated[str, typer.Option("--format", help="auto (from the content), whatsapp, telegram or plain.")
                   ] = "auto",
    me: Annotated[Optional[str], typer.Option("--me", help="Your name as it appears in the export.",
                                              show_default=False)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also show messages added per day.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Real messages go to the logs on their original dates, as trusted `import` entries."""
    from heartcompass.intake import importers
    from heartcompass.store import clock
    from heartcompass.store.people import resolve

    ws = workspace(ctx)
    person = resolve(ws, name)
    text = importers.read_export(file)
    today = clock.today(ws)
    fmt = importers.detect(text) if fmt == "auto" else fmt
    messages = importers.parse(fmt, text, file, today)
    found = importers.speakers(messages)
    me = _who_is_me(me, found, person)
    matched, undated = _warn_about(messages, found, me, person, today)
    placeholders = importers.skipped(messages)
    real = len(messages) - sum(placeholders.values())
    skipped = _skipped_text(placeholders)
    added, sha = importers.import_and_commit(ws, person, messages, me, fmt)
    summary = {"person": person.slug, "format": fmt, "messages": real, "added": sum(added.values()),
               "already_there": real - sum(added.values()), "days": dict(sorted(added.items())),
               "skipped": dict(placeholders), "undated_filed_under": today.isoformat() if undated else None,
               "undated": undated, "speakers": found, "speaker_is_person": matched, "commit": sha}
    if not added and as_json:
        _print_json(summary)
        return
    if not added:
        out.print(f"Nothing new: all {counted(real, 'message')} are already in people/{escape(person.slug)}/logs/."
                  + (f" Skipped {skipped}." if skipped else ""))
        return
    total = sum(added.values())
    if as_json:
        _print_json(summary)
        return
    if verbose:
        print_columns(["day", "messages added"], [[d, str(n)] for d, n in sorted(added.items())], right={1})
    days = sorted(added)
    span = days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"
    out.print(f"Imported {counted(total, 'message')} into people/{escape(person.slug)}/logs/ ({counted(len(days), 'day')}, "
              f"{span}); {real - total} already there"
              + (f"; skipped {skipped}" if skipped else "") + ". The next 'heartcompass garden' consolidates them."
              + ("" if verbose or len(days) == 1 else " Per day: --verbose."))


def _print_json(summary: dict) -> None:
    print_json(summary, indent=2)


def _skipped_text(counts) -> str:
    words = {"media": ("media placeholder", "media placeholders"), "deleted": ("deleted message", "deleted messages"),
             "call": ("call notice", "call notices"),
             "pending": ("message the app never received", "messages the app never received")}
    return ", ".join(f"{n} {words.get(kind, (kind, kind))[n != 1]}" for kind, n in counts.most_common())


def _warn_about(messages, found: list[str], me: str, person, today: dt.date) -> tuple[bool, int]:
    """Say what would otherwise surprise: a chat with someone else, undated lines filed under today.
    Returns whether a speaker is the person, and how many lines had no date."""
    from heartcompass.cli.common import err
    from heartcompass.messages import matches_person

    names = person.load_profile().names()
    others = [s for s in found if s != me]
    matched = not others or any(matches_person(s, names) for s in others)
    if not matched:
        err.print(f"[yellow]Warning:[/] none of the speakers ({escape(', '.join(others))}) is "
                  f"{escape(names[0])} or one of their aliases. Is this the right person? "
                  f"If it is, add the name as an alias in people/{escape(person.slug)}/PROFILE.md.")
    undated = sum(1 for m in messages if m.undated)
    if undated:
        err.print(f"[yellow]Note:[/] {undated} {'message has' if undated == 1 else 'messages have'} no date "
                  f"stamp and {'is' if undated == 1 else 'are'} filed under today ({today.isoformat()}). "
                  "To date them, start lines with [YYYY-MM-DD HH:MM].")
    return matched, undated


def _who_is_me(me: str | None, found: list[str], person) -> str:
    if me:
        if me not in found:
            raise HeartCompassError(f"--me {me!r} does not appear in the export.",
                                    "Speakers found: " + ", ".join(found))
        return me
    if len(found) == 1:
        return "\0nobody"  # only their messages
    names = {n.casefold() for n in person.load_profile().names()}
    others = [s for s in found if s.casefold() not in names]
    if len(found) == 2 and len(others) == 1:
        return others[0]  # the one who is not them
    if interactive():
        import questionary

        from heartcompass.cli.ask import answer

        return answer(questionary.select("Which speaker is you?", choices=found), "nothing was imported")
    raise HeartCompassError("Which speaker is you? Say it with --me.", "Speakers found: " + ", ".join(found))
