"""The bridge worker against our own servers: calls, crashes, hangs, garbage, list
changes, restart storms and a killed bridge, all with real processes. The SDK's own server
(``fake_server``) answers where its behaviour is the subject (tools, resources, prompts, a
list change); elsewhere the server without the SDK (``tiny_server``), which starts in
milliseconds where the SDK's spends a second of CPU."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.ipc import WorkerDied
from harness.messages.mcp import (
    McpGetPrompt,
    McpListPrompts,
    McpListResources,
    McpPrompts,
    McpPromptText,
    McpReadResource,
    McpResources,
    McpRestart,
)
from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.mcp_bridge.conftest import MCP_TIME_SCALE, fake_config, tiny_config

pytestmark = pytest.mark.slow

# the bridge's: how long a probe after a timed-out call waits (5 s, scaled as every wait
# of the bridges in these tests)
PROBE_TIMEOUT = 5.0 * MCP_TIME_SCALE


def ready(status: Any) -> bool:
    return bool(status.state == "ready")


async def call(handle: Any, tool: str, timeout: float = 90, **arguments: Any) -> ToolOutcome:
    out = await handle.request(ToolInvoke(name=tool, arguments=arguments), timeout=timeout)
    assert isinstance(out, ToolOutcome)
    return out


async def test_tools_resources_prompts_and_a_list_change(start_bridge: Callable[..., Any]) -> None:
    handle, watch = await start_bridge(fake_config())
    status = await watch.wait_for(ready)
    names = {t.name for t in status.tools}
    assert {"echo", "add", "crash", "hang", "change_tools"} <= names
    echo = next(t for t in status.tools if t.name == "echo")
    assert echo.read_only is True
    assert echo.input_schema["required"] == ["text"]
    crash = next(t for t in status.tools if t.name == "crash")
    assert crash.destructive is True
    assert crash.read_only is False
    assert status.instructions == "The fake server: use echo to repeat text."

    assert await call(handle, "echo", text="hi") == ToolOutcome(ok=True, output="echo: hi")
    assert (await call(handle, "add", a=2, b=40)).output == "42"
    bad = await call(handle, "add", a="x", b=1)
    assert not bad.ok

    resources = await handle.request(McpListResources(), timeout=30)
    assert isinstance(resources, McpResources)
    assert [r.uri for r in resources.resources] == ["fake://greeting"]
    text = await handle.request(McpReadResource(uri="fake://greeting"), timeout=30)
    assert text == ToolOutcome(ok=True, output="hello from the fake server")

    prompts = await handle.request(McpListPrompts(), timeout=30)
    assert isinstance(prompts, McpPrompts)
    assert [(p.name, p.required) for p in prompts.prompts] == [("greet", ("name",))]
    rendered = await handle.request(McpGetPrompt(name="greet", arguments={"name": "Ada"}))
    assert rendered == McpPromptText(ok=True, text="Please greet Ada warmly.")

    # a tool list change reaches the status, and the new tool answers
    assert "added" not in {t.name for t in status.tools}
    assert (await call(handle, "change_tools")).output == "tools changed"
    status = await watch.wait_for(lambda s: "added" in {t.name for t in s.tools}, timeout=20)
    assert (await call(handle, "added", x="y")).output == "added: y"


async def test_crash_mid_call_is_an_error_then_the_server_is_back(
    start_bridge: Callable[..., Any], tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    # a server without the SDK: the crash costs a start, which then takes milliseconds
    handle, watch = await start_bridge(tiny_config("fake", env={"TINY_MCP_STARTS": str(starts)}))
    await watch.wait_for(ready)
    first = await call(handle, "whoami")
    out = await call(handle, "crash")
    assert not out.ok
    assert "MCP server 'fake' exited while running crash" in out.output
    assert "restarted" in out.output
    # the next call waits for the restart and reaches a new server process
    again = await call(handle, "whoami")
    assert again.ok
    assert again.output != first.output
    assert again.output.endswith("start 2")
    status = await watch.wait_for(ready)
    assert status.restarts == 1
    assert "crashing on request" in status.stderr_tail


async def test_hang_times_out_and_the_server_goes_on_but_a_frozen_one_is_restarted(
    start_bridge: Callable[..., Any],
) -> None:
    handle, watch = await start_bridge(tiny_config(timeout=1.5))
    await watch.wait_for(ready)
    before = await call(handle, "whoami")
    with trio.fail_after(20):
        out = await call(handle, "hang")
    assert not out.ok
    assert "did not finish hang within 1.5 s; the call was cancelled" in out.output
    # the server answered the probe after the timeout: same process, still answering
    after = await call(handle, "whoami")
    assert after == before
    assert watch.last is not None
    assert watch.last.restarts == 0

    # a server frozen whole does not answer the probe after the timeout: it is restarted
    out = await call(handle, "freeze")
    assert "did not finish freeze within 1.5 s" in out.output
    status = await watch.wait_for(lambda s: s.state != "ready")
    assert "stopped answering after a call timed out" in status.error
    status = await watch.wait_for(lambda s: ready(s) and s.restarts == 1)
    after = await call(handle, "whoami")
    assert after.ok
    assert after.output != before.output


async def test_a_call_after_a_timeout_waits_for_the_probe_and_goes_through(
    start_bridge: Callable[..., Any],
) -> None:
    # A call sent while the connection is in doubt (a call timed out; the probe has not
    # answered) and that times out while that connection is torn down must not start its
    # own probe on the closing connection ("Nursery is closed to new arrivals").
    handle, watch = await start_bridge(tiny_config(timeout=1.0))  # (restarted: no SDK)
    await watch.wait_for(ready)
    before = await call(handle, "whoami")
    first = await call(handle, "freeze")
    assert "did not finish freeze within 1 s" in first.output
    await trio.sleep(PROBE_TIMEOUT - 0.5)  # the probe is about to give up
    with trio.fail_after(60):
        after = await call(handle, "whoami")
        again = await call(handle, "echo", text="still here")
    assert after.ok, after.output
    assert after.output != before.output  # a new server process
    assert again.output == "echo: still here"


async def test_a_huge_result_cut_off_by_the_timeout_leaves_the_bridge_working(
    start_bridge: Callable[..., Any],
) -> None:
    handle, watch = await start_bridge(tiny_config(timeout=0.5))
    await watch.wait_for(ready)
    out = await call(handle, "huge", size=40_000_000)
    assert not out.ok
    assert "did not finish huge within 0.5 s" in out.output
    with trio.fail_after(60):
        for _ in range(3):
            after = await call(handle, "echo", text="next")
            assert after.output == "echo: next"


async def test_garbage_on_stdout_is_noted_and_the_server_works(
    start_bridge: Callable[..., Any],
) -> None:
    handle, watch = await start_bridge(tiny_config(env={"TINY_MCP_GARBAGE": "1"}))
    await watch.wait_for(ready)
    assert (await call(handle, "echo", text="still")).output == "echo: still"
    status = await watch.wait_for(lambda s: "[sdk]" in s.stderr_tail or "[bridge]" in s.stderr_tail)
    assert status.state == "ready"


# a server that cannot start (down, its stderr, a call told why, retried in the background
# and at once when asked): tests/mcp_bridge/test_start.py


async def test_restart_storm_fails_the_server_and_restart_brings_it_back(
    start_bridge: Callable[..., Any],
) -> None:
    # a server of our own that starts in milliseconds: the storm is six starts
    handle, watch = await start_bridge(tiny_config(env={"TINY_MCP_DIE_AFTER": "0.2"}))
    status = await watch.wait_for(lambda s: s.state == "failed", timeout=120)
    assert "given up" in status.error
    assert status.tools == ()
    out = await call(handle, "echo", text="x")
    assert not out.ok
    assert "has failed" in out.output
    # /mcp reload asks for a restart: the server is tried again at once
    await handle.request(McpRestart(), timeout=10)
    await watch.wait_for(lambda s: s.state != "failed", timeout=20)


async def test_kill_9_of_the_bridge_fails_the_call_then_a_new_bridge_serves(
    start_bridge: Callable[..., Any],
) -> None:
    # (warmed as a session's fork server is once a bridge died: the new one skips the SDK;
    # a server without the SDK, since the new bridge starts a new one)
    handle, watch = await start_bridge(tiny_config(), warm=True)
    await watch.wait_for(ready)
    old_pid = handle.pid
    assert old_pid is not None
    result: list[BaseException | ToolOutcome] = []

    async def hang() -> None:
        try:
            result.append(await call(handle, "hang"))
        except WorkerDied as exc:
            result.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hang)
        await trio.sleep(1.0)
        os.kill(old_pid, signal.SIGKILL)
    assert isinstance(result[0], WorkerDied)
    assert result[0].exit_code == -signal.SIGKILL
    out = await call(handle, "echo", text="after")
    assert out.output == "echo: after"
    assert handle.pid != old_pid
