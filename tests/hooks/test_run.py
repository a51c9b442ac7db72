"""Running hooks for real: exit codes, JSON decisions, parallel handlers, and the kill of a
hung hook's whole tree."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import psutil
import pytest
import trio

from harness.hooks import HookConfig, HookHandler, Hooks

pytestmark = pytest.mark.trio


def hooks(ws: Path, *handlers: HookHandler) -> Hooks:
    return Hooks(HookConfig(handlers), cwd=ws, session_id="s1", transcript_path="/t.jsonl")


def pre(command: str, matcher: str = "Bash", **kw: object) -> HookHandler:
    return HookHandler("PreToolUse", matcher, command, source="test", **kw)  # type: ignore[arg-type]


async def test_the_payload_has_claudes_shape(workspace: Path) -> None:
    out = workspace / "seen.json"
    h = hooks(workspace, pre(f"cat > {out}", matcher="Write"))
    verdict = await h.fire(
        "PreToolUse", tool="write_file", arguments={"path": "a.py", "content": "x"}
    )
    assert verdict.decision == ""
    assert not verdict.blocked
    seen = json.loads(out.read_text())
    assert seen == {
        "session_id": "s1",
        "transcript_path": "/t.jsonl",
        "cwd": str(workspace),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(workspace / "a.py"), "content": "x"},
    }


async def test_exit_2_blocks_with_stderr_as_the_reason(workspace: Path) -> None:
    h = hooks(workspace, pre("echo 'rm -rf is not allowed' >&2; exit 2"))
    verdict = await h.fire("PreToolUse", tool="run_cmd", arguments={"command": "rm -rf /"})
    assert verdict.blocked
    assert verdict.decision == "deny"
    assert verdict.reason == "rm -rf is not allowed"


async def test_exit_1_is_an_error_that_lets_the_call_go_on_unless_it_fails_closed(
    workspace: Path,
) -> None:
    crash = "echo boom >&2; exit 1"
    verdict = await hooks(workspace, pre(crash)).fire("PreToolUse", tool="run_cmd", arguments={})
    assert not verdict.blocked
    assert verdict.outcomes[0].decision == "error"
    assert "failed (exit 1): boom" in verdict.messages[0]
    closed = hooks(workspace, pre(crash, on_failure="block"))
    verdict = await closed.fire("PreToolUse", tool="run_cmd", arguments={})
    assert verdict.blocked
    assert "fails closed" in verdict.reason
    missing = hooks(workspace, pre("/nonexistent/guard.sh", on_failure="block"))
    assert (await missing.fire("PreToolUse", tool="run_cmd", arguments={})).blocked


async def test_json_decisions_and_updated_input(workspace: Path) -> None:
    def says(obj: object) -> str:
        return f"cat >/dev/null; echo '{json.dumps(obj)}'"

    allow = says(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "fine",
                "updatedInput": {"command": "ls -la", "timeout": 5000},
            }
        }
    )
    verdict = await hooks(workspace, pre(allow)).fire(
        "PreToolUse", tool="run_cmd", arguments={"command": "ls"}
    )
    assert verdict.decision == "allow"
    assert verdict.reason == "fine"
    assert verdict.updated_input == {"command": "ls -la", "timeout": 5}
    ask = says(
        {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "?"}}
    )
    deny = says({"decision": "block", "reason": "legacy no"})
    both = await hooks(workspace, pre(allow), pre(ask), pre(deny)).fire(
        "PreToolUse", tool="run_cmd", arguments={"command": "ls"}
    )
    assert both.decision == "deny"
    assert both.reason == "legacy no"
    assert both.updated_input is None  # a denied call is not rewritten
    assert [o.decision for o in both.outcomes] == ["allow", "ask", "deny"]
    asked = await hooks(workspace, pre(allow), pre(ask)).fire("PreToolUse", tool="run_cmd")
    assert asked.decision == "ask"
    stop = says({"continue": False, "stopReason": "enough", "systemMessage": "bye"})
    stopped = await hooks(workspace, pre(stop)).fire("PreToolUse", tool="run_cmd")
    assert stopped.stop
    assert "enough" in stopped.stop_reason


async def test_plain_stdout_is_context_where_claude_makes_it_so(workspace: Path) -> None:
    h = hooks(
        workspace,
        HookHandler("UserPromptSubmit", "", "echo today is Tuesday"),
        HookHandler("Stop", "", "echo just a note"),
    )
    said = await h.fire("UserPromptSubmit", prompt="hi")
    assert said.context == "today is Tuesday"
    assert not said.messages
    note = await h.fire("Stop", stop_hook_active=False)
    assert note.context == ""
    assert note.messages == ("just a note",)


async def test_hooks_of_one_event_run_in_parallel(workspace: Path) -> None:
    h = hooks(workspace, *(pre(f"sleep 0.5; echo {i} >/dev/null") for i in range(4)))
    start = time.monotonic()
    verdict = await h.fire("PreToolUse", tool="run_cmd", arguments={})
    assert len(verdict.outcomes) == 4
    assert time.monotonic() - start < 1.5  # four half-second hooks one after another: 2 s


def _tagged_alive(tag_file: Path) -> list[int]:
    pids = [int(p) for p in tag_file.read_text().split()] if tag_file.exists() else []
    return [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]


async def test_a_hung_hook_is_killed_with_its_whole_tree_in_time(workspace: Path) -> None:
    pids = workspace / "pids"
    # a grandchild in the group, one that left it with setsid, and the hook itself: all sleep
    command = (
        f"sleep 60 & echo $! >> {pids}; "
        f"setsid sh -c 'echo $$ >> {pids}; sleep 60' & "
        f"echo $$ >> {pids}; sleep 60"
    )
    h = hooks(workspace, pre(command, timeout=0.5, on_failure="block"))
    start = time.monotonic()
    verdict = await h.fire("PreToolUse", tool="run_cmd", arguments={"command": "ls"})
    took = time.monotonic() - start
    assert took < 0.5 + 1.0, took
    assert verdict.blocked
    assert "timeout" in verdict.reason
    assert len(pids.read_text().split()) == 3
    assert _tagged_alive(pids) == []


async def test_a_hook_that_leaves_a_child_leaves_no_process(workspace: Path) -> None:
    pids = workspace / "pids"
    h = hooks(workspace, pre(f"sleep 60 >/dev/null 2>&1 & echo $! > {pids}; exit 0"))
    start = time.monotonic()
    verdict = await h.fire("PreToolUse", tool="run_cmd")
    assert time.monotonic() - start < 1.0
    assert verdict.outcomes[0].exit_code == 0
    await trio.sleep(0.05)
    assert _tagged_alive(pids) == []


async def test_no_hook_costs_no_process(workspace: Path) -> None:
    h = hooks(workspace, HookHandler("Stop", "", "exit 2"))
    before = set(psutil.Process(os.getpid()).children())
    verdict = await h.fire("PreToolUse", tool="run_cmd")
    assert verdict.outcomes == ()
    assert set(psutil.Process(os.getpid()).children()) == before
