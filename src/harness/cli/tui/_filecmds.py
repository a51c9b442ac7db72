"""The terminal's side of agents and commands kept as files.

:func:`command_set` adds each file command to the built-in set as a
:class:`~harness.cli.tui._commands.Command`, so ``/help``, completion and dispatch know
it: its usage is its argument hint, its help its description and where it came from
(``project``, ``user``, ``project:git``). Typing one runs its ``!`` lines through the
session and sends the prompt it becomes. :func:`show_definitions` is the first half
of ``/agents``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.tui._commands import Command, CommandSet, ParsedCommand
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext
    from harness.custom import FileCommand

__all__ = ["command_set", "show_definitions"]


def _runner(fc: FileCommand) -> Command:
    async def run(ctx: CommandContext, p: ParsedCommand) -> None:
        from harness.cli._filecmd import command_settings, prepare

        live = await ctx.session()
        prepared = await prepare(live, fc, p.raw_args)
        first, *rest = prepared.lines
        ctx.say(first, "dim")
        for line in rest:
            ctx.say(f"  {clean_line(line)}", "yellow")
        with command_settings(live, fc, ctx.choice.base_url) as notes:
            for note in notes:
                ctx.say(f"  {clean_line(note)}", "dim")
            await ctx.host.run_prompt(prepared.expansion.prompt)

    names = [fc.name, fc.qualified] if fc.namespace else [fc.name]
    return Command(
        name=names[0],
        usage=fc.argument_hint,
        help=f"{fc.description} ({fc.label})",
        run=run,
        aliases=tuple(names[1:]),
    )


def command_set(
    base: CommandSet, workspace: Path, home: Path
) -> tuple[CommandSet, tuple[str, ...]]:
    """*base* with the file commands visible from *workspace* after it, and what was
    skipped or refused (one line each, naming the file)."""
    from harness.custom import load_commands

    found = load_commands(workspace, home, reserved=base.names())
    extra: list[Command] = []
    for fc in found:
        cmd = _runner(fc)
        # the bare name may belong to another namespace's command: then only the full one
        if found.get(fc.name) is not fc:
            cmd = cmd._replace(name=fc.qualified, aliases=())
        extra.append(cmd)
    return base.extended(extra), found.problems


def show_definitions(ctx: CommandContext) -> None:
    """The agent definitions visible from the workspace, and the files skipped."""
    from rich.text import Text

    from harness.actors.tools import builtin_table
    from harness.custom import definition_dirs, load_agents

    agents = load_agents(ctx.workspace, ctx.home, known_tools=builtin_table().names())
    if not agents.definitions:
        dirs = ", ".join(str(d) for d, _ in definition_dirs("agents", ctx.workspace, ctx.home))
        ctx.say(f"no agent definitions (searched {dirs})", "dim")
    for agent in agents.definitions.values():
        line = Text("  ")
        line.append(clean_line(agent.name), style="cyan")
        line.append(f"  {clean_line(agent.description)[:90]}")
        tools = "all tools" if agent.tools is None else ", ".join(agent.tools) or "no tools"
        model = agent.model or "the session's model"
        line.append(f"  ({agent.source}; {clean_line(tools)[:80]}; {clean_line(model)})", "dim")
        ctx.console.print(line)
    for problem in agents.problems:
        ctx.say(f"  {clean_line(problem)}", "yellow")
