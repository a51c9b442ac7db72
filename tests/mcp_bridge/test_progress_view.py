"""An MCP call's progress in the terminal: the status line and the running call's line."""

from __future__ import annotations

import io

from rich.console import Console

from harness.cli.tui._view import RunView
from harness.conversation import events as ev

SID = "s1"


def test_progress_shows_in_the_status_line_and_the_running_calls_line() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None, _environ={})
    now = [100.0]
    view = RunView(console, clock=lambda: now[0], live=False)
    view.handle(ev.ToolCallStarted(session_id=SID, call_id="c1", name="mcp__s__render"))
    now[0] += 2.0
    view.handle(
        ev.ToolCallProgress(
            session_id=SID,
            call_id="c1",
            name="mcp__s__render",
            progress=2,
            total=5,
            message="frame 2\x1b[31m",  # a server's text is cleaned before it is shown
        )
    )
    assert "running mcp__s__render · 2/5 frame 2 ·" in view.status_line().plain
    console.print(view.live_renderable())
    drawn = console.file.getvalue()  # type: ignore[attr-defined]
    assert "◐ mcp__s__render  2/5 frame 2  2.0s\n" in drawn
    assert "\x1b" not in drawn
    # a server that gives no total shows its count alone
    view.handle(
        ev.ToolCallProgress(session_id=SID, call_id="c1", name="mcp__s__render", progress=7)
    )
    assert "running mcp__s__render · 7 ·" in view.status_line().plain
