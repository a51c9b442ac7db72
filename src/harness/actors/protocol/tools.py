"""Messages for running a tool on the worker that executes it (tools, shell, mcp)."""

from __future__ import annotations

from typing import Any

import attrs

from harness.ipc import Message


@attrs.frozen
class ToolInvoke(Message, tag="tool.invoke"):
    """Run tool ``name`` with validated ``arguments`` in ``workspace``."""

    name: str
    arguments: dict[str, Any]
    call_id: str = ""
    session_id: str = ""
    workspace: str = ""


@attrs.frozen
class ToolOutcome(Message, tag="tool.outcome"):
    """What a tool produced. ``output`` is the text the model sees; ``data`` holds
    structured extras for frontends (a diff, changed paths, a shell session id)."""

    ok: bool
    output: str
    data: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ToolPreview(Message, tag="tool.preview"):
    """Describe what ``name(arguments)`` would change, without changing anything."""

    name: str
    arguments: dict[str, Any]
    workspace: str = ""


@attrs.frozen
class ToolPreviewResult(Message, tag="tool.preview_result"):
    summary: str
    diff: str = ""
