"""One outgoing call's bookkeeping, and the iterator a streamed reply is read through."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import trio

from harness.ipc._errors import RemoteError, RequestTimeout
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


def cancelled_by_deadline(failure: Exception, timeout: float | None) -> bool:
    """Whether *failure* is the peer giving up at the deadline we sent it.

    The peer's deadline is ours, started a little later: when both pass in the
    same moment its ``Cancelled`` may arrive before our own timer fires. Either
    way the caller sees one thing, a :class:`RequestTimeout`.
    """
    return (
        timeout is not None
        and isinstance(failure, RemoteError)
        and failure.type_name == "Cancelled"
    )


class _Call:
    """One outgoing request, from send until its final frame (or abort).

    A one-shot call keeps its reply in a slot; only a stream pays for a memory
    channel, and only a call somebody waits on without reading pays for an event
    (the per-call cost is on every round trip).
    """

    __slots__ = (
        "_done",
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
        self._done: trio.Event | None = None

    def finish(self, failure: Exception | None = None, reply: Message | None = None) -> None:
        if self.finished:
            return
        self.finished = True
        self.failure = failure
        self.reply = reply
        if self.send is not None:
            self.send.close()
        if self._done is not None:
            self._done.set()

    async def wait(self) -> None:
        """Wait until the call is finished (a checkpoint even if it is)."""
        if self._done is None:
            if self.finished:
                await trio.lowlevel.checkpoint()
                return
            self._done = trio.Event()
        await self._done.wait()

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
        with trio.move_on_at(self._deadline):
            try:
                return await call.recv.receive()
            except trio.EndOfChannel:
                failure = call.failure
                if failure is None:
                    raise StopAsyncIteration from None
                if not cancelled_by_deadline(failure, self._timeout):
                    raise failure from None
        # Our deadline passed, or the peer's (the same one) did first.
        raise RequestTimeout(
            worker=self._channel.name, request=call.request, timeout=self._timeout or 0.0
        )
