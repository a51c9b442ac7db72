"""The whole tool loop with the real default model, through the real model worker.

A question that needs one tool call: the model must call ``read_file`` on the file that
holds the answer, get its content back (executed here, on real files), and answer with it.
A 1.5B model is not reliable enough for an exact assertion on one run (measured 9 runs in
10 complete the loop), so this runs up to three seeded attempts and asserts that at least
two complete it (stopping as soon as the rate is decided, to keep the suite fast).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.actors.model.local import DEFAULT_MODEL
from harness.actors.protocol.model import (
    ChatMessage,
    ChatOptions,
    ChatRequest,
    ModelDone,
    ModelError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSchema,
)
from harness.supervisor import ChildSpec, WorkerHandle, open_supervisor

pytestmark = pytest.mark.slow

ATTEMPTS = 3
NEEDED = 2
SECRET = "PELICAN-7731"

TOOLS = (
    ToolSchema(
        name="list_files",
        description="List the files in a folder of the project.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "folder, default ."}},
        },
    ),
    ToolSchema(
        name="read_file",
        description="Read a text file of the project and return its content.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "the file's path"}},
            "required": ["path"],
        },
    ),
)
SYSTEM = "You are a coding assistant working in a project folder. Use the tools to look."
QUESTION = "What is the launch code written in the file notes.txt? Read the file to find out."


def _run_tool(workspace: Path, name: str, args: dict[str, Any]) -> str:
    target = (workspace / str(args.get("path") or ".")).resolve()
    if workspace.resolve() not in (target, *target.parents):
        return "error: outside the project"
    if name == "list_files":
        return "\n".join(sorted(p.name for p in target.iterdir())) if target.is_dir() else "?"
    if name == "read_file":
        return target.read_text() if target.is_file() else f"error: no file {args.get('path')}"
    return f"error: no tool {name}"


async def _one_run(handle: WorkerHandle, workspace: Path, seed: int) -> tuple[bool, list[str]]:
    history = [ChatMessage(role="user", content=QUESTION)]
    called: list[str] = []
    for _turn in range(4):
        text: list[str] = []
        calls: list[ToolCallEvent] = []
        request = ChatRequest(
            provider="local",
            models=(DEFAULT_MODEL,),
            messages=tuple(history),
            system=SYSTEM,
            tools=TOOLS,
            tool_protocol="auto",
            options=ChatOptions(max_tokens=200, temperature=0.3, seed=seed),
        )
        async with handle.stream(request) as events:
            async for ev in events:
                if isinstance(ev, TextDelta):
                    text.append(ev.text)
                elif isinstance(ev, ToolCallEvent):
                    calls.append(ev)
                elif isinstance(ev, ModelError):
                    raise AssertionError(f"model error: {ev.kind}: {ev.message}")
                elif isinstance(ev, ModelDone):
                    assert ev.tool_protocol == "text"
        if not calls:
            answer = "".join(text)
            return SECRET in answer and "read_file" in called, called
        history.append(
            ChatMessage(
                role="assistant",
                content="".join(text),
                tool_calls=tuple(
                    ToolCall(id=c.id, name=c.name, arguments=c.arguments or {}) for c in calls
                ),
            )
        )
        for c in calls:
            called.append(c.name)
            history.append(
                ChatMessage(
                    role="tool",
                    content=_run_tool(workspace, c.name, c.arguments or {}),
                    tool_call_id=c.id,
                    name=c.name,
                )
            )
    return False, called


async def test_the_default_model_completes_a_one_tool_loop(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"Project notes\nThe launch code is {SECRET}.\n")
    (workspace / "main.py").write_text("print('hello')\n")
    env = {"HARNESS_HOME": os.environ["HARNESS_HOME"], "PYTHONPATH": os.pathsep.join(sys.path)}
    async with open_supervisor() as sup:
        handle = await sup.start(
            ChildSpec(name="model", module="harness.actors.model", env=env, cwd=str(workspace))
        )
        results = []
        for seed in range(1, ATTEMPTS + 1):
            with trio.fail_after(300):  # a bound against a hang, not a speed check
                results.append(await _one_run(handle, workspace, seed))
            wins = sum(ok for ok, _ in results)
            if wins >= NEEDED or wins + ATTEMPTS - len(results) < NEEDED:
                break  # the rate is decided; the remaining runs cannot change it
    wins = sum(ok for ok, _ in results)
    assert wins >= NEEDED, f"{wins}/{ATTEMPTS} runs completed the loop: {results}"
