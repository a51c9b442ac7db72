"""The slash commands that change how the agent works: permission modes (``/automode``,
``/planmode``) and rules (``/perms``), ``/autocommit``, ``/think``, ``/deepthink``;
and ``/undo``, which reverts its last change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._commands import ON_OFF, CommandError, ParsedCommand, command, on_off
from harness.cli.tui._sanitize import clean, clean_line
from harness.messages import PermissionMode

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

__all__ = [
    "cmd_autocommit",
    "cmd_automode",
    "cmd_deepthink",
    "cmd_perms",
    "cmd_planmode",
    "cmd_think",
    "cmd_undo",
]


@command("undo", "", "revert the last change the agent made to your files")
async def cmd_undo(ctx: CommandContext, p: ParsedCommand) -> None:
    """The tools worker reverts the session's last change to the files."""
    live = await ctx.session()
    out = await live.undo()
    ctx.say(clean_line(out.message), "green" if out.ok else "yellow")
    for path in out.paths:
        ctx.say(f"  {clean_line(path)}", "dim")


@command("autocommit", "[on|off]", "commit each change the agent makes to git", complete=ON_OFF)
async def cmd_autocommit(ctx: CommandContext, p: ParsedCommand) -> None:
    """Set (or flip) committing each change to git."""
    live = await ctx.session()
    state = await live.autocommit()
    state = await live.autocommit(on_off(p.args, state.enabled))
    git = "" if state.git else " (this folder is not a git repository)"
    ctx.say(f"autocommit {'on' if state.enabled else 'off'}{git}")


async def _mode(ctx: CommandContext, p: ParsedCommand, mode: PermissionMode) -> None:
    live = await ctx.session()
    turn_on = on_off(p.args, live.permission_mode == mode)
    live.set_permission_mode(mode if turn_on else "ask")
    ctx.say(f"permission mode {live.permission_mode}")


@command("automode", "[on|off]", "approve every tool call without asking", complete=ON_OFF)
async def cmd_automode(ctx: CommandContext, p: ParsedCommand) -> None:
    """Permission mode ``auto``, or back to ``ask``."""
    await _mode(ctx, p, "auto")


@command("planmode", "[on|off]", "read-only: the agent plans, changes nothing", complete=ON_OFF)
async def cmd_planmode(ctx: CommandContext, p: ParsedCommand) -> None:
    """Permission mode ``plan``, or back to ``ask``."""
    await _mode(ctx, p, "plan")


@command(
    "deepthink",
    "[on|off]",
    "five stages per request: plan, check, implement, review, verify",
    complete=ON_OFF,
)
async def cmd_deepthink(ctx: CommandContext, p: ParsedCommand) -> None:
    """Run each request as five stages (and keep the model's thinking), or show them."""
    live = await ctx.session()
    if p.args:
        on = on_off(p.args, live.deepthink)
        live.set_deepthink(on)
        live.set_keep_thinking(on)
    state = "on" if live.deepthink else "off"
    ctx.say(f"deepthink {state}: plan → check → implement → review → verify")
    ctx.say(
        "  plan and check read and change nothing (the changing tools are off); a question "
        "ends after the plan, an implement stage that changed nothing ends the chain"
        + ("; it supersedes /planmode while on" if live.deepthink else ""),
        "dim",
    )


@command("think", "[on|off]", "show the model's thinking (dimmed)", complete=ON_OFF)
async def cmd_think(ctx: CommandContext, p: ParsedCommand) -> None:
    """Show the model's thinking (dimmed) or hide it."""
    ctx.show_thinking = on_off(p.args, ctx.show_thinking)
    ctx.say(f"thinking {'shown (dimmed)' if ctx.show_thinking else 'hidden'}")


@command(
    "perms",
    "[list | allow RULE | deny RULE | remove RULE | reload]",
    "show or change the permission rules, or read their files again",
    complete=(("list", "allow", "deny", "remove", "reload"),),
)
async def cmd_perms(ctx: CommandContext, p: ParsedCommand) -> None:
    """The permission rules: list them, add or remove one, or read the files again."""
    from rich.text import Text

    live = await ctx.session()
    if not p.args or p.args[0] == "list":
        ctx.console.print(Text(clean(live.rules())))
        return
    verb, rule = p.args[0], " ".join(p.args[1:])
    if verb == "reload" and not rule:
        problems = live.reload_rules()
        ctx.say("permission rules read again", "green")
        for problem in problems:
            ctx.say(f"  {clean_line(problem)}", "yellow")
        return
    if verb in ("allow", "deny") and rule:
        live.add_rule("allow" if verb == "allow" else "deny", rule)
        ctx.say(f"{verb} {rule} (saved)", "green")
    elif verb == "remove" and rule:
        if live.remove_rule(rule):
            ctx.say(f"removed {rule}", "green")
        else:
            ctx.say(f"no rule {rule} to remove", "yellow")
    else:
        raise CommandError("usage: /perms [list | allow RULE | deny RULE | remove RULE | reload]")
