"""How MCP tools are named in the tool table.

A table name is ``mcp__<server>__<tool>`` with what a provider refuses made ``_`` and cut
at 64 characters, so two tools can come out with one name: server ``a__b``'s tool ``c``
and server ``a``'s tool ``b__c``; ``x.y`` and ``x_y`` of one server; two long names that
differ only past the cut. :class:`ToolNames` gives every tool a name of its own: the
first to hold a name keeps it while it is offered, a later one gets ``_2``, ``_3`` …,
and each such change comes back as a warning to show the user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TOOL_PREFIX", "ToolNames", "tool_name"]

TOOL_PREFIX = "mcp__"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# the strictest provider (OpenAI) takes names of at most 64 of [A-Za-z0-9_-]
_MAX = 64


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, with anything a provider would refuse made ``_``."""
    return f"{TOOL_PREFIX}{server}__{_UNSAFE.sub('_', tool)}"[:_MAX]


class ToolNames:
    """The table names of every server's tools in one session, each held by one tool."""

    def __init__(self) -> None:
        self._holder: dict[str, tuple[str, str]] = {}  # table name -> (server, tool)
        self._names: dict[str, dict[str, str]] = {}  # server -> tool -> table name

    def assign(self, server: str, tools: Iterable[str]) -> tuple[dict[str, str], list[str]]:
        """Name *server*'s *tools* (its whole list now; its earlier names are released
        but for the tools it still offers, which keep theirs).

        Returns:
            ``{tool: table name}``, and one warning for each tool newly named other
            than :func:`tool_name` would name it.
        """
        before = self._names.get(server, {})
        wanted = list(dict.fromkeys(tools))
        for tool, name in before.items():
            if tool not in wanted:
                del self._holder[name]
        names = {tool: before[tool] for tool in wanted if tool in before}
        warnings = []
        for tool in wanted:
            if tool in names:
                continue
            plain = tool_name(server, tool)
            name, n = plain, 1
            while name in self._holder:
                n += 1
                suffix = f"_{n}"
                name = plain[: _MAX - len(suffix)] + suffix
            if name != plain:
                other_server, other_tool = self._holder[plain]
                warnings.append(
                    f"MCP server {server}'s tool {tool!r} is offered as {name}: {plain} is "
                    f"already server {other_server}'s tool {other_tool!r}"
                )
            self._holder[name] = (server, tool)
            names[tool] = name
        self._names[server] = names
        return dict(names), warnings

    def release(self, server: str) -> None:
        """Forget *server*'s names (it stopped offering tools)."""
        for name in self._names.pop(server, {}).values():
            del self._holder[name]

    def holder(self, name: str) -> tuple[str, str] | None:
        """``(server, tool)`` that holds table name *name*, if any."""
        return self._holder.get(name)
