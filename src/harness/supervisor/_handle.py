"""One supervised worker as its callers see it: the calls made to it, across restarts.

A :class:`WorkerHandle` outlives the processes behind it. Calls made while a
replacement is starting wait for it (within their timeout); calls in flight when
a process dies fail at once with :class:`~harness.ipc.WorkerDied`. The processes
themselves are its :class:`~harness.supervisor._lifecycle.Lifecycle`'s.
"""

from __future__ import annotations

import enum
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Final, TypeVar

import trio

from harness.ipc import (
    Channel,
    ChannelStatistics,
    Emit,
    Message,
    MessageStream,
    RequestTimeout,
    Router,
    WorkerUnavailable,
)
from harness.supervisor._events import SupervisorEvent, WorkerState, WorkerStatus
from harness.supervisor._lifecycle import Lifecycle
from harness.supervisor._spec import ChildSpec

if TYPE_CHECKING:
    from harness.supervisor._forkserver import ForkServer

__all__ = ["WorkerHandle"]

M = TypeVar("M", bound=Message)


class _Default(enum.Enum):
    SPEC = enum.auto()


#: A call's timeout when none is given: the spec's ``request_timeout``.
SPEC_TIMEOUT: Final = _Default.SPEC


class WorkerHandle:
    """The stable face of one supervised worker (see :meth:`Supervisor.start`).

    Args:
        spec: how to run the worker.
        emit: where starts, exits, restarts and give-ups are reported.
        forks: the fork server to start processes from, if there is one.
    """

    def __init__(
        self,
        spec: ChildSpec,
        emit: Callable[[SupervisorEvent], None],
        forks: ForkServer | None = None,
    ) -> None:
        self.spec = spec
        self._router = Router()
        self._life = Lifecycle(spec, emit, self._router, forks)

    @property
    def name(self) -> str:
        """The worker's name."""
        return self.spec.name

    @property
    def pid(self) -> int | None:
        """The pid of the current process, if one is running."""
        return self._life.pid

    @property
    def state(self) -> WorkerState:
        """``starting``, ``running``, ``restarting``, ``stopping``, ``stopped`` or ``gave_up``."""
        return self._life.state

    def status(self) -> WorkerStatus:
        """This worker's row of the supervisor tree."""
        return self._life.status()

    def statistics(self) -> ChannelStatistics | None:
        """The counters of the current process's channel (``None`` while none runs)."""
        chan = self._life.ready()
        return None if chan is None else chan.statistics()

    async def run(self) -> None:
        """Run, watch and restart the worker until it is stopped or given up."""
        await self._life.run()

    def on_request(self, msg_type: type[M], fn: Callable[[M], Awaitable[Message]]) -> None:
        """Answer requests of *msg_type* that the worker sends to the parent."""
        self._router.add_handler(msg_type, fn)

    def on_stream(self, msg_type: type[M], fn: Callable[[M, Emit], Awaitable[None]]) -> None:
        """Answer requests of *msg_type* from the worker with a stream of items."""
        self._router.add_stream(msg_type, fn)

    async def request(
        self, msg: Message, *, timeout: float | _Default | None = SPEC_TIMEOUT
    ) -> Message:
        """Send *msg* to the worker and return its reply.

        *timeout* (default: the spec's ``request_timeout``; ``None``: none) covers
        waiting for a restarting worker too.

        Raises:
            WorkerDied: the process ended with this call in flight.
            RequestTimeout: no reply in time (the worker is killed if it does not
                acknowledge the cancel within the spec's ``request_grace``).
            WorkerUnavailable: the worker is stopped or was given up.
            RemoteError: the handler raised.
        """
        limit = self.spec.request_timeout if timeout is SPEC_TIMEOUT else timeout
        chan, remaining = await self._channel(msg, limit)
        try:
            return await chan.request(msg, timeout=remaining)
        except RequestTimeout as exc:
            raise RequestTimeout(
                worker=self.name, request=exc.request or "", timeout=limit or 0.0
            ) from None

    @asynccontextmanager
    async def stream(
        self, msg: Message, *, timeout: float | _Default | None = SPEC_TIMEOUT
    ) -> AsyncIterator[MessageStream]:
        """Send *msg* and iterate the worker's streamed reply (see :meth:`Channel.stream`)."""
        limit = self.spec.request_timeout if timeout is SPEC_TIMEOUT else timeout
        chan, remaining = await self._channel(msg, limit)
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
        self._life.kill(reason)

    async def stop(self) -> None:
        """Stop for good with the full kill ladder: ``Shutdown``, SIGTERM, SIGKILL, sweep."""
        await self._life.stop()

    # ------------------------------------------------------------------ waiting

    async def _channel(self, msg: Message, limit: float | None) -> tuple[Channel, float | None]:
        """A running process's channel, and what is left of *limit* once it is there."""
        chan = self._life.ready()
        if chan is not None:
            return chan, limit
        if limit is None:
            return await self._wait_running(msg, math.inf, None), None
        deadline = trio.current_time() + limit
        chan = await self._wait_running(msg, deadline, limit)
        return chan, max(deadline - trio.current_time(), 0.0)

    async def _wait_running(
        self, msg: Message | None, deadline: float, limit: float | None
    ) -> Channel:
        while True:
            chan = self._life.ready()
            if chan is not None:
                return chan
            state = self._life.state
            if state in ("stopped", "gave_up", "stopping"):
                what = (
                    "was given up after too many restarts" if state == "gave_up" else "is stopped"
                )
                raise WorkerUnavailable(
                    f"the {self.name} worker {what}",
                    worker=self.name,
                    request=type(msg).TAG if msg is not None else None,
                )
            with trio.move_on_at(deadline):
                await self._life.changed()
                continue
            raise RequestTimeout(
                worker=self.name,
                request=type(msg).TAG if msg is not None else "start",
                timeout=limit or 0.0,
            )
