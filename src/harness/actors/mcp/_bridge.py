"""One MCP server kept up by its bridge worker, through the official SDK.

:class:`Bridge` connects (stdio, streamable HTTP or SSE), initialises within the
server's ``startupTimeout``, lists its tools and keeps them current on
``notifications/tools/list_changed``. When the server exits or its transport breaks it
reconnects with backoff; a server that keeps dying after it was up (more than
:data:`MAX_RESTARTS` within :data:`RESTART_WINDOW` seconds) is marked ``failed`` until
:meth:`Bridge.restart`; a server that never came up is retried in the background.

Calls are bounded by the server's ``timeout``: the SDK cancels the request; a server that
then does not answer a listing within :data:`PROBE_TIMEOUT` (or the call's timeout, if
shorter) is killed and restarted. Until that
probe has answered, the connection is in doubt: a call waits for it (and for the restart
it may bring) rather than be sent down a connection that may be stuck, or closing.

The waits between reconnects and :data:`PROBE_TIMEOUT` are multiplied by
``HARNESS_MCP_TIME_SCALE`` (:func:`time_scale`; default 1), which the tests set below 1 so
that a restart storm does not take real seconds.

This module imports the SDK (pydantic, httpx2, starlette): only bridge processes load it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import signal
import subprocess
from collections import deque
from collections.abc import Awaitable, Callable
from typing import IO, Any, TypeVar

import mcp_types as types
import trio
from mcp import Client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from harness._version import __version__
from harness.actors.mcp._answers import (
    block_text,
    prompt_of,
    resource_of,
    resource_text,
    tool_of,
    tool_outcome,
)
from harness.actors.mcp._asking import Ask, Questions
from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._faults import Broken, SdkLog, describe
from harness.actors.mcp._oauth import auth_for, first_sign_in_error
from harness.actors.mcp._output import StderrTail, cap_text, clean_text
from harness.actors.mcp._prespawn import spawn_early
from harness.actors.mcp._tokens import TokenStore
from harness.actors.mcp._transports import (
    Watched,
    early_transport,
    http_transport,
    sse_transport,
)
from harness.actors.mcp._waits import DOWN_FIRST, DOWN_MAX, time_scale
from harness.messages.mcp import (
    McpPromptInfo,
    McpPrompts,
    McpPromptText,
    McpResource,
    McpResources,
    McpState,
    McpStatus,
    McpTool,
)
from harness.messages.tools import ToolOutcome

__all__ = [
    "MAX_RESTARTS",
    "PROBE_TIMEOUT",
    "RESTART_WINDOW",
    "Bridge",
    "time_scale",
]

MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
PROBE_TIMEOUT = 5.0
_BACKOFF_FIRST, _BACKOFF_MAX = 0.25, 10.0
_PAGES = 50

T = TypeVar("T")


class Bridge:
    """One server, kept connected. Start it with :meth:`run` (it never raises).

    Args:
        config: the server's entry.
        workspace: the folder a relative ``cwd`` is resolved against.
        extra_env: added to a stdio server's environment (the worker tag, so the
            supervisor's sweep finds the server even after the bridge is killed).
        time_scale: a factor on the waits between reconnects and on the probe's
            timeout (see :func:`time_scale`); default 1.
        tail: where the server's stderr goes (default: a new one).
        start_error: why the first try already failed, before the bridge existed (it
            begins ``down``, with this error, and tries again at once); empty by default.
    """

    def __init__(
        self,
        config: McpServerConfig,
        *,
        workspace: str = "",
        extra_env: dict[str, str] | None = None,
        stderr: tuple[int, IO[str]] | None = None,
        early: subprocess.Popen[bytes] | None = None,
        time_scale: float = 1.0,
        tail: StderrTail | None = None,
        start_error: str = "",
    ) -> None:
        self.config = config
        self._scale = time_scale
        self._stderr = stderr
        self._early = early
        self.workspace = workspace or os.getcwd()
        self.extra_env = dict(extra_env or {})
        self.tail = tail or StderrTail()
        self.state: McpState = "down" if start_error else "starting"
        self.tools: tuple[McpTool, ...] = ()
        self.instructions = ""
        self.error = start_error
        self.restarts = 0
        self.protocol = ""
        self.generation = 0
        self._client: Client | None = None
        self._changed = trio.Event()
        self._broken = trio.Event()
        self._broken_why = ""
        self._restart_now = trio.Event()
        self._conn: trio.Nursery | None = None
        self._probing: trio.Event | None = None  # set when the in-doubt probe is done
        self._errlog: Any = None
        self.questions = Questions(self._note)
        self._proc: subprocess.Popen[bytes] | None = None  # a stdio server's process
        log = logging.getLogger("mcp")
        log.addHandler(SdkLog(self.tail))
        log.propagate = False

    # --- state --------------------------------------------------------------------------

    def status(self) -> McpStatus:
        """Where the server is now."""
        return McpStatus(
            server=self.config.name,
            transport=self.config.transport,
            state=self.state,
            tools=self.tools if self.state == "ready" else (),
            instructions=self.instructions,
            error=self.error,
            stderr_tail=self.tail.text(),
            restarts=self.restarts,
            protocol=self.protocol,
            generation=self.generation,
        )

    async def changed(self) -> None:
        """Wait for the next change of :meth:`status`."""
        await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _note(self, line: str) -> None:
        self.tail.note(line)
        self._notify()

    def _set(self, state: McpState, **fields: Any) -> None:
        self.state = state
        for key, value in fields.items():
            setattr(self, key, value)
        self._notify()

    def _break(self, why: str) -> None:
        if not self._broken.is_set():
            self._broken_why = why
            self._broken.set()

    def restart(self) -> None:
        """Drop the connection and start again at once, forgetting earlier failures."""
        self._restart_now.set()
        self._break("restarted on request")

    # --- the connection's life ----------------------------------------------------------

    async def run(self) -> None:
        """Keep the server connected until cancelled."""
        if self._stderr is None:
            read_fd, write_fd = os.pipe()
            self._stderr = (read_fd, os.fdopen(write_fd, "w"))
        read_fd, self._errlog = self._stderr
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._drain_stderr, read_fd)
            await self._keep_up()

    async def _drain_stderr(self, fd: int) -> None:
        stream = trio.lowlevel.FdStream(fd)
        while True:
            data = await stream.receive_some(65536)
            if not data:
                return
            self.tail.feed(data)
            self._notify()

    async def _keep_up(self) -> None:
        recent: deque[float] = deque()
        down_tries = 0
        while True:
            was_up = await self._session()
            if self._restart_now.is_set():
                self._restart_now = trio.Event()
                recent.clear()
                down_tries = 0
                self.restarts += 1
                self._set("restarting")
                continue
            now = trio.current_time()
            if was_up:
                down_tries = 0
                while recent and now - recent[0] > RESTART_WINDOW:
                    recent.popleft()
                if len(recent) >= MAX_RESTARTS:
                    self._set(
                        "failed",
                        error=f"{self.error}; {len(recent) + 1} failures within "
                        f"{RESTART_WINDOW:g} s, so it was given up (/mcp reload tries again)",
                    )
                    await self._restart_now.wait()
                    self._restart_now = trio.Event()
                    recent.clear()
                    self._set("restarting")
                    continue
                delay = (
                    0.0
                    if not recent
                    else min(_BACKOFF_FIRST * 2 ** (len(recent) - 1), _BACKOFF_MAX)
                ) * self._scale
                recent.append(now)
                self.restarts += 1
                self._set("restarting")
            else:
                down_tries += 1
                delay = min(DOWN_FIRST * 2 ** (down_tries - 1), DOWN_MAX) * self._scale
                self._set("down")
            with trio.move_on_after(delay):
                await self._restart_now.wait()
            if self._restart_now.is_set():
                self._restart_now = trio.Event()
                recent.clear()
                down_tries = 0

    def _transport(self) -> Any:
        cfg = self.config
        if cfg.transport == "stdio":
            # our own process, not the SDK's stdio_client: a server found stuck is killed
            # at once (kill_stuck), where the SDK would ask it to stop and wait 2 s twice
            proc, self._early = self._early, None
            if proc is None:
                proc = spawn_early(
                    cfg, workspace=self.workspace, extra_env=self.extra_env, stderr=self._errlog
                )
            assert proc is not None
            self._proc = proc
            return early_transport(proc)
        # read at every connection: a sign-in made meanwhile (harness mcp login) counts
        auth = auth_for(cfg, TokenStore())
        if cfg.transport == "sse":
            return sse_transport(cfg.url, dict(cfg.headers), timeout=cfg.startup_timeout, auth=auth)
        return http_transport(cfg.url, dict(cfg.headers), auth=auth)

    async def _session(self) -> bool:
        """One connection, from start to break; ``True`` if it got as far as ``ready``."""
        cfg = self.config
        self._broken = trio.Event()
        self._broken_why = ""
        self._probing = None
        gone = "exited" if cfg.transport == "stdio" else "closed the connection"

        def on_end() -> None:
            self._break(gone)

        up = False
        with trio.CancelScope() as scope:
            scope.deadline = trio.current_time() + cfg.startup_timeout
            try:
                async with (
                    Client(
                        Watched(self._transport(), on_end),
                        cache=None,
                        client_info=types.Implementation(name="harness", version=__version__),
                        message_handler=self._on_message,
                        elicitation_callback=self.questions.elicit,
                    ) as client,
                    trio.open_nursery() as conn,
                ):
                    self._conn = conn
                    tools = await self._list_tools(client)
                    scope.deadline = math.inf
                    up = True
                    self._client = client
                    self.generation += 1
                    self._set(
                        "ready",
                        tools=tools,
                        instructions=clean_text(client.instructions or ""),
                        protocol=client.protocol_version,
                        error="",
                    )
                    if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                        conn.start_soon(self._listen, client)
                    await self._broken.wait()
                    # nothing may start on a connection being torn down (a call that
                    # times out meanwhile, a list change): its nursery closes first
                    self._client = None
                    self._conn = None
                    self._set("restarting", error=self._broken_why)
                    conn.cancel_scope.cancel()
            except Exception as exc:
                why = self._broken_why or describe(exc)
                if why == "exited" and not up and self._proc is not None:
                    # said by the start path too, when the SDK's import outlasted the server
                    code = self._proc.poll()
                    why = why if code is None else f"exited with status {code} before answering"
                # the sign-in line is the whole story: it says what to run
                plain = up or first_sign_in_error(exc) is not None
                self.error = why if plain else f"could not start: {why}"
        self._client = None
        self._conn = None
        if scope.cancelled_caught and not up:
            self.error = f"did not start within {cfg.startup_timeout:g} s"
        if not up and not self.error:
            self.error = "could not start"
        return up

    async def _list_tools(self, client: Client) -> tuple[McpTool, ...]:
        tools: list[McpTool] = []
        cursor: str | None = None
        for _ in range(_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(tool_of(t) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tuple(tools)

    async def _listen(self, client: Client) -> None:
        # a 2026-07-28 server tells of changes only to a listener; its events also reach
        # the message handler, which refreshes
        try:
            async with client.listen(tools_list_changed=True) as sub:
                async for _event in sub:
                    pass
        except Exception as exc:
            if not self._broken.is_set():
                self.tail.note(f"[bridge] no change notifications: {describe(exc)}")

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.tail.note(f"[bridge] {describe(message)}")
            self._notify()
            return
        if isinstance(message, types.ToolListChangedNotification):
            client, conn = self._client, self._conn
            if client is not None and conn is not None:
                self._start(conn, self._refresh, client)

    @staticmethod
    def _start(conn: trio.Nursery, fn: Callable[..., Awaitable[None]], *args: Any) -> bool:
        """Start *fn* beside the connection; ``False`` when it is already closing (its
        end restarts the server, which makes the task moot)."""
        try:
            conn.start_soon(fn, *args)
        except RuntimeError:  # "Nursery is closed to new arrivals"
            return False
        return True

    async def _refresh(self, client: Client) -> None:
        try:
            with trio.fail_after(self.config.timeout):
                tools = await self._list_tools(client)
        except Exception as exc:
            self.tail.note(f"[bridge] the tool list could not be read again: {describe(exc)}")
            return
        if self._client is client:
            self._set("ready", tools=tools)

    # --- calls ----------------------------------------------------------------------------

    def _label(self) -> str:
        return f"MCP server {self.config.name!r}"

    async def _ready_client(self) -> Client:
        """The connected client, waiting for a (re)start within the call's timeout."""
        cfg = self.config
        # a restart takes a teardown (up to ~5 s for a stdio server) and a start-up
        with trio.move_on_after(cfg.startup_timeout + 5.0):
            while True:
                probing = self._probing
                if probing is not None:
                    await probing.wait()  # the connection is in doubt until it answers
                    continue
                if self.state == "ready" and self._client is not None:
                    if not self._broken.is_set():
                        return self._client
                    # broken, not yet torn down: wait for the restart
                    await self.changed()
                    continue
                if self.state in ("failed", "down"):
                    break
                await self.changed()
        what = {
            "failed": "has failed and was given up",
            "down": "is not running",
            "starting": "is still starting",
            "restarting": "is restarting",
        }.get(self.state, "is not ready")
        raise Broken(f"{self._label()} {what}" + (f" ({self.error})" if self.error else ""))

    async def _guarded(
        self,
        what: str,
        op: Callable[[Client], Awaitable[T]],
        on_scope: Callable[[trio.CancelScope], None] | None = None,
    ) -> T | str:
        """Run *op* on the client within the timeout (its cancel scope goes to
        *on_scope*); a failure comes back as a sentence."""
        try:
            client = await self._ready_client()
        except Broken as exc:
            return f"{exc}; {what} did not run."
        generation = self.generation
        timeout = self.config.timeout
        try:
            with trio.move_on_after(timeout) as scope:
                if on_scope is not None:
                    on_scope(scope)
                return await op(client)
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                return f"{self._label()} answered {what} with an error: {exc.message}"
            self._break(self._broken_why or "closed the connection")
            return (
                f"{self._label()} {self._broken_why or 'closed the connection'} while running "
                f"{what}; it is being restarted. You may retry the call."
            )
        except ValidationError as exc:
            return f"{self._label()} answered {what} with something that is not valid MCP: {exc}"
        except Exception as exc:
            self._break(f"failed: {describe(exc)}")
            return (
                f"{self._label()} failed while running {what} ({describe(exc)}); it is being "
                "restarted. You may retry the call."
            )
        assert scope.cancelled_caught
        self._start_probe(client, generation)
        return (
            f"{self._label()} did not finish {what} within {timeout:g} s; the call was cancelled."
        )

    def _start_probe(self, client: Client, generation: int) -> None:
        """After a timed-out call: probe the connection it used, once at a time."""
        conn = self._conn
        if conn is None or self._client is not client or self.generation != generation:
            return  # that connection is already gone
        if self._probing is not None:
            return
        done = self._probing = trio.Event()
        if not self._start(conn, self._probe, client, generation, done):
            self._probing = None
            done.set()

    async def _probe(self, client: Client, generation: int, done: trio.Event) -> None:
        """Restart a server that no longer answers a listing; then the doubt is over."""
        try:
            try:
                # never longer than a call may take: the next call waits for this
                wait = min(PROBE_TIMEOUT, self.config.timeout) * self._scale
                with trio.fail_after(wait):
                    await client.list_tools()
                return
            except Exception as exc:
                reason = describe(exc) if not isinstance(exc, trio.TooSlowError) else "no answer"
            if self.generation == generation:
                self._break(f"stopped answering after a call timed out ({reason})")
                self._kill_stuck()
        finally:
            if self._probing is done:
                self._probing = None
            done.set()

    def _kill_stuck(self) -> None:
        """SIGKILL a stdio server that stopped answering: asking it to stop (stdin closed,
        SIGTERM) would only add the waits between those steps to the restart."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        progress: ProgressFnT | None = None,
        ask: Ask | None = None,
    ) -> ToolOutcome:
        """Call tool *name*; every failure is a tool error naming the server.

        Args:
            progress: given, a progress token goes with the call and the server's
                progress notifications for it come to this function.
            ask: given, the server's questions during the call go to it (see
                :class:`~harness.actors.mcp._asking.Questions`).
        """
        with self.questions.asking(ask) as on_scope:
            got = await self._guarded(
                name, lambda c: c.call_tool(name, arguments, progress_callback=progress), on_scope
            )
        if isinstance(got, str):
            return ToolOutcome(ok=False, output=got)
        return tool_outcome(got)

    async def list_resources(self) -> McpResources | str:
        """The resources, or why not."""

        async def op(client: Client) -> McpResources:
            out: list[McpResource] = []
            cursor: str | None = None
            for _ in range(_PAGES):
                page = await client.list_resources(cursor=cursor)
                out.extend(resource_of(r) for r in page.resources)
                cursor = page.next_cursor
                if not cursor:
                    break
            return McpResources(resources=tuple(out))

        client = self._client
        if (
            self.state == "ready"
            and client is not None
            and client.server_capabilities.resources is None
        ):
            return McpResources()
        return await self._guarded("resources/list", op)

    async def read_resource(self, uri: str) -> ToolOutcome:
        """One resource's contents as text."""
        got = await self._guarded(f"read_resource({uri})", lambda c: c.read_resource(uri))
        if isinstance(got, str):
            return ToolOutcome(ok=False, output=got)
        text = "\n".join(resource_text(c) for c in got.contents)
        return ToolOutcome(ok=True, output=cap_text(clean_text(text)) or "(empty)")

    async def list_prompts(self) -> McpPrompts | str:
        """The prompts, or why not."""

        async def op(client: Client) -> McpPrompts:
            out: list[McpPromptInfo] = []
            cursor: str | None = None
            for _ in range(_PAGES):
                page = await client.list_prompts(cursor=cursor)
                out.extend(prompt_of(p) for p in page.prompts)
                cursor = page.next_cursor
                if not cursor:
                    break
            return McpPrompts(prompts=tuple(out))

        client = self._client
        if (
            self.state == "ready"
            and client is not None
            and client.server_capabilities.prompts is None
        ):
            return McpPrompts()
        return await self._guarded("prompts/list", op)

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> McpPromptText:
        """Prompt *name* rendered as the text of one user message."""
        args = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
        got = await self._guarded(f"prompt {name}", lambda c: c.get_prompt(name, args))
        if isinstance(got, str):
            return McpPromptText(ok=False, text=got)
        text = "\n\n".join(block_text(m.content) for m in got.messages)
        return McpPromptText(ok=True, text=cap_text(clean_text(text)))
