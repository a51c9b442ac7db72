"""An MCP server over stdio written without the SDK, for tests that start servers over and
over: it starts in milliseconds, where the SDK's server spends a second of CPU importing.

``python -m tests.mcp_bridge.tiny_server`` speaks newline-delimited JSON-RPC: it answers
the ``initialize`` handshake (protocol 2025-06-18), ``ping``, ``tools/list`` and
``tools/call`` of its two tools, ``echo(text)`` and ``hang()`` (never answered, while other
calls are); any other request is "method not found",
as a server of that revision answers one it does not know. ``TINY_MCP_DIE_AFTER`` (seconds)
makes it exit with status 1 that long after it first listed its tools (once it was up).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

PROTOCOL = "2025-06-18"
TOOLS = [
    {
        "name": "echo",
        "description": "Repeat the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {"name": "hang", "description": "Never return.", "inputSchema": {"type": "object"}},
]


class NoAnswer(Exception):
    """A request left unanswered on purpose."""


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The result of request *method*; ``KeyError`` for a method it does not know,
    :class:`NoAnswer` for a call of ``hang``."""
    if method == "initialize":
        return {
            "protocolVersion": PROTOCOL,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tiny", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and params.get("name") == "echo":
        text = str(params.get("arguments", {}).get("text", ""))
        return {"content": [{"type": "text", "text": f"echo: {text}"}], "isError": False}
    if method == "tools/call" and params.get("name") == "hang":
        raise NoAnswer
    raise KeyError(method)


def main() -> None:
    die_after = os.environ.get("TINY_MCP_DIE_AFTER")
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue  # a notification, or an answer to nothing we asked
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"]}
        try:
            reply["result"] = answer(msg["method"], msg.get("params") or {})
        except KeyError:
            reply["error"] = {"code": -32601, "message": f"method not found: {msg['method']}"}
        except NoAnswer:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if die_after and msg["method"] == "tools/list":
            threading.Timer(float(die_after), lambda: os._exit(1)).start()
            die_after = None


if __name__ == "__main__":
    main()
