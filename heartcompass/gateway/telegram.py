"""Telegram by long polling (python-telegram-bot's Bot: getUpdates,
sendMessage, sendChatAction, setMyCommands). No public URL is needed.

The library is async; the gateway core is not. The bot's event loop runs in
this channel's own thread; the core's worker sends through it
(`run_coroutine_threadsafe`), and each update is handed to the core in a
helper thread, so the loop stays free to send the core's answers. The next
update offset is saved with the state after each update is handled, so a
restart neither loses nor repeats one."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from heartcompass.errors import HeartCompassError
from heartcompass.gateway import replies
from heartcompass.gateway.core import Gateway, Incoming
from heartcompass.gateway.state import ChannelState

TOKEN_VAR = "TELEGRAM_BOT_TOKEN"
SEND_TIMEOUT = 60.0
CLOSE_WAIT = 30.0  # seconds close waits for the bot's thread: an app that hangs never keeps serve running


def missing_extra() -> HeartCompassError:
    return HeartCompassError("The Telegram channel needs python-telegram-bot.",
                             "Install it with: pip install 'heartcompass[telegram]'")


def make_bot(token: str, api_base: str) -> Any:
    try:
        from telegram import Bot
    except ImportError:
        raise missing_extra() from None
    # The library logs a reply it cannot parse with its traceback (to stderr, through logging's last
    # resort); the poll below names it in one line instead.
    logging.getLogger("telegram").addHandler(logging.NullHandler())
    base = api_base.rstrip("/")
    return Bot(token, base_url=f"{base}/bot", base_file_url=f"{base}/file/bot")


async def check_token(token: str, api_base: str) -> str:
    """`doctor --ping`: the bot's @name, or a clear error."""
    from telegram.error import InvalidToken, TelegramError

    bot = make_bot(token, api_base)
    try:
        async with bot:
            return f"@{bot.username}"
    except InvalidToken:
        raise HeartCompassError(f"Telegram refuses {TOKEN_VAR}: the token is not valid.",
                                "Copy the token @BotFather gave you again, into .env.") from None
    except TelegramError as exc:
        raise HeartCompassError(f"Telegram at {api_base} did not answer: {exc}.",
                                "Check the network, or telegram.api_base.") from None


class TelegramChannel:
    name = "telegram"

    def __init__(self, token: str, api_base: str, state: ChannelState, poll_timeout: float = 25.0,
                 report=lambda s: None):
        self.bot = make_bot(token, api_base)
        self.api_base = api_base
        self.state, self.poll_timeout, self.report = state, poll_timeout, report
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    # -- lifecycle ---------------------------------------------------------------
    def start(self, gateway: Gateway, stop: threading.Event) -> None:
        """Connect (a bad token is an error here), then poll until `stop`."""
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main(gateway, stop)),
                                        name="telegram", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error:
            raise self._error

    def close(self) -> None:
        """After the worker is done: the loop stops sending and shuts down."""
        self._closed.set()
        if self._thread:
            self._thread.join(timeout=CLOSE_WAIT)

    async def _main(self, gateway: Gateway, stop: threading.Event) -> None:
        from telegram import BotCommand
        from telegram.error import InvalidToken, TelegramError

        self.loop = asyncio.get_running_loop()
        try:
            await self.bot.initialize()
        except InvalidToken:
            self._error = HeartCompassError(f"Telegram refuses {TOKEN_VAR}: the token is not valid.",
                                            "Copy the token @BotFather gave you again, into .env.")
        except TelegramError as exc:
            self._error = HeartCompassError(f"Telegram at {self.api_base} did not answer: {exc}.",
                                            "Check the network, or telegram.api_base.")
        self._ready.set()
        if self._error:
            return
        try:
            await self.bot.set_my_commands([BotCommand(c, d) for c, d in replies.MENU])
        except TelegramError as exc:  # the menu is a nicety
            self.report(f"telegram: command menu not set: {exc}")
        poll = asyncio.create_task(self._poll(gateway, stop))
        await asyncio.to_thread(stop.wait)
        poll.cancel()  # the offset is saved after each update: nothing is lost by stopping mid-poll
        try:
            await poll
        except asyncio.CancelledError:
            pass
        await asyncio.to_thread(self._closed.wait)  # the worker may still be sending its last replies
        try:
            await self.bot.shutdown()
        except TelegramError:
            pass

    async def _poll(self, gateway: Gateway, stop: threading.Event) -> None:
        from telegram.error import TelegramError

        backoff = 1.0
        while not stop.is_set():
            try:
                updates = await self.bot.get_updates(offset=self.state.offset or None, timeout=self.poll_timeout,
                                                     allowed_updates=["message", "callback_query"])
                backoff = 1.0
            except TelegramError as exc:  # the network, a conflict with another poller: wait and try again
                self.report(f"telegram: getUpdates failed ({self._named(exc)}); trying again in {backoff:g} s")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 60.0)
                continue
            for update in updates:
                incoming = await self._incoming(update)
                self.state.offset = update.update_id + 1
                if incoming is None:
                    self.state.save()
                    continue
                await asyncio.to_thread(gateway.receive, incoming)
                if update.callback_query:
                    try:
                        await update.callback_query.answer()
                    except TelegramError:
                        pass

    def _named(self, exc: Exception) -> str:
        """What went wrong, in words: a page that is not the Bot API's JSON (a proxy's) is not a traceback."""
        text = str(exc)
        if "Invalid server response" in text or "Parsing the server response" in text:
            return (f"{self.api_base} answered with something that is not the Bot API's JSON, such as a proxy's "
                    "error page; check telegram.api_base and the network")
        return text[:300]

    async def _incoming(self, update: Any) -> Incoming | None:
        if update.callback_query and update.callback_query.message:
            q = update.callback_query
            return Incoming(self.name, str(q.message.chat.id), str(q.from_user.id), f"cb:{q.id}", button=q.data or "",
                            private=q.message.chat.type == "private")
        m = update.message
        if m is None or m.from_user is None:
            return None
        image = None
        if m.photo:
            try:
                image = bytes(await (await m.photo[-1].get_file()).download_as_bytearray())
            except Exception as exc:  # the caption is still handled; the photo is said to be missing
                self.report(f"telegram: photo not downloaded: {exc}")
        return Incoming(self.name, str(m.chat.id), str(m.from_user.id), f"{m.chat.id}:{m.message_id}",
                        text=m.text or m.caption or "", image=image, private=m.chat.type == "private")

    # -- sending (from the core's threads) -------------------------------------------
    def _call(self, coro) -> Any:
        # Not started yet, or its loop has ended (closed, or died): refused at once, never a wait of SEND_TIMEOUT.
        if self.loop is None or not self.loop.is_running():
            coro.close()
            raise HeartCompassError("The Telegram connection is closed.")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(SEND_TIMEOUT)

    def send(self, chat: str, text: str) -> None:
        for start in range(0, max(len(text), 1), 4000):  # Telegram's limit is 4096 characters
            self._call(self.bot.send_message(int(chat), text[start:start + 4000] or "…"))

    def ask(self, chat: str, text: str, choices: list[tuple[str, str]]) -> None:
        from telegram import InlineKeyboardButton, InlineKeyboardMarkup

        markup = InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in choices]])
        self._call(self.bot.send_message(int(chat), text[:4000], reply_markup=markup))

    def typing(self, chat: str) -> None:
        from telegram.constants import ChatAction

        self._call(self.bot.send_chat_action(int(chat), ChatAction.TYPING))
