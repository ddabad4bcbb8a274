"""`heartcompass serve`, without the terminal: which channels are
configured, their credentials (environment or .env only), one `serve` per
workspace, and the order of a clean stop: stop receiving, answer what was
received, commit, close the channels."""

from __future__ import annotations

import os
import secrets
import threading
from typing import Any, Callable

from heartcompass.errors import HeartCompassError, MissingKeyError
from heartcompass.gateway.core import Gateway
from heartcompass.gateway.state import state_for
from heartcompass.store.workspace import Workspace

CHANNELS = ("telegram", "lark")
CREDENTIALS = {"telegram": ("TELEGRAM_BOT_TOKEN",), "lark": ("LARK_APP_ID", "LARK_APP_SECRET")}
AT_STOP_WAIT = 120.0  # seconds serve waits for the commit at stop: an app that never answers never keeps it running


def credential(ws: Workspace, var: str) -> str | None:
    from heartcompass.llm.settings import read_dotenv

    return os.environ.get(var) or read_dotenv(ws.root / ".env").get(var) or None


def configured(ws: Workspace) -> list[str]:
    """The channels whose credentials are set."""
    return [c for c in CHANNELS if all(credential(ws, v) for v in CREDENTIALS[c])]


def chosen(ws: Workspace, channel: str | None) -> list[str]:
    """--channel NAME, else every configured channel; a clear error when none is."""
    if channel is not None and channel not in CHANNELS:
        raise HeartCompassError(f"Unknown channel {channel!r}.", "Use --channel telegram or --channel lark.")
    names = [channel] if channel else configured(ws)
    if not names:
        raise MissingKeyError("No chat app is configured for serve.",
                              f"Put TELEGRAM_BOT_TOKEN=... (from @BotFather), or LARK_APP_ID=... and "
                              f"LARK_APP_SECRET=..., in {ws.root / '.env'} (git-ignored).")
    for name in names:
        for var in CREDENTIALS[name]:
            if not credential(ws, var):
                raise MissingKeyError(f"{var} is not set, so serve cannot reach {name}.",
                                      f"Put '{var}=...' in {ws.root / '.env'} (git-ignored), or export it.")
    return names


def check_channel(ws: Workspace, name: str) -> str:
    """`doctor --ping`: one request to the app with the credentials; what it said, or a clear error."""
    if name == "telegram":
        import asyncio

        from heartcompass.gateway.telegram import check_token

        return asyncio.run(check_token(credential(ws, "TELEGRAM_BOT_TOKEN") or "", ws.config.get("telegram.api_base")))
    from heartcompass.gateway.lark import check_app

    return check_app(credential(ws, "LARK_APP_ID") or "", credential(ws, "LARK_APP_SECRET") or "",
                     ws.config.get("lark.domain"))


def pair_code() -> str:
    """A one-time code to send to the bot from the owner's account."""
    return f"pair-{secrets.token_hex(3)}"


def make_channel(ws: Workspace, name: str, state: Any, report: Callable[[str], None], poll_timeout: float) -> Any:
    if name == "telegram":
        from heartcompass.gateway.telegram import TelegramChannel

        return TelegramChannel(credential(ws, "TELEGRAM_BOT_TOKEN") or "", ws.config.get("telegram.api_base"),
                               state, poll_timeout=poll_timeout, report=report)
    from heartcompass.gateway.lark import LarkChannel

    return LarkChannel(credential(ws, "LARK_APP_ID") or "", credential(ws, "LARK_APP_SECRET") or "",
                       ws.config.get("lark.domain"), report=report)


def serve(ws: Workspace, names: list[str], stop: threading.Event, *, make_model: Callable[[], Any],
          settings: Any = None, report: Callable[[str], None] = lambda s: None, pair: str | None = None,
          poll_timeout: float = 25.0, quiet: float | None = None, delays: tuple[float, float] | None = None,
          digest: Callable[[], str | None] | None = None, on_ready: Callable[[Gateway], None] | None = None,
          channels: dict[str, Any] | None = None) -> Gateway:
    """Run until `stop` is set (SIGTERM, Ctrl-C). `channels` replaces the
    real ones (benchmarks). Returns the gateway, for its numbers."""
    from heartcompass.store.lock import FileLock, busy_error, holder

    lock = ws.state_dir / "serve.lock"
    owner = holder(lock)
    if owner is not None:  # another serve, for its whole run: refused at once (FileLock waits for a "short" holder)
        raise busy_error(lock, owner)
    with FileLock(lock, "serve", wait=0):  # one poller per bot
        states = {n: state_for(ws.state_dir, n) for n in names}
        made = channels or {n: make_channel(ws, n, states[n], report, poll_timeout) for n in names}
        gw = Gateway(ws, made, states, make_model=make_model, settings=settings, quiet=quiet, delays=delays,
                     report=report, pair_code=pair, digest=digest)
        started = []
        # SIGTERM commits what was logged at once, even while the worker waits on a slow app's API.
        at_stop = threading.Thread(target=_commit_at_stop, args=(gw, stop, report), name="commit-at-stop",
                                   daemon=True)
        at_stop.start()
        try:
            for name, channel in made.items():
                if hasattr(channel, "start"):
                    channel.start(gw, stop)
                    started.append(channel)
                report(f"{name}: listening")
            if on_ready:
                on_ready(gw)
            gw.run(stop)
        finally:
            stop.set()
            for channel in started:
                channel.close()
            at_stop.join(timeout=AT_STOP_WAIT)
            _commit_at_stop(gw, stop, report)  # a message a channel handed over while the worker finished
            for state in states.values():
                try:
                    state.make_durable()
                except HeartCompassError as exc:
                    report(f"state not saved: {exc.message}")
        return gw


def _commit_at_stop(gw: Gateway, stop: threading.Event, report: Callable[[str], None]) -> None:
    stop.wait()
    try:
        gw.commit_all()
    except Exception as exc:  # said, never a thread's traceback: the logs stay for the next command
        report(f"not committed at stop: {type(exc).__name__}: {exc}")
