"""spawn_agent against the scripted model over loopback, with real runner processes."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import SubagentLimits, Task, open_session
from harness.conversation import events as ev
from tests.cli.inprocess import in_process
from tests.conversation.conftest import drain, options_for
from tests.mcp_bridge.conftest import fake_entry
from tests.mcp_bridge.test_session import until
from tests.scripted import ScriptedModel, call, reply
from tests.subagents.conftest import Router, runners


def _session(workspace: Path, home: Path, model: ScriptedModel, **kw: Any) -> Any:
    approver = kw.pop("approver", None)
    return open_session(options_for(workspace, home, model, **kw), approver=approver)


async def test_one_subagent_reports_as_the_tool_result(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "notes.txt").write_text("the answer is 42\n")
    Router(
        {
            "find the answer": [
                reply("", call("spawn_agent", task="read notes.txt and say the answer")),
                reply("The sub-agent says 42."),
            ],
            "read notes.txt": [
                reply("", call("read_file", path="notes.txt")),
                reply("The answer in notes.txt is 42."),
            ],
        }
    ).serve(model)
    async with _session(workspace, home, model) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("find the answer")
        seen = drain(events)
    assert result.ok, result
    tool_results = [m for m in s.history if m.role == "tool"]
    assert [m.name for m in tool_results] == ["spawn_agent"]
    assert tool_results[0].content == "The answer in notes.txt is 42."
    # its read_file call never entered the parent's history
    assert all(c.name != "read_file" for m in s.history for c in m.tool_calls)
    started = [e for e in seen if isinstance(e, ev.SubagentStarted)]
    finished = [e for e in seen if isinstance(e, ev.SubagentFinished)]
    progress = [e for e in seen if isinstance(e, ev.SubagentProgress)]
    assert [e.name for e in started] == ["agent-1"] == [e.name for e in finished]
    assert finished[0].ok
    assert finished[0].reason == "done"
    assert any(e.tool == "read_file" for e in progress)
    # the sub-agent's tokens count into the session's usage
    assert finished[0].usage["prompt_tokens"] > 0
    assert result.usage["prompt_tokens"] >= finished[0].usage["prompt_tokens"]
    assert runners() == []


async def test_three_slow_subagents_run_together(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router({f"job {i}": [reply(f"report {i}", delay=0.5, chunk=1000)] for i in range(3)}).serve(
        model
    )
    async with _session(workspace, home, model) as s:
        started = time.monotonic()
        with trio.fail_after(30):
            reports = await s.spawn_subagents([Task(f"job {i}") for i in range(3)])
        took = time.monotonic() - started
    assert [r.text for r in reports] == ["report 0", "report 1", "report 2"]
    assert all(r.ok for r in reports)
    # each model reply takes 2 s (4 pieces of 0.5 s); one after another would be 6 s
    assert took < 5.0, took


async def test_turn_limit_asks_once_for_a_report(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("a\n")

    def forever(body: dict[str, Any]) -> Any:
        if "used all your turns" in str(body["messages"][-1].get("content")):
            return reply("I read a.txt over and over; nothing else found.")
        return reply("", call("read_file", path="a.txt"))

    Router({"loop forever": [forever]}).serve(model)
    limits = SubagentLimits(max_turns=3)
    async with _session(workspace, home, model, subagents=limits) as s:
        with trio.fail_after(30):
            [report] = await s.spawn_subagents([Task("loop forever")])
    assert report.reason == "max_turns"
    assert "turn limit (3)" in report.text
    assert "nothing else found" in report.text


async def test_no_report_within_the_grace_is_killed(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("a\n")

    def stubborn(body: dict[str, Any]) -> Any:
        if "used all your turns" in str(body["messages"][-1].get("content")):
            return reply("too late", delay=30)
        return reply("still reading", call("read_file", path="a.txt"))

    Router({"stubborn": [stubborn]}).serve(model)
    limits = SubagentLimits(max_turns=2, report_grace=0.5)
    async with _session(workspace, home, model, subagents=limits) as s:
        with trio.fail_after(20):
            [report] = await s.spawn_subagents([Task("stubborn")])
        assert runners() == []
    assert not report.ok
    assert report.reason == "stopped"
    assert "gave no report within 0.5 s" in report.text
    assert "read_file" in report.text  # what it was doing
    assert "still reading" in report.text  # the last thing it said


def test_headless_stream_json_shows_the_subagent_events(
    workspace: Path,
    home: Path,
    model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    Router(
        {
            "delegate it": [reply("", call("spawn_agent", task="count to 3")), reply("done")],
            "count to 3": [reply("1 2 3")],
        }
    ).serve(model)
    args = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    out = in_process(monkeypatch, capsys)(  # the command's code, in this process
        ["-p", "delegate it", *args, "--output-format", "stream-json", "--permission-mode", "auto"],
        workspace=workspace,
        home=home,
    )
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    sub = [e for e in events if e["type"].startswith("subagent_")]
    assert sub[0]["type"] == "subagent_started"
    assert sub[-1]["type"] == "subagent_finished"
    assert {e["name"] for e in sub} == {"agent-1"}
    assert any(e["type"] == "subagent_progress" and e["turn"] == 1 for e in sub)
    finished = sub[-1]
    assert finished["result"] == "1 2 3"
    assert finished["reason"] == "done"
    assert finished["usage"]["prompt_tokens"] > 0
    assert events[-1]["type"] == "result"


async def test_hiring_chains_only_as_deep_as_the_setting(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router(
        {
            "middle": [reply("", call("spawn_agent", task="bottom job")), reply("bottom said 7")],
            "bottom job": [reply("", call("spawn_agent", task="too deep")), reply("7")],
        }
    ).serve(model)
    async with _session(workspace, home, model, subagents=SubagentLimits(max_depth=2)) as s:
        with trio.fail_after(30):
            [report] = await s.spawn_subagents([Task("middle")])
    assert report.ok
    assert report.text == "bottom said 7"
    # the middle one was offered spawn_agent; the bottom one was not, and was refused it
    middle = next(r for r in model.requests if "middle" in str(r["messages"][1]["content"]))
    bottom = next(r for r in model.requests if "bottom job" in str(r["messages"][1]["content"]))
    assert "spawn_agent" in {t["function"]["name"] for t in middle["tools"]}
    assert "spawn_agent" not in {t["function"]["name"] for t in bottom["tools"]}
    refused = [r for r in model.requests if "bottom job" in str(r["messages"][1]["content"])][-1]
    assert "spawn_agent is not available" in refused["messages"][-1]["content"]


async def test_a_subagent_is_offered_mcp_and_registered_tools(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router(
        {
            "ask the helpers": [
                reply("", call("spawn_agent", task="echo hi and look up a")),
                reply("done"),
            ],
            "echo hi": [
                reply("", call("mcp__fake__echo", text="hi"), call("lookup", key="a")),
                reply("echoed and looked up"),
            ],
        }
    ).serve(model)
    looked_up: list[str] = []

    async def lookup(args: dict[str, Any]) -> str:
        looked_up.append(args["key"])
        return f"value of {args['key']}: 7"

    async def submit(args: dict[str, Any]) -> str:
        return "submitted"

    schema = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
    async with _session(workspace, home, model, mcp_servers={"fake": fake_entry()}) as s:
        s.register_tool("lookup", "Look a key up.", schema, lookup)
        s.register_tool("submit", "Submit.", {"type": "object"}, submit, terminating=True)
        await until(s, lambda: "mcp__fake__echo" in s.conversation.table)
        with trio.fail_after(60):
            result = await s.run("ask the helpers")
    assert result.ok, result
    sub = next(r for r in model.requests if "echo hi" in json.dumps(r["messages"][1:2]))
    offered = {t["function"]["name"] for t in sub["tools"]}
    assert {"mcp__fake__echo", "lookup", "read_mcp_resource"} <= offered
    # a terminating tool ends the parent's run: a sub-agent is never offered one
    assert "submit" not in offered
    last = model.requests[-2]["messages"]  # the sub-agent's last request: both results
    results = [m["content"] for m in last if m["role"] == "tool"]
    assert results == ["echo: hi", "value of a: 7"]
    assert looked_up == ["a"]
    assert runners() == []
