"""The official Python SDK's client drives ``harness acp``: prompt, streamed answer, an
edit approved through ``session/request_permission``, allow-always, reject, cancel,
load and list, fork, resume and close, each update checked against the SDK's models."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from acp.exceptions import RequestError
from acp.schema import ClientCapabilities, FileSystemCapabilities

from acp import PROTOCOL_VERSION, text_block
from tests.acp.conftest import Recorder, SharedAgent, agent
from tests.scripted import call, reply


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
    shared: SharedAgent, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    rec = shared.use(["allow"])
    shared.model.add(
        reply("Changing it.", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("All done."),
    )

    async def main(conn: Any) -> None:
        sid = await _start(conn, workspace)
        answer = await conn.prompt(session_id=sid, prompt=[text_block("change a.txt")])
        assert answer.stop_reason == "end_turn"
        assert answer.usage is not None
        assert answer.usage.output_tokens > 0
        assert answer.usage.total_tokens == answer.usage.input_tokens + answer.usage.output_tokens

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert (workspace / "a.txt").read_text() == "bye\n"
    assert "available_commands_update" in rec.kinds()
    assert rec.text() == "Changing it.All done."
    window = rec.of("usage_update")
    assert len(window) == 1
    assert 0 < window[0].used < window[0].size
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
    shared: SharedAgent, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("one\n")
    rec = shared.use(["always", "reject"])
    shared.model.add(
        reply("", call("write_file", path="b.txt", content="x\n")),
        reply("", call("write_file", path="b.txt", content="y\n")),
        reply("written"),
        reply("", call("delete_path", path="a.txt")),  # rejected: the turn ends there
    )

    async def main(conn: Any) -> None:
        sid = await _start(conn, workspace)
        await conn.prompt(session_id=sid, prompt=[text_block("write b.txt twice")])
        assert len(rec.asked) == 1  # the second write_file ran by the new rule
        await conn.prompt(session_id=sid, prompt=[text_block("delete a.txt")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert (workspace / "b.txt").read_text() == "y\n"
    assert (workspace / "a.txt").exists()
    assert len(rec.asked) == 2
    failed = [u for u in rec.of("tool_call_update") if u.status == "failed"]
    assert failed


def test_cancel_stops_the_turn_quickly_and_the_session_goes_on(
    shared: SharedAgent, workspace: Path
) -> None:
    rec = shared.use()
    shared.model.add(reply("a long answer that stalls", stall=30.0, chunk=4), reply("still here"))
    took: list[float] = []

    async def main(conn: Any) -> None:
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

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert took[0] < 0.5, took
    assert rec.text().endswith("still here")


def test_load_replays_a_session_and_list_shows_it(shared: SharedAgent, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hi\n")
    shared.use(["allow", "reject"])
    shared.model.add(
        reply("", call("read_file", path="a.txt")),
        reply("It says hi."),
        reply("", call("edit_file", path="a.txt", old_text="hi", new_text="ho")),
        reply("Changed."),
        reply("", call("delete_path", path="a.txt")),  # rejected: the turn ends there
    )

    async def run_one(conn: Any) -> str:
        sid = await _start(conn, workspace)
        await conn.prompt(session_id=sid, prompt=[text_block("read a.txt")])
        await conn.prompt(session_id=sid, prompt=[text_block("change it")])
        await conn.prompt(session_id=sid, prompt=[text_block("delete it")])
        return sid

    sid = shared.run(run_one(shared.conn))
    again = Recorder()

    async def load() -> None:
        # another harness acp, as after the editor restarted
        async with agent(shared.model, workspace, shared.home, again) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            listed = await conn.list_sessions(cwd=str(workspace))
            assert sid in [s.session_id for s in listed.sessions]
            await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])

    asyncio.run(load())
    assert again.bad == []
    assert again.text("user_message_chunk") == "read a.txtchange itdelete it"
    assert again.text() == "It says hi.Changed."
    calls = again.of("tool_call")
    assert [(c.kind, c.title) for c in calls] == [
        ("read", "read_file a.txt"),
        ("edit", "edit_file a.txt"),
        ("delete", "delete_path a.txt"),
    ]
    ends = [u for u in again.of("tool_call_update") if u.status in ("completed", "failed")]
    assert [u.status for u in ends] == ["completed", "completed", "failed"]
    assert "hi" in ends[0].content[0].content.text
    assert ends[1].content[0].type == "diff"
    assert (ends[1].content[0].old_text, ends[1].content[0].new_text) == ("hi", "ho")


def test_fork_resume_and_close(shared: SharedAgent, workspace: Path) -> None:
    rec = shared.use()
    shared.model.add(reply("first"), reply("in the fork"), reply("resumed"))

    async def main(conn: Any) -> None:
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        offered = init.agent_capabilities.session_capabilities
        assert offered.fork is not None
        assert offered.resume is not None
        assert offered.close is not None
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("one")])
        fork = await conn.fork_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert fork.session_id != sid
        assert fork.modes.current_mode_id == "ask"
        await conn.prompt(session_id=fork.session_id, prompt=[text_block("two")])
        await conn.close_session(session_id=sid)
        with pytest.raises(RequestError):
            await conn.prompt(session_id=sid, prompt=[text_block("closed")])
        rec.updates.clear()
        await conn.resume_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert "user_message_chunk" not in rec.kinds()  # resumed, not replayed
        await conn.prompt(session_id=sid, prompt=[text_block("three")])
        with pytest.raises(RequestError):
            await conn.close_session(session_id="no-such-session")

    shared.run(main(shared.conn))
    assert rec.bad == []
    seen = [
        [m["content"] for m in r["messages"] if m["role"] != "system"] for r in shared.requests()
    ]
    assert seen[1][:3] == ["one", "first", "two"]  # the fork holds the conversation
    assert seen[2][:3] == ["one", "first", "three"]  # the resumed source, without the fork's
