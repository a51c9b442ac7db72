"""An MCP server over stdio written without the SDK, for tests that start servers over and
over: it starts in milliseconds, where the SDK's server spends a second of CPU importing.

``python -m tests.mcp_bridge.tiny_server`` speaks newline-delimited JSON-RPC: it answers
the ``initialize`` handshake (protocol 2025-06-18), ``ping``, ``tools/list`` and
``tools/call`` of its tools: ``echo(text)``, ``hang()`` (never answered, while other calls
are), ``whoami()`` (its pid and start count, counted in the file ``TINY_MCP_STARTS``
names), ``crash()`` (the process exits mid-call) and ``freeze()`` (SIGSTOP: the whole
process answers nothing more); any other request is "method not found",
as a server of that revision answers one it does not know. ``TINY_MCP_DIE_AFTER`` (seconds)
makes it exit with status 1 that long after it first listed its tools (once it was up).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"
TOOLS = [
    {
        "name": "echo",
        "description": "Repeat the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {"name": "hang", "description": "Never return.", "inputSchema": {"type": "object"}},
    {"name": "whoami", "description": "Pid and starts.", "inputSchema": {"type": "object"}},
    {"name": "crash", "description": "Exit mid-call.", "inputSchema": {"type": "object"}},
    {"name": "freeze", "description": "Stop the process.", "inputSchema": {"type": "object"}},
]


def _count_start() -> int:
    path = os.environ.get("TINY_MCP_STARTS")
    if not path:
        return 1
    p = Path(path)
    n = int(p.read_text() or "0") + 1 if p.exists() else 1
    p.write_text(str(n))
    return n


STARTS = _count_start()


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
    tool = params.get("name") if method == "tools/call" else None
    if tool == "hang":
        raise NoAnswer
    if tool == "whoami":
        return {"content": [{"type": "text", "text": f"pid {os.getpid()} start {STARTS}"}]}
    if tool == "crash":
        sys.stderr.write("tiny server: crashing on request\n")
        sys.stderr.flush()
        os._exit(1)
    if tool == "freeze":
        os.kill(os.getpid(), signal.SIGSTOP)
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
