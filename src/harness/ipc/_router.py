"""Which function answers which request type, on either end of a channel."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

import attrs

from harness.ipc._messages import Message

__all__ = ["Emit", "Handler", "Route", "Router", "StreamHandler"]

M = TypeVar("M", bound=Message)
Emit = Callable[[Message], Awaitable[None]]
Handler = Callable[[Message], Awaitable[Message]]
StreamHandler = Callable[[Message, Emit], Awaitable[None]]


@attrs.frozen
class Route:
    """How one request type is answered: one of the two is set."""

    reply: Handler | None = None
    stream: StreamHandler | None = None


class Router:
    """Maps request message classes to their handlers.

    A plain handler answers one reply; a stream handler is given ``emit`` and sends
    any number of items, the stream ending when it returns.
    """

    def __init__(self) -> None:
        self._routes: dict[type[Message], Route] = {}

    def handle(
        self, msg_type: type[M]
    ) -> Callable[[Callable[[M], Awaitable[Message]]], Callable[[M], Awaitable[Message]]]:
        """Decorator: ``fn(request) -> reply`` answers *msg_type*."""

        def register(fn: Callable[[M], Awaitable[Message]]) -> Callable[[M], Awaitable[Message]]:
            self.add_handler(msg_type, fn)
            return fn

        return register

    def stream(
        self, msg_type: type[M]
    ) -> Callable[[Callable[[M, Emit], Awaitable[None]]], Callable[[M, Emit], Awaitable[None]]]:
        """Decorator: ``fn(request, emit)`` answers *msg_type* with a stream of items."""

        def register(
            fn: Callable[[M, Emit], Awaitable[None]],
        ) -> Callable[[M, Emit], Awaitable[None]]:
            self.add_stream(msg_type, fn)
            return fn

        return register

    def add_handler(self, msg_type: type[M], fn: Callable[[M], Awaitable[Message]]) -> None:
        """Answer *msg_type* with ``fn(request) -> reply``, replacing any earlier handler."""
        # Only messages of msg_type (or a subclass) are routed to fn: see lookup().
        self._routes[msg_type] = Route(reply=cast(Handler, fn))

    def add_stream(self, msg_type: type[M], fn: Callable[[M, Emit], Awaitable[None]]) -> None:
        """Answer *msg_type* with ``fn(request, emit)``, replacing any earlier handler."""
        self._routes[msg_type] = Route(stream=cast(StreamHandler, fn))

    def lookup(self, msg: Message) -> Route | None:
        """The route for *msg*'s class (or the nearest registered base class)."""
        for cls in type(msg).__mro__:
            found = self._routes.get(cls)
            if found is not None:
                return found
        return None
