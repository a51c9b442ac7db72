"""Deepthink's plan and check stages run commands on a read-only file system (issue 34):
the same command, on the real shell worker, finds the workspace read-only there and
writable in the implement stage."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from harness.actors.shell import sandbox_problem
from harness.conversation import events as ev
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply

WRITABLE = "[ -w . ] && echo WRITABLE || echo READ-ONLY"


@pytest.mark.skipif(
    sandbox_problem("workspace-write") is not None, reason="bubblewrap cannot run here"
)
async def test_the_reading_stages_see_a_read_only_workspace(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(
        reply("", call("run_cmd", command=WRITABLE)),  # plan
        reply("Plan: look."),
        reply("", call("run_cmd", command=WRITABLE)),  # check
        reply("Settled."),
        reply("", call("run_cmd", command=WRITABLE)),  # implement (changes nothing: ends)
        reply("Done."),
    )
    async with session_factory(
        deepthink=True, autotitle=False, allow=("run_cmd",), names=("model", "tools", "shell")
    ) as s:
        events = s.events()
        with trio.fail_after(60):
            await s.run("look at the workspace")
        seen = drain(events)
    outputs = [e.output for e in seen if isinstance(e, ev.ToolCallFinished)]
    assert len(outputs) == 3, outputs
    assert "READ-ONLY" in outputs[0]
    assert "READ-ONLY" in outputs[1]
    assert "WRITABLE" in outputs[2]
