"""heartcompass doctor — is everything set up? Each check says its fix."""


import shlex
import time
from typing import Annotated

import typer

from heartcompass.cli.common import escape, out, print_json, workspace
from heartcompass.errors import HeartCompassError
from heartcompass.wording import counted


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


def doctor(ctx: typer.Context,
           ping: Annotated[bool, typer.Option("--ping", help="Also send one tiny request to the model.")] = False,
           as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False) -> None:
    """Check the workspace, git, settings, people files, the model provider and its key."""
    from heartcompass.store.credentials import redact

    results: list[bool] = []
    checks: list[dict] = []  # --json: every check, printed at the end whatever stopped the run

    def line(ok: bool, what: str, detail: str, fix: str | None = None, warn: bool = False) -> None:
        results.append(ok or warn)
        if as_json:
            checks.append({"check": what, "status": "warning" if warn else "ok" if ok else "failed",
                           "detail": redact(detail), "fix": redact(fix) if fix and (warn or not ok) else None})
            return
        mark = "[yellow]![/]" if warn else "[green]✓[/]" if ok else "[red]✗[/]"
        out.print(f"{mark} [bold]{what}[/]: {escape(redact(detail))}")  # never print a credential
        if fix and (warn or not ok):
            out.print(f"    [dim]{escape(redact(fix))}[/]")

    try:
        _run_checks(ctx, ping, line)
    finally:
        if as_json:
            print_json({"ok": all(results), "checks": checks}, indent=2)
    if not all(results):
        raise typer.Exit(1)


def _run_checks(ctx: typer.Context, ping: bool, line) -> None:
    from heartcompass.store.credentials import redact

    try:
        ws = workspace(ctx)
    except HeartCompassError as exc:
        line(False, "workspace", exc.message, exc.hint)
        raise typer.Exit(1)
    line(True, "workspace", str(ws.root))
    _check_git(ws, line)
    try:
        ws.config.as_dict()
        line(True, "config", str(ws.config_path))
    except HeartCompassError as exc:
        line(False, "config", exc.message, exc.hint)
        raise typer.Exit(1)
    _check_symlinks(ws, line)
    _check_config_secrets(ws, line)
    _check_people(ws, line)
    _check_links(ws, line)
    _check_names(ws, line)
    _check_questions(ws, line)
    from heartcompass.llm import providers as llm

    try:
        settings = llm.settings(ws)
        line(True, "provider", redact(settings.describe()))
        key = llm.check_ready(ws, settings)
        needed = settings.provider != "openai-compatible"
        line(True, "key", f"{settings.key_var} is set" if key else
             f"none needed ({settings.key_var} is used when set)" if not needed else "none")
    except HeartCompassError as exc:
        line(False, "model", exc.message, exc.hint)
        raise typer.Exit(1)
    if ping:
        _ping(ws, settings, line)
        _ping_channels(ws, line)


def _check_config_secrets(ws, line) -> None:
    """A credential put into heartcompass.toml by hand: say so (redacted), it is committed."""
    from heartcompass.store.config import secrets_in

    for key, problem in secrets_in(ws.config):
        line(False, "secrets", f"{key} in {ws.config_path.name}: {problem} (the file is committed)",
             "Move the key to .env (git-ignored), e.g. HEARTCOMPASS_LLM_API_KEY=..., and remove it from "
             f"the value with 'heartcompass config set {key} ...'.")


def _check_git(ws, line) -> None:
    from heartcompass.memory.garden_turns import GARDEN_LOCK
    from heartcompass.store.lock import holder

    try:
        head = ws.git.head()
        problem = ws.git.state_problem() or ws.git.index_lock_problem(settle=0.5)
        if problem:
            line(False, "git", problem)
        else:
            line(head is not None, "git", f"repository with {counted(len(ws.git.log(None, 10_000)), 'commit')}" if head
                 else "no commits yet", "Run 'heartcompass init' in the workspace.")
        _check_commits(ws, line)
    except HeartCompassError as exc:
        line(False, "git", exc.message, exc.hint)
    owner = holder(ws.state_dir / "lock") or holder(ws.state_dir / GARDEN_LOCK)  # a garden between people
    if owner:
        line(True, "lock", f"a HeartCompass {owner.get('purpose', 'command')} is running now "
             f"(pid {owner.get('pid', '?')}, since {owner.get('since', '?')})", warn=True)


def _check_commits(ws, line) -> None:
    """A commit the user's git would refuse (signing, a hook), and files of
    ours that git ignores (a global rule such as "*.md"): each with its fix."""
    problem = ws.git.commit_problem()
    if problem:
        line(False, "commits", f"a commit would fail now: {problem}",
             "Fix the key, or: git config commit.gpgsign false in the workspace")
    hooks = ws.git.commit_hooks()
    if hooks:  # named, never run: doctor only reads
        line(True, "hooks", f"your git hook{'s' if len(hooks) > 1 else ''} {', '.join(hooks)} run on every "
             "commit HeartCompass makes (git.hooks)",
             "If one refuses them, HeartCompass skips hooks with: heartcompass config set git.hooks false", warn=True)
    ignored = [p for p in ws.git.ignored([ws.people_dir, ws.config_path])
               if not any(part.startswith(".") for part in p.split("/"))]
    if ignored:
        line(False, "ignored", f"git ignores {counted(len(ignored), 'file')} of yours, e.g. {ignored[0]}: a hand "
             "edit there is never committed", f"See which rule: git check-ignore -v {shlex.quote(ignored[0])}")


def _check_people(ws, line) -> None:
    from heartcompass import formats
    from heartcompass.store.people import list_people

    people = list_people(ws)
    problems = []
    from heartcompass.formats import dailylog

    for person in people:
        logs = [person.logs_dir / f"{day}.md" for day in dailylog.log_dates(person.dir)]
        for path in [*person.files(), person.dir / "VOICE.md", *logs]:  # bad bytes anywhere are named here
            if path.exists():
                try:
                    formats.validate(path)
                except HeartCompassError as exc:
                    problems.append(exc)
    from heartcompass.store.slugs import windows_reserved

    for person in people:
        if windows_reserved(person.slug):
            line(False, "files", f"people/{person.slug}: Windows reserves this name for a device, so the "
                 "workspace cannot sync to a Windows machine",
                 f"Rename the person: heartcompass person rename {shlex.quote(person.slug)} 'A LONGER NAME'")
    if problems:
        for problem in problems:
            line(False, "files", problem.message, problem.hint)
    else:
        line(True, "files", f"{counted(len(people), 'person', 'people')}, every file parses")


def _check_symlinks(ws, line) -> None:
    """Symbolic links anywhere in the workspace: never followed or committed (paths.py)."""
    from heartcompass.paths import FIX, find_links

    links = find_links(ws.root)
    for rel, target, outside in links:
        where = "outside the workspace" if outside else "inside the workspace"
        line(False, "symlink", f"{rel} is a symbolic link to {target} ({where}); HeartCompass neither "
             "reads, writes nor commits through it", FIX)
    if not links:
        line(True, "symlinks", "none: every file is inside the workspace")


def _check_links(ws, line) -> None:
    from heartcompass.memory.graph import build

    g = build(ws)
    for a, b in g.missing():
        if (ws.archive_dir / b).is_dir():
            line(False, "links", f"people/{a}/PROFILE.md links to {b!r}, who is archived",
                 f"Remove the '{b}' entry from 'related' (heartcompass edit {shlex.quote(a)}), or bring them "
                 f"back: heartcompass person unarchive {shlex.quote(b)}")
        else:
            line(False, "links", f"people/{a}/PROFILE.md links to {b!r}, who is not in the workspace",
                 f"Fix the 'related' entry (heartcompass edit {shlex.quote(a)}), or add them with "
                 "'heartcompass person add'.")
    for a, b in g.one_sided():
        line(False, "links", f"{a} names {b} in 'related', but {b} does not name {a}",
             f"Add '- {{person: {a}, as: ...}}' to people/{b}/PROFILE.md if the link goes both ways.", warn=True)
    if not g.missing() and not g.one_sided():
        line(True, "links", f"{counted(len(g.edges), 'link')} between people, all mutual")


def _check_names(ws, line) -> None:
    from heartcompass.store.people import all_collisions

    shared = all_collisions(ws)
    for name, people in shared:
        listed = ", ".join(p.slug for p in people[:8]) + (f" and {len(people) - 8} more" if len(people) > 8 else "")
        line(False, "names", f"{name!r} is a name or alias of {len(people)} people ({listed}); looking it up is "
             "ambiguous", f"Remove it from all but one of them (heartcompass edit {shlex.quote(people[-1].slug)}), or "
             "archive a duplicate ('heartcompass person archive SLUG').", warn=True)
    if not shared:
        line(True, "names", "every name and alias belongs to one person")
    from heartcompass.intake.routing import claimed_twice

    for handle, slugs in claimed_twice(ws):
        line(False, "handles", f"the handle {handle!r} is listed by {len(slugs)} people ({', '.join(slugs)}); an "
             "import cannot tell whose it is", f"Keep it in one PROFILE.md: heartcompass edit {shlex.quote(slugs[-1])}",
             warn=True)
    _check_self(ws, line)
    from heartcompass.store.people import user_name_fix, user_name_taken

    user = str(ws.config.get("user.name") or "")
    for c in user_name_taken(ws, user) if user.strip() else []:
        line(False, "names", f"user.name {user!r} is also the {c.as_what} of people/{c.person.slug}: prompts "
             "about them would mix the two of you up", user_name_fix(user, c.person.slug),
             warn=True)


def _check_questions(ws, line) -> None:
    """What waits for the user's Yes (expired ones said once), and a store that does not read back."""
    from heartcompass.memory import review
    from heartcompass.store import clock

    problem = review.store_problem(ws)
    if problem:
        line(False, "questions", f"{problem}; it is set aside as questions.broken", "The gardener asks again at "
             "its next run (the entries are still in the logs).", warn=True)
    found = review.waiting(ws, clock.today(ws), "doctor")
    if found.expired:
        line(False, "questions", f"{len(found.expired)} expired unanswered after "
             f"{ws.config.get('review.expire_days')} days: " + "; ".join(f"{q.person}: {q.what}" for q in found.expired),
             "The gardener asks again when new entries say so (review.expire_days sets how long they wait).",
             warn=True)
    n = len(found.questions)
    line(True, "questions", f"{n} wait{'s' if n == 1 else ''} for your answer: heartcompass review" if n
         else "none waiting")


def _ping_channels(ws, line) -> None:
    """serve's chat apps whose credentials are set: the tokens are checked with the apps."""
    from heartcompass.gateway import runner

    for name in runner.configured(ws):
        try:
            line(True, name, f"credentials accepted ({runner.check_channel(ws, name)})")
        except HeartCompassError as exc:
            line(False, name, exc.message, exc.hint)


def _check_self(ws, line) -> None:
    """One person is the user (relation: self); a second one would chat as a reflection partner."""
    from heartcompass.store.people import list_people

    selves = []
    for person in list_people(ws):
        try:
            if person.load_profile().relation == "self":
                selves.append(person.slug)
        except (HeartCompassError, OSError, UnicodeDecodeError):
            continue  # named by the files check
    if len(selves) > 1:
        others = [s for s in selves if s != "me"] or selves[1:]
        line(False, "self", f"{len(selves)} people have relation: self ({', '.join(selves)}); only the user's own "
             "person may, the others' chats turn into reflection",
             f"Set another relation in their PROFILE.md: heartcompass edit {shlex.quote(others[0])}")


def _ping(ws, settings, line) -> None:
    from langchain_core.messages import HumanMessage

    from heartcompass.llm import providers as llm

    started = time.monotonic()
    try:
        model = llm.make_chat_model(ws, settings)
        reply = model.invoke([HumanMessage(content="Reply with the single word: pong")])
        text = str(reply.content).strip().splitlines()[0][:40] if str(reply.content).strip() else "(empty)"
        line(True, "ping", f"{time.monotonic() - started:.1f}s, replied {text!r}")
    except HeartCompassError as exc:
        line(False, "ping", exc.message, exc.hint)
    except Exception as exc:  # any provider error is the finding here
        line(False, "ping", llm.describe_error(exc, settings),
             "Check llm.base_url / llm.model with 'heartcompass config show', and that the endpoint is running.")
