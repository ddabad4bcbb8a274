"""heartcompass person import-vcf — people from a vCard export."""


from pathlib import Path
from typing import Annotated

import typer

from heartcompass.cli.common import err, escape, interactive, out, workspace
from heartcompass.wording import counted


def import_vcf(ctx: typer.Context,
               file: Annotated[Path, typer.Argument(help="A .vcf file (vCard 2.1, 3.0 or 4.0), one or many cards.")],
               relation: Annotated[str, typer.Option("--relation", "-r", help="The relation of each new person.")
                                   ] = "friend",
               yes: Annotated[bool, typer.Option("--yes", "-y", help="Merge into existing people without "
                                                 "asking.")] = False) -> None:
    """New people from the cards (names, nicknames, birthdays; phones and e-mails as handles).

    A card for someone already here (by name, alias or handle) adds only what
    their profile lacks, after asking (--yes: without asking)."""
    from heartcompass.formats.profile import check_relation
    from heartcompass.intake import contacts
    from heartcompass.intake.limits import read_limited

    ws = workspace(ctx)
    check_relation(relation)
    raw = read_limited(file, contacts.MAX_VCF_BYTES, "contacts file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # vCard 2.1 from old phones: the quoted-printable parts say their charset
    cards, bad = contacts.parse(text, file)
    for line, why in bad:
        err.print(f"[yellow]Skipped:[/] {escape(str(file))}:{line}: {escape(why)}.")
    chosen = []
    for change in contacts.plan(ws, cards):
        if change.empty:
            continue
        if change.slug is not None and not yes:
            what = ", ".join(filter(None, [f"aliases {', '.join(change.aliases)}" if change.aliases else "",
                                           f"handles {', '.join(change.handles)}" if change.handles else "",
                                           f"birthday {change.birthday}" if change.birthday else ""]))
            if not interactive():
                err.print(f"[yellow]Not merged:[/] the card {escape(change.card.name)!s} (line {change.card.line}) "
                          f"is {escape(change.slug)} here; it would add {escape(what)}. Run with --yes to merge.")
                continue
            import questionary

            from heartcompass.cli.ask import answer

            if not answer(questionary.confirm(f"{change.card.name} is {change.slug} here. Add {what}?",
                                              default=True), "nothing was imported"):
                continue
        chosen.append(change)
    added, updated, sha = contacts.apply(ws, chosen, relation)
    if not sha:
        out.print(f"Nothing to add from {counted(len(cards), 'card')}.")
        return
    out.print(f"From {counted(len(cards), 'card')}: added {counted(len(added), 'person', 'people')}"
              + (f" ({escape(', '.join(added))})" if added else "")
              + (f"; updated {escape(', '.join(updated))}" if updated else "") + ".")
