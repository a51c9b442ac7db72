"""The slash commands that go back: ``/rewind`` (also Esc Esc at an empty prompt) puts the
conversation, the files, or both back to before an earlier prompt, and ``/fork`` starts a
new session from this one, leaving this one as it is."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError, ParsedCommand, command
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext
    from harness.conversation import Checkpoint, RewindPlan, Session

__all__ = ["cmd_fork", "cmd_rewind", "plan_lines"]

_VERBS = {
    "restore": "restore",
    "remove": "remove (made since)",
    "recreate": "recreate (deleted since)",
}
# what to put back, as the picker offers it
_WHAT = (
    ("conversation and files", True, True),
    ("conversation only (the files stay as they are)", True, False),
    ("files only (the conversation stays as it is)", False, True),
)


def _ago(ts: float) -> str:
    d = max(0.0, time.time() - ts)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if d >= size:
            return f"{d / size:.0f}{unit} ago"
    return "just now"


def _row(c: Checkpoint) -> str:
    text = " ".join(c.text.split())
    return f"{text[:70]}{'…' if len(text) > 70 else ''} · {_ago(c.ts)}"


def plan_lines(plan: RewindPlan) -> list[tuple[str, str]]:
    """What a rewind to *plan*'s prompt changes, as (line, style) pairs."""
    files = plan.files
    lines: list[tuple[str, str]] = []
    changing = [f for f in files.files if f.restorable]
    if changing:
        lines.append(("files that change:", ""))
        for f in changing:
            note = f"  ({f.note})" if f.note else ""
            lines.append((f"  {_VERBS.get(f.action, f.action)} {f.path}{note}", ""))
    else:
        lines.append(("no file the agent changed since then needs restoring", "dim"))
    for f in files.files:
        if not f.restorable:
            lines.append((f"  cannot restore {f.path}: {f.note}", "yellow"))
    if plan.commands or files.unrecorded:
        lines.append(("files changed by commands in these turns cannot be restored", "yellow"))
        for c in plan.commands[:10]:
            lines.append((f"  ran: {c}", "dim"))
        shown = list(files.unrecorded)
        if shown:
            more = f" and {files.unrecorded_more} more" if files.unrecorded_more else ""
            lines.append((f"  changed: {', '.join(shown)}{more}", "yellow"))
    for note in files.notes:
        if not note.startswith("Files changed by commands"):  # said just above
            lines.append((note, "yellow"))
    return [(clean_line(text), style) for text, style in lines]


async def _choose(ctx: CommandContext, live: Session, p: ParsedCommand, what: str) -> int | None:
    """The prompt number named on the line, or picked from the session's prompts."""
    points = live.checkpoints.list()
    if not points:
        raise CommandError("no earlier prompt in this session")
    if p.args:
        if not p.args[0].isdigit() or not 1 <= int(p.args[0]) <= len(points):
            raise CommandError(f"usage: /{what} [N], N a prompt from 1 to {len(points)}")
        return int(p.args[0])
    index = await ctx.pick([_row(c) for c in points], "prompt")
    return None if index is None else index + 1


@command("rewind", "[N]", "go back to before an earlier prompt: conversation, files, or both")
async def cmd_rewind(ctx: CommandContext, p: ParsedCommand) -> None:
    """Pick a prompt, see what changes, choose what to put back, then do it."""
    live = await ctx.session()
    if live.running:
        raise CommandError("a response is running; stop it first (Esc or Ctrl+C)")
    number = await _choose(ctx, live, p, "rewind")
    if number is None:
        return
    plan = await live.checkpoints.plan(number)
    ctx.say(f"back to before prompt {number}: {_row(plan.checkpoint)}", "bold")
    for line, style in plan_lines(plan):
        ctx.say(line, style)
    index = await ctx.pick([label for label, _, _ in _WHAT], "what to restore")
    if index is None:
        ctx.say("nothing changed")
        return
    _, conversation, files = _WHAT[index]
    out = await live.checkpoints.rewind(number, conversation=conversation, files=files)
    ctx.say(clean_line(out.message), "green" if out.ok else "yellow")
    if conversation and out.ok:
        ctx.notes.tools.clear()
        ctx.say(f"prompt {number} was: {clean_line(plan.checkpoint.text)[:200]}", "dim")


@command("fork", "[N]", "start a new session from this one (before prompt N); this one stays")
async def cmd_fork(ctx: CommandContext, p: ParsedCommand) -> None:
    """Copy the conversation (up to before prompt N) into a new session and switch to it."""
    live = await ctx.session()
    if live.running:
        raise CommandError("a response is running; stop it first (Esc or Ctrl+C)")
    number: int | None = None
    if p.args:
        number = await _choose(ctx, live, p, "fork")
    original = live.id
    info = live.checkpoints.fork(number)
    await ctx.host.reopen(resume=info.id)
    ctx.say(f"forked: now in {info.id}; {original} stays as it was (/resume {original})", "green")
