"""The approval prompt: what a call will do (the diff, the command), then y / n / a.

``n`` is the default (Enter), Esc and Ctrl+C deny. A sub-agent's request names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from harness.cli.tui._sanitize import clean, clean_line

if TYPE_CHECKING:
    from harness.conversation import ApprovalRequest, Decision

__all__ = ["approval_renderable", "decision_for_key"]

_MAX_DIFF_LINES = 80
SHELL_TOOLS = frozenset({"run_cmd", "send_input"})


def decision_for_key(key: str) -> Decision | None:
    """``yes`` / ``no`` / ``always`` for a key, or ``None`` to keep waiting."""
    k = key.lower()
    if k == "y":
        return "yes"
    if k == "a":
        return "always"
    if k in ("n", "enter", "esc", "c-c", "c-d"):
        return "no"
    return None


def approval_renderable(req: ApprovalRequest, *, width: int = 80) -> RenderableType:
    """The block shown before asking: who asks, the call, and its diff or command."""
    parts: list[RenderableType] = []
    head = Text()
    agent = clean_line(getattr(req, "agent", "") or "")
    if agent:
        head.append(f"sub-agent {agent} ", style="magenta")
    head.append("wants to run ", style="bold")
    head.append(clean_line(req.name), style="bold yellow")
    main = clean_line(req.main_argument or "")
    if main and req.name not in SHELL_TOOLS:
        head.append(" " + main, style="cyan")
    parts.append(head)
    summary = clean(getattr(req, "summary", "") or "").strip()
    if summary:
        parts.append(Text(summary, style="dim"))
    diff = clean(getattr(req, "diff", "") or "")
    if req.name in SHELL_TOOLS:
        command = clean(str(req.arguments.get("command", req.arguments.get("input", main))))
        parts.append(Syntax(command, "bash", theme="monokai", word_wrap=True, padding=(0, 1)))
    elif diff.strip():
        lines = diff.rstrip("\n").split("\n")
        hidden = max(0, len(lines) - _MAX_DIFF_LINES)
        shown = "\n".join(lines[:_MAX_DIFF_LINES])
        parts.append(Syntax(shown, "diff", theme="monokai", word_wrap=True, padding=(0, 1)))
        if hidden:
            parts.append(Text(f"… {hidden} more diff lines", style="dim italic"))
    elif req.arguments:
        args = ", ".join(f"{k}={clean_line(repr(v))[:60]}" for k, v in req.arguments.items())
        parts.append(Text(args, style="dim"))
    question = Text()
    question.append("Allow? ", style="bold")
    question.append("[y]es / [N]o / [a]lways", style="")
    question.append("  (Esc denies)", style="dim")
    parts.append(question)
    return Group(*parts)
