"""An MCP server's tools as the conversation declares them.

A server's tool becomes a :class:`ToolSpec` named ``mcp__<server>__<tool>``: its schema
made fit for the table, its hints (read-only, destructive) in its description and, for
an approval, on their own. Two conversation tools list and read the servers' resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.actors.tools import ToolSpec
from harness.messages.mcp import McpResource, McpTool

__all__ = ["RESOURCE_TOOLS", "resource_listing", "tool_hints", "tool_spec"]


def _schema(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A server's input schema made fit for the table (an object; ``required`` listed)."""
    schema = dict(raw) if isinstance(raw, Mapping) else {}
    schema["type"] = "object"
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        props = {}
    schema["properties"] = dict(props)
    required = schema.get("required")
    if isinstance(required, list):
        schema["required"] = [r for r in required if r in props]
    else:
        schema.pop("required", None)
    return schema


def _hints(server: str, tool: McpTool) -> list[str]:
    """What the server says of a tool: where it runs and what it may do (its claim)."""
    hints = [f"MCP server {server}"]
    if tool.read_only:
        hints.append("read-only")
    elif tool.destructive is not False:
        # MCP's default for a tool that is not read-only is "may be destructive"
        hints.append("destructive" if tool.destructive else "may change things")
    return hints


def _description(server: str, tool: McpTool) -> str:
    text = (tool.description or tool.title or tool.name).strip()
    return f"{text} ({'; '.join(_hints(server, tool))})"


def tool_hints(server: str, tool: McpTool) -> str:
    """The hints of *server*'s *tool* on one line, as an approval shows them."""
    return "; ".join(_hints(server, tool))


def tool_spec(
    server: str, tool: McpTool, table_name: str, *, read_only: bool = False
) -> ToolSpec | None:
    """*server*'s *tool* as the table's ``mcp`` tool *table_name* (``None``: its schema
    cannot be offered to a model).

    It is a reading tool (run in plan mode and deepthink's reading stages) only when the
    user marked the server *read_only*; the server's own ``readOnlyHint`` is its claim,
    shown to the model and in an approval, never trusted.
    """
    try:
        return ToolSpec(
            name=table_name,
            description=_description(server, tool),
            parameters=_schema(tool.input_schema),
            kind="read" if read_only else "mutating",
            executor="mcp",
        )
    except ValueError:
        return None


_SERVER_PROP = {"type": "string", "description": "the MCP server (default: every server)"}

RESOURCE_TOOLS = (
    ToolSpec(
        name="list_mcp_resources",
        description="List the resources the MCP servers offer (uri, name, description).",
        parameters={"type": "object", "properties": {"server": _SERVER_PROP}},
        executor="conversation",
    ),
    ToolSpec(
        name="read_mcp_resource",
        description="Read one resource of an MCP server by its uri.",
        parameters={
            "type": "object",
            "properties": {"uri": {"type": "string"}, "server": _SERVER_PROP},
            "required": ["uri"],
        },
        main_arg="uri",
        executor="conversation",
    ),
)
"""The two conversation tools over the servers' resources."""


def resource_listing(found: list[tuple[str, McpResource]], problems: list[str]) -> str:
    """What ``list_mcp_resources`` answers: a line per resource, then what was not listed."""
    lines = [
        f"{server}: {r.uri}"
        + (f" ({r.name})" if r.name else "")
        + (f" [{r.mime_type}]" if r.mime_type else "")
        + (f" - {r.description}" if r.description else "")
        for server, r in found
    ]
    lines += [f"(not listed: {p})" for p in problems]
    return "\n".join(lines) or "No MCP server offers resources."
