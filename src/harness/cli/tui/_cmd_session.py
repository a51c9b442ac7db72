"""The slash commands about sessions: naming (``/title``, ``/save``, ``/autotitle``),
finding and switching (``/sessions``, ``/resume``, ``/load``, ``/clear``), ``/export``
and ``/compact``; and ``/exit``, which leaves."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.tui._commands import (
    ON_OFF,
    CommandError,
    ExitApp,
    ParsedCommand,
    command,
    on_off,
)
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext
    from harness.conversation import SessionInfo

__all__ = [
    "cmd_autotitle",
    "cmd_clear",
    "cmd_compact",
    "cmd_exit",
    "cmd_export",
    "cmd_load",
    "cmd_resume",
    "cmd_save",
    "cmd_sessions",
    "cmd_title",
    "session_rows",
]


@command("title", "[text]", "show or set this session's title")
async def cmd_title(ctx: CommandContext, p: ParsedCommand) -> None:
    """Show the session's title, or set it."""
    live = await ctx.session()
    if not p.raw_args:
        ctx.say(f"title: {clean_line(ctx.notes.title) or '(none yet)'}")
        return
    title = " ".join(p.args)
    live.set_title(title)
    ctx.notes.title = title
    ctx.say(f"session titled “{clean_line(title)}”", "green")


@command("autotitle", "[on|off]", "let the model title new sessions", complete=ON_OFF)
async def cmd_autotitle(ctx: CommandContext, p: ParsedCommand) -> None:
    """Let the model title new sessions."""
    live = await ctx.session()
    live.set_autotitle(on_off(p.args, live.autotitle))
    ctx.say(f"autotitle {'on' if live.autotitle else 'off'}")


@command("save", "[title]", "name this session so /load finds it")
async def cmd_save(ctx: CommandContext, p: ParsedCommand) -> None:
    """Title the session (it is always saved) and say how to load it."""
    live = await ctx.session()
    if p.args:
        title = " ".join(p.args)
        live.set_title(title)
        ctx.notes.title = title
    name = ctx.notes.title or live.id
    ctx.say(f"session saved as “{clean_line(name)}” (/load {clean_line(name)})", "green")


def _ago(ts: float) -> str:
    d = max(0.0, time.time() - ts)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if d >= size:
            return f"{d / size:.0f}{unit} ago"
    return "just now"


def session_rows(ctx: CommandContext) -> list[SessionInfo]:
    """The sessions of this workspace (none while no session is open)."""
    live = ctx.live
    return [] if live is None else live.sessions()


@command("sessions", "", "the sessions of this workspace")
async def cmd_sessions(ctx: CommandContext, p: ParsedCommand) -> None:
    """This workspace's sessions, one a line."""
    await ctx.session()
    rows = session_rows(ctx)
    if not rows:
        ctx.say("no sessions in this folder yet")
    for s in rows:
        ctx.say(
            f"  {s.id}  {_ago(s.updated):>8}  {clean_line(s.title or '(untitled)')[:40]}"
            f"  {clean_line(s.first_prompt)[:50]}",
        )


async def _switch(ctx: CommandContext, target: str) -> None:
    await ctx.host.reopen(resume=target)


@command("resume", "[title | id]", "pick a session to resume", complete=(("@sessions",),))
async def cmd_resume(ctx: CommandContext, p: ParsedCommand) -> None:
    """Switch to that session, or pick an earlier one."""
    live = await ctx.session()
    if p.args:
        await _switch(ctx, " ".join(p.args))
        return
    rows = [s for s in session_rows(ctx) if s.id != live.id]
    if not rows:
        raise CommandError("no earlier session in this folder to resume")
    index = await ctx.pick(
        [f"{s.title or '(untitled)'} · {_ago(s.updated)} · {s.first_prompt[:60]}" for s in rows],
        "session",
    )
    if index is not None:
        await _switch(ctx, rows[index].id)


@command("load", "title | id", "load a session by title or id", complete=(("@sessions",),))
async def cmd_load(ctx: CommandContext, p: ParsedCommand) -> None:
    """Switch to that session."""
    if not p.args:
        raise CommandError("usage: /load TITLE|ID (or /resume for a picker)")
    await _switch(ctx, " ".join(p.args))


@command("export", "json|md [path]", "write the session to a file", complete=(("json", "md"),))
async def cmd_export(ctx: CommandContext, p: ParsedCommand) -> None:
    """Write the session to a file."""
    import trio

    live = await ctx.session()
    fmt = (p.args[0] if p.args else "md").lower()
    if fmt not in ("json", "md"):
        raise CommandError("usage: /export json|md [path]")
    data = live.export("json" if fmt == "json" else "md")
    path = Path(p.args[1]) if len(p.args) > 1 else Path(f"harness-{live.id}.{fmt}")
    await trio.Path(path).write_bytes(data)
    ctx.say(f"exported to {path}", "green")


@command("compact", "", "summarise the history now to free context")
async def cmd_compact(ctx: CommandContext, p: ParsedCommand) -> None:
    """Summarise the history now."""
    live = await ctx.session()
    with ctx.console.status("summarising…"):
        done = await live.compact()
    ctx.say("history summarised" if done else "nothing to compact yet")


@command("clear", "", "start a new session")
async def cmd_clear(ctx: CommandContext, p: ParsedCommand) -> None:
    """Close this session and start a new one."""
    ctx.notes.title = ""
    await ctx.host.reopen()
    ctx.say("new session", "green")


@command("exit", "", "leave harness", aliases=("quit", "q"))
async def cmd_exit(ctx: CommandContext, p: ParsedCommand) -> None:
    """Leave (the app's loop ends on :class:`ExitApp`)."""
    raise ExitApp
