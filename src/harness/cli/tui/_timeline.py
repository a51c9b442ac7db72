"""The tool timeline: one line per call (name, main argument, state, time), output folded."""

from __future__ import annotations

import attrs
from rich.text import Text

from harness.cli.tui._sanitize import clean, clean_line

__all__ = ["ToolRecord", "fold", "tool_line"]

#: tools whose output is worth a glance even when they succeed (the last lines).
SHOW_OUTPUT = frozenset({"run_cmd", "send_input", "end_process"})

_ICONS = {
    "requested": ("○", "dim"),
    "approved": ("○", "dim"),
    "running": ("◐", "cyan"),
    "ok": ("✓", "green"),
    "failed": ("✗", "red"),
    "denied": ("⊘", "yellow"),
    "past": ("·", "dim"),  # a call of a resumed session: its outcome is not kept
}


@attrs.define
class ToolRecord:
    """What the timeline knows about one call."""

    call_id: str
    name: str
    main_argument: str = ""
    state: str = "requested"  # requested | approved | running | ok | failed | denied | past
    started: float | None = None
    duration: float | None = None
    output: str = ""
    reason: str = ""
    progress: str = ""  # what its MCP server last said of its progress


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def tool_line(rec: ToolRecord, *, width: int = 80, now: float | None = None) -> Text:
    """The one timeline line for *rec*; *now* gives the elapsed time of a running call."""
    icon, style = _ICONS.get(rec.state, ("?", ""))
    elapsed = rec.duration
    if elapsed is None and rec.started is not None and now is not None:
        elapsed = max(0.0, now - rec.started)
    tail = ""
    if rec.state == "denied":
        tail = "denied" + (f": {clean_line(rec.reason)}" if rec.reason else "")
    elif elapsed is not None:
        tail = f"{elapsed:.1f}s"
        if rec.state == "running" and rec.progress:
            tail = f"{clean_line(rec.progress)[:50]}  {tail}"
    name = clean_line(rec.name)
    room = max(8, width - len(name) - len(tail) - 8)
    arg = _short(clean_line(rec.main_argument), room)
    line = Text("  ")
    line.append(icon, style=style)
    line.append(" ")
    line.append(name, style="bold red" if rec.state == "failed" else "bold")
    if arg:
        line.append(" ")
        line.append(arg, style="cyan")
    if tail:
        line.append("  ")
        line.append(tail, style="yellow" if rec.state == "denied" else "dim")
    return line


def fold(output: str, *, max_lines: int = 4, from_end: bool = False) -> tuple[list[str], int]:
    """The lines of *output* to show and how many were hidden.

    Keeps the first (or with *from_end* the last) *max_lines* lines, cleaned.
    """
    lines = clean(output).rstrip("\n").split("\n") if output.strip() else []
    if len(lines) <= max_lines:
        return lines, 0
    shown = lines[-max_lines:] if from_end else lines[:max_lines]
    return shown, len(lines) - max_lines


def folded_output(rec: ToolRecord, *, width: int = 80) -> Text | None:
    """The folded output under a finished call's line, or ``None`` when nothing shows.

    Errors show their first lines in red; shell tools show their last lines dimmed;
    other tools show nothing (the model read it; ``/expand`` shows it).
    """
    if rec.state == "failed":
        lines, hidden = fold(rec.output, max_lines=3)
        style = "red"
    elif rec.name in SHOW_OUTPUT and rec.state == "ok":
        lines, hidden = fold(rec.output, max_lines=4, from_end=True)
        style = "dim"
    else:
        return None
    if not lines:
        return None
    out = Text()
    if hidden and rec.state != "failed":
        out.append(f"    … {hidden} earlier lines (/expand)\n", style="dim italic")
    for i, ln in enumerate(lines):
        out.append("    │ ", style="dim")
        out.append(_short(ln.expandtabs(4), max(10, width - 6)), style=style)
        if i < len(lines) - 1:
            out.append("\n")
    if hidden and rec.state == "failed":
        out.append(f"\n    … {hidden} more lines (/expand)", style="dim italic")
    return out
