"""An MCP bridge worker: ``python -m harness.actors.mcp``, one process per server.

Its server's entry comes with the first :class:`McpWatch` (never in the environment: an
entry may hold tokens, and no harness process keeps a secret where ``/proc/PID/environ``
shows it); its cwd is the workspace. On that first watch the bridge starts a stdio
server's process (or asks an HTTP server whether it wants a sign-in nobody made), then
imports the SDK in a thread meanwhile, then keeps the server connected (see ``_bridge``).
Calls to a server that is restarting wait for it within their timeout.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import uuid
from typing import IO, TYPE_CHECKING, Any

import trio

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._output import StderrTail
from harness.actors.mcp._prespawn import spawn_early
from harness.actors.mcp._signin import needs_sign_in
from harness.actors.mcp._tokens import TokenStore
from harness.actors.mcp._waits import DOWN_FIRST, time_scale
from harness.ipc import WORKER_TAG_ENV, Emit
from harness.messages.mcp import (
    McpAnswer,
    McpCall,
    McpGetPrompt,
    McpListPrompts,
    McpListResources,
    McpProgress,
    McpPrompts,
    McpPromptText,
    McpQuestion,
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
# what the watch says before the bridge exists: a server that could not start is "down"
# at once, without waiting for the SDK's import
_early_status: McpStatus | None = None
_wake = trio.Event()
_restart_asked = trio.Event()


def _publish(status: McpStatus | None) -> None:
    global _early_status, _wake
    _early_status = status
    _wake.set()
    _wake = trio.Event()


def _start(entry: dict[str, Any]) -> None:
    """Start the server's process now and the bridge in the background (first watch only)."""
    global _starting
    if _starting:
        return
    _starting = True
    config = McpServerConfig.from_json_data(entry)
    tag = os.environ.get(WORKER_TAG_ENV)
    # the supervisor's sweep finds processes by this tag, even after the bridge was killed
    extra_env = {WORKER_TAG_ENV: tag} if tag else {}
    read_fd, write_fd = os.pipe()
    stderr = os.fdopen(write_fd, "w")
    tail = StderrTail()
    error = ""
    early = None
    # a stdio server starts now and boots while the SDK is imported (in a thread, so the
    # worker keeps answering heartbeats)
    try:
        early = spawn_early(config, workspace=os.getcwd(), extra_env=extra_env, stderr=stderr)
    except (OSError, ValueError) as exc:
        error = f"could not start: {exc}"
        _publish(_down(config, error, tail))
    trio.lowlevel.spawn_system_task(_boot, config, extra_env, (read_fd, stderr), tail, early, error)


def _down(config: McpServerConfig, error: str, tail: StderrTail) -> McpStatus:
    return McpStatus(
        server=config.name,
        transport=config.transport,
        state="down",
        error=error,
        stderr_tail=tail.text(),
    )


async def _boot(
    config: McpServerConfig,
    extra_env: dict[str, str],
    stderr: tuple[int, IO[str]],
    tail: StderrTail,
    early: subprocess.Popen[bytes] | None,
    error: str,
) -> None:
    global _bridge
    died: list[str] = []

    async def watch_early(proc: subprocess.Popen[bytes]) -> None:
        # a server that dies while the SDK loads is down now, not after the import
        fd = os.pidfd_open(proc.pid)
        try:
            await trio.lowlevel.wait_readable(fd)
        finally:
            trio.lowlevel.notify_closing(fd)
            os.close(fd)
        code = proc.wait()
        tail.feed(_pending(stderr[0]))
        died.append(f"could not start: exited with status {code} before answering")
        _publish(_down(config, died[0], tail))

    async def probe_sign_in() -> None:
        # a server that wants a sign-in nobody made is down now, not after the import
        line = await trio.to_thread.run_sync(
            lambda: needs_sign_in(config, TokenStore(), timeout=min(5.0, config.startup_timeout)),
            abandon_on_cancel=True,
        )
        if line and not died:
            died.append(line)
            _publish(_down(config, line, tail))

    scale = time_scale(os.environ)

    async def pause() -> None:
        # a server that never came up is tried again after the usual wait (or at once on
        # McpRestart); the SDK loads only then, so a dead server costs no CPU now
        with trio.move_on_after(DOWN_FIRST * scale):
            await _restart_asked.wait()

    if error:
        await pause()
    try:
        async with trio.open_nursery() as nursery:
            if early is not None:
                nursery.start_soon(watch_early, early)
            elif not error:
                nursery.start_soon(probe_sign_in)
            # abandoned if the worker stops meanwhile: an exit never waits for the import
            module = await trio.to_thread.run_sync(
                importlib.import_module, "harness.actors.mcp._bridge", abandon_on_cancel=True
            )
            nursery.cancel_scope.cancel()
    except Exception as exc:  # a system task must not raise: say it and stop serving
        _publish(_down(config, f"the bridge failed: {type(exc).__name__}: {exc}", tail))
        worker.shutdown()
        return
    if died:
        error = died[0]
        await pause()
    _bridge = module.Bridge(
        config,
        workspace=os.getcwd(),
        extra_env=extra_env,
        stderr=stderr,
        early=None if error else early,
        time_scale=scale,
        tail=tail,
        start_error=error,
    )
    await _run_bridge(_bridge)


def _pending(fd: int) -> bytes:
    """What a pipe holds now, without waiting."""
    os.set_blocking(fd, False)
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    return b"".join(chunks)


async def _run_bridge(bridge: Bridge) -> None:
    _ready.set()
    _publish(None)
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
    _start(req.server)
    last: McpStatus | None = None
    while True:
        bridge = _bridge
        status = bridge.status() if bridge is not None else _early_status
        if status is not None and status != last:
            await emit(status)
            last = status
        if bridge is not None:
            await bridge.changed()
        else:
            await _wake.wait()


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    return await (await _get()).call_tool(req.name, req.arguments)


class _Call:
    """One McpCall's stream: the server's latest progress (sent as the consumer keeps up:
    a fast server's notifications never queue) and its questions waiting for answers."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.latest: McpProgress | None = None
        self.sent: McpProgress | None = None
        self.wake = trio.Event()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.latest = McpProgress(progress=progress, total=total or 0.0, message=message or "")
        self.wake.set()

    async def pump(self) -> None:
        while True:
            await self.wake.wait()
            self.wake = trio.Event()
            await self.flush()

    async def flush(self) -> None:
        latest = self.latest
        if latest is not None and latest != self.sent:
            await self.emit(latest)
            self.sent = latest

    async def ask(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
        qid = uuid.uuid4().hex
        waiting = _questions[qid] = _Waiting()
        try:
            await self.emit(McpQuestion(id=qid, message=message, schema=schema))
            await waiting.done.wait()
        finally:
            del _questions[qid]
        got = waiting.answer
        assert got is not None
        return got.action, dict(got.content), got.reason


class _Waiting:
    def __init__(self) -> None:
        self.done = trio.Event()
        self.answer: McpAnswer | None = None


_questions: dict[str, _Waiting] = {}


@worker.stream(McpCall)
async def call(req: McpCall, emit: Emit) -> None:
    bridge = await _get()
    state = _Call(emit)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(state.pump)
        outcome = await bridge.call_tool(
            req.name, req.arguments, progress=state.progress, ask=state.ask
        )
        nursery.cancel_scope.cancel()
    await state.flush()  # the last progress before the outcome
    await emit(outcome)


@worker.handle(McpAnswer)
async def answer(req: McpAnswer) -> McpAnswer:
    waiting = _questions.get(req.id)
    if waiting is None or waiting.done.is_set():
        return McpAnswer(id=req.id, action="cancel", reason="no question waits for this answer")
    waiting.answer = req
    waiting.done.set()
    return req


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
    _restart_asked.set()
    bridge = await _get()
    bridge.restart()
    return bridge.status()


if __name__ == "__main__":
    worker.run()
