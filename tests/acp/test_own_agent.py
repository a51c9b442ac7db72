"""What needs a ``harness acp`` of its own, started with other flags or environment:
the key a hosted provider needs, deepthink's stages as the plan, and a worker killed
mid-call (the shell worker among the workers)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest
from acp.exceptions import RequestError

from acp import PROTOCOL_VERSION, text_block
from tests.acp.conftest import Recorder, agent
from tests.scripted import ScriptedModel, call, reply


async def _session(conn, workspace: Path) -> str:
    await conn.initialize(protocol_version=PROTOCOL_VERSION)
    new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    return new.session_id


def test_a_hosted_provider_without_a_key_asks_to_authenticate(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    rec = Recorder()
    codes: list[int] = []

    async def main() -> None:
        async with agent(model, workspace, home, rec, args=["--provider", "anthropic"]) as (
            conn,
            _,
        ):
            init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
            assert "anthropic-key" in [m.id for m in init.auth_methods]
            for call_ in (
                conn.new_session(cwd=str(workspace), mcp_servers=[]),
                conn.authenticate(method_id="anthropic-key"),
            ):
                with pytest.raises(RequestError) as err:
                    await call_
                codes.append(err.value.code)

    asyncio.run(main())
    assert codes == [-32000, -32000]


def test_deepthink_stages_are_the_plan(model: ScriptedModel, workspace: Path, home: Path) -> None:
    model.add(*[reply(f"stage answer {n}") for n in range(12)])
    rec = Recorder()

    async def main() -> None:
        async with agent(model, workspace, home, rec, "--deepthink") as (conn, _):
            sid = await _session(conn, workspace)
            await conn.prompt(session_id=sid, prompt=[text_block("think it through")])

    asyncio.run(main())
    assert rec.bad == []
    plans = rec.of("plan")
    assert plans
    assert [e.content for e in plans[0].entries] == [
        f"deepthink: {s}" for s in ("plan", "check", "implement", "review", "verify")
    ]
    assert plans[0].entries[0].status == "in_progress"
    assert [e.status for e in plans[1].entries[:2]] == ["completed", "pending"]
    assert plans[2].entries[1].status == "in_progress"


def test_a_worker_killed_mid_call_is_a_failed_tool_call(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(reply("", call("run_cmd", command="sleep 30")), reply("after the crash"))
    rec = Recorder()

    async def main() -> None:
        async with agent(
            model,
            workspace,
            home,
            rec,
            "--permission-mode",
            "auto",
            env={"HARNESS_WORKERS": '{"model": "harness.actors.model", "tools": '
                 '"harness.actors.tools", "shell": "harness.actors.shell"}'},
        ) as (conn, process):  # fmt: skip
            sid = await _session(conn, workspace)
            running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("go")]))
            await rec.wait_for(
                lambda: any(u.status == "in_progress" for u in rec.of("tool_call_update"))
            )
            await asyncio.sleep(0.3)  # the command is running in the shell worker
            shells = [
                p
                for p in psutil.Process(process.pid).children(recursive=True)
                if "harness.actors.shell" in " ".join(p.cmdline())
            ]
            shells += [
                p
                for p in psutil.process_iter(["cmdline", "environ"])
                if "harness.actors.shell" in " ".join(p.info["cmdline"] or ())
                and (p.info["environ"] or {}).get("HARNESS_HOME") == str(home)
            ]
            assert shells
            for p in shells:
                p.kill()
            answer = await running
            assert answer.stop_reason == "end_turn"

    asyncio.run(main())
    finals = [u for u in rec.of("tool_call_update") if u.status in ("completed", "failed")]
    assert [u.status for u in finals] == ["failed"]
    assert rec.text() == "after the crash"
