"""The supervisor: a set of :class:`WorkerHandle`, one_for_one, with an event feed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from harness import _forkstart
from harness.supervisor._events import SupervisorEvent, WorkerStatus
from harness.supervisor._forkserver import ForkServer
from harness.supervisor._handle import WorkerHandle
from harness.supervisor._spec import ChildSpec

__all__ = ["Supervisor", "open_supervisor"]


class Supervisor:
    """Starts, watches, restarts and kills workers (one_for_one: a worker's death
    touches no other worker). Use :func:`open_supervisor` to get one."""

    def __init__(self, nursery: trio.Nursery, forks: ForkServer | None = None) -> None:
        self._nursery = nursery
        self._forks = forks
        self._workers: dict[str, WorkerHandle] = {}
        self._subscribers: list[trio.MemorySendChannel[SupervisorEvent]] = []
        self.events_dropped = 0

    async def start(self, spec: ChildSpec, *, timeout: float | None = 30.0) -> WorkerHandle:
        """Start a worker and wait until it answers.

        Raises:
            ValueError: a worker of that name is already supervised.
            WorkerUnavailable: it could not be started (given up after its restarts).
            RequestTimeout: it did not answer within *timeout* seconds.
        """
        if spec.name in self._workers and self._workers[spec.name].state not in (
            "stopped",
            "gave_up",
        ):
            raise ValueError(f"a worker named {spec.name!r} is already running")
        handle = WorkerHandle(spec, self._emit, self._forks)
        self._workers[spec.name] = handle
        self._nursery.start_soon(handle.run, name=f"worker:{spec.name}")
        await handle.wait_running(timeout)
        return handle

    def get(self, name: str) -> WorkerHandle:
        """The handle of worker *name* (``KeyError`` if there is none)."""
        return self._workers[name]

    def __contains__(self, name: str) -> bool:
        return name in self._workers

    def status(self) -> list[WorkerStatus]:
        """The tree: one row per worker, in start order."""
        return [handle.status() for handle in self._workers.values()]

    def subscribe(self, buffer: int = 256) -> trio.MemoryReceiveChannel[SupervisorEvent]:
        """A feed of every start, exit, restart and give-up from now on.

        A subscriber that falls *buffer* events behind loses the newest ones
        (counted in ``events_dropped``) rather than slowing the supervisor.
        """
        send, recv = trio.open_memory_channel[SupervisorEvent](buffer)
        self._subscribers.append(send)
        return recv

    def _emit(self, event: SupervisorEvent) -> None:
        for send in list(self._subscribers):
            try:
                send.send_nowait(event)
            except trio.WouldBlock:
                self.events_dropped += 1
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._subscribers.remove(send)

    async def stop(self, name: str) -> None:
        """Stop worker *name* with the whole kill ladder."""
        await self._workers[name].stop()

    async def aclose(self) -> None:
        """Stop every worker, concurrently, each with its kill ladder."""
        async with trio.open_nursery() as nursery:
            for handle in self._workers.values():
                nursery.start_soon(handle.stop)
        for send in self._subscribers:
            send.close()
        self._subscribers.clear()
        if self._forks is not None:
            await self._forks.aclose()

    async def warm(self, module: str, modules: tuple[str, ...]) -> None:
        """Have the fork server import *modules*, what workers of *module* need beyond
        what every worker imports, once: each such worker forked afterwards (a restart
        too) starts with them. Without a fork server this does nothing."""
        if self._forks is not None:
            await self._forks.warm_for(module, modules)

    @property
    def fork_server_pid(self) -> int | None:
        """The fork server's pid while one runs (see :attr:`ChildSpec.fork`)."""
        return None if self._forks is None else self._forks.pid


@asynccontextmanager
async def open_supervisor(
    *, fork_server: bool = True, preload: tuple[str, ...] = (), warm: tuple[str, ...] = ()
) -> AsyncIterator[Supervisor]:
    """A supervisor whose workers are all stopped (and their trees killed) on exit.

    With *fork_server* (the default), a fork server starts at once and imports
    what every worker imports, and the modules in *preload*, so that workers
    start and restart by fork; it imports the modules in *warm* once it is
    ready, while no request waits. A server started early
    (:func:`harness._forkstart.start_early`) is adopted instead.
    """
    async with trio.open_nursery() as nursery:
        forks = None
        if fork_server and ForkServer.available():
            forks = ForkServer((*_forkstart.PRELOAD, *preload), warm)
        if forks is not None:
            nursery.start_soon(forks.run, name="fork server")
        supervisor = Supervisor(nursery, forks)
        try:
            yield supervisor
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(30):
                await supervisor.aclose()
            nursery.cancel_scope.cancel()
