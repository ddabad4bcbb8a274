"""heartcompass import — bring a real chat export into someone's logs."""


import datetime as dt
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import escape, interactive, out, print_columns, workspace
from heartcompass.errors import HeartCompassError


def register(app: typer.Typer) -> None:
    app.command("import")(import_)


def import_(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Whose chat it is (slug, name or alias).")],
    file: Annotated[Path, typer.Argument(help="The export: WhatsApp .txt, Telegram result.json, or a transcript.")],
    fmt: Annotated[str, typer.Option("--format", help="whatsapp, telegram or plain.")] = "whatsapp",
    me: Annotated[Optional[str], typer.Option("--me", help="Your name as it appears in the export.",
                                              show_default=False)] = None,
) -> None:
    """Real messages go to the logs on their original dates, as trusted `import` entries."""
    from heartcompass import audit, importers
    from heartcompass.people import resolve

    ws = workspace(ctx)
    person = resolve(ws, name)
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise HeartCompassError(f"Cannot read {file}: {exc}.") from None
    messages = importers.parse(fmt, text, file, dt.date.today())
    found = importers.speakers(messages)
    me = _who_is_me(me, found, person)
    with audit.writing(ws, "import"):
        audit.commit_pending(ws, [person])
        added = importers.to_logs(person.dir, messages, me)
        if not added:
            out.print(f"Nothing new: all {len(messages)} messages are already in people/{escape(person.slug)}/logs/.")
            return
        total = sum(added.values())
        paths = [person.logs_dir / f"{day}.md" for day in added]
        from heartcompass import voice

        # Their lines and rhythm, in the same commit (rolled back if it fails; the logs stay).
        refreshed = [voice.path_of(person.dir)] if voice.refresh(person.dir, person.load_profile().names()) else []
        audit.commit_or_roll_back(ws, refreshed, f"import({person.slug}): {total} messages from a {fmt} export",
                                  "\n".join(f"- {day}: {n}" for day, n in sorted(added.items())), keep=paths,
                                  what="VOICE.md")
    print_columns(["day", "messages added"], [[d, str(n)] for d, n in sorted(added.items())], right={1})
    out.print(f"Imported {total} messages ({len(messages) - total} already there). "
              "The next 'heartcompass garden' consolidates them.")


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

        choice = questionary.select("Which speaker is you?", choices=found).ask()
        if choice:
            return choice
    raise HeartCompassError("Which speaker is you? Say it with --me.", "Speakers found: " + ", ".join(found))
