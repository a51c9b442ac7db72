"""Which function answers which request type, on either end of a channel."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from harness.ipc._messages import Message

__all__ = ["Emit", "Handler", "Router", "StreamHandler"]

M = TypeVar("M", bound=Message)
Emit = Callable[[Message], Awaitable[None]]
Handler = Callable[[Any], Awaitable[Message]]
StreamHandler = Callable[[Any, Emit], Awaitable[None]]


class Router:
    """Maps request message classes to their handlers.

    A plain handler answers one reply; a stream handler is given ``emit`` and sends
    any number of items, the stream ending when it returns.
    """

    def __init__(self) -> None:
        self._handlers: dict[type[Message], tuple[Callable[..., Awaitable[Any]], bool]] = {}

    def handle(self, msg_type: type[M]) -> Callable[[Callable[[M], Awaitable[Message]]], Any]:
        """Decorator: ``fn(request) -> reply`` answers *msg_type*."""

        def register(fn: Callable[[M], Awaitable[Message]]) -> Callable[[M], Awaitable[Message]]:
            self.add(msg_type, fn, stream=False)
            return fn

        return register

    def stream(self, msg_type: type[M]) -> Callable[[Callable[[M, Emit], Awaitable[None]]], Any]:
        """Decorator: ``fn(request, emit)`` answers *msg_type* with a stream of items."""

        def register(
            fn: Callable[[M, Emit], Awaitable[None]],
        ) -> Callable[[M, Emit], Awaitable[None]]:
            self.add(msg_type, fn, stream=True)
            return fn

        return register

    def add(
        self, msg_type: type[Message], fn: Callable[..., Awaitable[Any]], *, stream: bool
    ) -> None:
        """Register *fn* for *msg_type*, replacing any earlier handler."""
        self._handlers[msg_type] = (fn, stream)

    def lookup(self, msg: Message) -> tuple[Callable[..., Awaitable[Any]], bool] | None:
        """The handler for *msg*'s class (or the nearest registered base class)."""
        for cls in type(msg).__mro__:
            found = self._handlers.get(cls)
            if found is not None:
                return found
        return None
