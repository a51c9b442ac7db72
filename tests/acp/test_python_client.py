"""The official Python SDK's client drives ``harness acp``: prompt, streamed answer, an
edit approved through ``session/request_permission``, allow-always, reject, cancel,
load and list, each update checked against the SDK's models."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from acp.schema import ClientCapabilities, FileSystemCapabilities

from acp import PROTOCOL_VERSION, text_block
from tests.acp.conftest import Recorder, agent
from tests.scripted import ScriptedModel, call, reply


async def _start(conn, workspace: Path) -> str:
    init = await conn.initialize(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=ClientCapabilities(fs=FileSystemCapabilities()),
    )
    assert init.protocol_version == PROTOCOL_VERSION
    assert init.agent_capabilities.load_session is True
    assert init.agent_capabilities.prompt_capabilities.embedded_context is True
    new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert new.modes is not None
    assert new.modes.current_mode_id == "ask"
    assert {m.id for m in new.modes.available_modes} >= {"ask", "auto", "plan"}
    return new.session_id


def test_prompt_streams_the_answer_and_an_approved_edit(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("Changing it.", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("All done."),
    )
    rec = Recorder(answers=["allow"])

    async def main() -> None:
        async with agent(model, workspace, home, rec) as (conn, _):
            sid = await _start(conn, workspace)
            answer = await conn.prompt(session_id=sid, prompt=[text_block("change a.txt")])
            assert answer.stop_reason == "end_turn"

    asyncio.run(main())
    assert rec.bad == []
    assert (workspace / "a.txt").read_text() == "bye\n"
    assert "available_commands_update" in rec.kinds()
    assert rec.text() == "Changing it.All done."
    start = rec.of("tool_call")[0]
    assert start.kind == "edit"
    assert start.locations[0].path == str(workspace / "a.txt")
    assert start.content[0].type == "diff"
    assert (start.content[0].old_text, start.content[0].new_text) == ("hello", "bye")
    asked = rec.asked[0]
    assert asked.tool_call.tool_call_id == start.tool_call_id
    assert [o.kind for o in asked.options] == ["allow_once", "allow_always", "reject_once"]
    done = [u for u in rec.of("tool_call_update") if u.status == "completed"]
    assert done
    assert done[0].tool_call_id == start.tool_call_id
    # the tool_call went out before the question about it
    first_ask = next(
        i for i, m in enumerate(rec.raw) if m.get("method") == "session/request_permission"
    )
    first_call = next(
        i
        for i, m in enumerate(rec.raw)
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "tool_call"
    )
    assert first_call < first_ask


def test_allow_always_becomes_a_rule_and_reject_changes_nothing(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("one\n")
    model.add(
        reply("", call("write_file", path="b.txt", content="x\n")),
        reply("", call("write_file", path="b.txt", content="y\n")),
        reply("written"),
        reply("", call("delete_path", path="a.txt")),
        reply("kept"),
    )
    rec = Recorder(answers=["always", "reject"])

    async def main() -> None:
        async with agent(model, workspace, home, rec) as (conn, _):
            sid = await _start(conn, workspace)
            await conn.prompt(session_id=sid, prompt=[text_block("write b.txt twice")])
            assert len(rec.asked) == 1  # the second write_file ran by the new rule
            await conn.prompt(session_id=sid, prompt=[text_block("delete a.txt")])

    asyncio.run(main())
    assert rec.bad == []
    assert (workspace / "b.txt").read_text() == "y\n"
    assert (workspace / "a.txt").exists()
    assert len(rec.asked) == 2
    failed = [u for u in rec.of("tool_call_update") if u.status == "failed"]
    assert failed


def test_cancel_stops_the_turn_quickly_and_the_session_goes_on(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(reply("a long answer that stalls", stall=30.0, chunk=4), reply("still here"))
    rec = Recorder()
    took: list[float] = []

    async def main() -> None:
        async with agent(model, workspace, home, rec) as (conn, _):
            sid = await _start(conn, workspace)
            rec.answering = asyncio.Event()
            running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("talk")]))
            await rec.answering.wait()
            t0 = time.monotonic()
            await conn.cancel(session_id=sid)
            first = await running
            took.append(time.monotonic() - t0)
            assert first.stop_reason == "cancelled"
            second = await conn.prompt(session_id=sid, prompt=[text_block("again")])
            assert second.stop_reason == "end_turn"

    asyncio.run(main())
    assert rec.bad == []
    assert took[0] < 0.5, took
    assert rec.text().endswith("still here")


def test_load_replays_a_session_and_list_shows_it(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("hi\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("It says hi."))
    first = Recorder()
    ids: list[str] = []

    async def run_one() -> None:
        async with agent(model, workspace, home, first) as (conn, _):
            sid = await _start(conn, workspace)
            ids.append(sid)
            await conn.prompt(session_id=sid, prompt=[text_block("read a.txt")])

    asyncio.run(run_one())
    again = Recorder()

    async def load() -> None:
        async with agent(model, workspace, home, again) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            listed = await conn.list_sessions(cwd=str(workspace))
            assert ids[0] in [s.session_id for s in listed.sessions]
            await conn.load_session(cwd=str(workspace), session_id=ids[0], mcp_servers=[])

    asyncio.run(load())
    assert again.bad == []
    assert again.text("user_message_chunk") == "read a.txt"
    assert again.text() == "It says hi."
    replayed = again.of("tool_call")
    assert [c.title for c in replayed] == ["read_file"] or replayed[0].kind == "read"
