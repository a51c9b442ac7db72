"""What an approval shows of a call before it runs: a built-in's diff, an MCP tool's
hints (the server's word on what it may do)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from harness.conversation._ports import ExecutorPort
from harness.ipc import IpcError
from harness.messages.tools import ToolPreview

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec

__all__ = ["preview_call"]


async def preview_call(
    executors: ExecutorPort, workspace: str, spec: ToolSpec, arguments: dict[str, Any]
) -> tuple[str, str]:
    """``(summary, diff)`` an approval shows for a mutating call: a built-in's diff, an
    MCP tool's hints; empty for the rest, and a note when the preview failed."""
    if not (spec.mutating and spec.executor in ("tools", "mcp")):
        return "", ""
    request = ToolPreview(name=spec.name, arguments=arguments, workspace=workspace)
    try:
        with trio.move_on_after(10):
            pre = await executors.preview(request)
            if pre is not None:
                return pre.summary, pre.diff
    except (IpcError, ValueError) as exc:
        return f"(no preview: {exc})", ""
    return "", ""
