"""How MCP tools are named in the tool table, and how a bridge is told its server."""

from __future__ import annotations

import re

__all__ = ["SERVER_ENV", "TOOL_PREFIX", "tool_name"]

SERVER_ENV = "HARNESS_MCP_SERVER"
"""The variable holding a bridge worker's server entry, as JSON."""

TOOL_PREFIX = "mcp__"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# the strictest provider (OpenAI) takes names of at most 64 of [A-Za-z0-9_-]
_MAX = 64


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, with anything a provider would refuse made ``_``."""
    return f"{TOOL_PREFIX}{server}__{_UNSAFE.sub('_', tool)}"[:_MAX]
