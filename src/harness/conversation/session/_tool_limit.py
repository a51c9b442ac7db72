"""A limit on the tools a session's model may use, for as long as a block runs: how a
file command's ``allowed-tools`` holds while its prompt runs.

The limit is enforced by the session, not asked of the model: only the tools in it are
offered, and a call to any other (a model that calls a tool it was not offered, a
sub-agent's call) is refused with a reason naming who set the limit, before any hook
or rule is asked. A limit inside another keeps only the tools both allow.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.conversation.session._session import Session

__all__ = ["tools_limited"]


@contextlib.contextmanager
def tools_limited(session: Session, tools: Collection[str], by: str) -> Iterator[None]:
    """While the block runs, *session*'s model may use only *tools*.

    Args:
        session: the open session.
        tools: the tools' harness names (``mcp__server__tool`` for an MCP tool).
        by: who limits them, for the refusal: ``"/review's allowed-tools"``.
    """
    conv = session.conversation
    saved = conv.config.tool_limit, conv.config.tool_limit_by
    outer = saved[0]
    limit = tuple(t for t in tools if outer is None or t in outer)
    conv.configure(tool_limit=limit, tool_limit_by=by)
    try:
        yield
    finally:
        conv.configure(tool_limit=saved[0], tool_limit_by=saved[1])
