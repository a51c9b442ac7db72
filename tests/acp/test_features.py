"""The rest of what ``harness acp`` offers, through the Python SDK's client (one agent for
the file): resources in a prompt, plan mode and a plan approved in the editor, the
client's own MCP servers (and one that crashes mid-call: a failed tool call, never a
dropped connection), thinking, an untrusted project's servers, skills as commands, two
sessions at once and the wrong requests."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp.exceptions import RequestError
from acp.schema import EnvVariable, McpServerStdio

from acp import (
    PROTOCOL_VERSION,
    embedded_text_resource,
    resource_block,
    resource_link_block,
    text_block,
)
from tests.acp.conftest import ROOT, SharedAgent
from tests.scripted import call, reply


async def _session(conn, workspace: Path, **kw) -> str:
    await conn.initialize(protocol_version=PROTOCOL_VERSION)
    new = await conn.new_session(cwd=str(workspace), mcp_servers=kw.get("mcp_servers", []))
    return new.session_id


def test_resources_reach_the_model(shared: SharedAgent, workspace: Path) -> None:
    shared.use()
    shared.model.add(reply("seen"))

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace)
        blocks = [
            text_block("compare these"),
            resource_link_block("main.py", f"file://{workspace}/main.py"),
            resource_block(
                embedded_text_resource(f"file://{workspace}/draft.py", "x = 1  # unsaved")
            ),
        ]
        await conn.prompt(session_id=sid, prompt=blocks)

    shared.run(main(shared.conn))
    sent = shared.requests()[0]["messages"][-1]["content"]
    assert "compare these" in sent
    assert "main.py" in sent
    assert '<file path="draft.py">\nx = 1  # unsaved\n</file>' in sent


def test_plan_mode_and_a_plan_approved_in_the_editor(shared: SharedAgent, workspace: Path) -> None:
    rec = shared.use(["approve"])
    shared.model.add(
        reply("", call("submit_plan", plan="# Plan\n- read main.py\n- fix the bug")),
        reply("implementing"),
    )

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace)
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
        await conn.prompt(session_id=sid, prompt=[text_block("plan the fix")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    plans = rec.of("plan")
    assert [e.content for e in plans[0].entries] == ["read main.py", "fix the bug"]
    assert [o.option_id for o in rec.asked[0].options] == ["approve", "keep"]
    assert [u.current_mode_id for u in rec.of("current_mode_update")] == ["ask"]
    assert rec.text().endswith("implementing")


def test_the_clients_mcp_servers_and_a_crash_mid_call(shared: SharedAgent, workspace: Path) -> None:
    rec = shared.use(["always", "allow", "allow"])
    shared.model.add(
        reply("", call("mcp__fake__echo", text="hi")),
        reply("", call("mcp__fake__crash")),
        reply("went on"),
    )
    server = McpServerStdio(
        name="fake",
        command=sys.executable,
        args=["-m", "tests.mcp_bridge.fake_server"],
        env=[EnvVariable(name="PYTHONPATH", value=ROOT)],
    )

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace, mcp_servers=[server])
        answer = await conn.prompt(session_id=sid, prompt=[text_block("use the server")])
        assert answer.stop_reason == "end_turn"

    shared.run(main(shared.conn))
    assert rec.bad == []
    updates = rec.of("tool_call_update")
    finals = [u for u in updates if u.status in ("completed", "failed")]
    assert [u.status for u in finals] == ["completed", "failed"]
    assert "hi" in finals[0].content[0].content.text
    assert rec.text() == "went on"


def test_thinking_is_shown_when_asked(shared: SharedAgent, workspace: Path) -> None:
    rec = shared.use()
    shared.model.add(reply("answer", thinking="let me think"))

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace)
        await conn.prompt(session_id=sid, prompt=[text_block("think")])

    shared.run(main(shared.conn))
    assert rec.text("agent_thought_chunk") == "let me think"
    assert rec.text() == "answer"


def test_an_untrusted_projects_servers_stay_out_and_the_editor_is_told(
    shared: SharedAgent, workspace: Path
) -> None:
    entry = {"command": sys.executable, "args": ["-m", "tests.mcp_bridge.fake_server"]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": entry}}))
    rec = shared.use()
    shared.model.add(reply("ok"))

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace)
        await conn.prompt(session_id=sid, prompt=[text_block("hi")])

    shared.run(main(shared.conn))
    told = rec.text()
    assert told.startswith("harness: ")
    assert "trust" in told
    offered = {t["function"]["name"] for t in shared.requests()[0].get("tools", [])}
    assert not any(name.startswith("mcp__proj") for name in offered)


def test_skills_are_commands(shared: SharedAgent, workspace: Path) -> None:
    skill = workspace / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy a file\n---\nSort lines.\n")
    rec = shared.use()
    shared.model.add(reply("tidied"))

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace)
        await conn.prompt(session_id=sid, prompt=[text_block("/tidy a.txt")])

    shared.run(main(shared.conn))
    offered = {c.name: c for c in rec.of("available_commands_update")[0].available_commands}
    assert {"compact", "undo", "tidy"} <= set(offered)
    assert offered["tidy"].description == "Tidy a file"
    sent = shared.requests()[0]["messages"][-1]["content"]
    assert sent.startswith("Use the skill tidy")
    assert sent.endswith("a.txt")


def test_two_sessions_at_once_and_the_wrong_requests(shared: SharedAgent, workspace: Path) -> None:
    rec = shared.use()
    shared.model.add(
        reply("slow one", stall=1.0, chunk=4), reply("other one"), reply("slow one again")
    )
    other = workspace / "other"
    other.mkdir()
    codes: list[int] = []

    async def main(conn: Any) -> None:
        first = await _session(conn, workspace)
        second = await _session(conn, other)
        assert first != second
        rec.answering = asyncio.Event()
        running = asyncio.create_task(conn.prompt(session_id=first, prompt=[text_block("a")]))
        await rec.answering.wait()
        for wrong in (
            conn.prompt(session_id=first, prompt=[text_block("while running")]),
            conn.load_session(cwd=str(workspace), session_id="no-such-session", mcp_servers=[]),
        ):
            with pytest.raises(RequestError) as err:
                await wrong
            codes.append(err.value.code)
        answer = await conn.prompt(session_id=second, prompt=[text_block("b")])
        assert answer.stop_reason == "end_turn"
        assert (await running).stop_reason == "end_turn"
        await conn.prompt(session_id=first, prompt=[text_block("c")])

    shared.run(main(shared.conn))
    assert codes == [-32600, -32002]
    by_session: dict[str, str] = {}
    for n in rec.updates:
        if n.update.session_update == "agent_message_chunk":
            by_session[n.session_id] = by_session.get(n.session_id, "") + n.update.content.text
    assert sorted(by_session.values()) == ["other one", "slow oneslow one again"]
