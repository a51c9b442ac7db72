"""The first request goes as soon as the model worker is up: the tools and shell workers
start at the first call routed to each, which waits for it, or is told why it could not
start, and the conversation and its log go on.

The real workers and the scripted model on loopback; the tools worker is held back at
its start (tests/conversation/workers/gated.py) or dies there
(tests/runtime/workers/crasher.py), set through the session's ``workers`` option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import trio

from harness.conversation import Session, SessionOptions, open_session
from harness.conversation import events as ev
from harness.conversation.session import SessionStore
from tests.conversation.conftest import MODULES, options_for
from tests.scripted import ScriptedModel, call, reply

GATED = "tests.conversation.workers.gated"
CRASHER = "tests.runtime.workers.crasher"


def _options(
    workspace: Path, home: Path, model: ScriptedModel, tools: str, **env: str
) -> SessionOptions:
    """A session whose tools worker is the module *tools*, with *env* in its environment."""
    return options_for(
        workspace,
        home,
        model,
        workers={"model": MODULES["model"], "tools": tools},
        worker_env={"tools": env},
    )


def _state(session: Session, name: str) -> str:
    return next(w.state for w in session.worker_status() if w.name == name)


async def _until(events: Any, kind: type[ev.ConversationEvent]) -> ev.ConversationEvent:
    async for event in events:
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__}")


async def test_the_tools_and_shell_workers_start_at_their_first_call(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(reply("hello"), reply("", call("read_file", path="a.txt")), reply("read"))
    options = options_for(workspace, home, model, names=("model", "tools", "shell"))
    with trio.fail_after(60):
        async with open_session(options) as s:
            # a run that calls no tool starts no worker but the model's
            assert (await s.run("hi")).ok
            assert [w.name for w in s.worker_status()] == ["model"]
            result = await s.run("read a.txt")
            assert {w.name: w.state for w in s.worker_status()} == {
                "model": "running",
                "tools": "running",
            }
    assert result.ok
    assert "alpha" in model.requests[-1]["messages"][-1]["content"]


async def test_a_call_that_comes_before_the_tools_worker_is_up_waits_for_it(
    workspace: Path, home: Path, model: ScriptedModel, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    (workspace / "a.txt").write_text("alpha\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("read"))
    options = _options(
        workspace, home, model, GATED, GATE_FILE=str(gate), GATED_MODULE=MODULES["tools"]
    )
    with trio.fail_after(60):
        async with open_session(options) as s, trio.open_nursery() as nursery:
            events = s.events()
            results: list[ev.Result] = []

            async def run() -> None:
                results.append(await s.run("read a.txt"))

            nursery.start_soon(run)
            await _until(events, ev.ToolCallStarted)
            await trio.sleep(0.2)  # the call is on its way, not refused at once
            assert _state(s, "tools") == "starting"
            assert len(model.requests) == 1
            gate.touch()
            finished = await _until(events, ev.ToolCallFinished)
    assert isinstance(finished, ev.ToolCallFinished)
    assert finished.ok, finished.output
    assert results[0].ok
    assert "alpha" in model.requests[-1]["messages"][-1]["content"]


async def test_a_tools_worker_that_cannot_start_is_a_tool_error_and_the_session_goes_on(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("no tools today"), reply("bye"))
    with trio.fail_after(60):
        async with open_session(_options(workspace, home, model, CRASHER)) as s:
            result = await s.run("read a.txt")
            # the session goes on after it
            assert (await s.run("still there?")).ok
            sid = s.id
    assert result.ok
    assert result.text == "no tools today"
    told = model.requests[1]["messages"][-1]
    assert told["role"] == "tool"
    # the model is told which worker, that it could not start, and the worker's last words
    assert "tools worker could not start" in told["content"]
    assert "crasher: giving up at start" in told["content"]
    # the log is whole: every line decodes, the call has its result, both runs ended, and
    # the start error is there once, whether it came before the session opened or after
    log = SessionStore(home, workspace).root / sid / "events.jsonl"
    logged = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    tags = [e["type"] for e in logged]
    assert tags.count("result") == 2
    assert "tool_call_finished" in tags
    errors = [e for e in logged if e["type"] == "error" and e["kind"] == "worker"]
    assert [(e["message"], e["session_id"]) for e in errors] == [
        ("the tools worker could not start (exited with code 4): crasher: giving up at start", sid)
    ]
    loaded = SessionStore(home, workspace).load(sid)
    assert loaded.problems == []
    roles = ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert [m.role for m in loaded.history] == roles
    assert "could not start" in loaded.history[2].content


async def test_a_terminal_starts_the_tools_and_shell_workers_before_their_first_call(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    # the search worker is one of the session's too, and still waits for its first call
    workers = {**MODULES, "search": "harness.actors.search"}
    with trio.fail_after(60):
        async with open_session(options_for(workspace, home, model, workers=workers)) as s:
            assert [w.name for w in s.worker_status()] == ["model"]
            s.workers.start_rest()
            await s.workers.wait_started()
            states = {w.name: w.state for w in s.worker_status()}
    assert states == {"model": "running", "tools": "running", "shell": "running"}
