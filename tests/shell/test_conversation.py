"""The real shell worker under the real conversation loop, driven by the scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from harness.conversation import SessionOptions, open_session
from harness.supervisor import WorkerRestarted
from tests.scripted import ScriptedModel, call, reply

from .conftest import py

ASK = py("print('got', input('Name? '))")


async def test_prompt_answer_and_a_worker_killed_between_calls(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    ids = tmp_path / "ids"  # a fresh session counter, so the script knows the ids
    ids.mkdir()
    model_script = [
        reply("", call("run_cmd", command=ASK)),
        reply("", call("send_input", session="s1", text="Zed")),
        reply("", call("run_cmd", command="read answer")),
        reply("", call("send_input", session="s2", text="late")),
        reply("", call("run_cmd", command="echo alive")),
        reply("all done"),
    ]
    killed: list[int] = []

    async def approver(req: Any) -> str:
        if req.name == "send_input" and req.arguments.get("session") == "s2":
            # The shell worker dies while s2 waits for its answer.
            supervisor = session.workers.supervisor
            restarts = supervisor.subscribe()
            handle = supervisor.get("shell")
            killed.append(handle.pid)
            handle.kill()
            with trio.fail_after(20):
                async for event in restarts:
                    if isinstance(event, WorkerRestarted) and event.name == "shell":
                        break
        return "yes"

    with ScriptedModel(model_script) as model:
        options = SessionOptions(
            workspace=str(workspace),
            home=str(tmp_path / "home"),
            provider="openai",
            models=("scripted",),
            base_url=model.base_url,
            permission_mode="ask",
            workers={
                "model": "harness.actors.model",
                "shell": "harness.actors.shell",
            },
            worker_env={
                "shell": {"TMPDIR": str(ids), "HARNESS_SHELL_KILL_GRACE": "0.2"},
            },
        )
        async with open_session(options, approver=approver) as session:
            with trio.fail_after(60):
                result = await session.run("ask my name, then more")
            tools = [m.content for m in session.history if m.role == "tool"]
    assert result.ok, result
    assert result.text == "all done"
    assert len(tools) == 5
    assert "Name? " in tools[0]
    assert "session s1 is waiting for input" in tools[0]
    assert "got Zed" in tools[1]
    assert "[exit code 0]" in tools[1]
    assert "session s2 is waiting for input" in tools[2]
    assert "lost when the shell worker restarted" in tools[3]
    assert tools[4].startswith("alive\n[exit code 0]")
    assert killed
