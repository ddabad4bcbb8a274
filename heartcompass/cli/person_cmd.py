"""heartcompass person add | list | show | rename | archive | unarchive | export | import-card | import-vcf"""


from pathlib import Path
from typing import Annotated, Optional

import typer

from heartcompass.cli import lookup
from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import (err, escape, interactive, new_app, out, print_columns, print_json, to_json,
                                     workspace)
from heartcompass.errors import PersonError

app = new_app("Add, list, show, rename, archive and unarchive people.")


def _parse_related(values: list[str]) -> list[dict[str, str]]:
    links = []
    for value in values:
        slug, _, words = value.partition(":")
        if not slug.strip():
            raise PersonError(f"--related {value!r}: expected SLUG:WORDS, e.g. bob:her brother.")
        links.append({"person": slug.strip(), "as": words.strip()})
    return links


YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Never ask: a name someone else already answers to "
                                         "is refused (--force allows it).")]


@app.command("add")
def add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Their name, e.g. 'Alice Chen' or '小明'.")],
    relation: Annotated[Optional[str], typer.Option("--relation", "-r", help="self, family, friend, dating, "
                        "ambiguous, tension, broken_up, failed or stranger.", show_default=False)] = None,
    mbti: Annotated[Optional[str], typer.Option("--mbti", help="e.g. ENFP.", show_default=False)] = None,
    alias: Annotated[Optional[list[str]], typer.Option("--alias", "-a", help="Another name (repeatable).",
                                                       show_default=False)] = None,
    gender: Annotated[Optional[str], typer.Option("--gender", show_default=False)] = None,
    about: Annotated[Optional[str], typer.Option("--about", help="A few lines about them (Background).",
                                                 show_default=False)] = None,
    related: Annotated[Optional[list[str]], typer.Option("--related", help="SLUG:WORDS, e.g. 'bob:her brother' "
                       "(repeatable).", show_default=False)] = None,
    handle: Annotated[Optional[list[str]], typer.Option("--handle", help="Their id in a chat app: wechat id, QQ "
                      "number, @username, phone, e-mail (repeatable); imports route by it.", show_default=False)] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Never ask; use defaults for what is missing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Add even if someone else already has this name or "
                                        "alias.")] = False,
) -> None:
    """Add a person: PROFILE.md, EVENTS.md and MEMORY.md, one commit.

    A name or alias someone already answers to (name, alias or folder name,
    any case) is asked about in a terminal, refused otherwise (and with
    --yes); --force adds anyway."""
    from heartcompass.store import lifecycle
    from heartcompass.formats.profile import check_relation, normalize_mbti
    from heartcompass.store.people import check_new_name, refuse_taken
    from heartcompass.store.slugs import clean_name

    ws = workspace(ctx)
    name = clean_name(name)
    check_new_name(ws, name)  # fail before asking anything
    if relation:
        check_relation(relation)
    normalize_mbti(mbti)
    handles = _check_handles(ws, handle or [], force)
    if not force:  # before asking for the rest
        force = _allow_taken(lambda: refuse_taken(ws, [name, *(alias or [])]), yes)
    described = any(v is not None for v in (relation, mbti, alias, about, gender, related, handle))
    if interactive() and not yes and not described:  # any detail given on the line: the rest is not asked for
        relation, mbti, alias, about = _ask(name, relation, mbti, alias, about)
    person = _allowing_taken(lambda allow: lifecycle.add_person(
        ws, name, relation or "friend", mbti=mbti, aliases=list(alias or []), gender=gender, about=about,
        related=_parse_related(related or []), allow_taken=allow,
        extra={"handles": handles} if handles else None), yes, force)
    out.print(f"Added [bold]{escape(name)}[/] in people/{escape(person.slug)}/.")


def _check_handles(ws, handles: list[str], force: bool) -> list[str]:
    """Handles as given, each once; one someone else already has is refused (--force allows it)."""
    from heartcompass.formats.profile import handle_key
    from heartcompass.intake.routing import directory
    from heartcompass.sanitize import strip_controls

    clean = list(dict.fromkeys(" ".join(strip_controls(h).split()) for h in handles if h.strip()))
    owners = directory(ws).handles
    for h in clean:
        if handle_key(h) in owners and not force:
            raise PersonError(f"The handle {h!r} already belongs to {owners[handle_key(h)]}.",
                              "An import routes a handle to one person: check the id, or add anyway with --force.")
    return clean


def _allow_taken(check, yes: bool) -> bool:
    """Run check(); if it finds a name or alias taken, warn and, in a
    terminal, ask. True: go ahead anyway. Refused: NameTakenError."""
    from heartcompass.store.people import NameTakenError

    try:
        check()
        return False
    except NameTakenError as exc:
        if not interactive() or yes:
            raise
        import questionary

        from heartcompass.cli.ask import answer

        for c in exc.taken:
            err.print(f"[yellow]Warning:[/] {escape(c.describe())}.")
        err.print("[dim]Two people answering to one name makes that name ambiguous everywhere.[/]")
        if not answer(questionary.confirm("Go ahead anyway?", default=False)):
            err.print("Nothing was changed.")
            raise typer.Exit(1) from None
        return True


def _allowing_taken(action, yes: bool, force: bool):
    """action(allow_taken) -> result, asking once if a name is taken."""
    if force:
        return action(True)
    done = []
    allow = _allow_taken(lambda: done.append(action(False)), yes)
    return action(True) if allow else done[0]


def _ask(name, relation, mbti, aliases, about):
    import questionary

    from heartcompass.cli.ask import answer
    from heartcompass.errors import FormatError
    from heartcompass.formats.profile import RELATIONS, normalize_mbti

    def mbti_ok(text: str):
        try:
            normalize_mbti(text)
            return True
        except FormatError:
            return "Four letters such as ENFP, or leave empty"

    cancelled = "nothing was added"  # Ctrl-C at any question cancels the whole add
    if relation is None:
        relation = answer(questionary.select(f"Who is {name} to you?", choices=list(RELATIONS), default="friend"),
                          cancelled)
    if mbti is None:
        mbti = answer(questionary.text("MBTI (optional, e.g. ENFP):", validate=mbti_ok), cancelled).strip() or None
    if aliases is None:
        text = answer(questionary.text("Other names or nicknames (comma separated, optional):"), cancelled)
        aliases = [a.strip() for a in text.replace("，", ",").split(",") if a.strip()]
    if about is None:
        about = answer(questionary.text("A few words about them (optional):"), cancelled).strip() or None
    return relation, mbti, aliases, about


@app.command("list")
def list_(ctx: typer.Context,
          as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """Everyone in the workspace (archived people are hidden)."""
    from heartcompass.store.people import list_people
    from heartcompass.store.people_index import for_workspace

    ws = workspace(ctx)
    user = str(ws.config.get("user.name") or "")
    rows = for_workspace(ws).summaries(list_people(ws), user)
    if as_json:
        print_json([r._asdict() for r in rows], indent=2)
    elif not rows:
        out.print("No people yet. Add one with 'heartcompass person add NAME'.")
    else:
        print_columns(["name", "slug", "relation", "MBTI", "last chat", "events", "memory"],
                      [[r.name if not r.error else f"{r.slug} (a file is invalid: see below)",
                        r.slug, r.relation, r.mbti or "", r.last_chat or "", str(r.events), f"{r.memory_tokens} tok"]
                       for r in rows], right={5, 6})
    bad = [r for r in rows if r.error]
    for r in bad:  # everyone else is listed; each bad file is named with its fix
        err.print(f"[bold red]{escape(r.slug)}:[/] {escape(r.error)}")
    if bad:
        raise typer.Exit(1)


def _add_standing(ws, person, relation: str, facts) -> None:
    """How the relationship changed ('friend since ..., dating since ...') and how strong it is now."""
    from heartcompass.memory import relation_history
    from heartcompass.memory.strength import Strengths
    from heartcompass.store import clock

    stages = relation_history.of(ws, person, relation)
    facts.add_row("since", escape(relation_history.since_words(stages)))
    link = Strengths(ws).with_user(person, clock.today(ws))
    if link.last_evidence:
        kind = f", mostly {link.kind}" if link.kind else ""
        cooling = " (cooling)" if link.cooling else ""
        facts.add_row("strength", escape(f"{link.strength:.2f}{cooling}{kind}; last real messages "
                                         f"{link.last_evidence['day']}"))


@app.command("show")
def show(ctx: typer.Context, name: PersonArg,
         as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """A readable rendering of someone's profile, events and memory."""
    from rich.markdown import Markdown
    from rich.panel import Panel
    from rich.table import Table

    from heartcompass.store.people import display_name
    from heartcompass.sanitize import strip_controls

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json)
    if as_json:
        from heartcompass.cli.person_json import print_person
        return print_person(ws, person)
    prof, evs, mem = person.load_profile(), person.load_events(), person.load_memory()
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    for label, value in (("relation", prof.relation), ("MBTI", prof.mbti), ("aliases", ", ".join(prof.aliases)),
                         ("handles", ", ".join(prof.handles)),
                         ("gender", prof.gender), ("birthday", prof.birthday), ("tags", ", ".join(prof.tags)),
                         ("related", ", ".join(f"{r['person']} ({r['as']})" if r["as"] else r["person"]
                                               for r in prof.related))):
        if value:
            facts.add_row(label, escape(str(value)))
        if label == "relation" and prof.relation != "self":
            _add_standing(ws, person, prof.relation, facts)
    from heartcompass.memory.voice import guidance, path_of

    if path_of(person.dir).exists():
        from heartcompass.formats import voice as voice_fmt

        shape = guidance(voice_fmt.load(path_of(person.dir)).rhythm, prof.name, persona=False)
        facts.add_row("rhythm", escape(shape or "not learned yet (import a real chat)"))
    shown = display_name(prof, str(ws.config.get("user.name") or ""))
    out.print(Panel(facts, title=f"[bold]{escape(shown)}[/]  [dim]people/{escape(person.slug)}[/]",
                    title_align="left"))
    body = _without_empty_sections(prof.body).strip()
    if body:
        out.print(Markdown(strip_controls(body)))
    out.rule("Events")
    if not evs.events:
        out.print("[dim]none yet[/]")
    for e in evs.sorted_events():
        weight = f"w{e.effective_weight:.1f}"
        src = f" [dim]({escape(e.source)})[/]" if e.source else ""
        out.print(f"[cyan]{e.when}[/] [dim]{weight}[/] {escape(e.text)}{src}")
    out.rule(f"Memory [dim]({mem.body_tokens()} of {mem.budget_tokens} tokens)[/]")
    filled = {title: lines for title, lines in mem.sections.items() if lines}
    if not filled:
        out.print("[dim]nothing yet[/]")
    for title, lines in filled.items():
        out.print(f"[bold]{escape(title)}[/]")
        for line in lines:  # a hand-written line may look like markup: always escaped
            out.print("  " + escape(line))


def _without_empty_sections(body: str) -> str:
    """The profile's Markdown without headings that have nothing under them
    (a new profile's Personality, Likes...): `person show` shows what is known."""
    import re

    lines = body.splitlines()
    heading = [re.match(r"(#{1,6})\s", line) for line in lines]
    fence = False
    for i, line in enumerate(lines):  # a '#' line inside a code block is not a heading
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if fence:
            heading[i] = None
    keep = [True] * len(lines)
    for i, m in enumerate(heading):
        if not m:
            continue
        end = next((j for j in range(i + 1, len(lines)) if (h := heading[j]) and len(h.group(1)) <= len(m.group(1))),
                   len(lines))
        if all(not lines[j].strip() or heading[j] for j in range(i + 1, end)):
            keep[i] = False
    return "\n".join(line for line, k in zip(lines, keep) if k)


@app.command("rename")
def rename(ctx: typer.Context,
           old: PersonArg,
           new: Annotated[str, typer.Argument(help="The new name.")],
           force: Annotated[bool, typer.Option("--force", help="Rename even if someone else already has this "
                                               "name, or if it is you (relation: self).")] = False,
           no_alias: Annotated[bool, typer.Option("--no-alias", help="Do not keep the old name as an alias.")
                               ] = False,
           yes: YesOption = False) -> None:
    """Rename someone; their folder moves and links in other profiles follow.

    The old name is kept as an alias (so text that still says it finds them),
    unless --no-alias."""
    from heartcompass.store import lifecycle

    ws = workspace(ctx)
    old = lookup.slug(ws, old)
    done = _allowing_taken(lambda allow: lifecycle.rename_person(ws, old, new, allow_taken=allow,
                                                                 keep_alias=not no_alias, allow_self=force),
                           yes, force)
    out.print(f"Renamed to [bold]{escape(new)}[/] (people/{escape(done.person.slug)}/)."
              + (f" Links updated in: {escape(', '.join(done.linkers))}." if done.linkers else ""))
    if done.kept_alias:
        out.print(f"Kept {escape(repr(done.kept_alias))} as an alias; remove it from aliases in "
                  f"people/{escape(done.person.slug)}/PROFILE.md, or rename with --no-alias.")


@app.command("archive")
def archive(ctx: typer.Context, name: PersonArg,
            force: Annotated[bool, typer.Option("--force", help="Archive even if it is you (relation: self).")
                             ] = False) -> None:
    """Move someone to people/.archive/ (kept in git, hidden from list)."""
    from heartcompass.store import lifecycle

    ws = workspace(ctx)
    done = lifecycle.archive_person(ws, lookup.slug(ws, name), allow_self=force)
    import shlex

    out.print(f"Archived to {escape(ws.rel(done.dest))}/. Bring them back with: heartcompass person unarchive "
              f"{escape(shlex.quote(done.dest.name))}")
    if done.linkers:
        err.print(f"[yellow]Warning:[/] {escape(', '.join(done.linkers))} still name {escape(done.dest.name)} in "
                  "'related' (the link now points at no one: 'heartcompass doctor' reports it). Remove the entry from "
                  "their PROFILE.md ('heartcompass edit NAME'), or unarchive them.")


@app.command("unarchive")
def unarchive(ctx: typer.Context,
              name: Annotated[str, typer.Argument(help="Folder name under people/.archive/, name or alias.")],
              force: Annotated[bool, typer.Option("--force", help="Bring them back even if someone else now "
                                                  "has their name or alias.")] = False,
              yes: YesOption = False) -> None:
    """Bring someone back from people/.archive/, one commit."""
    from heartcompass.store import lifecycle

    ws = workspace(ctx)
    person = _allowing_taken(lambda allow: lifecycle.unarchive_person(ws, name, allow_taken=allow), yes, force)
    out.print(f"Back in people/{escape(person.slug)}/.")


@app.command("export")
def export(ctx: typer.Context,
           name: PersonArg,
           fmt: Annotated[str, typer.Option("--format", help="card: a V2 character card (JSON; a PNG card with -o NAME.png).")] = "card",
           output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: "
                             "stdout).", show_default=False)] = None) -> None:
    """Export someone as a character card for persona-chat apps (SillyTavern and others)."""
    from heartcompass.intake.cards import export_card

    if fmt != "card":
        raise PersonError(f"Unknown export format {fmt!r}.", "Use --format card.")
    suffix = output.suffix.lower() if output else ""
    if output is not None and suffix in (".jpg", ".jpeg", ".webp", ".gif", ".avif", ".bmp"):
        raise PersonError(f"Cannot write a character card as {suffix}: cards are PNG or JSON.",
                          f"Use -o {output.with_suffix('.png').name} or -o {output.with_suffix('.json').name}.")
    ws = workspace(ctx)
    person = lookup.person(ws, name)
    card = export_card(person)
    text = to_json(card, indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        from heartcompass.atomic import write_atomic
        from heartcompass.intake.card_png import card_png
        from heartcompass.intake.cards import avatar_of

        write_atomic(output, card_png(card, avatar_of(person)) if suffix == ".png" else text)
        out.print(f"Wrote {escape(str(output))}" + (" (a PNG card: the card is inside the image)." if suffix ==
                                                       ".png" else "."))


@app.command("import-card")
def import_card(ctx: typer.Context,
                file: Annotated[Path, typer.Argument(help="A V1 or V2 character card: JSON, or PNG with the card "
                                                   "inside.")],
                force: Annotated[bool, typer.Option("--force", help="Import even if someone already has this "
                                                    "name or alias.")] = False,
                name: Annotated[Optional[str], typer.Option("--name", help="Their name here instead of the card's "
                                                            "(the card's {{char}} becomes it too).",
                                                            show_default=False)] = None,
                yes: YesOption = False) -> None:
    """Create a person from a character card; unknown extension fields are kept in the profile."""
    from heartcompass.intake import cards

    ws = workspace(ctx)
    try:
        person = _allowing_taken(lambda allow: cards.import_card(ws, file, allow_taken=allow, name=name),
                                 yes, force)
    except PersonError as exc:  # the card's name is taken or unusable here: another one is a flag away
        exc.hint = f"Give them another name here with --name, e.g. --name 'Alice (card)'. {exc.hint or ''}".strip()
        raise
    out.print(f"Added [bold]{escape(person.load_profile().name)}[/] in people/{escape(person.slug)}/ from the card.")


from heartcompass.cli.person_vcf import import_vcf  # noqa: E402 (its own module: person_cmd stays small)

app.command("import-vcf")(import_vcf)
