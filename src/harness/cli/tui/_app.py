"""The interactive terminal: the prompt, runs, approvals, and the session behind them.

Input runs in a thread, not as a trio guest. prompt_toolkit is an asyncio
program; ``trio.to_thread.run_sync(session.prompt)`` inside ``patch_stdout()``
gives it a loop of its own on its own thread, while the conversation, the
supervisor and every worker channel stay on trio's main thread exactly as in
headless mode and the Python API. Hosting trio as a guest in asyncio's loop would
put asyncio under every worker message and make trio's signal handling and
``KeyboardInterrupt`` delivery depend on prompt_toolkit's. The price of the thread
is small: while a response runs there is no prompt, so a :class:`KeyReader`
thread reads Esc / Ctrl+C and approval keys instead (:mod:`._runkeys` says what
each does).

The session opens in the background: the prompt is ready before the workers
have started (their imports are not on the path to the first prompt), and the
first line typed waits for the session if it is not ready yet. What it opens
with is settled in :mod:`._model_choice`; the slash commands are gathered in
:mod:`._dispatch`, each declared where it is handled. The app holds the session
only as a :class:`~harness.conversation.Session` and changes it only through its
methods.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from rich.console import Console
from rich.text import Text

from harness._version import __version__
from harness.cli.tui._commands import CommandError, ExitApp, is_command
from harness.cli.tui._completion import HarnessCompleter
from harness.cli.tui._context import Choice, CommandContext
from harness.cli.tui._dispatch import COMMANDS, completion_sources, dispatch
from harness.cli.tui._filecmds import command_set
from harness.cli.tui._input import CTRL_C, FirstLine, build_prompt_session
from harness.cli.tui._model_choice import choose_model, session_options
from harness.cli.tui._prefs import Prefs
from harness.cli.tui._runkeys import RunKeys
from harness.cli.tui._sanitize import clean_line
from harness.conversation import events as ev
from harness.home import harness_home

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from harness.cli.tui._view import RunView
    from harness.conversation import ApprovalRequest, Decision, Session
    from harness.messages.tools import ToolOutcome
    from harness.words import PermissionMode

# This module, rendering (rich's markdown, pygments), the key reader, the
# conversation and the workers are imported after the first prompt is on the
# screen, not before.

__all__ = ["App", "ExitApp"]

_TICK = 0.08

# events drawn between runs too: worker trouble, errors, a title, a compaction
_SHOWN_WHEN_IDLE = (
    ev.WorkerRestarted,
    ev.WorkerExited,
    ev.WorkerGaveUp,
    ev.ErrorEvent,
    ev.TitleChanged,
    ev.Compacted,
)


class App:
    """One interactive terminal session.

    Args:
        args: the parsed command line (``provider``, ``model``, ``base_url``,
            ``permission_mode``, ``resume``, ``continue_``, ... when present).
        console: where to draw (default: stdout).
        environ: the environment (default: ``os.environ``).
        stdin_fd: the terminal the prompt reads (default: 0).
    """

    def __init__(
        self,
        args: argparse.Namespace,
        *,
        console: Console | None = None,
        environ: dict[str, str] | None = None,
        workspace: Path | None = None,
        home: Path | None = None,
        stdin_fd: int = 0,
    ) -> None:
        self.args = args
        self.environ = dict(os.environ if environ is None else environ)
        self.console = console or Console(highlight=False)
        self.workspace = workspace or Path(getattr(args, "workspace", None) or os.getcwd())
        self.workspace = self.workspace.resolve()
        self.home = (home or harness_home(self.environ)).expanduser()
        shown = self.environ.get("HARNESS_SHOW_THINKING", "").strip().lower()
        # --model may be repeated or comma-separated: models to fail over to, in order
        raw = getattr(args, "model", None) or []
        raw = [raw] if isinstance(raw, str) else list(raw)
        models = tuple(m.strip() for r in raw for m in str(r).split(",") if m.strip())
        # the built-in commands, then those kept as files (read once, at start)
        self.commands, self.command_problems = command_set(COMMANDS, self.workspace, self.home)
        self.ctx = CommandContext(
            console=self.console,
            workspace=self.workspace,
            home=self.home,
            environ=self.environ,
            prefs=Prefs(self.home, self.workspace),
            commands=self.commands,
            host=self,
            choice=Choice(fallbacks=models, base_url=getattr(args, "base_url", None)),
            show_thinking=shown in ("1", "on", "yes", "true"),
            trust_project=bool(getattr(args, "trust_project", False)),
        )
        self.live: Session | None = None  # once open
        self.open_error: str | None = None
        self.view: RunView | None = None
        self._resume: str | None = getattr(args, "resume", None)
        self._continue_latest = bool(
            getattr(args, "continue_", False) or getattr(args, "continue_latest", False)
        )
        self._mode: PermissionMode | None = None  # set by the user in the last session
        self._ready = trio.Event()
        self._prompt_drawn = trio.Event()
        self._reopen = trio.Event()
        self._closing = False
        self._result_seen = trio.Event()
        self._keys = RunKeys(self.console, cancel=self.cancel_run, post=self._post_to_run)
        self._ctrl_c = 0
        self._ctrl_c_signalled = False  # a SIGINT between prompts, for the next prompt
        self._stdin_fd = stdin_fd
        self._prompt: PromptSession[str] | None = None
        self._first: FirstLine | None = None  # the first prompt's answer, already on the screen
        self._first_drawn: threading.Event | None = None
        self._first_patch: AbstractContextManager[None] | None = None

    def adopt_prompt(
        self,
        session: PromptSession[str],
        first: FirstLine,
        drawn: threading.Event,
        patched: AbstractContextManager[None],
    ) -> None:
        """Take over the prompt session whose first prompt is already running on a
        thread (*first*: its Future; *drawn*: set once it is on the screen;
        *patched*: the active ``patch_stdout`` to leave when it returns)."""
        self._prompt, self._first, self._first_drawn = session, first, drawn
        self._first_patch = patched

    # -- start-up --------------------------------------------------------------------------

    def _say(self, text: str, style: str = "dim") -> None:
        self.console.print(Text(text, style=style))

    def choose_model(self) -> None:
        """Settle the provider and model: the command line, the workspace's last choice,
        then a reachable Ollama, then the embedded model."""
        choose_model(self.ctx, self.args)

    async def _session_task(self) -> None:
        # Let the prompt draw first: the imports below hold the GIL for a while.
        await self._prompt_drawn.wait()
        await trio.to_thread.run_sync(self.choose_model)
        from harness.conversation import open_session

        while not self._closing:
            self._reopen = trio.Event()
            try:
                options = session_options(
                    self.ctx,
                    self.args,
                    resume=self._resume,
                    continue_latest=self._continue_latest,
                    permission_mode=self._mode,
                )
                async with open_session(options, approver=self.approve, frontend=self) as live:
                    live.workers.start_rest()  # while the user types: a first call finds them up
                    self.live, self.open_error = live, None
                    self._resume, self._continue_latest = None, False
                    self.ctx.notes.title = live.title
                    for problem in live.problems:
                        self._say(f"  {clean_line(problem)}", "yellow")
                    if live.resumed:
                        n = len(live.history)
                        self._say(f"resumed session {live.id} ({n} messages)")
                        from harness.cli.tui._recap import recap

                        for part in recap(live.history, width=self.console.width):
                            self.console.print(part)
                    chan = live.events()
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(self._consume, chan)
                        self._ready.set()
                        await self._reopen.wait()
                        nursery.cancel_scope.cancel()
            except Exception as exc:  # one sentence, never a trace
                self.open_error = _sentence(exc)
                self._say(f"could not start the session: {self.open_error}", "red")
                self._resume, self._continue_latest = None, False
                self._ready.set()
                await self._reopen.wait()
            finally:
                self.live = None

    async def reopen(self, resume: str | None = None) -> None:
        """Close the session and open another (``/clear``, ``/resume``, ``/load``):
        *resume* names the one to continue, ``None`` starts a new one. The permission
        mode the user set goes on into the next one."""
        self._resume, self._continue_latest = resume, False
        if self.live is not None:
            self._mode = self.live.permission_mode
        self._ready = trio.Event()
        self._reopen.set()
        await self._ready.wait()

    async def session(self) -> Session | None:
        """The open session, waiting for it to open (``None`` when it failed)."""
        if not self._ready.is_set():
            with self.console.status("starting workers…", spinner="dots"):
                await self._ready.wait()
        return self.live

    async def _consume(self, chan: trio.MemoryReceiveChannel[ev.ConversationEvent]) -> None:
        from harness.cli.tui._view import RunView

        idle = RunView(self.console, live=False)
        async with chan:
            async for event in chan:
                if self.view is not None:
                    self.view.handle(event)
                elif isinstance(event, _SHOWN_WHEN_IDLE):
                    idle.handle(event)
                self._note(event)

    def _note(self, event: ev.ConversationEvent) -> None:
        # what the app keeps of the events, for the toolbar, /status and /agents
        notes = self.ctx.notes
        match event:
            case ev.TitleChanged():
                notes.title = event.title
            case ev.UsageReported(prompt_tokens=int(tokens)) if tokens:
                notes.prompt_tokens = tokens
            case ev.SubagentStarted():
                notes.subagents[event.name] = f"running: {event.task}"
            case ev.SubagentProgress():
                tool = f", {event.tool}" if event.tool else ""
                notes.subagents[event.name] = (
                    f"running: turn {event.turn}{tool}, {event.tokens:,} tokens, "
                    f"{event.elapsed:.0f}s"
                )
            case ev.SubagentFinished():
                notes.subagents[event.name] = "finished" if event.ok else "failed"
            case ev.Result():
                self._result_seen.set()
            case ev.ModelProgress(stage=stage, message=message) if stage not in (
                "reading",
                "nudged",
            ):
                # the toolbar says the model is loading until it is ready (or why not)
                notes.model_status = "" if stage == "ready" else clean_line(message)[:80]
                self._redraw_prompt()

    # -- running a prompt ------------------------------------------------------------------

    def cancel_run(self) -> None:
        """Stop the running response (Esc, Ctrl+C)."""
        if self.live is not None:
            self.live.cancel()

    def _post_to_run(self, line: str) -> bool:
        # a line finished while a run goes joins it through the session's inbox
        if self.live is None or self.view is None:
            return False
        self.live.post(line)
        return True

    async def _ticker(self, view: RunView) -> None:
        while True:
            view.tick()
            await trio.sleep(_TICK)

    async def run_prompt(self, text: str) -> None:
        """Send *text* to the model and draw the run until its result."""
        from harness.cli.tui._view import RunView

        live = await self.session()
        if live is None:
            self._say(f"no session: {self.open_error}. Try /connect.", "red")
            return
        view = RunView(
            self.console,
            show_thinking=self.ctx.show_thinking,
            provider=self.ctx.choice.provider,
            model=self.ctx.choice.model,
        )
        self.view = view
        self._result_seen = trio.Event()
        self._keys.start()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._ticker, view)
                try:
                    await live.run(text)
                except Exception as exc:
                    view.handle_error(_sentence(exc))
                with trio.move_on_after(2):
                    await self._result_seen.wait()
                nursery.cancel_scope.cancel()
        finally:
            self._keys.stop()
            view.close()
            self.view = None
            tools = self.ctx.notes.tools
            tools.extend(view.finished_tools)
            del tools[:-50]

    async def approve(self, request: ApprovalRequest) -> Decision:
        """The conversation's approver: show the call, wait for y / n / a."""
        from harness.cli.tui._approval import approval_renderable

        view = self.view
        if view is not None:
            view.pause()
        self.console.print(approval_renderable(request, width=self.console.width))
        decision = await self._keys.decision()
        label = {"yes": "approved", "always": "approved (always)", "no": "denied"}[decision]
        self._say(f"  → {label}", "green" if decision != "no" else "yellow")
        if view is not None:
            view.resume()
        return decision

    async def frontend_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """The conversation's frontend: ask the user (``get_user_input``) or have a
        plan reviewed (``submit_plan``); see :mod:`._ask`."""
        from harness.cli.tui._ask import answer_questions, review_plan

        if name == "submit_plan":
            return await review_plan(self.ctx, arguments)
        return await answer_questions(self.ctx, arguments)

    @asynccontextmanager
    async def holding_terminal(self) -> AsyncIterator[None]:
        """The terminal handed to a question asked mid-run: the live region off the
        screen and the run's key reader stopped, both back afterwards."""
        view, reading = self.view, self._keys.reading
        if view is not None:
            view.pause()
        self._keys.stop()
        await self._keys.settled()
        try:
            yield
        finally:
            if reading:
                self._keys.start()
            if view is not None:
                view.resume()

    # -- the loop --------------------------------------------------------------------------

    def toolbar(self) -> str:
        """The line under the prompt: who answers (and, while the embedded model loads,
        how far it is), the permission mode, the way out."""
        live = self.live
        mode = live.permission_mode if live is not None else "ask"
        loading = self.ctx.notes.model_status
        said = f"{loading} · " if loading else ""
        return f" {said}{self.ctx.choice.label()} · {mode} · /help · Ctrl+D exits"

    def _redraw_prompt(self) -> None:
        # the prompt runs on its own thread; invalidate() only asks its loop to redraw
        app = self._prompt.app if self._prompt is not None else None
        if app is not None and app.is_running:
            app.invalidate()

    async def read_line(self, prompt: str | None = None) -> str:
        """One line from the user (prompt_toolkit on its own thread)."""
        try:
            return await self._read_line(prompt)
        finally:
            # The prompt gives the terminal back in line mode, where an Enter typed
            # before the next prompt (while a command's output is drawn) would
            # arrive as a line feed: Ctrl+J, a new line instead of sending it.
            from harness.cli.tui._keys import keep_enter_a_return

            keep_enter_a_return(self._stdin_fd)

    async def _read_line(self, prompt: str | None) -> str:
        from prompt_toolkit.patch_stdout import patch_stdout

        if self._ctrl_c_signalled:
            self._ctrl_c_signalled = False
            return CTRL_C
        if self._first is not None:
            first, self._first = self._first, None
            try:
                return str(await trio.to_thread.run_sync(first.result))
            finally:
                if self._first_patch is not None:
                    self._first_patch.__exit__(None, None, None)
        await self._keys.settled()  # a line typed as the run ended is whole
        if self._keys.queued and prompt is None:
            line = self._keys.queued.pop(0)
            self.console.print(Text.assemble(("❯ ", "bold cyan"), clean_line(line)))
            return line
        session = self._prompt
        if session is None:
            raise RuntimeError("the prompt is built by main()")
        token = trio.lowlevel.current_trio_token()

        def drawn() -> None:
            token.run_sync_soon(self._prompt_drawn.set)

        if prompt is not None:
            return await self._read_answer(prompt)
        with patch_stdout(raw=True):
            ahead, self._keys.typeahead = self._keys.typeahead, ""
            return await trio.to_thread.run_sync(
                lambda: session.prompt(pre_run=drawn, default=ahead)
            )

    async def _read_answer(self, label: str) -> str:
        # A picker's answer has a prompt session of its own: a message given to the
        # main one's prompt() stays its message, so the picker's label would remain on
        # the main prompt (and a number typed there would go to the model).
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        session: PromptSession[str] = PromptSession()
        with patch_stdout(raw=True):
            try:
                return await trio.to_thread.run_sync(lambda: session.prompt(label))
            except KeyboardInterrupt:  # Ctrl+C cancels the picker, as Enter does
                return CTRL_C

    async def read_secret(self, label: str) -> str:
        """A line typed without echo and kept out of the history (an API key)."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        session: PromptSession[str] = PromptSession(is_password=True)
        with patch_stdout(raw=True):
            try:
                return await trio.to_thread.run_sync(lambda: session.prompt(label))
            except (EOFError, KeyboardInterrupt):
                return ""

    async def main(self) -> int:
        """Run until the user leaves; the exit status."""
        if self._prompt is None:
            self.console.print(
                Text.assemble(
                    ("harness ", "bold cyan"), (__version__, "cyan"), (f"  {self.workspace}", "dim")
                )
            )
            self._prompt = build_prompt_session(
                history_path=self.home / "history",
                completer=HarnessCompleter(
                    self.workspace, self.commands, completion_sources(self.ctx)
                ),
                toolbar=self.toolbar,
            )
        elif self._first_drawn is not None:
            await trio.to_thread.run_sync(self._first_drawn.wait, 2.0)
            self._prompt_drawn.set()
        for problem in self.command_problems:
            self._say(f"  {clean_line(problem)}", "yellow")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._session_task)
            hearing = trio.CancelScope()
            nursery.start_soon(self._hear_sigint, hearing)
            try:
                await self._loop()
            finally:
                hearing.cancel()  # a SIGINT while the session closes ends harness
                self._closing = True
                self._reopen.set()
        return 0

    async def _hear_sigint(self, scope: trio.CancelScope) -> None:
        """A SIGINT is a Ctrl+C. The terminal sends one for Ctrl+C only while harness
        is not reading keys itself (between two prompts, as a session opens), and
        ``kill -INT`` sends one at any time; left to trio, it became a
        ``KeyboardInterrupt`` raised in whatever ran next (the next run, with a
        traceback). Here it cancels a run, clears or leaves the prompt as the key does,
        or is kept for the next prompt."""
        with scope, trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                app = self._prompt.app if self._prompt is not None else None
                if self.view is not None:
                    self.cancel_run()
                elif app is not None and app.is_running and app.loop is not None:
                    app.loop.call_soon_threadsafe(_ctrl_c_at, app)
                else:
                    self._ctrl_c_signalled = True

    async def _loop(self) -> None:
        while True:
            try:
                line = await self.read_line()
            except EOFError:
                return
            if line == CTRL_C:
                self._ctrl_c += 1
                if self._ctrl_c >= 2:
                    return
                self._say("(Ctrl+C again, or Ctrl+D, to exit)")
                continue
            self._ctrl_c = 0
            if not line.strip():
                continue
            if is_command(line):
                try:
                    await dispatch(self.ctx, self.commands.parse(line))
                except CommandError as exc:
                    self._say(str(exc), "yellow")
                except ExitApp:
                    return
                except Exception as exc:  # a command failing must not end the session
                    self._say(f"/{line.strip()[1:].split(' ')[0]} failed: {_sentence(exc)}", "red")
                continue
            await self.run_prompt(line)


def _ctrl_c_at(app: Any) -> None:
    """What the Ctrl+C key does at the prompt (in the prompt's own thread)."""
    if app.current_buffer.text:
        app.current_buffer.reset()
    else:
        app.exit(result=CTRL_C)


def _sentence(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]  # a failure inside a nursery comes as a group of one
    if isinstance(exc, OSError):
        from harness.cli._errors import os_error_line

        return clean_line(os_error_line(exc))[:600]  # two paths and the way out
    text = clean_line(str(exc)) or type(exc).__name__
    return text[:300]
