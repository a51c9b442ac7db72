"""The read side of a channel: who reads the socket, and the lanes that serve requests.

A round trip is what every tool call and model turn pays, so it costs one task
switch on each side, as a bare socket ping-pong does. Nobody owns the socket's
read side: whichever task needs a frame reads it (the "leader"), and the others
park until it hands over.

- A *lane* is a long-lived task that leads while nothing else does. When it reads
  a request it serves it itself, so the reply goes out in the same scheduler
  pass the request came in; only if the handler has to wait does the lead pass
  to another lane (see :func:`~harness.ipc._coro.until_it_blocks`).
- A caller of :meth:`~harness.ipc.Channel.request` takes the lead while it waits
  (taking it from a lane blocked on the socket), so its reply wakes it directly
  instead of a reader task that would then wake it. It hands over as soon as its
  reply is in, or when a frame needs a lane (a request, a control frame).
"""

from __future__ import annotations

import math
import traceback
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from harness.ipc._call import _Call
from harness.ipc._coro import until_it_blocks
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
from harness.ipc._errors import IpcError, ProtocolError, RemoteError
from harness.ipc._messages import Message
from harness.ipc._router import Router
from harness.ipc._wire import FrameSocket

__all__ = ["Control", "Lanes"]

Control = Ping | Pong | Hello | Shutdown
# Idle lanes kept for the next requests; a lane with this many idle beside it ends.
_IDLE_LANES = 8
_Served = tuple[Request, Callable[..., Awaitable[Any]], bool]


class Lanes:
    """The state both sides of a channel share, and its reading and serving half.

    :class:`~harness.ipc.Channel` adds the calling half and the public API.
    """

    def __init__(
        self,
        wire: FrameSocket,
        *,
        name: str,
        router: Router | None,
        on_control: Callable[[Control], Awaitable[None]] | None,
    ) -> None:
        self.name = name
        self._wire = wire
        self._router = router or Router()
        self._on_control = on_control
        self._calls: dict[int, _Call] = {}
        self._serving: dict[int, trio.CancelScope] = {}
        # Reading: frames read and decoded but not dispatched yet, who reads now,
        # the scope of its wait on the socket, and the lanes waiting to lead.
        self._inbox: deque[Envelope | BadBody] = deque()
        self._leader: trio.lowlevel.Task | None = None
        self._wait_scope: trio.CancelScope | None = None
        self._inline: trio.lowlevel.Task | None = None  # a lane serving while it leads
        self._callers_seen = False
        self._followers: deque[trio.lowlevel.Task] = deque()
        self._eof = False
        self._broken: ProtocolError | None = None
        self._ended = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._closed: Exception | None = None
        self._sent = 0
        self._received = 0
        self._dropped = 0

    # ------------------------------------------------------------------ reading

    def _fill(self) -> bool:
        """Move what has arrived into the inbox; ``False`` if nothing has."""
        try:
            payloads = self._wire.receive_nowait()
        except BlockingIOError:
            return False
        except ProtocolError as exc:
            self._eof, self._broken = True, exc
            return True
        if payloads is None:
            self._eof = True
            return True
        for payload in payloads:
            self._received += 1
            try:
                self._inbox.append(decode_envelope(payload))
            except ProtocolError as exc:
                self._eof, self._broken = True, exc
                break
        return True

    async def _wait_socket(self) -> None:
        if not await self._wire.wait_readable():
            self._eof = True

    async def _lane_wait_socket(self) -> None:
        if not self._callers_seen:
            # Nobody here has made a request: nobody will take the socket over.
            await self._wait_socket()
            return
        # In a scope of its own, so a caller can take the socket over.
        with trio.CancelScope() as scope:
            self._wait_scope = scope
            try:
                await self._wait_socket()
            finally:
                if self._wait_scope is scope:
                    self._wait_scope = None

    def _end(self) -> None:
        self._ended.set()
        while self._followers:
            trio.lowlevel.reschedule(self._followers.popleft())

    def _hand_over(self) -> None:
        """Give up the lead to a parked lane (or a new one)."""
        self._leader = None
        nursery = self._nursery
        if nursery is None or self._ended.is_set():
            return  # the channel is ending: nobody needs to read
        if self._followers:
            trio.lowlevel.reschedule(self._followers.popleft())
        else:
            nursery.start_soon(self._lane)

    # ------------------------------------------------------------------ lanes

    async def _lane(self) -> None:
        """Lead while nobody else does; serve each request read, one at a time.

        The lane's one cancel scope stands for the request it is serving: a
        ``Cancel`` or the request's timeout cancels it, and the lane ends after
        answering ``Cancelled`` (a new lane takes its place when needed). A scope
        per lane rather than per request keeps a round trip to one task switch.
        """
        task = trio.lowlevel.current_task()
        current: int | None = None
        # The deadline of the request being served. A handler that answers without
        # waiting cannot be cancelled, so the scope gets it only when the handler
        # first waits: setting and clearing a scope's deadline costs more than the
        # rest of a round trip's bookkeeping.
        deadline = math.inf
        applied = False
        # Whether the handler waited. Only then can a cancel have reached the
        # scope (nothing else runs while a handler runs without waiting), so only
        # then is it worth asking the scope (which reads the clock to answer).
        waited = False

        def blocked() -> None:
            nonlocal applied, waited
            waited = True
            if deadline != math.inf:
                scope.deadline = deadline
                applied = True
            self._step_aside(task)

        with trio.CancelScope() as scope:
            while not self._ended.is_set():
                if self._leader is not None and self._leader is not task:
                    if len(self._followers) >= _IDLE_LANES:
                        return
                    await self._park(task)
                    continue
                self._leader = task
                try:
                    served = await self._lead(task)
                except BaseException:
                    if self._leader is task:
                        self._hand_over()
                    raise
                if served is None:
                    if self._leader is task:
                        self._hand_over()
                    continue
                req, fn, is_stream = served
                current = req.id
                self._serving[current] = scope
                if req.timeout is not None:
                    deadline = trio.current_time() + req.timeout
                # Still the leader: the lead passes on only if the handler blocks.
                self._inline = task
                try:
                    failure = await until_it_blocks(self._serve(req, fn, is_stream), blocked)
                except BaseException:
                    self._step_aside(task)
                    raise
                finally:
                    self._serving.pop(current, None)
                # No checkpoint since the handler returned: a cancel cannot land between.
                current = None
                deadline = math.inf
                if applied:
                    scope.deadline = math.inf
                    applied = False
                if failure is not None:
                    await until_it_blocks(self._send_quiet(failure), blocked)
                self._inline = None
                if waited:
                    waited = False
                    if scope.cancel_called:
                        break  # cancelled, but it answered before it saw it
        if scope.cancelled_caught and current is not None:
            await self._send_quiet(
                Error(current, "Cancelled", "cancelled by the caller or its deadline")
            )

    async def _park(self, task: trio.lowlevel.Task) -> None:
        """Wait for a hand-over, or the end of the channel.

        A parking lot of our own: the hand-over is on every round trip's path,
        and a bare reschedule costs less than half of ``ParkingLot.unpark``.
        """
        followers = self._followers
        followers.append(task)

        def abort(_: object) -> trio.lowlevel.Abort:
            followers.remove(task)
            return trio.lowlevel.Abort.SUCCEEDED

        await trio.lowlevel.wait_task_rescheduled(abort)

    def _step_aside(self, task: trio.lowlevel.Task) -> None:
        """The request *task* serves is about to block: let another lane read."""
        if self._inline is task:
            self._inline = None
            if self._leader is task:
                self._hand_over()

    async def _lead(self, task: trio.lowlevel.Task) -> _Served | None:
        """Dispatch frames until one is a request to serve (returned) or the lead is lost."""
        while True:
            while self._inbox:
                env = self._inbox.popleft()
                if isinstance(env, Request):
                    found = self._router.lookup(env.body)
                    if found is not None:
                        return env, found[0], found[1]
                    tag = type(env.body).TAG
                    await self._send_quiet(
                        Error(env.id, "UnknownRequest", f"no handler for {tag!r}")
                    )
                elif not self._dispatch_now(env):
                    await self._dispatch(env)
                if self._leader is not task:
                    return None
            if self._eof:
                self._end()
                return None
            if not self._fill():
                await self._lane_wait_socket()
                if self._leader is not task:
                    return None  # a caller took the socket over

    # ------------------------------------------------------------------ dispatching

    def _dispatch_now(self, env: Envelope | BadBody) -> bool:
        """Handle a frame that needs no waiting; ``False`` if it needs a lane."""
        if isinstance(env, Reply):
            call = self._calls.pop(env.id, None)
            if call is None or call.stream:
                self._dropped += 1
            else:
                call.finish(reply=env.body)
        elif isinstance(env, StreamItem):
            call = self._calls.get(env.id)
            if call is None or call.finished or call.send is None:
                self._dropped += 1
                return True
            try:
                call.send.send_nowait(env.body)
            except trio.WouldBlock:
                return False  # the consumer is behind: a lane waits for it
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._dropped += 1  # the consumer walked away; the cancel is on its way
        elif isinstance(env, StreamEnd):
            call = self._calls.pop(env.id, None)
            if call is None:
                self._dropped += 1
            else:
                call.finish()
        elif isinstance(env, Error):
            call = self._calls.pop(env.id, None)
            if call is None:
                self._dropped += 1
            else:
                call.finish(RemoteError(self.name, env.type_name, env.message, env.traceback))
        elif isinstance(env, Cancel):
            scope = self._serving.get(env.id)
            if scope is not None:
                scope.cancel()
        else:
            return False
        return True

    async def _dispatch(self, env: Envelope | BadBody) -> None:
        """Handle a frame that may wait (a lane's part): backpressure, bad bodies, control."""
        if isinstance(env, StreamItem):
            call = self._calls.get(env.id)
            if call is None or call.finished or call.send is None:
                self._dropped += 1
                return
            try:  # stop reading until the consumer catches up
                await call.send.send(env.body)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._dropped += 1
        elif isinstance(env, BadBody):
            await self._bad_body(env)
        elif isinstance(env, Ping | Pong | Hello | Shutdown) and self._on_control is not None:
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

    # ------------------------------------------------------------------ sending

    async def _send(self, env: Envelope) -> None:
        if self._closed is not None:
            raise self._closed
        await self._wire.send(encode_envelope(env))
        self._sent += 1

    async def _send_quiet(self, env: Envelope) -> None:
        try:
            await self._send(env)
        except (IpcError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass
