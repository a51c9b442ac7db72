"""Starting the fork server early, before this process imports the rest of what it needs.

The fork server (``harness.supervisor._zygote``) imports trio, the worker base and the
default workers' modules; the command line imports the conversation and trio itself.
:func:`start_early` lets the two overlap: ``harness.__main__`` calls it once the command
line is parsed and asks for a run (``--help``, ``--version`` and a usage error never get
there), and the supervisor adopts the started server (:func:`adopt`) instead of starting
one. How it starts is the starter's (:func:`start_servers_with`): ``harness`` forks
itself once it has imported what the two share, a session forked by a session server
does the same; the default, :func:`spawn_server`, starts a new interpreter. This module
imports nothing of harness and nothing heavy, so a spawn needs nothing imported first.
"""

from __future__ import annotations

import _socket  # the C module: ``socket`` and ``subprocess`` cost 30 ms to import
import os
import sys
from collections.abc import Callable, Mapping

__all__ = [
    "LISTEN",
    "MODEL_PRELOAD",
    "PRELOAD",
    "RUNNER_PRELOAD",
    "WORKER_PRELOAD",
    "EarlyServer",
    "adopt",
    "command",
    "forked_session",
    "interpreter_env",
    "spawn_server",
    "start_early",
    "start_servers_with",
]

#: What every worker imports: loaded once, in the fork server.
PRELOAD = (
    "trio",
    "harness.ipc._channel",
    "harness.worker",
    "setproctitle",
    # a worker cleans up its own descendants as it exits, with psutil
    "harness.supervisor._kill",
)
#: What the model worker imports beyond that, the first worker a session starts and
#: waits for. None of it (nor of :data:`WORKER_PRELOAD`) reads the environment or starts
#: a thread at import, which a preload must not.
MODEL_PRELOAD = (
    # (the model worker's HTTP client, h11 and trio, comes with its engine)
    "harness.actors.model._chat",
    # the HTTP providers, which the engine imports as its first request makes one: in
    # the worker, between that request and its HTTP request, they took 20-30 ms of CPU
    "harness.actors.model._openai",
    "harness.actors.model._anthropic",
    "harness.actors.model._gemini",
    "harness.actors.model._ollama",
)
#: What the default workers (model, tools, shell) import beyond :data:`PRELOAD`, in the
#: order they are needed: the model worker first, the others at their first calls.
WORKER_PRELOAD = (
    *MODEL_PRELOAD,
    "harness.actors.tools._dispatch",
    "harness.actors.shell._service",
)
#: What a sub-agent runner imports beyond that: the conversation loop and the tools, most
#: of the time from a spawn_agent call to the runner's first model request otherwise. A
#: session has its fork server import them once its workers are up, not while they
#: start: on two cores that import took the CPU the first request was waiting for.
RUNNER_PRELOAD = (
    "harness.conversation",
    # what the loop imports as a first reply ends (the main process has no time before)
    "harness.conversation._endings",
    "harness.actors.tools",
)


def interpreter_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of *env* that an interpreter reads once, as it starts
    (``PYTHON*`` but ``PYTHONPATH``, which a forked worker applies itself)."""
    return {k: v for k, v in env.items() if k.startswith("PYTHON") and k != "PYTHONPATH"}


class EarlyServer:
    """A started fork server: its pid, our end of its socket (a ``SOCK_SEQPACKET``
    fd), its output pipe, and the interpreter settings it started with (its
    children have them too). Its parent reaps it."""

    def __init__(
        self, pid: int, sock_fd: int, output_fd: int, environ: Mapping[str, str] | None = None
    ) -> None:
        self.pid = pid
        self.sock_fd = sock_fd
        self.output_fd = output_fd
        self.interpreter_env = interpreter_env(os.environ if environ is None else environ)


_early: EarlyServer | None = None


#: How a command line makes room (spaces the server ignores) for the command lines of
#: the processes it forks: theirs are written over its own memory, which is no longer.
ROOM = "--room="


#: How a command line hands the server a listening socket (:func:`spawn_server`'s *listen*).
LISTEN = "--listen="


def command(
    fd: int,
    preload: tuple[str, ...],
    warm: tuple[str, ...] = (),
    room: int = 0,
    listen: int | None = None,
) -> list[str]:
    """The fork server's command line, its socket on *fd*.

    It imports *preload* before it takes requests, and *warm* afterwards, while
    no request waits (what a worker needs and the server has not imported yet,
    the worker imports itself). *room* characters more are kept for the command
    lines of the processes it forks. *listen*: the fd of a listening socket on which
    it takes more connections (one server shared by several processes).
    """
    tail = ["--", *warm] if warm else []
    spare = [ROOM + " " * room] if room else []
    if listen is not None:
        spare.append(f"{LISTEN}{listen}")
    return [sys.executable, "-m", "harness.supervisor._zygote", str(fd), *spare, *preload, *tail]


def spawn_server(
    preload: tuple[str, ...],
    warm: tuple[str, ...] = (),
    environ: Mapping[str, str] | None = None,
    room: int = 0,
    listen: int | None = None,
) -> EarlyServer | None:
    """Start a fork server now, with *environ* (default ours), *room* and *listen*
    (see :func:`command`); ``None`` if it cannot start (workers then start as new
    interpreters).

    ``posix_spawn`` rather than ``subprocess``, so that nothing needs importing
    first. Its own session; stdin from /dev/null; stdout and stderr on a pipe we
    drain. The server closes whatever other descriptor it inherited.
    """
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_SEQPACKET)
    read_fd, write_fd = os.pipe()
    try:
        os.set_inheritable(theirs.fileno(), True)
        if listen is not None:
            os.set_inheritable(listen, True)
        pid = os.posix_spawn(
            sys.executable,
            command(theirs.fileno(), preload, warm, room, listen),
            os.environ if environ is None else environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_fd, 1),
                (os.POSIX_SPAWN_DUP2, write_fd, 2),
            ],
            setsid=True,
        )
    except OSError:
        ours.close()
        os.close(read_fd)
        return None
    finally:
        theirs.close()
        os.close(write_fd)
    return EarlyServer(pid, ours.detach(), read_fd, environ)


Starter = Callable[[tuple[str, ...], tuple[str, ...]], EarlyServer | None]
"""How a fork server starts, given what it preloads and what it warms."""

_starter: Starter = spawn_server


def start_servers_with(starter: Starter) -> None:
    """Have :func:`start_early` start the server with *starter* instead of a new
    interpreter: a session forked from a process that has imported everything
    forks itself into its server (``harness.supervisor._zygote.fork_server_here``)."""
    global _starter
    _starter = starter


def forked_session() -> bool:
    """Whether this process is a session a fork server forked (it was handed a starter
    by :func:`start_servers_with` before its command ran)."""
    return _starter is not spawn_server


def start_early(warm: tuple[str, ...] = WORKER_PRELOAD) -> None:
    """Start the fork server now; it also imports *warm* once it is ready.

    Does nothing off Linux (no pidfds) or when one is already waiting; a server
    that cannot start is simply not there, and the supervisor starts its own.
    """
    global _early
    if _early is None and hasattr(os, "pidfd_open"):
        _early = _starter(PRELOAD, warm)


def adopt() -> EarlyServer | None:
    """The server :func:`start_early` started, once (``None`` if there is none)."""
    global _early
    early, _early = _early, None
    return early
