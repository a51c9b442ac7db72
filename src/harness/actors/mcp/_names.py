"""How MCP tools are named in the tool table."""

from __future__ import annotations

import re

__all__ = ["TOOL_PREFIX", "tool_name"]

TOOL_PREFIX = "mcp__"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# the strictest provider (OpenAI) takes names of at most 64 of [A-Za-z0-9_-]
_MAX = 64


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, with anything a provider would refuse made ``_``."""
    return f"{TOOL_PREFIX}{server}__{_UNSAFE.sub('_', tool)}"[:_MAX]
