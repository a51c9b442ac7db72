"""The slash command that shows the hooks: ``/hooks``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError, ParsedCommand, command

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

__all__ = ["cmd_hooks"]


@command("hooks", "", "the hooks that are active, where each came from, and what is ignored")
async def cmd_hooks(ctx: CommandContext, p: ParsedCommand) -> None:
    """Every active hook (event, matcher, command, source, timeout), then the settings
    files with a problem and the project files ignored until the workspace is trusted."""
    from harness.hooks import describe_hooks, load_for

    if p.args:
        raise CommandError("usage: /hooks (try them with: harness hooks test EVENT)")
    # as the session loaded them: --trust-project counts the project's files for this run
    loaded = load_for(ctx.workspace, ctx.home, trust_all=ctx.trust_project)
    for line in describe_hooks(loaded):
        style = "yellow" if line.startswith(("problem:", "ignored:")) else ""
        ctx.say(line, style)
    ctx.say(
        "Hooks live in $HARNESS_HOME/settings.json, .harness/settings*.json and "
        ".claude/settings*.json; harness hooks test EVENT runs them on a sample.",
        "dim",
    )
