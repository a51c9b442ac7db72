"""The MCP servers of a session: their bridges, their tools in the table, ``/mcp``.

:class:`McpManager` starts one bridge worker per enabled server (``mcp:<server>``, under
the session's supervisor, in the background: the first prompt never waits for them) and
watches each bridge's status stream. A server's tools join the table as
``mcp__<server>__<tool>`` when it is ready, are replaced when its list changes, stay
while it restarts (a call waits for it), and leave when it has failed. Its instructions
go into the system prompt (bounded). A start-up failure (with the server's stderr tail)
and a give-up are each told to the user once, as an ``error`` event.

The calls themselves (tool calls, resources, prompts) are
:class:`~harness.conversation.mcp._calls.McpCalls`'s: the manager owns one and answers it
three questions (:meth:`McpManager.enabled`, :meth:`McpManager.bridge`,
:meth:`McpManager.server_of`). The loop's ``mcp`` executor reaches them through
:class:`~harness.conversation.mcp._naming.McpExecutors`. A server's tool is declared in the
table by ``_naming``, joins the conversation by ``_joining``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import trio

from harness.actors.mcp import McpConfig, McpServerConfig, TokenStore, ToolNames
from harness.conversation import events as ev
from harness.conversation.mcp._calls import McpCalls
from harness.conversation.mcp._joining import drop_tools, set_tools, with_instructions
from harness.conversation.mcp._naming import RESOURCE_TOOLS, tool_hints
from harness.conversation.mcp._server import (
    ReloadReport,
    ServerState,
    ServerView,
    same_server,
    sync_rules,
    warm_bridges,
)
from harness.ipc import IpcError, WorkerUnavailable
from harness.messages.mcp import (
    McpPromptInfo,
    McpPromptText,
    McpResource,
    McpRestart,
    McpStatus,
    McpTool,
    McpWatch,
)
from harness.messages.tools import ToolInvoke, ToolOutcome

if TYPE_CHECKING:
    from harness.actors.tools import Permissions
    from harness.conversation._loop import Conversation
    from harness.supervisor import Supervisor, WorkerHandle

__all__ = ["McpManager"]


class McpManager:
    """The bridges of one session. Build it in ``open_session``; ``run`` starts them.

    Args:
        config: the servers (see :func:`harness.actors.mcp.load_mcp_config`).
        supervisor: the session's supervisor.
        workspace: every bridge's cwd (a stdio server's ``cwd`` is relative to it).
        env: added to every bridge's environment (``HARNESS_HOME``).
        loader: reads the configuration again, for :meth:`reload` (``None``: the
            servers are fixed, as an API caller's ``mcp_servers`` are).
    """

    def __init__(
        self,
        config: McpConfig,
        supervisor: Supervisor,
        *,
        workspace: str,
        env: Mapping[str, str] | None = None,
        loader: Callable[[], McpConfig] | None = None,
    ) -> None:
        self.config = config
        self.supervisor = supervisor
        self.workspace = workspace
        self.env = dict(env or {})
        self._loader = loader
        self._resource_tools = False
        self._servers: dict[str, ServerState] = {
            s.name: ServerState(config=s) for s in config.servers.values()
        }
        self._conv: Conversation | None = None
        self._perms: Permissions | None = None
        self._base_system = ""
        self._nursery: trio.Nursery | None = None
        self._listeners: list[Callable[[], None]] = []
        self._calls = McpCalls(self)
        self._names = ToolNames()  # every server's tools under names of their own

    # --- wiring -----------------------------------------------------------------------

    def attach(self, conversation: Conversation, perms: Permissions) -> list[str]:
        """Put the servers' tools into *conversation*'s table; ``autoApprove`` and
        ``trust`` become session rules of *perms*; resources become two local tools.

        Returns what went wrong before the session was open (the session's problems)."""
        self._conv = conversation
        self._perms = perms
        self._base_system = conversation.config.system
        if self.config.enabled:
            self._add_resource_tools(conversation)
        # statuses that came in while the session was still opening
        early = [
            self._apply(srv, srv.status, quiet=True)
            for srv in self._servers.values()
            if srv.status is not None
        ]
        return [notice for notice in early if notice]

    @property
    def conversation(self) -> Conversation | None:
        """The conversation the servers are attached to (``None`` before :meth:`attach`)."""
        return self._conv

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call *listener* after every change of a server's status."""
        self._listeners.append(listener)

    async def run(self) -> None:
        """Start every enabled server's bridge, in parallel, and watch them until cancelled."""
        enabled = [srv for srv in self._servers.values() if not srv.config.disabled]
        if len(enabled) > 1:
            await warm_bridges(self.supervisor)  # one import of the SDK for all of them
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            for srv in enabled:
                nursery.start_soon(self._bridge, srv)
            await trio.sleep_forever()

    async def _bridge(self, srv: ServerState) -> None:
        with trio.CancelScope() as srv.watch:
            await self._keep_bridge(srv)

    async def _keep_bridge(self, srv: ServerState) -> None:
        name = srv.worker
        try:
            if name not in self.supervisor or self.supervisor.get(name).state in (
                "stopped",
                "gave_up",
            ):
                await self.supervisor.start(srv.child_spec(self.workspace, self.env))
        except (IpcError, ValueError) as exc:
            srv.bridge_error = f"the bridge could not start: {exc}"
            self._emit_error(f"MCP server {srv.config.name}: {srv.bridge_error}")
            self._changed()
            return
        handle = self.supervisor.get(name)
        while True:
            try:
                watch = McpWatch(server=srv.config.to_json_data())
                async with handle.stream(watch, timeout=None) as items:
                    async for status in items:
                        if isinstance(status, McpStatus):
                            self._apply(srv, status)
            except WorkerUnavailable as exc:
                srv.bridge_error = str(exc)
                self._drop_tools(srv)
                if handle.state == "gave_up":
                    self._emit_error(
                        f"MCP server {srv.config.name}: its bridge worker was given up after "
                        "too many restarts; its tools are gone until /mcp reload"
                    )
                self._changed()
                return
            except IpcError as exc:
                # the bridge died (the supervisor restarts it); the stream waits for the new one
                srv.bridge_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                srv.bridge_restarts = handle.status().restarts
                self._changed()
                await warm_bridges(self.supervisor)  # its next restarts fork with the SDK
                await trio.sleep(0.05)

    async def wait_started(self) -> None:
        """Wait until every enabled server is ready or has failed to start (each within its
        ``startupTimeout``). Headless runs wait here: their prompt is given at launch."""
        pending = [s for s in self._servers.values() if not s.config.disabled]
        if not pending:
            return
        changed = trio.Event()

        def wake() -> None:
            changed.set()

        def started(srv: ServerState) -> bool:
            st = srv.status
            return bool(srv.bridge_error) or (
                st is not None and st.state in ("ready", "down", "failed")
            )

        self.subscribe(wake)
        try:
            limit = max(s.config.startup_timeout for s in pending) + 10.0
            with trio.move_on_after(limit):
                while not all(started(s) for s in pending):
                    await changed.wait()
                    changed = trio.Event()
        finally:
            self._listeners.remove(wake)

    # --- status -> table ----------------------------------------------------------------

    def _apply(self, srv: ServerState, status: McpStatus, *, quiet: bool = False) -> str:
        """Take *status* into the table; the notice for the user (emitted unless *quiet*)."""
        srv.status = status
        if self._conv is None:
            return ""  # attach() applies it
        notice = srv.notice(status)
        if status.state == "ready":
            self._set_tools(srv, status.tools)
            self._update_system()
            # its sign-in never crosses to this process, but a command may print its file
            for value in TokenStore(environ=self.env).secrets(srv.config.url):
                self._conv.masker.add(value)
        elif status.state == "failed":
            self._drop_tools(srv)
        if notice and not quiet:
            self._emit_error(notice)
        self._changed()
        return notice

    def _set_tools(self, srv: ServerState, tools: tuple[McpTool, ...]) -> None:
        conv = self._conv
        if conv is not None:
            for warning in set_tools(conv, srv, tools, self._names):
                conv.emit(ev.Notice(session_id=conv.session_id, kind="mcp", message=warning))
        sync_rules(srv, self._perms)

    def _drop_tools(self, srv: ServerState) -> None:
        if self._conv is not None:
            drop_tools(self._conv, srv, self._names)
        sync_rules(srv, self._perms)

    def _update_system(self) -> None:
        conv = self._conv
        if conv is None:
            return
        system = with_instructions(self._base_system, self._servers.values())
        if system != conv.config.system:
            conv.configure(system=system)

    def _emit_error(self, message: str) -> None:
        conv = self._conv
        if conv is not None:
            conv.emit(ev.ErrorEvent(session_id=conv.session_id, kind="mcp", message=message))

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # --- what /mcp and the tools ask ----------------------------------------------------

    def servers(self) -> list[ServerView]:
        """Every configured server, for ``/mcp``."""
        return [srv.view() for srv in self._servers.values()]

    def tools(self, server: str | None = None) -> list[tuple[str, McpTool]]:
        """``(table name, tool)`` of the servers' tools in the table now."""
        return [
            (tname, tool)
            for srv in self._servers.values()
            if server is None or srv.config.name == server
            for tname, tool in srv.tools.items()
        ]

    def hints(self, table_name: str) -> str:
        """The hints of an MCP tool in the table, as an approval shows them ("" if none)."""
        for srv in self._servers.values():
            tool = srv.tools.get(table_name)
            if tool is not None:
                return tool_hints(srv.config.name, tool)
        return ""

    def server_of(self, table_name: str) -> tuple[str, str] | None:
        """``(server, the server's tool name)`` of a table name."""
        for srv in self._servers.values():
            tool = srv.tools.get(table_name)
            if tool is not None:
                return srv.config.name, tool.name
        return None

    def enabled(self) -> dict[str, McpServerConfig]:
        """The configuration of every server not disabled, by name, in the configuration's
        order: the servers a call may name."""
        return {name: srv.config for name, srv in self._servers.items() if not srv.config.disabled}

    def bridge(self, server: str) -> WorkerHandle:
        """The bridge worker of *server*: ``KeyError`` for a server not configured or
        disabled, :class:`~harness.ipc.WorkerUnavailable` when its bridge is not running."""
        srv = self._servers.get(server)
        if srv is None or srv.config.disabled:
            raise KeyError(server)
        if srv.worker not in self.supervisor:
            raise WorkerUnavailable(f"the bridge of {server} is not running", worker=srv.worker)
        return self.supervisor.get(srv.worker)

    async def restart(self, server: str) -> None:
        """Restart one server now (its bridge too, when that was given up)."""
        srv = self._servers.get(server)
        if srv is None or srv.config.disabled:
            raise KeyError(server)
        srv.told_down = srv.told_failed = False
        handle = self.supervisor.get(srv.worker) if srv.worker in self.supervisor else None
        if handle is None or handle.state in ("stopped", "gave_up"):
            srv.bridge_error = ""
            if self._nursery is not None:
                self._nursery.start_soon(self._bridge, srv)
            return
        await handle.request(McpRestart(), timeout=10)

    async def reload(self) -> ReloadReport:
        """Read the configuration again and apply it; try every server that is not ready.

        A server no longer configured is stopped and its tools leave; a new one starts;
        one whose configuration changed is stopped and started with the new one (its
        tools leave meanwhile). A configuration with problems (a file that does not
        parse, a server entry that is wrong) changes nothing: the problems come back.
        """
        config = self._loader() if self._loader is not None else self.config
        if config.problems:
            return ReloadReport(problems=tuple(config.problems))
        old = self._servers
        new = config.servers
        removed = tuple(n for n in old if n not in new)
        added = tuple(n for n in new if n not in old)
        changed = tuple(n for n in new if n in old and not same_server(new[n], old[n].config))
        for name in (*removed, *changed):
            await self._retire(old[name])
        kept = {n: old[n] for n in new if n in old and n not in changed}
        self._servers = {n: kept.get(n) or ServerState(config=new[n]) for n in new}
        self.config = config
        admitted = [self._servers[n] for n in (*added, *changed)]
        if sum(not srv.config.disabled for srv in admitted) > 1:
            await warm_bridges(self.supervisor)  # as at the start
        for srv in admitted:
            self._admit(srv)
        retried = []
        for name, srv in kept.items():
            if srv.config.disabled or (srv.status is not None and srv.status.state == "ready"):
                continue
            await self.restart(name)
            retried.append(name)
        if self._conv is not None and config.enabled and not self._resource_tools:
            self._add_resource_tools(self._conv)
        self._update_system()
        self._changed()
        return ReloadReport(added, removed, changed, tuple(retried))

    async def _retire(self, srv: ServerState) -> None:
        """Stop *srv* for good: its watch, its tools, its rules, its bridge worker."""
        if srv.watch is not None:
            srv.watch.cancel()
        self._drop_tools(srv)
        if srv.worker in self.supervisor:
            await self.supervisor.stop(srv.worker)

    def _admit(self, srv: ServerState) -> None:
        """Take a server new to this session: its bridge (its rules come with its tools)."""
        if not srv.config.disabled and self._nursery is not None:
            self._nursery.start_soon(self._bridge, srv)

    # --- calls: McpCalls makes them; Session.mcp, the API's face for MCP, still offers them

    async def invoke(self, request: ToolInvoke) -> ToolOutcome:
        """Run an ``mcp__`` tool call on its server's bridge."""
        return await self._calls.invoke(request)

    async def resources(
        self, server: str | None = None
    ) -> tuple[list[tuple[str, McpResource]], list[str]]:
        """``(server, resource)`` of every ready server, and one sentence per server that
        could not list them."""
        return await self._calls.resources(server)

    async def read_resource(self, uri: str, server: str | None = None) -> ToolOutcome:
        """Read *uri* from *server* (default: the server that lists it)."""
        return await self._calls.read_resource(uri, server)

    async def prompts(self, server: str) -> list[McpPromptInfo]:
        """The prompts *server* offers (``KeyError`` for an unknown server)."""
        return await self._calls.prompts(server)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpPromptText:
        """Prompt *name* of *server*, rendered as one user message."""
        return await self._calls.get_prompt(server, name, arguments)

    # --- the calls' tools in the table --------------------------------------------------

    def _add_resource_tools(self, conv: Conversation) -> None:
        for spec in RESOURCE_TOOLS:
            conv.table.register(spec, replace=True)
        conv.add_local_tool("list_mcp_resources", self._calls.list_resources_tool)
        conv.add_local_tool("read_mcp_resource", self._calls.read_resource_tool)
        self._resource_tools = True
