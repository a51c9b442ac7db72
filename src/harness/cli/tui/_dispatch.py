"""The terminal's command set, running a command line, and the completer's lists.

The commands are declared where they are handled: :mod:`._cmd_info` (what is
shown), :mod:`._cmd_model` (provider and model), :mod:`._cmd_settings` (modes,
rules, undo), :mod:`._cmd_session` (sessions, and leaving). :data:`COMMANDS` gathers
them, in that order, which is the order ``/help`` lists them in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.cli.tui import _cmd_info, _cmd_model, _cmd_session, _cmd_settings
from harness.cli.tui._commands import CommandSet, ParsedCommand
from harness.messages import PROVIDERS

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["COMMANDS", "SOURCES", "completion_sources", "dispatch"]

COMMANDS = CommandSet(_cmd_info, _cmd_model, _cmd_settings, _cmd_session)
"""Every slash command of the terminal."""

SOURCES = ("@models", "@sessions", "@skills", "@providers", "@commands")
"""The dynamic lists a command's arguments may complete to."""


async def dispatch(app: App, parsed: ParsedCommand) -> None:
    """Run one parsed slash command."""
    await parsed.command.run(app, parsed)


def completion_sources(app: App) -> dict[str, Callable[[], list[str]]]:
    """The dynamic lists of :data:`SOURCES`, read from *app* when asked."""

    def models() -> list[str]:
        return list(app.model_names or ([app.model] if app.model else []))

    def sessions() -> list[str]:
        return [s.title or s.id for s in _cmd_session.session_rows(app)]

    def skills() -> list[str]:
        from harness.skills import discover_skills

        return [s.name for s in discover_skills(app.workspace, app.home)]

    return {
        "@models": models,
        "@sessions": sessions,
        "@skills": skills,
        "@providers": lambda: list(PROVIDERS),
        "@commands": lambda: [c.name for c in COMMANDS],
    }
