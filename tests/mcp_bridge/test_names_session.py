"""Tools whose table names would collide, across servers and within one, in a session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.conversation import events as ev
from tests.mcp_bridge.conftest import tiny_entry
from tests.mcp_bridge.test_session import mcp_session, until
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow


async def test_every_colliding_tool_stays_callable_with_a_warning(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    servers: dict[str, Any] = {
        "a": tiny_entry(TINY_MCP_TOOLS="b__c", TINY_MCP_WHO="a"),
        "a__b": tiny_entry(TINY_MCP_TOOLS="c,x_y,x.y", TINY_MCP_WHO="a__b"),
    }
    async with mcp_session(dirs, model, servers) as live:
        notices: list[str] = []
        live.subscribe(lambda e: notices.append(e.message) if isinstance(e, ev.Notice) else None)
        await until(live, lambda: [v.state for v in live.mcp.servers()] == ["ready", "ready"])
        names = {t: (s, tool.name) for s in ("a", "a__b") for t, tool in live.mcp.tools(s)}
        # whichever server came first keeps the plain name; the other is told apart
        plain, other = names["mcp__a__b__c"], names["mcp__a__b__c_2"]
        assert {plain, other} == {("a", "b__c"), ("a__b", "c")}
        assert names["mcp__a__b__x_y"] == ("a__b", "x_y")
        assert names["mcp__a__b__x_y_2"] == ("a__b", "x.y")
        model.add(
            reply(
                "",
                call("mcp__a__b__c"),
                call("mcp__a__b__c_2"),
                call("mcp__a__b__x_y"),
                call("mcp__a__b__x_y_2"),
            ),
            reply("done"),
        )
        await live.run("call them all")
        results = [m.content for m in live.history if m.role == "tool"]
        said = {("a", "b__c"): "b__c of a", ("a__b", "c"): "c of a__b"}
        assert results == [said[plain], said[other], "x_y of a__b", "x.y of a__b"]
        # (the servers start after the session opens, so their warnings come to us)
        assert any(
            n.endswith(
                "is offered as mcp__a__b__c_2: mcp__a__b__c is already "
                + ("server a's tool 'b__c'" if plain == ("a", "b__c") else "server a__b's tool 'c'")
            )
            for n in notices
        ), notices
        assert any("'x.y' is offered as mcp__a__b__x_y_2" in n for n in notices), notices


async def test_trusting_server_a_does_not_trust_server_a__b(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    # mcp__a__* would match server a__b's tools too: trust is given tool by tool
    servers: dict[str, Any] = {
        "a": {**tiny_entry(), "trust": True},
        "a__b": tiny_entry(TINY_MCP_TOOLS="zz", TINY_MCP_WHO="a__b"),
    }
    async with mcp_session(dirs, model, servers, permission_mode="ask") as live:
        await until(live, lambda: [v.state for v in live.mcp.servers()] == ["ready", "ready"])
        model.add(reply("", call("mcp__a__echo", text="hi"), call("mcp__a__b__zz")), reply("done"))
        await live.run("call both")
        results = [m.content for m in live.history if m.role == "tool"]
        assert results[0] == "echo: hi"  # server a is trusted
        assert "zz of a__b" not in results[1]  # server a__b is not: asked, and nobody said yes
        assert "mcp__a__echo" in live.rules()
        assert "mcp__a__*" not in live.rules()
