"""What holds a sub-agent in: cancel, kill -9 of harness, RSS, crashes, approvals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import ApprovalRequest, SubagentLimits, Task, open_session
from harness.conversation import events as ev
from tests.conversation.conftest import MODULES, PYTHONPATH, drain, options_for
from tests.scripted import ScriptedModel, call, reply
from tests.subagents.conftest import Router, runners, still_alive


def _session(workspace: Path, home: Path, model: ScriptedModel, **kw: Any) -> Any:
    approver = kw.pop("approver", None)
    return open_session(options_for(workspace, home, model, **kw), approver=approver)


async def test_cancel_stops_every_runner_at_once(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router(
        {
            "hire two": [
                reply("", call("spawn_agent", task="slow a"), call("spawn_agent", task="slow b"))
            ],
            "slow": [reply("never", delay=30)],
        }
    ).serve(model)
    async with _session(workspace, home, model) as s:
        async with trio.open_nursery() as nursery:
            results: list[Any] = []

            async def run() -> None:
                results.append(await s.run("hire two"))

            nursery.start_soon(run)
            # both runners asked their model (so each is mid-request)
            await trio.to_thread.run_sync(model.wait_for_requests, 3)
            hired = runners()
            assert len(hired) == 2
            s.cancel()
        assert results[0].reason == "cancelled"
        # killed at once (SIGKILL), not at the end of a grace period
        assert still_alive(hired, timeout=1.0) == []
        assert runners() == []
        assert [m.role for m in s.history] == ["user", "assistant", "tool", "tool"]


def test_kill_9_of_harness_leaves_no_runner(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router(
        {
            "hire one": [reply("", call("spawn_agent", task="slow job"))],
            "slow job": [reply("never", delay=60)],
        }
    ).serve(model)
    env = dict(os.environ)
    env.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=PYTHONPATH,
        HARNESS_WORKERS=json.dumps({k: v for k, v in MODULES.items() if k != "shell"}),
    )
    args = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "-p", "hire one", "--permission-mode", "auto", *args],
        cwd=workspace,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        model.wait_for_requests(2, timeout=30)  # the runner asked its model
        mine = runners(proc.pid)
        assert len(mine) == 1
        runner = mine[0]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
        # the runner's lifeline sees its parent gone and ends it (after a short grace)
        assert still_alive([runner], timeout=8) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_runner_whose_memory_grows_is_killed_at_its_rss_limit(
    workspace: Path, home: Path, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A runaway reply: the runner keeps what it has read, a megabyte a piece, so its
    # memory grows past the limit long before the 300 MB reply would end. The model
    # worker's cap on a reply's size would cut it first: lifted here, so that the
    # runner's memory limit is what stops it.
    monkeypatch.setenv("HARNESS_MODEL_MAX_REPLY_CHARS", str(2**31))
    runaway = reply("x" * 300 * 2**20, chunk=2**20, delay=0.01)
    Router({"heavy": [runaway]}).serve(model)
    limits = SubagentLimits(rss_limit=96 * 2**20)
    async with _session(workspace, home, model, subagents=limits) as s:
        with trio.fail_after(30):
            [report] = await s.spawn_subagents([Task("heavy")])
        assert runners() == []
    assert not report.ok
    assert report.reason == "stopped"
    assert "memory limit of 96 MB" in report.text


async def test_runner_crash_is_a_failure_report_and_the_parent_goes_on(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router(
        {
            "hire": [reply("", call("spawn_agent", task="doomed")), reply("parent carries on")],
            "doomed": [reply("never", delay=30)],
        }
    ).serve(model)
    async with _session(workspace, home, model) as s:
        async with trio.open_nursery() as nursery:
            results: list[Any] = []

            async def run() -> None:
                results.append(await s.run("hire"))

            nursery.start_soon(run)
            await trio.to_thread.run_sync(model.wait_for_requests, 2)
            [runner] = runners()
            runner.kill()
        [result] = results
    assert result.ok
    assert result.text == "parent carries on"
    tool = [m for m in s.history if m.role == "tool"]
    assert "agent-1 was stopped: its runner crashed" in tool[0].content


async def test_approval_from_a_subagent_names_it_and_a_denial_stays_inside(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    asked: list[ApprovalRequest] = []

    async def approver(req: ApprovalRequest) -> str:
        asked.append(req)
        return "yes" if req.name == "spawn_agent" else "no"

    Router(
        {
            "delegate": [reply("", call("spawn_agent", task="write x")), reply("ok")],
            "write x": [
                reply("", call("write_file", path="x.txt", content="1")),
                reply("I could not write x.txt: it was denied."),
            ],
        }
    ).serve(model)
    async with _session(workspace, home, model, permission_mode="ask", approver=approver) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("delegate")
        seen = drain(events)
    assert result.ok
    assert [(r.name, r.agent) for r in asked] == [("spawn_agent", ""), ("write_file", "agent-1")]
    assert "+1" in asked[1].diff  # the parent's preview of the sub-agent's change
    assert not (workspace / "x.txt").exists()
    tool = [m for m in s.history if m.role == "tool"]
    assert tool[0].content == "I could not write x.txt: it was denied."
    # the sub-agent was told the way a model is told of a denial, and went on
    sub = model.requests[2]["messages"]
    assert sub[-1]["role"] == "tool"
    assert "denied by the user" in sub[-1]["content"]
    assert [e.name for e in seen if isinstance(e, ev.SubagentFinished)] == ["agent-1"]


async def test_tools_narrow_what_a_subagent_is_offered(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    Router({"look only": [reply("looked")]}).serve(model)
    async with _session(workspace, home, model) as s:
        with trio.fail_after(20):
            reports = await s.spawn_subagents(
                [
                    Task("look only", tools=("read_file", "list_dir"), model="scripted-mini"),
                    Task("x", tools=("spawn_agent",)),
                ]
            )
    assert model.requests[0]["model"] == "scripted-mini"  # a cheaper model, same provider
    offered = sorted(t["function"]["name"] for t in model.requests[0]["tools"])
    assert offered == ["list_dir", "read_file"]
    assert reports[0].ok
    assert not reports[1].ok
    assert "cannot be given spawn_agent" in reports[1].text
    everything = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "get_user_input" not in everything


async def test_wall_time_and_token_budgets_stop_a_runner(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("a\n")
    Router(
        {
            "slow one": [reply("never", delay=30)],
            "greedy one": [reply("reading", call("read_file", path="a.txt"), usage=(900, 10))],
        }
    ).serve(model)
    # One session per limit, run side by side: with one limits for both, a machine busy
    # enough to take the greedy runner past a short wall time ends it by the wrong limit.
    found: dict[str, Any] = {}

    async def spawn(name: str, limits: SubagentLimits) -> None:
        async with _session(workspace, home, model, subagents=limits) as s:
            [found[name]] = await s.spawn_subagents([Task(name)])

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(spawn, "slow one", SubagentLimits(wall_time=1.0))
            nursery.start_soon(spawn, "greedy one", SubagentLimits(max_tokens=2000))
    assert runners() == []
    slow, greedy = found["slow one"], found["greedy one"]
    assert not slow.ok
    assert "its wall time of 1 s ran out" in slow.text
    assert not greedy.ok
    assert "over its budget of 2000" in greedy.text
    assert "It had run 3 turn(s), the last tool it called was read_file" in greedy.text
