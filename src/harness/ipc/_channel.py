"""A framed, typed, bidirectional message channel over one socket.

Both ends of a worker's socketpair hold a :class:`Channel`. Either end may send
requests (answered by the other end's :class:`Router`) and many calls may be in
flight at once, correlated by id. Leaving a caller's cancel scope, or its timeout,
sends ``Cancel(id)``: the peer cancels that one handler.

Inside, it is plain trio. Tasks called *lanes* take turns reading the socket,
one at a time. The lane that reads hands each reply to the call waiting for it
(:mod:`._call`); when it reads a request, it passes the reading to an idle lane
(or starts one) and serves that request itself (:mod:`._server`), so a quick
handler's reply goes out at once and a slow one holds up nothing. Every send and
every request is a checkpoint.

The channel never decides what a closed peer *means*: :meth:`Channel.run` returns
when the stream ends (``None``) or a frame breaks the protocol (the
:class:`ProtocolError`), and the owner then calls :meth:`Channel.abort` with the
error every pending call should see (the supervisor builds a
:class:`~harness.ipc.WorkerDied` with the exit code; a worker uses
:class:`~harness.ipc.ChannelClosed`).
"""

from __future__ import annotations

import math
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import trio

from harness.ipc._call import (
    Call,
    ChannelStatistics,
    MessageStream,
    PendingCalls,
    cancelled_by_deadline,
)
from harness.ipc._envelope import (
    BadBody,
    Cancel,
    Control,
    Envelope,
    Error,
    Reply,
    Request,
    StreamEnd,
    StreamItem,
    decode_envelope,
    encode_envelope,
)
from harness.ipc._errors import IpcError, ProtocolError, RemoteError, RequestTimeout
from harness.ipc._framing import DEFAULT_MAX_FRAME
from harness.ipc._messages import Message
from harness.ipc._router import Router
from harness.ipc._server import RequestServer
from harness.ipc._wire import FrameSocket

__all__ = ["Channel", "ChannelStatistics", "MessageStream"]

#: Idle lanes kept after a burst of requests; more idle than this end.
SPARE_LANES = 4
#: Bytes a ``Cancel`` frame's payload takes at most (``{"k":"c","i":<id>}``, some spaces).
_CANCEL_SIZE = 64


class Channel:
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
        on_control: awaited by the reader for every control frame (ping, pong,
            hello, shutdown); nothing else is read meanwhile, so it must be quick.
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
        self.name = name
        self.max_frame = max_frame
        self._wire = FrameSocket(sock, name, max_frame)
        self._calls = PendingCalls(name, stream_buffer)
        self._server = RequestServer(router or Router(), self._send, self._send_quiet)
        self._cancel_grace = cancel_grace
        self._on_cancel_ignored = on_cancel_ignored
        self._on_control = on_control
        self._nursery: trio.Nursery | None = None
        self._closed: Exception | None = None
        self._sent = 0
        self._received = 0
        self._unread: deque[bytes] = deque()  # frames read and not yet dispatched
        self._cancels_ahead: set[int] = set()  # ids whose Cancel is read, not yet dispatched
        self._idle_lanes = trio.lowlevel.ParkingLot()  # lanes waiting for their turn to read
        self._ended = trio.Event()
        self._end: ProtocolError | None = None

    # ------------------------------------------------------------------ reading

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
                return self._end
            finally:
                self._nursery = None  # from here on nobody serves or sends cancels
                nursery.cancel_scope.cancel()

    async def _lane(self) -> None:
        """Read until a request comes, hand the reading on, serve the request; again.

        One lane at a time reads. The one that reads a request serves it itself,
        so a quick handler's reply goes out at once; the reading goes on in an idle
        lane (or a new one), so a slow handler never holds up the next frame.
        """
        while True:
            req = await self._read_until_request()
            if req is None:
                return
            self._hand_on_reading()
            await self._server.serve(req, cancelled=req.id in self._cancels_ahead)
            if len(self._idle_lanes) >= SPARE_LANES:
                return  # enough others wait to read
            await self._idle_lanes.park()  # the yield its answer's send left out

    def _note_cancels(self, payloads: list[bytes]) -> None:
        """Note the cancels among frames read together, before any of them is served: a
        caller that walks away at once sends its request and the ``Cancel`` back to back.
        Heard in its turn, the cancel would reach the handler only at its first
        checkpoint, after a stream's first item or a quick handler's whole answer. One
        look at each frame; only one small enough to be a cancel, and naming one, is
        decoded."""
        for payload in payloads:
            if len(payload) > _CANCEL_SIZE or b'"c"' not in payload:
                continue
            try:
                env = decode_envelope(payload)
            except ProtocolError:
                return  # nothing after it is read: the channel ends there
            if isinstance(env, Cancel):
                self._cancels_ahead.add(env.id)

    def _hand_on_reading(self) -> None:
        if self._idle_lanes:
            self._idle_lanes.unpark()
        elif self._nursery is not None:
            self._nursery.start_soon(self._lane)

    async def _read_until_request(self) -> Request | None:
        """Dispatch frames until one is a request; ``None`` once the stream ended."""
        while True:
            if not self._unread:
                try:
                    payloads = await self._wire.receive()
                except ProtocolError as exc:
                    self._ends(exc)
                    return None
                if payloads is None:
                    self._ends(None)
                    return None
                self._unread.extend(payloads)
                if len(payloads) > 1:
                    self._note_cancels(payloads)
            self._received += 1
            try:
                env = decode_envelope(self._unread.popleft())
            except ProtocolError as exc:
                self._ends(exc)
                return None
            if isinstance(env, Request):
                return env
            await self._dispatch(env)

    def _ends(self, error: ProtocolError | None) -> None:
        """The stream ended (``None``: closed) or broke (*error*): :meth:`run` returns."""
        self._end = error
        self._ended.set()

    async def _dispatch(
        self, env: Reply | StreamItem | StreamEnd | Error | Cancel | BadBody | Control
    ) -> None:
        if isinstance(env, Reply):
            self._calls.reply(env.id, env.body)
        elif isinstance(env, StreamItem):
            await self._calls.item(env.id, env.body)  # waits while the consumer is behind
        elif isinstance(env, StreamEnd):
            self._calls.end(env.id)
        elif isinstance(env, Error):
            error = RemoteError(self.name, env.type_name, env.message, env.traceback)
            self._calls.fail(env.id, error)
        elif isinstance(env, Cancel):
            # heard in its turn: a request read after it with the same id is a new one
            self._cancels_ahead.discard(env.id)
            self._server.cancel(env.id)
        elif isinstance(env, BadBody):
            self._bad_body(env)
        elif self._on_control is not None:
            await self._on_control(env)

    def _bad_body(self, env: BadBody) -> None:
        """A frame whose message does not decode fails its one call, not the channel."""
        if env.kind == "q":
            self._send_soon(Error(env.id, "ProtocolError", str(env.error)))
            return
        call = self._calls.pop(env.id)
        if call is None:
            return
        call.finish(ProtocolError(f"{self.name} answered {call.request} with {env.error}"))
        if call.stream:
            self._send_soon(Cancel(call.id))

    def _send_soon(self, env: Envelope) -> None:
        """Send *env* from a task of its own, unless :meth:`run` is over (nobody to tell)."""
        if self._nursery is not None:
            self._nursery.start_soon(self._send_quiet, env)

    # ------------------------------------------------------------------ calling

    async def request(self, msg: Message, *, timeout: float | None = None) -> Message:
        """Send *msg* and wait for its one reply.

        Raises:
            RequestTimeout: no reply within *timeout* seconds (a cancel is sent).
            RemoteError: the peer's handler raised.
            ProtocolError: the reply did not decode, or *msg* is over the frame limit.
            IpcError: the channel was aborted (``WorkerDied``, ``ChannelClosed``).
        """
        call = await self._open(msg, stream=False)
        try:
            # No yield after the send: waiting for the reply is this call's yield.
            await self._send_request(Request(call.id, msg, False, timeout), then_yield=False)
            if timeout is None:
                await call.done.wait()
            else:
                with trio.move_on_after(timeout):
                    await call.done.wait()
            if call.reply is not None:
                return call.reply
            if call.failure is not None and not cancelled_by_deadline(call.failure, timeout):
                raise call.failure
            raise RequestTimeout(worker=self.name, request=call.request, timeout=timeout or 0.0)
        finally:
            if not call.finished:
                self._abandon(call)

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
        call = await self._open(msg, stream=True)
        try:
            await self._send_request(Request(call.id, msg, True, timeout))
            deadline = math.inf if timeout is None else trio.current_time() + timeout
            yield MessageStream(call, deadline, self.name, timeout)
        finally:
            if not call.finished:
                self._abandon(call)

    async def _open(self, msg: Message, *, stream: bool) -> Call:
        if self._closed is not None:
            await trio.lowlevel.checkpoint()
            raise self._closed
        return self._calls.open(msg, stream=stream)

    async def _send_request(self, req: Request, *, then_yield: bool = True) -> None:
        try:
            await self._send(req, then_yield=then_yield)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            # The peer is gone; its owner is about to abort() with the reason, which
            # is what the caller should see, so wait for that instead of raising this.
            pass

    def _abandon(self, call: Call) -> None:
        """The caller gave up on *call*: tell the peer, unless nobody is left to."""
        call.walk_away()
        if self._nursery is None or self._closed is not None:
            self._calls.discard(call)
            return
        self._nursery.start_soon(self._cancel_call, call)

    async def _cancel_call(self, call: Call) -> None:
        await self._send_quiet(Cancel(call.id))
        if self._cancel_grace is None:
            return
        with trio.move_on_after(self._cancel_grace):
            await call.done.wait()
            return
        if self._closed is None and self._on_cancel_ignored is not None:
            self._on_cancel_ignored(call.request)

    # ------------------------------------------------------------------ sending

    async def _send(self, env: Envelope, *, then_yield: bool = True) -> None:
        if self._closed is not None:
            await trio.lowlevel.checkpoint()
            raise self._closed
        await self._wire.send(encode_envelope(env), then_yield=then_yield)
        self._sent += 1

    async def _send_quiet(self, env: Envelope, *, then_yield: bool = True) -> None:
        """Send *env* if the channel still can; nobody is left to tell if it cannot."""
        try:
            await self._send(env, then_yield=then_yield)
        except (IpcError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def send_control(self, env: Control) -> None:
        """Send a control frame (ping, pong, hello, shutdown); errors are swallowed."""
        await self._send_quiet(env)

    # ------------------------------------------------------------------ closing

    def abort(self, error: Exception) -> None:
        """Fail every pending call with *error* and refuse new ones. Idempotent."""
        if self._closed is None:
            self._closed = error
        self._calls.abort(error)
        self._server.cancel_all()

    async def aclose(self) -> None:
        """Close the socket: the reader wakes, later sends fail."""
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
            handlers_running=len(self._server),
            frames_sent=self._sent,
            frames_received=self._received,
            frames_dropped=self._calls.dropped,
        )
