"""The loop's executor port in a session with MCP servers: ``mcp`` calls go to the
:class:`~harness.conversation.mcp._manager.McpManager`, the rest to the workers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio

from harness.conversation.mcp._manager import McpManager
from harness.conversation.workers import WEB_TOOLS, run_web_call
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

if TYPE_CHECKING:
    from harness.conversation.workers import Workers

__all__ = ["McpExecutors"]


class McpExecutors:
    """The loop's executor port: ``mcp`` calls to :class:`McpManager`, the rest to the
    workers; ``get_url`` and ``call_api`` hop by hop (:func:`~._web.run_web_call`), each
    redirect decided by the conversation's permission policy."""

    def __init__(self, workers: Workers, manager: McpManager) -> None:
        self.workers = workers
        self.manager = manager

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        """Run *request* on the worker that executes it."""
        if executor == "mcp":
            return await self.manager.invoke(request)
        conv = self.manager.conversation
        if executor == "search" and request.name in WEB_TOOLS and conv is not None:

            async def hop(one: ToolInvoke) -> ToolOutcome:
                reply: ToolOutcome = await self.workers.invoke(executor, one, timeout)
                return reply

            return await run_web_call(conv, hop, request)
        reply: ToolOutcome = await self.workers.invoke(executor, request, timeout)
        return reply

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        """What a mutating call would change: a built-in's diff, an MCP tool's hints
        (the server's word on what it may do; it cannot show a diff)."""
        hints = self.manager.hints(request.name)
        if hints:
            await trio.lowlevel.checkpoint()
            return ToolPreviewResult(summary=hints)
        result: ToolPreviewResult | None = await self.workers.preview(request)
        return result
