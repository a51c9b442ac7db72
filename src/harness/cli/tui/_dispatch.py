"""Which handler runs each slash command, and the completer's dynamic argument lists.

The handlers live by what they are about: :mod:`._cmd_info` (what is shown),
:mod:`._cmd_model` (provider and model), :mod:`._cmd_settings` (modes, rules,
undo), :mod:`._cmd_session` (sessions). This table is the one place that maps a
command name to its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.cli.tui import _cmd_info as info
from harness.cli.tui import _cmd_model as model
from harness.cli.tui import _cmd_session as session
from harness.cli.tui import _cmd_settings as settings
from harness.cli.tui._cmd_common import Handler
from harness.cli.tui._commands import COMMANDS, CommandError, ParsedCommand
from harness.messages import PROVIDERS

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["HANDLERS", "completion_sources", "dispatch"]

#: command name (as in :data:`~harness.cli.tui._commands.COMMANDS`) -> its handler
HANDLERS: dict[str, Handler] = {
    "help": info.cmd_help,
    "connect": model.cmd_connect,
    "model": model.cmd_model,
    "status": info.cmd_status,
    "undo": settings.cmd_undo,
    "autocommit": settings.cmd_autocommit,
    "automode": settings.cmd_automode,
    "planmode": settings.cmd_planmode,
    "deepthink": settings.cmd_deepthink,
    "think": settings.cmd_think,
    "perms": settings.cmd_perms,
    "mcp": info.cmd_mcp,
    "agents": info.cmd_agents,
    "skills": info.cmd_skills,
    "memory": info.cmd_memory,
    "title": session.cmd_title,
    "autotitle": session.cmd_autotitle,
    "sessions": session.cmd_sessions,
    "resume": session.cmd_resume,
    "load": session.cmd_load,
    "save": session.cmd_save,
    "export": session.cmd_export,
    "compact": session.cmd_compact,
    "clear": session.cmd_clear,
    "expand": info.cmd_expand,
    "exit": info.cmd_exit,
}


async def dispatch(app: App, parsed: ParsedCommand) -> None:
    """Run one parsed slash command."""
    handler = HANDLERS.get(parsed.command.name)
    if handler is None:
        raise CommandError(f"/{parsed.command.name} is not available in this build")
    await handler(app, parsed)


def completion_sources(app: App) -> dict[str, Callable[[], list[str]]]:
    """Dynamic argument lists for the completer."""

    def models() -> list[str]:
        return list(getattr(app, "model_names", []) or ([app.model] if app.model else []))

    def sessions() -> list[str]:
        out: list[str] = []
        for s in session.session_rows(app):
            out.append(s.title or s.id)
        return out

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
