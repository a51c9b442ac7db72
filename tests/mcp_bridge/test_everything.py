"""The bridge against a server nobody here wrote: ``@modelcontextprotocol/server-everything``
from npm, over stdio, SSE and streamable HTTP."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.actors.mcp import McpServerConfig
from harness.messages.mcp import (
    McpGetPrompt,
    McpListPrompts,
    McpListResources,
    McpPrompts,
    McpPromptText,
    McpReadResource,
    McpResources,
)
from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.mcp_bridge.conftest import free_port

pytestmark = pytest.mark.slow


def serve(everything: Path, mode: str, port: int) -> subprocess.Popen[bytes]:
    """server-everything in ``sse`` or ``streamableHttp`` mode on *port*, once it listens."""
    node = shutil.which("node") or "node"
    proc = subprocess.Popen(
        [node, str(everything), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    # it says where it listens on stderr once the port is bound
    for _ in range(50):
        line = proc.stderr.readline().decode()
        if str(port) in line:
            return proc
    proc.kill()
    raise RuntimeError("server-everything did not start")


def url_of(mode: str, port: int) -> str:
    return f"http://127.0.0.1:{port}" + ("/sse" if mode == "sse" else "/mcp")


def config(transport: str, everything: Path, url: str = "") -> McpServerConfig:
    if transport == "stdio":
        return McpServerConfig(
            name="everything", command=shutil.which("node") or "node", args=(str(everything),)
        )
    return McpServerConfig(name="everything", transport=transport, url=url)  # type: ignore[arg-type]


async def check_features(handle: Any, watch: Any) -> None:
    """Tools (with their hints and schemas), calls, resources and prompts."""
    status = await watch.wait_for(lambda s: s.state == "ready", timeout=60)
    tools = {t.name: t for t in status.tools}
    assert {"echo", "get-sum"} <= set(tools)
    assert tools["get-sum"].read_only is True
    assert tools["get-sum"].input_schema["required"] == ["a", "b"]

    echo = await handle.request(ToolInvoke(name="echo", arguments={"message": "hi"}), timeout=60)
    assert echo == ToolOutcome(ok=True, output="Echo: hi")
    total = await handle.request(ToolInvoke(name="get-sum", arguments={"a": 2, "b": 40}))
    assert isinstance(total, ToolOutcome)
    assert total.ok
    assert "42" in total.output

    resources = await handle.request(McpListResources(), timeout=60)
    assert isinstance(resources, McpResources)
    uris = [r.uri for r in resources.resources]
    assert uris
    text = await handle.request(McpReadResource(uri=uris[0]), timeout=60)
    assert isinstance(text, ToolOutcome)
    assert text.ok
    assert text.output.strip()

    prompts = await handle.request(McpListPrompts(), timeout=60)
    assert isinstance(prompts, McpPrompts)
    assert "simple-prompt" in {p.name for p in prompts.prompts}
    rendered = await handle.request(McpGetPrompt(name="simple-prompt"), timeout=60)
    assert rendered == McpPromptText(ok=True, text="This is a simple prompt without arguments.")


async def test_server_everything_over_stdio(
    everything: Path, start_bridge: Callable[..., Any]
) -> None:
    handle, watch = await start_bridge(config("stdio", everything))
    await check_features(handle, watch)


@pytest.mark.parametrize("transport", ["sse", "http"])
async def test_server_everything_then_a_broken_connection_mid_call_then_the_server_is_back(
    transport: str, everything: Path, start_bridge: Callable[..., Any]
) -> None:
    """The features over the network, then the server killed in the middle of a call and
    started again on its port. One bridge for both: each costs a bridge's start-up."""
    mode = "sse" if transport == "sse" else "streamableHttp"
    port = free_port()
    procs = [await trio.to_thread.run_sync(serve, everything, mode, port)]
    try:
        handle, watch = await start_bridge(config(transport, everything, url_of(mode, port)))
        await check_features(handle, watch)
        long_call = ToolInvoke(
            name="trigger-long-running-operation", arguments={"duration": 10, "steps": 5}
        )
        async with trio.open_nursery() as nursery:

            async def kill_soon() -> None:
                await trio.sleep(1.0)
                procs[0].kill()

            nursery.start_soon(kill_soon)
            out = await handle.request(long_call, timeout=60)
        assert isinstance(out, ToolOutcome)
        assert not out.ok
        assert out.output.startswith(
            "MCP server 'everything' closed the connection while running "
            "trigger-long-running-operation; it is being restarted."
        )
        status = await watch.wait_for(lambda s: s.state == "down", timeout=30)
        assert "ConnectError" in status.error
        procs.append(await trio.to_thread.run_sync(serve, everything, mode, port))
        await watch.wait_for(lambda s: s.state == "ready", timeout=60)
        echo = await handle.request(ToolInvoke(name="echo", arguments={"message": "back"}))
        assert echo == ToolOutcome(ok=True, output="Echo: back")
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
