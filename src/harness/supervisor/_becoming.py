"""What a child of the fork server does to become what it was asked to be.

:func:`become_worker` turns a fresh fork into ``python -m <module>`` (its own
session, stdin from /dev/null, stdout and stderr on the pipe it was sent, the
request's environment, folder and process title); :func:`become_session` turns
one into a whole session that dies with the server. Both leave the server's
sockets and signal handling behind first, and neither returns.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib
import os
import runpy
import signal
import socket
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from harness import _forkstart
from harness.ipc import IPC_FD_ENV, WORKER_TAG_ENV
from harness.supervisor._forkproto import ForkRequest, SessionRequest

_PR_SET_PDEATHSIG = 1


def close_all(fds: Sequence[int]) -> None:
    for fd in fds:
        os.close(fd)


def _leave_server(socks: Sequence[socket.socket], wake: tuple[int, int]) -> None:
    # What is the server's alone: its sockets, its wake-up pipe, its SIGCHLD handling.
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for sock in socks:
        sock.close()
    for fd in wake:
        os.close(fd)


def become_worker(
    req: ForkRequest,
    socks: Sequence[socket.socket],
    ipc_fd: int,
    out_fd: int,
    wake: tuple[int, int],
) -> NoReturn:
    """Turn this fresh child into ``python -m <module>``; never returns."""
    try:
        os.setsid()
        _leave_server(socks, wake)
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
    except BaseException:
        traceback.print_exc()
        os._exit(1)
    _run_main(req.module, req.args)


def become_session(
    req: SessionRequest,
    socks: Sequence[socket.socket],
    stdio: list[int],
    wake: tuple[int, int],
    server: int,
    fork_server: _forkstart.Starter,
) -> NoReturn:
    """Turn this fresh child into a session, ``python -m <module> <args>`` on the
    stdio it was sent, that dies with the server; never returns."""
    try:
        os.setsid()
        _die_with(server)
        _leave_server(socks, wake)
        for target, fd in enumerate(stdio):
            os.dup2(fd, target)
        close_all([fd for fd in stdio if fd > 2])
        os.chdir(req.cwd)
        _write_tag(req.tag)  # before the environment is replaced: getenv finds the block
        os.environ.clear()
        os.environ.update(req.env)
        _set_path(req.env.get("PYTHONPATH"))
        set_argv([sys.executable, "-m", req.module, *req.args])
        _forkstart.start_servers_with(fork_server)
    except BaseException:
        traceback.print_exc()
        os._exit(1)
    _run_main(req.module, req.args)


def _run_main(module: str, args: list[str]) -> NoReturn:
    code = 1
    try:
        sys.argv = [module, *args]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
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


def _die_with(server: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != server:  # the server died before the request took hold
        os._exit(1)


def _write_tag(tag: str) -> None:
    """Write *tag* over the placeholder value of ``HARNESS_WORKER_TAG`` in this
    process's original environment block: ``/proc/PID/environ`` shows that block
    whatever ``os.environ`` says, and the tree sweep (``find_tagged``) reads it.
    A fork copies it, so every process this session forks carries the tag too."""
    getenv = ctypes.CDLL(None).getenv
    getenv.restype = ctypes.c_void_p
    getenv.argtypes = [ctypes.c_char_p]
    ptr = getenv(WORKER_TAG_ENV.encode())
    new = tag.encode()
    if ptr and len(ctypes.string_at(ptr)) == len(new):
        ctypes.memmove(ptr, new, len(new))


def set_argv(args: Sequence[str]) -> None:
    """Show *args* as this process's command line, one argument each (setproctitle
    joins them into one): written over the memory ``/proc/PID/cmdline`` reads,
    truncated to its size, the rest zeroed."""
    try:
        with open("/proc/self/stat", "rb") as f:
            raw = f.read()
        fields = raw[raw.rfind(b")") + 2 :].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end
    except (OSError, ValueError, IndexError):
        return
    size = end - start
    if size <= 1:
        return
    data = b"\0".join(os.fsencode(a) for a in args)[: size - 1]
    ctypes.memmove(start, data + b"\0" * (size - len(data)), size)


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


def prepare_titles() -> None:
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
