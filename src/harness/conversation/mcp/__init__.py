"""The MCP servers of a session: one bridge worker per server, their tools in the
table, ``/mcp``'s answers, and the executor port that routes ``mcp`` calls to them.

:class:`McpManager` runs the bridges and shows each server as a :class:`ServerView`;
its ``reload()`` says what changed in a :class:`ReloadReport`. :class:`McpExecutors`
is the loop's executor port for a session with servers.
"""

from harness.conversation.mcp._executors import McpExecutors
from harness.conversation.mcp._manager import McpManager
from harness.conversation.mcp._server import ReloadReport, ServerView

__all__ = ["McpExecutors", "McpManager", "ReloadReport", "ServerView"]
