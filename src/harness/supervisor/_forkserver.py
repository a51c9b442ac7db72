"""Starting workers by fork from a process that has already imported them.

A worker started from nothing is an interpreter plus trio's import plus ours:
about 0.3 s on a small machine, most of it trio. That is every worker's start-up
time and every restart's. The fork server (``_zygote``) pays it once: it imports
trio, the channel and the worker base, then forks each worker from that state,
which takes a few milliseconds, and the child is still a fresh process with its
own session, environment, folder and output pipe, running ``python -m <module>``.

The server is not the supervisor itself because a process running trio has
threads and an event loop whose state a fork would copy half-made; the server
never runs either. Since the server is the workers' parent, it reaps them and
sends each exit status here; a pidfd it passes along tells the exit apart from
the status, so an exit is seen even if the server is gone.

If the server cannot start, dies, or a fork fails, workers start the slow way
(``spawn_worker``) and nothing else changes. The processes themselves, the server
and the workers it forked, are held as :mod:`._forkprocs` says.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections import deque

import trio

from harness import _forkstart
from harness.supervisor._forkprocs import ForkedProcess, ServerLink, ServerProcess
from harness.supervisor._forkproto import (
    MAX_PACKET,
    Forked,
    ForkFailed,
    ForkRequest,
    Reaped,
    WarmRequest,
    ZygoteReady,
    decode,
    encode,
    pack_fds,
    unpack_fds,
)
from harness.supervisor._forkshare import offered_fork_server
from harness.supervisor._process import OutputTail, Spawned, worker_env
from harness.supervisor._spec import ChildSpec

__all__ = ["ForkServer"]

READY_TIMEOUT = 10.0
#: Server restarts allowed within RESTART_PERIOD seconds before forking is given up.
MAX_RESTARTS = 3
RESTART_PERIOD = 60.0


class ForkServer:
    """The supervisor's side of the fork server: start it, ask it for workers.

    Run :meth:`run` in a nursery; :meth:`spawn` returns ``None`` whenever a fork
    is not possible, and the caller starts the worker itself.
    """

    def __init__(
        self, preload: tuple[str, ...] = _forkstart.PRELOAD, warm: tuple[str, ...] = ()
    ) -> None:
        self.preload = preload
        self.warm = warm
        self.pid: int | None = None
        self.output = OutputTail(16 * 1024)
        self._sock: trio.socket.SocketType | None = None
        self._ready = trio.Event()
        self._closed = False
        self._lock = trio.Lock()
        self._pending: _Pending | None = None
        self._children: dict[int, ForkedProcess] = {}
        # exit statuses that came before their child was taken up (see _read)
        self._unclaimed: dict[int, int] = {}
        self._nursery: trio.Nursery | None = None
        self._restarts: deque[float] = deque()
        self._interpreter_env: dict[str, str] = {}
        self._warms: dict[str, tuple[str, ...]] = {}  # worker module -> what it needs
        self._told: set[str] = set()  # the workers whose warm this server has heard
        self._asked: dict[str, trio.Event] = {}  # set once the first ask is sent

    @staticmethod
    def available() -> bool:
        """Whether this platform can run it (Linux with pidfds)."""
        return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")

    async def run(self) -> None:
        """Start the server and keep it going (restarted a few times) until cancelled."""
        if not self.available():
            self._closed = True
            self._ready.set()
            return
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                while not self._closed and self._may_restart():
                    await self._incarnation()
        finally:
            self._closed = True
            self._ready.set()

    def _may_restart(self) -> bool:
        now = trio.current_time()
        while self._restarts and now - self._restarts[0] > RESTART_PERIOD:
            self._restarts.popleft()
        if len(self._restarts) >= MAX_RESTARTS:
            return False
        self._restarts.append(now)
        return True

    async def _start(self) -> ServerProcess | ServerLink | None:
        early = _forkstart.adopt()
        shared = offered_fork_server()
        if early is None and shared is not None and shared.serves(self.preload, self.warm):
            link = await trio.to_thread.run_sync(shared.connect)
            if link is not None:
                return link
        if early is None:
            early = await trio.to_thread.run_sync(_forkstart.spawn_server, self.preload, self.warm)
        if early is None:
            self.output.feed(b"could not start the fork server\n")
            return None
        return ServerProcess(early)

    async def _incarnation(self) -> None:
        process = await self._start()
        if process is None:
            self._closed = True
            return
        self.pid = process.pid
        self._interpreter_env = process.interpreter_env
        sock = trio.socket.from_stdlib_socket(process.sock)
        self._sock = sock
        self._told = set()
        output = None if process.output_fd is None else trio.lowlevel.FdStream(process.output_fd)
        try:
            async with trio.open_nursery() as nursery:
                if output is not None:
                    nursery.start_soon(self.output.drain, output)
                await self._read(sock)
                nursery.cancel_scope.cancel()
        finally:
            # wake whoever waits for this server to be ready: they wait again, for the
            # next incarnation's (a server that died before it said so never will)
            stale, self._ready = self._ready, trio.Event()
            stale.set()
            self._sock = None
            if self._pending is not None:
                self._pending.settle(None, [])
            with trio.CancelScope(shield=True):
                sock.close()  # the server leaves when its socket closes
                await process.end()
                if output is not None:
                    await output.aclose()
        self.pid = None
        # The children it forked run on, but nobody can report their exit status
        # any more: their exits are seen on their pidfds alone.
        for child in self._children.values():
            child.orphan()
        self._children.clear()

    async def _read(self, sock: trio.socket.SocketType) -> None:
        while True:
            try:
                payload, ancdata, _flags, _addr = await sock.recvmsg(
                    MAX_PACKET, socket.CMSG_SPACE(4 * 4)
                )
            except (OSError, trio.ClosedResourceError):
                return
            if not payload:
                return
            fds = unpack_fds(ancdata)
            try:
                msg = decode(payload)
            except Exception as exc:
                self.output.feed(f"[supervisor] fork server: {exc}\n".encode())
                for fd in fds:
                    os.close(fd)
                return
            if isinstance(msg, ZygoteReady):
                self._ready.set()
                if self._warms and self._nursery is not None:
                    # a server started again (or adopted) has not heard them
                    for worker, modules in self._warms.items():
                        self._nursery.start_soon(self._send_warm, worker, modules)
            elif isinstance(msg, Reaped):
                child = self._children.pop(msg.pid, None)
                if child is not None:
                    child.report(msg.returncode)
                else:
                    # A worker that ends at once is reaped before _spawn, woken by
                    # its Forked, has taken it up: the status waits for it there.
                    self._unclaimed[msg.pid] = msg.returncode
            elif isinstance(msg, Forked | ForkFailed) and self._pending is not None:
                self._pending.settle(msg, fds)
                continue
            for fd in fds:
                os.close(fd)

    async def spawn(self, spec: ChildSpec, tag: str) -> Spawned | None:
        """Fork a worker for *spec*, or ``None`` if the server cannot."""
        if not await self._wait_ready():
            return None
        async with self._lock:
            return await self._spawn(spec, tag)

    async def _spawn(self, spec: ChildSpec, tag: str) -> Spawned | None:
        sock, nursery = self._sock, self._nursery
        if sock is None or nursery is None:
            return None
        env = worker_env(spec, tag)  # the child adds the fd of its channel
        if _forkstart.interpreter_env(env) != self._interpreter_env:
            # Settings an interpreter reads as it starts (PYTHONHASHSEED,
            # PYTHONOPTIMIZE, ...) that differ from the server's: a fork would
            # silently run with the server's, so the worker starts afresh.
            return None
        cwd = _folder(spec)
        if cwd is None:
            return None
        request = encode(ForkRequest(spec.module, list(spec.args), env, cwd))
        self._unclaimed.clear()  # any left belong to forks given up on
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        read_fd, write_fd = os.pipe()
        keep = False
        pending = self._pending = _Pending()
        try:
            try:
                await sock.sendmsg(
                    [request],
                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, pack_fds([theirs.fileno(), write_fd]))],
                )
            except OSError as exc:  # too big for one packet, or the server is gone
                self.output.feed(f"[supervisor] fork request not sent: {exc}\n".encode())
                return None
            reply, fds = await pending.wait()
            if not isinstance(reply, Forked) or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                if isinstance(reply, ForkFailed):
                    self.output.feed(f"[supervisor] fork failed: {reply.error}\n".encode())
                return None
            child = ForkedProcess(reply.pid, fds[0])
            code = self._unclaimed.pop(reply.pid, None)
            if code is None:
                self._children[reply.pid] = child
                nursery.start_soon(child.watch)
            else:
                child.report(code)
            keep = True
            return Spawned(child, ours, trio.lowlevel.FdStream(read_fd), tag)
        finally:
            self._pending = None
            theirs.close()
            os.close(write_fd)
            if not keep:
                ours.close()
                os.close(read_fd)

    async def warm_for(self, worker: str, modules: tuple[str, ...]) -> None:
        """Have the server import *modules* (what workers of module *worker* need
        beyond its preload) once, so that each such worker forked from now on starts
        with them; a fork of one waits for them if they are not imported yet.

        Returns once the server has the request (or at once if there is none), so a
        fork asked for afterwards comes after it; the servers started after this,
        should this one die, hear it too. Asked again, it only waits for the first.
        """
        asked = self._asked.get(worker)
        if asked is None and modules:
            asked = self._asked[worker] = trio.Event()
            self._warms[worker] = modules
            try:
                if await self._wait_ready():
                    await self._send_warm(worker, modules)
            finally:
                asked.set()
        if asked is not None:
            await asked.wait()

    async def _wait_ready(self) -> bool:
        """Wait, up to :data:`READY_TIMEOUT`, for a server that said it is ready (the
        one running, or the one started after it died); whether there is one."""
        with trio.move_on_after(READY_TIMEOUT):
            while not self._closed and not self._ready.is_set():
                await self._ready.wait()
        return not self._closed and self._ready.is_set()

    async def _send_warm(self, worker: str, modules: tuple[str, ...]) -> None:
        async with self._lock:  # one packet at a time, in the order asked
            sock = self._sock
            if sock is None or worker in self._told:
                return
            self._told.add(worker)
            with contextlib.suppress(OSError, trio.ClosedResourceError):
                await sock.send(encode(WarmRequest(worker, list(modules))))

    async def aclose(self) -> None:
        """Stop the server (its children run on until the supervisor stops them)."""
        self._closed = True
        if self._sock is not None:
            self._sock.close()


class _Pending:
    """The one fork request in flight (they go one at a time) and its reply."""

    def __init__(self) -> None:
        self._event = trio.Event()
        self._reply: Forked | ForkFailed | None = None
        self._fds: list[int] = []

    def settle(self, reply: Forked | ForkFailed | None, fds: list[int]) -> None:
        if self._event.is_set():
            for fd in fds:
                os.close(fd)
            return
        self._reply, self._fds = reply, fds
        self._event.set()

    async def wait(self) -> tuple[Forked | ForkFailed | None, list[int]]:
        try:
            await self._event.wait()
        except BaseException:
            # The caller left: whatever still comes is closed on arrival, and a
            # worker forked for nobody exits when its channel's other end closes.
            self.settle(None, [])
            raise
        return self._reply, self._fds


def _folder(spec: ChildSpec) -> str | None:
    """The worker's folder as a new interpreter would get it, from our folder now:
    the server's is ours when it started, and a relative one would be taken from
    there. ``None`` if our own folder is gone (a new interpreter then says so)."""
    try:
        return os.path.abspath(spec.cwd if spec.cwd is not None else os.curdir)
    except OSError:
        return None
