"""The fork server: import a worker's common modules once, then fork workers.

Run by :class:`~harness.supervisor._forkserver.ForkServer` as
``python -m harness.supervisor._zygote FD [MODULE ...]``: it imports each MODULE,
says :class:`ZygoteReady` on the socket FD, then forks one worker per
:class:`ForkRequest`. The child becomes what ``python -m <module>`` would have
been (its own session, stdin from /dev/null, stdout and stderr on the pipe it was
sent, the request's environment and folder, ``ps`` showing ``python -m
<module>``) and runs the module as ``__main__``. The server reaps its children
and reports each exit status, since only a parent can read it.

The server never runs an event loop and never starts a thread: forking a process
with other threads copies their locks in whatever state they were. It leaves
when its socket closes (the supervisor is gone); workers it forked live on
without it, each tied to the supervisor by its own channel.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import runpy
import select
import signal
import socket
import sys
import threading
import time
import traceback
from typing import NoReturn

from harness.ipc import IPC_FD_ENV, ProtocolError
from harness.supervisor._forkproto import (
    Forked,
    ForkFailed,
    ForkRequest,
    Reaped,
    ZygoteReady,
    receive,
    send,
)

__all__ = ["main"]

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
    sock.setblocking(True)
    sock.set_inheritable(False)
    # Nothing else our parent let us inherit is ours (or our children's) to hold
    # open: only stdin, stdout, stderr and this socket stay.
    os.closerange(3, sock.fileno())
    os.closerange(sock.fileno() + 1, os.sysconf("SC_OPEN_MAX"))
    now, later = argv[1:], []
    if "--" in now:
        cut = now.index("--")
        now, later = now[:cut], now[cut + 1 :]
    for name in now:
        _preload(name)
    _prepare_titles()
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    # SIGCHLD needs a Python-level handler for its number to reach the wakeup fd.
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    signal.set_wakeup_fd(wake_w)
    # What is imported now is shared with every child: keep the collector off it,
    # so that a child's first collection does not copy those pages.
    gc.freeze()
    quiet_from = 0.0
    try:
        send(sock, ZygoteReady(os.getpid()))
        while True:
            timeout = max(0.0, quiet_from - time.monotonic()) if later else None
            readable, _, _ = select.select([sock.fileno(), wake_r], [], [], timeout)
            if not readable:
                _preload(later.pop(0))
                gc.freeze()
                continue
            if wake_r in readable:
                _drain(wake_r)
                _reap(sock)
            if sock.fileno() in readable:
                try:
                    msg, fds = receive(sock)
                except ProtocolError as exc:
                    sys.stderr.write(f"fork server: {exc}\n")
                    continue
                if msg is None:
                    return 0
                if isinstance(msg, ForkRequest) and len(fds) == 2:
                    _fork(sock, msg, fds[0], fds[1], (wake_r, wake_w))
                    # Requests come in bursts (every worker at start-up): the next
                    # one should not wait behind an import.
                    quiet_from = time.monotonic() + BURST_GAP
                else:
                    for fd in fds:
                        os.close(fd)
                    send(sock, ForkFailed(f"unexpected {type(msg).__name__} with {len(fds)} fds"))
    except (BrokenPipeError, ConnectionResetError):
        return 0  # the supervisor is gone


def _preload(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception as exc:  # not preloaded: the worker imports it itself
        sys.stderr.write(f"fork server: could not preload {name}: {exc!r}\n")


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


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        send(sock, Reaped(pid, os.waitstatus_to_exitcode(status)))


def _fork(
    sock: socket.socket, req: ForkRequest, ipc_fd: int, out_fd: int, wake: tuple[int, int]
) -> None:
    if _threads() != 1:
        os.close(ipc_fd)
        os.close(out_fd)
        send(sock, ForkFailed("the fork server has threads; it cannot fork safely"))
        return
    try:
        pid = os.fork()
    except OSError as exc:
        os.close(ipc_fd)
        os.close(out_fd)
        send(sock, ForkFailed(f"fork: {exc}"))
        return
    if pid == 0:
        _become(req, sock, ipc_fd, out_fd, wake)
    os.close(ipc_fd)
    os.close(out_fd)
    # Opened before this server reaps anything, so the pid cannot have been reused.
    pidfd = os.pidfd_open(pid)
    try:
        send(sock, Forked(pid), [pidfd])
    finally:
        os.close(pidfd)


def _become(
    req: ForkRequest, sock: socket.socket, ipc_fd: int, out_fd: int, wake: tuple[int, int]
) -> NoReturn:
    """Turn this fresh child into ``python -m <module>``; never returns."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sock.close()
        for fd in wake:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(out_fd, 1)
        os.dup2(out_fd, 2)
        os.close(out_fd)
        os.chdir(req.cwd)
        os.environ.clear()
        os.environ.update(req.env)
        os.environ[IPC_FD_ENV] = str(ipc_fd)
        _set_path(req.env.get("PYTHONPATH"))
        _set_title(req)
        sys.argv = [req.module, *req.args]
        runpy.run_module(req.module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _exit_code(value: object) -> int:
    # What the interpreter makes of SystemExit's argument.
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    sys.stderr.write(f"{value}\n")
    return 1


def _set_path(python_path: str | None) -> None:
    # What `python -m` puts first, then the request's PYTHONPATH (which the server
    # read at its own start, from the supervisor's environment, not the spec's).
    sys.path[0] = os.getcwd()
    if python_path:
        missing = [entry for entry in python_path.split(os.pathsep) if entry not in sys.path]
        sys.path[1:1] = [entry for entry in missing if entry]
    importlib.invalidate_caches()


def _prepare_titles() -> None:
    # setproctitle finds the memory that holds the command line on its first
    # call, through the environment; a child replaces its environment before it
    # sets its title, so the finding is done here, once, for all of them.
    try:
        import setproctitle
    except ImportError:  # pragma: no cover - a dependency; a title is only cosmetic
        return
    setproctitle.setproctitle(setproctitle.getproctitle())


def _set_title(req: ForkRequest) -> None:
    # `ps` shows which actor a process is, as it would for `python -m <module>`.
    try:
        import setproctitle
    except ImportError:  # pragma: no cover
        return
    setproctitle.setproctitle(" ".join([sys.executable, "-m", req.module, *req.args]))
    setproctitle.setthreadtitle(os.path.basename(sys.executable))


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stderr.flush()
    # Tearing down every preloaded module would only delay the supervisor's exit,
    # which waits for this one; nothing here has anything to flush or close.
    os._exit(status)
