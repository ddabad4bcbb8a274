"""heartcompass serve — the personas in Telegram and Feishu/Lark; and
heartcompass today — what is worth acting on."""


import time
from typing import Annotated, Optional

import typer

from heartcompass.cli.common import ModelOption, err, escape, out, print_json, workspace
from heartcompass.errors import HeartCompassError

EXTRAS = {"telegram": ("telegram", "heartcompass[telegram]"), "lark": ("lark_oapi", "heartcompass[lark]")}


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("today")(today)


def serve(
    ctx: typer.Context,
    channel: Annotated[Optional[str], typer.Option("--channel", help="Only this chat app: telegram or lark "
                       "(default: every one whose credentials are set).", show_default=False)] = None,
    pair: Annotated[bool, typer.Option("--pair", help="Print a one-time code; the account that sends it to the bot "
                    "becomes an owner (<channel>.allowed_users).")] = False,
    model: ModelOption = None,
) -> None:
    """Talk to your personas from your phone (Telegram, Feishu/Lark), until stopped (Ctrl-C, SIGTERM)."""
    import importlib.util
    import signal
    import threading

    from heartcompass.gateway import runner
    from heartcompass.llm import providers as llm
    from heartcompass.memory import followups
    from heartcompass.store import clock

    ws = workspace(ctx)
    names = runner.chosen(ws, channel)
    for name in names:
        module, extra = EXTRAS[name]
        if importlib.util.find_spec(module) is None:
            raise HeartCompassError(f"serve --channel {name} needs the {extra} extra.",
                                    f"Install it with: pip install '{extra}'")
    settings = llm.settings(ws, model)
    llm.check_ready(ws, settings)  # a missing model key stops here, not at the first message
    code = runner.pair_code() if pair else None
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())  # finish what is in flight, commit, exit

    def report(text: str) -> None:
        err.print(f"[dim]{time.strftime('%H:%M:%S')}[/] {escape(text)}")

    def ready(gw) -> None:
        owners = {n: ws.config.get(f"{n}.allowed_users") for n in names}
        report(f"serving {', '.join(names)} with {settings.describe()}; owners: "
               + "; ".join(f"{n} {', '.join(o) or 'none yet'}" for n, o in owners.items()))
        if code:
            out.print(f"Send this code to your bot from your own account: [bold]{code}[/] "
                      "(it works once, while this serve runs).")
        elif not any(owners.values()):
            report("nobody may talk to the bot yet: run `heartcompass serve --pair` to pair your account")

    runner.serve(ws, names, stop, make_model=lambda: llm.make_chat_model(ws, settings), settings=settings,
                 report=report, pair=code, on_ready=ready,
                 digest=lambda: followups.digest(followups.with_questions(ws, clock.today(ws))))
    report("stopped")


def today(ctx: typer.Context,
          as_json: Annotated[bool, typer.Option("--json", help="Print the items as JSON.")] = False) -> None:
    """What is worth acting on: birthdays this week, open threads, people you have not talked to for a while."""
    from heartcompass.memory import followups
    from heartcompass.store import clock

    ws = workspace(ctx)
    items = followups.with_questions(ws, clock.today(ws))
    if as_json:
        print_json([{"kind": i.kind, "person": i.slug, "name": i.name, "text": i.text} for i in items])
        return
    for line in followups.digest(items).splitlines():
        out.print(f"[bold]{escape(line)}[/]" if line.endswith(":") else escape(line))
