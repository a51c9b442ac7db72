"""The slash commands that change how the agent works: permission modes (``/automode``,
``/planmode``) and rules (``/perms``), ``/autocommit``, ``/think``, ``/deepthink``;
and ``/undo``, which reverts its last change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from harness.cli.tui._cmd_common import live_session, request, say
from harness.cli.tui._commands import CommandError, ParsedCommand, on_off
from harness.cli.tui._sanitize import clean, clean_line

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = [
    "cmd_autocommit",
    "cmd_automode",
    "cmd_deepthink",
    "cmd_perms",
    "cmd_planmode",
    "cmd_think",
    "cmd_undo",
]


async def cmd_undo(app: App, p: ParsedCommand) -> None:
    """``/undo``: the tools worker reverts the session's last change to the files."""
    from harness.messages.tools import Undo

    live = await live_session(app)
    out = await request(app, "tools", Undo(workspace=str(app.workspace), session_id=live.id))
    say(app, clean_line(out.message), "green" if out.ok else "yellow")
    for path in getattr(out, "paths", ()):
        say(app, f"  {clean_line(path)}", "dim")


async def cmd_autocommit(app: App, p: ParsedCommand) -> None:
    """``/autocommit [on|off]``: set (or flip) committing each change to git."""
    from harness.messages.tools import SetAutocommit

    ws = str(app.workspace)
    state = await request(app, "tools", SetAutocommit(workspace=ws, enabled=None))
    new = on_off(p.args, state.enabled)
    state = await request(app, "tools", SetAutocommit(workspace=ws, enabled=new))
    git = "" if state.git else " (this folder is not a git repository)"
    say(app, f"autocommit {'on' if state.enabled else 'off'}{git}")


async def _mode(app: App, p: ParsedCommand, mode: str) -> None:
    live = await live_session(app)
    cfg = live.conversation.config
    turn_on = on_off(p.args, cfg.permission_mode == mode)
    cfg.permission_mode = mode if turn_on else "ask"
    say(app, f"permission mode {cfg.permission_mode}")


async def cmd_automode(app: App, p: ParsedCommand) -> None:
    """``/automode [on|off]``: permission mode ``auto``, or back to ``ask``."""
    await _mode(app, p, "auto")


async def cmd_planmode(app: App, p: ParsedCommand) -> None:
    """``/planmode [on|off]``: permission mode ``plan``, or back to ``ask``."""
    await _mode(app, p, "plan")


async def cmd_think(app: App, p: ParsedCommand) -> None:
    """``/think [on|off]``: show the model's thinking (dimmed) or hide it."""
    app.show_thinking = on_off(p.args, app.show_thinking)
    say(app, f"thinking {'shown (dimmed)' if app.show_thinking else 'hidden'}")


async def cmd_deepthink(app: App, p: ParsedCommand) -> None:
    """``/deepthink [on|off]``: ask the model to think, and keep its thinking in the history."""
    live = await live_session(app)
    cfg = live.conversation.config
    cfg.keep_thinking = on_off(p.args, bool(cfg.keep_thinking))
    say(app, f"deep thinking {'on' if cfg.keep_thinking else 'off'}")


async def cmd_perms(app: App, p: ParsedCommand) -> None:
    """``/perms [list | allow RULE | deny RULE | remove RULE]``: the permission rules."""
    live = await live_session(app)
    perms = getattr(live.conversation.policy, "perms", None)
    if perms is None:
        raise CommandError("permissions are not available in this session")
    if not p.args or p.args[0] == "list":
        app.console.print(Text(clean(perms.describe())))
        return
    verb, rule = p.args[0], " ".join(p.args[1:])
    if verb in ("allow", "deny") and rule:
        perms.add(verb, rule)
        say(app, f"{verb} {rule} (saved)", "green")
    elif verb == "remove" and rule and hasattr(perms, "remove"):
        perms.remove(rule)
        say(app, f"removed {rule}", "green")
    elif verb == "remove" and rule:
        where = getattr(perms, "user_path", None) or "the permissions file"
        raise CommandError(f"rules are removed by editing {where} (or .permissions.json)")
    else:
        raise CommandError("usage: /perms [list | allow RULE | deny RULE | remove RULE]")
