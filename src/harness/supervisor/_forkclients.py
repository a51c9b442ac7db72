"""The connections a fork server takes requests on, and the sessions each asked for.

A worker fork server has one connection, the supervisor's: the exit status of every
child it reaps goes there. A server with a listening socket (one shared by several
processes, ``SessionForker(shared=NAME)``) takes a connection from each process of
the same user that connects; a session's exit goes to the connection that asked for
it, and a connection that closes takes its sessions with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
from collections.abc import Sequence

from harness.ipc import Message
from harness.supervisor._forkproto import Reaped, ZygoteReady, send

__all__ = ["Clients"]


class Clients:
    """The connections the server takes requests on, and the sessions each asked for.

    The first is the one it was started with; with a listener, more come. A send
    to one that has gone drops it (and kills its sessions) instead of ending the
    server, which ends once none is left.
    """

    def __init__(self, first: socket.socket, listener: socket.socket | None) -> None:
        self.listener = listener
        self._by_fd: dict[int, socket.socket] = {first.fileno(): first}
        self._asked: dict[int, socket.socket] = {}  # child pid -> who asked for it
        self._sessions: set[int] = set()  # the children that are sessions

    @property
    def open(self) -> bool:
        """Whether any connection is left (the server ends with the last)."""
        return bool(self._by_fd)

    def fds(self) -> list[int]:
        """What the server waits on: every connection, and the listener."""
        fds = list(self._by_fd)
        return fds if self.listener is None else [*fds, self.listener.fileno()]

    def get(self, fd: int) -> socket.socket | None:
        """The connection on *fd* (``None``: the listener, or one dropped)."""
        return self._by_fd.get(fd)

    def sockets(self) -> list[socket.socket]:
        """Every socket of the server's (a child closes them all)."""
        socks = list(self._by_fd.values())
        return socks if self.listener is None else [*socks, self.listener]

    def greet(self, client: socket.socket) -> bool:
        """Tell *client* the server is ready; whether it could."""
        return self.send(client, ZygoteReady(os.getpid()))

    def accept(self) -> None:
        """Take a connection from the listener, if it is our own user's."""
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        # Anyone on the machine can reach an abstract socket: only our own user
        # may have sessions forked as that user.
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", creds)
        if uid != os.getuid():
            conn.close()
            return
        conn.setblocking(True)
        conn.set_inheritable(False)
        self._by_fd[conn.fileno()] = conn
        self.greet(conn)

    def send(self, client: socket.socket, msg: Message, fds: Sequence[int] = ()) -> bool:
        """Send *msg* to *client*; whether it could (if not, the client is dropped)."""
        try:
            send(client, msg, list(fds))
        except OSError:
            self.drop(client)
            return False
        return True

    def forked(self, client: socket.socket, pid: int, *, session: bool) -> None:
        """Child *pid* (a session, or a worker) was forked for *client*."""
        self._asked[pid] = client
        if session:
            self._sessions.add(pid)

    def reaped(self, pid: int, returncode: int) -> None:
        """Report child *pid*'s exit to whoever asked for it, and to nobody else
        (on a shared server, another connection's children are none of its business)."""
        client = self._asked.pop(pid, None)
        self._sessions.discard(pid)
        if client is not None and client.fileno() in self._by_fd:
            self.send(client, Reaped(pid, returncode))

    def drop(self, client: socket.socket) -> None:
        """*client* has gone: so go the sessions it asked for, unless the server
        itself is ending (they die with it)."""
        if self._by_fd.pop(client.fileno(), None) is None:
            return
        client.close()
        if not self._by_fd:
            return
        for pid in self._sessions:
            if self._asked.get(pid) is client:
                # not reaped yet, so the pid is still that session's
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
