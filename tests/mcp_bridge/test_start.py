"""A server that cannot start is ``down`` at once, says why, and is tried again later."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.actors.mcp import BRIDGE_MODULE, BRIDGE_PRELOAD, McpServerConfig
from harness.messages.mcp import McpRestart
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.supervisor import Supervisor
from tests.mcp_bridge.conftest import imported_the_sdk, tiny_config

pytestmark = pytest.mark.slow


@pytest.mark.own_fork_server  # (a bridge that imports the SDK itself, after its server)
async def test_a_missing_command_is_down_in_the_first_status(
    start_bridge: Callable[..., Any], tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-server"
    handle, watch = await start_bridge(McpServerConfig(name="gone", command=str(missing)))
    await watch.wait_for(lambda s: True)
    first = watch.seen[0]
    # before the SDK has loaded: no "starting" first, the reason is the system's own
    assert first.state == "down"
    assert first.error == f"could not start: [Errno 2] No such file or directory: '{missing}'"
    out = await handle.request(ToolInvoke(name="echo", arguments={}), timeout=60)
    assert isinstance(out, ToolOutcome)
    assert not out.ok
    assert "is not running (could not start: " in out.output
    assert "No such file or directory" in out.output


@pytest.mark.own_fork_server  # (a bridge that imports the SDK itself, after its server)
async def test_a_server_that_exits_at_once_is_down_with_its_status_and_stderr(
    start_bridge: Callable[..., Any], tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    code = (
        "import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
        "p.write_text(p.read_text() + 'x') if p.exists() else p.write_text('x'); "
        "sys.stderr.write('no API key given\\n'); sys.exit(3)"
    )
    config = McpServerConfig(name="dead", command=sys.executable, args=("-c", code, str(starts)))
    handle, watch = await start_bridge(config)
    await watch.wait_for(lambda s: True)
    first = watch.seen[0]
    assert first.state == "down"
    assert first.error == "could not start: exited with status 3 before answering"
    assert "no API key given" in first.stderr_tail
    out = await handle.request(ToolInvoke(name="echo", arguments={"text": "x"}), timeout=60)
    assert isinstance(out, ToolOutcome)
    assert not out.ok
    assert "is not running (could not start: exited with status 3" in out.output
    # tried again in the background; a restart asked for tries at once
    await watch.wait_for(lambda s: s.stderr_tail.count("no API key") >= 2, timeout=30)
    tries = len(starts.read_text())
    await handle.request(McpRestart(), timeout=30)
    await watch.wait_for(lambda s: s.stderr_tail.count("no API key") > tries, timeout=30)
    assert all(s.state in ("down", "restarting") for s in watch.seen), watch.seen


@pytest.mark.own_fork_server  # (its supervisor's own server is what it inspects)
async def test_a_bridge_forked_after_the_warm_starts_with_the_sdk_imported(
    supervisor: Supervisor, start_bridge: Callable[..., Any]
) -> None:
    await supervisor.warm(BRIDGE_MODULE, BRIDGE_PRELOAD)
    handle, watch = await start_bridge(tiny_config())
    await watch.wait_for(lambda s: s.state == "ready")
    pid = handle.status().pid
    assert pid is not None
    # forked by the fork server, which refuses to fork while it has a thread: the SDK's
    # import there started none
    ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])  # noqa: ASYNC240
    assert ppid == supervisor.fork_server_pid
    assert not imported_the_sdk(pid)


async def test_a_bridge_forked_with_the_sdk_says_why_a_server_exited_at_once(
    start_bridge: Callable[..., Any],
) -> None:
    # no import to outlast the server: its death is seen on the SDK's path, and told alike
    code = "import sys; sys.stderr.write('no API key given\\n'); sys.exit(3)"
    config = McpServerConfig(name="dead", command=sys.executable, args=("-c", code))
    _, watch = await start_bridge(config, warm=True)
    status = await watch.wait_for(lambda s: s.state == "down")
    assert status.error == "could not start: exited with status 3 before answering"
    assert "no API key given" in status.stderr_tail
