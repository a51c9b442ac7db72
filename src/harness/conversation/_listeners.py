"""Who hears a conversation's events: listeners called in order, and channels fed
from them."""

from __future__ import annotations

import math
from collections.abc import Callable

import trio

from harness.conversation import events as ev

__all__ = ["Listener", "Listeners"]

Listener = Callable[[ev.ConversationEvent], None]


class Listeners:
    """The listeners of one conversation (the session log is one)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call *listener* with every event from now on; returns an unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def channel(self) -> trio.MemoryReceiveChannel[ev.ConversationEvent]:
        """A channel that receives every event from now on (unbounded; close it when done)."""
        send, receive = trio.open_memory_channel[ev.ConversationEvent](math.inf)

        def listener(event: ev.ConversationEvent) -> None:
            try:
                send.send_nowait(event)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                unsubscribe()

        unsubscribe = self.subscribe(listener)
        return receive

    def __call__(self, event: ev.ConversationEvent) -> None:
        """Hand *event* to every listener."""
        for listener in list(self._listeners):
            listener(event)
