"""What a slash command is handed: a :class:`CommandContext`, not the whole app.

Adding a command:

1. Write a module ``_cmd_<topic>.py`` in this package. Declare each command with
   :func:`~harness.cli.tui._commands.command` above an ``async`` handler of
   ``(ctx: CommandContext, p: ParsedCommand)``; import ``CommandContext`` under
   ``TYPE_CHECKING`` only, so no command module imports the app.
2. Add the module to :data:`~harness.cli.tui._dispatch.COMMANDS` (its order is
   ``/help``'s order).
3. Report what cannot be done by raising
   :class:`~harness.cli.tui._commands.CommandError` (one line for the user); print
   with :meth:`CommandContext.say`, never ``print``.

What a handler may use is all here: the console and the folders, the session
(:meth:`CommandContext.session` waits for it and fails with a clear line when there
is none), who answers (:class:`Choice`), what the terminal noted of the session's
events (:class:`Notes`), the saved preferences, and a few things only the app can
do (:class:`Host`: read a line, open another session, send a prompt).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from harness.cli.tui._commands import CommandError
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from rich.console import Console

    from harness.cli.tui._commands import CommandSet
    from harness.cli.tui._prefs import Prefs
    from harness.cli.tui._timeline import ToolRecord
    from harness.conversation import Session

__all__ = ["Choice", "CommandContext", "Host", "Notes"]


class Choice:
    """Who answers: the provider, the model (then the models to fail over to), the
    address, and the models the provider last offered (for completion)."""

    def __init__(
        self,
        provider: str = "",
        model: str = "",
        fallbacks: tuple[str, ...] = (),
        base_url: str | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.fallbacks = fallbacks
        self.base_url = base_url
        self.offered: list[str] = []

    def label(self) -> str:
        """``provider:model``, or the provider alone while no model is chosen."""
        return f"{self.provider}:{self.model}" if self.model else self.provider


class Notes:
    """What the terminal keeps of the session's events, for ``/status``, ``/agents``,
    ``/expand`` and ``/title``."""

    def __init__(self) -> None:
        self.title = ""
        self.prompt_tokens = 0  # what the provider counted for the last request
        self.subagents: dict[str, str] = {}  # name -> what it is doing
        self.tools: list[ToolRecord] = []  # the finished tool calls, the last 50
        self.model_status = ""  # the embedded model loading ("loading model 60%"), or ""


class Host(Protocol):
    """What only the app can do for a command."""

    @property
    def live(self) -> Session | None:
        """The open session, or ``None`` while none is open."""

    @property
    def open_error(self) -> str | None:
        """Why the last session could not open (``None``: it opened)."""

    async def session(self) -> Session | None:
        """The open session, waiting for start-up to settle (``None``: it failed)."""

    async def reopen(self, resume: str | None = None) -> None:
        """Close the session and open another: *resume* names the one to continue, or
        ``None`` for a new one."""

    async def read_line(self, prompt: str) -> str:
        """One line typed at *prompt* (``EOFError`` on Ctrl+D)."""

    async def read_secret(self, label: str) -> str:
        """A line typed without echo and kept out of the history."""

    async def run_prompt(self, text: str) -> None:
        """Send *text* to the model as the user's message and draw the run."""

    def cancel_run(self) -> None:
        """Stop the running response."""

    def holding_terminal(self) -> AbstractAsyncContextManager[None]:
        """The terminal handed over mid-run (the live region and key reader off)."""


class CommandContext:
    """What a slash command (and a question asked mid-run) is handed.

    Args:
        console: where to draw.
        workspace: the folder harness works in.
        home: the harness home folder.
        environ: the environment harness started with.
        prefs: the choices saved for this workspace.
        commands: every slash command (for ``/help``).
        host: what only the app can do.
        choice: who answers (shared with the app, which opens sessions with it).
        notes: what the terminal noted of the session's events.
        show_thinking: whether the model's thinking is drawn (dimmed).
        trust_project: ``--trust-project`` was given: the project's files count for this
            run as if trusted (``/hooks`` shows them so).
    """

    def __init__(
        self,
        *,
        console: Console,
        workspace: Path,
        home: Path,
        environ: Mapping[str, str],
        prefs: Prefs,
        commands: CommandSet,
        host: Host,
        choice: Choice | None = None,
        notes: Notes | None = None,
        show_thinking: bool = False,
        trust_project: bool = False,
    ) -> None:
        self.console = console
        self.workspace = workspace
        self.home = home
        self.environ = environ
        self.prefs = prefs
        self.commands = commands
        self.host = host
        self.choice = choice or Choice()
        self.notes = notes or Notes()
        self.show_thinking = show_thinking
        self.trust_project = trust_project

    @property
    def live(self) -> Session | None:
        """The open session, without waiting (``None`` while none is open)."""
        return self.host.live

    def say(self, text: str, style: str = "") -> None:
        """Print one line of *text* (not markup) on the console."""
        from rich.text import Text

        self.console.print(Text(text, style=style))

    async def session(self) -> Session:
        """The open session, waiting for it to open.

        Raises:
            CommandError: it could not be opened.
        """
        live = await self.host.session()
        if live is None:
            raise CommandError(f"no session ({self.host.open_error}); try /connect")
        return live

    async def pick(self, rows: list[str], what: str) -> int | None:
        """A numbered picker; the index chosen, or ``None`` (Enter / Ctrl+C / Ctrl+D)."""
        for i, row in enumerate(rows, 1):
            self.say(f"  {i:>2}. {clean_line(row)}")
        try:
            answer = (await self.host.read_line(f"{what} (number, Enter cancels): ")).strip()
        except EOFError:
            return None
        if not answer.isdigit() or not 1 <= int(answer) <= len(rows):
            if answer and answer != "\x03":
                self.say(f"no {what} {answer!r}", "yellow")
            return None
        return int(answer) - 1
