"""The :class:`Worker`: handlers, heartbeats, cancellation and shutdown for one actor."""

from __future__ import annotations

import inspect
import os
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import NoReturn, TypeVar

import trio

from harness.ipc import (
    DEFAULT_MAX_FRAME,
    IPC_FD_ENV,
    MAX_FRAME_ENV,
    Channel,
    ChannelClosed,
    Control,
    Emit,
    Hello,
    Message,
    Ping,
    Pong,
    Router,
    Shutdown,
)
from harness.worker._lifeline import kill_own_tree, start_lifeline

__all__ = ["Worker", "current_rss"]


M = TypeVar("M", bound=Message)
# A hook is sync or async; whatever it returns (or its awaitable gives) is ignored.
F = TypeVar("F", bound=Callable[[], object])

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def current_rss() -> int:
    """This process's resident set size in bytes (0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


class Worker:
    """One actor's process: register handlers, then :meth:`run`.

    Args:
        name: the actor's name, as the supervisor knows it.
        shutdown_grace: seconds the ``on_shutdown`` hooks get, together.
    """

    def __init__(self, name: str, *, shutdown_grace: float = 5.0) -> None:
        self.name = name
        self.router = Router()
        self.shutdown_grace = shutdown_grace
        self._hooks: list[Callable[[], object]] = []
        self._peer: Channel | None = None
        self._nursery: trio.Nursery | None = None

    def handle(
        self, msg_type: type[M]
    ) -> Callable[[Callable[[M], Awaitable[Message]]], Callable[[M], Awaitable[Message]]]:
        """Decorator: an ``async fn(request) -> reply`` for *msg_type*."""
        return self.router.handle(msg_type)

    def stream(
        self, msg_type: type[M]
    ) -> Callable[[Callable[[M, Emit], Awaitable[None]]], Callable[[M, Emit], Awaitable[None]]]:
        """Decorator: an ``async fn(request, emit)`` streaming items for *msg_type*."""
        return self.router.stream(msg_type)

    def on_shutdown(self, fn: F) -> F:
        """Decorator: run *fn* (sync or async) when the worker shuts down."""
        self._hooks.append(fn)
        return fn

    @property
    def peer(self) -> Channel:
        """The channel to the parent, for requests this worker makes of it."""
        if self._peer is None:
            raise RuntimeError("the worker is not running")
        return self._peer

    def shutdown(self) -> None:
        """Stop serving; the ``on_shutdown`` hooks run, then :meth:`run` returns."""
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    def run(self) -> NoReturn:
        """Serve until the parent says ``Shutdown``, sends SIGTERM, or goes away."""
        fd_text = os.environ.get(IPC_FD_ENV)
        if fd_text is None or not fd_text.isdigit():
            sys.stderr.write(
                f"harness worker {self.name!r}: {IPC_FD_ENV} is not set; "
                "workers are started by the harness supervisor\n"
            )
            sys.exit(2)
        trio.run(self._main, int(fd_text))
        sys.exit(0)

    async def _main(self, fd: int) -> None:
        sock = socket.socket(fileno=fd)  # the channel makes it non-blocking
        # Nothing this worker starts may hold its channel open after it dies.
        sock.set_inheritable(False)
        start_lifeline(sock.fileno(), grace=self.shutdown_grace + 1.0)
        max_frame = int(os.environ.get(MAX_FRAME_ENV, DEFAULT_MAX_FRAME))
        chan = Channel(
            sock,
            name="parent",
            router=self.router,
            max_frame=max_frame,
            on_control=self._control,
        )
        self._peer = chan
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                nursery.start_soon(self._watch_signals)
                await nursery.start(self._serve, chan)
                await chan.send_control(Hello(os.getpid()))
        finally:
            chan.abort(ChannelClosed("the worker is shutting down"))
            with trio.CancelScope(shield=True), trio.move_on_after(self.shutdown_grace):
                await self._run_hooks()
            with trio.CancelScope(shield=True), trio.move_on_after(2.0):
                await trio.to_thread.run_sync(kill_own_tree, abandon_on_cancel=True)
            with trio.CancelScope(shield=True), trio.move_on_after(1.0):
                await chan.aclose()

    async def _serve(self, chan: Channel, *, task_status: trio.TaskStatus[None]) -> None:
        await chan.run(task_status=task_status)
        # The parent closed the channel (or broke the protocol): nothing left to serve.
        self.shutdown()

    async def _control(self, env: Control) -> None:
        if isinstance(env, Ping):
            await self.peer.send_control(Pong(env.seq, current_rss()))
        elif isinstance(env, Shutdown):
            self.shutdown()

    async def _watch_signals(self) -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
            async for _ in signals:
                self.shutdown()
                return

    async def _run_hooks(self) -> None:
        for hook in reversed(self._hooks):
            try:
                result = hook()
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # one failing hook must not skip the others
                sys.stderr.write(f"{self.name}: shutdown hook {hook!r} failed: {exc!r}\n")
