"""One fork server for every supervisor a process opens, while the process offers it.

A supervisor starts a fork server of its own, which imports trio, the channel and
the worker base before its first fork: about 0.2 s of CPU, paid again by every
session. A process that opens many sessions one after the other (an application
on the Python API, a test suite) can start one :class:`SharedForkServer` and offer
it (:meth:`SharedForkServer.offered`): every supervisor opened meanwhile whose
server would import nothing the shared one does not connects to it instead of
starting its own. What a supervisor then asks it to warm (``Supervisor.warm``)
stays imported there for every later one.

Each connection is its supervisor's alone: the forks it asks for are answered on
it, the exit statuses of its workers are reported on it and on no other, and a
worker holds none of the server's connections (:mod:`._forkclients`). Workers do
not outlive their supervisor for being forked from a server that does.

A shared server that died (killed, crashed) is replaced at the next connection.
A supervisor whose connection ends goes on as with a server of its own that died:
its workers run on, their exits seen on their pidfds, and its next fork connects
again, to the replacement; one that cannot connect starts its own server.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import signal
import socket
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping

from harness import _forkstart
from harness.supervisor._forkprocs import ServerLink

__all__ = ["SharedForkServer", "offered_fork_server"]

#: Seconds a connection refused waits for the server to be seen dead (then it is
#: replaced) before the supervisor is told to start its own.
DEATH_WAIT = 1.0
_OUTPUT_LIMIT = 16 * 1024

_offered: SharedForkServer | None = None


def offered_fork_server() -> SharedForkServer | None:
    """The shared fork server this process offers its supervisors now, if any."""
    return _offered


class SharedForkServer:
    """A fork server shared by the supervisors of this process; started at the first
    connection, replaced if it died, stopped by :meth:`close`. Thread-safe.

    Args:
        preload: what it imports before it forks anything (default: what every
            worker imports, as a supervisor's own server does).
        warm: what it imports afterwards, while no request waits (for example
            ``harness._forkstart.WORKER_PRELOAD``, the default workers' modules).
        environ: its environment (default: this process's as each server starts);
            a worker whose interpreter settings (``PYTHON*`` but ``PYTHONPATH``)
            differ from it is not forked but started as a new interpreter.
    """

    def __init__(
        self,
        preload: Iterable[str] = _forkstart.PRELOAD,
        warm: Iterable[str] = (),
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.preload = tuple(preload)
        self.warm = tuple(warm)
        self.environ = None if environ is None else dict(environ)
        #: How many servers it has started (a replacement counts).
        self.started = 0
        self._lock = threading.Lock()
        self._server: _Held | None = None
        self._closed = False
        self._name = f"harness-fork-{os.getpid()}-{secrets.token_hex(8)}"

    @property
    def pid(self) -> int | None:
        """The server's pid, while one has been started and not seen dead."""
        server = self._server
        return None if server is None else server.pid

    def output(self) -> str:
        """The end of what the server (and any it replaced) wrote."""
        server = self._server
        return "" if server is None else server.output()

    def serves(self, preload: Iterable[str], warm: Iterable[str]) -> bool:
        """Whether a supervisor whose server would import *preload* and *warm* may
        take this one: it imports all of them, and so nothing the supervisor's own
        would not have had too, but what others warmed."""
        have = {*self.preload, *self.warm}
        return have.issuperset(preload) and have.issuperset(warm)

    @contextlib.contextmanager
    def offered(self) -> Iterator[SharedForkServer]:
        """Offer this server to every supervisor opened in this process meanwhile."""
        global _offered
        before, _offered = _offered, self
        try:
            yield self
        finally:
            _offered = before

    def connect(self) -> ServerLink | None:
        """A new connection to the server, started (or started again, if it died)
        as needed; ``None`` if there can be none (closed, cannot start, or a live
        server refuses), and the caller starts a server of its own."""
        with self._lock:
            for _ in range(2):
                if self._closed:
                    return None
                if self._server is None:
                    self._server = self._start()
                    if self._server is None:
                        return None
                server = self._server
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                try:
                    conn.connect(server.address)
                except OSError:
                    conn.close()
                    if not server.wait_gone(DEATH_WAIT):
                        return None
                    server.close()
                    self._server = None
                    continue
                conn.set_inheritable(False)
                return ServerLink(server.pid, conn, dict(server.interpreter_env))
            return None

    def close(self) -> None:
        """Stop the server: it leaves once its last connection closes, or is killed
        after a second. Supervisors still connected see a server that died."""
        with self._lock:
            self._closed = True
            if self._server is not None:
                self._server.close(grace=DEATH_WAIT)
                self._server = None

    def _start(self) -> _Held | None:
        address = f"\0{self._name}-{self.started}"  # abstract: nothing left behind
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            listener.bind(address)
            listener.listen(64)
            early = _forkstart.spawn_server(
                self.preload, self.warm, self.environ, listen=listener.fileno()
            )
        except OSError:
            return None
        finally:
            listener.close()  # the server's now
        if early is None:
            return None
        self.started += 1
        return _Held(early, address)


class _Held:
    """A started shared server: our child, the socket it was started with (held
    open, so that it serves while we do), and a thread keeping its output's end."""

    def __init__(self, early: _forkstart.EarlyServer, address: str) -> None:
        self.pid = early.pid
        self.address = address
        self.interpreter_env = early.interpreter_env
        self._sock = socket.socket(fileno=early.sock_fd)
        self._pidfd = os.pidfd_open(early.pid)
        self._tail: deque[bytes] = deque()
        self._reader = threading.Thread(
            target=self._drain, args=(early.output_fd,), name="fork server output", daemon=True
        )
        self._reader.start()

    def output(self) -> str:
        return b"".join(self._tail).decode(errors="replace")

    def wait_gone(self, timeout: float) -> bool:
        """Whether the server has ended (waiting up to *timeout* seconds)."""
        readable, _, _ = select.select([self._pidfd], [], [], timeout)
        return bool(readable)

    def close(self, grace: float = 0.0) -> None:
        """Close our socket, give it *grace* seconds to leave, kill it, reap it."""
        self._sock.close()
        if not self.wait_gone(grace):
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self._pidfd)

    def _drain(self, fd: int) -> None:
        size = 0
        try:
            while chunk := os.read(fd, 4096):
                self._tail.append(chunk)
                size += len(chunk)
                while size > _OUTPUT_LIMIT and len(self._tail) > 1:
                    size -= len(self._tail.popleft())
        except OSError:
            pass
        finally:
            os.close(fd)
