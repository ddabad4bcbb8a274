"""heartcompass import — bring a real chat export into people's logs."""


import datetime as dt
import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli.complete import complete_person
from heartcompass.cli.common import err, escape, interactive, out, print_columns, print_json, workspace
from heartcompass.errors import HeartCompassError
from heartcompass.wording import counted


def register(app: typer.Typer) -> None:
    app.command("import")(import_)


def import_(
    ctx: typer.Context,
    name: Annotated[Optional[str], typer.Argument(help="Whose chat it is (slug, name or alias); leave it out to "
                                                  "route each sender by name, alias or handle.", metavar="[NAME]",
                                                  autocompletion=complete_person, show_default=False)] = None,
    file: Annotated[Optional[Path], typer.Argument(help="The export (WhatsApp, Telegram, WeChat, QQ, LINE, Signal, "
                                                   "Discord, iMessage, Messenger, ChatLab, a transcript).",
                                                   metavar="FILE", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="auto (from the content), whatsapp, telegram, wechat, "
                                     "chatlab, qq, line, signal, discord, imessage, messenger or plain.")] = "auto",
    me: Annotated[Optional[str], typer.Option("--me", help="Your name as it appears in the export.",
                                              show_default=False)] = None,
    chat: Annotated[Optional[str], typer.Option("--chat", help="One chat of a whole-account export, by name.",
                                                show_default=False)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also show messages added per day.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Real messages go to the logs on their original dates, as trusted `import` entries.

    A group chat goes to each member's own log (with the lines around theirs
    as context); NAME then takes only that person's part."""
    from heartcompass.intake import importers, routing
    from heartcompass.intake.exports import Context
    from heartcompass.store import clock
    from heartcompass.cli import lookup

    if name is None:  # NAME may be left out, the export may not
        raise typer.BadParameter("missing: the chat export, e.g. heartcompass import alice chat.txt",
                                 param_hint="'FILE'")
    ws = workspace(ctx)
    whose: str | None = name
    if file is None:  # one argument: the file, every sender routed
        whose, file = None, Path(name)
    person = lookup.person(ws, whose, asking=not as_json) if whose else None
    source = importers.open_export(file)
    now = clock.now(ws)
    fmt = importers.detect(source) if fmt == "auto" else fmt
    display = person.load_profile().name if person else None
    export = importers.parse(fmt, source, Context(now.date(), now.tzinfo, chat, display, ws.state_dir))
    if not export.total and export.report.bad_count:
        from heartcompass.errors import FormatError

        raise FormatError(file, f"no message could be read: {export.bad[0][1]}", export.bad[0][0],
                          "Is this the right file, and the right --format?")
    directory = routing.directory(ws, export.aka)
    found = export.speakers()
    me = _who_is_me(me, export, found, person, directory)
    users = {s for (s, h, mine) in export.senders if mine or s == me or directory.is_user(h, s)}
    others = [s for s in found if s not in users]
    group = export.group is not None or len(others) > 1
    slug = person.slug if person else None if group else _the_other(others, export, directory)
    router = importers.Router(export, me, directory, now, slug, group, file.stem)
    if group and person and not router.counted.get(person.slug):
        raise HeartCompassError(f"{display} wrote nothing in this group chat ({', '.join(others)}); "
                                "nothing was imported.", "Leave the name out to import every member's part.")
    if group and not router.slugs:
        raise HeartCompassError("No member of this group chat is anyone in this workspace; nothing was imported.",
                                " ".join([_add_hint(router.unknown), *_not_sure_lines(router.not_sure)]))
    matched = _warn_about(others, person) if person and not group else True
    placeholders = export.placeholders
    real = export.total - sum(placeholders.values())
    added, sha = importers.import_and_commit(ws, export, router, fmt)
    total = sum(sum(days.values()) for days in added.values())
    mine = sum(router.counted.values())
    first = person.slug if person else (router.slugs or [""])[0]
    days: dict[str, int] = {}  # messages added per day, every member's together
    for per in added.values():
        for d, n in per.items():
            days[d] = days.get(d, 0) + n
    summary = {"person": first, "format": fmt, "messages": real, "added": total,
               "already_there": mine - total, "days": dict(sorted(days.items())),
               "people": {s: dict(sorted(d.items())) for s, d in added.items()},
               "group": router.group, "unknown_members": [{"name": s, "handle": h, "messages": n}
                                                           for (s, h), n in router.unknown.most_common()],
               "not_sure_members": [{"name": s, "handle": h, "not_filed_under": slug}
                                    for (s, h), slug in router.not_sure.items()],
               "skipped": dict(placeholders), "notices": export.notices,
               "bad_lines": [{"line": n, "why": why} for n, why in export.bad], "bad_count": export.report.bad_count,
               "undated_filed_under": now.date().isoformat() if export.undated else None,
               "undated": export.undated, "speakers": found, "speaker_is_person": matched, "commit": sha}
    if as_json:
        print_json(summary, indent=2)
        return
    _report_problems(export, router, now.date())
    skipped = _skipped_text(placeholders)
    if not added:
        where = f"people/{escape(first)}/logs/" if len(router.slugs) == 1 else "the logs"
        out.print(f"Nothing new: all {counted(mine, 'message')} are already in {where}."
                  + (f" Skipped {skipped}." if skipped else ""))
        return
    if verbose:
        rows = [[s, d, str(n)] for s, per in sorted(added.items()) for d, n in sorted(per.items())]
        print_columns(["person", "day", "messages added"], rows, right={2})
    lines = []
    for slug, per in sorted(added.items()):
        span = sorted(per)
        when = span[0] if len(span) == 1 else f"{span[0]} to {span[-1]}"
        lines.append(f"Imported {counted(sum(per.values()), 'message')} into people/{escape(slug)}/logs/ "
                     f"({counted(len(span), 'day')}, {when})")
    group_note = f" from the group {escape(router.group)}" if router.group else ""
    tail = (f"{mine - total} already there" + (f"; skipped {skipped}" if skipped else "")
            + ". The next 'heartcompass garden' consolidates them."
            + ("" if verbose or len(days) == 1 else " Per day: --verbose."))
    if len(lines) == 1:
        out.print(f"{lines[0]}{group_note}; {tail}")
    else:
        out.print("\n".join(lines) + f"\n{group_note.strip().capitalize() or 'In all'}: {tail}")

def _report_problems(export, router, today: dt.date) -> None:
    bad, undated = export.report.bad_count, export.undated
    if bad:
        shown = ", ".join(str(n) for n, _ in export.bad[:10]) + (", ..." if bad > 10 else "")
        err.print(f"[yellow]Skipped {counted(bad, 'line')} that did not parse[/] (line {shown}); "
                  f"the first: line {export.bad[0][0]}: {escape(export.bad[0][1])}. Everything else came in.")
    if undated:
        err.print(f"[yellow]Note:[/] {undated} {'message has' if undated == 1 else 'messages have'} no date "
                  f"stamp and {'is' if undated == 1 else 'are'} filed under today ({today.isoformat()}), after "
                  "what today's log already holds. To date them, start lines with [YYYY-MM-DD HH:MM].")
    if router.unknown:
        err.print(f"[yellow]Not imported:[/] {counted(len(router.unknown), 'member')} of the group "
                  "who is no one here. " + escape(_add_hint(router.unknown)))
    for line in _not_sure_lines(router.not_sure):
        err.print(f"[yellow]Not imported:[/] {escape(line)}")


def _not_sure_lines(not_sure: dict[tuple[str, str], str]) -> list[str]:
    """Senders filed under no one because their name was not enough: which ids, and how to route them."""
    by_person: dict[str, list[tuple[str, str]]] = {}
    for (speaker, handle), slug in not_sure.items():
        by_person.setdefault(slug, []).append((speaker, handle))
    return [f"{' and '.join(f'{s!r} (id {h})' for s, h in senders)} answer to the name of people/{slug}, "
            f"whose handles list none of these ids: nothing of theirs was filed under {slug}. Add the right id to "
            f"the handles of people/{slug}/PROFILE.md (heartcompass edit {slug}), or add the other sender with "
            f"'heartcompass person add NAME --handle ID', then import again."
            for slug, senders in by_person.items()]


def _add_hint(unknown) -> str:
    if not unknown:
        return "Add the members first with 'heartcompass person add NAME --handle ID'."
    cmds = [f"heartcompass person add {shlex.quote(s)}" + (f" --handle {shlex.quote(h)}" if h and h != s else "")
            + f"  ({counted(n, 'message')})" for (s, h), n in unknown.most_common(10)]
    return "Add them, then import again: " + "; ".join(cmds)


def _skipped_text(counts) -> str:
    words = {"media": ("media placeholder", "media placeholders"), "deleted": ("deleted message", "deleted messages"),
             "call": ("call notice", "call notices"),
             "pending": ("message the app never received", "messages the app never received")}
    return ", ".join(f"{n} {words.get(kind, (kind, kind))[n != 1]}" for kind, n in counts.most_common())


def _warn_about(others: list[str], person) -> bool:
    """A one-to-one chat with someone else is a surprise worth a warning.
    Returns whether a speaker is the person."""
    from heartcompass.messages import matches_person

    prof = person.load_profile()
    names = prof.names() + prof.handles
    matched = not others or any(matches_person(s, names) for s in others)
    if not matched:
        err.print(f"[yellow]Warning:[/] none of the speakers ({escape(', '.join(others))}) is "
                  f"{escape(names[0])} or one of their aliases. Is this the right person? "
                  f"If it is, add the name as an alias in people/{escape(person.slug)}/PROFILE.md.")
    return matched


def _the_other(others: list[str], export, directory) -> str:
    """Whose one-to-one chat this is, when no NAME was given."""
    handle = next((h for (s, h, _) in export.senders if others and s == others[0]), "")
    slug = directory.person_for(others[0], handle) if others else None
    if slug is None:
        who = others[0] if others else "anyone"
        raise HeartCompassError(f"{who!r} is no one in this workspace (by name, alias or handle); nothing was "
                                "imported.", "Say whose chat it is (heartcompass import NAME FILE), or add them: "
                                f"heartcompass person add {shlex.quote(who)}"
                                + (f" --handle {shlex.quote(handle)}" if handle and handle != who else ""))
    return slug


def _who_is_me(me: str | None, export, found: list[str], person, directory) -> str | None:
    if me:
        if me not in found:
            raise HeartCompassError(f"--me {me!r} does not appear in the export.",
                                    "Speakers found: " + ", ".join(found))
        return me
    if any(mine or directory.is_user(h, s) for (s, h, mine) in export.senders) or len(found) <= 1:
        return None  # the app (or your handles) says which are yours; or only their messages
    if person is not None:
        prof = person.load_profile()
        names = {n.casefold() for n in prof.names()}
        others = [s for s in found if s.casefold() not in names
                  and directory.person_for(s) != person.slug]
    else:
        others = [s for s in found if directory.person_for(s) is None]
    if len(found) == 2 and len(others) == 1:
        return others[0]  # the one who is not them
    if interactive():
        import questionary

        from heartcompass.cli.ask import answer

        return answer(questionary.select("Which speaker is you?", choices=found), "nothing was imported")
    raise HeartCompassError("Which speaker is you? Say it with --me.", "Speakers found: " + ", ".join(found))
