"""The calls a session makes to its MCP servers: tool calls, resources, prompts.

:class:`McpCalls` sends each request to a server's bridge worker and reads the answer.
Which servers there are, whether a bridge runs and which server offers a table's tool are
the lifecycle's to say (:class:`~harness.conversation.mcp._manager.McpManager`, through
:class:`McpBridges`); a call's progress becomes an event and a server's question goes to
the user (``_asking``); the manager owns one :class:`McpCalls` and answers
``/mcp``, the ``mcp`` executor and the two resource tools with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from harness.conversation.mcp._asking import ask_user, tell_progress
from harness.conversation.mcp._naming import resource_listing
from harness.ipc import IpcError, ProtocolError, WorkerUnavailable
from harness.messages.mcp import (
    McpCall,
    McpGetPrompt,
    McpListPrompts,
    McpListResources,
    McpProgress,
    McpPromptInfo,
    McpPrompts,
    McpPromptText,
    McpQuestion,
    McpReadResource,
    McpResource,
    McpResources,
)
from harness.messages.tools import ToolInvoke, ToolOutcome

if TYPE_CHECKING:
    from harness.actors.mcp import McpServerConfig
    from harness.conversation._loop import Conversation
    from harness.supervisor import WorkerHandle

__all__ = ["McpBridges", "McpCalls"]


class McpBridges(Protocol):
    """What the calls ask of the servers' lifecycle, which
    :class:`~harness.conversation.mcp._manager.McpManager` answers."""

    def enabled(self) -> dict[str, McpServerConfig]:
        """The configuration of every server not disabled, by name, in order."""
        ...

    def bridge(self, server: str) -> WorkerHandle:
        """*server*'s bridge worker (``KeyError``: no such server; ``WorkerUnavailable``:
        its bridge is not running)."""
        ...

    def server_of(self, table_name: str) -> tuple[str, str] | None:
        """``(server, the server's tool name)`` of a table name."""
        ...

    @property
    def conversation(self) -> Conversation | None:
        """The conversation a call's progress and a server's questions go to."""
        ...


class McpCalls:
    """Requests to the bridges of *bridges*' servers, and their answers."""

    def __init__(self, bridges: McpBridges) -> None:
        self.bridges = bridges

    def _reach(self, server: str) -> tuple[WorkerHandle, float]:
        """*server*'s bridge, and how long a call to it may take."""
        handle = self.bridges.bridge(server)
        cfg = self.bridges.enabled()[server]
        # the bridge bounds the call itself; this covers a bridge that stopped answering
        return handle, cfg.timeout + cfg.startup_timeout + 20.0

    def _names(self, server: str | None) -> list[str]:
        names = list(self.bridges.enabled())
        if server is not None:
            if server not in names:
                raise KeyError(server)
            return [server]
        return names

    async def invoke(self, request: ToolInvoke) -> ToolOutcome:
        """Run an ``mcp__`` tool call on its server's bridge."""
        found = self.bridges.server_of(request.name)
        if found is None:
            return ToolOutcome(
                ok=False, output=f"{request.name} is not offered by any MCP server now."
            )
        server, tool = found
        handle = self.bridges.bridge(server)
        outcome: ToolOutcome | None = None
        # No deadline here: the bridge bounds the call itself (its clock stops while the
        # user answers a question), and the supervisor's heartbeats find a hung bridge.
        call = McpCall(name=tool, arguments=dict(request.arguments))
        async with handle.stream(call, timeout=None) as items:
            async for item in items:
                if isinstance(item, McpProgress):
                    tell_progress(self.bridges.conversation, request, item)
                elif isinstance(item, McpQuestion):
                    answer = await ask_user(self.bridges.conversation, server, item)
                    await handle.request(answer, timeout=30)
                elif isinstance(item, ToolOutcome):
                    outcome = item
        if outcome is None:
            raise ProtocolError(f"the bridge of {server} ended the call without an outcome")
        return outcome

    async def resources(
        self, server: str | None = None
    ) -> tuple[list[tuple[str, McpResource]], list[str]]:
        """``(server, resource)`` of every ready server, and one sentence per server that
        could not list them."""
        found: list[tuple[str, McpResource]] = []
        problems: list[str] = []
        for name in self._names(server):
            try:
                handle, timeout = self._reach(name)
                reply = await handle.request(McpListResources(), timeout=timeout)
            except IpcError as exc:
                problems.append(f"{name}: {exc}")
                continue
            if isinstance(reply, McpResources):
                found.extend((name, r) for r in reply.resources)
            elif isinstance(reply, ToolOutcome):
                problems.append(reply.output)
        return found, problems

    async def read_resource(self, uri: str, server: str | None = None) -> ToolOutcome:
        """Read *uri* from *server* (default: the server that lists it)."""
        if server is None:
            listed, _problems = await self.resources()
            owners = [s for s, r in listed if r.uri == uri]
            if owners:
                server = owners[0]
            else:
                names = self._names(None)
                if len(names) != 1:
                    return ToolOutcome(
                        ok=False,
                        output=f"no MCP server lists {uri}; name the server "
                        f"(one of: {', '.join(names) or 'none'})",
                    )
                server = names[0]
        handle, timeout = self._reach(server)
        reply = await handle.request(McpReadResource(uri=uri), timeout=timeout)
        if not isinstance(reply, ToolOutcome):
            raise ProtocolError(f"the bridge of {server} answered {type(reply).__name__}")
        return reply

    async def prompts(self, server: str) -> list[McpPromptInfo]:
        """The prompts *server* offers (``KeyError`` for an unknown server)."""
        handle, timeout = self._reach(server)
        reply = await handle.request(McpListPrompts(), timeout=timeout)
        if isinstance(reply, ToolOutcome):
            raise WorkerUnavailable(reply.output, worker=handle.name)
        return list(reply.prompts) if isinstance(reply, McpPrompts) else []

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpPromptText:
        """Prompt *name* of *server*, rendered as one user message."""
        handle, timeout = self._reach(server)
        reply = await handle.request(
            McpGetPrompt(name=name, arguments=dict(arguments)), timeout=timeout
        )
        if not isinstance(reply, McpPromptText):
            raise ProtocolError(f"the bridge of {server} answered {type(reply).__name__}")
        return reply

    # --- the two resource tools (the manager puts them in the table) --------------------

    async def list_resources_tool(self, args: dict[str, Any]) -> ToolOutcome:
        """``list_mcp_resources``: every server's resources, or one server's."""
        try:
            found, problems = await self.resources(args.get("server"))
        except KeyError:
            return ToolOutcome(ok=False, output=f"there is no MCP server {args.get('server')!r}")
        return ToolOutcome(ok=True, output=resource_listing(found, problems))

    async def read_resource_tool(self, args: dict[str, Any]) -> ToolOutcome:
        """``read_mcp_resource``: one resource by its uri."""
        try:
            return await self.read_resource(str(args["uri"]), args.get("server"))
        except KeyError:
            return ToolOutcome(ok=False, output=f"there is no MCP server {args.get('server')!r}")
