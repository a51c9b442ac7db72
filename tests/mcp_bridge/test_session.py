"""MCP servers inside a real session: the table, approvals, list changes, a killed bridge,
resources, and the SDK staying out of every process but the bridges. The SDK's own server
(``fake_server``) answers the first test; the others, whose subject is the session, use
the server without the SDK (``tiny_server``: the same tools, started in milliseconds)."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import Session, SessionOptions, open_session
from tests.mcp_bridge.conftest import fake_entry, imported_the_sdk, tiny_entry
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow

SDK_MODULES = ("mcp", "mcp_types", "httpx2", "pydantic", "pydantic_core", "starlette")


@asynccontextmanager
async def mcp_session(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
    servers: dict[str, Any],
    **kw: Any,
) -> AsyncIterator[Session]:
    ws, home = dirs
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    approver = kw.pop("approver", None)
    frontend = kw.pop("frontend", None)
    options = SessionOptions(
        workspace=str(ws),
        home=str(home),
        environ={**os.environ, "HARNESS_HOME": str(home), **kw.pop("environ", {})},
        provider="openai",
        models=kw.pop("models", ("scripted",)),
        base_url=model.base_url,
        permission_mode=kw.pop("permission_mode", "auto"),
        workers={"model": "harness.actors.model", "tools": "harness.actors.tools"},
        trust_project=kw.pop("trust_project", True),  # the test wrote its .mcp.json
        **kw,
    )
    async with open_session(options, approver=approver, frontend=frontend) as live:
        yield live


async def until(live: Session, pred: Callable[[], bool], timeout: float = 120.0) -> None:
    changed = trio.Event()

    def wake() -> None:
        nonlocal changed
        changed.set()
        changed = trio.Event()

    live.mcp.subscribe(wake)
    with trio.fail_after(timeout):
        while not pred():
            await changed.wait()


def tool_results(live: Session) -> list[str]:
    return [m.content for m in live.history if m.role == "tool"]


async def test_tools_join_the_table_calls_reach_the_server_and_a_list_change_refreshes_it(
    dirs: tuple[Path, Path], model: ScriptedModel
) -> None:
    model.add(
        reply("", call("mcp__fake__echo", text="hi")),
        reply("", call("list_mcp_resources"), call("read_mcp_resource", uri="fake://greeting")),
        reply("done"),
        reply("", call("mcp__fake__change_tools")),
        reply("changed"),
    )
    async with mcp_session(dirs, model, {"fake": fake_entry()}) as live:
        await until(live, lambda: "mcp__fake__echo" in live.conversation.table)
        spec = live.conversation.table.get("mcp__fake__echo")
        assert spec.executor == "mcp"
        assert spec.kind == "mutating"  # the server's readOnlyHint is only its word
        assert "(MCP server fake; read-only)" in spec.description
        assert live.conversation.table.get("mcp__fake__crash").kind == "mutating"
        assert "destructive" in live.conversation.table.get("mcp__fake__crash").description
        assert "The fake server: use echo to repeat text." in live.conversation.config.system
        result = await live.run("use the server")
        assert result.ok
        [view] = live.mcp.servers()
        assert view.state == "ready"
        assert view.transport == "stdio"
        bridge = live.workers.supervisor.get("mcp:fake")
        assert bridge.spec.rss_limit == 1024**3  # a huge answer costs the bridge only
        assert bridge.status().rss < 1024**3 / 4
        # the server says its tool list changed: the table follows
        assert "mcp__fake__added" not in live.conversation.table
        await live.run("change them")
        await until(live, lambda: "mcp__fake__added" in live.conversation.table, timeout=30)
        assert "mcp__fake__added" in live.conversation.tool_names()
    assert tool_results(live)[0] == "echo: hi"
    assert "fake: fake://greeting (greeting) [text/plain] - A greeting." in tool_results(live)[1]
    assert tool_results(live)[2] == "hello from the fake server"
    offered = {t["function"]["name"] for t in model.requests[0]["tools"]}
    assert {"mcp__fake__echo", "list_mcp_resources", "read_mcp_resource"} <= offered
    echo = next(t for t in model.requests[0]["tools"] if t["function"]["name"] == "mcp__fake__echo")
    assert echo["function"]["parameters"]["properties"]["text"]["type"] == "string"


async def test_only_a_server_the_user_marked_read_only_runs_while_planning(
    dirs: tuple[Path, Path], model: ScriptedModel
) -> None:
    ws, _home = dirs
    lie, ok = ws / "lie.txt", ws / "ok.txt"
    model.add(
        reply("", call("mcp__liar__save_note", path=str(lie), text="written")),
        reply("", call("mcp__mine__save_note", path=str(ok), text="marked")),
        reply("planned"),
        # deepthink's plan stage, then a question that ends the chain
        reply("", call("mcp__liar__save_note", path=str(lie), text="written")),
        reply("nothing to do\nNOTHING TO BUILD"),
    )
    servers = {
        "liar": {**tiny_entry(), "trust": True},
        "mine": {**tiny_entry(), "trust": True, "readOnly": True},
    }
    async with mcp_session(dirs, model, servers, permission_mode="plan") as live:
        await until(
            live,
            lambda: (
                "mcp__liar__save_note" in live.conversation.table
                and "mcp__mine__save_note" in live.conversation.table
            ),
        )
        assert live.conversation.table.get("mcp__liar__save_note").kind == "mutating"
        assert live.conversation.table.get("mcp__mine__save_note").kind == "read"
        planned = await live.run("plan it")
        live.conversation.configure(permission_mode="auto")
        live.set_deepthink(True)
        thought = await live.run("think about it")
    assert planned.ok, planned
    assert thought.ok, thought
    assert not lie.exists()
    assert ok.read_text() == "marked"
    results = tool_results(live)
    assert "mcp__liar__save_note is switched off in plan mode" in results[0]
    assert results[1] == f"wrote {ok}"
    assert "mcp__liar__save_note is switched off in the plan stage of deepthink" in results[2]


async def test_approval_applies_to_mcp_calls(dirs: tuple[Path, Path], model: ScriptedModel) -> None:
    asked: list[Any] = []
    answers = ["no", "yes"]

    async def approver(req: Any) -> str:
        asked.append(req)
        return answers.pop(0)

    model.add(
        reply("", call("mcp__fake__add", a=1, b=2)),
        reply("", call("mcp__fake__add", a=3, b=4)),
        reply("", call("mcp__auto__echo", text="no question")),
        reply("done"),
    )
    servers = {"fake": tiny_entry(), "auto": {**tiny_entry(), "autoApprove": ["echo"]}}
    async with mcp_session(dirs, model, servers, permission_mode="ask", approver=approver) as live:
        await until(
            live,
            lambda: (
                "mcp__fake__add" in live.conversation.table
                and "mcp__auto__echo" in live.conversation.table
            ),
        )
        first = await live.run("add")
        second = await live.run("add again")
    assert first.reason == "denied"
    assert second.ok
    assert [a.name for a in asked] == ["mcp__fake__add", "mcp__fake__add"]
    # the approval shows what the server says of the tool (add has no hints: it may change)
    assert asked[0].summary == "MCP server fake; may change things"
    results = tool_results(live)
    assert results[0].startswith("The call was not run: denied by the user")
    assert results[1:] == ["7", "echo: no question"]


async def test_kill_9_of_the_bridge_is_a_tool_error_then_a_new_bridge(
    dirs: tuple[Path, Path], model: ScriptedModel
) -> None:
    model.add(
        reply("", call("mcp__fake__hang")),
        reply("that failed"),
        reply("", call("mcp__fake__echo", text="again")),
        reply("done"),
    )
    # a server without the SDK: the new bridge starts a new one
    async with mcp_session(dirs, model, {"fake": tiny_entry()}) as live:
        await until(live, lambda: "mcp__fake__hang" in live.conversation.table)
        handle = live.workers.supervisor.get("mcp:fake")
        pid = handle.pid

        async def kill_when_called() -> None:
            await trio.to_thread.run_sync(model.wait_for_requests, 1, 60.0)
            await trio.sleep(1.0)
            os.kill(pid, signal.SIGKILL)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(kill_when_called)
            await live.run("hang")
        assert (await live.run("again")).ok
        assert handle.pid != pid
    results = tool_results(live)
    assert "The mcp:fake worker crashed while running mcp__fake__hang" in results[0]
    assert "killed by signal 9" in results[0]
    assert results[1] == "echo: again"


async def test_a_server_that_cannot_start_is_told_once_with_its_stderr(
    dirs: tuple[Path, Path], model: ScriptedModel
) -> None:
    async with mcp_session(dirs, model, {"broken": fake_entry("exit_at_start")}) as live:
        events = live.events()
        await until(live, lambda: live.mcp.servers()[0].state == "down")
        with trio.fail_after(10):
            event = await events.receive()
            while event.TAG != "error":
                event = await events.receive()
        assert event.kind == "mcp"
        assert "MCP server broken could not start" in event.message
        assert "| fake server: configured to exit at start (missing API key)" in event.message
        assert "mcp__broken__echo" not in live.conversation.table


@pytest.mark.own_fork_server  # (what the session's own server imported, and when)
async def test_the_sdk_loads_only_in_bridge_processes_and_closing_ends_servers_cleanly(
    dirs: tuple[Path, Path], model: ScriptedModel, tmp_path: Path
) -> None:
    before = set(sys.modules)
    secret = "tok-0e1d2c3b4a59"
    exit_file = tmp_path / "exited"
    servers = {
        "fake": tiny_entry(SERVER_TOKEN=secret, TINY_MCP_EXIT_FILE=str(exit_file)),
        "other": tiny_entry(TINY_MCP_TOOLS="other"),
    }
    async with mcp_session(dirs, model, servers) as live:
        table = live.conversation.table
        # the tools worker starts at a first call to it, or as a terminal opens: as here
        live.workers.start_rest()
        await until(
            live,
            lambda: (
                "mcp__fake__echo" in table
                and "mcp__other__other" in table
                and any(w.name == "tools" and w.pid for w in live.workers.status())
            ),
        )
        assert not exit_file.exists()
        pids = {w.name: w.pid for w in live.workers.status()}
        maps = {name: Path(f"/proc/{pid}/maps").read_text() for name, pid in pids.items()}  # noqa: ASYNC240
        bridge_env = Path(f"/proc/{pids['mcp:fake']}/environ").read_bytes()  # noqa: ASYNC240
        # two bridges: the session's fork server imported the SDK once, before their forks
        imported = [imported_the_sdk(pids[name]) for name in ("mcp:fake", "mcp:other")]
    assert imported == [False, False]
    # the entry reached the bridge in a message: its environment holds none of it
    assert secret.encode() not in bridge_env
    assert sorted(pids) == ["mcp:fake", "mcp:other", "model", "tools"]
    # pydantic-core is the SDK's compiled part: mapped in the bridges, in no other worker
    assert "pydantic_core" in maps["mcp:fake"]
    assert "pydantic_core" not in maps["model"]
    assert "pydantic_core" not in maps["tools"]
    # (compared with before the session: another test may have imported the SDK here)
    loaded = [m for m in set(sys.modules) - before if m.split(".")[0] in SDK_MODULES]
    assert loaded == []
    # stdin closed by the bridge: the server ended on its own, no SIGKILL
    assert exit_file.read_text() == "clean exit"


async def test_output_is_masked_filtered_and_capped(
    dirs: tuple[Path, Path], model: ScriptedModel
) -> None:
    secret = "tok-5b1f0e9a77c2"
    model.add(
        reply("", call("mcp__fake__noisy", name="LEAK", size=100_000)),
        reply("done"),
    )
    servers = {"fake": tiny_entry(LEAK=secret)}
    async with mcp_session(dirs, model, servers, environ={"SERVICE_TOKEN": secret}) as live:
        await until(live, lambda: "mcp__fake__noisy" in live.conversation.table)
        assert (await live.run("show it")).ok
    [out] = tool_results(live)
    assert out.startswith("[REDACTED]\nxxx")
    assert secret not in out
    assert "\x1b" not in out
    assert "pwned" not in out
    assert len(out) < 31_000
    assert "characters cut ..." in out
