"""An MCP bridge worker: ``python -m harness.actors.mcp``, one process per server.

Its server's entry comes with the first :class:`McpWatch` (never in the environment: an
entry may hold tokens, and no harness process keeps a secret where ``/proc/PID/environ``
shows it); its cwd is the workspace. On that first watch the bridge starts a stdio
server's process, then imports the SDK in a thread while the server boots, then keeps the
server connected (see ``_bridge``). Calls to a server that is restarting wait for it
within their timeout.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

import trio

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._prespawn import spawn_early
from harness.ipc import WORKER_TAG_ENV, Emit
from harness.messages.mcp import (
    McpGetPrompt,
    McpListPrompts,
    McpListResources,
    McpPrompts,
    McpPromptText,
    McpReadResource,
    McpResources,
    McpRestart,
    McpStatus,
    McpWatch,
)
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.worker import Worker

if TYPE_CHECKING:
    from harness.actors.mcp._bridge import Bridge

worker = Worker("mcp", shutdown_grace=6.0)

_bridge: Bridge | None = None
_ready = trio.Event()
_starting = False
_scope = trio.CancelScope()
_done = trio.Event()


async def _start(entry: dict[str, Any]) -> None:
    global _bridge, _starting
    if _starting:
        return
    _starting = True
    config = McpServerConfig.from_json_data(entry)
    tag = os.environ.get(WORKER_TAG_ENV)
    # the supervisor's sweep finds processes by this tag, even after the bridge was killed
    extra_env = {WORKER_TAG_ENV: tag} if tag else {}
    read_fd, write_fd = os.pipe()
    stderr = os.fdopen(write_fd, "w")
    # a stdio server starts now and boots while the SDK is imported (in a thread, so the
    # worker keeps answering heartbeats)
    early = spawn_early(config, workspace=os.getcwd(), extra_env=extra_env, stderr=stderr)
    module = await trio.to_thread.run_sync(importlib.import_module, "harness.actors.mcp._bridge")
    _bridge = module.Bridge(
        config,
        workspace=os.getcwd(),
        extra_env=extra_env,
        stderr=(read_fd, stderr),
        early=early,
        time_scale=module.time_scale(os.environ),
    )
    # The worker base has no start hook; the bridge runs as a system task.
    trio.lowlevel.spawn_system_task(_run_bridge, _bridge)
    _ready.set()


async def _run_bridge(bridge: Bridge) -> None:
    try:
        with _scope:
            await bridge.run()
    except BaseException as exc:  # a system task must not raise: say it and stop serving
        if not isinstance(exc, trio.Cancelled):
            bridge.error = f"the bridge failed: {type(exc).__name__}: {exc}"
            bridge._set("failed")
            worker.shutdown()
    finally:
        _done.set()


async def _get() -> Bridge:
    """The bridge, once the first watch has brought its server's entry."""
    await _ready.wait()
    assert _bridge is not None
    return _bridge


@worker.on_shutdown
async def _close() -> None:
    # the SDK's own shutdown (stdin closed, SIGTERM, SIGKILL) before the worker base kills
    # whatever is left
    if _bridge is not None:
        _scope.cancel()
        await _done.wait()


@worker.stream(McpWatch)
async def watch(req: McpWatch, emit: Emit) -> None:
    await _start(req.server)
    bridge = await _get()
    last: McpStatus | None = None
    while True:
        status = bridge.status()
        if status != last:
            await emit(status)
            last = status
        await bridge.changed()


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    return await (await _get()).call_tool(req.name, req.arguments)


@worker.handle(McpListResources)
async def list_resources(req: McpListResources) -> McpResources | ToolOutcome:
    got = await (await _get()).list_resources()
    return ToolOutcome(ok=False, output=got) if isinstance(got, str) else got


@worker.handle(McpReadResource)
async def read_resource(req: McpReadResource) -> ToolOutcome:
    return await (await _get()).read_resource(req.uri)


@worker.handle(McpListPrompts)
async def list_prompts(req: McpListPrompts) -> McpPrompts | ToolOutcome:
    got = await (await _get()).list_prompts()
    return ToolOutcome(ok=False, output=got) if isinstance(got, str) else got


@worker.handle(McpGetPrompt)
async def get_prompt(req: McpGetPrompt) -> McpPromptText:
    return await (await _get()).get_prompt(req.name, req.arguments)


@worker.handle(McpRestart)
async def restart(req: McpRestart) -> McpStatus:
    bridge = await _get()
    bridge.restart()
    return bridge.status()


if __name__ == "__main__":
    worker.run()
