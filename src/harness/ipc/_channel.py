"""A framed, typed, bidirectional message channel over one byte stream.

Both ends of a worker's socketpair hold a :class:`Channel`. Either end may send
requests (answered by the other end's :class:`Router`) and many calls may be in
flight at once, correlated by id. Leaving a caller's cancel scope, or its timeout,
sends ``Cancel(id)``: the peer cancels that one handler.

A round trip is what every tool call and model turn pays, so the hot path is
kept to the minimum of scheduler passes: frames go out with one ``send`` on the
non-blocking socket (a task waits for the socket only when its buffer is full),
the reader drains the socket without a checkpoint per read, and requests are
served by a small pool of long-lived tasks rather than a new task per request.

The channel never decides what a closed peer *means*: :meth:`Channel.run` returns
when the stream ends (``None``) or a frame breaks the protocol (the
:class:`ProtocolError`), and the owner then calls :meth:`Channel.abort` with the
error every pending call should see (the supervisor builds a
:class:`~harness.ipc.WorkerDied` with the exit code; a worker uses
:class:`~harness.ipc.ChannelClosed`).
"""

from __future__ import annotations

import errno
import itertools
import math
import socket
import traceback
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from harness.ipc._call import ChannelStatistics, MessageStream, _Call
from harness.ipc._envelope import (
    BadBody,
    Cancel,
    Envelope,
    Error,
    Hello,
    Ping,
    Pong,
    Reply,
    Request,
    Shutdown,
    StreamEnd,
    StreamItem,
    decode_envelope,
    encode_envelope,
)
from harness.ipc._errors import IpcError, ProtocolError, RemoteError, RequestTimeout
from harness.ipc._framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame
from harness.ipc._messages import Message
from harness.ipc._router import Router

__all__ = ["Channel", "ChannelStatistics", "Control", "MessageStream"]


Control = Ping | Pong | Hello | Shutdown
_READ_SIZE = 64 * 1024
# Idle serving tasks kept for the next requests; more than this many end when idle.
_IDLE_SERVERS = 8
# What a send or receive raises once the peer has gone or the socket is closed.
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)
_Served = tuple[Request, Callable[..., Awaitable[Any]], bool]


class Channel:
    """Typed request/reply and streams over a byte stream.

    Args:
        sock: the connected, non-blocking socket (a socketpair end). The channel
            owns it from here on: :meth:`aclose` closes it.
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
        self.name = name
        self.max_frame = max_frame
        sock.setblocking(False)
        self._sock = sock
        self._read_buf = bytearray(_READ_SIZE)
        self._router = router or Router()
        self._stream_buffer = stream_buffer
        self._cancel_grace = cancel_grace
        self._on_cancel_ignored = on_cancel_ignored
        self._on_control = on_control
        self._decoder = FrameDecoder(max_frame)
        self._send_lock = trio.StrictFIFOLock()
        self._ids = itertools.count(1)
        self._calls: dict[int, _Call] = {}
        self._serving: dict[int, trio.CancelScope] = {}
        self._queue: deque[_Served] = deque()
        self._idle = trio.lowlevel.ParkingLot()
        self._nursery: trio.Nursery | None = None
        self._closed: Exception | None = None
        self._sent = 0
        self._received = 0
        self._dropped = 0

    # ------------------------------------------------------------------ running

    async def run(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> ProtocolError | None:
        """Read frames until the stream ends; serve requests in child tasks.

        Returns ``None`` when the peer closed the stream, or the
        :class:`ProtocolError` that broke it. Handlers still running are cancelled
        on return; pending calls wait for :meth:`abort`.
        """
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            try:
                return await self._read_loop()
            finally:
                nursery.cancel_scope.cancel()

    async def _read_loop(self) -> ProtocolError | None:
        sock = self._sock
        buf = self._read_buf
        view = memoryview(buf)
        while True:
            try:
                n = sock.recv_into(buf)
            except BlockingIOError:
                try:
                    await trio.lowlevel.wait_readable(sock)
                except trio.ClosedResourceError:
                    return None
                continue
            except (*_GONE, OSError):
                return None
            if not n:
                return None
            try:
                payloads = self._decoder.feed(view[:n])
            except ProtocolError as exc:
                return exc
            for payload in payloads:
                self._received += 1
                try:
                    env = decode_envelope(payload)
                except ProtocolError as exc:
                    return exc
                await self._dispatch(env)

    async def _dispatch(self, env: Envelope | BadBody) -> None:
        if isinstance(env, StreamItem):
            call = self._calls.get(env.id)
            if call is None or call.finished or call.send is None:
                self._dropped += 1
                return
            try:
                call.send.send_nowait(env.body)
            except trio.WouldBlock:
                try:  # the consumer is behind: stop reading until it catches up
                    await call.send.send(env.body)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    self._dropped += 1
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._dropped += 1  # the consumer walked away; the cancel is on its way
        elif isinstance(env, Reply):
            call = self._calls.pop(env.id, None)
            if call is None or call.stream:
                self._dropped += 1
                return
            call.finish(reply=env.body)
        elif isinstance(env, StreamEnd):
            call = self._calls.pop(env.id, None)
            if call is None:
                self._dropped += 1
                return
            call.finish()
        elif isinstance(env, Error):
            call = self._calls.pop(env.id, None)
            if call is None:
                self._dropped += 1
                return
            call.finish(RemoteError(self.name, env.type_name, env.message, env.traceback))
        elif isinstance(env, Request):
            self._start_serving(env)
        elif isinstance(env, Cancel):
            scope = self._serving.get(env.id)
            if scope is not None:
                scope.cancel()
        elif isinstance(env, BadBody):
            await self._bad_body(env)
        elif self._on_control is not None:
            await self._on_control(env)

    async def _bad_body(self, env: BadBody) -> None:
        if env.kind == "q":
            await self._send_quiet(Error(env.id, "ProtocolError", str(env.error)))
            return
        call = self._calls.pop(env.id, None)
        if call is None:
            self._dropped += 1
            return
        call.finish(ProtocolError(f"{self.name} answered {call.request} with {env.error}"))
        if call.stream:
            await self._send_quiet(Cancel(call.id))

    # ------------------------------------------------------------------ serving

    def _start_serving(self, req: Request) -> None:
        assert self._nursery is not None
        found = self._router.lookup(req.body)
        if found is None:
            self._nursery.start_soon(
                self._send_quiet,
                Error(req.id, "UnknownRequest", f"no handler for {type(req.body).TAG!r}"),
            )
            return
        self._queue.append((req, found[0], found[1]))
        if len(self._idle):
            self._idle.unpark()
        else:
            self._nursery.start_soon(self._server)

    async def _server(self) -> None:
        """Serve queued requests one at a time until cancelled or idle for long.

        The task's one cancel scope stands for the request it is serving: a
        ``Cancel`` or the request's timeout cancels it, and the task ends after
        answering ``Cancelled`` (the next request gets a fresh task). A scope per
        task rather than per request keeps a round trip to one task switch.
        """
        current: int | None = None
        with trio.CancelScope() as scope:
            while not scope.cancel_called:
                if not self._queue:
                    if len(self._idle) >= _IDLE_SERVERS:
                        return
                    await self._idle.park()
                    continue
                req, fn, is_stream = self._queue.popleft()
                current = req.id
                self._serving[current] = scope
                if req.timeout is not None:
                    scope.deadline = trio.current_time() + req.timeout
                try:
                    failure = await self._serve(req, fn, is_stream)
                finally:
                    self._serving.pop(current, None)
                # No checkpoint since the handler returned: a cancel cannot land between.
                current = None
                scope.deadline = math.inf
                if failure is not None:
                    await self._send_quiet(failure)
        if scope.cancelled_caught and current is not None:
            await self._send_quiet(
                Error(current, "Cancelled", "cancelled by the caller or its deadline")
            )

    async def _serve(
        self, req: Request, fn: Callable[..., Awaitable[Any]], is_stream: bool
    ) -> Error | None:
        try:
            if is_stream:

                async def emit(item: Message) -> None:
                    await self._send(StreamItem(req.id, item))
                    # A handler that only emits must still see a cancel, and let
                    # the other tasks run.
                    await trio.lowlevel.checkpoint()

                await fn(req.body, emit)
                await self._send(StreamEnd(req.id))
            else:
                result = await fn(req.body)
                if not isinstance(result, Message):
                    raise TypeError(
                        f"handler for {type(req.body).TAG!r} returned "
                        f"{type(result).__name__}, not a Message"
                    )
                await self._send(Reply(req.id, result))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None  # the peer is gone; nobody is waiting for the answer
        except Exception as exc:
            return Error(
                req.id,
                type(exc).__name__,
                str(exc),
                "".join(traceback.format_exception(exc)),
            )
        return None

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
            await self._send_request(call, Request(call.id, msg, stream=False, timeout=timeout))
            if timeout is None:
                await call.acked.wait()
            else:
                with trio.move_on_after(timeout):
                    await call.acked.wait()
            if call.reply is not None:
                return call.reply
            if call.failure is not None:
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
        call = self._open(msg, stream=True)
        try:
            await self._send_request(call, Request(call.id, msg, stream=True, timeout=timeout))
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
            await call.acked.wait()
            return
        if self._closed is None and self._on_cancel_ignored is not None:
            self._on_cancel_ignored(call.request)

    # ------------------------------------------------------------------ sending

    async def _send(self, env: Envelope) -> None:
        """Send one frame: at once when the socket takes it, else wait for room.

        Raises:
            trio.BrokenResourceError: the peer is gone.
            trio.ClosedResourceError: the socket was closed here.
            ProtocolError: the frame is over the limit or does not encode.
        """
        if self._closed is not None:
            raise self._closed
        data = encode_frame(encode_envelope(env), self.max_frame)
        lock = self._send_lock
        if not lock.locked():
            sent = self._send_some(data)
            if sent == len(data):
                self._sent += 1
                return
            # Part of the frame is out: the rest must follow before any other
            # frame, even if this task is cancelled meanwhile.
            lock.acquire_nowait()
            try:
                with trio.CancelScope(shield=True):
                    await self._send_rest(memoryview(data)[sent:])
            finally:
                lock.release()
        else:
            async with lock:
                with trio.CancelScope(shield=True):
                    await self._send_rest(memoryview(data))
        self._sent += 1

    def _send_some(self, data: bytes | memoryview) -> int:
        try:
            return self._sock.send(data)
        except BlockingIOError:
            return 0
        except _GONE as exc:
            raise trio.BrokenResourceError(f"{self.name}: the peer hung up") from exc
        except OSError as exc:
            if exc.errno == errno.EBADF:
                raise trio.ClosedResourceError(f"{self.name}: the channel is closed") from None
            raise trio.BrokenResourceError(f"{self.name}: {exc}") from exc

    async def _send_rest(self, data: memoryview) -> None:
        while data:
            sent = self._send_some(data)
            data = data[sent:]
            if data:
                await trio.lowlevel.wait_writable(self._sock)

    async def _send_quiet(self, env: Envelope) -> None:
        try:
            await self._send(env)
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
        calls, self._calls = self._calls, {}
        for call in calls.values():
            call.finish(error)
        for scope in self._serving.values():
            scope.cancel()

    async def aclose(self) -> None:
        """Close the socket: a task waiting on it wakes, later sends fail."""
        if self._sock.fileno() != -1:
            trio.lowlevel.notify_closing(self._sock)
            self._sock.close()
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
