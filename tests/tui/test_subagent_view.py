"""The run view's sub-agent lines, from the events, against an injected clock."""

from __future__ import annotations

import io

from rich.console import Console

from harness.cli.tui._view import RunView
from harness.conversation import events as ev

SID = "s1"


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_one_live_line_per_running_subagent_then_a_summary() -> None:
    console = Console(file=io.StringIO(), width=80, color_system=None, _environ={})
    clock = Clock()
    view = RunView(console, clock=clock, live=False)
    view.handle(ev.SubagentStarted(session_id=SID, name="agent-1", task="read the docs"))
    view.handle(ev.SubagentStarted(session_id=SID, name="agent-2", task="run the tests"))
    clock.t += 3
    view.handle(
        ev.SubagentProgress(session_id=SID, name="agent-1", turn=2, tool="read_file", tokens=1500)
    )
    lines = [line.plain for line in view.agent_lines()]
    assert lines == [
        "  ⇉ agent-1 read the docs · turn 2 · read_file · 1,500 tok · 3s",
        "  ⇉ agent-2 run the tests · turn 0 · 0 tok · 3s",
    ]
    clock.t += 2
    view.handle(
        ev.SubagentFinished(
            session_id=SID,
            name="agent-1",
            ok=True,
            result="found it",
            reason="done",
            turns=2,
            usage={"prompt_tokens": 1400, "completion_tokens": 100},
        )
    )
    [left] = view.agent_lines()
    assert left.plain.startswith("  ⇉ agent-2")
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "sub-agent agent-1 finished in 5s · 2 turns · 1,500 tokens" in out
