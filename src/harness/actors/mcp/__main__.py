"""An MCP bridge worker: ``python -m harness.actors.mcp``, one process per server.

Its server's entry comes in ``HARNESS_MCP_SERVER`` (JSON); its cwd is the workspace. The
bridge connects as soon as the process is up and keeps the server connected (see
``_bridge``); calls to a server that is restarting wait for it within their timeout.
"""

from __future__ import annotations

import os

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._names import SERVER_ENV
from harness.actors.mcp._prespawn import spawn_early
from harness.ipc import WORKER_TAG_ENV

_config = McpServerConfig.from_json(os.environ.get(SERVER_ENV, '{"name": "unnamed"}'))
_tag = os.environ.get(WORKER_TAG_ENV)
# the supervisor's sweep finds processes by this tag, even after the bridge was killed
_extra_env = {WORKER_TAG_ENV: _tag} if _tag else {}
_stderr_r, _stderr_w = os.pipe()
_stderr = os.fdopen(_stderr_w, "w")
# A stdio server starts now, and boots while the SDK below is imported.
_early = spawn_early(_config, workspace=os.getcwd(), extra_env=_extra_env, stderr=_stderr)

import trio  # noqa: E402

from harness.actors.mcp._bridge import Bridge  # noqa: E402
from harness.ipc import Emit  # noqa: E402
from harness.messages.mcp import (  # noqa: E402
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
from harness.messages.tools import ToolInvoke, ToolOutcome  # noqa: E402
from harness.worker import Worker  # noqa: E402

worker = Worker("mcp", shutdown_grace=6.0)

bridge = Bridge(
    _config,
    workspace=os.getcwd(),
    extra_env=_extra_env,
    stderr=(_stderr_r, _stderr),
    early=_early,
)
_started = False
_scope = trio.CancelScope()
_done = trio.Event()


def _ensure_started() -> None:
    # The worker base has no start hook; the bridge runs as a system task from the first
    # request on (the conversation watches each bridge as soon as it is up).
    global _started
    if not _started:
        _started = True
        trio.lowlevel.spawn_system_task(_run_bridge)


async def _run_bridge() -> None:
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


@worker.on_shutdown
async def _close() -> None:
    # the SDK's own shutdown (stdin closed, SIGTERM, SIGKILL) before the worker base kills
    # whatever is left
    if _started:
        _scope.cancel()
        await _done.wait()


@worker.stream(McpWatch)
async def watch(req: McpWatch, emit: Emit) -> None:
    _ensure_started()
    last: McpStatus | None = None
    while True:
        status = bridge.status()
        if status != last:
            await emit(status)
            last = status
        await bridge.changed()


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    _ensure_started()
    return await bridge.call_tool(req.name, req.arguments)


@worker.handle(McpListResources)
async def list_resources(req: McpListResources) -> McpResources | ToolOutcome:
    _ensure_started()
    got = await bridge.list_resources()
    return ToolOutcome(ok=False, output=got) if isinstance(got, str) else got


@worker.handle(McpReadResource)
async def read_resource(req: McpReadResource) -> ToolOutcome:
    _ensure_started()
    return await bridge.read_resource(req.uri)


@worker.handle(McpListPrompts)
async def list_prompts(req: McpListPrompts) -> McpPrompts | ToolOutcome:
    _ensure_started()
    got = await bridge.list_prompts()
    return ToolOutcome(ok=False, output=got) if isinstance(got, str) else got


@worker.handle(McpGetPrompt)
async def get_prompt(req: McpGetPrompt) -> McpPromptText:
    _ensure_started()
    return await bridge.get_prompt(req.name, req.arguments)


@worker.handle(McpRestart)
async def restart(req: McpRestart) -> McpStatus:
    _ensure_started()
    bridge.restart()
    return bridge.status()


if __name__ == "__main__":
    worker.run()
