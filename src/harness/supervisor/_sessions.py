"""Forking whole sessions from a fork server, for callers that wait in threads.

A batch run starts a headless session per task. Started as a new interpreter, each
costs an interpreter's start and the command line's imports, then a second
interpreter for the session's own worker fork server: well over half a second of
CPU a task, which is what eight tasks at once on two cores spend their time on. A
:class:`SessionForker` starts the fork server (``_zygote``) once with all of that
imported, and forks each session from it (:class:`SessionRequest`): its own
session id, stdin, stdout and stderr on the descriptors given, the caller's
environment and folder; and the session's worker fork server is a fork of the
session, not a new interpreter.

Every session dies with the server (``PR_SET_PDEATHSIG``), and the server leaves
when its socket closes, that is when this process ends, even by SIGKILL: a killed
driver leaves no session running. The server's environment holds no secret and a
placeholder tag that each session overwrites with its own, so ``find_tagged``
finds a session's whole tree by its tag as it would a new interpreter's.

Synchronous: one thread reads the server's socket (replies, exit statuses, its
output); callers in any thread ask for a fork and get ``None`` whenever it cannot
be done, and start the session themselves.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import threading
import time
from collections.abc import Mapping, Sequence

from harness import _forkstart
from harness.ipc import WORKER_TAG_ENV, ProtocolError
from harness.keys import is_secret_name, is_secret_value
from harness.supervisor._forkproto import (
    Forked,
    ForkFailed,
    Reaped,
    SessionRequest,
    ZygoteReady,
    receive,
    send,
)

__all__ = ["TAG_LENGTH", "ForkedSession", "SessionForker"]

#: The length of a tag a session can carry in ``/proc/PID/environ``: it is written
#: over the server's placeholder, which has this many characters.
TAG_LENGTH = 22
#: Seconds a fork waits for the server to be ready before the caller starts the
#: session itself (the server imports for about a second on a loaded small machine).
READY_TIMEOUT = 30.0
#: Seconds an exit seen on the pidfd waits for the server's report of its status.
STATUS_WAIT = 5.0
_OUTPUT_LIMIT = 16 * 1024
#: Characters kept on the server's command line for its sessions' (a session's
#: command line is written over the memory of the server's).
TITLE_ROOM = 2048


class ForkedSession:
    """A session forked by the server: its pid, a pidfd (readable once it has ended,
    for a ``select`` loop), signals, and its exit status as the server reports it."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.returncode: int | None = None
        self._reported = threading.Event()
        self._closed = False

    def _report(self, returncode: int | None) -> None:
        if returncode is not None:
            self.returncode = returncode
        self._reported.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to *timeout* seconds for it to end; whether it has. Its status is in
        :attr:`returncode` (``None`` when the server died before reporting it)."""
        readable, _, _ = select.select([self.pidfd], [], [], timeout)
        if not readable:
            return False
        self._reported.wait(STATUS_WAIT)
        return True

    def send_signal(self, sig: int) -> None:
        """Send *sig* (through the pidfd: never to a later process with its pid)."""
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, sig)

    def close(self) -> None:
        """Close the pidfd."""
        if not self._closed:
            self._closed = True
            os.close(self.pidfd)


class SessionForker:
    """A fork server for whole sessions: start it once, then :meth:`fork` sessions.

    Args:
        preload: the modules the server imports before it forks anything.
        warm: the modules it imports afterwards, while no request waits.
        environ: its environment (default ours), secrets left out; a session whose
            interpreter settings (``PYTHON*`` but ``PYTHONPATH``) differ from it is
            not forked.
        shared: a name (an abstract Unix socket's) under which one server serves
            every process of this user that gives the same name: the first starts
            it, the others connect to it. Each process's sessions die with that
            process's connection; the server leaves when the last one closes.
    """

    #: The length of a tag a session can carry in ``/proc/PID/environ``.
    TAG_LENGTH = TAG_LENGTH

    def __init__(
        self,
        preload: tuple[str, ...],
        warm: tuple[str, ...] = (),
        environ: Mapping[str, str] | None = None,
        shared: str | None = None,
    ) -> None:
        self.preload = preload
        self.warm = warm
        self.shared = shared
        source = os.environ if environ is None else environ
        self._environ = {
            name: value
            for name, value in source.items()
            if not (is_secret_name(name) or is_secret_value(value))
        }
        # the placeholder each session overwrites with its tag; and setproctitle kept
        # to the command line's memory, off the environment block that carries the tag
        self._environ[WORKER_TAG_ENV] = "-" * TAG_LENGTH
        self._environ["SPT_NOENV"] = "1"
        self.pid: int | None = None
        self._ready = threading.Event()
        self._finished = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        self._replied = threading.Event()
        self._reply: ForkedSession | None = None
        self._sessions: dict[int, ForkedSession] = {}
        self._sock: socket.socket | None = None
        self._output = bytearray()
        self._thread: threading.Thread | None = None

    @staticmethod
    def available() -> bool:
        """Whether this platform can run it (Linux with pidfds)."""
        return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")

    def start(self) -> None:
        """Start the server in the background (once); :meth:`fork` waits for it."""
        with self._lock:
            if self._thread is not None:
                return
            if not self.available():
                self._closed = True
                self._ready.set()
                return
            # One thread for the server's whole life: it spawns the server, reads its
            # socket and output, and reaps it.
            self._thread = threading.Thread(target=self._run, name="session-forker", daemon=True)
            self._thread.start()

    @property
    def output(self) -> str:
        """The end of what the server printed (its import failures, refused forks)."""
        return self._output.decode("utf-8", "replace")

    def fork(
        self,
        module: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str,
        stdio: tuple[int, int, int],
        tag: str,
    ) -> ForkedSession | None:
        """Fork ``python -m <module> <args>`` with *env* in *cwd*, on *stdio* (its
        stdin, stdout and stderr, which the caller still closes); ``None`` when the
        server cannot (not started, gone, other interpreter settings, a refused fork).

        *tag* (:data:`TAG_LENGTH` characters) is what ``/proc/PID/environ`` shows as
        ``HARNESS_WORKER_TAG`` for the session and everything it forks.
        """
        self.start()
        if not self._ready.wait(READY_TIMEOUT) or self._closed:
            return None
        if _forkstart.interpreter_env(env) != _forkstart.interpreter_env(self._environ):
            return None
        request = SessionRequest(module, list(args), dict(env), os.path.abspath(cwd), tag)
        with self._lock:
            sock = self._sock
            if self._closed or sock is None:
                return None
            self._reply = None
            self._replied.clear()
            try:
                send(sock, request, list(stdio))
            except OSError as exc:  # too big for one packet, or the server is gone
                self._note(f"session request not sent: {exc}\n".encode())
                return None
            # The server answers every request at once, or its socket closes.
            self._replied.wait()
            return self._reply

    def close(self) -> None:
        """Stop the server: it leaves when its socket closes, and its sessions die with it.

        A shared server leaves when the last process's connection closes; this one's
        sessions are killed as its connection closes.
        """
        with self._lock:
            self._closed = True
            sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            if self.shared is None:
                thread.join(10)  # the server reaped
            else:
                # A shared server may serve others long after: its starter's thread
                # stays to reap it, and nobody waits for that.
                self._finished.wait(10)

    def _note(self, data: bytes) -> None:
        self._output += data
        del self._output[:-_OUTPUT_LIMIT]

    def _run(self) -> None:
        if self.shared is not None:
            joined, listener = _join(self.shared)
            if joined is not None:
                # another process's server: nothing of it to read but its socket
                try:
                    self._serve(joined, None)
                finally:
                    self._finish(None)
                return
        else:
            listener = None
        try:
            listen = None if listener is None else listener.fileno()
            early = _forkstart.spawn_server(
                self.preload, self.warm, self._environ, TITLE_ROOM, listen
            )
        finally:
            if listener is not None:
                listener.close()  # the server's now
        if early is None:
            self._note(b"could not start the session fork server\n")
            self._finish(None)
            return
        self.pid = early.pid
        try:
            self._serve(socket.socket(fileno=early.sock_fd), early.output_fd)
        finally:
            self._finish(early)  # the server is reaped here

    def _serve(self, sock: socket.socket, output_fd: int | None) -> None:
        sock.setblocking(True)
        with self._lock:
            if self._closed:
                sock.close()
            else:
                self._sock = sock
        try:
            if self._sock is not None:
                self._read(sock, output_fd)
        finally:
            sock.close()  # the server leaves when its socket closes

    def _read(self, sock: socket.socket, output_fd: int | None) -> None:
        sock_fd = sock.fileno()
        watched = [sock_fd] if output_fd is None else [sock_fd, output_fd]
        while True:
            readable, _, _ = select.select(watched, [], [])
            if output_fd is not None and output_fd in readable:
                data = os.read(output_fd, 4096)
                if data:
                    self._note(data)
                elif sock_fd not in readable:
                    return  # the server is gone (its output closed)
            if sock_fd not in readable:
                continue
            try:
                msg, fds = receive(sock)
            except ProtocolError as exc:
                self._note(f"session fork server: {exc}\n".encode())
                continue
            except OSError:
                return
            if msg is None:
                return
            if isinstance(msg, ZygoteReady):
                self._ready.set()
            elif isinstance(msg, Reaped):
                session = self._sessions.pop(msg.pid, None)
                if session is not None:
                    session._report(msg.returncode)
            elif isinstance(msg, Forked) and len(fds) == 1:
                # registered before the next packet is read: that may be its exit
                session = self._sessions[msg.pid] = ForkedSession(msg.pid, fds.pop())
                self._settle(session)
            elif isinstance(msg, Forked | ForkFailed):
                if isinstance(msg, ForkFailed):
                    self._note(f"session fork failed: {msg.error}\n".encode())
                self._settle(None)
            for fd in fds:
                os.close(fd)

    def _settle(self, reply: ForkedSession | None) -> None:
        self._reply = reply
        self._replied.set()

    def _finish(self, early: _forkstart.EarlyServer | None) -> None:
        self._closed = True
        self._ready.set()
        self._settle(None)
        # Nobody can report these sessions' statuses any more: their exits are seen
        # on their pidfds alone.
        for session in self._sessions.values():
            session._report(None)
        self._sessions.clear()
        self._finished.set()
        if early is not None:
            os.close(early.output_fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(early.pid, 0)  # it leaves once its socket has closed


#: Tries to join or start a shared server before giving up on it (another process
#: may be between binding the name and listening on it).
_JOIN_TRIES = 100


def _join(name: str) -> tuple[socket.socket | None, socket.socket | None]:
    """Connect to the server shared under *name*, or take the name: (connected
    socket, None) or (None, listening socket for a new server), (None, None) if
    neither could be done."""
    address = "\0" + name  # abstract: no file to leave behind, gone with its socket
    for _ in range(_JOIN_TRIES):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.connect(address)
            return conn, None
        except (ConnectionRefusedError, FileNotFoundError):
            conn.close()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            listener.bind(address)
            listener.listen(64)
            return None, listener
        except OSError:  # bound by another process a moment ago
            listener.close()
        time.sleep(0.01)
    return None, None
