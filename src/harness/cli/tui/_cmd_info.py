"""The slash commands that show things: ``/help``, ``/status``, ``/expand``, ``/mcp``,
``/agents``, ``/skills``, ``/memory``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError, ParsedCommand, command
from harness.cli.tui._sanitize import clean, clean_line

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

# rich's tables load with the first command that draws one, not with the prompt

__all__ = [
    "cmd_agents",
    "cmd_expand",
    "cmd_help",
    "cmd_mcp",
    "cmd_memory",
    "cmd_skills",
    "cmd_status",
]


@command("help", "[command]", "list the commands, or explain one", complete=(("@commands",),))
async def cmd_help(ctx: CommandContext, p: ParsedCommand) -> None:
    """Every command with its usage, or one explained."""
    from rich.table import Table
    from rich.text import Text

    if p.args:
        cmd = ctx.commands.lookup(p.args[0].lstrip("/"))
        if cmd is None:
            raise CommandError(f"no command /{p.args[0].lstrip('/')}")
        ctx.say(f"/{cmd.name} {cmd.usage}".rstrip(), "bold")
        ctx.say(f"  {cmd.help}")
        return
    table = Table(show_header=False, box=None, padding=(0, 2))
    for usage, text in ctx.commands.help_rows():
        table.add_row(Text(usage, style="cyan"), Text(text))
    ctx.console.print(table)
    ctx.say(
        "Enter sends · Ctrl+J newline · @path adds a file · Esc/Ctrl+C cancels a "
        "response · Ctrl+D exits",
        "dim",
    )


def _rss(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n else "-"


@command("status", "", "workers (pid, state, uptime, restarts, RSS), provider, model, context used")
async def cmd_status(ctx: CommandContext, p: ParsedCommand) -> None:
    """The workers, then the provider, model, session and context used."""
    from rich.table import Table

    live = await ctx.session()
    table = Table(title="workers", title_justify="left", box=None, padding=(0, 2))
    for col in ("worker", "pid", "state", "uptime", "restarts", "rss"):
        table.add_column(col)
    for w in live.worker_status():
        table.add_row(
            w.name,
            str(w.pid or "-"),
            w.state,
            f"{w.uptime:.0f}s",
            str(w.restarts),
            _rss(w.rss),
        )
    ctx.console.print(table)
    estimate, window = live.context()
    # the provider's own count of the last request beats the estimate
    used = max(estimate, ctx.notes.prompt_tokens)
    ctx.say(
        f"provider {live.provider} · model {', '.join(live.models) or '(default)'} · "
        f"tool protocol {live.tool_protocol} · permission mode {live.permission_mode}",
    )
    ctx.say(
        f"session {live.id}"
        + (f" “{clean_line(ctx.notes.title)}”" if ctx.notes.title else "")
        + f" · {len(live.history)} messages · context ~{used:,} of {window:,} tokens",
    )


@command(
    "mcp",
    "[list | tools | resources | reload | restart NAME | prompt SERVER NAME k=v | login NAME"
    " | logout NAME]",
    "MCP servers, their tools and resources; reload, restart, send a server's prompt, sign in",
    complete=(("list", "tools", "resources", "reload", "restart", "prompt", "login", "logout"),),
)
async def cmd_mcp(ctx: CommandContext, p: ParsedCommand) -> None:
    """The session's MCP servers (the subcommands live in ``_cmd_mcp``)."""
    from harness.cli.tui._cmd_mcp import run_mcp

    await run_mcp(ctx, p)


@command(
    "agents",
    "[kill N]",
    "the agents defined as files, the sub-agents and what they are doing; kill one",
    complete=(("kill",),),
)
async def cmd_agents(ctx: CommandContext, p: ParsedCommand) -> None:
    """The session's sub-agents and what each is doing, or stop one (``kill 2``)."""
    if p.args and p.args[0] == "kill":
        if len(p.args) != 2 or ctx.live is None:
            raise CommandError("usage: /agents kill N (N from /agents)")
        name = p.args[1] if p.args[1].startswith("agent-") else f"agent-{p.args[1]}"
        if ctx.live.kill_subagent(name):
            ctx.say(f"{name} stopped")
        else:
            ctx.say(f"{name} is not running")
        return
    if p.args:
        raise CommandError("usage: /agents [kill N]")
    from harness.cli.tui._filecmds import show_definitions

    show_definitions(ctx)
    if not ctx.notes.subagents:
        ctx.say("no sub-agents in this session")
    for name, state in ctx.notes.subagents.items():
        ctx.say(f"  {clean_line(name)}  {clean_line(state)[:100]}")


@command(
    "skills", "[name]", "the skills the agent can load, or one in full", complete=(("@skills",),)
)
async def cmd_skills(ctx: CommandContext, p: ParsedCommand) -> None:
    """The skills found (and those skipped), or one in full."""
    from rich.text import Text

    from harness.skills import discover_skills, find_skill, render_skill, skill_dirs

    if p.args:
        from harness.skills import SkillError

        try:
            skill = find_skill(ctx.workspace, p.args[0], ctx.home)
        except SkillError as exc:
            raise CommandError(str(exc)) from exc
        ctx.console.print(Text(clean(render_skill(skill))))
        return
    problems: list[str] = []
    skills = discover_skills(ctx.workspace, ctx.home, problems=problems)
    if not skills:
        dirs = ", ".join(str(d) for d, _ in skill_dirs(ctx.workspace, ctx.home))
        ctx.say(f"no skills (searched {dirs})")
    for s in skills:
        line = Text("  ")
        line.append(clean_line(s.name), style="cyan")
        line.append(f"  {clean_line(s.description)[:100]}")
        line.append(f"  ({s.source})", style="dim")
        ctx.console.print(line)
    for problem in problems:
        ctx.say(f"  skipped: {clean_line(problem)}", "yellow")


@command("memory", "", "what the agent remembers across sessions")
async def cmd_memory(ctx: CommandContext, p: ParsedCommand) -> None:
    """What ``memory.json`` under the harness home holds."""
    path = ctx.home / "memory.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError) as exc:
        raise CommandError(f"memory cannot be read: {exc}") from exc
    entries = data.get("entries", data) if isinstance(data, dict) else {}
    if not entries:
        ctx.say("nothing remembered yet")
        return
    for key, value in entries.items():
        text = value if isinstance(value, str) else json.dumps(value)
        ctx.say(f"  {clean_line(str(key))}: {clean_line(text)[:120]}")


@command("expand", "[n]", "show the last (or the n-th last) tool output in full")
async def cmd_expand(ctx: CommandContext, p: ParsedCommand) -> None:
    """The last (or n-th last) tool output, unfolded."""
    from rich.text import Text

    n = int(p.args[0]) if p.args and p.args[0].isdigit() else 1
    if not ctx.notes.tools or n > len(ctx.notes.tools) or n < 1:
        raise CommandError("no tool output to expand yet")
    rec = ctx.notes.tools[-n]
    ctx.say(f"── {clean_line(rec.name)} {clean_line(rec.main_argument)} ──", "bold")
    ctx.console.print(Text(clean(rec.output) or "(no output)"))


@command("diagnostics", "", "the last model rounds and tool calls: sizes, tokens, times")
async def cmd_diagnostics(ctx: CommandContext, p: ParsedCommand) -> None:
    """The session's last model rounds and tool calls, as two tables."""
    from rich.table import Table

    live = await ctx.session()
    rounds, tools = live.diagnostics()
    if not rounds and not tools:
        ctx.say("nothing measured yet: no model round or tool call in this session")
        return

    def secs(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}s"

    def count(value: int | None) -> str:
        return "-" if value is None else str(value)

    table = Table(title="model rounds", title_justify="left", box=None, padding=(0, 1))
    heads = ["turn", "model", "request ~tokens", "in", "out", "first token", "duration"]
    recall = any(r.recalled for r in rounds)
    if recall:
        heads.append("older turns sent")
    for head in heads:
        table.add_column(head)
    for r in rounds:
        row = [
            str(r.turn),
            clean_line(r.model),
            str(r.request_tokens),
            count(r.prompt_tokens),
            count(r.completion_tokens),
            secs(r.first_token),
            secs(r.duration),
        ]
        table.add_row(*row, *([r.recalled or "-"] if recall else []))
    ctx.console.print(table)
    calls = Table(title="tool calls", title_justify="left", box=None, padding=(0, 1))
    for head in ("tool", "ok", "time", "output chars"):
        calls.add_column(head)
    for t in tools:
        mark = "✓" if t.ok else "✗"
        calls.add_row(clean_line(t.name), mark, secs(t.duration), str(t.output_chars))
    ctx.console.print(calls)
