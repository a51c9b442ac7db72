"""The calls one end has sent: each call's state, the table of them, and the
iterator a streamed reply is read through."""

from __future__ import annotations

import itertools

import attrs
import trio

from harness.ipc._errors import ProtocolError, RemoteError, RequestTimeout
from harness.ipc._messages import Message

__all__ = ["ChannelStatistics", "MessageStream", "PendingCalls", "cancelled_by_deadline"]


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


class Call:
    """One outgoing request, from send until its final frame (or the channel's abort).

    A one-shot call ends with ``reply`` or ``failure`` set; a stream's items go
    through a memory channel (``items``) that closes when the call ends.
    """

    def __init__(self, ident: int, request: str, stream_buffer: int | None) -> None:
        self.id = ident
        self.request = request
        self.reply: Message | None = None
        self.failure: Exception | None = None
        self.done = trio.Event()
        self._send: trio.MemorySendChannel[Message] | None = None
        self.items: trio.MemoryReceiveChannel[Message] | None = None
        if stream_buffer is not None:
            self._send, self.items = trio.open_memory_channel[Message](stream_buffer)

    @property
    def stream(self) -> bool:
        """Whether the answer is a stream of items."""
        return self.items is not None

    @property
    def finished(self) -> bool:
        """Whether the call has its answer (or its failure)."""
        return self.done.is_set()

    def finish(self, failure: Exception | None = None, reply: Message | None = None) -> None:
        """End the call; later calls of this are ignored."""
        if self.done.is_set():
            return
        self.failure = failure
        self.reply = reply
        if self._send is not None:
            self._send.close()
        self.done.set()

    async def deliver(self, item: Message) -> bool:
        """Hand a stream item to the consumer, waiting while it is behind.

        ``False`` when nobody will read it (a one-shot call, a finished stream, a
        consumer that walked away).
        """
        if self._send is None or self.done.is_set():
            return False
        try:
            await self._send.send(item)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    def walk_away(self) -> None:
        """The caller stopped listening: items still arriving are dropped."""
        if self.items is not None:
            self.items.close()


class PendingCalls:
    """The calls sent and not yet answered, by id, and the frames that came too late.

    Args:
        name: the peer's name, for errors.
        stream_buffer: items buffered per stream before the reader waits for the
            consumer.
    """

    def __init__(self, name: str, stream_buffer: int) -> None:
        self._name = name
        self._stream_buffer = stream_buffer
        self._ids = itertools.count(1)
        self._calls: dict[int, Call] = {}
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._calls)

    def open(self, msg: Message, *, stream: bool) -> Call:
        """A new call for *msg*, waiting for its answer."""
        call = Call(next(self._ids), type(msg).TAG, self._stream_buffer if stream else None)
        self._calls[call.id] = call
        return call

    def pop(self, ident: int) -> Call | None:
        """Take call *ident* out of the table (it is answered or given up)."""
        call = self._calls.pop(ident, None)
        if call is None:
            self.dropped += 1  # an answer to a call nobody waits for any more
        return call

    def reply(self, ident: int, body: Message) -> None:
        """The one reply of call *ident*."""
        call = self.pop(ident)
        if call is not None:
            if call.stream:
                call.finish(ProtocolError(f"{self._name} answered {call.request} with one reply"))
            else:
                call.finish(reply=body)

    async def item(self, ident: int, body: Message) -> None:
        """One item of stream *ident*; waits while its consumer is behind."""
        call = self._calls.get(ident)
        if call is None or not await call.deliver(body):
            self.dropped += 1

    def end(self, ident: int) -> None:
        """Stream *ident* ended."""
        call = self.pop(ident)
        if call is not None:
            call.finish()

    def fail(self, ident: int, error: Exception) -> None:
        """Call *ident* failed with *error*."""
        call = self.pop(ident)
        if call is not None:
            call.finish(error)

    def discard(self, call: Call) -> None:
        """Forget *call* without counting anything (its caller gave up)."""
        self._calls.pop(call.id, None)

    def abort(self, error: Exception) -> None:
        """Fail every call with *error*."""
        calls, self._calls = self._calls, {}
        for call in calls.values():
            call.finish(error)


class MessageStream:
    """The items of one streamed reply; iterate it with ``async for``."""

    def __init__(self, call: Call, deadline: float, worker: str, timeout: float | None):
        assert call.items is not None
        self._call = call
        self._items = call.items
        self._deadline = deadline
        self._worker = worker
        self._timeout = timeout

    def __aiter__(self) -> MessageStream:
        return self

    async def __anext__(self) -> Message:
        with trio.move_on_at(self._deadline):
            try:
                return await self._items.receive()
            except trio.EndOfChannel:
                failure = self._call.failure
                if failure is None:
                    raise StopAsyncIteration from None
                if not cancelled_by_deadline(failure, self._timeout):
                    raise failure from None
        # Our deadline passed, or the peer's (the same one) did first.
        raise RequestTimeout(
            worker=self._worker, request=self._call.request, timeout=self._timeout or 0.0
        )
