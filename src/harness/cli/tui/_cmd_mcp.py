"""``/mcp``: the session's MCP servers, their tools and resources, reload, restart, prompts.

::

    /mcp                          servers: transport, state, tools, restarts, last error
    /mcp tools [SERVER]           each tool with its hints
    /mcp resources [SERVER]       each resource
    /mcp reload                   read the configuration again; try servers not ready
    /mcp restart NAME             restart one server now
    /mcp login NAME               sign in to a server that needs it (harness mcp login),
                                  then restart it
    /mcp logout NAME              forget its tokens, then restart it
    /mcp prompt SERVER NAME k=v   send the server's prompt as the next user message
    /mcp__SERVER__PROMPT args     the same, as a command of its own: key=value pairs, or
                                  for a prompt of one argument the words typed
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError, ParsedCommand, command
from harness.cli.tui._sanitize import clean, clean_line

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext
    from harness.conversation import McpManager, ReloadReport

__all__ = ["MCP_EXAMPLE", "MCP_SUBCOMMANDS", "cmd_mcp_prompt", "no_servers_hint", "run_mcp"]

MCP_EXAMPLE = (
    '{"mcpServers": {"files": {"command": "npx", '
    '"args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}'
)
"""The one-server ``.mcp.json`` that ``/mcp`` shows when there is none."""

# The manual's page, when harness runs from its checkout (the usual install).
_DOCS_PAGE = Path(__file__).resolve().parents[4] / "docs" / "mcp.md"

MCP_SUBCOMMANDS = (
    "list",
    "tools",
    "resources",
    "reload",
    "restart",
    "prompt",
    "login",
    "logout",
)

_STYLE = {"ready": "green", "failed": "red", "down": "red", "disabled": "dim"}


async def run_mcp(ctx: CommandContext, p: ParsedCommand) -> None:
    """``/mcp [list | tools | resources | reload | restart NAME | prompt SERVER NAME k=v |
    login NAME | logout NAME]``."""
    live = await ctx.session()
    mcp = live.mcp
    sub = p.args[0].lower() if p.args else "list"
    rest = p.args[1:]
    if sub not in MCP_SUBCOMMANDS:
        raise CommandError(f"/mcp {sub}: use one of {', '.join(MCP_SUBCOMMANDS)}")
    if sub == "reload" and mcp is not None:
        _reloaded(ctx, await mcp.reload())
        return
    if mcp is None or not mcp.servers():
        ctx.say(no_servers_hint())
        return
    if sub == "list":
        _servers(ctx, mcp)
    elif sub == "tools":
        _tools(ctx, mcp, rest[0] if rest else None)
    elif sub == "resources":
        await _resources(ctx, mcp, rest[0] if rest else None)
    elif sub == "restart":
        if not rest:
            raise CommandError("/mcp restart NAME")
        try:
            await mcp.restart(rest[0])
        except KeyError:
            raise CommandError(f"there is no MCP server {rest[0]!r}") from None
        ctx.say(f"restarting {clean_line(rest[0])}")
    elif sub in ("login", "logout"):
        await _sign(ctx, mcp, sub, rest)
    else:
        await _prompt(ctx, mcp, rest)


async def _sign(ctx: CommandContext, mcp: McpManager, action: str, rest: tuple[str, ...]) -> None:
    """``harness mcp login|logout NAME`` as a child process, given the session's own entry
    for NAME on stdin (the OAuth client is the SDK's, which the terminal's process never
    loads); its lines are shown as they come; then the server restarts to use the result."""
    import json
    import subprocess
    import sys

    import trio
    from rich.text import Text

    if not rest:
        raise CommandError(f"/mcp {action} NAME")
    config = mcp.enabled().get(rest[0])
    if config is None:
        raise CommandError(f"there is no MCP server {rest[0]!r} (see /mcp)")
    env = {**ctx.environ, "HARNESS_HOME": str(ctx.home)}
    cmd = [sys.executable, "-m", "harness", "mcp", action, config.name, "--entry-stdin"]
    proc = await trio.lowlevel.open_process(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        async with proc.stdin:
            await proc.stdin.send_all(json.dumps(config.to_json_data()).encode())
        pending = b""
        while chunk := await proc.stdout.receive_some(65536):
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                text = clean(line.decode(errors="replace")).removeprefix("harness mcp: ")
                # soft wrap: a long authorization link must copy as one line
                ctx.console.print(Text(text), soft_wrap=True)
        status = await proc.wait()
    finally:
        # Ctrl+C (the command cancelled) stops the sign-in with it
        if proc.returncode is None:
            proc.kill()
            with trio.CancelScope(shield=True):
                await proc.wait()
    if status != 0:
        raise CommandError(f"/mcp {action} {config.name}: nothing changed")
    await mcp.restart(config.name)
    ctx.say(f"restarting {clean_line(config.name)}")


def _reloaded(ctx: CommandContext, report: ReloadReport) -> None:
    if report.problems:
        problems = "\n".join(f"  {clean_line(p)}" for p in report.problems)
        raise CommandError(f"the MCP configuration has problems; nothing changed:\n{problems}")
    parts = [
        f"{what}: {', '.join(clean_line(n) for n in names)}"
        for what, names in (
            ("added", report.added),
            ("removed", report.removed),
            ("restarted with its new configuration", report.changed),
            ("trying again", report.retried),
        )
        if names
    ]
    ctx.say("; ".join(parts) if parts else "the configuration is unchanged; every server is ready")


def _servers(ctx: CommandContext, mcp: McpManager) -> None:
    from rich.table import Table  # the command set loads before the first prompt: rich later
    from rich.text import Text

    table = Table(title="MCP servers", title_justify="left", box=None, padding=(0, 2))
    for col in ("server", "transport", "state", "tools", "restarts", "last error"):
        table.add_column(col)
    views = mcp.servers()
    for v in views:
        table.add_row(
            clean_line(v.name),
            v.transport,
            Text(v.state, style=_STYLE.get(v.state, "yellow")),
            str(len(v.tools)),
            str(v.restarts),
            clean_line(v.error)[:80],
        )
    ctx.console.print(table)
    for v in views:
        if v.state in ("down", "failed") and v.stderr_tail:
            ctx.say(f"{v.name} stderr:", "dim")
            for line in v.stderr_tail.splitlines()[-5:]:
                ctx.say(f"  | {clean_line(line)}", "dim")


def _tools(ctx: CommandContext, mcp: McpManager, server: str | None) -> None:
    from rich.text import Text

    tools = mcp.tools(server)
    if not tools:
        ctx.say("no MCP tools" + (f" from {clean_line(server)}" if server else "") + " yet")
    for name, tool in tools:
        line = Text("  ")
        line.append(name, style="cyan")
        hint = "read-only" if tool.read_only else ("destructive" if tool.destructive else "")
        if hint:
            line.append(f" [{hint}]", style="yellow" if hint == "destructive" else "dim")
        line.append(f"  {clean_line(tool.description)[:100]}")
        ctx.console.print(line)


async def _resources(ctx: CommandContext, mcp: McpManager, server: str | None) -> None:
    try:
        found, problems = await mcp.resources(server)
    except KeyError:
        raise CommandError(f"there is no MCP server {server!r}") from None
    if not found:
        ctx.say("no MCP resources")
    for srv, r in found:
        ctx.say(f"  {clean_line(srv)}  {clean_line(r.uri)}  {clean_line(r.name)}")
    for problem in problems:
        ctx.say(f"  {clean_line(problem)}", "yellow")


@command(
    "mcp__",
    "SERVER__PROMPT [key=value ...]",
    "send an MCP server's prompt as your message (/mcp__SERVER__PROMPT)",
)
async def cmd_mcp_prompt(ctx: CommandContext, p: ParsedCommand) -> None:
    """``/mcp__SERVER__PROMPT args``: the name says the server and the prompt."""
    live = await ctx.session()
    mcp = live.mcp
    if mcp is None or not mcp.servers():
        ctx.say(no_servers_hint())
        return
    typed = p.command.name.removeprefix("mcp__")
    # a server's name may hold "__" too: the longest server name that fits wins
    servers = sorted(mcp.enabled(), key=len, reverse=True)
    server = next((s for s in servers if typed.lower().startswith(s.lower() + "__")), None)
    if server is None:
        raise CommandError(f"/{p.command.name}: no MCP server is named so; /mcp lists them")
    wanted = typed[len(server) + 2 :]
    prompts = await mcp.prompts(server)
    found = next((q for q in prompts if q.name.lower() == wanted.lower()), None)
    if found is None:
        names = ", ".join(q.name for q in prompts) or "none"
        raise CommandError(f"{server} has no prompt {wanted!r} (it has: {clean_line(names)})")
    args = list(p.args)
    if len(found.arguments) == 1 and args and not all("=" in a for a in args):
        args = [f"{found.arguments[0]}={p.raw_args}"]  # one argument: the words typed
    await _prompt(ctx, mcp, (server, found.name, *args))


async def _prompt(ctx: CommandContext, mcp: McpManager, rest: tuple[str, ...]) -> None:
    if len(rest) < 2:
        raise CommandError("/mcp prompt SERVER NAME [key=value ...]")
    server, name, pairs = rest[0], rest[1], rest[2:]
    args: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"prompt arguments are key=value, not {pair!r}")
        args[key] = value
    try:
        got = await mcp.get_prompt(server, name, args)
    except KeyError:
        raise CommandError(f"there is no MCP server {server!r}") from None
    if not got.ok:
        raise CommandError(clean(got.text))
    ctx.say(f"sending {clean_line(server)}/{clean_line(name)} as your message", "dim")
    await ctx.host.run_prompt(got.text)


def no_servers_hint(docs_page: Path = _DOCS_PAGE) -> str:
    """What ``/mcp`` says with no servers: where they go, an example, and the manual page."""
    where = str(docs_page) if docs_page.is_file() else "docs/mcp.md in harness's source"
    return (
        "no MCP servers. Add them to .mcp.json in this folder (or $HARNESS_HOME/mcp.json "
        "for every folder), then /mcp reload. For example:\n"
        f"  {MCP_EXAMPLE}\n"
        f"Every key, and HTTP and SSE servers: {where}"
    )
