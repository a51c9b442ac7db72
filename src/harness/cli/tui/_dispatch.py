"""The terminal's command set, running a command line, and the completer's lists.

The commands are declared where they are handled: :mod:`._cmd_info` (what is
shown), :mod:`._cmd_mcp` (an MCP server's prompt as ``/mcp__SERVER__PROMPT``),
:mod:`._cmd_hooks` (the hooks), :mod:`._cmd_model` (provider and model),
:mod:`._cmd_settings` (modes, rules, undo), :mod:`._cmd_rewind` (going back, forking),
:mod:`._cmd_session` (sessions, and leaving). :data:`COMMANDS` gathers them, in that
order, which is the order ``/help`` lists them in.

To add commands: write ``_cmd_<topic>.py`` with handlers declared by
:func:`~harness.cli.tui._commands.command`, each an ``async`` function of a
:class:`~harness.cli.tui._context.CommandContext` and the parsed line (the context's
module says what it holds), and add the module to :data:`COMMANDS` below. A command
module imports ``_commands`` and, under ``TYPE_CHECKING``, ``_context``; never the app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.cli.tui import (
    _cmd_hooks,
    _cmd_info,
    _cmd_mcp,
    _cmd_model,
    _cmd_rewind,
    _cmd_session,
    _cmd_settings,
)
from harness.cli.tui._commands import CommandSet, ParsedCommand
from harness.messages import PROVIDERS

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

__all__ = ["COMMANDS", "SOURCES", "completion_sources", "dispatch"]

COMMANDS = CommandSet(
    _cmd_info, _cmd_mcp, _cmd_hooks, _cmd_model, _cmd_settings, _cmd_rewind, _cmd_session
)
"""Every slash command of the terminal."""

SOURCES = ("@models", "@sessions", "@skills", "@providers", "@commands")
"""The dynamic lists a command's arguments may complete to."""


async def dispatch(ctx: CommandContext, parsed: ParsedCommand) -> None:
    """Run one parsed slash command."""
    await parsed.command.run(ctx, parsed)


def completion_sources(ctx: CommandContext) -> dict[str, Callable[[], list[str]]]:
    """The dynamic lists of :data:`SOURCES`, read from *ctx* when asked."""

    def models() -> list[str]:
        chosen = ctx.choice
        return list(chosen.offered or ([chosen.model] if chosen.model else []))

    def sessions() -> list[str]:
        return [s.title or s.id for s in _cmd_session.session_rows(ctx)]

    def skills() -> list[str]:
        from harness.skills import discover_skills

        return [s.name for s in discover_skills(ctx.workspace, ctx.home)]

    return {
        "@models": models,
        "@sessions": sessions,
        "@skills": skills,
        "@providers": lambda: list(PROVIDERS),
        "@commands": lambda: [c.name for c in ctx.commands],  # the file commands too
    }
