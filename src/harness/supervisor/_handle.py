"""One supervised worker: its lifecycle across restarts, and the calls made to it.

A :class:`WorkerHandle` outlives the processes behind it. Calls made while a
replacement is starting wait for it (within their timeout); calls in flight when
a process dies fail at once with :class:`~harness.ipc.WorkerDied`.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import trio

from harness.ipc import (
    Channel,
    Message,
    MessageStream,
    RequestTimeout,
    Router,
    WorkerUnavailable,
)
from harness.supervisor._events import (
    SupervisorEvent,
    WorkerState,
    WorkerStatus,
)
from harness.supervisor._lifecycle import Lifecycle
from harness.supervisor._process import OutputTail, Spawned
from harness.supervisor._spec import ChildSpec

if TYPE_CHECKING:
    from harness.supervisor._forkserver import ForkServer

__all__ = ["WorkerHandle"]

_SPEC_DEFAULT: Any = object()


class WorkerHandle(Lifecycle):
    """The stable face of one supervised worker (see :meth:`Supervisor.start`)."""

    def __init__(
        self,
        spec: ChildSpec,
        emit: Callable[[SupervisorEvent], None],
        forks: ForkServer | None = None,
    ) -> None:
        self.spec = spec
        self._forks = forks
        self._emit = emit
        self._router = Router()
        self._state: WorkerState = "starting"
        self._changed = trio.Event()
        self._chan: Channel | None = None
        self._spawned: Spawned | None = None
        self._started_at = 0.0
        self._restarts = 0
        self._rss = 0
        self._down = trio.Event()
        self._kill_reason: str | None = None
        self._stopping = False
        self._stopped = trio.Event()
        self._last_pong = 0
        self._tail = OutputTail()
        self._nursery: trio.Nursery | None = None
        self._background: trio.Nursery | None = None
        self._standby: Spawned | None = None

    # ------------------------------------------------------------------ public

    @property
    def pid(self) -> int | None:
        """The pid of the current process, if one is running."""
        if self._spawned is None or self._state not in ("running", "stopping"):
            return None
        return self._spawned.process.pid

    @property
    def state(self) -> WorkerState:
        """``starting``, ``running``, ``restarting``, ``stopping``, ``stopped`` or ``gave_up``."""
        return self._state

    def status(self) -> WorkerStatus:
        """This worker's row of the supervisor tree."""
        running = self._state == "running"
        return WorkerStatus(
            name=self.name,
            pid=self.pid,
            state=self._state,
            uptime=trio.current_time() - self._started_at if running else 0.0,
            restarts=self._restarts,
            rss=self._rss if running else 0,
        )

    def on_request(
        self, msg_type: type[Message], fn: Callable[..., Awaitable[Any]], *, stream: bool = False
    ) -> None:
        """Answer requests of *msg_type* that the worker sends to the parent."""
        self._router.add(msg_type, fn, stream=stream)

    async def request(self, msg: Message, *, timeout: float | None = _SPEC_DEFAULT) -> Message:
        """Send *msg* to the worker and return its reply.

        *timeout* (default: the spec's ``request_timeout``) covers waiting for a
        restarting worker too.

        Raises:
            WorkerDied: the process ended with this call in flight.
            RequestTimeout: no reply in time (the worker is killed if it does not
                acknowledge the cancel within the spec's ``request_grace``).
            WorkerUnavailable: the worker is stopped or was given up.
            RemoteError: the handler raised.
        """
        limit = self.spec.request_timeout if timeout is _SPEC_DEFAULT else timeout
        chan, remaining = self._ready(), limit
        if chan is None:
            chan, remaining = await self._wait_channel(msg, limit)
        try:
            return await chan.request(msg, timeout=remaining)
        except RequestTimeout as exc:
            raise RequestTimeout(
                worker=self.name, request=exc.request or "", timeout=limit or 0.0
            ) from None

    @asynccontextmanager
    async def stream(
        self, msg: Message, *, timeout: float | None = _SPEC_DEFAULT
    ) -> AsyncIterator[MessageStream]:
        """Send *msg* and iterate the worker's streamed reply (see :meth:`Channel.stream`)."""
        limit = self.spec.request_timeout if timeout is _SPEC_DEFAULT else timeout
        chan, remaining = self._ready(), limit
        if chan is None:
            chan, remaining = await self._wait_channel(msg, limit)
        async with chan.stream(msg, timeout=remaining) as items:
            yield items

    async def wait_running(self, timeout: float | None = None) -> None:
        """Wait until a process is up and answering.

        Raises:
            WorkerUnavailable: the worker is stopped or was given up.
            RequestTimeout: not running within *timeout* seconds.
        """
        deadline = math.inf if timeout is None else trio.current_time() + timeout
        await self._wait_running(None, deadline, timeout)

    def kill(self, reason: str = "killed") -> None:
        """Kill the current process now (SIGKILL to its group); it is then restarted
        per the spec. In-flight calls fail with :class:`WorkerDied`."""
        self._request_kill(reason)

    async def stop(self) -> None:
        """Stop for good with the full kill ladder: ``Shutdown``, SIGTERM, SIGKILL, sweep."""
        self._stopping = True
        self._down.set()
        self._wake()
        await self._stopped.wait()

    # ------------------------------------------------------------------ waiting

    def _ready(self) -> Channel | None:
        """The channel of a running process, if there is one now."""
        chan = self._chan
        if self._state == "running" and chan is not None and not chan.closed:
            return chan
        return None

    async def _wait_channel(
        self, msg: Message, limit: float | None
    ) -> tuple[Channel, float | None]:
        """Wait for a running process: its channel, and what is left of *limit*."""
        if limit is None:
            return await self._wait_running(msg, math.inf, None), None
        deadline = trio.current_time() + limit
        chan = await self._wait_running(msg, deadline, limit)
        return chan, max(deadline - trio.current_time(), 0.0)

    async def _wait_running(
        self, msg: Message | None, deadline: float, limit: float | None
    ) -> Channel:
        while True:
            chan = self._ready()
            if chan is not None:
                return chan
            if self._state in ("stopped", "gave_up", "stopping"):
                what = (
                    "was given up after too many restarts"
                    if self._state == "gave_up"
                    else ("is stopped")
                )
                raise WorkerUnavailable(
                    f"the {self.name} worker {what}",
                    worker=self.name,
                    request=type(msg).TAG if msg is not None else None,
                )
            changed = self._changed
            with trio.move_on_at(deadline):
                await changed.wait()
                continue
            raise RequestTimeout(
                worker=self.name,
                request=type(msg).TAG if msg is not None else "start",
                timeout=limit or 0.0,
            )
