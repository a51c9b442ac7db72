"""``harness acp``: harness inside editors, over the Agent Client Protocol.

The editor starts ``harness acp`` and speaks JSON-RPC on its stdin and stdout
(:func:`claim_stdout` keeps stdout for the protocol alone: whatever else the
process prints goes to stderr). :func:`serve` answers one client until its input
ends; each ACP session is a harness :class:`~harness.conversation.Session`,
opened with the options the command line gives (*options_for*).

This face stays light (``harness.__main__`` calls :func:`claim_stdout` before the
fork server starts); :func:`serve` loads the SDK and the conversation when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.acp._stdio import claim_stdout

if TYPE_CHECKING:
    from harness.acp._serve import serve

__all__ = ["claim_stdout", "serve"]


def __getattr__(name: str) -> Any:
    if name == "serve":
        from harness.acp._serve import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
