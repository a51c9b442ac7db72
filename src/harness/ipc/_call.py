"""One outgoing call's bookkeeping, and the iterator a streamed reply is read through."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import trio

from harness.ipc._errors import RequestTimeout
from harness.ipc._messages import Message

if TYPE_CHECKING:
    from harness.ipc._channel import Channel

__all__ = ["ChannelStatistics", "MessageStream"]


@attrs.frozen
class ChannelStatistics:
    """Counters for one channel (``statistics()``)."""

    calls_in_flight: int
    handlers_running: int
    frames_sent: int
    frames_received: int
    frames_dropped: int


class _Call:
    """One outgoing request, from send until its final frame (or abort).

    A one-shot call keeps its reply in a slot and wakes on an event; only a
    stream pays for a memory channel (the per-call cost is on every round trip).
    """

    __slots__ = (
        "acked",
        "failure",
        "finished",
        "id",
        "recv",
        "reply",
        "request",
        "send",
        "stream",
    )

    def __init__(self, ident: int, request: str, stream: bool, buffer: int) -> None:
        self.id = ident
        self.request = request
        self.stream = stream
        self.send: trio.MemorySendChannel[Message] | None = None
        self.recv: trio.MemoryReceiveChannel[Message] | None = None
        if stream:
            self.send, self.recv = trio.open_memory_channel(buffer)
        self.reply: Message | None = None
        self.failure: Exception | None = None
        self.finished = False
        self.acked = trio.Event()

    def finish(self, failure: Exception | None = None, reply: Message | None = None) -> None:
        if self.finished:
            return
        self.finished = True
        self.failure = failure
        self.reply = reply
        if self.send is not None:
            self.send.close()
        self.acked.set()

    def walk_away(self) -> None:
        if self.recv is not None:
            self.recv.close()


class MessageStream:
    """The items of one streamed reply; iterate it with ``async for``."""

    def __init__(self, call: _Call, deadline: float, channel: Channel, timeout: float | None):
        self._call = call
        self._deadline = deadline
        self._channel = channel
        self._timeout = timeout

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        call = self._call
        assert call.recv is not None
        with trio.move_on_at(self._deadline) as scope:
            try:
                return await call.recv.receive()
            except trio.EndOfChannel:
                if call.failure is not None:
                    raise call.failure from None
                raise StopAsyncIteration from None
        assert scope.cancelled_caught
        raise RequestTimeout(
            worker=self._channel.name, request=call.request, timeout=self._timeout or 0.0
        )
