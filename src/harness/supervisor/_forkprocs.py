"""The processes on the far side of the fork server, as the supervisor holds them.

A worker the server forked is not the supervisor's child: :class:`ForkedProcess`
sees its exit on a pidfd the server passed along and takes its exit status from
the server's report (a dead server's children end with no status). The server
itself is the supervisor's child (:class:`ServerProcess`), waited on and
signalled through a pidfd, unless it is a server shared by the whole process
(:mod:`._forkshare`): the supervisor then holds only its connection to it
(:class:`ServerLink`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket

import trio

from harness import _forkstart

__all__ = ["STATUS_WAIT", "ForkedProcess", "ServerLink", "ServerProcess"]

#: How long an exit seen on the pidfd waits for the fork server's report of its status.
#: The report normally comes within milliseconds; on a machine loaded ten times over its
#: cores it took more than a second, and a status given up on is lost for good. A dead
#: server ends the wait at once (``orphan``), so only a live but stalled server is
#: waited out.
STATUS_WAIT = 5.0


class ForkedProcess:
    """A worker forked by the server: the face of :class:`trio.Process` the
    supervisor uses (``pid``, ``returncode``, ``wait()``), plus ``exited``.

    ``returncode`` stays ``None`` after an exit whose status nobody reported (the
    server died first); ``exited`` tells that case from a running process.
    """

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._pidfd = pidfd
        self._reported = trio.Event()
        self._done = trio.Event()

    @property
    def exited(self) -> bool:
        """Whether the process has ended."""
        return self._done.is_set()

    async def wait(self) -> int | None:
        """Wait for the process to end; its return code (``None``: unknown)."""
        await self._done.wait()
        return self.returncode

    def report(self, returncode: int) -> None:
        """The server reported the exit status."""
        self.returncode = returncode
        self._reported.set()
        self._finish()

    def orphan(self) -> None:
        """Nobody will report the status (the server is gone): an exit ends at once."""
        self._reported.set()

    def _finish(self) -> None:
        if not self._done.is_set():
            self._done.set()
            trio.lowlevel.notify_closing(self._pidfd)  # ends watch()'s wait, if any
            os.close(self._pidfd)

    async def watch(self) -> None:
        """See the exit on the pidfd, in case the server's report never comes."""
        # The server's report normally comes first; the pidfd covers its absence.
        try:
            await trio.lowlevel.wait_readable(self._pidfd)
        except (trio.ClosedResourceError, OSError):
            return
        if self._done.is_set():
            return
        with trio.move_on_after(STATUS_WAIT):
            await self._reported.wait()
        self._finish()


class ServerProcess:
    """The fork server's process, our child: waited on and signalled through a pidfd."""

    def __init__(self, early: _forkstart.EarlyServer) -> None:
        self.pid = early.pid
        self.sock = socket.socket(fileno=early.sock_fd)
        self.output_fd: int | None = early.output_fd
        self.interpreter_env = early.interpreter_env
        self._pidfd: int | None = os.pidfd_open(self.pid)
        self._code: int | None = None

    @property
    def returncode(self) -> int | None:
        """Its exit status, ``None`` while it runs."""
        if self._code is None:
            self._reap(os.WNOHANG)
        return self._code

    def kill(self) -> None:
        """SIGKILL it, unless it has ended."""
        if self._pidfd is not None and self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    async def wait(self) -> int:
        """Wait for it to end and reap it; its exit status."""
        if self.returncode is None and self._pidfd is not None:
            await trio.lowlevel.wait_readable(self._pidfd)
        if self._code is None:
            self._reap(0)  # it has ended: this only reaps
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        return self._code if self._code is not None else 0

    async def end(self) -> None:
        """Once its socket is closed: wait for it to leave, else kill it, and reap it."""
        with trio.move_on_after(1.0):
            await self.wait()
        if self.returncode is None:
            self.kill()
            with trio.move_on_after(2.0):
                await self.wait()

    def _reap(self, flags: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped already, somewhere else
            self._code = 0
            return
        if pid:
            self._code = os.waitstatus_to_exitcode(status)


class ServerLink:
    """A connection to a fork server this supervisor shares with others: the same
    face as :class:`ServerProcess`, but the server is not ours to wait on or kill,
    and its output is its holder's. Closing the socket is all there is to end."""

    def __init__(self, pid: int, sock: socket.socket, interpreter_env: dict[str, str]) -> None:
        self.pid = pid
        self.sock = sock
        self.output_fd: int | None = None
        self.interpreter_env = interpreter_env

    async def end(self) -> None:
        """Nothing: the server serves others on."""
