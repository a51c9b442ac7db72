"""The fork server: import a worker's common modules once, then fork workers.

Run by :class:`~harness.supervisor._forkserver.ForkServer` as
``python -m harness.supervisor._zygote FD [MODULE ...]``: it imports each MODULE,
says :class:`ZygoteReady` on the socket FD, then forks one worker per
:class:`ForkRequest`. The child becomes what ``python -m <module>`` would have been
(:mod:`._becoming`). The server reaps its children and reports each exit status,
since only a parent can read it, to the connection that asked (:mod:`._forkclients`).
What it imports when (before it is ready, while idle, before a fork that waits for a
warm request's modules) is :mod:`._forkimports`; this module is its main loop and
the forks.

The server never runs an event loop and never starts a thread: forking a process
with other threads copies their locks in whatever state they were. It leaves
when its socket closes (the supervisor is gone); workers it forked live on
without it, each tied to the supervisor by its own channel.

The same program serves whole sessions (:class:`SessionRequest`, for batch runs,
through :class:`~harness.supervisor._sessions.SessionForker`): the child gets the
stdin, stdout and stderr it was sent, dies with the server, and when the session
starts its own fork server (``harness._forkstart.start_early``) it forks itself
into it (:func:`fork_server_here`) instead of starting a new interpreter: it has
imported everything that server would.
"""

from __future__ import annotations

import functools
import gc
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import NoReturn

from harness import _forkstart
from harness.ipc import ProtocolError
from harness.supervisor._becoming import (
    become_session,
    become_worker,
    close_all,
    prepare_titles,
    set_argv,
)
from harness.supervisor._forkclients import Clients
from harness.supervisor._forkimports import Imports, preload, say
from harness.supervisor._forkproto import (
    Forked,
    ForkFailed,
    ForkRequest,
    SessionRequest,
    WarmRequest,
    receive,
)

__all__ = ["fork_server_here", "main", "serve"]


#: Seconds after a fork before an idle-time import starts.
BURST_GAP = 0.05


def main(argv: list[str]) -> int:
    """Serve fork requests on the socket whose fd is ``argv[0]`` until it closes.

    The modules named after it are imported before the server says it is ready;
    those after a ``--`` are imported afterwards, one at a time while no request
    waits, so that the first workers need not wait for all of them.
    """
    if not argv or not argv[0].isdigit():
        sys.stderr.write(
            "usage: python -m harness.supervisor._zygote FD [MODULE ...] [-- MODULE ...]\n"
        )
        return 2
    sock = socket.socket(fileno=int(argv[0]))
    listener = None
    for arg in argv[1:]:
        if arg.startswith(_forkstart.LISTEN):
            listener = socket.socket(fileno=int(arg.removeprefix(_forkstart.LISTEN)))
    rest = [arg for arg in argv[1:] if not arg.startswith((_forkstart.ROOM, _forkstart.LISTEN))]
    now, later = rest, []
    if "--" in now:
        cut = now.index("--")
        now, later = now[:cut], now[cut + 1 :]
    title = None
    if len(rest) < len(argv) - 1:  # ps shows what we run, not the room we keep
        title = [sys.executable, "-m", "harness.supervisor._zygote", argv[0], *rest]
    return serve(sock, now, later, title, listener=listener)


def serve(
    sock: socket.socket,
    now: Sequence[str],
    later: Sequence[str],
    title: Sequence[str] | None = None,
    *,
    forked: bool = False,
    listener: socket.socket | None = None,
) -> int:
    """Serve fork requests on *sock* until it closes; the exit status.

    Imports *now* before it says it is ready, and *later* one at a time while no
    request waits, as it does the modules a :class:`WarmRequest` names (a fork of
    that request's worker waits for those). *title* is the command line ``ps``
    shows (default: ours). *forked*: this process was forked from a fork server
    (which found the memory of the command line already).

    With *listener* (a listening ``SOCK_SEQPACKET`` socket), the server also takes
    the requests of every process of the same user that connects to it, and serves
    until the last of them (and *sock*) has closed. A session dies with the
    connection that asked for it: when one closes, its sessions are killed.
    """
    sock.setblocking(True)
    sock.set_inheritable(False)
    # Nothing else our parent let us inherit is ours (or our children's) to hold
    # open: only stdin, stdout, stderr and these sockets stay.
    keep = sorted({sock.fileno(), *([listener.fileno()] if listener is not None else [])})
    for low, high in zip([2, *keep], [*keep, os.sysconf("SC_OPEN_MAX")], strict=True):
        os.closerange(low + 1, high)
    if listener is not None:
        listener.setblocking(True)
        listener.set_inheritable(False)
    imports = Imports(later)
    for name in now:
        preload(name)
    if not forked:
        prepare_titles()
    if title is not None:
        set_argv(title)
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    # SIGCHLD needs a Python-level handler for its number to reach the wakeup fd.
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    signal.set_wakeup_fd(wake_w)
    # What is imported now is shared with every child: keep the collector off it,
    # so that a child's first collection does not copy those pages.
    gc.freeze()
    quiet_from = 0.0
    clients = Clients(sock, listener)
    if not clients.greet(sock):
        return 0  # the supervisor is gone
    while clients.open:
        timeout = max(0.0, quiet_from - time.monotonic()) if imports.later else None
        readable, _, _ = select.select([*clients.fds(), wake_r], [], [], timeout)
        if not readable:
            imports.next_idle()
            gc.freeze()
            continue
        if wake_r in readable:
            _drain(wake_r)
            _reap(clients)
        for fd in readable:
            if listener is not None and fd == listener.fileno():
                clients.accept()
                continue
            client = clients.get(fd)
            if client is None:
                continue
            try:
                msg, fds = receive(client)
            except ProtocolError as exc:
                say(f"fork server: {exc}\n")
                continue
            except OSError:
                msg, fds = None, []
            if msg is None:
                clients.drop(client)
                continue
            wake = (wake_r, wake_w)
            owned = clients.sockets()
            if isinstance(msg, WarmRequest) and not fds:
                imports.warm(msg)
            elif isinstance(msg, ForkRequest) and len(fds) == 2:
                if imports.before_fork(msg.module):
                    gc.freeze()
                become = functools.partial(become_worker, msg, owned, fds[0], fds[1], wake)
                _fork(clients, client, fds, become, session=False)
                # Requests come in bursts (every worker at start-up): the next
                # one should not wait behind an import.
                quiet_from = time.monotonic() + BURST_GAP
            elif isinstance(msg, SessionRequest) and len(fds) == 3:
                become = functools.partial(
                    become_session, msg, owned, fds, wake, os.getpid(), fork_server_here
                )
                _fork(clients, client, fds, become, session=True)
                quiet_from = time.monotonic() + BURST_GAP
            else:
                for fd_ in fds:
                    os.close(fd_)
                error = ForkFailed(f"unexpected {type(msg).__name__} with {len(fds)} fds")
                clients.send(client, error)
    return 0


def _threads() -> int:
    # The kernel's count, which also sees threads a native library started (a
    # preloaded module's thread pool would be copied half-made by a fork).
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _reap(clients: Clients) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        clients.reaped(pid, os.waitstatus_to_exitcode(status))


def _fork(
    clients: Clients,
    client: socket.socket,
    fds: list[int],
    become: Callable[[], NoReturn],
    *,
    session: bool,
) -> None:
    if _threads() != 1:
        close_all(fds)
        clients.send(client, ForkFailed("the fork server has threads; it cannot fork safely"))
        return
    try:
        pid = os.fork()
    except OSError as exc:
        close_all(fds)
        clients.send(client, ForkFailed(f"fork: {exc}"))
        return
    if pid == 0:
        become()
    close_all(fds)
    clients.forked(client, pid, session=session)
    # Opened before this server reaps anything, so the pid cannot have been reused.
    pidfd = os.pidfd_open(pid)
    try:
        clients.send(client, Forked(pid), [pidfd])
    finally:
        os.close(pidfd)


def fork_server_here(
    preload: tuple[str, ...],
    warm: tuple[str, ...] = (),
    *,
    forked: bool = True,
    in_child: Callable[[], object] | None = None,
) -> _forkstart.EarlyServer | None:
    """Fork this process into a worker fork server (``None`` if it cannot).

    For a session forked by a fork server: it has imported what the worker server
    would (and more), runs no loop and no thread yet, so a fork of it is that
    server at the cost of a fork, not of an interpreter and its imports. The same
    for ``harness`` itself, once it has imported what it shares with the server
    (*forked* ``False``: no fork server found the memory of its command line for
    the workers' titles, the child does). The child is what
    :func:`harness._forkstart.spawn_server` would start: its own session, stdin
    from /dev/null, stdout and stderr on a pipe whose read end is returned; it
    calls *in_child* first (to drop what the workers must not inherit).
    """
    if _threads() != 1:
        return None
    # what is still buffered is the parent's to write, not a copy's
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    except OSError:
        return None
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        close_all([read_fd, write_fd])
        return None
    if pid == 0:  # pragma: no cover - the fork server's side
        code = 1
        try:
            if in_child is not None:
                in_child()
            os.setsid()
            ours.close()
            os.close(read_fd)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            os.dup2(write_fd, 1)
            os.dup2(write_fd, 2)
            os.close(write_fd)
            title = _forkstart.command(theirs.fileno(), preload, warm)
            now = [m for m in preload if m not in sys.modules]
            later = [m for m in warm if m not in sys.modules]
            code = serve(theirs, now, later, title, forked=forked)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    theirs.close()
    os.close(write_fd)
    return _forkstart.EarlyServer(pid, ours.detach(), read_fd)


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stderr.flush()
    # Tearing down every preloaded module would only delay the supervisor's exit,
    # which waits for this one; nothing here has anything to flush or close.
    os._exit(status)
