"""A server's questions to the user (elicitation), put through the call that is running.

The SDK hands a server's ``elicitation/create`` to one callback per connection, without
saying which of the calls in flight it belongs to: :class:`Questions` gives it to the
latest call that can ask (an :class:`~harness.messages.mcp.McpCall` stream; a plain
``ToolInvoke`` cannot). With none, the question is declined and the reason goes to the
stderr tail. The time the user takes to answer is added to the call's deadline: a
question never makes the call time out. URL-mode questions (a link to open) are declined:
harness opens no links for a server.

Imports the SDK: only bridge processes load it (through ``_bridge``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import mcp_types as types
import trio

__all__ = ["Ask", "Questions"]

Ask = Callable[[str, dict[str, Any]], Awaitable[tuple[str, dict[str, Any], str]]]
"""Put ``(message, schema)`` to the user; ``(action, content, reason)`` comes back."""


class _Asking:
    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self.scope: trio.CancelScope | None = None


class Questions:
    """The calls that can ask the user, latest last; *note* writes a line to the tail."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self._note = note
        self._calls: list[_Asking] = []

    @contextlib.contextmanager
    def asking(self, ask: Ask | None) -> Iterator[Callable[[trio.CancelScope], None]]:
        """While the block runs, questions go to *ask*; the block hands over its call's
        cancel scope (through the function it is given) so a question can push back its
        deadline."""
        if ask is None:
            yield lambda scope: None
            return
        entry = _Asking(ask)
        self._calls.append(entry)

        def take(scope: trio.CancelScope) -> None:
            entry.scope = scope

        try:
            yield take
        finally:
            self._calls.remove(entry)

    async def elicit(self, context: Any, params: Any) -> types.ElicitResult:
        """The SDK's elicitation callback."""
        if not isinstance(params, types.ElicitRequestFormParams):
            self._note("[bridge] declined a question that asks to open a link")
            return types.ElicitResult(action="decline")
        if not self._calls:
            self._note(f"[bridge] declined a question, no call can ask the user: {params.message}")
            return types.ElicitResult(action="decline")
        entry = self._calls[-1]
        started = trio.current_time()
        # the user's time is not the server's: the call's clock stops while they answer
        scope = entry.scope
        deadline = scope.deadline if scope is not None else math.inf
        if scope is not None:
            scope.deadline = math.inf
        try:
            action, content, reason = await entry.ask(params.message, params.requested_schema)
        finally:
            if scope is not None:
                scope.deadline = deadline + (trio.current_time() - started)
        if action != "accept":
            if reason:
                self._note(f"[bridge] the user's answer: {action} ({reason})")
            return types.ElicitResult(action="cancel" if action == "cancel" else "decline")
        return types.ElicitResult(action="accept", content=content)
