"""heartcompass chat — the terminal conversation with a persona."""


import sys
import time
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from heartcompass.cli.complete import PersonArg
from heartcompass.cli.common import (ModelOption, discard_stdout, err, escape, out, print_json, remind_questions,
                                     workspace)
from heartcompass.errors import FormatError, HeartCompassError, LLMError
from heartcompass.wording import counted

if TYPE_CHECKING:
    from heartcompass.talk.chat import ChatSession

HELP = """Commands:
  /note TEXT     remember a fact about them (trusted, for the gardener)
  /quote TEXT    keep words they really wrote, as an example of how they write (VOICE.md)
  /context       what the persona knows right now (tokens per section)
  /switch NAME   chat with someone else
  /retry         ask again for a reply to your last message (after an error, or for another answer)
  /new           start a fresh short-term history (memory stays)
  /help          this help
  /exit          leave (Ctrl-D or Ctrl-C work too)"""


def register(app: typer.Typer) -> None:
    app.command("chat")(chat)


def chat(
    ctx: typer.Context,
    name: PersonArg,
    message: Annotated[Optional[str], typer.Option("--message", "-m", help="Send one message, print the reply, "
                       "exit.", show_default=False)] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Time travel: the persona as its files were at a "
                     "date (YYYY-MM-DD) or commit. Logged, and left out of memory.", show_default=False)] = None,
    model: ModelOption = None,
    no_delay: Annotated[bool, typer.Option("--no-delay", help="No typing delay between messages.")] = False,
    burst: Annotated[Optional[bool], typer.Option("--burst/--no-burst", help="IM-like: send several messages; the "
                     "persona replies once you have been quiet for chat.burst_quiet_seconds (default: chat.burst).",
                     show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print replies as JSON (one object per message sent).")
                       ] = False,
) -> None:
    """Chat with a persona grounded in their files. Lines piped on stdin are sent one by one."""
    from heartcompass.llm import providers as llm
    from heartcompass.cli import lookup

    ws = workspace(ctx)
    person = lookup.person(ws, name, asking=not as_json)
    settings = llm.settings(ws, model)
    # The provider (langchain_openai: a second to import) is made when a reply is first asked for;
    # a /note, a bad --as-of or a broken file never waits for it.
    view = ChatView(ws, settings, None, as_of, make_model=lambda: llm.make_chat_model(ws, settings),
                    delays=not no_delay and out.is_terminal and not as_json, as_json=as_json,
                    conversing=message is None and sys.stdin.isatty())
    piped = None if message is not None or sys.stdin.isatty() else sys.stdin.read().splitlines()
    try:
        view.open(person)
    except FormatError as exc:  # the persona cannot answer (a file in conflict): what was typed is kept
        from heartcompass.talk.session import keep_unanswered  # (with --as-of, aside: not today's chat)
        raise keep_unanswered(ws, person, piped or [message or ""], exc, aside=as_of is not None) from None
    if message is None and sys.stdin.isatty():
        llm.check_ready(ws, settings)  # a missing key stops an interactive chat before its first prompt
    remind_questions(ws, quiet=as_json)
    try:
        if message is not None:
            ok = view.send_or_command(message)
        elif not sys.stdin.isatty():
            ok = True
            for line in (line for line in piped or [] if line.strip()):
                if view.output_closed:  # nobody reads the replies any more: send nothing more
                    break
                ok = view.send_or_command(line) and ok
        else:
            ok = view.interactive(ws.config.get("chat.burst") if burst is None else burst)
    finally:
        view.close()
    if not ok:
        raise typer.Exit(1)


class ChatView:
    """Drives a ChatSession and renders it: streamed text, several messages
    with a typing delay, reasoning dimmed, errors as one line."""

    def __init__(self, ws, settings, chat_model, as_of, *, delays: bool, as_json: bool, make_model=None,
                 conversing: bool = False):
        self.ws, self.settings, self.chat_model, self.as_of = ws, settings, chat_model, as_of
        self.conversing = conversing  # the typed conversation (not -m, not piped lines): /retry exists
        self.make_model = make_model  # when chat_model is None: makes it, when a reply is first asked for
        import threading

        self._making = threading.Lock()  # the model is made once, here or by the warm-up thread
        self.delays, self.as_json = delays, as_json
        self.session: ChatSession | None = None  # from open()
        self.output_closed = False  # stdout's reader went away (`| head`)
        low, high = ws.config.get("chat.reply_delay")
        self.delay_range = (float(low), float(high))

    # -- session lifecycle --------------------------------------------------
    def open(self, person) -> None:
        from heartcompass.talk.chat import ChatSession
        from heartcompass.talk.session import commit_before
        from heartcompass.memory.context import parse_time_travel, preview

        # Only a short wait: this commit is a courtesy, the chat's own commit at the end waits longer.
        problem = commit_before(self.ws, person)  # a crashed chat's log, hand edits: their own commits
        if problem and not self.as_json and sys.stdin.isatty():  # the chat goes on: the log never depends on git
            err.print(f"[yellow]Warning:[/] {escape(problem.message)} [dim](Your messages are still logged.)[/]")
        rev, tag = parse_time_travel(self.ws, self.as_of) if self.as_of else (None, None)
        self.session = ChatSession(self.ws, person, self.chat_model, settings=self.settings, rev=rev, tag=tag,
                                   make_model=self.model)
        c = preview(self.ws, person, rev)  # the prompt itself is built once per message, as it is sent
        self.name = "Reflection" if c.voice == "reflection" else c.name  # your own person is not "you"
        for warning in c.warnings:  # said once, at the start
            err.print(f"[yellow]Warning:[/] {escape(warning)}")
        if not self.as_json and sys.stdin.isatty():
            travel = f"  [yellow]time travel: {escape(tag)}[/]" if tag else ""
            out.print(f"[dim]Chatting with[/] [bold magenta]{escape(self.name)}[/] [dim]"
                      f"({escape(self.settings.describe())}). /help for commands.[/]{travel}")

    @property
    def opened(self) -> "ChatSession":  # quoted: typer reads this module's annotations, so no __future__ import
        """The session open() started (every command and message comes after it)."""
        if self.session is None:
            raise RuntimeError("ChatView.open() was not called")
        return self.session

    def close(self) -> None:
        from heartcompass.talk.session import commit_session

        s = self.session
        if s and s.logged:
            count = s.count
            commit_session(self.ws, s)
            if not self.as_json and sys.stdin.isatty():
                out.print(f"[dim]Saved {counted(count, 'entry', 'entries')} to "
                          f"people/{escape(s.person.slug)}/logs/.[/]")

    def model(self):
        """The chat model, made once for the whole chat (/switch keeps it)."""
        with self._making:
            if self.chat_model is None:
                self.chat_model = self.make_model()
        return self.chat_model

    def warm_up(self) -> None:
        """Make the model (import the provider, about a second) in the background
        while the user types the first message: the first reply waits only for
        the model. A failure here (a bad setting) is said when the message is sent."""
        import threading

        def make() -> None:
            try:
                self.model()
            except Exception:  # noqa: BLE001 - raised again, in words, by the first reply
                pass

        if self.chat_model is None and self.make_model is not None:
            threading.Thread(target=make, name="provider-warm-up", daemon=True).start()

    # -- sending --------------------------------------------------------------
    def send(self, text: str) -> bool:
        return self._run(self.opened.send(text), text, unlogged=text)

    def _run(self, events, sent: str, unlogged: str | None = None) -> bool:
        """Show the reply `events` yield. `unlogged`: the message `events`
        logs when it starts, kept even if Ctrl-C comes before it does."""
        import inspect

        from heartcompass.sanitize import StreamStripper

        # Model text reaches the screen without control sequences (the log keeps it verbatim).
        self._screen, self._reasoning_screen = StreamStripper(), StreamStripper()
        replies: list[str] = []
        self._streaming = self._in_reasoning = False
        self._first_message = True
        # Until the first token arrives (a slow model can take many seconds), say so.
        waiting = (out.status(f"[dim]{escape(self.name)} is typing…[/]", spinner="point")
                   if out.is_terminal and not self.as_json else None)
        if waiting:
            waiting.start()
        try:
            self.model()  # inside the indicator; a missing key stops here, before the message is logged
            while True:
                try:
                    for event in events:
                        if waiting:
                            waiting.stop()
                            waiting = None
                        if event.kind == "message":
                            replies.append(event.text)
                        if not self.output_closed:
                            self._show(event)
                    break
                except BrokenPipeError:  # stdout closed (`| head`): the reply is still received and logged whole
                    self._close_output()
        except KeyboardInterrupt:
            if waiting:
                waiting.stop()
            if unlogged and inspect.getgeneratorstate(events) == inspect.GEN_CREATED:
                # Ctrl-C while the provider was still being made: the message was typed, so it is
                # logged, and /retry answers it rather than the message before.
                self.opened.hold(unlogged)
            events.close()  # the partial reply is logged as cut off
            if self._streaming:
                self._print_quietly()
            err.print("[dim](reply interrupted; /retry asks again)[/]" if self.conversing else
                      "[dim](reply interrupted)[/]")
            return True
        except HeartCompassError as exc:
            if waiting:
                waiting.stop()
            if self._streaming:
                self._print_quietly()
            err.print(f"[bold red]Error:[/] {escape(exc.message)}")
            if exc.hint:
                err.print(f"[dim]{escape(exc.hint)}[/]")
            elif isinstance(exc, LLMError) and self.conversing and not self.as_json:
                err.print("[dim]/retry sends your last message again.[/]")
            if self.as_json:
                error = exc.message  # the lambda runs here, but name it: `exc` is unbound after the block
                self._print_quietly(lambda: print_json({"message": sent, "replies": replies, "error": error}))
            return False
        finally:
            if waiting:
                waiting.stop()
        if self.as_json:
            self._print_quietly(lambda: print_json({"person": self.opened.person.slug, "message": sent,
                                                    "replies": replies}))
        elif not replies:
            err.print("[dim](no reply)[/]")
        return True

    def _show(self, event) -> None:
        """One event on the screen: reasoning dimmed, text as it streams, a
        typing delay before each message after the first."""
        if event.kind == "reasoning" and not self.as_json:
            out.print(escape(self._reasoning_screen.feed(event.text)), style="dim italic", end="")
            self._in_reasoning = True
        elif event.kind == "delta" and not self.as_json:
            if self._in_reasoning:
                out.print()
                self._in_reasoning = False
            if not self._streaming:
                if not self._first_message and self.delays:
                    import random  # here: --help loads this module

                    with out.status(f"[dim]{escape(self.name)} is typing…[/]", spinner="point"):
                        time.sleep(random.uniform(*self.delay_range))
                out.print(f"[bold magenta]{escape(self.name)}[/]: ", end="")
                self._streaming = True
            out.print(escape(self._screen.feed(event.text)), end="")
        elif event.kind == "message":
            self._screen.flush()
            if not self.as_json:
                out.print()
            self._streaming, self._first_message = False, False

    def _print_quietly(self, show=lambda: out.print()) -> None:
        if self.output_closed:
            return
        try:
            show()
        except BrokenPipeError:
            self._close_output()

    def _close_output(self) -> None:
        """The reader of stdout went away: print nothing more; the chat still
        logs the whole reply and commits, and exits 0, quietly."""
        self.output_closed = True
        discard_stdout()

    # -- the interactive loop ---------------------------------------------------
    def interactive(self, burst: bool = False) -> bool:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        prompt: PromptSession[str] = PromptSession(history=FileHistory(str(self.ws.state_dir / "chat_history")))
        self.warm_up()
        if burst:
            return self._burst_loop(prompt)
        while True:
            try:
                line = prompt.prompt("you › ")
            except (EOFError, KeyboardInterrupt):
                out.print()
                return True
            if self._typed(line, self.send) == "exit":
                return True

    def _burst_loop(self, prompt) -> bool:
        """Messages are logged as they are typed; the persona answers the
        whole burst once the user has been quiet (each message restarts the
        wait). The first line of a burst uses the line editor; the lines
        that follow are read as typed, so the wait can run meanwhile."""
        import select

        from heartcompass.talk.burst import Burst

        quiet = float(self.ws.config.get("chat.burst_quiet_seconds"))
        burst = Burst(quiet)

        def hold(text: str) -> None:  # logged now, answered with the burst
            self.opened.hold(text)
            burst.add(text)

        out.print(f"[dim]Burst mode: send several messages; {escape(self.name)} replies after {quiet:g} s of "
                  "quiet.[/]")
        while True:
            try:
                line = prompt.prompt("you › ") if not burst.pending else None
                while line is None:
                    remaining = burst.remaining()
                    if out.is_terminal:
                        out.file.write("you › ")  # more may follow; the line is read as typed
                        out.file.flush()
                    if not select.select([sys.stdin], [], [], remaining)[0]:
                        if out.is_terminal:
                            out.file.write("\r\x1b[2K")  # the empty prompt gives way to the reply
                        self._run(self.opened.reply(), "\n".join(burst.take()))
                        break
                    line = sys.stdin.readline()
                    if line == "":  # Ctrl-D: answer what was sent, then leave
                        self._run(self.opened.reply(), "\n".join(burst.take()))
                        return True
            except (EOFError, KeyboardInterrupt):
                out.print()
                if burst.pending:
                    err.print("[dim](left before the reply; your messages are in the log)[/]")
                return True
            if self._typed(line or "", hold) == "exit":
                return True

    def _typed(self, line: str, message) -> str | None:
        """One typed line: a /command (returns "exit" to leave), or a message for `message`."""
        line = line.strip()
        if line.startswith("/"):
            return self.command(line)
        if line:
            message(line)
        return None

    def command(self, line: str) -> str | None:
        cmd, _, arg = line.partition(" ")
        cmd = cmd.lower()
        try:
            if cmd in ("/exit", "/quit", "/q"):
                return "exit"
            if cmd == "/note":
                self.opened.note(arg)
                if self.as_json:
                    print_json({"person": self.opened.person.slug, "note": arg.strip()})
                else:
                    out.print("[dim]Noted: it goes into memory at the next garden.[/]")
            elif cmd == "/quote":
                from heartcompass.memory.voice import quote_and_commit

                sha = quote_and_commit(self.ws, self.opened.person, arg)
                out.print("[dim]Kept in VOICE.md: an example of how they write.[/]" if sha else "[dim]Already kept.[/]")
            elif cmd == "/retry":
                self._run(self.opened.retry(), "")
            elif cmd == "/new":
                self.opened.new_topic()
                out.print("[dim]Fresh start: recent turns are forgotten; memory stays.[/]")
            elif cmd == "/context":
                from heartcompass.cli.context_cmd import print_summary

                print_summary(self.opened.context())
            elif cmd == "/switch":
                from heartcompass.cli import lookup  # asking=False: a select's Ctrl-C would end the chat

                person = lookup.person(self.ws, arg.strip(), asking=False) if arg.strip() else None
                if person is None:
                    raise HeartCompassError("/switch needs a name, e.g. /switch bob.")
                self.close()
                self.open(person)
            elif cmd in ("/help", "/?"):
                out.print(HELP)
            else:  # a mistake: an error (exit 1 with -m or piped lines), and the list to pick from
                err.print(f"[bold red]Error:[/] Unknown command {escape(cmd)}.")
                err.print(HELP)
                return "error"
        except HeartCompassError as exc:
            err.print(f"[bold red]Error:[/] {escape(exc.message)}")
            if exc.hint:  # e.g. a /note the full disk did not take, given back to copy
                err.print(f"[dim]{escape(exc.hint)}[/]")
            return "error"
        return None

    def send_or_command(self, line: str) -> bool:
        """-m and piped lines: a /command works as in the interactive chat; anything else is a message."""
        if line.strip().startswith("/"):
            return self.command(line.strip()) != "error"
        return self.send(line)
