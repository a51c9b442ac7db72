"""A framed, typed, bidirectional message channel over one byte stream.

Both ends of a worker's socketpair hold a :class:`Channel`. Either end may send
requests (answered by the other end's :class:`Router`) and many calls may be in
flight at once, correlated by id. Leaving a caller's cancel scope, or its timeout,
sends ``Cancel(id)``: the peer cancels that one handler. Who reads the socket and
how requests are served is in :mod:`harness.ipc._lanes`.

The channel never decides what a closed peer *means*: :meth:`Channel.run` returns
when the stream ends (``None``) or a frame breaks the protocol (the
:class:`ProtocolError`), and the owner then calls :meth:`Channel.abort` with the
error every pending call should see (the supervisor builds a
:class:`~harness.ipc.WorkerDied` with the exit code; a worker uses
:class:`~harness.ipc.ChannelClosed`).
"""

from __future__ import annotations

import itertools
import math
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import trio

from harness.ipc._call import ChannelStatistics, MessageStream, _Call, cancelled_by_deadline
from harness.ipc._envelope import Cancel, Request
from harness.ipc._errors import ProtocolError, RequestTimeout
from harness.ipc._framing import DEFAULT_MAX_FRAME
from harness.ipc._lanes import Control, Lanes
from harness.ipc._messages import Message
from harness.ipc._router import Router
from harness.ipc._wire import FrameSocket

__all__ = ["Channel", "ChannelStatistics", "Control", "MessageStream"]


class Channel(Lanes):
    """Typed request/reply and streams over a connected socket.

    Args:
        sock: the connected socket (a socketpair end). The channel owns it from
            here on: :meth:`aclose` closes it.
        name: the peer's name, used in every error (``"shell"``).
        router: handlers for requests the peer sends; ``None`` answers every
            request with an ``UnknownRequest`` error.
        max_frame: largest frame accepted or sent, in bytes (default 16 MiB).
        stream_buffer: items buffered per stream before the reader waits for the
            consumer (default 256): backpressure instead of unbounded memory.
        cancel_grace: seconds the peer has to acknowledge a cancel before
            ``on_cancel_ignored`` is called (default ``None``: never).
        on_cancel_ignored: called with the request type name when the peer did not
            acknowledge a cancel within ``cancel_grace``.
        on_control: awaited for every control frame (ping, pong, hello, shutdown).
    """

    def __init__(
        self,
        sock: socket.socket,
        *,
        name: str,
        router: Router | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        stream_buffer: int = 256,
        cancel_grace: float | None = None,
        on_cancel_ignored: Callable[[str], None] | None = None,
        on_control: Callable[[Control], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(
            FrameSocket(sock, name, max_frame), name=name, router=router, on_control=on_control
        )
        self.max_frame = max_frame
        self._stream_buffer = stream_buffer
        self._cancel_grace = cancel_grace
        self._on_cancel_ignored = on_cancel_ignored
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ running

    async def run(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> ProtocolError | None:
        """Read frames until the stream ends; serve requests meanwhile.

        Returns ``None`` when the peer closed the stream, or the
        :class:`ProtocolError` that broke it. Handlers still running are cancelled
        on return; pending calls wait for :meth:`abort`.
        """
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._lane)
            task_status.started()
            try:
                await self._ended.wait()
                return self._broken
            finally:
                self._nursery = None  # from here on nobody reads or serves
                nursery.cancel_scope.cancel()

    # ------------------------------------------------------------------ calling

    async def request(self, msg: Message, *, timeout: float | None = None) -> Message:
        """Send *msg* and wait for its one reply.

        Raises:
            RequestTimeout: no reply within *timeout* seconds (a cancel is sent).
            RemoteError: the peer's handler raised.
            ProtocolError: the reply did not decode, or *msg* is over the frame limit.
            IpcError: the channel was aborted (``WorkerDied``, ``ChannelClosed``).
        """
        call = self._open(msg, stream=False)
        try:
            await self._send_request(call, Request(call.id, msg, False, timeout))
            if timeout is None:
                await self._await_reply(call)
            else:
                with trio.move_on_after(timeout):
                    await self._await_reply(call)
            if call.reply is not None:
                return call.reply
            if call.failure is not None and not cancelled_by_deadline(call.failure, timeout):
                raise call.failure
            raise RequestTimeout(worker=self.name, request=call.request, timeout=timeout or 0.0)
        finally:
            if not call.finished:
                self._abandon(call)

    async def _await_reply(self, call: _Call) -> None:
        task = trio.lowlevel.current_task()
        if self._inline is task:
            self._inline = None  # a handler calling back: it leads as a caller now
        if self._nursery is not None and not self._eof and not call.finished:
            if self._leader is None:
                self._leader = task
            elif self._wait_scope is not None:
                # A lane is blocked on the socket: take it over. Its wait is
                # aborted at once, so the socket is free for ours now.
                self._wait_scope.cancel()
                self._wait_scope = None
                self._leader = task
        if self._leader is task:
            try:
                await self._lead_for(call, task)
            finally:
                if self._leader is task:
                    self._hand_over()
        if not call.finished:
            await call.wait()

    async def _lead_for(self, call: _Call, task: trio.lowlevel.Task) -> None:
        """Read and dispatch until *call* is answered or a frame needs a lane."""
        while not call.finished:
            while self._inbox:
                if not self._dispatch_now(self._inbox[0]):
                    return
                self._inbox.popleft()
                if call.finished:
                    return
            if self._eof:
                self._end()
                return
            if not self._fill():
                await self._wait_socket()
                if self._leader is not task:
                    return

    @asynccontextmanager
    async def stream(
        self, msg: Message, *, timeout: float | None = None
    ) -> AsyncIterator[MessageStream]:
        """Send *msg* and iterate the streamed reply::

            async with chan.stream(ChatRequest(...)) as items:
                async for item in items:
                    ...

        Leaving the block before the stream ends sends a cancel. *timeout* bounds
        the whole stream; errors are those of :meth:`request`, raised by the
        iteration.
        """
        call = self._open(msg, stream=True)
        try:
            await self._send_request(call, Request(call.id, msg, True, timeout))
            deadline = math.inf if timeout is None else trio.current_time() + timeout
            yield MessageStream(call, deadline, self, timeout)
        finally:
            if not call.finished:
                self._abandon(call)

    async def _send_request(self, call: _Call, req: Request) -> None:
        try:
            await self._send(req)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            # The peer is gone; its owner is about to abort() with the reason, which
            # is what the caller should see, so wait for that instead of raising this.
            pass

    def _open(self, msg: Message, *, stream: bool) -> _Call:
        if self._closed is not None:
            raise self._closed
        self._callers_seen = True
        call = _Call(next(self._ids), type(msg).TAG, stream, self._stream_buffer if stream else 1)
        self._calls[call.id] = call
        return call

    def _abandon(self, call: _Call) -> None:
        call.walk_away()
        if self._nursery is None or self._closed is not None:
            self._calls.pop(call.id, None)
            return
        self._nursery.start_soon(self._cancel_call, call)

    async def _cancel_call(self, call: _Call) -> None:
        await self._send_quiet(Cancel(call.id))
        if self._cancel_grace is None:
            return
        with trio.move_on_after(self._cancel_grace):
            await call.wait()
            return
        if self._closed is None and self._on_cancel_ignored is not None:
            self._on_cancel_ignored(call.request)

    async def send_control(self, env: Control) -> None:
        """Send a control frame (ping, pong, hello, shutdown); errors are swallowed."""
        await self._send_quiet(env)

    # ------------------------------------------------------------------ closing

    def abort(self, error: Exception) -> None:
        """Fail every pending call with *error* and refuse new ones. Idempotent."""
        if self._closed is None:
            self._closed = error
        calls, self._calls = self._calls, {}
        for call in calls.values():
            call.finish(error)
        for scope in self._serving.values():
            scope.cancel()
        # A caller reading for its reply wakes when the socket ends or is closed
        # (the owner closes it after this), and finds its call finished.

    async def aclose(self) -> None:
        """Close the socket: whoever waits on it wakes, later sends fail."""
        self._wire.close()
        await trio.lowlevel.checkpoint()

    @property
    def closed(self) -> bool:
        """Whether :meth:`abort` was called."""
        return self._closed is not None

    def statistics(self) -> ChannelStatistics:
        """Counters for this channel."""
        return ChannelStatistics(
            calls_in_flight=len(self._calls),
            handlers_running=len(self._serving),
            frames_sent=self._sent,
            frames_received=self._received,
            frames_dropped=self._dropped,
        )
