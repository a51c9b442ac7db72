"""The MCP bridges: one worker process per MCP server (``python -m harness.actors.mcp``).

What other processes import from here is light: the configuration (:func:`load_mcp_config`,
:class:`McpServerConfig`), how a server's tools are named in the tool table
(:func:`tool_name`, and :class:`ToolNames`, which keeps every tool's name its own),
and signing in to a server that needs it (:func:`login_server`, :func:`logout_server`,
the tokens' :class:`TokenStore`; the SDK loads only when a sign-in runs).
The bridge itself (``_bridge``) speaks MCP through the official SDK, which loads only in
bridge processes, and in the fork server they are forked from once a session has servers
to start (:data:`BRIDGE_PRELOAD`).
"""

from harness.actors.mcp._config import (
    McpConfig,
    McpConfigError,
    McpServerConfig,
    load_mcp_config,
    parse_mcp_file,
    parse_mcp_servers,
)
from harness.actors.mcp._names import TOOL_PREFIX, ToolNames, tool_name
from harness.actors.mcp._signin import SignInFailed, login_server, logout_server, sign_in_problem
from harness.actors.mcp._tokens import TokenStore

BRIDGE_MODULE = "harness.actors.mcp"
"""The bridge worker's module (``python -m harness.actors.mcp``)."""

BRIDGE_PRELOAD = ("pydantic", "mcp_types", "mcp", "harness.actors.mcp._bridge")
"""What a bridge imports at its start beyond every worker's modules: about 1 s of CPU,
mostly the SDK's protocol types. The fork server imports them once for all bridges, in
steps (a fork request of another worker waits for one step, not the whole)."""

__all__ = [
    "BRIDGE_MODULE",
    "BRIDGE_PRELOAD",
    "TOOL_PREFIX",
    "McpConfig",
    "McpConfigError",
    "McpServerConfig",
    "SignInFailed",
    "TokenStore",
    "ToolNames",
    "load_mcp_config",
    "login_server",
    "logout_server",
    "parse_mcp_file",
    "parse_mcp_servers",
    "sign_in_problem",
    "tool_name",
]
