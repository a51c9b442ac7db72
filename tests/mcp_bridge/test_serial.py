"""A server that handles one request at a time, stuck in a call that timed out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.mcp_bridge.conftest import tiny_config

pytestmark = pytest.mark.slow


async def call(handle: Any, tool: str, **arguments: Any) -> ToolOutcome:
    out = await handle.request(ToolInvoke(name=tool, arguments=arguments), timeout=90)
    assert isinstance(out, ToolOutcome)
    return out


async def test_a_stuck_server_is_killed_at_once_and_the_next_call_reaches_a_new_one(
    start_bridge: Callable[..., Any], tmp_path: Path
) -> None:
    term = tmp_path / "term"
    handle, watch = await start_bridge(
        tiny_config(timeout=1.0, env={"TINY_MCP_TERM_FILE": str(term)})
    )
    await watch.wait_for(lambda s: s.state == "ready")
    before = await call(handle, "whoami")
    # block() holds the server's only loop: the cancel, the probe, stdin's end all wait
    out = await call(handle, "block", seconds=600)
    assert "did not finish block within 1 s; the call was cancelled" in out.output
    with trio.fail_after(60):
        after = await call(handle, "whoami")
    assert after.ok, after.output
    assert after.output.startswith("pid ")
    assert after.output != before.output  # a new server process
    status = await watch.wait_for(lambda s: s.state == "ready")
    assert "stopped answering after a call timed out" in status.error or status.restarts == 1
    # killed, not asked to stop: asking (stdin closed, wait, SIGTERM, wait) adds its waits
    assert not term.exists()
