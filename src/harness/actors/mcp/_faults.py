"""What went wrong with a server, said in one line.

The SDK raises exception groups, MCP errors and HTTP errors; a broken connection is
:class:`Broken` with its own words. :func:`describe` turns any of them into the line the
user and the model see, and :class:`SdkLog` puts the SDK's own log records into the
server's stderr tail.
"""

from __future__ import annotations

import logging

import httpx2
from mcp.shared.exceptions import MCPError

from harness.actors.mcp._oauth import first_sign_in_error
from harness.actors.mcp._output import StderrTail
from harness.errors import HarnessError

__all__ = ["Broken", "SdkLog", "describe"]


class Broken(HarnessError):
    """The connection is gone; the message says how."""


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """What went wrong, in one line: a sign-in the server wants, the server's MCP error,
    an HTTP status, else the first exception of a group by its kind."""
    sign_in = first_sign_in_error(exc)
    if sign_in is not None:
        return str(sign_in)
    leaf = _first_leaf(exc)
    if isinstance(leaf, MCPError):
        return f"{leaf.message} (MCP error {leaf.code})"
    if isinstance(leaf, httpx2.HTTPStatusError):
        return f"HTTP {leaf.response.status_code} from {leaf.request.url}"
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__}: {text}" if not isinstance(leaf, Broken) else text


class SdkLog(logging.Handler):
    """The SDK's log records as one line each in the stderr tail (never on a terminal)."""

    def __init__(self, tail: StderrTail) -> None:
        super().__init__(logging.WARNING)
        self._tail = tail

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            msg += f": {describe(record.exc_info[1])}"
        self._tail.note(f"[sdk] {msg.splitlines()[0] if msg else record.levelname}")
