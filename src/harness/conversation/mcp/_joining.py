"""The servers in the conversation: their tools joining and leaving the table (and
the offer, when the session offers a short list), and their instructions in the
system prompt."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from harness.actors.mcp import ToolNames
from harness.conversation.mcp._naming import tool_spec
from harness.conversation.mcp._server import ServerState
from harness.messages.mcp import McpTool

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation

__all__ = ["INSTRUCTIONS_CAP", "drop_tools", "set_tools", "with_instructions"]

INSTRUCTIONS_CAP = 2000
"""Characters of one server's instructions that go into the system prompt."""
_INSTRUCTIONS_TOTAL = 8000


def set_tools(
    conv: Conversation, srv: ServerState, tools: tuple[McpTool, ...], names: ToolNames
) -> list[str]:
    """Put *srv*'s *tools* into *conv*'s table in place of those it had, and offer them,
    each under the name *names* gives it (unique across the session's servers).

    Returns a warning for each tool whose name had to change."""
    table = conv.table
    given, warnings = names.assign(srv.config.name, [t.name for t in tools])
    by_name = {t.name: t for t in tools}
    wanted = {tname: by_name[tool] for tool, tname in given.items()}
    if wanted == srv.tools:
        return warnings
    for tname in set(srv.tools) - set(wanted):
        table.unregister(tname)
    for tname, tool in wanted.items():
        spec = tool_spec(srv.config.name, tool, tname, read_only=srv.config.read_only)
        if spec is not None:
            table.register(spec, replace=True)
    srv.tools = wanted
    _offer(conv, list(wanted))
    conv.configure()  # the offered tools changed
    return warnings


def drop_tools(conv: Conversation, srv: ServerState, names: ToolNames) -> None:
    """Take *srv*'s tools out of *conv*'s table, and their names out of *names*."""
    names.release(srv.config.name)
    if not srv.tools:
        return
    for tname in srv.tools:
        conv.table.unregister(tname)
    srv.tools = {}
    conv.configure()  # the offered tools changed


def _offer(conv: Conversation, names: list[str]) -> None:
    offered = conv.config.tools
    if offered is not None:
        extra = [n for n in names if n not in offered]
        if extra:
            conv.configure(tools=(*offered, *extra))


def with_instructions(base: str, servers: Iterable[ServerState]) -> str:
    """The system prompt *base* with the *servers*' own instructions after it (each cut
    at :data:`INSTRUCTIONS_CAP` characters, all of them at 8000)."""
    parts: list[str] = []
    budget = _INSTRUCTIONS_TOTAL
    for srv in servers:
        text = (srv.status.instructions if srv.status else "").strip()
        if not text or budget <= 0:
            continue
        if len(text) > INSTRUCTIONS_CAP:
            text = text[:INSTRUCTIONS_CAP] + " [cut]"
        text = text[:budget]
        budget -= len(text)
        parts.append(f"## MCP server {srv.config.name}\n{text}")
    if parts:
        base += "\n\n# MCP servers (their own instructions)\n\n" + "\n\n".join(parts)
    return base
