"""What the slash-command handlers share: a printed line, the live session, a worker
request, and a numbered picker.

A handler is an ``async`` function of the app and the parsed command line; it
reports what it cannot do by raising :class:`~harness.cli.tui._commands.CommandError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from harness.cli.tui._commands import CommandError, ParsedCommand
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["Handler", "live_session", "pick", "request", "say"]

#: what runs one slash command
Handler = Callable[["App", ParsedCommand], Awaitable[None]]


def say(app: App, text: str, style: str = "") -> None:
    """Print one line of *text* (not markup) on the app's console."""
    app.console.print(Text(text, style=style))


async def live_session(app: App) -> Any:
    """The live session, waiting for it to open.

    Raises:
        CommandError: it could not be opened.
    """
    live = await app.session()
    if live is None:
        raise CommandError(f"no session ({app.open_error}); try /connect")
    return live


async def request(app: App, worker: str, msg: Any, timeout: float = 30) -> Any:
    """Send *msg* to the session's *worker* and return its reply.

    Raises:
        CommandError: no session, or no such worker in it.
    """
    live = await live_session(app)
    sup = live.engine.supervisor
    if worker not in sup:
        raise CommandError(f"there is no {worker} worker in this session")
    return await sup.get(worker).request(msg, timeout=timeout)


async def pick(app: App, rows: list[str], what: str) -> int | None:
    """A numbered picker; the index chosen, or ``None`` (Enter / Ctrl+C / Ctrl+D)."""
    for i, row in enumerate(rows, 1):
        say(app, f"  {i:>2}. {clean_line(row)}")
    try:
        answer = (await app.read_line(f"{what} (number, Enter cancels): ")).strip()
    except EOFError:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(rows):
        if answer and answer != "\x03":
            say(app, f"no {what} {answer!r}", "yellow")
        return None
    return int(answer) - 1
