"""What the slash-command handlers share: a printed line, the open session, and a
numbered picker.

A handler is an ``async`` function of the app and the parsed command line, declared
with :func:`~harness.cli.tui._commands.command`; it reports what it cannot do by
raising :class:`~harness.cli.tui._commands.CommandError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._app import App
    from harness.conversation import Session

__all__ = ["live_session", "pick", "say"]


def say(app: App, text: str, style: str = "") -> None:
    """Print one line of *text* (not markup) on the app's console."""
    from rich.text import Text

    app.console.print(Text(text, style=style))


async def live_session(app: App) -> Session:
    """The open session, waiting for it to open.

    Raises:
        CommandError: it could not be opened.
    """
    live = await app.session()
    if live is None:
        raise CommandError(f"no session ({app.open_error}); try /connect")
    return live


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
